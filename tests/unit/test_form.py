"""application/x-www-form-urlencoded serializer and parser: API, errors, edge cases.

The WPT parser and stringifier tables are run in test_conformance.py.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pctfuzz._internal import form, spec
from pctfuzz._internal.errors import (
    InputTypeError,
    NotScalarValueError,
    PctfuzzError,
    UnknownEncodingError,
)
from pctfuzz._internal.form import form_urldecode, form_urlencode
from pctfuzz._internal.formats import FUZZ_ENCODINGS
from pctfuzz._internal.reference import percent_encode

scalar_text = st.text(st.characters(codec="utf-8"), max_size=20)


@settings(deadline=None)
@given(st.lists(st.tuples(scalar_text, scalar_text), max_size=5))
def test_serialize_then_parse_round_trips(pairs: list[tuple[str, str]]) -> None:
    # Every pair survives, including empty names and values: the serializer always
    # writes "name=value", so no sequence is empty... except the pair ("", "") alone,
    # which serializes to "=" and parses back to [("", "")].
    assert form_urldecode(form_urlencode(pairs)) == pairs


@settings(deadline=None)
@given(st.text(st.sampled_from("ab=&+% %41\u00e9"), max_size=30))
def test_parse_never_raises_and_serialization_is_a_fixpoint(text: str) -> None:
    pairs = form_urldecode(text)
    once = form_urlencode(pairs)
    assert form_urlencode(form_urldecode(once)) == once


def test_serializer_basics() -> None:
    assert form_urlencode([]) == ""
    assert form_urlencode([("a", "b"), ("c", "d")]) == "a=b&c=d"
    assert form_urlencode([("a b", "c~d")]) == "a+b=c%7Ed"
    assert form_urlencode([("*-._", "!'()")]) == "*-._=%21%27%28%29"
    assert form_urlencode((["x", "y"],)) == "x=y"  # type: ignore[arg-type]  # lists work
    assert form_urlencode(iter([("k", "v")])) == "k=v"  # any iterable


def test_serializer_legacy_encoding() -> None:
    # Seed 000: Shift_JIS with the form set and spaceAsPlus, via the serializer.
    assert form_urlencode([("1+1 \u2261 2%20\u203d", "\u00a5")], encoding="shift_jis") == (
        "1%2B1+%81%DF+2%2520%26%238253%3B=%5C"
    )


def test_serializer_utf16_labels_mean_utf8() -> None:
    # URL 5.2: the serializer uses encoding's *output encoding* ("get an output
    # encoding": UTF-16BE/LE -> UTF-8).
    for label in ("utf-16", "utf-16le", "utf-16be"):
        assert form_urlencode([("\u00e9", "a b")], encoding=label) == "%C3%A9=a+b"


def test_serializer_unknown_encoding() -> None:
    with pytest.raises(UnknownEncodingError, match="'klingon'"):
        form_urlencode([("a", "b")], encoding="klingon")


def test_serializer_surrogates() -> None:
    with pytest.raises(NotScalarValueError):
        form_urlencode([("a\ud800", "b")])
    assert form_urlencode([("a\ud800", "\udfff")], surrogates="replace") == ("a%EF%BF%BD=%EF%BF%BD")


@pytest.mark.parametrize("bad", ["a=b", b"a=b"])
def test_serializer_rejects_strings(bad: object) -> None:
    with pytest.raises(InputTypeError, match=r"^pairs must be an iterable") as info:
        form_urlencode(bad)  # type: ignore[arg-type]
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("bad_pair", [("a",), ("a", "b", "c"), "ab", None, 7])
def test_serializer_rejects_malformed_pairs(bad_pair: object) -> None:
    with pytest.raises(InputTypeError, match=r"^pairs\[1\] must be a \(name, value\) pair"):
        form_urlencode([("ok", "ok"), bad_pair])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("pair", "what"), [((1, "b"), "name"), (("a", None), "value"), ((b"a", "b"), "name")]
)
def test_serializer_names_the_bad_item(pair: tuple[object, object], what: str) -> None:
    with pytest.raises(InputTypeError, match=rf"^pairs\[0\] {what} must be str") as info:
        form_urlencode([pair])  # type: ignore[list-item]
    assert isinstance(info.value, TypeError)


def test_serializer_not_iterable() -> None:
    with pytest.raises(TypeError):
        form_urlencode(42)  # type: ignore[arg-type]


# --- parser ------------------------------------------------------------------------------


def test_parser_basics() -> None:
    assert form_urldecode("a=1&b=2") == [("a", "1"), ("b", "2")]
    assert form_urldecode("a=b=c") == [("a", "b=c")]
    assert form_urldecode("%2B=%2B+") == [("+", "+ ")]
    assert form_urldecode("a%26b=c%3Dd") == [("a&b", "c=d")]
    assert form_urldecode("?a=b") == [("?a", "b")]  # no leading "?" stripping here
    assert form_urldecode(";a=b;c") == [(";a", "b;c")]  # only "&" separates


def test_parser_bytes_input() -> None:
    assert form_urldecode(b"a=%C3%A9&\xff=x") == [("a", "\u00e9"), ("\ufffd", "x")]
    assert form_urldecode(bytearray(b"k=v")) == [("k", "v")]  # type: ignore[arg-type]
    assert form_urldecode(memoryview(b"k=v")) == [("k", "v")]  # type: ignore[arg-type]


def test_parser_lone_surrogates_become_fffd() -> None:
    assert form_urldecode("a\ud800=\udfff") == [("a\ufffd", "\ufffd")]


@pytest.mark.parametrize("bad", [42, None, [("a", "b")]])
def test_parser_wrong_type(bad: object) -> None:
    with pytest.raises(InputTypeError, match=r"^text must be str or bytes") as info:
        form_urldecode(bad)  # type: ignore[arg-type]
    assert isinstance(info.value, TypeError)


# --- the batch paths, each against a pair-by-pair transcription of the spec -----------------


#: WHATWG URL 5.2 and 5.1 as written, pair by pair (``pctfuzz._internal.spec``).
spec_serialize = spec.form_urlencoded_serialize
spec_parse = spec.form_urlencoded_parse


def pair_by_pair(pairs: list[tuple[str, str]], encoding: str) -> str:
    """The reference's own encoder, pair by pair: what the batch path must raise."""
    return "&".join(
        percent_encode(name, "form", encoding=encoding, space_as_plus=True)
        + "="
        + percent_encode(value, "form", encoding=encoding, space_as_plus=True)
        for name, value in pairs
    )


