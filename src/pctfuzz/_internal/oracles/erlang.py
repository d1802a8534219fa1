"""OTP's ``uri_string`` through the Erlang peer (``pctfuzz/peers/erlang/peer.erl``, run by
escript; docs/peers.md). The sets are what ``pctfuzz probe`` found on OTP 25.2.3:
``quote/1`` leaves RFC 3986's unreserved characters raw, ``quote/2`` those and its
``Safe`` list; ``recompose/1`` writes a path, query or userinfo with RFC 3986's
characters of that component raw, ``%`` among them (``is_pchar($%) -> true``)."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.oracles.langs import LangPeerAdapter

__all__ = ["ERLANG_ADAPTERS"]


class _Erlang(LangPeerAdapter):
    lang = "erlang"


class ErlangUriString(_Erlang):
    """uri_string:quote/1 and quote/2 (encode), uri_string:unquote/1 (decode)"""

    name = "erlang-uri-string"
    sets = MappingProxyType({
        "quote(V)": "rfc3986-unreserved",
        'quote(V, "/")': "rfc3986-unreserved-/",
        "quote(V, \"!$&'()*+,;=:@\")": "rfc3986-pchar",
    })
    spaces = (False,)


class ErlangUriStringQuery(_Erlang):
    """uri_string:compose_query/1 (form), uri_string:dissect_query/1 (form parsing)"""

    name = "erlang-uri-string-query"


class ErlangUriStringRecompose(_Erlang):
    """uri_string:recompose/1 of a map with one component (path, query, userinfo)"""

    name = "erlang-uri-string-recompose"
    sets = MappingProxyType({
        "recompose(#{path => V})": "rfc3986-pchar-/",
        "recompose(#{path => <<>>, query => V})": "rfc3986-query",
        "recompose(#{userinfo => V, host => <<\"h\">>, path => <<>>})": "rfc3986-pchar+@",
    })
    spaces = (False,)


ERLANG_ADAPTERS: tuple[type[LangPeerAdapter], ...] = (
    ErlangUriString, ErlangUriStringQuery, ErlangUriStringRecompose,
)
