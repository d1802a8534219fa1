"""The breadcrumb (``checks.breadcrumb``): the question a harness is asking its
implementation, on disk for the campaign, so a process that dies in a question (not on
libFuzzer's input) is recorded with that question (``fuzz.libfuzzer.record_death``);
the store never trades an input seen to stop the process for one that was not
(``store.seen_to_stop``); and replay runs such a crash in a process of its own
(``fuzz.replay.run_case(isolated=True)``). The campaign itself:
``tests/integration/test_native_crash.py``."""

from __future__ import annotations

import base64
import faulthandler
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar
from urllib.parse import quote

import pytest
from crash_impls import DEADLY, make_adapter
from hypothesis import given
from hypothesis import strategies as st

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase
from pctfuzz._internal.checks.breadcrumb import Breadcrumb, Trail, read_breadcrumb
from pctfuzz._internal.checks.profile import run_impl
from pctfuzz._internal.cli.corpus import _finding_inputs
from pctfuzz._internal.formats import AnswerDomain, encode_to_bytes_within
from pctfuzz._internal.fuzz.libfuzzer import record_death
from pctfuzz._internal.fuzz.protocol import HarnessSettings
from pctfuzz._internal.fuzz.replay import replay_paths, run_case
from pctfuzz._internal.fuzz.stats import TargetStats
from pctfuzz._internal.identity import stop_signature
from pctfuzz._internal.operations import FORM_SERIALIZE
from pctfuzz._internal.store import Finding, FindingStore, new_stop_finding, seen_to_stop
from pctfuzz._internal.targets import TARGETS
from pctfuzz.oracles import function_adapter

IMPL = "crash_impls:adapter"
COMPONENT = AnswerDomain(("component",))


def enc(value: str) -> EncodeCase:
    """An encode case of the adapter's one set, as the byte format spells it."""
    return EncodeCase(value, "component", "UTF-8")


BEL = enc(DEADLY)


@pytest.fixture
def no_fault_dump() -> Iterator[None]:
    """The SIGSEGV of a forked child without the traceback pytest's faulthandler would
    print of it (the child's death is the point)."""
    enabled = faulthandler.is_enabled()
    faulthandler.disable()
    try:
        yield
    finally:
        if enabled:
            faulthandler.enable(file=sys.__stderr__)


def _ask_in_a_child(path: Path) -> int:
    """The wait status of a forked harness that keeps its breadcrumb at ``path`` and asks
    BEL, the question that kills it (unless it knows it killed one before)."""
    pid = os.fork()
    if pid == 0:
        try:
            Breadcrumb(path, COMPONENT).arm()
            run_impl("encode", BEL, make_adapter())
        finally:
            os._exit(0)
    return os.waitpid(pid, 0)[1]


