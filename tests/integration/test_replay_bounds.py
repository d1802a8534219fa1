"""``pctfuzz replay --open`` under hanging cases and signals (issue 33, item 17): its
bound on the whole replay (``--max-time``) ends it, a stop signal ends it, and either
way the results are written, every open finding not replayed is listed by id and
stays open, and the exit code says the run is incomplete or was stopped.

The hanging cases are ``replay_hang:HangOnReplay``'s: each writes its pid to a file
(the event "a case hangs") and runs until a signal. Nothing here waits for a number of
seconds: each case may run an hour (``--timeout 3600``), so only the bound or the
signal can end the replay, and the test waits for that end.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from campaigns import CAP, Watched, pctfuzz_env, wait_until

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks import differential
from pctfuzz._internal.store import FindingStore, new_finding

SUPPORT = Path(__file__).resolve().parents[1] / "support"
IMPL = "replay_hang:HangOnReplay"


def _hanging_store(findings: Path) -> list[str]:
    """Three open findings of ``IMPL`` whose cases hang when replayed."""
    from replay_hang import ERRORS, MAGIC, HangOnReplay

    store = FindingStore(findings)
    ids = []
    for set_name in ERRORS:
        case = EncodeCase(MAGIC, set_name)
        with pytest.raises(Exception) as caught:
            differential.check_encode(case, HangOnReplay())
        stored, _new = store.record(new_finding("diff_encode", "crash", caught.value,
                                                case=case, impl=IMPL))
        ids.append(stored.id)
    return ids


def _command(tmp: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "pctfuzz", "replay", "--open", "--impl", IMPL,
            "--findings", str(tmp / "findings"), "--timeout", "3600",
            "--json", str(tmp / "results.json"), *extra]


def _env(tmp: Path) -> dict[str, str]:
    return dict(pctfuzz_env(SUPPORT), PCTFUZZ_TEST_HANG_FILE=str(tmp / "replaying.pid"))


def _left_open(tmp: Path, ids: list[str], results: dict[str, object]) -> None:
    """Every open finding is still open, and each is named in the results' errors."""
    store = FindingStore(tmp / "findings")
    messages = [e["message"] for e in results["errors"]]  # type: ignore[attr-defined, index]
    for ident in ids:
        assert store.get(ident).status == "new"
        assert any(ident in m and "not replayed" in m for m in messages), messages


def test_replay_open_max_time_bounds_the_whole_replay(tmp_path: Path) -> None:
    """Hanging cases of an hour each, ``--max-time 1``: the replay ends at its bound,
    exit 3, and the results list the three findings, still open."""
    ids = _hanging_store(tmp_path / "findings")
    run = subprocess.run(_command(tmp_path, "--max-time", "1"), cwd=tmp_path,
                         env=_env(tmp_path), capture_output=True, text=True, timeout=CAP)
    assert run.returncode == 3, run.stdout + run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    assert "3 open finding(s) not replayed (the replay's bound of 1 s was reached" \
        in run.stderr, run.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["exit_code"] == 3 and results["replays"] == []
    _left_open(tmp_path, ids, results)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_replay_open_writes_its_results_when_a_signal_stops_it(tmp_path: Path,
                                                              signum: int) -> None:
    """The signal comes while a case hangs (the event: it wrote its pid): the results
    JSON is still written, says the replay was stopped, lists the findings left, and
    the exit code is the signal's."""
    ids = _hanging_store(tmp_path / "findings")
    hang = tmp_path / "replaying.pid"
    replay = Watched(_command(tmp_path), cwd=tmp_path, env=_env(tmp_path))
    try:
        wait_until(lambda: hang.exists() or replay.proc.poll() is not None,
                   "the replay of a hanging case")
        assert hang.exists(), replay.output()
        replay.proc.send_signal(signum)
    finally:
        run = replay.finish()
    assert run.returncode == 128 + signum, run.stdout + run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    name = signal.Signals(signum).name
    assert f"stopped by {name}" in run.stderr, run.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["exit_code"] == 128 + signum
    assert any(f"stopped by {name}" in e["message"] for e in results["errors"])
    _left_open(tmp_path, ids, results)
