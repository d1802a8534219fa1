"""Replay: every committed finding replays as recorded, every committed corpus input
passes, and unusable inputs get a one-line error while the others still run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.fuzz.replay import Verdict, replay_paths
from pctfuzz._internal.store import FindingStore

ROOT = Path(__file__).resolve().parents[2]
FINDINGS = sorted((ROOT / "findings").glob("*.json"))
CORPUS = ROOT / "corpus"

#: What replaying a finding must show, by its recorded status: an open finding still
#: fails its check; a fixed one, or one the divergence registry now accepts, passes.
EXPECTED = {"new": True, "known-divergence": False, "fixed": False}


def test_findings_folder_holds_regression_cases() -> None:
    store = FindingStore(ROOT / "findings")
    loaded = list(store.iter_findings())
    assert loaded and not store.problems, store.problems
    assert len(loaded) == len(FINDINGS)


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_committed_finding_replays_as_recorded(path: Path) -> None:
    (verdict,) = list(replay_paths([path]))
    assert isinstance(verdict, Verdict), verdict
    assert verdict.reproduces is EXPECTED[verdict.status or "new"], verdict.line()


def test_committed_corpus_passes_every_check() -> None:
    open_inputs = {
        f.raw_bytes() for f in FindingStore(ROOT / "findings").iter_findings()
        if f.status == "new"
    }
    verdicts = list(replay_paths([CORPUS]))
    assert len(verdicts) > 1000
    failing = [v for v in verdicts if not isinstance(v, Verdict) or (
        v.reproduces and v.path.read_bytes() not in open_inputs)]
    assert not failing, failing[:5]


def test_replay_exit_codes_and_unusable_inputs(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "encode" / "seed"
    good.parent.mkdir()
    good.write_bytes(b"\x06\x00a b")
    failing = tmp_path / "decode"
    failing.mkdir()
    bad_json = tmp_path / "broken.json"
    bad_json.write_text('{"schema": 1, "id": ')
    stray = tmp_path / "stray.bin"
    stray.write_bytes(b"x")

    assert main(["replay", str(good)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "no longer reproduces (encode, input)" in out

    code = main(["replay", str(bad_json), str(stray), str(tmp_path / "missing"), str(good)])
    captured = capsys.readouterr()
    assert code == ExitCode.USAGE
    errors = captured.err.splitlines()
    assert len(errors) == 3 and all(": error: " in line for line in errors)
    assert str(bad_json) in errors[0] and "stray.bin" in errors[1]
    assert "no longer reproduces" in captured.out  # the good input still ran

    # A raw input named by --target that fails (against a broken impl): exit 1.
    tilde = tmp_path / "tilde.bin"
    tilde.write_bytes(b"\x06\x00~")
    code = main(["replay", "--target", "diff_encode", "--impl",
                 "broken_impls:TildeEncodingUrllib", str(tilde)])
    assert code == ExitCode.FOUND
    assert ": reproduces (diff_encode, input): Divergence" in capsys.readouterr().out


def test_finding_json_is_never_evaluated(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A record whose case names a Python object is rejected, not imported."""
    hostile = {"schema": 1, "case": {"type": "__import__('os').system('false')"}}
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(hostile))
    assert main(["replay", str(path)]) == ExitCode.USAGE
    assert "hostile.json" in capsys.readouterr().err
