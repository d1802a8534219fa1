"""``pctfuzz impls``: every built-in implementation with the version a finding records,
or why it is not available here (real adapters, real Node.js peers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.oracles import IMPLS

ROOT = Path(__file__).resolve().parents[2]


def test_lists_every_builtin_with_its_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["impls", "--json"]) == ExitCode.OK
    listed = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in listed] == list(IMPLS)
    rows = {row["name"]: row for row in listed}
    assert rows["urllib"]["available"] and rows["urllib"]["version"].startswith("stdlib (Python ")
    # make test installs every extra: each Python library reports its distribution.
    for name, dist in (("yarl", "yarl"), ("ada", "ada-url"), ("httpx", "httpx"),
                       ("hyperlink", "hyperlink"), ("boltons", "boltons")):
        assert rows[name]["available"], rows[name]
        assert rows[name]["version"].split()[0] == dist
        assert rows[name]["version"].split()[1][0].isdigit()


def test_a_missing_node_is_not_available_and_the_rest_still_listed(tmp_path: Path) -> None:
    env = dict(os.environ, PATH=str(Path(sys.executable).parent))  # no node on PATH
    run = subprocess.run([sys.executable, "-m", "pctfuzz", "impls"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == ExitCode.OK, run.stderr
    lines = {line.split()[0]: line for line in run.stdout.splitlines() if line.strip()}
    assert "not available" in lines["node"] and "node" in lines["node"].split(":", 1)[1]
    assert "not available" in lines["whatwg-url"]
    assert "stdlib" in lines["urllib"] and "not available" not in lines["yarl"]
    assert run.stdout.rstrip().endswith("use one with pctfuzz fuzz --impl NAME")
