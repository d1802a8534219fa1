"""The README's "Your first hour", run as written (issue 34): its ``linkkit.py`` and its
commands, extracted from the page, in an empty folder. ``pctfuzz init``, then a campaign
from a subfolder finds both findings the README shows (by their ids), ``accept`` takes
the intended one, the fix makes the other ``fixed`` and the project's own ``pytest``
passes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from campaigns import CAP, run_until

from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Your first hour"


def _section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split(SECTION, 1)[1].split("\n## ", 1)[0]


def _block(lang: str, first: str) -> str:
    """The README block of ``lang`` whose first line starts with ``first``."""
    for found, block in re.findall(r"```(\w*)\n(.*?)```", _section(), re.S):
        if found == lang and block.startswith(first):
            return str(block)
    raise AssertionError(f"no {lang} block starting {first!r} in the README's {SECTION}")


def _command(word: str) -> list[str]:
    """The README's ``pctfuzz WORD ...`` command, split as the shell splits it."""
    import shlex

    (line,) = [line for block in re.findall(r"```sh\n(.*?)```", _section(), re.S)
               for line in block.splitlines() if line.startswith(f"pctfuzz {word}")]
    return shlex.split(line.split("#")[0])[1:]


def _env() -> dict[str, str]:
    """The user's shell: nothing of the suite's (pytest, PCTFUZZ_), and this tree's
    pctfuzz importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "PCTFUZZ_"))}
    env["PYTHONPATH"] = str(ROOT / "src")
    return env


def _pctfuzz(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pctfuzz", *args], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=CAP, check=False)


def _shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    (root / "linkkit.py").write_text(_block("python", "# linkkit.py"))
    return root


def test_the_readme_init_writes_the_test_file_it_shows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = _shop(tmp_path)
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))
    assert main(_command("init")) == ExitCode.OK, capsys.readouterr().err
    shown = _block("python", "from pctfuzz.testing import")
    assert shown in (root / "tests" / "test_pctfuzz.py").read_text()
    assert '"quote_query": "query"' in (root / "pctfuzz_adapter.py").read_text()


def _fixed_campaign(cwd: Path) -> subprocess.CompletedProcess[str]:
    """``pctfuzz fuzz`` to its normal end (its end-of-campaign replay is the point), its
    budget doubled while a loaded machine gave the harness no time to start."""
    budget = 4
    while True:
        run = _pctfuzz(cwd, "fuzz", "--max-time", str(budget), "--jobs", "1", "-q")
        starved = run.returncode == 3 and all(
            ": ran 0 executions " in line for line in run.stdout.splitlines()
            if line.startswith("INCOMPLETE"))
        if not starved or budget >= CAP:
            return run
        budget *= 2


@pytest.mark.slow
def test_the_first_hour_from_init_to_a_fixed_finding(tmp_path: Path) -> None:
    root = _shop(tmp_path)
    init = _pctfuzz(root, *_command("init"))
    assert init.returncode == 0, init.stderr
    findings = root / "fuzz" / "findings"
    # The README's campaign, from a subfolder, until both findings it shows are saved.
    ids = re.findall(r"NEW FINDING \[diff_encode\] ([0-9a-f]{16})", _section())
    assert len(ids) == 2
    sub = root / "src"
    sub.mkdir()
    assert _command("fuzz") == ["fuzz"]

    def both_saved(_output: str) -> bool:
        return all((findings / f"divergence-diff_encode-{i}.json").exists() for i in ids)

    run = run_until(["--jobs", "1", "-q"], both_saved, cwd=sub, env=_env())
    assert both_saved(""), run.stdout + run.stderr
    assert run.returncode == 1, run.stdout + run.stderr
    assert not (sub / "fuzz").exists()

    # Accept the intended one, as the README does: the file gets the entry.
    accept = _pctfuzz(sub, *_command("accept"))
    assert accept.returncode == 0, accept.stdout + accept.stderr
    assert 'reconciler = "encoded"' in (root / "pctfuzz-accept.toml").read_text()

    # The fix: '#' out of RESERVED. The next campaign replays the open finding: fixed.
    module = root / "linkkit.py"
    module.write_text(module.read_text().replace(':/?#[]@', ':/?[]@'))
    again = _fixed_campaign(sub)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "still failing: 0; fixed: 1" in again.stdout + again.stderr

    # The project's own suite: the differential test and each finding as an item.
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "-p", "no:xdist"], cwd=root, env=_env(), capture_output=True,
                           text=True, timeout=CAP, check=False)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "3 passed" in tests.stdout, tests.stdout
    summary = _pctfuzz(sub, "report", "--markdown", "-")
    assert summary.returncode == 0 and "0 open finding(s), 2 in all" in summary.stdout
