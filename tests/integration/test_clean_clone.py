"""A clean clone stays clean (issue 34 item 4): ``make fuzz`` and ``pctfuzz matrix`` in a
checkout of this repository write to git-ignored folders (``out/``, ``pctfuzz-matrix/``),
and the committed ``corpus/`` and ``findings/`` change only when asked. Each test runs
in a git repository made of this tree's tracked files, then asks ``git status``."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from campaigns import CAP, Watched, execs_at_least

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "tests" / "support"

pytestmark = [
    pytest.mark.slow,  # a campaign and a matrix run, end to end
    pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(),
                       reason="needs git and a git checkout of pctfuzz"),
]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          cwd=repo, capture_output=True, text=True, check=True).stdout


def _clone(tmp_path: Path) -> Path:
    """A repository of this tree's tracked files as they are now (a clone of HEAD would
    miss the change under test), committed, so ``git status`` starts empty."""
    repo = tmp_path / "clone"
    for name in _git(ROOT, "ls-files", "-z").split("\0"):
        source = ROOT / name
        if name and source.is_file():  # a file deleted in the work tree is left out
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "clone")
    assert _git(repo, "status", "--porcelain") == ""
    return repo


def _env() -> dict[str, str]:
    # pctfuzz from the tree under test (when PYTHONPATH names it); the planted bugs
    path = os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")])
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")} | {
        "PYTHONPATH": path}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_fuzz_records_into_ignored_folders(tmp_path: Path) -> None:
    repo = _clone(tmp_path)
    venv = Path(sys.prefix)  # the venv running the tests: -o, never rebuilt here
    # A campaign until its status shows executions, then stopped as ^C stops it (the
    # whole process group: make and the campaign): counted, not timed
    make = Watched(["make", "-s", "-o", str(venv / ".installed"), "fuzz", f"VENV={venv}",
                    f"MAX_TIME={CAP}"], cwd=repo, env=_env(), new_session=True)
    try:
        make.wait_for(execs_at_least(200), "200 executions of a target")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(make.proc.pid, signal.SIGINT)
        run = make.finish()
    assert "new finding(s) in" in run.stdout, run.stdout + run.stderr  # it ended as stopped
    assert _git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    # it started from a copy of the committed seeds, and recorded beside them
    seeds = sorted(p.relative_to(repo / "corpus") for p in (repo / "corpus").rglob("*")
                   if p.is_file())
    copied = {p.relative_to(repo / "out" / "corpus")
              for p in (repo / "out" / "corpus").rglob("*") if p.is_file()}
    assert seeds and copied.issuperset(seeds)
    assert f"corpus {repo / 'out' / 'corpus'}" in run.stdout, run.stdout


def test_matrix_records_beside_its_pages_not_in_the_committed_findings(
        tmp_path: Path) -> None:
    repo = _clone(tmp_path)
    committed = {p.name: p.read_bytes() for p in (repo / "findings").iterdir()}
    # a planted bug that nearly every input with '~' shows; a fixed number of inputs
    run = subprocess.run([sys.executable, "-m", "pctfuzz", "matrix", "--impl",
                          "broken_impls:TildeEncodingUrllib", "--target", "diff_encode",
                          "--max-inputs", "300", "--max-time", "600"],
                         cwd=repo, env=_env(), capture_output=True, text=True, timeout=900,
                         check=False)
    assert run.returncode == 1, run.stdout + run.stderr  # the bug, found
    assert list((repo / "pctfuzz-matrix" / "findings").glob("*.json")), run.stdout
    assert {p.name: p.read_bytes() for p in (repo / "findings").iterdir()} == committed
    assert _git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    # asked by name, the project's store records them
    asked = subprocess.run([sys.executable, "-m", "pctfuzz", "matrix", "--impl",
                            "broken_impls:TildeEncodingUrllib", "--target", "diff_encode",
                            "--max-inputs", "300", "--max-time", "600",
                            "--findings", "findings"],
                           cwd=repo, env=_env(), capture_output=True, text=True, timeout=900,
                           check=False)
    assert asked.returncode == 1, asked.stdout + asked.stderr
    assert "?? findings/" in _git(repo, "status", "--porcelain", "--untracked-files=all")
