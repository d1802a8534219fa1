"""What a difference means to the component it is in: a finding's *impact*.

The characters an implementation leaves raw are split by what they mean
(``accept.rules``): each delimiter of a URL component or a form (``DELIMITERS``) is a
finding of its own, the controls one, the harmless characters one together. So an
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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pctfuzz._internal.accept.reconcilers import CATALOGUE

__all__ = ["BLOCKING", "CONTROLS", "DELIMITERS", "IMPACTS", "impact_of", "rule_impact_text"]

#: The characters that end or split a URL component or a form pair (URL Standard 4.4
#: and 5.1; RFC 3986 2.2): ``#`` ends a query, ``?`` a path, ``/`` a segment, ``&``
#: and ``;`` a pair, ``=`` a name, ``+`` reads back as a space, ``%`` starts an escape.
DELIMITERS = "#%&+/;=?"

#: The ASCII controls (C0 and DEL): raw in a URL, CR and LF split a header line (request
#: smuggling, header injection), so they are a group of their own too.
CONTROLS = "".join(map(chr, range(0x20))) + "\x7f"

IMPACTS = ("splits-field", "loses-data", "changes-data", "crash", "cosmetic")
#: Impacts that ``pctfuzz accept`` accepts only when told to (``--accept-impact``).
BLOCKING = frozenset({"splits-field", "loses-data"})


def impact_of(kind: str, klass: str, behaviour: dict[str, Any] | None) -> str:
    """The impact of a finding of ``kind`` (``divergence``, ``crash``...) whose class is
    ``klass`` and whose rule is ``behaviour`` (a record's field; None when no rule
    names it)."""
    if kind in ("crash", "timeout", "oom"):
        return "crash"
    if behaviour:
        return _rule_impact(str(behaviour.get("rule")), behaviour.get("params") or {})
    return _class_impact(klass)


def _raw_impact(params: dict[str, Any]) -> str:
    """splits-field for a delimiter or an ASCII control, else cosmetic"""
    chars = set(str(params.get("chars", "")))
    return "splits-field" if chars & set(DELIMITERS + CONTROLS) else "cosmetic"


def _other_set_impact(params: dict[str, Any]) -> str:
    """splits-field for a delimiter or an ASCII control among `raw`, else cosmetic"""
    return _raw_impact({"chars": params.get("raw", "")})


def _escaped_impact(params: dict[str, Any]) -> str:
    """changes-data for a delimiter, else cosmetic"""
    return "changes-data" if set(str(params.get("chars", ""))) & set(DELIMITERS) else "cosmetic"


def _empty_impact(params: dict[str, Any]) -> str:
    """loses-data when `dropped`, else changes-data"""
    return "loses-data" if params.get("mode") == "dropped" else "changes-data"


def _requote_impact(params: dict[str, Any]) -> str:
    """loses-data for `decode-utf8`, else changes-data"""
    # an escape of invalid UTF-8 decoded as U+FFFD before it is quoted again: the
    # bytes are gone (urllib's quote(unquote(s)), pip's link cleaning)
    return "loses-data" if params.get("mode") == "decode-utf8" else "changes-data"


def _replaced_impact(params: dict[str, Any]) -> str:
    """changes-data for `undecoded`, `percent-encoded` and `surrogateescape`, else
    loses-data"""
    mode = str(params.get("mode", ""))
    return "changes-data" if mode in ("undecoded", "percent-encoded", "surrogateescape") \
        else "loses-data"


def _predecoded_impact(params: dict[str, Any]) -> str:
    """splits-field for `&`, `;` or `=`, else changes-data"""
    return "splits-field" if set(str(params.get("chars", ""))) & set("&;=") else "changes-data"


#: The rules whose impact their parameters decide (the others': ``CatalogueEntry.impact``).
_BY_PARAMS: dict[str, Callable[[dict[str, Any]], str]] = {
    "left_raw": _raw_impact, "encoded": _escaped_impact, "empty_pairs": _empty_impact,
    "requoted": _requote_impact, "replacement": _replaced_impact,
    "decoded_before_split": _predecoded_impact, "other_set": _other_set_impact,
}


def _rule_impact(rule: str, params: dict[str, Any]) -> str:
    if rule in _BY_PARAMS:
        return _BY_PARAMS[rule](params)
    entry = CATALOGUE.get(rule)  # (a rule of an older record may be gone)
    return entry.impact if entry else "changes-data"


def rule_impact_text(rule: str) -> str:
    """The impact of ``rule``'s findings as the docs say it (``catalogue_text``)."""
    if rule in _BY_PARAMS:
        return str(_BY_PARAMS[rule].__doc__)
    return CATALOGUE[rule].impact


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
