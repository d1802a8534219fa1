"""Tests for the one-call paths of the legacy encoders: ``encoding.encode_ncr`` equals
``encode_runs`` with each error written as ``&#N;`` (URL Standard 1.3), and
``percent_encode`` equals its chunk-by-chunk definition under sets that leave ``& # ;``
as is (``%26%23N%3B`` for an error whatever the set)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pctfuzz.encoding import (
    NCR_MARKS,
    encode_ncr,
    encode_ncr_marked,
    encode_runs,
    lookup,
    ncr_punctuation_is_ascii,
)
from pctfuzz.formats import FUZZ_ENCODINGS, FUZZ_SETS
from pctfuzz.reference import percent_encode
from pctfuzz.sets import get_set

#: What changes the legacy encoders' paths: ISO-2022-JP's SO, SI, ESC, Roman (¥ ‾)
#: and the private-use stand-ins of its one-call path; & # ; ; kanji, katakana,
#: Latin-1, an emoji and U+FFFD (errors or not, by encoding).
_SPECIAL = "\x0e\x0f\x1b\\~\u00a5\u203e\ue000\ue001&#;%+ a0\u4e00\uff71\u00e9\u0100\U0001f600\ufffd"
TEXTS = st.text(st.one_of(st.sampled_from(_SPECIAL), st.characters(codec="utf-8")),
                max_size=30)


def _joined(label: str, text: str) -> bytes:
    return b"".join(run if isinstance(run, bytes) else b"&#%d;" % run
                    for run in encode_runs(lookup(label), text))


def _by_chunks(value: str, set_name: str, label: str, plus: bool) -> str:
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


@pytest.mark.parametrize("label", FUZZ_ENCODINGS)
def test_encode_ncr_on_every_code_point(label: str) -> None:
    every = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
    without_roman = every.replace("\u00a5", "").replace("\u203e", "")
    for text in (every, without_roman):
        assert encode_ncr(lookup(label), text) == _joined(label, text)


def test_iso_2022_jp_escapes_around_jis0208_runs() -> None:
    # WHATWG Encoding 12.2.2: ESC $ B before kanji, ESC ( B before ASCII, an error
    # (written in the ASCII state) and the end.
    assert encode_ncr(lookup("ISO-2022-JP"), "a\u4e00b\u4e00\U0001f600\u4e00") == (
        b"a\x1b$B\x30\x6c\x1b(Bb\x1b$B\x30\x6c\x1b(B&#128512;\x1b$B\x30\x6c\x1b(B")


def test_ncr_punctuation_is_ascii() -> None:
    stateful = {"UTF-8", "ISO-2022-JP", "gb18030"}
    for label in FUZZ_ENCODINGS:
        assert ncr_punctuation_is_ascii(lookup(label)) is (label not in stateful)


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
@given(text=TEXTS)
def test_encode_ncr_marked_marks_only_the_ncrs(text: str) -> None:
    iso = lookup("ISO-2022-JP")
    marked = encode_ncr_marked(iso, text)
    if any(c in text for c in "&#;\u00a5\u203e\ue000\ue001"):
        assert marked is None
        return
    assert marked is not None
    unmarked = marked.translate(bytes.maketrans(bytes(NCR_MARKS.values()), bytes(NCR_MARKS)))
    assert unmarked == encode_ncr(iso, text)
    assert encode_ncr_marked(lookup("Shift_JIS"), text) is None