#: Characters next to the stand-ins: "=", "&", "%", the lead byte of U+DCxx, FE/FF
#: look-alikes, astral and CJK.
edge_text = st.text(
    st.sampled_from("a =&%+~\x00\x01\x1f\u00fe\u00ff\ud7ff\ue000\ufffd\U0001f600\u4e2d\u00e9FE")
    | st.sampled_from("\u3042\uff71\u00a5\u203e\u20ac\u0401\uf780\U00020000")
    | st.characters(codec="utf-8"),
    max_size=8,
)


ascii_text = st.text(st.characters(max_codepoint=0x7F), max_size=8)


@settings(deadline=None)
@given(
    st.lists(st.tuples(edge_text, edge_text), max_size=8)
    | st.lists(st.tuples(ascii_text, ascii_text), max_size=8),
    st.sampled_from((*FUZZ_ENCODINGS, "utf-16le", "latin1")),
    st.booleans(),
)
def test_batch_serializer_matches_pair_by_pair(
    pairs: list[tuple[str, str]], encoding: str, loop: bool
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        if loop:  # force the pair-by-pair loop
            patch.setattr(form, "_serialize_at_once", lambda pairs, encoding: None)
        assert form_urlencode(pairs, encoding=encoding) == spec_serialize(pairs, encoding)


#: Pairs that the serializer must refuse, or not: lone surrogates anywhere (and the
#: UTF-8 path's stand-ins U+DCFE, U+DCFF), empty fields, bad labels.
surrogate_text = st.lists(
    st.sampled_from("a \u00e9\ud800\udfff\udcfe\udcff\x1f\x1e")
    | st.characters(codec="utf-8"),
    max_size=6,
).map("".join)  # (st.text() leaves surrogates out)


def _outcome(serialize: Callable[[], str]) -> tuple[str, str]:
    try:
        return ("ok", serialize())
    except PctfuzzError as exc:
        return (type(exc).__name__, str(exc))


@settings(deadline=None, max_examples=1000)
@given(
    st.lists(st.tuples(surrogate_text, surrogate_text), max_size=8),
    st.sampled_from(("utf-8", "ISO-2022-JP", "GBK", "klingon")),
)
def test_serializer_raises_what_pair_by_pair_raises(
    pairs: list[tuple[str, str]], encoding: str
) -> None:
    # _raise_at_the_lone_surrogate: the first bad field's error, as the loop gives it.
    assert _outcome(lambda: form_urlencode(pairs, encoding=encoding)) == _outcome(
        lambda: pair_by_pair(pairs, encoding)
    )


def test_batch_serializer_declines_what_the_loop_must_decide() -> None:
    assert form._serialize_at_once([], "utf-8") is None
    assert form._serialize_at_once([("a", "b"), ("c", 1)], "utf-8") is None
    assert form._serialize_at_once([("a", "b"), "cd"], "utf-8") is None
    assert form._serialize_at_once([("a", "\udcfe")], "utf-8") is None  # a stand-in as data
    assert form._serialize_at_once([("a", "b"), ["c", "d"]], "utf-8") == "a=b&c=d"
    # Other encodings: two C0 controls not in the fields stand in.
    assert form._serialize_at_once([("a b", "~\u00e9")], "windows-1252") == "a+b=%7E%E9"
    assert form._serialize_at_once([("\x00", "\x01\x02")], "shift_jis") == "%00=%01%02"
    every_control = "".join(map(chr, range(0x20)))
    assert form._serialize_at_once([("a", every_control[2:])], "big5") is not None
    assert form._serialize_at_once([("a", every_control[1:])], "big5") is None
    assert form._serialize_at_once([("a", every_control)], "big5") is None
    # ISO-2022-JP: U+005C then a C0 control stands in, never SO, SI or ESC.
    assert form._serialize_at_once([("a", "b")], "iso-2022-jp") == "a=b"
    assert form._serialize_at_once([("\u00a5", "\\")], "iso-2022-jp") == "%1B%28J%5C%1B%28B=%5C"
    assert form._serialize_at_once([("a", every_control[2:])], "iso-2022-jp") is not None
    assert form._serialize_at_once([("a", every_control[1:])], "iso-2022-jp") is None
    no_shifts = every_control.translate({0x0E: None, 0x0F: None, 0x1B: None})
    assert form._serialize_at_once([("a", no_shifts[1:])], "iso-2022-jp") is None
    assert form._serialize_at_once([("a", "b")], "klingon") is None


#: ISO-2022-JP's states and what moves between them: jis0208 (あ, 中, U+2212 -> U+FF0D),
#: Roman (¥, ‾) and what it writes as is or not (\\, ~), errors (é, U+FFFD, an astral),
#: SO, SI and ESC (errors as U+FFFD), the other C0 controls (the stand-ins), "&#;",
#: the private-use stand-ins of ``encoding._iso_2022_jp_ncr``, and "%5C" as text.
iso_2022_jp_text = st.text(
    st.sampled_from("\u3042\u4e2d\u2212\uff0d\u00a5\u203e\\~a \u00e9\ufffd\U0001f600"
                    "\x0e\x0f\x1b\x00\x01\x02\x1f&#;%5C\ue000\ue001")
    | st.characters(max_codepoint=0x1F),
    max_size=10,
)


@settings(deadline=None, max_examples=2000)
@given(st.lists(st.tuples(iso_2022_jp_text, iso_2022_jp_text), max_size=8))
def test_batch_serializer_matches_pair_by_pair_in_iso_2022_jp(
    pairs: list[tuple[str, str]]
) -> None:
    # The stand-ins (U+005C and a control) against a fresh encoder per name and value.
    assert form_urlencode(pairs, encoding="iso-2022-jp") == spec_serialize(pairs, "iso-2022-jp")


#: Bytes around the parser's FF separator: "%FF"/"%ff" and a raw FF (a field
#: decoding to FF), truncated and invalid UTF-8, "&", "=", "+".
parse_soup = st.lists(
    st.sampled_from(
        [b"a", b"&", b"=", b"+", b"%", b"%41", b"%FF", b"%ff", b"\xff", b"\xfe", b"%C3",
         b"%A9", b"\xc3", b"%E2%82", b"%26", b"%3D", b"\xed\xa0\x80", b"%F0%9F%98%80"]
    ),
    max_size=30,
).map(b"".join)


@settings(deadline=None)
@given(parse_soup | st.binary(max_size=40))
def test_batch_parser_matches_pair_by_pair(data: bytes) -> None:
    assert form_urldecode(data) == spec_parse(data)


#: Bytes around the other separators of ``_decode_fields``: their raw and "%HH" forms
#: (FF, FE, F5, C0, C1, DEL, NUL), high bytes, valid and cut UTF-8.
separator_soup = st.lists(
    st.sampled_from(
        [b"a", b"&", b"=", b"%", b"\xff", b"%FF", b"\xfe", b"%fe", b"\xf5", b"%F5", b"\xc0",
         b"%C1", b"\x7f", b"%7F", b"\x00", b"%00", b"\xc3\xa9", b"%C3", b"\xe2\x82"]
    ) | st.binary(min_size=1, max_size=3),
    max_size=40,
).map(b"".join)


@settings(deadline=None, max_examples=1500)
@given(separator_soup)
def test_batch_parser_matches_pair_by_pair_with_every_separator(data: bytes) -> None:
    assert form_urldecode(data) == spec_parse(data)


def test_batch_parser_separators() -> None:
    # FF decoded by a field: FE separates, at once.
    assert form._decode_fields([b"%41", b"%FF", b"\xc3\xa9"]) == ["A", "\ufffd", "\u00e9"]
    # Every high separator raw in a field, and DEL escaped in another: "~" separates.
    # A field with every separator: none is left, the fields go one by one.
    high = bytes(range(0xF5, 0x100)) + b"\xc0\xc1"
    assert form._decode_fields([high, b"%FF", b"%7F"]) == ["\ufffd" * 13, "\ufffd", "\x7f"]
    every = bytes(sorted(form._SEPARATORS))
    assert form._decode_fields([every, b"%41"])[1] == "A"
    assert form._decode_fields([]) == []


def test_batch_parser_each_fallback() -> None:
    # Valid UTF-8 (one decode), invalid UTF-8 (fields decoded with "replace"), and a
    # field decoding to FF (fields percent-decoded one by one).
    assert form_urldecode(b"a=%C3%A9&b=c") == [("a", "\u00e9"), ("b", "c")]
    assert form_urldecode(b"a=%C3&b=\xe2\x82") == [("a", "\ufffd"), ("b", "\ufffd")]
    assert form_urldecode(b"a=%FF&%ff=\xff") == [("a", "\ufffd"), ("\ufffd", "\ufffd")]
    assert form._decode_fields([b"%41", b"%FF", b""]) == ["A", "\ufffd", ""]
