"""GLib's URI functions (``guri.c``) through the GLib peer (``pctfuzz/peers/glib/peer.c``,
built by ``make peers``; docs/peers.md). The sets are what ``pctfuzz probe`` found on
GLib 2.74.6: RFC 3986's unreserved characters raw, plus the ``reserved_chars_allowed``
string of each ``G_URI_RESERVED_CHARS_ALLOWED_IN_*`` macro (guri.h), ``%HH`` uppercase.

C strings are bytes (``LangPeerAdapter``): a str value reaches GLib as its UTF-8 bytes,
NUL-terminated, a bytes value with its length (``g_uri_escape_bytes``,
``g_uri_unescape_bytes``)."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormParseCase
from pctfuzz._internal.oracles.base import Unsupported
from pctfuzz._internal.oracles.langs import LangPeerAdapter

__all__ = ["GLIB_ADAPTERS", "GlibUriEscape", "GlibUriParams", "GlibUriParseParams"]


class _Glib(LangPeerAdapter):
    lang = "glib"


def _no_nul(function: str, value: str | bytes) -> None:
    if isinstance(value, str) and "\x00" in value:
        raise Unsupported(f"{function} takes a C string, which ends at its first NUL "
                          "(bytes values go to the _bytes function)")


class GlibUriEscape(_Glib):
    """g_uri_escape_string / g_uri_escape_bytes (encode), g_uri_unescape_string /
    g_uri_unescape_bytes (decode)"""

    name = "glib-uri-escape"
    sets = MappingProxyType({
        "reserved_chars_allowed NULL": "rfc3986-unreserved",
        "G_URI_RESERVED_CHARS_ALLOWED_IN_PATH": "rfc3986-pchar-/",
        "G_URI_RESERVED_CHARS_ALLOWED_IN_PATH_ELEMENT": "rfc3986-pchar",
        "G_URI_RESERVED_CHARS_ALLOWED_IN_USERINFO": "rfc3986-pchar+@",
    })
    spaces = (False,)

    def encode(self, case: EncodeCase) -> str:
        _no_nul("g_uri_escape_string", case.value)
        return super().encode(case)

    def decode(self, case: DecodeCase) -> bytes:
        _no_nul("g_uri_unescape_string", case.value)
        return super().decode(case)


class GlibUriParams(_Glib):
    """g_uri_params_iter_next with G_URI_PARAMS_WWW_FORM and '&' (form parse): the
    iterator under g_uri_parse_params, pairs in order"""

    name = "glib-uri-params"

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        # The text with its length: a str as its UTF-8 bytes, so a NUL reaches GLib.
        self._no_surrogates(case.text)
        text = case.text.encode("utf-8") if isinstance(case.text, str) else case.text
        return super().form_parse(FormParseCase(text))


class GlibUriParseParams(GlibUriParams):
    """g_uri_parse_params with G_URI_PARAMS_WWW_FORM and '&' (form parse): its hash table,
    answered as its pairs sorted by name; the iterator's refusals are glib-uri-params'
    entries"""

    name = "glib-uri-parse-params"

    def __init__(self, *, timeout: float | None = None) -> None:
        super().__init__(timeout=timeout)
        # The same iterator reads the pairs: its refusals are glib-uri-params' entries.
        self.registry_names = (self.name, GlibUriParams.name)


GLIB_ADAPTERS: tuple[type[LangPeerAdapter], ...] = (GlibUriEscape, GlibUriParams,
                                                     GlibUriParseParams)
