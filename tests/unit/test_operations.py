"""The four operations, one record each (``pctfuzz._internal.operations``): every other list of
them derives from it, and the strings stored in records do not change."""

from __future__ import annotations

import pytest

from pctfuzz._internal.cases import CASE_TYPES
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.operations import FORM_PARSE, FORM_SERIALIZE, OPERATIONS, get_operation


def test_the_stored_spellings_are_the_case_types() -> None:
    # Records, corpora and signatures hold these strings: they must never change.
    assert [op.name for op in OPERATIONS] == ["encode", "decode", "form", "form-parse"]
    assert [op.ident for op in OPERATIONS] == ["encode", "decode", "form", "form_parse"]
    assert all(CASE_TYPES[op.name] is op.case_type for op in OPERATIONS)
    assert FORM_PARSE.targets == ("form_parse", "diff_form_parse")
    assert FORM_SERIALIZE.method == "form_serialize"


def test_every_list_of_operations_derives_from_the_record() -> None:
    from pctfuzz._internal.checks.profile import _METHOD
    from pctfuzz._internal.fuzz.matrix import CHECK_OF
    from pctfuzz._internal.identity.signatures import QUESTION
    from pctfuzz._internal.oracles.base import METHODS
    from pctfuzz._internal.outcome import CHECKS
    from pctfuzz._internal.reports.matrix import OPERATIONS as COLUMNS
    from pctfuzz._internal.reports.upstream import SECTIONS
    from pctfuzz._internal.targets import TARGETS

    names = [op.name for op in OPERATIONS]
    assert list(CHECKS) == list(COLUMNS) == list(SECTIONS) == names
    assert METHODS == ("encode", "decode", "form_serialize", "form_parse")
    assert dict(zip(names, METHODS, strict=True)) == _METHOD
    assert list(CHECK_OF.values()) == names
    assert list(QUESTION) == [op.ident for op in OPERATIONS]
    assert list(TARGETS) == [*(op.ident for op in OPERATIONS),
                             *(op.differential_target for op in OPERATIONS)]


@pytest.mark.parametrize("spelling", ["form-parse", "form_parse", "diff_form_parse"])
def test_each_spelling_finds_the_operation(spelling: str) -> None:
    assert get_operation(spelling) is FORM_PARSE


def test_an_unknown_operation_is_one_line() -> None:
    with pytest.raises(PctfuzzError, match=r"^unknown operation 'formparse'; known: "
                                           r"encode, decode, form, form-parse$"):
        get_operation("formparse")
