"""Elixir's ``URI`` module through the Elixir peer (``pctfuzz/peers/elixir/peer.exs``;
docs/peers.md). The sets are what ``pctfuzz probe`` found on Elixir 1.14.0:
``URI.encode/1`` leaves RFC 3986's reserved and unreserved characters raw
(``char_unescaped?/1``: encodeURI's set with ``[`` ``]`` raw too), ``URI.encode/2``
with ``&URI.char_unreserved?/1`` and ``URI.encode_www_form/1`` the unreserved ones."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.oracles.langs import LangPeerAdapter

__all__ = ["ELIXIR_ADAPTERS"]


class _Elixir(LangPeerAdapter):
    lang = "elixir"


class ElixirUriEncode(_Elixir):
    """URI.encode/2 (default predicate and &URI.char_unreserved?/1), URI.decode/1"""

    name = "elixir-uri-encode"
    sets = MappingProxyType({
        "URI.encode(v)": "encodeURI-[]",
        "URI.encode(v, &URI.char_unreserved?/1)": "rfc3986-unreserved",
    })
    spaces = (False,)


class ElixirUriWwwForm(_Elixir):
    """URI.encode_www_form/1 (encode; space as '+'), URI.decode_www_form/1 (decode)"""

    name = "elixir-uri-www-form"
    sets = MappingProxyType({"URI.encode_www_form(v)": "rfc3986-unreserved"})
    spaces = (True,)


class ElixirUriQuery(_Elixir):
    """URI.encode_query/1 (form), URI.query_decoder/1 (form parsing)"""

    name = "elixir-uri-query"


class ElixirUriQueryRfc3986(_Elixir):
    """URI.encode_query(q, :rfc3986) (form), URI.query_decoder(q, :rfc3986) (parsing)"""

    name = "elixir-uri-query-rfc3986"


class ElixirUriDecodeQuery(_Elixir):
    """URI.decode_query/1 (form parsing into a map; pairs sorted by name)"""

    name = "elixir-uri-decode-query"


ELIXIR_ADAPTERS: tuple[type[LangPeerAdapter], ...] = (
    ElixirUriEncode, ElixirUriWwwForm, ElixirUriQuery, ElixirUriQueryRfc3986,
    ElixirUriDecodeQuery,
)
