"""What the entries of the peers in other languages share (docs/peers.md): predicates
on escapes and a refusal by a named exception. (A form decoder's '+' as a space is the
``plus_as_space`` model of ``accept.reconcilers``, so it composes with the others.)"""

from __future__ import annotations

import re

from pctfuzz._internal.cases import Case
from pctfuzz._internal.checks.registry.common import Pair
from pctfuzz._internal.outcome import Outcome, Reconcile
from pctfuzz._internal.spec import HEX_PAIR

__all__ = ["contains", "has_malformed_escape", "raised", "text_of"]

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
