"""Minimization at the level of the case (issue 21, part 4): 1-minimal with respect to
the finding's signature, units lowered to the simplest that keep it, bounded by
tries, deterministic; and every stored finding of ``findings/`` is 1-minimal."""

from __future__ import annotations

import dataclasses
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from campaigns import CAP
from hypothesis import given, settings
from hypothesis import strategies as st

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.formats import AnswerDomain, encode_from_bytes, encode_to_bytes_within
from pctfuzz._internal.fuzz.minimize import minimize_case, raw_input_for, same_failure
from pctfuzz._internal.fuzz.recorder import Recorder
from pctfuzz._internal.fuzz.replay import run_case
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.store import FindingStore
from pctfuzz._internal.targets import TARGETS, get_target, resolve_subject

FINDINGS = Path(__file__).resolve().parents[2] / "findings"


def one_removed(case: Case) -> Iterator[Case]:
    """Every case with one pair, or one code point (byte) of one field, removed. Written
    here, apart from ``fuzz.minimize``, so the test does not trust the code it tests."""
    if isinstance(case, FormCase):
        for i in range(len(case.pairs)):
            yield dataclasses.replace(case, pairs=case.pairs[:i] + case.pairs[i + 1:])
        for i, pair in enumerate(case.pairs):
            for side in (0, 1):
                for j in range(len(pair[side])):
                    fields = list(pair)
                    fields[side] = pair[side][:j] + pair[side][j + 1:]
                    pairs = list(case.pairs)
                    pairs[i] = (fields[0], fields[1])
                    yield dataclasses.replace(case, pairs=tuple(pairs))
        return
    name = "text" if isinstance(case, FormParseCase) else "value"
    value = getattr(case, name)
    for j in range(len(value)):
        yield dataclasses.replace(case, **{name: value[:j] + value[j + 1:]})


class TruncatesAt100(UrllibAdapter):
    """urllib's encoder with its answer cut at 100 characters (issue 21's example)."""

    name = "urllib-truncated"

    def encode(self, case: EncodeCase) -> str:
        return super().encode(case)[:100]


def test_chunks_then_single_units_then_simplest() -> None:
    case = EncodeCase("xxxxxxxx~yyyyyyyyy~zzz")
    found = minimize_case(case, lambda c: str(c.value).count("~") == 2)  # type: ignore[union-attr]
    assert found.case == EncodeCase("~~") and found.complete
    # Only the length matters: every unit is lowered to "a".
    found = minimize_case(EncodeCase("\ufffd" * 23 + "GZ"), lambda c: len(c.value) >= 3)  # type: ignore[union-attr]
    assert found.case == EncodeCase("aaa") and found.complete


def test_parameters_and_bytes_are_simplified() -> None:
    case = EncodeCase(b"\xff\xfe%41", "path", "Shift_JIS", True)
    found = minimize_case(case, lambda c: b"%" in c.value)  # type: ignore[operator, union-attr]
    assert found.case == EncodeCase(b"%", "path", "UTF-8", False) and found.complete
    # A unit that matters is lowered only to a unit that keeps the failure.
    found = minimize_case(DecodeCase("Q~"), lambda c: any(not ch.isalnum() for ch in c.value))  # type: ignore[union-attr]
    assert found.case == DecodeCase(" ")


def test_form_pairs_then_fields() -> None:
    case = FormCase((("aaa", "bbb"), ("x~y", "zz"), ("c", "")), "windows-1252")

    def keeps(c: Case) -> bool:
        return isinstance(c, FormCase) and any("~" in n for n, _ in c.pairs)

    found = minimize_case(case, keeps)
    assert found.case == FormCase((("~", ""),), "UTF-8") and found.complete


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40), st.sampled_from(["~", "%", "\ufffd"]), st.integers(1, 3))
def test_result_is_1_minimal(text: str, needle: str, count: int) -> None:
    def keeps(c: Case) -> bool:
        assert isinstance(c, FormParseCase)
        return str(c.text).count(needle) >= count and len(c.text) % 2 == 0

    case = FormParseCase(text + needle * count * 2)
    found = minimize_case(case, keeps)
    assert found.complete and keeps(found.case)
    assert not any(keeps(smaller) for smaller in one_removed(found.case))
    assert minimize_case(case, keeps) == found  # deterministic


def test_bounded_by_tries() -> None:
    calls = 0

    def keeps(c: Case) -> bool:
        nonlocal calls
        calls += 1
        return len(c.value) >= 9_000  # type: ignore[union-attr]

    found = minimize_case(DecodeCase("x" * 10_000), keeps, max_tries=50)
    assert calls == found.tries == 50 and not found.complete


