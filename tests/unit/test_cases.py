"""Cases survive JSON exactly (``pctfuzz._internal.cases``), and malformed JSON is a
``CaseFormatError`` (never another exception).

Values that are not plain Unicode text must come back unchanged: lone surrogates
(``code_points``), arbitrary bytes (``base64``), and text a JSON encoder might mangle.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pctfuzz._internal.cases import (
    CASE_TYPES,
    DecodeCase,
    EncodeCase,
    FormCase,
    FormParseCase,
    case_from_json,
    value_from_json,
    value_to_json,
)
from pctfuzz._internal.checks.strategies import (
    binary_values,
    decode_cases,
    encode_cases,
    form_cases,
    form_parse_cases,
    text_values,
)
from pctfuzz._internal.errors import CaseFormatError

ANY_CASE = st.one_of(
    encode_cases(), decode_cases(), form_cases(surrogates=True), form_parse_cases()
)


def through_json(data: Any, **dump_options: Any) -> Any:
    """What a finding file does to a case: dump to JSON text, write bytes, read back."""
    return json.loads(json.dumps(data, **dump_options).encode("utf-8").decode("utf-8"))


@given(case=ANY_CASE)
@example(case=EncodeCase("\ud800", "path"))
@example(case=EncodeCase("\udfff\ud800", "component", "Shift_JIS", True))
@example(case=EncodeCase(b"", "form"))
@example(case=EncodeCase(bytes(range(256)), "query-value"))
@example(case=DecodeCase("a\udc80b"))
@example(case=DecodeCase(b"\xed\xa0\x80"))
@example(case=FormCase((("\ud800", "x"), ("", "")), "windows-1252"))
@example(case=FormCase(()))
@example(case=FormParseCase("\x00\ufeff\U0010ffff"))
def test_json_round_trip(case: Any) -> None:
    data = case.to_json()
    assert data["type"] == case.type
    for options in ({}, {"ensure_ascii": False}):
        again = case_from_json(through_json(data, **options))
        assert again == case
        assert type(again) is type(case)
        # exact types, not just equal values: "a" != b"a" matters for replay
        assert type(getattr(again, "value", None)) is type(getattr(case, "value", None))


@given(value=st.one_of(text_values(), binary_values(), st.text(), st.binary()))
@example(value="\ud800")
@example(value="a\udfffb\ud800")
@example(value=b"\x00\xff")
@example(value="")
@example(value=b"")
def test_value_round_trip_is_exact(value: str | bytes) -> None:
    data = value_to_json(value)
    assert len(data) == 1
    again = value_from_json(through_json(data, ensure_ascii=False))
    assert type(again) is type(value)
    assert again == value


@pytest.mark.parametrize(
    ("value", "key"),
    [("abc", "text"), ("\U0001f4a9", "text"), ("\ud800", "code_points"), (b"abc", "base64")],
)
def test_value_field_chosen(value: str | bytes, key: str) -> None:
    assert list(value_to_json(value)) == [key]


def test_case_types_registry() -> None:
    assert set(CASE_TYPES) == {"encode", "decode", "form", "form-parse"}
    for name, cls in CASE_TYPES.items():
        assert cls.type == name


def test_defaults_are_filled_in() -> None:
    case = case_from_json({"type": "encode", "value": {"text": "x"}, "set": "path"})
    assert case == EncodeCase("x", "path", "utf-8", False)
    assert case_from_json({"type": "form", "pairs": []}) == FormCase((), "utf-8")


def test_aliases_are_kept_as_written() -> None:
    case = EncodeCase("x", "form")
    assert case_from_json(through_json(case.to_json())) == case


# --- malformed JSON ----------------------------------------------------------------------

_GOOD_VALUE = {"text": "x"}

MALFORMED: list[tuple[str, Any]] = [
    ("not an object", ["encode"]),
    ("null", None),
    ("no type", {"value": _GOOD_VALUE}),
    ("unknown type", {"type": "explode", "value": _GOOD_VALUE}),
    ("type not a string", {"type": 1, "value": _GOOD_VALUE}),
    ("missing value", {"type": "decode"}),
    ("missing set", {"type": "encode", "value": _GOOD_VALUE}),
    ("unknown set", {"type": "encode", "value": _GOOD_VALUE, "set": "nope"}),
    ("set not a string", {"type": "encode", "value": _GOOD_VALUE, "set": 3}),
    ("encoding not a string", {"type": "encode", "value": _GOOD_VALUE, "set": "path",
                               "encoding": None}),
    ("space_as_plus an int", {"type": "encode", "value": _GOOD_VALUE, "set": "path",
                              "space_as_plus": 1}),
    ("value a bare string", {"type": "decode", "value": "x"}),
    ("value with two fields", {"type": "decode", "value": {"text": "x", "base64": ""}}),
    ("value with no field", {"type": "decode", "value": {}}),
    ("value with an unknown field", {"type": "decode", "value": {"hex": "00"}}),
    ("text not a string", {"type": "decode", "value": {"text": 5}}),
    ("invalid base64", {"type": "decode", "value": {"base64": "!!!"}}),
    ("base64 with bad padding", {"type": "decode", "value": {"base64": "QQ="}}),
    ("non-ASCII base64", {"type": "decode", "value": {"base64": "\u00e9"}}),
    ("code point too big", {"type": "decode", "value": {"code_points": [0x110000]}}),
    ("negative code point", {"type": "decode", "value": {"code_points": [-1]}}),
    ("code point a float", {"type": "decode", "value": {"code_points": [97.0]}}),
    ("code point a bool", {"type": "decode", "value": {"code_points": [True]}}),
    ("code points not a list", {"type": "decode", "value": {"code_points": "abc"}}),
    ("pairs not a list", {"type": "form", "pairs": {"a": "b"}}),
    ("pair not a list", {"type": "form", "pairs": ["ab"]}),
    ("pair of three", {"type": "form", "pairs": [[_GOOD_VALUE, _GOOD_VALUE, _GOOD_VALUE]]}),
    ("pair holding bytes", {"type": "form", "pairs": [[{"base64": "QQ=="}, _GOOD_VALUE]]}),
    ("pair holding a bare string", {"type": "form", "pairs": [["a", "b"]]}),
    ("form-parse text missing", {"type": "form-parse", "value": _GOOD_VALUE}),
]  # fmt: skip


@pytest.mark.parametrize(("why", "data"), MALFORMED, ids=[why for why, _ in MALFORMED])
def test_malformed_json_is_a_case_format_error(why: str, data: Any) -> None:
    with pytest.raises(CaseFormatError):
        case_from_json(data)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
JSON_VALUE_FIELD = st.one_of(
    JSON,
    st.fixed_dictionaries({}, optional={"text": JSON, "base64": JSON, "code_points": JSON}),
)
#: Objects shaped almost like cases: a known type, fields present or not, any JSON in them.
NEAR_CASES = st.fixed_dictionaries(
    {"type": st.sampled_from(sorted(CASE_TYPES))},
    optional={
        "value": JSON_VALUE_FIELD,
        "text": JSON_VALUE_FIELD,
        "set": st.one_of(st.sampled_from(["path", "form", "nope"]), JSON),
        "encoding": JSON,
        "space_as_plus": JSON,
        "pairs": st.one_of(JSON, st.lists(st.lists(JSON_VALUE_FIELD, max_size=3), max_size=2)),
    },
)


@given(data=st.one_of(JSON, NEAR_CASES))
@example(data={"type": "encode", "value": {"code_points": [None]}, "set": "path"})
@example(data={"type": "form", "pairs": [[{"text": "a"}]]})
def test_arbitrary_json_is_a_case_or_a_case_format_error(data: Any) -> None:
    """Any JSON value either is a case or raises CaseFormatError, never another error."""
    try:
        case = case_from_json(data)
    except CaseFormatError:
        return
    assert case_from_json(through_json(case.to_json())) == case
