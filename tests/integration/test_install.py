"""pctfuzz as an installed tool: ``python -m pctfuzz._internal.harness``, ``python -m pctfuzz``,
``[tool.pctfuzz]`` and the project root, and (slow) a wheel installed in a fresh venv
outside the repository fuzzing a user's adapter from a subfolder of their project.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import venv
import zipfile
from pathlib import Path

import pytest

from pctfuzz._internal.project import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]
DICTS = ROOT / "src" / "pctfuzz" / "data" / "dicts"


def _run(*args: str, cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_python_m_pctfuzz(tmp_path: Path) -> None:
    run = _run(sys.executable, "-m", "pctfuzz", "encode", "a b", cwd=tmp_path)
    assert run.returncode == 0 and run.stdout == "a%20b\n"


def test_harness_usage_errors_are_one_line(tmp_path: Path) -> None:
    for args in ((), ("nope",), ("-runs=1",)):
        run = _run(sys.executable, "-m", "pctfuzz._internal.harness", *args, cwd=tmp_path)
        assert run.returncode == 2 and run.stderr.splitlines()[-1].startswith(
            "pctfuzz harness: error:"), run.stderr
        assert "Traceback" not in run.stderr


def _inited_cov(cmd: list[str], cwd: Path) -> int:
    run = _run(*cmd, "-runs=0", cwd=cwd)
    match = re.search(r"INITED cov: (\d+)", run.stderr)
    assert match, run.stderr
    return int(match[1])


def test_packaged_harness_is_instrumented_like_the_oss_fuzz_script(tmp_path: Path) -> None:
    """``-m`` imports pctfuzz before the hook: the harness imports it again inside it,
    so the reference carries the same counters as under ``harness/fuzz_encode.py``;
    and it adds the packaged dictionary."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    packaged = _inited_cov([sys.executable, "-m", "pctfuzz._internal.harness", "encode", "a"],
                           tmp_path)
    script = _inited_cov([sys.executable, str(ROOT / "harness" / "fuzz_encode.py"), "b"],
                         tmp_path)
    assert packaged == script > 30
    run = _run(sys.executable, "-m", "pctfuzz._internal.harness", "encode", "a", "-runs=0",
               cwd=tmp_path)
    entries = sum(1 for line in (DICTS / "encode.dict").read_text().splitlines()
                  if line and not line.startswith("#"))
    assert f"Dictionary: {entries} entries" in run.stderr


def test_dictionaries_have_one_home() -> None:
    """``harness/<target>.dict`` (the OSS-Fuzz layout) are links to the package data."""
    from pctfuzz._internal.targets import TARGETS

    for target in TARGETS:
        link = ROOT / "harness" / f"{target}.dict"
        assert link.is_symlink() and link.resolve() == (DICTS / f"{target}.dict").resolve()


# --------------------------------------------------------------------- [tool.pctfuzz]

