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

from typing import Any

__all__ = ["BLOCKING", "CONTROLS", "DELIMITERS", "IMPACTS", "impact_of"]

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

#: rule -> its impact, where it does not depend on its parameters.
_BY_RULE = {
    "lowercase_hex": "cosmetic", "escapes_uppercased": "cosmetic", "space_as": "cosmetic",
    "pairs_order": "changes-data", "requoted": "changes-data",
    "decoded_twice": "changes-data", "plus_as_space": "changes-data",
    "plus_kept": "changes-data", "kept_encoded": "changes-data",
    "latin1_fallback": "changes-data", "latin1_bytes": "changes-data",
    "normalized": "changes-data", "normalized_escaped": "changes-data",
    "python_codec": "changes-data", "ncr_unescaped": "changes-data",
    "whole_characters": "cosmetic", "signed_escapes": "changes-data",
    "semicolon_separates": "splits-field", "names_mangled": "changes-data",
    "needs_equals": "loses-data", "truncated": "loses-data", "cut_at": "loses-data",
    "removed": "loses-data", "trimmed": "loses-data", "unmappable_replaced": "loses-data",
    "prefixed": "changes-data", "suffixed": "changes-data", "both_refuse": "cosmetic",
    "refuses": "crash",
}


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
    chars = str(params.get("chars", ""))
    if rule == "left_raw":
        return "splits-field" if set(chars) & set(DELIMITERS + CONTROLS) else "cosmetic"
    if rule == "encoded":
        return "changes-data" if set(chars) & set(DELIMITERS) else "cosmetic"
    if rule == "empty_pairs":
        return "loses-data" if params.get("mode") == "dropped" else "changes-data"
    if rule == "requoted" and params.get("mode") == "decode-utf8":
        # an escape of invalid UTF-8 decoded as U+FFFD before it is quoted again: the
        # bytes are gone (urllib's quote(unquote(s)), pip's link cleaning)
        return "loses-data"
    if rule in ("replacement", "lone_surrogates"):
        mode = str(params.get("mode", ""))
        return "changes-data" if mode in ("undecoded", "percent-encoded") else "loses-data"
    return _BY_RULE.get(rule, "changes-data")


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