@pytest.fixture
def armed(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A breadcrumb armed for the test, disarmed after it."""
    crumb = Breadcrumb(tmp_path / "asking.crumb", COMPONENT).arm()
    try:
        yield crumb
    finally:
        Breadcrumb.disarm()


def test_a_question_is_said_until_it_is_answered(tmp_path: Path) -> None:
    path = tmp_path / "asking.crumb"
    crumb = Breadcrumb(path, COMPONENT)
    assert read_breadcrumb(path) == Trail(COMPONENT)
    case = EncodeCase("a\ud800\x07", "component", "UTF-8", True)
    crumb.ask("encode", case)
    assert read_breadcrumb(path) == Trail(COMPONENT, ("encode", case))
    crumb.answered()
    assert read_breadcrumb(path) == Trail(COMPONENT)
    # a question longer than the map grows it; a bytes form, no domain
    big = FormCase(tuple((f"n{i}", "v" * 200) for i in range(2048)))
    other = Breadcrumb(tmp_path / "other", None)
    other.ask(FORM_SERIALIZE.name, big)
    assert read_breadcrumb(tmp_path / "other") == Trail(None, (FORM_SERIALIZE.name, big))


def test_any_question_reads_back_as_it_was_asked(tmp_path: Path) -> None:
    """Every case of every differential target's strategy (lone surrogates, bytes,
    legacy encodings, forms), written and read back: the same case."""
    crumb = Breadcrumb(tmp_path / "asking.crumb", None)

    @given(st.one_of(*(target.cases() for target in TARGETS.values() if target.differential)))
    def asked(case: Case) -> None:
        crumb.ask(case.type, case)
        assert read_breadcrumb(crumb.path) == Trail(None, (case.type, case))

    asked()


@pytest.mark.parametrize("damage", ["cut", "garbage", "not-a-check", "wrong-case"])
def test_a_question_that_cannot_be_read_is_torn(tmp_path: Path, damage: str) -> None:
    """A length that names no readable question: the input is not known (``torn``),
    never a question made up."""
    path = tmp_path / "asking.crumb"
    crumb = Breadcrumb(path, COMPONENT)
    crumb.ask("decode", DecodeCase("%zz"))
    data = bytearray(path.read_bytes())
    size = int.from_bytes(data[0:8], "little")
    base = 16 + int.from_bytes(data[8:16], "little")
    question = bytes(data[base:base + size])
    if damage == "cut":
        data[0:8] = (len(data) + 1).to_bytes(8, "little")
    elif damage == "garbage":
        data[base:base + 3] = b"\xff\x00{"
    else:  # the same length: an operation that is none, or another's case
        changed = question.replace(b'"decode"', b'"recode"' if damage == "not-a-check"
                                   else b'"encode"', 1)
        assert len(changed) == size and changed != question
        data[base:base + size] = changed
    path.write_bytes(bytes(data))
    assert read_breadcrumb(path) == Trail(COMPONENT, torn=True)


def test_no_breadcrumb_and_no_file_say_nothing(tmp_path: Path) -> None:
    assert read_breadcrumb(tmp_path / "missing") is None
    (tmp_path / "short").write_bytes(b"\x00" * 5)
    assert read_breadcrumb(tmp_path / "short") is None
    (tmp_path / "dir").mkdir()
    assert read_breadcrumb(tmp_path / "dir") is None
    (tmp_path / "link").symlink_to(tmp_path / "short")
    assert read_breadcrumb(tmp_path / "link") is None


def test_run_impl_writes_each_question_but_the_input_s_own(armed: Breadcrumb) -> None:
    asked: list[tuple[str, object]] = []
    write = armed.ask
    armed.ask = lambda check, case: (asked.append((check, case)), write(check, case))[1]
    adapter = make_adapter()
    armed.primary = True
    assert run_impl("encode", enc("a"), adapter) is not None
    assert asked == [] and not armed.primary  # the input's own case: libFuzzer has it
    second = enc("b*")
    assert run_impl("encode", second, adapter) is not None
    assert asked == [("encode", second)]
    assert read_breadcrumb(armed.path) == Trail(COMPONENT)  # answered: cleared
    refused = EncodeCase("x", "path")  # (Unsupported: a set it does not declare)
    assert run_impl("encode", refused, adapter) is None
    assert read_breadcrumb(armed.path) == Trail(COMPONENT)


def test_a_base_exception_out_of_the_implementation_leaves_the_question(
        armed: Breadcrumb) -> None:
    """``SystemExit`` out of the implementation ends the harness: the question is what
    ended it."""
    class Exits:
        def encode(self, case: EncodeCase) -> str:
            raise SystemExit(3)

    case = enc("q")
    with pytest.raises(SystemExit):
        run_impl("encode", case, Exits())  # type: ignore[arg-type]
    assert read_breadcrumb(armed.path) == Trail(COMPONENT, ("encode", case))


@pytest.mark.usefixtures("no_fault_dump")
def test_a_process_that_dies_in_a_question_leaves_it_on_disk(tmp_path: Path) -> None:
    """The map is shared: what the process wrote before its SIGSEGV is in the file."""
    path = tmp_path / "asking.crumb"
    status = _ask_in_a_child(path)  # the harness: one question, which kills it
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSEGV
    assert read_breadcrumb(path) == Trail(COMPONENT, ("encode", BEL))


@pytest.mark.usefixtures("no_fault_dump")
def test_a_restarted_process_does_not_ask_a_question_that_killed_one_before(
        tmp_path: Path) -> None:
    """The restarted harness would die at the same question of its first naming (the
    set probe's BEL: 55 executions a second on a held-out decoder): the question is
    answered as refused, without the implementation, in this process and the next."""
    path = tmp_path / "asking.crumb"
    for attempt in range(2):  # the first dies asking it, the second knows not to ask
        assert os.WIFSIGNALED(_ask_in_a_child(path)) == (attempt == 0)
    for _ in range(2):  # the next processes: it is known, the rest is asked
        Breadcrumb(path, COMPONENT).arm()
        try:
            got = run_impl("encode", BEL, make_adapter())
            assert got is not None and type(got.error).__name__ == "AskedBefore"
            other = run_impl("encode", enc("b*"), make_adapter())
            assert other is not None and not other.raised
        finally:
            Breadcrumb.disarm()
    assert (tmp_path / "asking.crumb.crashed").read_bytes().count(b"\n") == 1


def test_the_first_question_of_an_input_is_its_own_case(armed: Breadcrumb) -> None:
    """How the driver tells libFuzzer's input apart (``test_one_input`` sets
    ``primary``): the differential check asks the input's own case first, and the
    questions of its naming after it, each written (the set probe asks each character
    alone, BEL too: an adapter that survives it)."""
    asked: list[object] = []
    write = armed.ask
    armed.ask = lambda check, case: (asked.append(case.value), write(check, case))[1]
    calls: list[str] = []

    def encode(text: str) -> str:
        calls.append(text)
        return quote(text, safe="")

    adapter = function_adapter("logs", encode=encode, sets={"c": "component"})
    bound = TARGETS["diff_encode"].bind(adapter)
    armed.primary = True
    with pytest.raises(Exception, match="encode"):
        bound.run(encode_to_bytes_within(enc("a*"), COMPONENT))
    assert calls[0] == "a*" and asked == calls[1:]
    assert "!" in asked and DEADLY in asked  # the set probe's


def _artifact(tmp_path: Path, case: EncodeCase) -> Path:
    path = tmp_path / "crash-0123"
    path.write_bytes(encode_to_bytes_within(case, COMPONENT))
    return path


def test_record_death_records_the_question_the_process_died_in(tmp_path: Path) -> None:
    path = tmp_path / "asking.crumb"
    Breadcrumb(path, COMPONENT).ask("encode", BEL)
    named = enc("a*b")
    stats = TargetStats("diff_encode")
    record_death("diff_encode", "crash", _artifact(tmp_path, named), IMPL,
                 tmp_path / "findings", stats, breadcrumb=path)
    (finding,) = FindingStore(tmp_path / "findings").iter_findings()
    assert stats.new_findings == [finding.id]
    assert finding.rebuild_case() == BEL and finding.kind == "crash"
    assert finding.signature == stop_signature("diff_encode", "crash", IMPL)
    raw = finding.raw_bytes()
    assert raw is not None and COMPONENT.encode_case(raw) == BEL  # as the harness reads it
    assert finding.evidence["died_on"] == "question"
    assert COMPONENT.encode_case(base64.b64decode(finding.evidence["while_checking"])) == named
    assert seen_to_stop(finding) and finding.native_crash


def test_record_death_reads_libfuzzer_s_input_within_the_domain(tmp_path: Path) -> None:
    """No question asked: libFuzzer's input, read as the harness read it (within the
    adapter's sets: the byte that picks ``component`` among them names another set among
    all of them), seen to stop the process."""
    path = tmp_path / "asking.crumb"
    Breadcrumb(path, COMPONENT)
    named = enc("a*b")
    artifact = _artifact(tmp_path, named)
    assert TARGETS["diff_encode"].from_bytes(artifact.read_bytes()) != named
    record_death("diff_encode", "crash", artifact, IMPL, tmp_path / "findings",
                 TargetStats("diff_encode"), breadcrumb=path)
    (finding,) = FindingStore(tmp_path / "findings").iter_findings()
    assert finding.rebuild_case() == named and finding.raw_bytes() == artifact.read_bytes()
    assert finding.evidence["died_on"] == "input" and seen_to_stop(finding)


def test_record_death_without_a_breadcrumb_does_not_say_who_died(tmp_path: Path) -> None:
    artifact = _artifact(tmp_path, enc("a"))
    record_death("diff_encode", "crash", artifact, IMPL, tmp_path / "findings",
                 TargetStats("diff_encode"), breadcrumb=tmp_path / "never-written")
    (finding,) = FindingStore(tmp_path / "findings").iter_findings()
    assert "died_on" not in finding.evidence and not seen_to_stop(finding)


def test_a_death_in_a_question_before_any_input_is_still_recorded(tmp_path: Path) -> None:
    """A process that dies before libFuzzer ran an input has no crash file; a question
    on its breadcrumb is the input all the same."""
    path = tmp_path / "asking.crumb"
    Breadcrumb(path, COMPONENT).ask("encode", BEL)
    stats = TargetStats("diff_encode")
    record_death("diff_encode", "crash", None, IMPL, tmp_path / "findings", stats,
                 breadcrumb=path)
    (finding,) = FindingStore(tmp_path / "findings").iter_findings()
    assert finding.rebuild_case() == BEL and "while_checking" not in finding.evidence
    assert not stats.errors


def test_a_timeout_keeps_libfuzzer_s_input(tmp_path: Path) -> None:
    """A timeout is of the whole input (its naming included): whatever question was
    being asked when it struck, the input is libFuzzer's."""
    path = tmp_path / "asking.crumb"
    Breadcrumb(path, COMPONENT).ask("encode", BEL)
    named = enc("a*b")
    record_death("diff_encode", "timeout", _artifact(tmp_path, named), IMPL,
                 tmp_path / "findings", TargetStats("diff_encode"), breadcrumb=path)
    (finding,) = FindingStore(tmp_path / "findings").iter_findings()
    assert finding.kind == "timeout" and finding.rebuild_case() == named


