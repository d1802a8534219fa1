"""What the built-in entries of every library share: reconcile phases, citations,
predicates on lone surrogates, and the ``%HH`` rewrite.

The spec sections cited here are those of the WHATWG URL Standard that the reference
implements (1.3, 5.1, 5.2); a library module adds its own documentation.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from pctfuzz._internal.accept.entry import REPLACE, REWRITE, KnownDivergence
from pctfuzz._internal.accept.reconcilers import lowercase_hex
from pctfuzz._internal.cases import Case, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.operations import ENCODE
from pctfuzz._internal.outcome import Outcome, Reconcile
from pctfuzz._internal.spec import PERCENT_ENCODED_BYTE
from pctfuzz._internal.text import has_lone_surrogate, is_valid_utf8

__all__ = [
    "PCT_TRIPLET",
    "REPLACE",
    "REWRITE",
    "WHATWG_FORM",
    "WHATWG_FORM_PARSE",
    "WHATWG_PCT",
    "Pair",
    "add_entry",
    "add_lowercase_hex",
    "is_valid_utf8",
    "pairs_with_surrogate",
    "replace_in_expected",
    "str_value_with_surrogate",
    "text_with_surrogate",
]

WHATWG_PCT = "WHATWG URL Standard 1.3 (percent-encode after encoding)"
WHATWG_FORM = "WHATWG URL Standard 5.2 (application/x-www-form-urlencoded serializer)"
WHATWG_FORM_PARSE = "WHATWG URL Standard 5.1 (application/x-www-form-urlencoded parser)"

# Reconcile phases are those of ``pctfuzz._internal.accept.entry`` (one order for every entry):
# an entry that replaces an outcome (a refusal, a model of the implementation) runs
# before one that rewrites text inside an outcome, so both apply.

#: What a reconciler returns: both outcomes reconciled, or None.
Pair: TypeAlias = "tuple[Outcome, Outcome] | None"

#: A valid percent-encoded byte, either hex case.
PCT_TRIPLET = PERCENT_ENCODED_BYTE


def add_entry(entries: list[KnownDivergence], *, phase: int = REPLACE, **kwargs: Any) -> None:
    """Append one entry to a library's ``ENTRIES`` (each module binds its own list)."""
    entries.append(KnownDivergence(phase=phase, **kwargs))


def add_lowercase_hex(entries: list[KnownDivergence], *, id: str, impl: str, function: str,
                      source: str, example: EncodeCase) -> None:
    """Append the entry of an encoder whose escapes have lowercase hex digits (``%2f``):
    cosmetic, RFC 3986 2.1's equivalence; ``source`` cites where its digits come from."""
    lower = lowercase_hex()
    add_entry(
        entries,
        id=id,
        impl=impl,
        check=ENCODE.name,
        summary=f"{function} writes escapes with lowercase hex digits",
        applies=lambda case: isinstance(case, EncodeCase),
        reconcile=lower.reconcile,
        model=lower.model,
        phase=lower.phase,
        reference="uppercase hex digits (%2F)",
        implementation="lowercase hex digits (%2f, %c3%a9)",
        citation=f"{source}; RFC 3986 2.1 ('For consistency, URI producers and normalizers "
        f"should use uppercase hexadecimal digits'); {WHATWG_PCT}",
        why="equivalent escapes: RFC 3986 2.1 'The uppercase hexadecimal digits ... are "
        "equivalent to the lowercase digits'; every decoder reads both",
        example=example,
    )


def str_value_with_surrogate(case: Case) -> bool:
    value = getattr(case, "value", None)
    return isinstance(value, str) and has_lone_surrogate(value)


def pairs_with_surrogate(case: Case) -> bool:
    return isinstance(case, FormCase) and any(
        has_lone_surrogate(n) or has_lone_surrogate(v) for n, v in case.pairs
    )


def text_with_surrogate(case: Case) -> bool:
    return (
        isinstance(case, FormParseCase)
        and isinstance(case.text, str)
        and (has_lone_surrogate(case.text))
    )


def replace_in_expected(mapping: dict[str, str]) -> Reconcile:
    """The implementation writes some bytes as themselves where the reference writes
    ``%HH``: replace those triplets in the reference's string answer."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> tuple[Outcome, Outcome] | None:
        if expected.raised or not isinstance(expected.value, str):
            return None
        text = expected.value
        for old, new in mapping.items():
            text = text.replace(old, new)
        return Outcome(text), actual

    return reconcile
