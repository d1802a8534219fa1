"""Built-in entries for ada-url's Python binding (adapter ``ada``).

Each entry cites WHATWG URL 5.1 (the form parser, which ada implements) and where the
binding differs.
"""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.cases import Case, FormParseCase
from pctfuzz._internal.checks.registry.common import (
    WHATWG_FORM_PARSE,
    add_entry,
    is_valid_utf8,
)
from pctfuzz._internal.form import form_urldecode_bytes
from pctfuzz._internal.operations import FORM_PARSE
from pctfuzz._internal.outcome import Outcome

__all__ = ["ENTRIES"]


def _ada_invalid_utf8(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    if not isinstance(case, FormParseCase) or not isinstance(actual.error, UnicodeDecodeError):
        return None
    text = case.text
    data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
    if all(is_valid_utf8(n) and is_valid_utf8(v) for n, v in form_urldecode_bytes(data)):
        return None
    return actual, actual

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_entry(
    id="ada-search-params-invalid-utf8",
    impl="ada",
    check=FORM_PARSE.name,
    summary="URLSearchParams raises UnicodeDecodeError when a decoded name or value is not UTF-8",
    applies=lambda case: isinstance(case, FormParseCase),
    reconcile=_ada_invalid_utf8,
    reference="UTF-8 decode without BOM: U+FFFD for invalid sequences ('%FF' -> U+FFFD)",
    implementation="ada keeps the raw bytes and the binding decodes them strictly: "
    "UnicodeDecodeError from items()/get()",
    citation=f"{WHATWG_FORM_PARSE} step 3.5 (UTF-8 decode without BOM); ada-url/ada#793 "
    "(ada does no Unicode validation); ada_url/ada_adapter.py _get_str",
    why="a bug in ada-url's Python binding (reported as a finding); registered so the "
    "differential test keeps checking every other input",
    example=FormParseCase("%FF"),
)
