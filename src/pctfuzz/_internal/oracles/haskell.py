"""Haskell's network-uri (``Network.URI``) through the Haskell peer
(``pctfuzz/peers/haskell/Peer.hs``, compiled by ``make peers``; docs/peers.md). The sets
are what ``pctfuzz probe`` found on network-uri 2.6.4.1 (GHC 9.0.2): ``escapeURIString``
with ``isUnreserved`` leaves RFC 3986's unreserved characters raw (``isUnescapedInURIComponent``
is the same predicate), with ``isUnescapedInURI`` the reserved ones too, with
``isAllowedInURI`` also ``%``; every other character as ``%HH`` of its UTF-8 bytes."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.cases import DecodeCase
from pctfuzz._internal.oracles.base import Unsupported
from pctfuzz._internal.oracles.langs import LangPeerAdapter
from pctfuzz._internal.text import has_lone_surrogate

__all__ = ["HaskellNetworkUri"]


class HaskellNetworkUri(LangPeerAdapter):
    """escapeURIString isUnreserved / isUnescapedInURI / isAllowedInURI (encode),
    unEscapeString (decode)"""

    name = "haskell-network-uri"
    lang = "haskell"
    sets = MappingProxyType({"escapeURIString isUnreserved": "rfc3986-unreserved",
                             "escapeURIString isUnescapedInURI": "encodeURI-[]",
                             "escapeURIString isAllowedInURI": "encodeURI-%25[]"})
    spaces = (False,)
    #: The functions take a String (a list of code points), never bytes.
    value_types = ("str",)
    #: A Haskell Char is any code point, a surrogate too: a lone one reaches the library.
    byte_strings = False

    def decode(self, case: DecodeCase) -> bytes:
        if isinstance(case.value, str) and has_lone_surrogate(case.value):
            # unEscapeString keeps it as a Char; the answer's UTF-8 bytes would be the
            # peer's, not the library's.
            raise Unsupported("unEscapeString answers a String: a lone surrogate has no UTF-8")
        return super().decode(case)
