"""``pctfuzz export --hypothesis``: findings as Hypothesis ``@example`` decorators
(Hypothesis "Reproducing failures": ``@example``), one per finding with a case,
grouped by case type, for the user's own ``@given`` tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pctfuzz._internal.cases import EncodeCase, FormCase
from pctfuzz._internal.errors import PctfuzzError, UsageError
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.store import Finding
from pctfuzz._internal.text import ascii_line

__all__ = ["export_examples"]


_EXAMPLE_LISTS = {ENCODE.name: "ENCODE_EXAMPLES", DECODE.name: "DECODE_EXAMPLES",
                  FORM_SERIALIZE.name: "FORM_EXAMPLES", FORM_PARSE.name: "FORM_PARSE_EXAMPLES"}


def _case_call(case: Any) -> str:
    """A case as a constructor call of literals only (every field through ``repr``)."""
    if isinstance(case, EncodeCase):
        return (f"EncodeCase({case.value!r}, {case.set_name!r}, {case.encoding!r}, "
                f"{case.space_as_plus!r})")
    if isinstance(case, FormCase):
        return f"FormCase({tuple(case.pairs)!r}, {case.encoding!r})"
    field = case.text if case.type == FORM_PARSE.name else case.value
    return f"{type(case).__name__}({field!r})"


def export_examples(findings: Sequence[tuple[Finding, str]]) -> str:
    """A module of Hypothesis ``@example`` decorators, one per finding with a case,
    grouped by case type, for a test whose argument is ``case``::

        from pctfuzz_examples import ENCODE_EXAMPLES, with_examples
        @with_examples(ENCODE_EXAMPLES)
        @given(case=encode_cases())
        def test_encode(case): ...

    Every value reaches the source as a literal (``repr``) and every comment as ASCII
    on one line, so no record can add code."""
    if not findings:
        raise UsageError("no findings to export")
    groups: dict[str, list[str]] = {name: [] for name in _EXAMPLE_LISTS.values()}
    for finding, _source in findings:
        try:
            case = finding.rebuild_case()
        except PctfuzzError:
            continue  # a stop finding without a case: replay its raw input instead
        groups[_EXAMPLE_LISTS[case.type]].append(
            f"    example(case={_case_call(case)}),  # {ascii_line(finding.id)} "
            f"{ascii_line(finding.signature)[:120]}")
    lines = [
        '"""Hypothesis @example decorators exported from pctfuzz findings',
        "(`pctfuzz export --hypothesis`): decorate a @given test whose argument is `case`.",
        '"""',
        "",
        "from hypothesis import example",
        "",
        "from pctfuzz.oracles import DecodeCase, EncodeCase, FormCase, FormParseCase",
        "",
        "",
        "def with_examples(examples):",
        '    """Decorate a test with each of ``examples``."""',
        "",
        "    def decorate(test):",
        "        for each in reversed(examples):",
        "            test = each(test)",
        "        return test",
        "",
        "    return decorate",
        "",
    ]
    for name, items in groups.items():
        lines += ["", f"{name} = [", *items, "]"]
    return "\n".join(lines) + "\n"

