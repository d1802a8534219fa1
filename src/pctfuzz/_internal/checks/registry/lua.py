"""Built-in entries for LuaSocket's ``socket.url`` (adapter ``lua-socket-url``;
``pctfuzz._internal.oracles.lua``), cited to LuaSocket 3.1's ``url.lua`` (Debian
``lua-socket``) and RFC 3986."""

from __future__ import annotations

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks.registry.common import add_lowercase_hex

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []

add_lowercase_hex(
    ENTRIES,
    id="lua-socket-url-escape-lowercase",
    impl="lua-socket-url",
    function="socket.url.escape",
    source="LuaSocket 3.1 src/url.lua, escape: 'string.gsub(s, \"([^A-Za-z0-9_])\", "
    "function(c) return string.format(\"%%%02x\", string.byte(c)) end)'",
    example=EncodeCase("/", "application/x-www-form-urlencoded+*%2D."),
)
