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
import subprocess
import sys
import time
from pathlib import Path

import pytest

SUPPORT = Path(__file__).resolve().parents[1] / "support"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc"),
]


def _start(tmp: Path, *args: str) -> subprocess.Popen[str]:
    path = os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path)
    return subprocess.Popen(
        [sys.executable, "-m", "pctfuzz", "fuzz", "diff_encode", "decode", "--max-time", "20",
         "--jobs", "2", "--corpus", str(tmp / "corpus"), "--findings", str(tmp / "findings"),
         "--json", str(tmp / "results.json"), *args],
        cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


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


def _wait_for_children(proc: subprocess.Popen[str], findings: Path, count: int) -> None:
    """Until ``count`` harness processes run (at most 20 s), then 2 s more of fuzzing."""
    for _ in range(200):
        if len(_harness_pids(findings)) >= count or proc.poll() is not None:
            break
        time.sleep(0.1)
    assert len(_harness_pids(findings)) >= count, "the campaign started no harness"
    time.sleep(2)


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signal_stops_the_campaign_with_summary_and_results(tmp_path: Path,
                                                            signum: int) -> None:
    proc = _start(tmp_path)
    _wait_for_children(proc, tmp_path / "findings", 2)
    proc.send_signal(signum)
    # Children stop within a few seconds (SIGTERM, then SIGKILL 2 s later).
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == 128 + signum, out + err
    assert "new finding(s)" in out and "diff_encode" in out, out
    assert f"stopped by {signal.Signals(signum).name}" in err
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["exit_code"] == 128 + signum
    assert _harness_pids(tmp_path / "findings") == []
    # The processes' private corpus copies were imported and removed.
    assert not [p for p in (tmp_path / "corpus").iterdir() if p.name.startswith(".libfuzzer-")]


def test_new_finding_outranks_the_signal(tmp_path: Path) -> None:
    proc = _start(tmp_path, "--impl", "broken_impls:TildeEncodingUrllib")
    _wait_for_children(proc, tmp_path / "findings", 2)
    for _ in range(300):  # a loaded machine: the signal must come after the finding
        if list((tmp_path / "findings").glob("*.json")):
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == 1, out + err
    assert json.loads((tmp_path / "results.json").read_text())["exit_code"] == 1
    assert list((tmp_path / "findings").glob("*.json"))


def test_sigkill_of_the_campaign_takes_its_children(tmp_path: Path) -> None:
    """With a broken implementation the children write hits every second; after the
    main process is killed none survives and the store does not change any more."""
    proc = _start(tmp_path, "--impl", "broken_impls:TildeEncodingUrllib")
    findings = tmp_path / "findings"
    _wait_for_children(proc, findings, 2)
    for _ in range(300):  # the first hit is minimized before it is written
        if list(findings.glob("*.json")):
            break
        time.sleep(0.1)
    assert list(findings.glob("*.json")), "no finding being written to"
    time.sleep(1)  # hits are being flushed every second
    proc.kill()
    proc.communicate(timeout=10)
    for _ in range(50):
        if not _harness_pids(findings):
            break
        time.sleep(0.1)
    assert _harness_pids(findings) == []
    before = _snapshot(tmp_path)
    time.sleep(3)
    assert _snapshot(tmp_path) == before
