"""Perl's URI distribution through the Perl peer (``pctfuzz/peers/perl/peer.pl``;
docs/peers.md). The sets are what ``pctfuzz probe`` found on URI 5.17."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.oracles.langs import LangPeerAdapter

__all__ = ["PERL_ADAPTERS"]


class _Perl(LangPeerAdapter):
    lang = "perl"


class PerlUriEscape(_Perl):
    """URI::Escape::uri_escape (encode), uri_unescape (decode)"""

    name = "perl-uri-escape"
    sets = MappingProxyType({"uri_escape": "rfc3986-unreserved"})
    spaces = (False,)


class PerlUriEscapeUtf8(_Perl):
    """URI::Escape::uri_escape_utf8 (encode)"""

    name = "perl-uri-escape-utf8"
    sets = MappingProxyType({"uri_escape_utf8": "rfc3986-unreserved"})
    spaces = (False,)
    #: It UTF-8-encodes Perl characters: bytes are what uri_escape is for.
    value_types = ("str",)


class PerlUriQuery(_Perl):
    """URI->query_form (form serialize and parse)"""

    name = "perl-uri-query"


PERL_ADAPTERS: tuple[type[LangPeerAdapter], ...] = (PerlUriEscape, PerlUriEscapeUtf8, PerlUriQuery)
