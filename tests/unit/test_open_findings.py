"""Open findings, triage and accept: the statuses, the optional record fields, the
replay of the open findings (``replay.replay_open``) and how SARIF, JUnit and the
results document report it, and the TOML that ``pctfuzz accept`` writes."""

from __future__ import annotations

import json
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks import differential
from pctfuzz._internal.cli import main
from pctfuzz._internal.cli.accept import toml_string
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.fuzz.replay import replay_open
from pctfuzz._internal.fuzz.stats import CampaignResult, TargetStats
from pctfuzz._internal.reports import fuzz_results, to_junit, to_sarif
from pctfuzz._internal.store import (
    FINDING_STATUSES,
    Finding,
    FindingFormatError,
    FindingStore,
    new_finding,
)

SUPPORT = Path(__file__).resolve().parents[1] / "support"
IMPL = "broken_impls:TildeEncodingUrllib"


def _finding(value: str = "a~b") -> Finding:
    """A real divergence of the tilde-encoding adapter, recorded against ``IMPL``."""
    from broken_impls import TildeEncodingUrllib

    case = EncodeCase(value, "component")
    with pytest.raises(Exception) as caught:
        differential.check_encode(case, TildeEncodingUrllib())
    return new_finding("diff_encode", "divergence", caught.value, case=case, impl=IMPL)


@pytest.fixture
def store(tmp_path: Path) -> FindingStore:
    store = FindingStore(tmp_path / "findings")
    store.record(_finding())
    return store


def test_triage_statuses_and_optional_fields_round_trip(store: FindingStore) -> None:
    assert {"new", "known-divergence", "false-positive", "adapter-bug", "wont-fix",
            "fixed"} == FINDING_STATUSES
    (finding,) = store.iter_findings()
    path = store.path_for(finding)
    before = path.read_bytes()
    assert b"fixed_in" not in before  # written only when set
    for status in ("false-positive", "adapter-bug", "wont-fix", "new"):
        assert store.update_status(finding.id, status).status == status
    assert path.read_bytes() == before  # back to new: the same bytes
    fixed = store.update_status(finding.id, "fixed",
                                fixed_in={"version": "lib 2.0", "date": finding.last_seen})
    assert Finding.from_bytes(path.read_bytes()).fixed_in == fixed.fixed_in
    assert store.update_status(finding.id, "new").fixed_in is None  # reopened
    behaviour = {"rule": "encoded", "params": {"chars": "~"}, "text": "'~' encoded"}
    data = {**json.loads(before), "behaviour": behaviour}
    assert Finding.from_json(data).behaviour == behaviour


@pytest.mark.parametrize("field, value", [
    ("behaviour", {"rule": "left_raw", "params": {"chars": "~"}}),
    ("behaviour", {"rule": "os.system", "params": {}, "text": "x"}),
    ("behaviour", {"rule": "left_raw", "params": {"chars": {"a": 1}}, "text": "x"}),
    ("behaviour", {"rule": "left_raw", "params": {}, "text": "two\nlines"}),
    ("fixed_in", {"version": "1.0", "date": "yesterday"}),
    ("fixed_in", {"version": "1.0"}),
    ("status", "closed"),
])
def test_bad_optional_fields_and_statuses_are_refused(store: FindingStore, field: str,
                                                      value: Any) -> None:
    (finding,) = store.iter_findings()
    data = {**finding.to_json(), field: value}
    with pytest.raises(FindingFormatError):
        Finding.from_json(data)


