"""Built-in entries for LuaSocket's ``socket.url`` (adapter ``lua-socket-url``;
``pctfuzz._internal.oracles.lua``), cited to LuaSocket 3.1's ``url.lua`` (Debian
``lua-socket``) and RFC 3986."""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.accept.reconcilers import lowercase_hex
from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks.registry.common import WHATWG_PCT, add_entry
from pctfuzz._internal.operations import ENCODE

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_LOWER = lowercase_hex()
_entry(
    id="lua-socket-url-escape-lowercase",
    impl="lua-socket-url",
    check=ENCODE.name,
    summary="socket.url.escape writes escapes with lowercase hex digits",
    applies=lambda case: isinstance(case, EncodeCase),
    reconcile=_LOWER.reconcile,
    model=_LOWER.model,
    phase=_LOWER.phase,
    reference="uppercase hex digits (%2F)",
    implementation="lowercase hex digits (%2f, %c3%a9)",
    citation="LuaSocket 3.1 src/url.lua, escape: 'string.gsub(s, \"([^A-Za-z0-9_])\", "
    "function(c) return string.format(\"%%%02x\", string.byte(c)) end)'; RFC 3986 2.1 ('For "
    f"consistency, URI producers and normalizers should use uppercase hexadecimal digits'); "
    f"{WHATWG_PCT}",
    why="equivalent escapes: RFC 3986 2.1 'The uppercase hexadecimal digits ... are "
    "equivalent to the lowercase digits'; every decoder reads both",
    example=EncodeCase("/", "application/x-www-form-urlencoded+*%2D."),
)