@pytest.mark.parametrize(("first", "then"), [("timeout", "oom"), ("oom", "timeout")])
def test_a_timeout_and_an_oom_of_one_adapter_are_one_finding(tmp_path: Path, first: str,
                                                              then: str) -> None:
    """One input that allocates without bound is stopped by whichever limit it meets
    first (hold-out 15's parser: a timeout finding and an oom finding): the second is a
    hit of the first, its own kind kept in its evidence. A crash stays apart."""
    stats = TargetStats("diff_encode")
    for kind, value in ((first, "a*b"), (then, "ab*"), ("crash", "*")):
        record_death("diff_encode", kind, _artifact(tmp_path, enc(value)), IMPL,
                     tmp_path / "findings", stats)
    found = {f.kind: f for f in FindingStore(tmp_path / "findings").iter_findings()}
    assert sorted(found) == sorted([first, "crash"]) and found[first].hits == 2


def _stop(raw: bytes, case: EncodeCase, evidence: dict[str, object] | None) -> Finding:
    return new_stop_finding(target=TARGETS["diff_encode"], kind="crash", raw_input=raw,
                            case=case, impl=IMPL, evidence=evidence)


def test_the_store_never_trades_an_input_seen_to_crash_for_one_that_was_not(
        tmp_path: Path) -> None:
    store = FindingStore(tmp_path)
    crashed = _stop(b"\x00\x00" + b"x" * 10 + b"\x07", enc("x" * 10 + "\x07"),
                    {"died_on": "question"})
    unknown = _stop(b"\x00\x00*", enc("*"), None)
    store.record(crashed)
    kept, _ = store.record(unknown)
    assert kept.hits == 2 and kept.case == crashed.case
    # an input seen to crash replaces one that was not, however long
    other = FindingStore(tmp_path / "other")
    other.record(unknown)
    kept, _ = other.record(crashed)
    assert kept.case == crashed.case
    # and between two seen to crash, the smaller one
    small = _stop(b"\x00\x00\x07", BEL, {"died_on": "input"})
    kept, _ = store.record(small)
    assert kept.case == BEL.to_json() and kept.hits == 3


