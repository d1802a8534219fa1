"""pctfuzz in a user's own test suite (issue 13): ``pctfuzz.testing`` and the pytest
plugin, run as a user would, by pytest in a project folder of their own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

ADAPTER = '''
import re
import urllib.parse
from pctfuzz.oracles import function_adapter

def quote(text: str) -> str:
    out = urllib.parse.quote(text, safe="")
    return re.sub("%[0-9A-F]{{2}}", lambda m: m[0].lower(), out) if BROKEN else out

BROKEN = {broken}
Adapter = function_adapter("myurls", encode=quote, sets={{"u": "rfc3986-unreserved"}})
'''

TEST_FILE = '''
from pctfuzz.testing import differential_tests
from myurls import Adapter
globals().update(differential_tests(Adapter))
'''


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    # the project first; then the tree under test, when PYTHONPATH names it
    env["PYTHONPATH"] = os.pathsep.join([str(project), os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *args], cwd=project, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


@pytest.mark.parametrize("broken", [False, True])
def test_three_line_test_file_runs_the_differential_check(tmp_path: Path,
                                                          broken: bool) -> None:
    (tmp_path / "myurls.py").write_text(ADAPTER.format(broken=broken))
    (tmp_path / "test_urls.py").write_text(TEST_FILE)
    run = _pytest(tmp_path, "test_urls.py", "-rs")
    # The adapter answers encode only: the other three questions are skipped, each
    # with the adapter's reason, never passed
    assert "myurls does not answer decode: myurls does not percent-decode" in run.stdout
    if broken:
        assert run.returncode == 1, run.stdout + run.stderr
        assert "1 failed, 3 skipped" in run.stdout, run.stdout
        # The failure reads like a finding, in the user's words
        assert "myurls differs from the reference on encode(" in run.stdout
        assert "behaviour: " in run.stdout and "expected: " in run.stdout
        assert "impl='myurls:Adapter')" in run.stdout  # the replay line
        assert "_internal" not in run.stdout and "Divergence" not in run.stdout
    else:
        assert run.returncode == 0, run.stdout + run.stderr
        assert "1 passed, 3 skipped" in run.stdout, run.stdout


def test_plugin_collects_findings_and_fails_on_a_reproducing_one(tmp_path: Path) -> None:
    findings = tmp_path / "findings"
    shutil.copytree(ROOT / "findings", findings)
    (tmp_path / "test_nothing.py").write_text("def test_ok():\n    pass\n")
    run = _pytest(tmp_path, "--pctfuzz-findings", str(findings))
    # every committed finding is a regression case of a deliberately wrong codec: they
    # all reproduce (status new), so every item fails, and the ordinary test passes
    count = len(list(findings.glob("*.json")))
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"{count} failed, 1 passed" in run.stdout, run.stdout
    assert ": reproduces (" in run.stdout
    # triaged as a known divergence, a finding passes
    for record in findings.glob("*.json"):
        subprocess.run([sys.executable, "-m", "pctfuzz", "triage", record.stem[-16:],
                        "--status", "known-divergence", "--findings", str(findings)],
                       check=True, capture_output=True)
    again = _pytest(tmp_path, "--pctfuzz-findings", str(findings))
    assert again.returncode == 0 and f"{count + 1} passed" in again.stdout, again.stdout
    # without the option the plugin adds nothing
    plain = _pytest(tmp_path)
    assert plain.returncode == 0 and "1 passed" in plain.stdout
