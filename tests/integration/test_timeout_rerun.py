"""A timeout is a finding only when the implementation takes that long again
(``fuzz.campaign._confirm_timeout``).

libFuzzer's per-input clock counts pctfuzz's own work on an input too (naming,
minimizing, saving a difference). On a loaded CI runner that work passed a 5 s timeout
once, and a campaign saved the input as a timeout finding while the difference it was
naming went unsaved. ``slow_impls:StallsOnce`` stalls once, during the naming of its
one difference (``+`` decoded as a space): the campaign must save that difference, named,
and no timeout. ``QuadraticDecoder``'s hang, which times out again, stays a timeout
finding (``test_reliability``)."""

from __future__ import annotations

import json
from pathlib import Path
from subprocess import CompletedProcess

import pytest
from campaigns import finding_saved, pctfuzz_env, run_until

from pctfuzz._internal.cases import DecodeCase
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.targets import get_target

SUPPORT = Path(__file__).resolve().parents[1] / "support"

pytestmark = pytest.mark.slow


def _campaign(tmp_path: Path, impl: str, **env_extra: str) -> CompletedProcess[str]:
    """``diff_decode`` against ``impl`` with ``--timeout 1``, from the seed ``ab+cd%41``,
    until a finding is saved."""
    corpus, findings = tmp_path / "corpus" / "diff_decode", tmp_path / "findings"
    corpus.mkdir(parents=True)
    (corpus / "seed").write_bytes(get_target("diff_decode").to_bytes(DecodeCase("ab+cd%41")))
    env = dict(pctfuzz_env(SUPPORT), **env_extra)
    env.pop("PCTFUZZ_ACCEPT", None)
    return run_until(["diff_decode", "--impl", impl, "--timeout", "1", "--jobs", "1",
                      "--corpus", str(tmp_path / "corpus"), "--findings", str(findings)],
                     finding_saved(findings), cwd=tmp_path, env=env)


def test_a_stall_while_naming_is_no_timeout_finding(tmp_path: Path) -> None:
    findings, stall = tmp_path / "findings", tmp_path / "stalled"
    run = _campaign(tmp_path, "slow_impls:StallsOnce", PCTFUZZ_TEST_STALL_FILE=str(stall))
    out = run.stdout + run.stderr
    assert stall.is_file(), out  # it did stall, on a question of the naming
    records = [json.loads(p.read_text()) for p in sorted(findings.glob("*.json"))]
    assert [r["kind"] for r in records] == ["divergence"], out
    assert records[0]["behaviour"], records[0]  # named, by the rerun's harness
    assert "timeouts not findings" in out and "diff_decode 1" in out, out
    assert run.returncode == ExitCode.FOUND, out
    # (libFuzzer's files of the rerun stay in its private folder, as the first's do)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus", "findings", "stalled"]


def test_a_naming_that_overruns_again_keeps_its_input_and_says_why(tmp_path: Path) -> None:
    """``SlowToName`` answers an input in 0.05 s, and naming its difference asks more
    than 80 questions (4 s, the rerun's four timeouts): the input is kept as a timeout
    finding, whose evidence says the implementation answered it alone in time."""
    run = _campaign(tmp_path, "slow_impls:SlowToName")
    out = run.stdout + run.stderr
    records = [json.loads(p.read_text()) for p in sorted((tmp_path / "findings").glob("*.json"))]
    assert [r["kind"] for r in records] == ["timeout"], out
    assert records[0]["evidence"]["answered_alone"].startswith("within 1 s"), records[0]
    assert "Traceback" not in out, out
