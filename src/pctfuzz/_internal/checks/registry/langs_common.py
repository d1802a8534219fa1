"""What the entries of the peers in other languages share (docs/peers.md): predicates
on escapes, a refusal by a named exception, and the '+'-as-space decoding that form
decoders do (WHATWG URL 5.1 step 3.3 replaces '+' before percent-decoding; the
reference's percent-decode of 1.3 does not)."""

from __future__ import annotations

import re

from pctfuzz._internal.cases import Case, DecodeCase
from pctfuzz._internal.checks.registry.common import Pair
from pctfuzz._internal.outcome import Outcome, Reconcile
from pctfuzz._internal.reference import percent_decode
from pctfuzz._internal.spec import HEX_PAIR

__all__ = ["contains", "has_malformed_escape", "plus_as_space", "raised", "text_of"]

_MALFORMED = re.compile(f"%(?!{HEX_PAIR})".encode("ascii"))


def text_of(case: Case) -> str | bytes | None:
    """The value of an encode or decode case, or the text of a form-parse case."""
    value = getattr(case, "value", None)
    if value is None:
        value = getattr(case, "text", None)
    return value if isinstance(value, str | bytes) else None


def _bytes(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")


def contains(case: Case, char: str) -> bool:
    """The case's value or text holds ``char`` (an ASCII character)."""
    value = text_of(case)
    return value is not None and char.encode("ascii") in _bytes(value)


def has_malformed_escape(case: Case) -> bool:
    """A '%' not followed by two hex digits (URL 1.3 keeps it; strict decoders refuse)."""
    value = text_of(case)
    return value is not None and _MALFORMED.search(_bytes(value)) is not None


def raised(*types: str) -> Reconcile:
    """The implementation refused the case with one of ``types`` (the remote type name)."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> Pair:
        if actual.error is not None and type(actual.error).__name__ in types:
            return actual, actual
        return None

    return reconcile


def plus_as_space(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    """A decoder that reads '+' as a space (a form decoder): the reference's bytes of the
    value with each literal '+' a space first."""
    if not isinstance(case, DecodeCase) or expected.raised or actual.raised:
        return None
    value = case.value
    spaced = value.replace(b"+", b" ") if isinstance(value, bytes) else value.replace("+", " ")
    return Outcome(percent_decode(spaced)), actual
