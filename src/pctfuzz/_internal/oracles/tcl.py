"""Tcl's http package through the Tcl peer (``pctfuzz/peers/tcl/peer.tcl``;
docs/peers.md). The set is what ``pctfuzz probe`` found on http 2.9.8 (Tcl 8.6.13):
RFC 3986's unreserved characters raw, everything else ``%HH`` of its UTF-8 bytes
(``-urlencoding utf-8``, the default)."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.oracles.base import Unsupported
from pctfuzz._internal.oracles.langs import LangPeerAdapter

__all__ = ["TclHttp"]


class TclHttp(LangPeerAdapter):
    """::http::quoteString (encode), ::http::formatQuery (form serialize)"""

    name = "tcl-http"
    lang = "tcl"
    sets = MappingProxyType({"quoteString": "rfc3986-unreserved"})
    spaces = (False,)
    value_types = ("str",)
    #: Tcl 8.6 strings are UTF-16 code units: a lone surrogate reaches the package.
    byte_strings = False

    def encode(self, case: EncodeCase) -> str:
        if isinstance(case.value, bytes):
            # The peer's JSON reader (tcllib json2dict) cannot tell {"base64": ...}
            # from a string; quoteString takes characters anyway.
            raise Unsupported("::http::quoteString takes a string")
        return super().encode(case)
