"""A user's project, as a new user writes one: ``[tool.pctfuzz]`` with ``fuzz/`` paths, a
function adapter for the project's query-value encoder, which has a planted bug (it
leaves ``#`` raw, which ends a URL's query), and commands run from a subfolder with no
flags but those of the run itself.

``fix_bug`` and ``plant_bug`` edit the encoder; ``seed`` puts an input that shows the
bug in the project's corpus, so a campaign meets it on its first execution whatever
the machine's load (a test waits for that event, never for wall time).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

#: The adapter, as ``[tool.pctfuzz] impl`` names it.
IMPL = "myurls.fuzzing:query_value"

PYPROJECT = """\
[project]
name = "myurls"
version = "0.1"

[tool.setuptools]
packages = ["myurls"]

[tool.pctfuzz]
impl = "myurls.fuzzing:query_value"
targets = ["diff_encode"]
corpus = "fuzz/corpus"
findings = "fuzz/findings"
"""

_ENCODER = '''\
"""The project's code under test: a query-value encoder (URL Standard 5.2)."""

import urllib.parse

SAFE = {safe!r}


def encode_query_value(value: str) -> str:
    return urllib.parse.quote_plus(value, safe=SAFE)
'''
#: What the query-value set leaves raw (encodeURI's set plus # & +), and the bug.
GOOD_SAFE = "-_.!~*'();/?:@=$,"
BUGGY_SAFE = GOOD_SAFE + "#"

_ADAPTER = '''\
from pctfuzz._internal.oracles import function_adapter

from myurls.encode import encode_query_value

query_value = function_adapter("query_value", encode=encode_query_value,
                               sets={"query-value": "query-value"}, space_as_plus=True)
'''


def make_project(root: Path) -> Path:
    """Write the project into ``root`` (with the bug planted); returns the subfolder
    commands run from."""
    (root / "myurls").mkdir(parents=True)
    (root / "src" / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "myurls" / "__init__.py").write_text("")
    (root / "myurls" / "fuzzing.py").write_text(_ADAPTER)
    plant_bug(root)
    return root / "src" / "app"


def plant_bug(root: Path) -> None:
    (root / "myurls" / "encode.py").write_text(_ENCODER.format(safe=BUGGY_SAFE))


def fix_bug(root: Path) -> None:
    (root / "myurls" / "encode.py").write_text(_ENCODER.format(safe=GOOD_SAFE))


def seed(root: Path, value: str = "a#b") -> None:
    """A corpus input of diff_encode that asks the adapter to encode ``value``."""
    code = ("import sys; from pctfuzz._internal.cases import EncodeCase; "
            "from pctfuzz._internal.targets import get_target; "
            "sys.stdout.buffer.write(get_target('diff_encode').to_bytes("
            f"EncodeCase({value!r}, 'query-value', 'utf-8', True)))")
    data = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout
    folder = root / "fuzz" / "corpus" / "diff_encode"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "seed-hash").write_bytes(data)


def pctfuzz(cwd: Path, *args: str, timeout: float = 600,
            pythonpath: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``pctfuzz ARGS`` in ``cwd``, as the user's shell runs it (no PCTFUZZ_ settings
    inherited from the test run)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PCTFUZZ_")}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([sys.executable, "-m", "pctfuzz", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def records(root: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted((root / "fuzz" / "findings").glob("*.json"))]
