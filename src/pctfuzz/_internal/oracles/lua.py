"""LuaSocket's ``socket.url`` through the Lua peer (``pctfuzz/peers/lua/peer.lua``;
docs/peers.md). The set is what ``pctfuzz probe`` found on LuaSocket 3.1 (Debian
lua-socket): everything but ``A-Z a-z 0-9 _``."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.oracles.langs import LangPeerAdapter

__all__ = ["LuaSocketUrl"]


class LuaSocketUrl(LangPeerAdapter):
    """socket.url.escape (encode), socket.url.unescape (decode)"""

    name = "lua-socket-url"
    lang = "lua"
    sets = MappingProxyType({"escape": "application/x-www-form-urlencoded+*%2D."})
    spaces = (False,)
