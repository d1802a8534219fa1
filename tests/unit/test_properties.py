"""The invariants of ``pctfuzz._internal.checks.invariants`` hold for the reference, over every set.

One ``@given`` test per invariant: the set name is sampled from the registry (every
set, aliases included), and each spec edge is pinned as an ``@example`` under every
set and both spaceAsPlus values (``spec_edges``). The percent-encode set hierarchy
itself is checked against the WHATWG URL Standard's wording (``SPEC_DERIVATION``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from hypothesis import example, given, note, settings
from hypothesis import strategies as st

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks import invariants as p
from pctfuzz._internal.checks.invariants import form as form_invariants
from pctfuzz._internal.checks.strategies import (
    binary_values,
    decode_cases,
    encode_cases,
    encoding_labels,
    form_cases,
    form_parse_cases,
    scalar_text,
    set_names,
)
from pctfuzz._internal.errors import NotScalarValueError, UnknownEncodingError, UnknownSetError
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.sets import SETS, UNRESERVED, WHATWG_DERIVATION, get_set
from pctfuzz._internal.violations import Violation

F = TypeVar("F", bound=Callable[..., Any])

#: The spec edges every encode invariant is pinned on: characters some sets disagree
#: on (~ ' ^ ` space +), "%" with and without hex digits, and the UTF-8 length ends.
SPEC_EDGES: tuple[str, ...] = (
    "~", "%", "'", "^", "`", " ", "\u00e9", "\uffff", "\U0010ffff", "%41", "%4", "+",
)  # fmt: skip


def spec_edges(test: F) -> F:
    """Pin every spec edge under every set and both spaceAsPlus values (UTF-8)."""
    for value in SPEC_EDGES:
        for name in SETS:
            for plus in (False, True):
                test = example(case=EncodeCase(value, name, "utf-8", plus))(test)
    return test


def note_encode(case: EncodeCase) -> str | None:
    """Note the intermediate values of an encode case; the output, if in the domain."""
    error = p.expected_encode_error(case)
    if error is not None:
        note(f"outside the domain: expects {error.__name__}")
        return None
    data = p.encoder_bytes(case.value, case.encoding)
    out = percent_encode(
        case.value, case.set_name, encoding=case.encoding, space_as_plus=case.space_as_plus
    )
    note(f"encoder bytes={data!r}")
    note(f"output={out!r}")
    note(f"decoded={percent_decode(out.replace('+', ' ') if case.space_as_plus else out)!r}")
    note(f"round trip holds={p.round_trip_holds(get_set(case.set_name), case.space_as_plus, data)}")
    return out


# --- one test per invariant -------------------------------------------------------------


@given(case=encode_cases())
@spec_edges
@example(case=EncodeCase("a\ud800b", "component"))
@example(case=EncodeCase("x", "no-such-set"))
@example(case=EncodeCase("x", "component", "no-such-label"))
def test_input_domain(case: EncodeCase) -> None:
    note_encode(case)
    p.check_input_domain(case)


@given(case=encode_cases(surrogates=False))
@spec_edges
@example(case=EncodeCase("1+1 \u2261 2%20\u203d", "special-query", "Shift_JIS"))
@example(case=EncodeCase("\u00a5\x1b~", "userinfo", "ISO-2022-JP", True))
def test_output_alphabet(case: EncodeCase) -> None:
    note_encode(case)
    p.check_output_alphabet(case)


@given(case=encode_cases(surrogates=False))
@spec_edges
@example(case=EncodeCase("%41+", "c0-control", "utf-8", True))
@example(case=EncodeCase("\u65e5%41\u203d", "special-query", "ISO-2022-JP"))
def test_round_trip(case: EncodeCase) -> None:
    note_encode(case)
    p.check_round_trip(case)


@given(case=encode_cases(surrogates=False))
@spec_edges
@example(case=EncodeCase("\u203d\U0001f4a9", "form", "windows-1252"))
def test_length_bound(case: EncodeCase) -> None:
    note_encode(case)
    p.check_length_bound(case)


@given(case=encode_cases(surrogates=False))
@spec_edges
def test_determinism(case: EncodeCase) -> None:
    note_encode(case)
    p.check_determinism(case)


@given(case=encode_cases(surrogates=False))
@spec_edges
@example(case=EncodeCase("AZaz09-._~", "rfc3986-unreserved"))
def test_unreserved_idempotence(case: EncodeCase) -> None:
    note_encode(case)
    p.check_unreserved_idempotence(case)


@given(case=encode_cases(surrogates=False))
@spec_edges
@example(case=EncodeCase(bytes(range(0x100)), "path"))
def test_monotonicity(case: EncodeCase) -> None:
    note_encode(case)
    p.check_monotonicity(case)


@given(case=encode_cases(surrogates=False))
@spec_edges
def test_concatenation_at_cut_points(case: EncodeCase) -> None:
    note_encode(case)
    p.check_concatenation(case)


@given(
    parts=st.one_of(
        st.tuples(scalar_text(), scalar_text()), st.tuples(binary_values(), binary_values())
    ),
    set_name=set_names(),
    plus=st.booleans(),
)
@example(parts=("%4", "1"), set_name="path", plus=False)
@example(parts=("\U0001f4a9", "%"), set_name="component", plus=True)
@example(parts=(b"\xc3", b"\xa9"), set_name="c0-control", plus=False)
def test_concatenation(
    parts: tuple[str, str] | tuple[bytes, bytes], set_name: str, plus: bool
) -> None:
    """encode(a + b) == encode(a) + encode(b), for any split of a scalar value string
    (UTF-8) or of bytes."""
    a, b = parts
    whole = percent_encode(a + b, set_name, space_as_plus=plus)  # type: ignore[operator]
    joined = percent_encode(a, set_name, space_as_plus=plus) + percent_encode(
        b, set_name, space_as_plus=plus
    )
    note(f"encode(a + b)={whole!r}")
    note(f"encode(a) + encode(b)={joined!r}")
    assert whole == joined


@given(case=decode_cases())
@example(case=DecodeCase("%"))
@example(case=DecodeCase("%4"))
@example(case=DecodeCase("%41"))
@example(case=DecodeCase("%4g%zz%%41"))
@example(case=DecodeCase("%7e%7E"))
@example(case=DecodeCase("\ud800%41"))
@example(case=DecodeCase(b"%\xff%C3%A9"))
def test_decode_robustness(case: DecodeCase) -> None:
    note(f"model={p.model_percent_decode(case.value)!r}")
    p.check_decode_robustness(case)


@given(case=form_cases())
@example(case=FormCase((("a b", "c+d"), ("", "="), ("&", "%41"))))
@example(case=FormCase((("1+1 \u2261 2%20\u203d", "x"),), "Shift_JIS"))
def test_form_serializer(case: FormCase) -> None:
    note(f"serialized={p.REFERENCE.form_encode(case.pairs, encoding=case.encoding)!r}")
    p.check_form_serializer(case)


#: Names and values around ``_encoded_fields``' separators: C0 controls (SO, SI, ESC
#: too), "\\" and "%5C", ISO-2022-JP's jis0208 and Roman code points, errors, "&#;".
separator_text = st.text(
    st.characters(max_codepoint=0x1F)
    | st.sampled_from("\\~a %5C&#;\u3042\u4e2d\u2212\u00a5\u203e\u00e9\ufffd\U0001f600\ue000")
    | st.characters(codec="utf-8"),
    max_size=8,
)


@settings(max_examples=1500)
@given(pairs=st.lists(st.tuples(separator_text, separator_text), max_size=6),
       encoding=st.sampled_from(["ISO-2022-JP", "utf-8", "Shift_JIS", "gb18030",
                                 "windows-1252", "x-user-defined", "utf-16le"]) | encoding_labels())
@example(pairs=[("".join(map(chr, range(0x20))), "a")], encoding="utf-8")  # no separator
@example(pairs=[("\x1f\u00a5", "\u3042")], encoding="ISO-2022-JP")  # not US
def test_the_serializer_check_encodes_the_reference_s_fields_in_one_call(
    pairs: list[tuple[str, str]], encoding: str
) -> None:
    """``form._encoded_fields``' one call gives each field's own encoding (a fresh
    encoder per name and value, WHATWG URL 5.2); other encoders get one call each."""
    case = FormCase(tuple(pairs), encoding)
    fields = [field for pair in pairs for field in pair]
    alone = [percent_encode(f, "form", encoding=encoding, space_as_plus=True) for f in fields]
    calls: list[object] = []

    def counted(*args: Any, **kwargs: Any) -> str:
        calls.append(args)
        return percent_encode(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("pctfuzz._internal.oracles.codec.percent_encode", counted)
        assert form_invariants._encoded_fields(case, p.REFERENCE) == alone
    free = set(map(chr, range(0x20))) - set("\x0e\x0f\x1b") - set("".join(fields))
    assert len(calls) == (1 if fields and free else len(fields))
    other = p.Codec.build("other", lambda value, *a, **k: percent_encode(value, *a, **k),
                          p.REFERENCE.decode)
    assert form_invariants._encoded_fields(case, other) == alone


@given(case=form_cases())
@example(case=FormCase((("a b", "c+d"), ("", ""), ("\ufeff", "\U0010ffff"))))
def test_form_round_trip(case: FormCase) -> None:
    note(f"serialized={p.REFERENCE.form_encode(case.pairs, encoding=case.encoding)!r}")
    p.check_form_round_trip(case)


@given(case=form_parse_cases())
@example(case=FormParseCase(b"a=b&&=&c+d=%zz%C3&=\xff"))
@example(case=FormParseCase("\ud800=%ED%A0%80"))
def test_form_parse(case: FormParseCase) -> None:
    note(f"parsed={p.REFERENCE.form_decode(case.text)!r}")
    p.check_form_parse(case)


# --- the aggregates the drivers run -------------------------------------------------------


@given(case=encode_cases())
@spec_edges
def test_check_encode(case: EncodeCase) -> None:
    note_encode(case)
    p.check_encode(case)


@given(case=decode_cases())
def test_check_decode(case: DecodeCase) -> None:
    p.check_decode(case)


@given(case=form_cases(surrogates=True))
@example(case=FormCase((("ok", "\udfff"),)))
def test_check_form(case: FormCase) -> None:
    p.check_form(case)


@given(case=form_parse_cases())
def test_check_form_parse(case: FormParseCase) -> None:
    p.check_form_parse(case)


# --- the set hierarchy against the spec text -----------------------------------------------

#: WHATWG URL 1.3 (seed 000), each set as "<parent> and <these code points>", transcribed
#: from the standard's wording; seed 001 for the two recipes built on encodeURI.
SPEC_DERIVATION: dict[str, tuple[str, str]] = {
    # "The fragment percent-encode set is the C0 control percent-encode set and U+0020
    # SPACE, U+0022 ("), U+003C (<), U+003E (>), and U+0060 (`)."
    "fragment": ("c0-control", ' "<>`'),
    # "The query percent-encode set is the C0 control percent-encode set and U+0020 SPACE,
    # U+0022 ("), U+0023 (#), U+003C (<), and U+003E (>)."
    "query": ("c0-control", ' "#<>'),
    # "The special-query percent-encode set is the query percent-encode set and U+0027 (')."
    "special-query": ("query", "'"),
    # "The path percent-encode set is the query percent-encode set and U+003F (?), U+005E (^),
    # U+0060 (`), U+007B ({), and U+007D (})."
    "path": ("query", "?^`{}"),
    # "The userinfo percent-encode set is the path percent-encode set and U+002F (/), U+003A
    # (:), U+003B (;), U+003D (=), U+0040 (@), U+005B ([) to U+005D (]), inclusive, and
    # U+007C (|)."
    "userinfo": ("path", "/:;=@[\\]|"),
    # "The component percent-encode set is the userinfo percent-encode set and U+0024 ($) to
    # U+0026 (&), inclusive, U+002B (+), and U+002C (,)."
    "component": ("userinfo", "$%&+,"),
    # "The application/x-www-form-urlencoded percent-encode set is the component
    # percent-encode set and U+0021 (!), U+0027 (') to U+0029 RIGHT PARENTHESIS, inclusive,
    # and U+007E (~)."
    "application/x-www-form-urlencoded": ("component", "!'()~"),
    # seed 001, Data URIs: "encodeURI, then # -> %23".
    "data-uri": ("encodeURI", "#"),
    # seed 001, encodeQueryValue: "encodeURI, then # & + encoded, %20 -> +".
    "query-value": ("encodeURI", "#&+"),
}


def test_whatwg_derivation_matches_the_spec_text() -> None:
    assert dict(WHATWG_DERIVATION) == {
        child: parent for child, (parent, _) in SPEC_DERIVATION.items()
    }
    for child, (parent, extra) in SPEC_DERIVATION.items():
        added = frozenset(map(ord, extra))
        assert SETS[child].members == SETS[parent].members | added, child
        # ... and every listed code point is new: the parent did not have it already.
        assert not SETS[parent].members & added, child


def test_c0_control_set_matches_the_spec_text() -> None:
    # "The C0 control percent-encode set are the C0 controls and all code points greater
    # than U+007E (~)."
    assert SETS["c0-control"].members == frozenset(range(0x20)) | frozenset(range(0x7F, 0x100))


def test_form_set_matches_the_spec_note() -> None:
    # Note in WHATWG 1.3: the form set "contains all code points, except the ASCII
    # alphanumeric, U+002A (*), U+002D (-), U+002E (.), and U+005F (_)."
    kept = {c for c in range(0x100) if chr(c).isascii() and chr(c).isalnum()} | set(b"*-._")
    assert get_set("form").members == frozenset(range(0x100)) - kept


def test_component_set_equals_encode_uri_component() -> None:
    # Note in WHATWG 1.3: UTF-8 percent-encode with the component set "gives identical
    # results to JavaScript's encodeURIComponent()".
    assert SETS["component"].members == SETS["encodeURIComponent"].members


def test_preconditions_of_the_exact_conditions() -> None:
    """round_trip_holds is an iff only for sets that leave hex digits raw; unreserved
    characters are outside every set but the form set, which lists "~"."""
    hex_digits = frozenset(b"0123456789ABCDEFabcdef")
    for name, pes in SETS.items():
        assert not hex_digits & pes.members, name
        assert frozenset(range(0x7F, 0x100)) <= pes.members, name
        expected = {0x7E} if name == "application/x-www-form-urlencoded" else set()
        assert UNRESERVED & pes.members == expected, name


def test_set_neighbours_are_covers() -> None:
    for name in SETS:
        below, above = p.set_neighbours(name)
        me = SETS[name].members
        assert all(SETS[n].members <= me for n in below)
        assert all(me <= SETS[n].members for n in above)
    assert p.set_neighbours("query") == (
        ("c0-control",),
        ("special-query", "path", "rfc3986-query", "data-uri"),
    )


# --- exact conditions and models, on their own --------------------------------------------


@pytest.mark.parametrize(
    ("value", "set_name", "plus", "holds"),
    [
        ("%41", "component", False, True),  # % in the set: always holds
        ("%41", "path", False, False),  # % raw and followed by hex: "%41" reads as "A"
        ("%4", "path", False, True),  # % raw but not an escape
        ("%zz", "c0-control", False, True),
        ("a+b", "form", True, True),  # + in the set: written %2B
        ("a+b", "c0-control", True, False),  # + raw with spaceAsPlus: reads as space
        ("a+b", "c0-control", False, True),
        ("a b", "c0-control", True, True),
    ],
)
def test_round_trip_condition(value: str, set_name: str, plus: bool, holds: bool) -> None:
    pes = get_set(set_name)
    assert p.round_trip_holds(pes, plus, value.encode()) is holds
    out = percent_encode(value, set_name, space_as_plus=plus)
    back = percent_decode(out.replace("+", " ") if plus else out)
    assert (back == value.encode()) is holds


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("%", b"%"),
        ("%4", b"%4"),
        ("%41", b"A"),
        ("%4a%4A", b"JJ"),
        ("%%41", b"%A"),
        ("%4%41", b"%4A"),
        ("%zz", b"%zz"),
        ("%\u00e9", b"%\xc3\xa9"),
        ("\ud800", b"\xef\xbf\xbd"),
        (b"%C3%A9%FF", b"\xc3\xa9\xff"),
    ],
)
def test_model_percent_decode(value: str | bytes, expected: bytes) -> None:
    assert p.model_percent_decode(value) == expected


def test_decode_is_linear_on_percent_floods() -> None:
    """A quadratic decoder takes minutes on these; a linear one takes milliseconds."""
    for flood in ("%" * 1_000_000, "%4" * 500_000, "%%4" * 300_000):
        start = time.perf_counter()
        assert percent_decode(flood) == p.model_percent_decode(flood)
        assert time.perf_counter() - start < 5


def test_out_of_domain_errors_are_the_documented_ones() -> None:
    assert p.expected_encode_error(EncodeCase("\udc00", "path")) is NotScalarValueError
    assert p.expected_encode_error(EncodeCase("x", "nope")) is UnknownSetError
    assert p.expected_encode_error(EncodeCase("x", "path", "nope")) is UnknownEncodingError
    # bytes are encoded byte-wise: the label is not used, so it cannot be wrong
    assert p.expected_encode_error(EncodeCase(b"x", "path", "nope")) is None
    assert p.expected_encode_error(EncodeCase("x", "FORM")) is None  # aliases are case-free
    assert p.expected_form_error(FormCase((("a", "\ud800"),))) is NotScalarValueError


def test_violations_carry_position_and_evidence() -> None:
    case = EncodeCase("a\ud800", "path")

    def accepting(value: str | bytes, set_name: str, *, encoding: str, space_as_plus: bool) -> str:
        return "a%ED%A0%80"

    codec = p.Codec.build("accepting", accepting, percent_decode)
    with pytest.raises(Violation) as info:
        p.check_encode(case, codec)
    assert info.value.check == p.INPUT_DOMAIN
    assert info.value.position == 1
    assert info.value.evidence()["expected"] == "'NotScalarValueError'"


# --- the registry -------------------------------------------------------------------------


def test_invariants_registry() -> None:
    assert list(p.INVARIANTS) == [
        "input-domain", "output-alphabet", "round-trip", "length-bound", "determinism",
        "unreserved-idempotence", "monotonicity", "concatenation", "decode-robustness",
        "form-serializer", "form-round-trip", "form-parse",
    ]  # fmt: skip
    for name, (description, check) in p.INVARIANTS.items():
        assert description and "\n" not in description, name
        assert check.__doc__, name
        assert callable(check)


@given(label=encoding_labels())
def test_every_sampled_label_is_known(label: str) -> None:
    from pctfuzz._internal.encoding import lookup

    assert lookup(label).name
