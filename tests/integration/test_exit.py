"""The ``pctfuzz`` command ends when its work is done, whatever the code under test
left running (``cli.main.run``): ``lingering_impls`` starts a thread that never ends,
and the interpreter would wait for it after the summary."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pctfuzz._internal.exits import ExitCode

SUPPORT = Path(__file__).resolve().parents[1] / "support"


def _pctfuzz(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT),
                                                       os.environ.get("PYTHONPATH", "")]))
    env.pop("PCTFUZZ_ACCEPT", None)
    # (the timeout is a hang's safety net: a run that ends takes seconds)
    return subprocess.run([sys.executable, "-m", "pctfuzz", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_replay_exits_beside_a_lingering_library_thread(tmp_path: Path) -> None:
    seed = tmp_path / "input"
    seed.write_bytes(b"\x00\x00!")  # encode('!'): quote() escapes it
    run = _pctfuzz(tmp_path, "replay", "--target", "diff_encode", "--impl",
                   "lingering_impls:adapter", str(seed))
    assert run.returncode == ExitCode.FOUND, run.stdout + run.stderr
    assert "reproduces" in run.stdout


@pytest.mark.slow
def test_a_campaign_exits_beside_a_lingering_library_thread(tmp_path: Path) -> None:
    run = _pctfuzz(tmp_path, "fuzz", "diff_encode", "--impl", "lingering_impls:adapter",
                   "--max-time", "3", "--jobs", "1", "--corpus", str(tmp_path / "corpus"),
                   "--findings", str(tmp_path / "findings"))
    assert run.returncode == ExitCode.FOUND, run.stdout + run.stderr
    assert "open findings replayed" in run.stdout + run.stderr
