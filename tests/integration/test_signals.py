"""Stopping a campaign: SIGINT/SIGTERM/SIGHUP stop it cleanly (children gone, summary
printed, results written, exit 128 + signal unless a new finding makes it 1); a
SIGKILL of the main process takes its libFuzzer children with it
(``PR_SET_PDEATHSIG``), and nothing writes to the store afterwards.

Children are found through ``/proc``: a process whose environment names this test's
findings folder (other campaigns may run on the machine at the same time).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from campaigns import CAP, Watched, execs_at_least, finding_saved, wait_until

SUPPORT = Path(__file__).resolve().parents[1] / "support"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc"),
]


def _start(tmp: Path, *args: str) -> Watched:
    """A campaign whose budget is only a safety cap: each test stops it itself, after
    the event it needs (issue 23.16: never after a number of seconds)."""
    path = os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path)
    return Watched(
        [sys.executable, "-m", "pctfuzz", "fuzz", "diff_encode", "decode", "--max-time",
         str(CAP), "--jobs", "2", "--corpus", str(tmp / "corpus"), "--findings",
         str(tmp / "findings"), "--json", str(tmp / "results.json"), *args],
        cwd=tmp, env=env)


def _harness_pids(findings: Path) -> list[int]:
    """Live processes started for this test's store."""
    needle = f"PCTFUZZ_FINDINGS={findings}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in environ and state != "Z":
            pids.append(int(entry.name))
    return pids


def _wait_until_fuzzing(campaign: Watched, findings: Path) -> None:
    """The event "campaign running": both harness processes live, and a status line of
    each target shows executions (libFuzzer is past its start-up, fuzzing)."""
    wait_until(lambda: len(_harness_pids(findings)) >= 2 or campaign.proc.poll() is not None,
                "harness processes")
    for target in ("diff_encode", "decode"):
        campaign.wait_for(execs_at_least(1, target), f"a status line of {target} with "
                          "executions")


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signal_stops_the_campaign_with_summary_and_results(tmp_path: Path,
                                                            signum: int) -> None:
    campaign = _start(tmp_path)
    _wait_until_fuzzing(campaign, tmp_path / "findings")
    campaign.proc.send_signal(signum)
    # Children are stopped at once (SIGTERM, then SIGKILL 2 s later); the cap is a
    # safety net: a campaign that ignored the signal would run for CAP seconds.
    run = campaign.finish()
    out, err = run.stdout, run.stderr
    assert run.returncode == 128 + signum, out + err
    assert "new finding(s)" in out and "diff_encode" in out, out
    assert f"stopped by {signal.Signals(signum).name}" in err
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["exit_code"] == 128 + signum
    assert _harness_pids(tmp_path / "findings") == []
    # The processes' private corpus copies were imported and removed.
    assert not [p for p in (tmp_path / "corpus").iterdir() if p.name.startswith(".libfuzzer-")]


def test_new_finding_outranks_the_signal(tmp_path: Path) -> None:
    campaign = _start(tmp_path, "--impl", "broken_impls:TildeEncodingUrllib")
    # The signal comes after the event it must be outranked by: a finding saved.
    campaign.wait_for(finding_saved(tmp_path / "findings"), "finding saved")
    campaign.proc.send_signal(signal.SIGINT)
    run = campaign.finish()
    assert run.returncode == 1, run.stdout + run.stderr
    assert json.loads((tmp_path / "results.json").read_text())["exit_code"] == 1
    assert list((tmp_path / "findings").glob("*.json"))


