"""What ``pctfuzz fuzz`` shows (issue 13, items 4 and 6): the live status on a
terminal, ``-q``, ``-v``, and ``--driver hypothesis`` finding and replaying a bug."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from campaigns import execs_at_least, finding_saved, run_until

from pctfuzz._internal.exits import ExitCode

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = Path(__file__).resolve().parents[1] / "support"

pytestmark = pytest.mark.slow


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT),
                                                         os.environ.get("PYTHONPATH", "")]))


def pctfuzz(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pctfuzz", *args], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=300, check=False)


def test_hypothesis_driver_finds_a_planted_bug_that_replay_reproduces(tmp_path: Path) -> None:
    # lowercase hex digits: any percent-encoded byte shows it, so even a machine loaded
    # enough to run a few dozen examples finds it
    broken = "broken_impls:PlantedBugsUrllib"
    findings = tmp_path / "findings"
    env = {**_env(), "PCTFUZZ_TEST_BUGS": "hex"}
    # Until the finding is saved (an event), then SIGINT: the new finding outranks the
    # signal (exit 1). The budget is only a safety cap.
    run = run_until(["--driver", "hypothesis", "diff_encode", "--impl", broken, "--findings",
                     str(findings), "-q", "--json", "r.json"], finding_saved(findings),
                    cwd=tmp_path, env=env)
    assert run.returncode == 1, run.stdout + run.stderr
    records = [json.loads(p.read_text()) for p in findings.glob("*.json")]
    assert len(records) == 1, records  # one bug, one record: its signature hunted once
    record = records[0]
    assert record["impl"] == broken and record["target"] == "diff_encode"
    assert record["signature"].split("|")[1] == "divergence", record["signature"]
    assert record["minimized"] and re.search("%[0-9a-f]{2}", record["actual"]), record
    # -q: the findings and the summary only; no status lines
    assert not re.search(r"^\[diff_encode\] ", run.stderr, re.M), run.stderr
    assert f"NEW FINDING [diff_encode] {record['id']} divergence in {broken}" in run.stderr
    assert f"reproduce: pctfuzz replay {findings.name}/" not in run.stdout  # absolute here
    assert "reproduce: pctfuzz replay " in run.stdout
    lines = run.stdout.splitlines()
    assert lines[0].startswith("target ") and lines[-1].startswith("pctfuzz: project ")
    assert json.loads((tmp_path / "r.json").read_text())["settings"]["driver"] == "hypothesis"
    # nothing outside the given folders: no .hypothesis/ in the current folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["findings", "r.json"]
    # the same signature replay computes: the finding reproduces
    replay = subprocess.run([sys.executable, "-m", "pctfuzz", "replay", str(findings),
                             "--impl", broken], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=300, check=False)
    assert replay.returncode == 1 and ": reproduces (diff_encode" in replay.stdout, replay.stdout
    # the fixed implementation: nothing reproduces
    fixed = pctfuzz("replay", str(findings), "--impl", "urllib", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr


def test_hypothesis_driver_takes_no_libfuzzer_flags(tmp_path: Path) -> None:
    run = pctfuzz("fuzz", "--driver", "hypothesis", "decode", "--max-time", "1", "--",
                  "-max_len=64", cwd=tmp_path)
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "--driver hypothesis takes none" in run.stderr


def test_verbose_keeps_libfuzzer_log_per_target_and_names_it(tmp_path: Path) -> None:
    # Until a status line shows executions (an event), then SIGINT: never a budget.
    run = run_until(["decode", "--jobs", "1", "-v", "--corpus", str(tmp_path / "c"),
                     "--findings", str(tmp_path / "f")], execs_at_least(1, "decode"),
                    cwd=tmp_path, env=_env())
    assert run.returncode == ExitCode.SIGINT, run.stdout + run.stderr
    match = re.search(r"^pctfuzz: libFuzzer logs: (\S+)/<target>\.log$", run.stdout, re.M)
    assert match, run.stdout
    log = Path(match[1]) / "decode.log"
    text = log.read_text()
    # libFuzzer's own lines, to the harness's last (a stop by SIGINT: libFuzzer prints
    # no final stats then, the harness still says its count)
    assert "INITED" in text and "pctfuzz: EXECUTIONS " in text, text[-2000:]
    assert re.search(r"^\[decode\] \d+/\d+s execs=", run.stderr, re.M), run.stderr  # plain
    assert not (Path(match[1]) / "encode.log").exists()


def test_on_a_terminal_the_status_is_live(tmp_path: Path) -> None:
    """stderr a pseudo-terminal: the board is redrawn in place, not plain lines."""
    master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "pctfuzz", "fuzz", "diff_decode",
                             "--max-time", "600", "--jobs", "1", "--corpus",
                             str(tmp_path / "c"), "--findings", str(tmp_path / "f")],
                            cwd=tmp_path, env=dict(_env(), COLUMNS="120"), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    chunks: list[bytes] = []

    def read() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the other end is closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read)
    reader.start()
    # Until the board shows the target's row with executions (an event), then SIGINT.
    row = re.compile(r"diff_decode +[\d,]+ +[1-9][\d,]* +\d+ +\d+/\d+ +\d+% +100% +0")
    for _ in range(6000):  # a safety cap (600 s), not a time budget
        if proc.poll() is not None or row.search(b"".join(chunks).decode(errors="replace")):
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    stdout, _ = proc.communicate(timeout=600)
    reader.join(10)
    os.close(master)
    screen = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == ExitCode.SIGINT, stdout.decode() + screen
    assert "\x1b[" in screen and "under test (lines)" in screen, screen
    assert re.search(r"pctfuzz fuzz: \d+ s of 600 s, \d+ s left; urllib; 0 new findings",
                     screen)
    assert re.search(r"diff_decode +[\d,]+ +[\d,]+ +\d+ +\d+/\d+ +\d+% +100% +0", screen), screen
    assert "[diff_decode] " not in screen  # no plain lines on a terminal
    assert b"target " in stdout  # the summary as before


def test_hypothesis_driver_stops_on_sigterm_with_summary_and_results(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "pctfuzz", "fuzz", "--driver", "hypothesis",
                             "decode", "form", "--max-time", "600", "--findings",
                             str(tmp_path / "f"), "--json", "r.json"], cwd=tmp_path, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # the status line says the run is under way (plain: stderr is a pipe)
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith("[decode] "):
            break
    proc.terminate()
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 143, out + err
    assert "pctfuzz: stopped by SIGTERM" in err and "Traceback" not in err
    assert out.splitlines()[1].startswith("target ")  # the summary, after the where line
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["exit_code"] == 143 and document["seconds"] < 600  # not the budget
