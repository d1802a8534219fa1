"""Monotonicity (WHATWG URL 1.3, the percent-encode sets' subset order): for registered
sets P ⊆ Q, every byte P encodes Q encodes, and Q's output is no shorter.
"""

from __future__ import annotations

import functools
import re

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks.invariants.expect import MONOTONICITY, _encode, _Expect, _expect
from pctfuzz._internal.oracles.codec import REFERENCE, Codec
from pctfuzz._internal.sets import SETS, get_set
from pctfuzz._internal.spec import HEX_PAIR
from pctfuzz._internal.violations import Violation

# --- monotonicity ---------------------------------------------------------------------


@functools.cache
def set_neighbours(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(registered sets just below ``name``, just above it) in the subset order; a set
    with the same members counts on both sides. Monotonicity along these edges gives it
    for every registered P ⊆ Q by transitivity."""
    me = get_set(name).members
    others = {n: s.members for n, s in SETS.items() if n != name}
    equal = tuple(n for n, m in others.items() if m == me)
    below = {n: m for n, m in others.items() if m < me}
    above = {n: m for n, m in others.items() if m > me}
    # n is just below ``name`` when no other set lies strictly between them.
    just_below = tuple(n for n, m in below.items() if not any(m < k for k in below.values()))
    just_above = tuple(n for n, m in above.items() if not any(k < m for k in above.values()))
    return equal + just_below, equal + just_above


_CHANGED_TOKEN = re.compile(rf"%26%23[0-9]+%3B|%{HEX_PAIR}|\+")


def _changed_units(
    codec: Codec, case: EncodeCase, units: list[int], set_name: str
) -> frozenset[int]:
    """Which of ``units`` (bytes, or ASCII code points of a str) the codec changes under
    ``set_name``: read off one encode of a probe of all of them, ``%`` last so a raw ``%``
    cannot be confused with ``%25``; per-unit calls if the output is not per-unit."""
    as_bytes = isinstance(case.value, bytes)
    probe: str | bytes = bytes(units) if as_bytes else "".join(map(chr, units))
    out = _encode(codec, case, value=probe, set_name=set_name)
    changed: set[int] = set()
    pos = 0
    for unit in units:
        char = chr(unit)
        if unit == 0x25:  # always the last unit
            if out[pos:] != "%":
                changed.add(unit)
            pos = len(out)
        elif out.startswith(char, pos):
            pos += 1
        else:
            token = _CHANGED_TOKEN.match(out, pos)
            if token is None:
                break
            changed.add(unit)
            pos = token.end()
    else:
        if pos == len(out):
            return frozenset(changed)
    return frozenset(
        unit
        for unit in units
        if _encode(
            codec, case, value=bytes([unit]) if as_bytes else chr(unit), set_name=set_name
        )
        != chr(unit)
    )


def _monotonicity(
    case: EncodeCase, codec: Codec, exp: _Expect, out: str, *, every_edge: bool = True
) -> None:
    value = case.value
    distinct = set(value) if isinstance(value, bytes) else {ord(c) for c in value if c < "\x80"}
    units = sorted(distinct - {0x25}) + ([0x25] if 0x25 in distinct else [])
    name = exp.pes.name
    below, above = set_neighbours(name)
    changed: dict[str, frozenset[int]] = {}
    outputs = {name: out}
    edges = [(b, name) for b in below] + [(name, a) for a in above]
    if edges and not every_edge:
        # One edge per case, picked by the input's length: deterministic (a finding
        # replays), cheap enough for atheris, and every edge gets its turn.
        edges = [edges[len(value) % len(edges)]]
    for lower, upper in edges:
        for side in (lower, upper):
            if side not in outputs:
                outputs[side] = _encode(codec, case, set_name=side)
            if units and side not in changed:
                changed[side] = _changed_units(codec, case, units, side)
        lost = changed[lower] - changed[upper] if units else frozenset()
        if lost:
            byte = min(lost)
            where = value.index(byte) if isinstance(value, bytes) else value.index(chr(byte))
            raise Violation(
                MONOTONICITY,
                case,
                expected=f"0x{byte:02X} encoded by {upper!r}",
                actual="left raw",
                position=where,
                detail=f"{lower!r} ⊆ {upper!r} but {lower!r} encodes 0x{byte:02X} "
                f"and {upper!r} does not",
            )
        # The same input as a whole: the bigger set's output cannot be shorter.
        small, big = outputs[lower], outputs[upper]
        if len(big) < len(small):
            raise Violation(
                MONOTONICITY,
                case,
                expected=f"len >= {len(small)} ({lower!r}: {small!r})",
                actual=f"{len(big)} ({upper!r}: {big!r})",
                detail=f"{lower!r} ⊆ {upper!r} but {upper!r}'s output is shorter",
            )


def check_monotonicity(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """For registered sets P ⊆ Q (the case's set and its neighbours in the subset order),
    every byte of x that P encodes, Q encodes, and Q's output is no shorter. Bytes >= 0x80
    are in every set (checked by output-alphabet); the check looks at x's ASCII."""
    exp = _expect(case)
    if exp is not None:
        _monotonicity(case, codec, exp, _encode(codec, case))