def test_same_signature_is_kept_not_just_a_failure() -> None:
    # A failure of the minimized case is not enough: it must be the same finding (the
    # rule "truncated at 100", or before identity by explanation the first missing
    # unit's class: a %EF%BF%BD triplet where the cut falls).
    from pctfuzz._internal.identity import signature_of

    target = TARGETS["diff_encode"]
    impl = TruncatesAt100()
    case = EncodeCase("Gaaaaaaaaa" + "\ufffd" * 40)
    with pytest.raises(Exception) as info:
        target.check(case, impl)
    signature = signature_of(target.name, info.value, case=case, subject=impl, impl="t",
                             code_under_test=target.code_under_test(impl))
    keeps = same_failure(target, impl, "t", signature)
    found = minimize_case(case, keeps)
    value = found.case.value  # type: ignore[union-attr]
    assert found.complete and keeps(found.case) and len(value) < len(case.value)
    assert not any(keeps(smaller) for smaller in one_removed(found.case))
    # "G" was padding. Issue 21: the signature is the rule (rule=truncated(n=100)), so
    # what stays is an input whose encoding is still longer than the cut.
    assert signature.split("|")[3] == "rule=truncated(n=100)"
    assert len(percent_encode(value, "component")) > 100, value
    # U+FFFD lowered too: U+0800 ("%E0%A0%80") is simpler.
    assert "G" not in value and "\ufffd" not in value and not value.isascii(), value


def test_recorder_saves_a_1_minimal_case_and_its_bytes(tmp_path: Path) -> None:
    target = TARGETS["diff_encode"]
    impl = TruncatesAt100()
    recorder = Recorder(target, impl, "t", tmp_path / "findings", tmp_path / "corpus")
    data = b"\x06\x00Gaaaaaaaaa" + "\ufffd".encode() * 40
    with pytest.raises(Exception) as info:
        target.run_bytes(data, impl)
    recorder.record(data, info.value)
    (finding,) = FindingStore(tmp_path / "findings").iter_findings()
    case = finding.rebuild_case()
    assert finding.minimized and finding.raw_bytes() is not None
    assert target.case_from_bytes(finding.raw_bytes() or b"", impl) == case
    keeps = same_failure(target, impl, "t", finding.signature)
    assert keeps(case) and not any(keeps(smaller) for smaller in one_removed(case))


def test_bytes_within_an_answer_domain_round_trip() -> None:
    domain = AnswerDomain(sets=("path", "query"), encodings=("utf-8", "windows-1252"),
                          value_types=("str",), spaces=(True,))
    case = EncodeCase("~é", "query", "windows-1252", True)
    data = encode_to_bytes_within(case, domain)
    assert encode_from_bytes(data, sets=domain.sets, encodings=domain.encodings,
                             value_types=domain.value_types, spaces=domain.spaces) == case
    with pytest.raises(PctfuzzError, match="answer domain"):
        encode_to_bytes_within(dataclasses.replace(case, set_name="component"), domain)
    # A form field over 255 UTF-8 bytes has no byte form.
    assert raw_input_for(TARGETS["form"], FormCase((("a" * 300, ""),))) is None


def _stored() -> list[Any]:
    return sorted(FindingStore(FINDINGS).iter_findings(), key=lambda f: f.id)


@pytest.mark.parametrize("finding", _stored(), ids=lambda f: f.id)
def test_stored_findings_are_1_minimal(finding: Any) -> None:
    """Each finding of ``findings/`` reproduces its signature, and loses it with any
    one pair or code point removed (``pctfuzz migrate`` re-minimizes old records)."""
    target = get_target(finding.target)
    bound = target.bind(finding.impl)
    case = finding.rebuild_case()
    assert run_case(bound, case, impl_name=finding.impl).signature == finding.signature
    for smaller in one_removed(case):
        run = run_case(bound, smaller, impl_name=finding.impl)
        assert run.signature != finding.signature, (finding.id, smaller)


