"""Tests for the one-call paths of the legacy encoders: ``encoding.encode_ncr`` and
``encoding.encode_inband`` give the bytes of ``encode_runs`` (the transcription of the
Encoding Standard's loop) with each error as ``&#N;`` (URL Standard 1.3), and
``percent_encode`` equals its chunk-by-chunk definition under every set, custom ones
too (``%26%23N%3B`` for an error whatever the set)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pctfuzz._internal.encoding import (
    INBAND_ERRORS,
    encode_inband,
    encode_ncr,
    encode_runs,
    inband_ncr_bytes,
    lookup,
)
from pctfuzz._internal.formats import FUZZ_ENCODINGS, FUZZ_SETS
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import PercentEncodeSet, get_set

#: What changes the legacy encoders' paths: ISO-2022-JP's SO, SI, ESC and Roman (¥ ‾);
#: & # ; ; kanji, katakana, Latin-1 (U+0080-U+00FF have stand-ins in encode_inband),
#: U+0100, private use (x-user-defined's U+F780), an emoji, U+FFFD and gb18030's
#: corrected code points (errors or not, by encoding).
_SPECIAL = ("\x0e\x0f\x1b\\~\u00a5\u203e\ue000\ue001&#;%+ a0\u4e00\uff71\u0080\u00e9\u00ff"
            "\u0100\uf780\U0001f600\ufffd\ue5e5\u1e3f\ufe10\u9fb4")
TEXTS = st.text(st.one_of(st.sampled_from(_SPECIAL), st.characters(codec="utf-8")),
                max_size=30)


def _joined(label: str, text: str) -> bytes:
    return b"".join(run if isinstance(run, bytes) else b"&#%d;" % run
                    for run in encode_runs(lookup(label), text))


def _by_chunks(value: str, set_name: str | PercentEncodeSet, label: str, plus: bool) -> str:
    """percent_encode by its definition: each byte chunk percent-encoded by the set,
    each error as %26%23N%3B."""
    out = []
    for run in encode_runs(lookup(label), value):
        if isinstance(run, int):
            out.append(f"%26%23{run}%3B")
        else:
            out.append(percent_encode(run, set_name, space_as_plus=plus))
    return "".join(out)


@pytest.mark.parametrize("label", FUZZ_ENCODINGS)
@settings(max_examples=150, deadline=None)
@given(text=TEXTS)
def test_encode_ncr_is_the_runs_with_ncrs(label: str, text: str) -> None:
    assert encode_ncr(lookup(label), text) == _joined(label, text)


# Every code point of every encoding: the exhaustive sweep of what the two Hypothesis
# tests around it sample (about 100 s on two cores), so make test-slow's.
@pytest.mark.slow
@pytest.mark.parametrize("label", FUZZ_ENCODINGS)
def test_encode_ncr_and_inband_on_every_code_point(label: str) -> None:
    every = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
    without_roman = every.replace("\u00a5", "").replace("\u203e", "")
    for text in (every, without_roman):
        expected = _joined(label, text)
        assert encode_ncr(lookup(label), text) == expected
        inband = encode_inband(lookup(label), text)
        assert (inband is None) is _declines(label, text)
        if inband is not None:
            assert inband_ncr_bytes(inband) == expected


def test_iso_2022_jp_escapes_around_jis0208_runs() -> None:
    # WHATWG Encoding 12.2.2: ESC $ B before kanji, ESC ( B before ASCII, an error
    # (written in the ASCII state) and the end.
    assert encode_ncr(lookup("ISO-2022-JP"), "a\u4e00b\u4e00\U0001f600\u4e00") == (
        b"a\x1b$B\x30\x6c\x1b(Bb\x1b$B\x30\x6c\x1b(B&#128512;\x1b$B\x30\x6c\x1b(B")


def _declines(label: str, text: str) -> bool:
    """Where ``encode_inband`` takes the run loop (its docstring)."""
    return label == "UTF-8"


def test_iso_2022_jp_in_band_through_the_roman_state() -> None:
    # WHATWG Encoding 12.2.2: ESC ( J before U+00A5/U+203E (written 0x5C, 0x7E); the
    # Roman state writes ASCII as is and keeps through an error or SO, until a
    # backslash or tilde (ESC ( B) or jis0208 (ESC $ B); ESC ( B at the end.
    assert encode_ncr(lookup("ISO-2022-JP"), "a\u00a5b\u00e9\x0e\u203e~\u4e00\u00a5") == (
        b"a\x1b(J\\b&#233;&#65533;~\x1b(B~\x1b$B\x30\x6c\x1b(J\\\x1b(B")


@pytest.mark.parametrize("label", FUZZ_ENCODINGS)
@settings(max_examples=150, deadline=None)
@given(text=TEXTS)
def test_encode_inband_is_the_runs_with_ncrs(label: str, text: str) -> None:
    inband = encode_inband(lookup(label), text)
    if _declines(label, text):
        assert inband is None
        return
    assert inband is not None
    assert inband_ncr_bytes(inband) == _joined(label, text)
    # Every char up to U+00FF is a byte; the errors are in band, one char each.
    errors = [run for run in encode_runs(lookup(label), text) if isinstance(run, int)]
    assert len("".join(INBAND_ERRORS.findall(inband))) == len(errors)


@pytest.mark.parametrize("label", [e for e in FUZZ_ENCODINGS if e != "UTF-8"])
@settings(max_examples=60, deadline=None)
@given(text=TEXTS, set_index=st.integers(0, len(FUZZ_SETS) - 1), plus=st.booleans())
def test_percent_encode_legacy_paths_match_the_definition(
    label: str, text: str, set_index: int, plus: bool
) -> None:
    set_name = get_set(FUZZ_SETS[set_index]).name
    assert percent_encode(text, set_name, encoding=label, space_as_plus=plus) == _by_chunks(
        text, set_name, label, plus)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, members=st.frozensets(st.integers(0, 0xFF)), plus=st.booleans(),
       label=st.sampled_from([e for e in FUZZ_ENCODINGS if e != "UTF-8"]))
def test_percent_encode_legacy_paths_under_custom_sets(
    text: str, members: frozenset[int], plus: bool, label: str
) -> None:
    # Custom sets may leave bytes >= 0x80, "&", "#", ";" or the digits as they are.
    pes = PercentEncodeSet("custom", members, "test")
    assert percent_encode(text, pes, encoding=label, space_as_plus=plus) == _by_chunks(
        text, pes, label, plus)
