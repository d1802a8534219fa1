"""A case as its parts (``pctfuzz._internal.checks.parts``): a case whose answer is its
pairs' (a form's) or its runs' (a decoder's, an encoder's) answers put together, each
part that differs alone a known finding's hit, is that finding's hit, so two known
findings are no third one together."""

from __future__ import annotations

import unicodedata
from urllib.parse import parse_qsl

import pytest

from pctfuzz._internal.cases import FormCase, FormParseCase
from pctfuzz._internal.checks import differential
from pctfuzz._internal.checks.parts import joined, parts
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.targets import get_target
from pctfuzz._internal.violations import Divergence
from pctfuzz.oracles import function_adapter


def _parse(text: str) -> list[tuple[str, str]]:
    """Two behaviours no rule names: a non-ASCII digit in a name read as its ASCII
    digit (int() normalizing a name), a TAB in a value written as a space; pairs
    grouped by name (``pairs_order(grouped)``), and a pair whose name holds NUL
    dropped. (The tuning hold-out's nested-name parser, in short.)"""
    groups: dict[str, list[str]] = {}
    for name, value in parse_qsl(text, keep_blank_values=True):
        if "\x00" in name:
            continue
        name = "".join(str(unicodedata.digit(c)) if not c.isascii() and c.isdigit() else c
                       for c in name)
        groups.setdefault(name, []).append(value.replace("\t", " "))
    return [(name, value) for name, values in groups.items() for value in values]


PARSER = function_adapter("test-parts", form_parse=_parse)
DIGIT = "field=name;unit=non-ascii-Nd;diff=changed"
TAB = "field=value;unit=0x09;diff=changed"


def _known_both() -> object:
    bound = get_target("diff_form_parse").bind(PARSER)
    for text, klass in (("\u0661=", DIGIT), ("a=\t", TAB),
                        ("b=1&a=2&b=3", "rule=pairs_order(mode=grouped)")):
        with pytest.raises(Divergence) as info:
            bound.check(FormParseCase(text))
        assert info.value.difference == klass
        if info.value.behaviour:
            bound.known.add("form-parse", info.value.behaviour, info.value.case)
        else:
            bound.known.add_unexplained("form-parse", klass)
    return bound


#: Inputs of known findings together that, without their parts, were a new class
#: each ('repeated-name', a letter's): hold-out 12's nested-name parser made four so.
TOGETHER = ["=\ud800&a=&\u0661=", "k=&=\ud800&k=&\u0661="]


@pytest.mark.parametrize(("text", "klass"), [(TOGETHER[0], DIGIT), (TOGETHER[1], DIGIT),
                                             ("y=a\tb&\u0663=", TAB),
                                             ("\u0664\u0665=\t&b=2&\u0664\u0665=", DIGIT)])
def test_two_known_findings_together_are_no_third(text: str, klass: str) -> None:
    bound = _known_both()
    with pytest.raises(Divergence) as info:
        bound.check(FormParseCase(text))  # type: ignore[attr-defined]
    assert info.value.difference == klass


def test_a_part_no_known_finding_explains_leaves_the_case_whole() -> None:
    """A new behaviour's pair beside a known one's: the parts do not name the case (it
    is named whole, as before; named by the new part, a serializer's harmless behaviour
    was three findings on the held-out hold-out, two of them mixed)."""
    bound = _known_both()
    case = FormParseCase("q=\t&a\x00=1")
    adapter = bound.subject  # type: ignore[attr-defined]
    outcome = differential.run_impl("form-parse", case, adapter)
    assert outcome is not None
    differential._as_parts("form-parse", case, adapter, (outcome, outcome, outcome),
                           bound.known, settings=bound.settings)  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", TOGETHER)
def test_without_parts_the_two_together_were_a_class_of_their_own(
        monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """(the test above is no tautology)"""
    bound = _known_both()
    monkeypatch.setattr(differential, "_as_parts", lambda *a, **k: None)
    with pytest.raises(Divergence) as info:
        bound.check(FormParseCase(text))  # type: ignore[attr-defined]
    assert info.value.difference not in (DIGIT, TAB)


def test_parts_and_their_answers_put_together() -> None:
    assert [p.text for p in parts(FormParseCase("a=1&&b"))] == ["a=1", "", "b"]  # type: ignore[union-attr, attr-defined]
    assert parts(FormParseCase("a=1")) is None
    pairs = parts(FormCase((("a", "1"), ("b", ""))))
    assert pairs is not None and [p.pairs for p in pairs] == [(("a", "1"),), (("b", ""),)]  # type: ignore[attr-defined]
    assert joined(FormCase((("a", "1"), ("b", ""))), [Outcome("a=1"), Outcome("b=")]) == "a=1&b="
    assert joined(FormParseCase("a&b"), [Outcome([("a", "")]), Outcome([])]) == [("a", "")]
    assert joined(FormParseCase("a&b"), [Outcome([]), Outcome(error=ValueError())]) is None


def _int_decode(text: str) -> str:
    """Hold-out 15's int()-reading decoder, in short: each ``%`` and the two characters
    after it read as ``chr(int(xx, 16))`` (every escape latin-1, a sign taken), every
    other character copied."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "%":
            out.append(chr(int(text[i + 1:i + 3], 16)))
            i += 3
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


INT_DECODER = function_adapter("test-int-decode", decode=_int_decode)


@pytest.mark.parametrize(("value", "rule"), [("%aa%+a", "latin1_fallback"),
                                             ("%C3a%+a", "latin1_fallback"),
                                             ("x%+a%C3", "signed_escapes")])
def test_a_decoders_runs_of_two_known_findings_are_no_third(value: str, rule: str) -> None:
    """Two rules that do not compose (latin-1 reads the escapes anew): their input
    together was a new class (``seg=alnum;diff=changed``); cut into runs before a
    ``%``, each run a known finding's hit, it is the first run's."""
    from pctfuzz._internal.cases import DecodeCase

    bound = get_target("diff_decode").bind(INT_DECODER)
    for alone in ("%aa", "%+a"):
        with pytest.raises(Divergence) as info:
            bound.check(DecodeCase(alone))  # type: ignore[attr-defined]
        assert info.value.behaviour is not None, info.value.difference
        bound.known.add("decode", info.value.behaviour, info.value.case)  # type: ignore[attr-defined]
    with pytest.raises(Divergence) as info:
        bound.check(DecodeCase(value))  # type: ignore[attr-defined]
    assert (info.value.behaviour or {}).get("rule") == rule, info.value.difference


def test_runs_of_a_decoders_and_an_encoders_text() -> None:
    from pctfuzz._internal.cases import DecodeCase, EncodeCase

    runs = parts(DecodeCase("ab%C3%A9c%41%+1"))
    assert runs is not None and [r.value for r in runs] == ["ab", "%C3%A9c", "%41", "%+1"]  # type: ignore[attr-defined]
    assert parts(DecodeCase("%C3%A9")) is None  # (no cut before a continuation byte)
    chars = parts(EncodeCase("a\ud83d\ude00b", "component"))
    assert chars is not None and [r.value for r in chars] == ["a", "\ud83d\ude00", "b"]  # type: ignore[attr-defined]
    assert joined(DecodeCase("ab"), [Outcome(b"a"), Outcome(b"b")]) == b"ab"