@pytest.mark.usefixtures("no_fault_dump")
def test_replay_runs_a_native_crash_in_a_process_of_its_own(tmp_path: Path) -> None:
    """The replay survives the SIGSEGV, and the death is the finding's signature: it
    reproduces. The same finding's case that no longer crashes passes in the child."""
    store = FindingStore(tmp_path)
    crash = _stop(b"\x00\x00\x07", BEL, {"died_on": "question"})
    store.record(crash)
    (verdict,) = replay_paths([store.path_for(crash)], impl=IMPL)
    assert verdict.outcome == "reproduces", verdict
    assert "died of SIGSEGV" in verdict.evidence
    bound = TARGETS["diff_encode"].bind(make_adapter())
    run = run_case(bound, enc("a"), 5.0, impl_name=IMPL, isolated=True)
    assert run.signature is None and run.supported
    # (a difference is named: the set probe asks BEL, and the child dies of it)
    run = run_case(bound, enc("*"), 5.0, impl_name=IMPL, isolated=True)
    assert run.signature == crash.signature
    survives = TARGETS["diff_encode"].bind(make_adapter(dies=False))
    run = run_case(survives, enc("*"), 5.0, impl_name=IMPL,
                   isolated=True)
    assert run.signature is not None and "|divergence|" in run.signature
    assert run == run_case(survives, enc("*"), 5.0, impl_name=IMPL)