@pytest.mark.slow
def test_hypothesis_driver_saves_1_minimal_findings(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # Lowercase hex digits: Hypothesis finds the bug in any percent-encoded byte and
    # shrinks it to "a failure"; the driver then keeps the same signature, 1-minimal.
    from hypothesis import find

    from pctfuzz._internal.fuzz.hypothesis_driver import run_hypothesis

    monkeypatch.setenv("PCTFUZZ_TEST_BUGS", "hex")
    broken = "broken_impls:PlantedBugsUrllib"
    # Hypothesis's character tables, built once per process (seconds on a loaded
    # machine), are built here rather than out of the campaign's budget.
    find(TARGETS["diff_encode"].strategy(), lambda case: True)
    findings = tmp_path / "findings"

    def stop_once_saved(_stats: object) -> None:
        # The event (a finding saved, reported at once), then SIGINT: the campaign ends
        # as a stopped one; its budget is only a safety cap (issue 23.16).
        if any(findings.glob("*.json")):
            os.kill(os.getpid(), signal.SIGINT)

    result = run_hypothesis(["diff_encode"], max_time=CAP, impl=broken, findings=findings,
                            progress=stop_once_saved)
    assert result.new_findings, result.summary()
    target = TARGETS["diff_encode"]
    impl = resolve_subject(target, broken)
    for finding in FindingStore(tmp_path / "findings").iter_findings():
        case = finding.rebuild_case()
        keeps = same_failure(target, impl, broken, finding.signature)
        assert finding.minimized and keeps(case), finding
        assert not any(keeps(smaller) for smaller in one_removed(case)), case
        assert target.case_from_bytes(finding.raw_bytes() or b"", impl) == case


def test_migrate_reminimizes_and_keeps_the_record(tmp_path: Path) -> None:
    from pctfuzz._internal.fuzz.migrate import migrate_findings
    from pctfuzz._internal.oracles.faults import FAULTS
    from pctfuzz._internal.store import new_finding

    store = FindingStore(tmp_path)
    target = TARGETS["encode"]
    padded = EncodeCase("Gaaaaaaaaa~" + "\ufffd" * 23, "special-query", "UTF-8", True)
    with pytest.raises(Exception) as info:
        target.check(padded, FAULTS["tilde-encoded"])
    from pctfuzz._internal.identity import signature_of

    signature = signature_of("encode", info.value, case=padded, subject=FAULTS["tilde-encoded"],
                             impl="tilde-encoded")
    old = new_finding("encode", "violation", info.value, case=padded, signature=signature,
                      raw_input=b"padded", impl="tilde-encoded", minimized=True)
    store.record(old)
    store.add_hits(old.id, 6)
    store.update_status(old.id, "known-divergence", note="seen in 2019")
    # A record whose case now fails with another signature is left alone.
    other = new_finding("decode", "violation", info.value, case=DecodeCase("%"),
                        signature="decode|violation|decode-robustness|x",
                        impl="decode-raises")
    store.record(other)
    before = store.path_for(other).read_bytes()

    outcomes = {m.path.name: m for m in migrate_findings(tmp_path)}
    assert outcomes[old.file_name].outcome == "minimized", outcomes
    assert outcomes[other.file_name].outcome == "kept", outcomes
    assert "fails differently" in outcomes[other.file_name].why
    assert store.path_for(other).read_bytes() == before
    renewed = store.get(old.id)
    assert (renewed.hits, renewed.status, renewed.note, renewed.first_seen) == (
        7, "known-divergence", "seen in 2019", old.first_seen)
    assert renewed.rebuild_case() == EncodeCase("~", "special-query", "UTF-8", False)
    assert renewed.minimized and renewed.raw_bytes() == b"\x03\x00~"
    # Once 1-minimal, a second migration has nothing to do.
    assert [m.outcome for m in migrate_findings(tmp_path)].count("current") == 1
    # --reidentify: the record whose identity changed is rewritten under its signature
    # now (a new id), its hits and status kept; the old file goes.
    store.update_status(other.id, "known-divergence")
    (moved,) = [m for m in migrate_findings(tmp_path, reidentify=True)
                if m.outcome == "migrated"]
    assert moved.path.name == other.file_name and not moved.path.exists()
    assert moved.new_path is not None
    renamed = store.load(moved.new_path)
    # (format 4: the decoder's refusal is named by its rule, under the operation)
    assert renamed.signature.startswith("decode|violation|decode|rule=refuses(input=invalid-")
    assert (renamed.status, renamed.hits) == ("known-divergence", 1)


def _two_behaviours(value: str) -> bytes:
    """A decoder that keeps lowercase escapes (one behaviour) and drops every NUL it
    decodes (another)."""
    import re as _re
    from urllib.parse import unquote_to_bytes
    data = b"".join(unquote_to_bytes(p) if i % 2 else p.encode("utf-8", "surrogatepass")
                    for i, p in enumerate(_re.split("(%[0-9A-F]{2})", value)))
    return data.replace(b"\x00", b"")


def test_an_unknown_failure_keeps_a_case_a_known_one_does_not() -> None:
    """With ``unknown``, a smaller case that shows another failure of the same kind and
    check keeps it when no finding has that failure yet, so a behaviour mixed with
    others shrinks to what is new in it; never to a known finding's, nor to a crash."""
    from pctfuzz._internal.identity import signature_of
    from pctfuzz.oracles import function_adapter

    impl = function_adapter("t2", decode=_two_behaviours)
    target = TARGETS["diff_decode"]

    def signature(case: Case) -> str:
        with pytest.raises(Exception) as info:
            target.check(case, impl)
        return signature_of(target.name, info.value, case=case, subject=impl, impl="t2",
                            code_under_test=target.code_under_test(impl))

    mixed, lower, nul = DecodeCase("%aa%00x"), DecodeCase("%aa"), DecodeCase("%00")
    # the class of a long input where the two mix, which neither shows alone
    start = "diff_decode|divergence|decode|seg=ascii;diff=changed|impl=t2"
    known = signature(lower)
    assert len({start, known, signature(nul)}) == 3
    strict = same_failure(target, impl, "t2", start)
    loose = same_failure(target, impl, "t2", start, unknown=lambda s: s != known)
    assert not strict(nul) and loose(nul)
    assert not loose(lower) and not loose(DecodeCase("a"))
    found = minimize_case(mixed, loose)
    assert found.case == nul