def test_sigkill_of_the_campaign_takes_its_children(tmp_path: Path) -> None:
    """With a broken implementation the children write hits every second; after the
    main process is killed none survives and the store does not change any more."""
    campaign = _start(tmp_path, "--impl", "broken_impls:TildeEncodingUrllib")
    findings = tmp_path / "findings"
    # The first hit is minimized before it is written; then the record is rewritten
    # at each flush (every second): wait until a rewrite is seen, the store in use.
    campaign.wait_for(finding_saved(findings), "finding saved")
    first = _snapshot(findings)
    wait_until(lambda: _snapshot(findings) != first, "rewrite of the finding (a flush)")
    campaign.proc.kill()
    campaign.finish()
    wait_until(lambda: not _harness_pids(findings), "end of the harness processes", 120)
    before = _snapshot(tmp_path)
    time.sleep(3)  # three flush periods in which nothing may change (absence of writes)
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_open_finding_replay_still_writes_the_results(
        tmp_path: Path, signum: int) -> None:
    """Issue 33, item 6: the campaign is over and the open findings are replayed when
    the signal comes (the event: the replayed case wrote its pid); the results JSON is
    still written, says the replay was stopped, and the exit code is the signal's."""
    sys.path.insert(0, str(SUPPORT))
    try:
        from replay_hang import MAGIC, HangOnReplay
    finally:
        sys.path.remove(str(SUPPORT))
    from pctfuzz._internal.cases import EncodeCase
    from pctfuzz._internal.checks import differential
    from pctfuzz._internal.store import FindingStore, new_finding

    impl = "replay_hang:HangOnReplay"
    case = EncodeCase(MAGIC, "component")
    with pytest.raises(Exception) as caught:
        differential.check_encode(case, HangOnReplay())
    FindingStore(tmp_path / "findings").record(
        new_finding("diff_encode", "crash", caught.value, case=case, impl=impl))
    hang = tmp_path / "replaying.pid"
    path = os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path, PCTFUZZ_TEST_HANG_FILE=str(hang))
    # A short campaign: the event waited for is the replay after it, whatever the
    # campaign did; the replay's own timeout and bound are an hour, so only the signal
    # ends it.
    campaign = Watched(
        [sys.executable, "-m", "pctfuzz", "fuzz", "diff_encode", "--impl", impl,
         "--max-time", "1", "--timeout", "3600", "--replay-time", "3600", "--jobs", "1",
         "--corpus", str(tmp_path / "corpus"), "--findings", str(tmp_path / "findings"),
         "--json", str(tmp_path / "results.json")], cwd=tmp_path, env=env)
    try:
        wait_until(lambda: hang.exists() or campaign.proc.poll() is not None,
                   "the replay of the open finding")
        assert hang.exists(), campaign.output()
        campaign.proc.send_signal(signum)
    finally:
        run = campaign.finish()
    assert run.returncode in (128 + signum, 3), run.stdout + run.stderr  # 3: 0 execs
    assert "Traceback" not in run.stderr, run.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["exit_code"] == run.returncode
    name = signal.Signals(signum).name
    assert any(f"stopped by {name}" in e["message"] and "replay" in e["message"]
               for e in results["errors"]), results["errors"]
    assert f"stopped by {name}" in run.stderr


def test_the_open_finding_replay_after_a_campaign_keeps_its_bound(tmp_path: Path) -> None:
    """Issue 33, item 17: open findings whose cases hang (an hour each, ``--timeout
    3600``) after a ``--max-time 1`` campaign: the replay is bounded by ``--max-time``
    too (``--replay-time``'s default), so the command ends by itself, incomplete (exit
    3), each finding left listed in the results and still open."""
    sys.path.insert(0, str(SUPPORT))
    try:
        from replay_hang import ERRORS, MAGIC, HangOnReplay
    finally:
        sys.path.remove(str(SUPPORT))
    from pctfuzz._internal.cases import EncodeCase
    from pctfuzz._internal.checks import differential
    from pctfuzz._internal.store import FindingStore, new_finding

    impl = "replay_hang:HangOnReplay"
    store = FindingStore(tmp_path / "findings")
    ids = []
    for set_name in ERRORS:
        case = EncodeCase(MAGIC, set_name)
        with pytest.raises(Exception) as caught:
            differential.check_encode(case, HangOnReplay())
        ids.append(store.record(new_finding("diff_encode", "crash", caught.value, case=case,
                                            impl=impl))[0].id)
    path = os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path,
               PCTFUZZ_TEST_HANG_FILE=str(tmp_path / "replaying.pid"))
    campaign = Watched(
        [sys.executable, "-m", "pctfuzz", "fuzz", "diff_encode", "--impl", impl,
         "--max-time", "1", "--timeout", "3600", "--jobs", "1",
         "--corpus", str(tmp_path / "corpus"), "--findings", str(tmp_path / "findings"),
         "--json", str(tmp_path / "results.json")], cwd=tmp_path, env=env)
    run = campaign.finish(CAP)  # the bound ends it; the cap only catches a hang
    assert run.returncode == 3, run.stdout + run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    assert "not replayed (the replay's bound of 1 s was reached" in run.stderr, run.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["exit_code"] == 3 and results["settings"]["replay_time"] == 1
    messages = [e["message"] for e in results["errors"]]
    for ident in ids:
        assert store.get(ident).status == "new"
        assert any(ident in m and "not replayed" in m for m in messages), messages