def test_an_isolated_run_that_hangs_in_native_code_is_a_timeout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The alarm that ends a run cannot stop code that never returns to Python: the
    child is killed past its time."""
    import time

    from pctfuzz._internal.fuzz import replay

    monkeypatch.setattr(replay, "_CHILD_GRACE", 0.5)

    class Sleeps:
        sets: ClassVar[dict[str, str]] = {"c": "component"}

        def encode(self, case: EncodeCase) -> str:
            signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])  # (as C code would)
            time.sleep(30)
            return "x"

    bound = TARGETS["diff_encode"].bind(Sleeps())  # type: ignore[arg-type]
    started = time.monotonic()
    run = run_case(bound, enc("a"), 0.5, impl_name="x", isolated=True)
    assert run.timed_out and run.signature == stop_signature("diff_encode", "timeout", "x")
    assert time.monotonic() - started < 10


def test_an_isolated_run_that_takes_more_memory_than_the_limit_is_an_oom() -> None:
    """A replayed stop finding whose input makes its library allocate without bound is
    killed once it holds more than the memory limit (libFuzzer's ``-rss_limit_mb``): an
    oom, not the machine's memory taken (a held-out parser's timeout finding, replayed,
    took 24 GiB before its timeout)."""
    import time

    class Grows:
        sets: ClassVar[dict[str, str]] = {"c": "component"}

        def encode(self, case: EncodeCase) -> str:
            held = []
            while True:  # 8 MiB at a time, written (resident), never let go
                held.append(b"x" * (8 << 20))
                time.sleep(0.01)

    bound = TARGETS["diff_encode"].bind(Grows())  # type: ignore[arg-type]
    run = run_case(bound, enc("a"), 600.0, impl_name="x", isolated=True, rss_limit_mb=64)
    assert run.signature == stop_signature("diff_encode", "oom", "x"), run
    assert "more than 64 MiB" in run.evidence


def test_a_merge_keeps_no_input_that_stops_the_process(tmp_path: Path) -> None:
    store = FindingStore(tmp_path)
    store.record(_stop(b"\x00\x00\x07", BEL, {"died_on": "input"}))
    assert _finding_inputs(tmp_path) == {}


def test_the_campaign_hands_the_breadcrumb_to_the_harness() -> None:
    settings = HarnessSettings(impl=IMPL, breadcrumb="/tmp/x/asking.crumb")
    env = settings.to_env({"PCTFUZZ_BREADCRUMB": "/elsewhere"})
    assert HarnessSettings.from_env(env) == settings
    assert "PCTFUZZ_BREADCRUMB" not in HarnessSettings(impl=IMPL).to_env(env)


@pytest.mark.usefixtures("no_fault_dump")
def test_the_campaign_hands_a_killing_question_to_the_next_process(tmp_path: Path) -> None:
    """Each restart of a harness gets a new artifacts folder, so a new breadcrumb file:
    the campaign reads the questions the dead process's file lists or was asking
    (``crashed_questions``) and lists them beside the next one's (``remember_crashed``)."""
    from pctfuzz._internal.checks.breadcrumb import crashed_questions, remember_crashed

    first, second = tmp_path / "1" / "asking.crumb", tmp_path / "2" / "asking.crumb"
    first.parent.mkdir()
    second.parent.mkdir()
    assert os.WIFSIGNALED(_ask_in_a_child(first))
    questions = crashed_questions(first)
    assert len(questions) == 1
    remember_crashed(second, questions)
    Breadcrumb(second, COMPONENT).arm()
    try:
        got = run_impl("encode", BEL, make_adapter())  # (would kill this process)
        assert got is not None and type(got.error).__name__ == "AskedBefore"
    finally:
        Breadcrumb.disarm()
    assert crashed_questions(second) == questions  # (and handed on again)


def test_the_campaign_s_end_asks_nothing_of_an_implementation_that_crashed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The merge of a campaign's new divergences into named findings checks their cases
    again, and naming asks the set probe's character that killed a harness: with a
    native crash of the implementation in the store it is not done (the first campaign
    on such an adapter exited 139 at its end)."""
    from pctfuzz._internal.fuzz import migrate
    from pctfuzz._internal.store import new_finding

    store = FindingStore(tmp_path)
    store.record(_stop(b"\x00\x00\x07", BEL, {"died_on": "question"}))
    divergence = new_finding("diff_encode", "divergence", None,
                             signature=f"diff_encode|divergence|encode|unit=0x21;diff=encoded|"
                             f"impl={IMPL}", case=enc("!").to_json(), raw_input=b"\x00\x00!",
                             impl=IMPL)
    stored, _ = store.record(divergence)

    def no_binding(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the merge bound the implementation")

    monkeypatch.setattr(migrate, "bound_for", no_binding)
    assert migrate.merge_into_named(tmp_path, IMPL, [stored.id]) == []