def _project(folder: Path, table: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n[tool.pctfuzz]\n{table}')
    return folder


def test_root_is_the_nearest_pyproject_with_a_pctfuzz_table(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", 'corpus = "fz/corpus"\nmax-time = 5\n')
    inner = root / "pkg" / "sub"
    inner.mkdir(parents=True)
    (root / "pkg" / "pyproject.toml").write_text('[project]\nname = "no-table"\n')
    config = load_config(inner)
    assert config.root == root and config.pyproject == root / "pyproject.toml"
    assert config.path("corpus", "corpus") == root / "fz" / "corpus"
    assert config.path("findings", "findings") == root / "findings"
    assert config.values["max-time"] == 5
    bare = tmp_path / "bare"
    bare.mkdir()
    assert load_config(bare).root == bare and load_config(bare).values == {}


@pytest.mark.parametrize("table, message", [
    ("colour = 1\n", "unknown key 'colour'"),
    ("max-time = nan\n", "max-time must be a number of seconds above 0"),
    ("max-time = true\n", "max-time must be"),
    ("jobs = 0\n", "jobs must be a whole number from 1 to max_jobs()"),
    ('targets = "decode"\n', "targets must be a list of strings"),
    ("max-time = \n", "not valid TOML"),
])
def test_bad_tables_are_one_line_errors(tmp_path: Path, table: str, message: str) -> None:
    root = _project(tmp_path, table)
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(root)
    run = _run(sys.executable, "-m", "pctfuzz", "fuzz", cwd=root)
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert message in run.stderr and str(root / "pyproject.toml") in run.stderr


@pytest.mark.slow
def test_flags_override_the_table_and_table_folders_follow_the_root(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", 'targets = ["decode"]\nmax-time = 3\njobs = 1\n'
                    'findings = "out/findings"\n')
    sub = root / "deep" / "er"
    sub.mkdir(parents=True)
    run = _run(sys.executable, "-m", "pctfuzz", "fuzz", "--corpus", "here", "--json", "r.json",
               cwd=sub)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"corpus {sub / 'here'}; findings {root / 'out' / 'findings'}" in run.stdout
    settings = json.loads((sub / "r.json").read_text())["settings"]
    assert settings["targets"] == ["decode"] and settings["max_time"] == 3
    assert settings["jobs"] == 1 and (sub / "here" / "decode").is_dir()
    assert (root / "out" / "findings").is_dir() and not (sub / "findings").exists()


# --------------------------------------------------------------------- the wheel

ADAPTER = '''\
"""A user's encoder under test, with a planted bug: "~" is encoded."""
from urllib.parse import quote

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter


def my_quote(text: str, safe: str) -> str:
    return quote(text, safe=safe).replace("~", "%7E")


class MyAdapter(UrllibAdapter):
    name = "myurls"
    modules_under_test = ("myurls",)

    def encode(self, case: EncodeCase) -> str:
        return super().encode(case).replace("~", "%7E")
'''

PROJECT = '''\
[project]
name = "userproject"
version = "1.0"

[tool.pctfuzz]
impl = "myurls:MyAdapter"
targets = ["diff_encode"]
corpus = "fuzzing/corpus"
findings = "fuzzing/findings"
max-time = 8
jobs = 1
'''


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_fuzzes_a_user_project(tmp_path: Path) -> None:
    """Build the wheel from a copy of the sources, install it (dependencies from the
    pip cache or the index) in a venv outside the repository, then run ``pctfuzz fuzz``
    from a subfolder of a user project configured by ``[tool.pctfuzz]``."""
    clock = time.monotonic()
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    wheels = tmp_path / "wheels"
    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(wheels),
                 str(source), cwd=tmp_path, env=env, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    # No setuptools licence (or other deprecation) warnings from the build backend.
    log = built.stdout + built.stderr
    assert not re.search(r"Warning: .*(licen|deprecat)", log, re.I), log
    (wheel,) = wheels.glob("pctfuzz-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {"pctfuzz/_internal/harness.py", "pctfuzz/__main__.py", "pctfuzz/_internal/project.py",
            "pctfuzz/data/dicts/diff_encode.dict"} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names

    home = tmp_path / "venv"
    venv.create(home, with_pip=True)
    python = home / "bin" / "python"
    installed = _run(str(python), "-m", "pip", "install", "-q", str(wheel), cwd=tmp_path,
                     env=env, timeout=600)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    build_seconds = time.monotonic() - clock

    project = tmp_path / "userproject"
    (project / "src" / "deep").mkdir(parents=True)
    (project / "myurls.py").write_text(ADAPTER)
    (project / "pyproject.toml").write_text(PROJECT)
    where = _run(str(python), "-c", "import pctfuzz; print(pctfuzz.__file__)",
                 cwd=project / "src" / "deep", env=env)
    assert where.stdout.startswith(str(home)), where.stdout
    run = _run(str(home / "bin" / "pctfuzz"), "fuzz", cwd=project / "src" / "deep", env=env)
    print(f"wheel + venv + install: {build_seconds:.0f} s")
    assert run.returncode == 1, run.stdout + run.stderr
    store = project / "fuzzing"
    assert f"corpus {store / 'corpus'}; findings {store / 'findings'}" in run.stdout
    records = [json.loads(p.read_text()) for p in (store / "findings").glob("*.json")]
    assert any(r["impl"] == "myurls:MyAdapter" and "7E" in r["actual"] for r in records)
    assert list((store / "corpus" / "diff_encode").iterdir())
    assert not (project / "src" / "deep" / "corpus").exists()
    assert not (project / "src" / "deep" / "findings").exists()
