"""The reference encoder/decoder API: types, errors, surrogates, bytes, hex case, ``%``.

The conformance vectors live in test_conformance.py; here a few Hypothesis checks also
compare the table-driven implementation with the spec's transcription (``pctfuzz._internal.spec``).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pctfuzz._internal import reference, spec
from pctfuzz._internal.errors import (
    InputTypeError,
    NotScalarValueError,
    PctfuzzError,
    UnknownEncodingError,
)
from pctfuzz._internal.reference import (
    percent_decode,
    percent_decode_text,
    percent_encode,
    percent_encode_byte,
    to_scalar_value_string,
)
from pctfuzz._internal.sets import SETS, PercentEncodeSet, get_set

SET_NAMES = list(SETS)


# --- the spec's transcriptions (``pctfuzz._internal.spec``) ---------------------------------------


def spec_encode_utf8(text: str, set_name: str, space_as_plus: bool = False) -> str:
    """WHATWG 1.3 "percent-encode after encoding" with UTF-8, one byte at a time."""
    return spec.percent_encode_after_encoding("utf-8", text, set_name, space_as_plus)


spec_decode = spec.percent_decode


scalar_text = st.text(st.characters(codec="utf-8"), max_size=40)
pct_soup = st.text(st.sampled_from("%%%0123456789aAfFgG+ \u00e9x"), max_size=40)


@settings(deadline=None)
@given(scalar_text, st.sampled_from(SET_NAMES), st.booleans())
def test_encode_matches_byte_loop(text: str, set_name: str, plus: bool) -> None:
    assert percent_encode(text, set_name, space_as_plus=plus) == spec_encode_utf8(
        text, set_name, plus
    )
    assert percent_encode(text.encode("utf-8"), set_name, space_as_plus=plus) == (
        spec_encode_utf8(text, set_name, plus)
    )


@settings(deadline=None)
@given(st.one_of(pct_soup, scalar_text))
def test_decode_matches_spec_loop(text: str) -> None:
    data = text.encode("utf-8")
    assert percent_decode(text) == spec_decode(data)
    assert percent_decode(data) == spec_decode(data)


# --- percent_encode ----------------------------------------------------------------------


def test_percent_encode_byte_uppercase() -> None:
    assert percent_encode_byte(0) == "%00"
    assert percent_encode_byte(0xAB) == "%AB"
    assert percent_encode_byte(0xFF) == "%FF"


def test_hex_is_always_uppercase() -> None:
    every_byte = bytes(range(0x100))
    out = percent_encode(every_byte, "rfc3986-unreserved")
    assert re.fullmatch(r"(%[0-9A-F]{2}|[A-Za-z0-9._~-])*", out)
    assert out == "".join(
        chr(b) if chr(b) in "-._~" or (chr(b).isalnum() and b < 0x80) else f"%{b:02X}"
        for b in every_byte
    )
    assert percent_encode("\u00ff\u00fe", "c0-control") == "%C3%BF%C3%BE"


def test_default_set_is_component() -> None:
    assert percent_encode("a b/c?d") == "a%20b%2Fc%3Fd"


def test_set_object_and_alias_accepted() -> None:
    assert percent_encode("a b", SETS["fragment"]) == "a%20b"
    assert percent_encode("a~b", "form") == "a%7Eb"


def test_space_as_plus() -> None:
    assert percent_encode("a b+c", "form", space_as_plus=True) == "a+b%2Bc"
    assert percent_encode("a b+c", "form") == "a%20b%2Bc"
    # query-value's recipe default is True; an explicit False wins.
    assert percent_encode("a b+c", "query-value") == "a+b%2Bc"
    assert percent_encode("a b+c", "query-value", space_as_plus=False) == "a%20b%2Bc"
    # With a set that does not encode "+", spaceAsPlus makes the output ambiguous; it
    # still follows the algorithm (space -> "+").
    assert percent_encode("a b+c", "fragment", space_as_plus=True) == "a+b+c"
    assert percent_encode(b"a b", "fragment", space_as_plus=True) == "a+b"


def test_bytes_input_is_encoded_bytewise() -> None:
    assert percent_encode(b"\xff a", "fragment") == "%FF%20a"
    assert percent_encode(bytearray(b"\xc3\xa9"), "component") == "%C3%A9"  # type: ignore[arg-type]
    assert percent_encode(memoryview(b"a/b"), "component") == "a%2Fb"  # type: ignore[arg-type]
    # Not text: invalid UTF-8 stays as its bytes, encoding= is ignored.
    assert percent_encode(b"\xe9", "component", encoding="shift_jis") == "%E9"
    assert percent_encode(b"", "component") == ""


def test_empty_and_ascii_fast_path() -> None:
    assert percent_encode("", "form") == ""
    assert percent_encode("abcXYZ019", "form") == "abcXYZ019"
    assert percent_encode("*-._", "form") == "*-._"


def test_encoding_labels_are_looked_up() -> None:
    # WHATWG labels are ASCII case-insensitive and trimmed of ASCII whitespace.
    assert percent_encode("\u00e9", "component", encoding=" UTF8 ") == "%C3%A9"
    assert percent_encode("\u00e9", "component", encoding="unicode-1-1-utf-8") == "%C3%A9"


@pytest.mark.parametrize("label", ["utf-7", "nope", "", "utf_8"])
def test_unknown_encoding_names_the_label(label: str) -> None:
    with pytest.raises(UnknownEncodingError) as info:
        percent_encode("x", "component", encoding=label)
    assert repr(label) in str(info.value)
    assert isinstance(info.value, LookupError)


def test_unknown_set_from_percent_encode() -> None:
    from pctfuzz._internal.errors import UnknownSetError

    with pytest.raises(UnknownSetError, match="'nope'"):
        percent_encode("x", "nope")


@pytest.mark.parametrize("bad", [42, None, 1.5, ["a"], ("a",), object()])
def test_percent_encode_wrong_value_type(bad: object) -> None:
    with pytest.raises(InputTypeError, match=r"^value must be str or bytes") as info:
        percent_encode(bad)  # type: ignore[arg-type]
    assert isinstance(info.value, TypeError)
    assert type(bad).__name__ in str(info.value)


@pytest.mark.parametrize("bad", [42, None, b"component"])
def test_percent_encode_wrong_set_type(bad: object) -> None:
    with pytest.raises(InputTypeError, match="encode_set") as info:
        percent_encode("x", bad)  # type: ignore[arg-type]
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("bad", [42, None, b"utf-8"])
def test_percent_encode_wrong_encoding_type(bad: object) -> None:
    with pytest.raises(InputTypeError, match="encoding") as info:
        percent_encode("x", "component", encoding=bad)  # type: ignore[arg-type]
    assert isinstance(info.value, TypeError)


# --- surrogates ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "\udc00\ud800", "x\ud83d"])
def test_lone_surrogate_strict_by_default(text: str) -> None:
    with pytest.raises(NotScalarValueError, match="lone surrogate") as info:
        percent_encode(text, "component")
    assert isinstance(info.value, ValueError)


def test_lone_surrogate_error_names_position() -> None:
    with pytest.raises(NotScalarValueError, match=r"U\+DFFF at index 1"):
        percent_encode("a\udfffb")


def test_lone_surrogate_replace() -> None:
    assert percent_encode("a\ud800b", "component", surrogates="replace") == "a%EF%BF%BDb"
    assert percent_encode("\udc00\ud800", "fragment", surrogates="replace") == (
        "%EF%BF%BD%EF%BF%BD"
    )
    # A valid pair (one astral code point in Python) is untouched.
    assert percent_encode("\U0001f4a9", surrogates="replace") == "%F0%9F%92%A9"


def test_surrogates_argument_is_checked() -> None:
    with pytest.raises(PctfuzzError, match="surrogates"):
        percent_encode("x", surrogates="ignore")  # type: ignore[arg-type]


def test_to_scalar_value_string() -> None:
    assert to_scalar_value_string("abc") == "abc"
    assert to_scalar_value_string("a\ud800", "replace") == "a\ufffd"
    with pytest.raises(NotScalarValueError):
        to_scalar_value_string("a\ud800")


# --- percent_decode -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("%", b"%"),
        ("%4", b"%4"),
        ("%zz", b"%zz"),
        ("%4a", b"J"),
        ("%4A", b"J"),
        ("%%4a", b"%J"),
        ("%4%4a", b"%4J"),
        ("%%%%", b"%%%%"),
        ("%g0", b"%g0"),
        ("%0g", b"%0g"),
        ("%41%", b"A%"),
        ("a%2", b"a%2"),
        ("%252F", b"%2F"),  # decoded once, not twice
        ("%00%ff%FF", b"\x00\xff\xff"),
        ("+", b"+"),  # "+" is only special in the form parser
        ("", b""),
        ("no escapes", b"no escapes"),
        ("\u00e9%41", b"\xc3\xa9A"),  # a str is UTF-8 encoded first
    ],
)
def test_percent_decode_percent_handling(text: str, expected: bytes) -> None:
    assert percent_decode(text) == expected
    assert percent_decode(text.encode("utf-8")) == expected


def test_percent_decode_non_ascii_hex_digits_are_not_hex() -> None:
    # Fullwidth digits are not ASCII hex digits.
    assert percent_decode("%\uff14\uff11") == "%\uff14\uff11".encode()


def test_percent_decode_bytes_like() -> None:
    assert percent_decode(bytearray(b"%41")) == b"A"  # type: ignore[arg-type]
    assert percent_decode(memoryview(b"%41")) == b"A"  # type: ignore[arg-type]


def test_percent_decode_lone_surrogate_becomes_fffd() -> None:
    assert percent_decode("a\ud800%41") == b"a\xef\xbf\xbdA"


@pytest.mark.parametrize("bad", [42, None, ["%41"]])
def test_percent_decode_wrong_type(bad: object) -> None:
    with pytest.raises(InputTypeError, match=r"^value must be str or bytes") as info:
        percent_decode(bad)  # type: ignore[arg-type]
    assert isinstance(info.value, TypeError)
    with pytest.raises(InputTypeError, match="value"):
        percent_decode_text(bad)  # type: ignore[arg-type]


def test_percent_decode_text_utf8_without_bom() -> None:
    assert percent_decode_text("caf%C3%A9") == "caf\u00e9"
    assert percent_decode_text("%EF%BB%BFx") == "\ufeffx"  # BOM kept
    assert percent_decode_text("%C3") == "\ufffd"
    assert percent_decode_text("%F0%9F%92") == "\ufffd"  # one maximal subpart
    assert percent_decode_text("%F0%80%80") == "\ufffd\ufffd\ufffd"  # three subparts
    assert percent_decode_text("%ED%A0%80") == "\ufffd\ufffd\ufffd"  # no surrogates out


def test_percent_decode_is_linear_on_floods() -> None:
    # 1 MiB of each adversarial pattern; a quadratic decoder would take minutes.
    for unit in ("%", "%4", "%%4", "%4a"):
        data = unit * ((1 << 20) // len(unit))
        out = percent_decode(data)
        assert len(out) <= len(data)


# --- block processing and the table fallbacks (implementation details, spec results) ----


def spec_encode_bytes(data: bytes, pes: PercentEncodeSet, space_as_plus: bool = False) -> str:
    """Step 5.4 on each byte; the isomorphic decode of a byte left as is is chr(byte)."""
    return "".join(
        "+"
        if space_as_plus and b == 0x20
        else ("%" + format(b, "02X") if b in pes.members else chr(b))
        for b in data
    )


byte_soup = st.binary(max_size=60) | st.lists(
    st.sampled_from([b"%", b"%4", b"%41", b"%4a", b"a", b"\xff", b" ", b"+"]), max_size=30
).map(b"".join)


@settings(deadline=None)
@given(
    byte_soup,
    st.integers(3, 9),
    st.sampled_from([0, 1, 10**9]),
    st.sampled_from(SET_NAMES),
    st.booleans(),
    st.booleans(),
)
def test_both_decode_paths_and_small_blocks(
    data: bytes, block: int, few: int, set_name: str, plus: bool, escapes: bool
) -> None:
    # Blocks of 3-9 bytes put cuts everywhere, including inside "%HH" triplets; `few`
    # forces the vectorized path (0, 1) or the split loop (10**9) whatever the input,
    # for decoding and likewise for encoding (cells, or str.translate). Without
    # `escapes`, valid inputs skip the escape_decode path too.
    with pytest.MonkeyPatch.context() as patch:
        if not escapes:
            patch.setattr(reference, "_decode_escapes", lambda data: None)
        patch.setattr(reference, "_BLOCK", block)
        patch.setattr(reference, "_FEW_PERCENTS", few)
        patch.setattr(reference, "_SHORT", min(few, 96))
        patch.setattr(reference, "_SHORT_ENCODE", min(few, 32))
        assert percent_decode(data) == spec_decode(data)
        assert percent_encode(data, set_name, space_as_plus=plus) == spec_encode_bytes(
            data, get_set(set_name), plus
        )


def test_block_cut_inside_a_triplet() -> None:
    block = reference._BLOCK
    for shift in range(-3, 4):
        data = b"%" * (block + shift) + b"%41%4" + b"%" * 5
        assert percent_decode(data) == spec_decode(data)
        assert percent_decode(data * 3) == spec_decode(data * 3)
        data = b"%41" * (block // 3) + b"a" * shift + b"%41%4a%" * 20
        assert percent_decode(data) == spec_decode(data)


def test_large_inputs_match_urllib() -> None:
    import urllib.parse

    text = "a/b c\u00e9\u4e2d\U0001f600%41&=+" * 20000  # ~ 480 KB of UTF-8: many blocks
    encoded = percent_encode(text, "component")
    assert encoded == urllib.parse.quote(text, safe="!'()*")
    assert percent_decode(encoded) == text.encode("utf-8")


@settings(deadline=None)
@given(byte_soup, st.frozensets(st.integers(0, 0xFF)), st.booleans())
def test_custom_sets(data: bytes, members: frozenset[int], plus: bool) -> None:
    # Includes sets leaving bytes >= 0x80 alone and sets too small to spare a pad byte.
    pes = PercentEncodeSet("custom", members, "test")
    assert percent_encode(data, pes, space_as_plus=plus) == spec_encode_bytes(data, pes, plus)


def test_tiny_set_without_pad_byte() -> None:
    pes = PercentEncodeSet("tiny", frozenset(b"%A"), "test")
    assert percent_encode("A%B\u00e9", pes) == "%41%25B\u00c3\u00a9"
    assert percent_encode("A%B", PercentEncodeSet("empty", frozenset(), "test")) == "A%B"


# --- the fast paths, each against the general path ---------------------------------------

#: Valid percent-encoded bytes, with the backslashes and "x" the escape path rewrites.
valid_encoded = st.lists(
    st.sampled_from([b"%41", b"%4a", b"%fF", b"%00", b"%5C", b"\\", b"\\x", b"x4", b"a", b"\xff"])
    | st.binary(max_size=3).filter(lambda b: b"%" not in b),
    max_size=30,
).map(b"".join)


@settings(deadline=None)
@given(valid_encoded)
def test_escape_decode_path_on_valid_input(data: bytes) -> None:
    assert reference._decode_escapes(data) == spec_decode(data)
    assert percent_decode(data) == spec_decode(data)


@settings(deadline=None)
@given(byte_soup | valid_encoded)
def test_escape_decode_path_declines_only_invalid_percent(data: bytes) -> None:
    # None exactly when some "%" does not start a "%HH" (the other paths handle it).
    valid = re.fullmatch(rb"(?:[^%]|%[0-9A-Fa-f]{2})*", data, re.DOTALL) is not None
    decoded = reference._decode_escapes(data)
    assert (decoded is not None) == valid
    if decoded is not None:
        assert decoded == spec_decode(data)


@st.composite
def unchanged_text(draw: st.DrawFn) -> tuple[str, bool, str]:
    """A set name, spaceAsPlus, and ASCII text with nothing that set would change."""
    set_name = draw(st.sampled_from(SET_NAMES))
    plus = draw(st.booleans())
    members = get_set(set_name).members | ({0x20} if plus else set())
    kept = [chr(b) for b in range(0x80) if b not in members]
    text = draw(st.text(st.sampled_from(kept), max_size=60) if kept else st.just(""))
    return set_name, plus, text + draw(st.sampled_from(["", " ", "%", "\u00e9"]))


@settings(deadline=None)
@given(unchanged_text())
def test_no_op_fast_path_matches_general_path(case: tuple[str, bool, str]) -> None:
    # Mostly inputs with nothing to encode (returned as is), some with one last
    # character that may need encoding: the same result as the table path.
    set_name, plus, text = case
    tables = reference._encoder(get_set(set_name), plus)
    general = reference._encode_changed(text.encode("utf-8"), tables)
    assert percent_encode(text, set_name, space_as_plus=plus) == general
    assert percent_encode(text.encode("utf-8"), set_name, space_as_plus=plus) == general
    assert general == spec_encode_utf8(text, set_name, plus)


def test_call_cache_keeps_calls_apart() -> None:
    # Cached per (set, spaceAsPlus, label) as passed: each call still gets its own tables.
    for _ in range(2):
        assert percent_encode("a b~", "form", space_as_plus=True) == "a+b%7E"
        assert percent_encode("a b~", "form", space_as_plus=False) == "a%20b%7E"
        assert percent_encode("a b~", "form") == "a%20b%7E"
        assert percent_encode("a b~", "query-value") == "a+b~"
        assert percent_encode("a b~", "query-value", space_as_plus=0) == "a%20b~"
        assert percent_encode("\u00e9", "form", encoding="latin1") == "%E9"
        assert percent_encode("\u00e9", "form", encoding="utf-8") == "%C3%A9"


def test_unknown_label_ignored_for_bytes_only() -> None:
    assert percent_encode(b"a b", "component", encoding="no-such-label") == "a%20b"
    with pytest.raises(UnknownEncodingError):
        percent_encode("a b", "component", encoding="no-such-label")


@settings(deadline=None)
@given(
    st.text(st.characters(max_codepoint=0x7F), max_size=30),
    st.sampled_from(SET_NAMES),
    st.sampled_from(["windows-1252", "shift_jis", "euc-kr", "big5", "gb18030", "iso-2022-jp"]),
)
def test_ascii_fast_path_in_legacy_encodings(text: str, set_name: str, label: str) -> None:
    # ASCII text skips the legacy encoder where it writes ASCII as is: the same as
    # through the encoder (forced by a fresh call cache that believes no encoder does).
    fast = percent_encode(text, set_name, encoding=label)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reference, "_CALLS", {})
        patch.setattr(reference, "_ascii_as_is", lambda enc: False)
        assert percent_encode(text, set_name, encoding=label) == fast


def test_ascii_as_is_per_encoding() -> None:
    from pctfuzz._internal import encoding

    assert reference._ascii_as_is(encoding.lookup("windows-1252"))
    assert reference._ascii_as_is(encoding.lookup("shift_jis"))
    assert not reference._ascii_as_is(encoding.lookup("iso-2022-jp"))  # ESC, SO, SI
    assert percent_encode("\x1b", "component", encoding="iso-2022-jp") == "%26%2365533%3B"


@settings(deadline=None)
@given(
    st.text(st.sampled_from("a &#;09%\\~\u00e9\u00a5\u203e\u3042\u4e2d\U0001f600\x1b\ufffd"
                            "\u0100\uff61\u2212"), max_size=20),
    st.sampled_from(SET_NAMES),
    st.sampled_from(["windows-1252", "shift_jis", "euc-kr", "big5", "iso-2022-jp", "koi8-r",
                     "gb18030"]),
)
def test_the_inband_path_matches_run_by_run(text: str, set_name: str, label: str) -> None:
    # The legacy path writes all bytes and errors from encoding.encode_inband at once
    # (ISO-2022-JP's three states too); the spec's twin runs the Encoding Standard's
    # loop one run at a time (encode_runs) and each byte on its own.
    assert percent_encode(text, set_name, encoding=label, space_as_plus=False) == \
        spec.percent_encode_after_encoding(label, text, set_name)


def test_an_error_is_an_encoded_ncr_whatever_the_set() -> None:
    # WHATWG 1.3 step 5.3: "%26%23", the decimal code point, "%3B", even under a set
    # that leaves "&", "#" and ";" as they are; in the BMP, as a stand-in (U+00E9 in
    # KOI8-R), and astral.
    assert percent_encode("\u4e2d", "query", encoding="windows-1252") == "%26%2320013%3B"
    assert percent_encode("&\u00e9;", "query", encoding="koi8-r") == "&%26%23233%3B;"
    assert percent_encode("\U0001f600#", "fragment", encoding="shift_jis") == (
        "%26%23128512%3B#")


def test_the_inband_tables_stay_bounded() -> None:
    # Each is a 64K-entry tuple: a program going through many set specs with a legacy
    # encoding keeps at most _MAX_INBAND of them alive, the calls that hold them too.
    for n in range(2 * reference._MAX_INBAND + 5):
        spec = f"component+{chr(0x41 + n % 26)}{chr(0x61 + n // 26)}"
        assert percent_encode("\u00e9", spec, encoding="windows-1252") == "%E9"
    alive = {id(call.inband) for call in reference._CALLS.values() if call.inband is not None}
    assert len(reference._INBAND) <= reference._MAX_INBAND
    assert len(alive) <= reference._MAX_INBAND
