"""``pctfuzz matrix`` when a peer fails mid-run (issue 33): a peer that dies with no
input to blame, or that cannot be started again, makes its implementation incomplete
on both pages and the run exit 3, never green, and no finding blames the inputs it
could not answer.

The peers are ``tests/support/forking_peer.py``'s: ``DyingPeer`` exits on every fourth
request whatever it is; ``VanishingPeer`` does once, and then cannot be started again.
The runs are of a fixed size (``--max-inputs``), never of a number of seconds.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from campaigns import CAP, pctfuzz_env

from pctfuzz._internal.fuzz.matrix import run_matrix
from pctfuzz._internal.oracles import get_impl

SUPPORT = Path(__file__).resolve().parents[1] / "support"


def test_a_peer_that_dies_mid_run_makes_its_implementation_incomplete(
        tmp_path: Path) -> None:
    from forking_peer import DyingPeer

    impls = {"urllib": get_impl("urllib"), "dying-peer": DyingPeer()}
    try:
        run = run_matrix(impls, max_time=CAP, max_inputs=6, findings=tmp_path / "findings",
                         targets=("diff_encode",))
    finally:
        impls["dying-peer"].close()
    assert list(run.incomplete) == ["dying-peer"], run.incomplete
    assert all("exited with status 7" in why for why in run.incomplete["dying-peer"])
    assert not [f for f in run.findings.values() if "Peer" in str(f["actual"])]


def test_a_peer_that_cannot_be_restarted_is_incomplete_and_blames_no_input(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from forking_peer import VanishingPeer

    monkeypatch.setenv("PCTFUZZ_TEST_VANISHED", str(tmp_path / "vanished"))
    impls = {"urllib": get_impl("urllib"), "vanishing-peer": VanishingPeer()}
    try:
        run = run_matrix(impls, max_time=CAP, max_inputs=6, findings=tmp_path / "findings",
                         targets=("diff_encode",))
    finally:
        impls["vanishing-peer"].close()
    assert run.inputs["diff_encode"] == 6  # the others are still asked every input
    (why,) = [w for w in run.incomplete["vanishing-peer"] if "unavailable" in w]
    assert "not asked again" in why and "gone for good" in why, why
    assert "vanishing-peer" in run.gone
    # No finding blames an input for the peer being gone (there was a
    # PeerUnavailable crash finding per run, its hits the inputs left).
    assert not [f for f in run.findings.values() if "PeerUnavailable" in str(f["actual"])]
    assert not list((tmp_path / "findings").glob("crash-*.json"))


def test_matrix_command_exits_3_and_marks_the_implementation(tmp_path: Path) -> None:
    """The command: exit 3 (not 0), one INCOMPLETE line, and both pages mark the
    implementation and say why."""
    out = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, "-m", "pctfuzz", "matrix", "--impl", "urllib", "--impl",
         "forking_peer:DyingPeer", "--target", "diff_encode", "--max-inputs", "6",
         "--max-time", str(CAP), "--out", str(out)],
        cwd=tmp_path, env=pctfuzz_env(SUPPORT), capture_output=True, text=True,
        timeout=CAP)
    assert run.returncode == 3, run.stdout + run.stderr
    assert "pctfuzz matrix: INCOMPLETE: forking_peer:DyingPeer: peer failed: " in run.stderr
    assert "1 incomplete (a peer failed)" in run.stdout
    markdown = (out / "matrix.md").read_text()
    (row,) = [line for line in markdown.splitlines() if "forking_peer:DyingPeer" in line
              and line.startswith("| ") and "dying-peer 0" in line]
    assert "**incomplete**" in row, row
    assert "## Incomplete" in markdown and "exited with status 7" in markdown
    html = (out / "matrix.html").read_text()
    assert "<span class='incomplete'>incomplete</span>" in html
    assert "<h2 id='incomplete'>Incomplete</h2>" in html
