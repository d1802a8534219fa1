"""A native crash reached only through a question (issue: "still failing: 0").

The project's encoder dies of SIGSEGV on a value of exactly one BEL
(``tests/support/crash_impls.py``), and the set probe asks it of the implementation
while it names the first difference (``checks.profile.set_probe`` asks every ASCII
character alone): the campaign's seed ``!`` differs, so the first process dies on that
question at its first input. (Without the seed, libFuzzer's own inputs reached a value
of exactly BEL first on a loaded CI runner: the finding was then that input's.) The finding must be
that question (``checks.breadcrumb``), not the input being named, which does not crash:
replayed, it reproduces, and the campaign that replays it at its end survives it and
says so (exit 1). The restarted process answers that question as refused
(``errors.AskedBefore``) and goes on to name the difference it was naming.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from campaigns import run_until

pytestmark = pytest.mark.slow

SUPPORT = Path(__file__).resolve().parents[1] / "support"

PYPROJECT = """\
[tool.pctfuzz]
impl = "crash_impls:adapter"
corpus = "fuzz/corpus"
findings = "fuzz/findings"
jobs = 1
"""


def _env() -> dict[str, str]:
    # The project alone: no PYTHONPATH (its root is the adapter's path), no pytest state.
    return {k: v for k, v in os.environ.items()
            if k != "PYTHONPATH" and not k.startswith(("PYTEST", "PCTFUZZ_"))}


def _pctfuzz(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pctfuzz", *args], cwd=root, env=_env(),
                          capture_output=True, text=True, timeout=600, check=False)


def _records(root: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted((root / "fuzz/findings").glob("*.json"))]


def _carried_on(root: Path) -> bool:
    """The event: the crash recorded, and a difference named after it (a restarted
    process answers the question that killed its predecessor as refused, and goes on:
    ``errors.AskedBefore``)."""
    kinds = [r["kind"] for r in _records(root)]
    return "crash" in kinds and "divergence" in kinds


def test_a_crash_in_a_probe_question_is_recorded_as_that_question(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT)
    shutil.copy(SUPPORT / "crash_impls.py", root / "crash_impls.py")
    seeds = root / "fuzz/corpus/diff_encode"
    seeds.mkdir(parents=True)
    (seeds / "seed").write_bytes(b"\x00\x00!")  # encode('!'): '!' escaped, named

    run = run_until(["--json", "campaign.json"], lambda _out: _carried_on(root), cwd=root,
                    env=_env())
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 1, run.stdout + run.stderr  # a new finding (stopped: SIGINT)
    (record,) = [r for r in _records(root) if r["kind"] == "crash"]  # one finding
    ident = str(record["id"])
    assert record["target"] == "diff_encode"
    # (its '!'*~ escaped, named by a rule, once the restarted process went on)
    assert any(r["kind"] == "divergence" and r["behaviour"] for r in _records(root))
    # The question the process died in, not libFuzzer's input being named.
    assert record["case"] == {"type": "encode", "value": {"text": "\x07"}, "set": "component",
                              "encoding": "UTF-8", "space_as_plus": False}, record
    assert base64.b64decode(str(record["raw_input"])) == b"\x00\x00\x07"  # within the domain
    evidence = record["evidence"]
    assert isinstance(evidence, dict) and evidence["died_on"] == "question", evidence
    assert base64.b64decode(evidence["while_checking"]) != b"\x00\x00\x07"
    assert f"{ident} crash in crash_impls:adapter [crash]: encode('\\x07', set='component', " \
        "encoding='UTF-8'): the process died (asked while naming another input)" \
        in run.stdout, run.stdout
    document = json.loads((root / "campaign.json").read_text())
    assert document["exit_code"] == 1

    # Replayed, it reproduces: the replay survives the SIGSEGV (a process of its own).
    replay = _pctfuzz(root, "replay")
    assert replay.returncode == 1, replay.stdout + replay.stderr
    assert f"reproduces (diff_encode, finding {ident}): its process died of SIGSEGV" \
        in replay.stdout, replay.stdout
    assert re.search(rf"still failing: \d+ \([^)]*{ident}", replay.stdout), replay.stdout

    # The campaign's own replay of the open findings at its end survives it too, says
    # it still fails, and exits 1 (the finding is open; no new one).
    again = _pctfuzz(root, "fuzz", "--max-time", "8")
    assert "Traceback" not in again.stderr, again.stderr
    assert again.returncode == 1, again.stdout + again.stderr
    assert re.search(rf"open findings replayed: (\d+); still failing: \1 \([^)]*{ident}",
                     again.stdout), again.stdout
    (record,) = [r for r in _records(root) if r["kind"] == "crash"]
    assert record["status"] == "new" and record["case"]["value"] == {"text": "\x07"}  # type: ignore[index]


def test_a_process_that_dies_on_its_way_out_is_no_crash_of_an_input(tmp_path: Path) -> None:
    """A library whose processes die in C ``exit()`` (a static destructor) after
    libFuzzer's run is done: libFuzzer's signal handler writes the last input it ran as
    a crash, and each process end was a crash finding of a harmless input (hold-out
    15's JavaScript engine, in both runs). The campaign says so and records none; the
    difference the encoder has is still found."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT.replace("crash_impls", "exit_crash_impls"))
    shutil.copy(SUPPORT / "exit_crash_impls.py", root / "exit_crash_impls.py")
    run = _pctfuzz(root, "fuzz", "--max-time", "10")
    assert "Traceback" not in run.stderr, run.stderr
    kinds = [r["kind"] for r in _records(root)]
    assert "crash" not in kinds, run.stdout + run.stderr
    assert "after its run was done, on its way out" in run.stderr
    assert run.returncode in (0, 1), run.stdout + run.stderr  # (1: its difference found)
