"""The units of a difference class: the ASCII groups a unit widens to, and sets.

A class (``identity``) names the first unit where two answers part as ``unit=0xHH``;
``checks.generalize`` widens it to a group (``UNIT_GROUPS``), a narrower one
(``SUBGROUPS``) or the set of a group's members that behave alike (``unit_set``). This
module says which characters each such unit names (``unit_members``) and when a class
names another's behaviour (``covers``): a known finding's ``unit=upper`` covers an
input's ``unit=0x42``, and a fixed finding comes back in a narrower form as one it
covers. Delimiters (``accept.impact.DELIMITERS``) and the space are in no group: each is
its own behaviour.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from typing import Any

from pctfuzz._internal.accept.meaning import CONTROLS, DELIMITERS
from pctfuzz._internal.identity.classes import (
    ESCAPED_APART,
    INVALID_ESCAPES,
    WRITTEN,
    without_written,
)

__all__ = ["SUBGROUPS", "UNIT_GROUPS", "another_form", "covers", "unit_members", "unit_set"]

_ALNUM = string.ascii_letters + string.digits
#: The groups an ASCII unit widens to.
UNIT_GROUPS = {
    "control": CONTROLS,
    "alnum": _ALNUM,
    "printable": "".join(chr(c) for c in range(0x21, 0x7F)
                         if chr(c) not in DELIMITERS and chr(c) not in _ALNUM),
}
_SPACES = "\t\n\x0b\x0c\r"
#: Each group's narrower ones, tried when variants from the whole group disagree (a
#: parser that drops TAB, LF and CR everywhere but other controls only at the start).
SUBGROUPS = {
    # (DEL, the one control that is no C0 control, is a subgroup of its own so that a
    # unit widened to "control" was checked on it: urlsplit strips leading C0 controls,
    # not DEL)
    "control": {"control-space": _SPACES,
                "control-other": "".join(c for c in CONTROLS if c not in _SPACES),
                "c0": "".join(c for c in CONTROLS if c != "\x7f"), "del": "\x7f"},
    "alnum": {"letter": string.ascii_letters, "digit": string.digits,
              "upper": string.ascii_uppercase, "lower": string.ascii_lowercase,
              "hex-digit": string.hexdigits},
}


def unit_set(*chars: str) -> str:
    """The class unit naming exactly ``chars`` (ASCII), as ranges of byte values:
    ``set(0x09-0x0D,0x1C-0x1F)``."""
    codes = sorted({ord(c) for c in chars})
    runs: list[list[int]] = []
    for code in codes:
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "set({})".format(",".join(
        f"0x{a:02X}" if a == b else f"0x{a:02X}-0x{b:02X}" for a, b in runs))


_RUN = "0x[0-9A-F]{2}(?:-0x[0-9A-F]{2})?"
_SET = re.compile(rf"set\(({_RUN}(?:,{_RUN})*)\)")


def unit_members(unit: str) -> frozenset[str] | None:
    """The ASCII characters a class's ``unit`` names: one (``0x41``), a group
    (``UNIT_GROUPS``, ``SUBGROUPS``) or a set (``unit_set``); None for any other unit
    (``non-ascii``, ``pct-triplet``, ``empty-pair``...), which names only itself."""
    if re.fullmatch("0x[0-9A-F]{2}", unit):
        return frozenset(chr(int(unit, 16)))
    if unit in UNIT_GROUPS:
        return frozenset(UNIT_GROUPS[unit])
    for subgroups in SUBGROUPS.values():
        if unit in subgroups:
            return frozenset(subgroups[unit])
    found = _SET.fullmatch(unit)
    if found is None:
        return None
    members: set[str] = set()
    for run in found.group(1).split(","):
        first, _, last = run.partition("-")
        members.update(map(chr, range(int(first, 16), int(last or first, 16) + 1)))
    return frozenset(members)


#: The decode segments a segment names besides itself (``checks.generalize`` widens a
#: valid escape's hex case to ``pct-letters``).
_COVERED_SEGMENTS = {
    "pct-letters": {"pct-upper", "pct-lower"},
    # every valid escape (``checks.generalize``: each delimiter's checked)
    "pct-any": {"pct-upper", "pct-lower", "pct-digits", "pct-letters",
                *(f"pct-0x{ord(c):02X}" for c in ESCAPED_APART)},
    # a ``%`` that starts no escape, whatever follows it (``checks.generalize``)
    "pct-invalid": set(INVALID_ESCAPES),
}
#: The fields ``field=any`` names: the same behaviour in a name and in a value.
_FIELDS = ("name", "value")


def covers(general: str, specific: str) -> bool:
    """The class ``general`` (of a known finding) names the behaviour of ``specific``
    (an input's class before it is widened): the same fields, each the same but the
    unit, which ``general`` names among others (``unit=upper`` covers ``unit=0x42``),
    a segment it names too (``pct-letters`` covers ``pct-upper``), a field
    (``field=any`` covers ``field=name``) or every way of writing it (no ``written=``
    covers ``written=raw``). So an input of a
    known finding is its hit without being widened again, whichever member it shows."""
    if general == specific:
        return True
    if not WRITTEN.search(general):  # (a unit however written names each way of writing it)
        specific = without_written(specific)
    mine, theirs = general.split(";"), specific.split(";")
    if len(mine) != len(theirs):
        return False
    for field, other in zip(mine, theirs, strict=True):
        if field == other:
            continue
        key, _, value = field.partition("=")
        other_key, _, other_value = other.partition("=")
        if key != other_key:
            return False
        if key == "unit":
            members, named = unit_members(value), unit_members(other_value)
            if members is None or named is None or not named <= members:
                return False
        elif not ((key == "seg" and other_value in _COVERED_SEGMENTS.get(value, ()))
                  or (key == "field" and value == "any" and other_value in _FIELDS)):
            return False
    return True


def another_form(old: str, old_behaviour: Mapping[str, Any] | None, new: str,
                 new_behaviour: Mapping[str, Any] | None) -> bool:
    """The finding of signature ``new`` is the behaviour of ``old`` in another form: the
    same target, kind, check and implementation, and either the same catalogue rule
    whose characters overlap (``left_raw(chars=+)`` after ``left_raw(chars=+~)``), the
    other parameters equal, or classes one of which covers the other (``unit=0x42``
    after ``unit=upper``). A fixed finding that comes back so is reopened, not made
    anew (``store.FindingStore.record``)."""
    old_parts, new_parts = old.split("|"), new.split("|")
    if len(old_parts) < 4 or old_parts[:3] != new_parts[:3] or old_parts[4:] != new_parts[4:]:
        return False
    if old_behaviour and new_behaviour:
        mine, theirs = dict(old_behaviour.get("params") or {}), dict(
            new_behaviour.get("params") or {})
        chars, other = str(mine.pop("chars", "")), str(theirs.pop("chars", ""))
        return (old_behaviour.get("rule") == new_behaviour.get("rule") and mine == theirs
                and (chars == other or bool(set(chars) & set(other))))
    if old_behaviour or new_behaviour:
        return False
    return covers(old_parts[3], new_parts[3]) or covers(new_parts[3], old_parts[3])
