"""Mono's class libraries (C#) through the C# peer (``pctfuzz/peers/csharp/Peer.cs``,
compiled by ``make peers`` with mcs, run by mono; docs/peers.md): ``System.Uri``,
``System.Web.HttpUtility`` and ``System.Net.WebUtility``, which encode differently (Microsoft
docs, "WebUtility.UrlEncode" and "HttpUtility.UrlEncode"; Mono 6.8's reference source).
The sets are what ``pctfuzz probe`` found on Mono 6.8.0.105: ``Uri.EscapeDataString``
leaves RFC 3986's unreserved characters raw, ``Uri.EscapeUriString`` the reserved ones
too; both ``UrlEncode`` leave letters, digits and ``- _ . ! * ( )`` raw and write a space
``+``."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.cases import FormParseCase
from pctfuzz._internal.oracles.base import Unsupported
from pctfuzz._internal.oracles.langs import LangPeerAdapter
from pctfuzz._internal.oracles.peer import PeerProtocolError

__all__ = ["CSHARP_ADAPTERS"]

_URLENCODE = "component+'~"


class _CSharp(LangPeerAdapter):
    lang = "csharp"
    #: The functions take a String (UTF-16 code units), never bytes.
    value_types = ("str",)
    #: C# strings are UTF-16: the peer's JSON reader keeps a lone surrogate.
    byte_strings = False


class MonoUri(_CSharp):
    """Uri.EscapeDataString and Uri.EscapeUriString (encode), Uri.UnescapeDataString
    (decode)"""

    name = "mono-uri"
    sets = MappingProxyType({"Uri.EscapeDataString": "rfc3986-unreserved",
                             "Uri.EscapeUriString": "encodeURI-[]"})
    spaces = (False,)


class MonoHttpUtility(_CSharp):
    """HttpUtility.UrlEncode (encode), UrlDecode (decode), ParseQueryString (form parsing)"""

    name = "mono-httputility"
    sets = MappingProxyType({"HttpUtility.UrlEncode": _URLENCODE})
    spaces = (True,)

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        # A NameValueCollection, answered key by key: a value added without a name (a
        # sequence with no '=') is under the null key, answered as the name None and
        # compared as the name '' (the registry's model groups the two apart).
        if isinstance(case.text, bytes):
            raise Unsupported("ParseQueryString takes a string, not bytes")
        answer = self.request("form_parse", {"text": case.text})
        if isinstance(answer, list) and all(
                isinstance(p, list) and len(p) == 2 and isinstance(p[0], str | None)
                and isinstance(p[1], str) for p in answer):
            return [(n if n is not None else "", v) for n, v in answer]
        raise PeerProtocolError(f"form_parse answered {answer!r:.200}, not [[name, value], ...]")


class MonoWebUtility(_CSharp):
    """WebUtility.UrlEncode (encode), WebUtility.UrlDecode (decode)"""

    name = "mono-webutility"
    sets = MappingProxyType({"WebUtility.UrlEncode": _URLENCODE})
    spaces = (True,)


CSHARP_ADAPTERS: tuple[type[LangPeerAdapter], ...] = (MonoUri, MonoHttpUtility, MonoWebUtility)
