"""A harness that dies before its first input, every time, is not restarted until the
deadline: after ``campaign.START_ATTEMPTS`` such deaths in a row its target is started
no more, and the campaign says why, once per target, and exits INCOMPLETE (3).

Found by a user trial on botocore: its lazy ``six.moves`` attributes ended every
harness while the driver instrumented them; the campaign restarted them 214 times in
40 s, ran no input and reported nothing useful until a Ctrl-C.
``broken_impls:FailsInHarness`` plants it: it loads in the campaign, not in a harness.
The test counts restarts (events), not seconds: a campaign given 300 s that stops on
its own has stopped for this reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.fuzz.campaign import START_ATTEMPTS

SUPPORT = Path(__file__).resolve().parents[1] / "support"
PLANTED = "this adapter cannot start in a harness"


def test_a_harness_that_cannot_start_stops_its_target_and_says_why(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT),
                                                       os.environ.get("PYTHONPATH", "")]))
    result = tmp_path / "result.json"
    run = subprocess.run(
        [sys.executable, "-m", "pctfuzz", "fuzz", "diff_encode", "diff_decode",
         "--impl", "broken_impls:FailsInHarness", "--max-time", "300", "--jobs", "1",
         "--corpus", str(tmp_path / "corpus"), "--findings", str(tmp_path / "findings"),
         "--json", str(result)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    output = run.stdout + run.stderr
    assert run.returncode == ExitCode.INCOMPLETE, output
    targets = {t["target"]: t for t in json.loads(result.read_text())["targets"]}
    assert set(targets) == {"diff_encode", "diff_decode"}
    for name, stats in targets.items():
        assert stats["execs"] == 0 and stats["restarts"] == START_ATTEMPTS, stats
        problem = [line for line in run.stdout.splitlines()
                   if line.startswith(f"INCOMPLETE: {name}: its harness could not start")]
        assert len(problem) == 1 and PLANTED in problem[0], output
    # (no input was run, so none is recorded: no finding of a crash "without an input")
    assert not list((tmp_path / "findings").glob("*.json"))
    assert "without an input file" not in output
    document = json.loads(result.read_text())
    assert document["exit_code"] == ExitCode.INCOMPLETE and document["errors"]
