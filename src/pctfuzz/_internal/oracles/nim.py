"""Nim's ``std/uri`` through the Nim peer (``pctfuzz/peers/nim/peer.nim``, compiled by
``make peers``; docs/peers.md). The set is what ``pctfuzz probe`` found on Nim 1.6.10:
``encodeUrl`` leaves RFC 3986's unreserved characters raw and writes every other byte
``%HH`` (a space ``+`` with ``usePlus``, the default)."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.oracles.langs import LangPeerAdapter

__all__ = ["NIM_ADAPTERS"]


class _Nim(LangPeerAdapter):
    lang = "nim"
    sets = MappingProxyType({"encodeUrl": "rfc3986-unreserved"})


class NimUri(_Nim):
    """encodeUrl(s, usePlus) (encode), decodeUrl(s, decodePlus = false) (decode),
    encodeQuery (form), decodeQuery (form parsing)"""

    name = "nim-uri"


class NimUriPlus(_Nim):
    """encodeUrl(s) and decodeUrl(s) with their defaults: a space as '+', '+' read as a
    space"""

    name = "nim-uri-plus"
    spaces = (True,)


NIM_ADAPTERS: tuple[type[LangPeerAdapter], ...] = (NimUri, NimUriPlus)