def test_triage_takes_several_ids_and_changes_nothing_on_a_typo(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = FindingStore(tmp_path / "findings")
    first, _ = store.record(_finding("a~b"))
    second, _ = store.record(new_finding("encode", "timeout", None, raw_input=b"x"))
    assert first.id != second.id
    folder = str(store.root)
    assert main(["triage", first.id, "0123456789abcdef", "--status", "wont-fix",
                 "--findings", folder]) == 2
    assert store.get(first.id).status == "new"
    assert main(["triage", first.id, second.id, "--status", "adapter-bug", "--note",
                 "our adapter's mistake", "--findings", folder]) == 0
    assert {store.get(i).status for i in (first.id, second.id)} == {"adapter-bug"}
    assert "our adapter's mistake" in capsys.readouterr().out


def _replay_open(store: FindingStore, **kwargs: Any) -> Any:
    sys.path.insert(0, str(SUPPORT))
    try:
        return replay_open(store.root, IMPL, **kwargs)
    finally:
        sys.path.remove(str(SUPPORT))


def test_an_open_finding_that_reproduces_stays_open_and_a_fixed_one_is_marked(
        store: FindingStore, monkeypatch: pytest.MonkeyPatch) -> None:
    (finding,) = store.iter_findings()
    result = _replay_open(store)
    assert result.reproduced == [finding.id] and not result.fixed
    assert store.get(finding.id).status == "new"

    import broken_impls

    from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter

    monkeypatch.setattr(broken_impls.TildeEncodingUrllib, "encode", UrllibAdapter.encode)
    result = _replay_open(store)
    assert result.fixed == [finding.id] and not result.reproduced
    fixed = store.get(finding.id)
    assert fixed.status == "fixed" and fixed.fixed_in is not None
    assert fixed.fixed_in["version"].startswith("stdlib")  # the adapter's library
    # Fixed findings are not replayed again; a campaign that hits one reopens it.
    assert _replay_open(store).verdicts == []
    monkeypatch.undo()
    result = _replay_open(store, seen=[finding.id])
    assert result.reopened == [finding.id] and result.reproduced == [finding.id]


def test_triaged_findings_and_other_implementations_are_not_replayed(
        store: FindingStore) -> None:
    (finding,) = store.iter_findings()
    store.update_status(finding.id, "wont-fix")
    assert _replay_open(store).verdicts == []
    store.update_status(finding.id, "new")
    assert replay_open(store.root, "urllib").verdicts == []  # not urllib's finding


HANG_IMPL = "replay_hang:HangOnReplay"


def _hanging_findings(store: FindingStore) -> list[str]:
    """Three open findings of ``HANG_IMPL`` whose cases hang when replayed (with
    ``PCTFUZZ_TEST_HANG_FILE`` set), one per set of ``replay_hang.ERRORS``."""
    from replay_hang import ERRORS, MAGIC, HangOnReplay

    ids = []
    for set_name in ERRORS:
        case = EncodeCase(MAGIC, set_name)
        with pytest.raises(Exception) as caught:
            differential.check_encode(case, HangOnReplay())
        stored, _new = store.record(new_finding("diff_encode", "crash", caught.value,
                                                case=case, impl=HANG_IMPL))
        ids.append(stored.id)
    assert len(set(ids)) == len(ERRORS)
    return ids


def test_the_open_replay_keeps_its_bound_and_loses_no_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33, item 17: open findings whose cases hang, each allowed an hour
    (``timeout``): the bound on the whole replay (``max_seconds``) ends it, the case it
    cut gets no verdict, and every open finding is either replayed or listed as not
    replayed, still open. (No assumption on how far the replay gets in a second: the
    finding that replays at once may come before the hangs or after.)"""
    from broken_impls import TildeEncodingUrllib

    store = FindingStore(tmp_path / "findings")
    hanging = _hanging_findings(store)
    case = EncodeCase("a~b", "component")  # urllib, under HANG_IMPL, now agrees
    with pytest.raises(Exception) as caught:
        differential.check_encode(case, TildeEncodingUrllib())
    passing, _new = store.record(new_finding("diff_encode", "divergence", caught.value,
                                             case=case, impl=HANG_IMPL))
    monkeypatch.setenv("PCTFUZZ_TEST_HANG_FILE", str(tmp_path / "replaying.pid"))
    result = replay_open(store.root, HANG_IMPL, timeout=3600, max_seconds=1.0)
    assert result.out_of_time == 1.0 and result.incomplete
    replayed = {v.finding_id for v in result.verdicts}
    left = [ident for _path, ident in result.not_replayed]
    assert replayed | set(left) == {*hanging, passing.id}
    assert not replayed & set(left) and len(left) == len(set(left))
    assert set(hanging) <= set(left)  # cut by the bound or never reached: no verdict
    for ident in left:
        assert store.get(ident).status == "new"
        assert ident in result.not_replayed_lines()[0]
    assert "bound of 1 s was reached" in result.not_replayed_lines()[0]
    assert replayed <= {passing.id} and store.get(passing.id).status == (
        "fixed" if replayed else "new")


def test_findings_recorded_as_timeouts_are_replayed_last(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33, item 17: a recorded timeout may take its whole timeout again, so the
    bound is spent on the other open findings first, whatever the files' order."""
    import pctfuzz._internal.fuzz.replay as replay
    from pctfuzz._internal.store import new_stop_finding
    from pctfuzz._internal.targets import get_target

    store = FindingStore(tmp_path / "findings")
    ids = {}
    for kind in ("timeout", "oom"):
        stored, _ = store.record(new_stop_finding(target=get_target("encode"), kind=kind,
                                                  raw_input=b"\0\0" + kind.encode()))
        ids[kind] = stored.id
    # Its file name sorts after the timeout's: "violation-encode-...".
    stored, _ = store.record(new_finding("encode", "violation", ValueError("x"),
                                         case=EncodeCase("violation", "component")))
    assert sorted(p.name.split("-")[0] for p in store.root.glob("*.json")) == [
        "oom", "timeout", "violation"]
    ran: list[str] = []
    real = replay.run_case

    def counting(bound: Any, case: Any, timeout: float, **kwargs: Any) -> Any:
        ran.append(case.value)
        return real(bound, case, timeout, **kwargs)

    monkeypatch.setattr(replay, "run_case", counting)
    result = replay_open(store.root, "urllib", targets=["encode"])
    assert not result.not_replayed and not result.errors
    assert len(ran) == 3 and ran[-1] == "timeout", ran  # not between oom and violation
    assert [v.finding_id for v in result.verdicts][-1] == ids["timeout"]


def _document(store: FindingStore, verdicts: Any) -> dict[str, Any]:
    (finding,) = store.iter_findings()
    stats = TargetStats("diff_encode")
    stats.known_findings.append(finding.id)
    return fuzz_results(CampaignResult([stats], 1.0), settings={}, findings_dir=store.root,
                        started="2026-01-01T00:00:00.000Z", exit_code=1, verified=verdicts)


def test_an_open_finding_that_reproduces_is_in_sarif_junit_and_json(
        store: FindingStore) -> None:
    (finding,) = store.iter_findings()
    document = _document(store, _replay_open(store).verdicts)
    (entry,) = document["findings"]
    assert entry["reproduces"] is True and entry["new"] is False
    assert document["replays"][0]["outcome"] == "reproduces"
    (result,) = to_sarif(document)["runs"][0]["results"]
    assert result["fingerprints"] == {"pctfuzzFindingId/v1": finding.id}
    assert result["partialFingerprints"] == {"pctfuzzSignature/v1": finding.signature}
    assert ET.fromstring(to_junit(document).split("\n", 1)[1]).get("failures") == "1"
    # Without the replay (today's campaign) a known finding is in neither.
    document = _document(store, [])
    assert to_sarif(document)["runs"][0]["results"] == []
    assert ET.fromstring(to_junit(document).split("\n", 1)[1]).get("failures") == "0"


@given(st.text(st.characters(exclude_categories=("Cs",))))
def test_toml_string_reads_back_as_the_same_text(text: str) -> None:
    assert tomllib.loads(f"x = {toml_string(text)}")["x"] == text
    assert toml_string(text).isascii() and "\n" not in toml_string(text)


def test_toml_string_refuses_a_lone_surrogate() -> None:
    with pytest.raises(UsageError, match="lone surrogate"):
        toml_string("a\ud800")


def test_every_finding_that_stopped_its_process_is_replayed_in_a_process_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A timeout or an oom is replayed isolated, as a crash of the process is, with the
    run's memory limit: an input that allocates without bound, recorded as a timeout,
    took a machine's 24 GiB in the replaying process before its timeout."""
    import pctfuzz._internal.fuzz.replay as replay
    from pctfuzz._internal.store import new_stop_finding
    from pctfuzz._internal.targets import get_target

    store = FindingStore(tmp_path / "findings")
    for kind in ("timeout", "oom"):
        store.record(new_stop_finding(target=get_target("encode"), kind=kind,
                                      raw_input=b"\0\0" + kind.encode()))
    store.record(new_finding("encode", "violation", ValueError("x"),
                             case=EncodeCase("violation", "component")))
    ran: dict[str, tuple[bool, int]] = {}
    real = replay.run_case

    def seen(bound: Any, case: Any, timeout: float, **kwargs: Any) -> Any:
        ran[case.value] = (kwargs["isolated"], kwargs["rss_limit_mb"])
        return real(bound, case, timeout, **kwargs)

    monkeypatch.setattr(replay, "run_case", seen)
    replay_open(store.root, "urllib", targets=["encode"], rss_limit_mb=321)
    assert ran == {"timeout": (True, 321), "oom": (True, 321), "violation": (False, 321)}
    ran.clear()
    list(replay.replay_paths([store.root], impl="urllib", rss_limit_mb=123))
    assert ran == {"timeout": (True, 123), "oom": (True, 123), "violation": (False, 123)}


def test_a_timeout_replayed_as_an_oom_reproduces_and_a_crash_does_not(tmp_path: Path) -> None:
    """One input that allocates without bound is stopped by whichever limit it meets
    first (the machine's speed and load decide): a timeout finding replayed as an oom
    (its replay runs in a process of its own, with the memory limit) still reproduces.
    A crash of the process that replays as an oom fails differently."""
    from pctfuzz._internal.fuzz.replay import Run, _finding_verdict
    from pctfuzz._internal.identity import stop_signature
    from pctfuzz._internal.store import new_stop_finding
    from pctfuzz._internal.targets import get_target

    def replayed(kind: str, now: str) -> str:
        finding = new_stop_finding(target=get_target("diff_encode"), kind=kind, impl="urllib",
                                   raw_input=b"\0\0x")
        run = Run(stop_signature("diff_encode", now, "urllib"), "its process held 3000 MiB")
        return _finding_verdict(tmp_path / "f.json", finding, run, overridden=False).outcome

    assert replayed("timeout", "oom") == "reproduces"
    assert replayed("oom", "timeout") == "reproduces"
    assert replayed("crash", "oom") == "fails differently"
