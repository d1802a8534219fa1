"""The pytest plugin and hostile record folders (issue 23, item 11): a folder named
``d.json`` is not a record (it gave a traceback), a file name with ESC never reaches
the terminal raw, and two records of one id are two items of two names."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_plugin_on_a_hostile_findings_folder(tmp_path: Path) -> None:
    findings = tmp_path / "findings"
    findings.mkdir()
    record = next((ROOT / "findings").glob("divergence-*.json"))
    shutil.copy(record, findings / record.name)
    (findings / "d.json").mkdir()  # a folder, not a record
    shutil.copy(record, findings / f"copy\x1b[31m-{record.stem.rsplit('-', 1)[-1]}.json")
    (tmp_path / "test_nothing.py").write_text("def test_ok():\n    pass\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-p",
         "no:randomly", "--pctfuzz-findings", str(findings)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    output = run.stdout + run.stderr
    assert "Traceback" not in output and "INTERNALERROR" not in output, output
    assert "\x1b" not in output, output
    # the record and its copy: two items, two names; d.json is no item
    assert "2 failed, 1 passed" in run.stdout, output
    names = [line.split(" ", 1)[1].split(" - ")[0] for line in run.stdout.splitlines()
             if line.startswith("FAILED ")]
    assert len(names) == 2 and len(set(names)) == 2, names
