"""The README walk-through "fuzzing a requote_uri", run as written: its files are
extracted from the README's code blocks (a first line ``# FILENAME``) and its
commands from the ``sh`` blocks, then run in a fresh folder."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECTION = "### Walk-through: fuzzing a `requote_uri`"


def _walkthrough() -> tuple[dict[str, str], list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    body = text.split(SECTION, 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    files: dict[str, str] = {}
    commands: list[str] = []
    for lang, block in re.findall(r"```(\w+)\n(.*?)```", body, re.S):
        first = block.splitlines()[0]
        if lang == "sh":
            commands += [line for line in block.splitlines() if line.strip()]
        elif first.startswith("# "):
            files[first[2:].strip()] = block
    return files, commands


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent),
                                                 os.environ.get("PATH", "")]))
    env.pop("PCTFUZZ_ACCEPT", None)
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def test_walkthrough_files_and_commands_are_there() -> None:
    files, commands = _walkthrough()
    assert set(files) == {"urlfix.py", "fuzz_urlfix.py", "accept.toml"}
    assert [c.split()[2] if c.startswith("PYTHONPATH") else c.split()[1] for c in commands] == [
        "probe", "divergences", "fuzz", "replay", "report"]


@pytest.mark.slow
def test_walkthrough_from_probe_to_a_triaged_finding(tmp_path: Path) -> None:
    files, commands = _walkthrough()
    for name, content in files.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
    probe, check, fuzz, replay, report = commands

    run = _run(probe, tmp_path)
    assert run.returncode == 0, run.stderr
    assert "spec: encodeURI-%25[]" in run.stdout and "'%41': decoded" in run.stdout
    # the check the walk-through makes before it declares the set
    assert "WARNING: '%' is left raw where encodeURI encodes it" in run.stdout

    run = _run(check, tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "urlfix-unquotes-unreserved (urlfix, encode): ok" in run.stdout

    run = _run(fuzz.replace("--max-time 30", "--max-time 10"), tmp_path)
    assert run.returncode in (0, 1), run.stdout + run.stderr
    records = [json.loads(p.read_text()) for p in (tmp_path / "findings").glob("*.json")]
    assert run.returncode == 1 and records, run.stdout + run.stderr
    # The accepted difference never becomes a finding; the InvalidURL fallback does.
    assert all(r["impl"] == "fuzz_urlfix:requote" for r in records)
    assert any("%25" in (r["actual"] or "") for r in records), records

    run = _run(replay, tmp_path)
    assert run.returncode == 1 and ": reproduces" in run.stdout, run.stdout + run.stderr
    run = _run(report, tmp_path)
    assert run.returncode == 0 and "diff_encode" in run.stdout, run.stdout + run.stderr
