"""``pctfuzz replay`` on a folder with nothing to replay says so (issue 23, item 14):
exit 0 (no input reproduces) with one line on stderr, never a silent success; a path
named ``*.json`` that is a folder is not a finding file (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode


def test_an_empty_folder_says_there_is_nothing_to_replay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "findings"
    empty.mkdir()
    assert main(["replay", str(empty)]) == ExitCode.OK
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "nothing to replay" in err[0], err


def test_a_folder_named_like_a_finding_is_not_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "d.json"
    folder.mkdir()
    assert main(["replay", str(folder)]) == ExitCode.USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a directory, expected a finding file" in err[0], err
