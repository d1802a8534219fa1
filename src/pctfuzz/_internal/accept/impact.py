"""What a difference means to the component it is in: a finding's *impact*.

The characters an implementation leaves raw are split by what they mean
(``accept.rules``): each delimiter of a URL component or a form
(``accept.meaning.DELIMITERS``) is a finding of its own, the controls one, the
harmless characters one together. So an
intended raw ``~`` and a raw ``+`` (which a form parser reads back as a space: URL
Standard 5.1 step 3.3) are two findings, and accepting the first never accepts the
second.

Each finding carries one impact, shown by the summary, the report and ``pctfuzz
accept``, which asks for ``--accept-impact`` before it accepts one that splits a
field or loses data:

- ``splits-field``: a delimiter (or an ASCII control) written as itself where it must
  be escaped, or an
  escape of one decoded where it must stay, so one field reads back as two (or two as
  one): URL confusion, parameter injection;
- ``loses-data``: characters, pairs or a tail of the input are gone or replaced by
  U+FFFD or ``?``;
- ``changes-data``: the answer reads back as other data (decoded twice, ``+`` read as
  a space, another encoding...);
- ``crash``: the implementation raised;
- ``cosmetic``: the same data written another way (lowercase hex, a harmless character
  escaped or not, ``%20`` for ``+``).

A finding a rule names has the impact its catalogue entry states (``@rule`` in
``accept.reconcilers``, a function of its parameters for a few), one no rule names
the impact of its class's shape.
"""

from __future__ import annotations

from typing import Any

from pctfuzz._internal.accept.meaning import CONTROLS, DELIMITERS
from pctfuzz._internal.accept.reconcilers import CATALOGUE

__all__ = ["impact_of", "rule_impact_text"]


def impact_of(kind: str, klass: str, behaviour: dict[str, Any] | None) -> str:
    """The impact of a finding of ``kind`` (``divergence``, ``crash``...) whose class is
    ``klass`` and whose rule is ``behaviour`` (a record's field; None when no rule
    names it)."""
    if kind in ("crash", "timeout", "oom"):
        return "crash"
    if behaviour:
        return _rule_impact(str(behaviour.get("rule")), behaviour.get("params") or {})
    return _class_impact(klass)


def _rule_impact(rule: str, params: dict[str, Any]) -> str:
    entry = CATALOGUE.get(rule)  # (a rule of an older record may be gone)
    if entry is None:
        return "changes-data"
    return entry.impact if isinstance(entry.impact, str) else entry.impact(params)


def rule_impact_text(rule: str) -> str:
    """The impact of ``rule``'s findings as the docs say it (``catalogue_text``): its
    word, or what its parameters decide (the deciding function's docstring)."""
    impact = CATALOGUE[rule].impact
    return impact if isinstance(impact, str) else str(impact.__doc__)


def _class_impact(klass: str) -> str:
    """The impact of a difference no rule names, from its shape (``identity``)."""
    parts = dict(p.partition("=")[::2] for p in klass.split(";") if "=" in p)
    shape = parts.get("diff", "")
    unit = parts.get("unit", "")
    if shape in ("missing-output", "missing-pair", "merged") or klass.startswith("raised="):
        return "loses-data"
    if shape == "left-raw" and (unit == "control" or (unit.startswith("0x") and len(unit) == 4
                                and chr(int(unit[2:], 16)) in DELIMITERS + CONTROLS)):
        return "splits-field"
    if parts.get("seg") == "equals" or shape in ("extra-pair",):
        return "splits-field"
    if shape in ("hex-case", "space-as-plus", "space-as-%20", "encoded"):
        return "cosmetic"
    return "changes-data"
