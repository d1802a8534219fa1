"""Set specs: a percent-encode set written in one line (``pctfuzz sets --spec``).

A library's set rarely matches a named one exactly (requests' ``requote_uri`` is
encodeURI with ``[`` ``]`` left raw). A spec names it from a named set::

    spec   = base *( ("+" / "-") chars )        encodeURI-[]   component+~-%25
           / "urllib-safe:" [ chars ]           urllib-safe:/  urllib-safe:%20+
    base   = a set name (case-sensitive) or alias (any case): ``pctfuzz sets``;
             the longest name wins, so ``query-value`` is that set, not query - v a l u e
    chars  = one or more of: a printable ASCII character (0x20-0x7E) other than "%",
             or "%" HEXDIG HEXDIG (one byte 0x00-0x7F, hex in either case)

``+CHARS`` also encodes those bytes, ``-CHARS`` leaves them raw; the operations apply
from left to right. CHARS run up to the next ``+`` or ``-``, but the *first* character
after an operator is always a character, so ``-+`` leaves ``+`` raw and ``+-`` encodes
``-``; ``%2B`` and ``%2D`` work anywhere. A literal ``%`` is ``%25``.

``urllib-safe:CHARS`` is the set ``urllib.parse.quote(s, safe=CHARS)`` implements:
every byte except urllib's ``_ALWAYS_SAFE`` (ALPHA, DIGIT, ``_.-~``; CPython
Lib/urllib/parse.py, 3.7+) and the ASCII bytes of ``safe``. Everything after the colon
is CHARS (``+``, ``-`` and ``:`` are literal there; ``%`` still starts ``%XX``).

Bytes 0x80-0xFF are in every set (WHATWG 1.3: "all code points greater than U+007E";
RFC 3986 and ECMA-262 allow ASCII only) and a spec cannot change them: ``%80``-``%FF``
and non-ASCII characters are errors. So are control characters written literally.

``canonical_spec`` depends only on the bytes a set contains (and its space-as-``+``
recipe default, inherited from the base): the registered set with the fewest differing
bytes (ties: registry order), then ``+`` and ``-`` with the bytes in ascending order,
``%XX`` (uppercase) for controls, space, ``%``, ``+`` and ``-``. A spec equal to a
registered set is that set's name, and ``get_set`` returns the registered object.
Errors are ``UnknownSetError`` naming the character position (counted from 1).
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterable

from pctfuzz._internal.errors import UnknownSetError
from pctfuzz._internal.named_sets import _ALL_BYTES, ALIASES, SETS, PercentEncodeSet, named_set

__all__ = [
    "URLLIB_ALWAYS_SAFE",
    "URLLIB_SAFE_PREFIX",
    "byte_ranges",
    "canonical_spec",
    "format_spec",
    "parse_spec",
    "spec_for_members",
    "urllib_safe_spec",
]

URLLIB_SAFE_PREFIX = "urllib-safe:"
#: ``urllib.parse._ALWAYS_SAFE``: the bytes ``quote`` never encodes, whatever ``safe`` is.
URLLIB_ALWAYS_SAFE = frozenset(string.ascii_letters.encode() + string.digits.encode() + b"_.-~")

#: The bytes a spec can move in or out of a set.
_ASCII = frozenset(range(0x80))
_HIGH = _ALL_BYTES - _ASCII
#: Written as %XX in a canonical spec: not printable, or meaningful in the grammar.
_ESCAPED = frozenset(range(0x20)) | frozenset(b" %+-\x7f")

#: Every base a spec may start with: canonical names and aliases, longest first.
_BASES = sorted([*SETS, *ALIASES], key=len, reverse=True)


def _error(spec: str, index: int, problem: str) -> UnknownSetError:
    return UnknownSetError(f"set spec {spec!r}, character {index + 1}: {problem}")


def _read_chars(spec: str, start: int, *, stop_at_operator: bool) -> tuple[list[int], int]:
    """The bytes CHARS names from ``spec[start:]``, and the index where CHARS ended."""
    out: list[int] = []
    i = start
    while i < len(spec):
        c = spec[i]
        if stop_at_operator and c in "+-" and i > start:
            break
        if c == "%":
            hh = spec[i + 1 : i + 3]
            if len(hh) != 2 or not all(h in string.hexdigits for h in hh):
                raise _error(spec, i, "'%' must be followed by two hex digits (a literal % is %25)")
            byte = int(hh, 16)
            if byte >= 0x80:
                raise _error(
                    spec, i, f"%{hh.upper()} is not ASCII; bytes 0x80-0xFF are always encoded"
                )
            out.append(byte)
            i += 3
        elif " " <= c <= "~":
            out.append(ord(c))
            i += 1
        elif c.isascii():
            raise _error(spec, i, f"control character {c!r}: write it as %{ord(c):02X}")
        else:
            raise _error(spec, i, f"{c!r} is not ASCII; bytes 0x80-0xFF are always encoded")
    return out, i


def _base(spec: str) -> tuple[PercentEncodeSet, int]:
    """The named set ``spec`` starts with, and the index after its name."""
    for name in _BASES:
        n = len(name)
        head = spec[:n]
        named = head == name if name in SETS else head.lower() == name
        if named and (n == len(spec) or spec[n] in "+-"):
            return SETS[ALIASES.get(name, name)], n
    raise UnknownSetError(
        f"unknown percent-encode set {spec!r}: no set name at character 1; known sets: "
        f"{', '.join(SETS)}; or a spec NAME+CHARS-CHARS or urllib-safe:CHARS"
    )


@functools.lru_cache(maxsize=256)
def parse_spec(spec: str) -> PercentEncodeSet:
    """The set a spec describes (module docstring); a registered set if it equals one."""
    if spec.startswith(URLLIB_SAFE_PREFIX):
        safe, _ = _read_chars(spec, len(URLLIB_SAFE_PREFIX), stop_at_operator=False)
        members = _ALL_BYTES - URLLIB_ALWAYS_SAFE - frozenset(safe)
        return _make(members, space_as_plus=False)
    base, i = _base(spec)
    members_now = set(base.members)
    while i < len(spec):
        op = spec[i]  # _base and _read_chars stop only at "+" or "-"
        if i + 1 == len(spec):
            raise _error(spec, i, f"{op!r} needs at least one character after it")
        chars, i = _read_chars(spec, i + 1, stop_at_operator=True)
        if op == "+":
            members_now.update(chars)
        else:
            members_now.difference_update(chars)
    return _make(frozenset(members_now), space_as_plus=base.space_as_plus)


def _make(members: frozenset[int], *, space_as_plus: bool) -> PercentEncodeSet:
    name = spec_for_members(members, space_as_plus)
    if name in SETS:
        return SETS[name]
    return PercentEncodeSet(
        name,
        members,
        f"set spec {name}",
        space_as_plus,
        _describe(name),
    )


def _describe(spec: str) -> str:
    """``encodeURI-[]`` -> ``encodeURI set - [ ]``, like the named sets' descriptions."""
    base, i = _base(spec)
    words = [f"{base.name} set"]
    while i < len(spec):
        op = spec[i]
        chars, i = _read_chars(spec, i + 1, stop_at_operator=True)
        words.append(op)
        words.extend("space" if b == 0x20 else _char(b) for b in chars)
    return " ".join(words)


