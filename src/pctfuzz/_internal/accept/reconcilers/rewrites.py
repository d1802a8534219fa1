"""The rules that rewrite the whole answer, in the last phase (``REWRITE``): cut
short, a text written before or after it, a fixed stand-in for it, or an encoder's
input written back as it is when it looks encoded already (RFC 3986 2.4).
"""

from __future__ import annotations

import re
from typing import Any

from pctfuzz._internal.accept.entry import REWRITE
from pctfuzz._internal.accept.reconcilers.base import Reconciler, _Pair, rule
from pctfuzz._internal.cases import Case, EncodeCase
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_SERIALIZE, OPERATIONS
from pctfuzz._internal.outcome import CHECKS, Outcome
from pctfuzz._internal.spec import PERCENT_ENCODED_BYTE

__all__ = ["TAKEN_AS_ENCODED", "answered", "nul_terminated", "prefixed", "suffixed",
           "taken_as_encoded", "truncated"]


def _as_answer(text: str, like: object) -> Any:
    return text.encode("utf-8", "surrogatepass") if isinstance(like, bytes) else text


@rule(OPERATIONS, "loses-data")
def truncated(n: int) -> Reconciler:
    """The answer stops after ``n`` characters (bytes for decode, pairs for
    form-parse) where the reference's goes on."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise UsageError(f"truncated: n must be a whole number >= 0, not {n!r}")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        value = expected.value
        if expected.raised or not isinstance(value, str | bytes | list) or len(value) <= n:
            return None
        return Outcome(value[:n]), actual

    return Reconciler("truncated", frozenset(CHECKS), reconcile,
                      "the whole answer", f"output truncated at {n} characters", REWRITE)


@rule((DECODE,), "loses-data")
def nul_terminated() -> Reconciler:
    """The decoded answer ends before its first NUL byte, written raw or as ``%00``,
    where the reference's percent-decode keeps the NUL and what follows it (WHATWG URL
    1.3): a decoder whose answer is a C string without its length (libcurl's
    deprecated ``curl_unescape``, whose ``char *`` has none; ``curl_easy_unescape``
    added ``outlength`` for it)."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        value = expected.value
        if expected.raised or not isinstance(value, bytes) or b"\x00" not in value:
            return None
        return Outcome(value[:value.index(b"\x00")]), actual

    return Reconciler("nul_terminated", frozenset({DECODE.name}), reconcile,
                      "the whole decoded answer", "the decoded answer up to its first NUL",
                      REWRITE)


def _affix(name: str, text: str, before: bool) -> Reconciler:
    if not isinstance(text, str) or not text:
        raise UsageError(f"{name}: text must be a non-empty string")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        value = expected.value
        if expected.raised or not isinstance(value, str | bytes):
            return None
        affix = _as_answer(text, value)
        return Outcome(affix + value if before else value + affix), actual

    where = "before" if before else "after"
    return Reconciler(name, frozenset({ENCODE.name, DECODE.name, FORM_SERIALIZE.name}), reconcile,
                      "the answer alone", f"adds {text!r} {where} the answer", REWRITE)


@rule((ENCODE, DECODE, FORM_SERIALIZE), "changes-data")
def prefixed(text: str) -> Reconciler:
    """``text`` is written before the answer (e.g. ``./`` before a path)."""
    return _affix("prefixed", text, True)


@rule((ENCODE, DECODE, FORM_SERIALIZE), "changes-data")
def suffixed(text: str) -> Reconciler:
    """``text`` is written after the answer."""
    return _affix("suffixed", text, False)


@rule((ENCODE, DECODE, FORM_SERIALIZE), "loses-data")
def answered(text: str) -> Reconciler:
    """The whole answer is TEXT, a fixed text that none of the input makes, where the
    reference answers the input: a sanitizer's stand-in for what it refuses to write
    (``#harmful-link`` for a ``javascript:`` or ``data:`` link). It explains exactly
    the answers that are TEXT, so every input a sanitizer replaces is one finding,
    whatever set it off."""
    if not isinstance(text, str) or not text:
        raise UsageError("answered: text must be a non-empty string")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised or actual.raised or not isinstance(actual.value, str | bytes):
            return None
        fixed = _as_answer(text, actual.value)
        return (Outcome(fixed), actual) if actual.value == fixed else None

    return Reconciler("answered", frozenset({ENCODE.name, DECODE.name, FORM_SERIALIZE.name}),
                      reconcile, "the input's own answer", f"answers {text!r} instead",
                      REWRITE)


#: What makes an encoder that ``taken_as_encoded`` take its input as encoded already.
TAKEN_AS_ENCODED = {"escape": PERCENT_ENCODED_BYTE, "percent": re.compile("%")}


@rule((ENCODE,), "splits-field")
def taken_as_encoded(when: str) -> Reconciler:
    """An input that holds a valid ``%HH`` (``when="escape"``), or any ``%``
    (``"percent"``), is taken as encoded already and written back as it is, where the
    reference encodes it (uritemplate's ``{+var}``: ``if unquote(v) == v: quote(v)
    else v``). Whatever else the input holds passes raw, its delimiters too: one
    escape anywhere turns the encoding off."""
    if when not in TAKEN_AS_ENCODED:
        raise UsageError(f"taken_as_encoded: when must be one of {', '.join(TAKEN_AS_ENCODED)}, "
                         f"not {when!r}")
    trigger = TAKEN_AS_ENCODED[when]

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised or not isinstance(case, EncodeCase) \
                or not isinstance(case.value, str) or not trigger.search(case.value):
            return None
        return Outcome(case.value), actual

    what = "a valid %HH" if when == "escape" else "a '%'"
    return Reconciler("taken_as_encoded", frozenset({ENCODE.name}), reconcile,
                      "encodes the input", f"writes an input holding {what} back as it is",
                      REWRITE)