def _char(byte: int) -> str:
    return f"%{byte:02X}" if byte in _ESCAPED else chr(byte)


def format_spec(base: str, add: Iterable[int] = (), remove: Iterable[int] = ()) -> str:
    """``base`` + the bytes to encode too + the bytes to leave raw, in canonical spelling."""
    plus = "".join(_char(b) for b in sorted(set(add)))
    minus = "".join(_char(b) for b in sorted(set(remove)))
    return base + (f"+{plus}" if plus else "") + (f"-{minus}" if minus else "")


def spec_for_members(members: Iterable[int], space_as_plus: bool = False) -> str:
    """The canonical spec of the set holding ``members`` (module docstring)."""
    wanted = frozenset(members)
    if not wanted >= _HIGH or not wanted <= _ALL_BYTES:
        raise UnknownSetError(
            "a set spec needs every byte 0x80-0xFF in the set and nothing outside 0x00-0xFF"
        )
    # The registry has sets with either default (query-value is the one with "+").
    candidates = [s for s in SETS.values() if s.space_as_plus == space_as_plus]
    best = min(candidates, key=lambda s: len(s.members ^ wanted))  # min keeps registry order
    return format_spec(best.name, wanted - best.members, best.members - wanted)


def canonical_spec(spec: str | PercentEncodeSet) -> str:
    """The canonical spelling of a spec, a set name or alias, or a set object."""
    pes = spec if isinstance(spec, PercentEncodeSet) else named_set(spec) or parse_spec(spec)
    return spec_for_members(pes.members, pes.space_as_plus)


def urllib_safe_spec(members: Iterable[int]) -> str | None:
    """``urllib-safe:SAFE`` for the set, or None when ``quote`` cannot implement it
    (the set holds one of urllib's always-safe bytes)."""
    wanted = frozenset(members)
    if wanted & URLLIB_ALWAYS_SAFE or not wanted >= _HIGH:
        return None
    safe = _ASCII - URLLIB_ALWAYS_SAFE - wanted
    return URLLIB_SAFE_PREFIX + "".join(
        f"%{b:02X}" if b <= 0x20 or b in (0x25, 0x7F) else chr(b) for b in sorted(safe)
    )


def byte_ranges(members: Iterable[int]) -> str:
    """``0x00-0x20, 0x22, 0x7F-0xFF``: byte values as ascending inclusive ranges."""
    ordered = sorted(set(members))
    runs: list[tuple[int, int]] = []
    for b in ordered:
        if runs and runs[-1][1] == b - 1:
            runs[-1] = (runs[-1][0], b)
        else:
            runs.append((b, b))
    return ", ".join(f"0x{a:02X}" if a == z else f"0x{a:02X}-0x{z:02X}" for a, z in runs)
