"""A user's project, as a new user has it (issue 22): ``[tool.pctfuzz]`` names the
project's own adapter (a query-value encoder with a planted bug: it leaves ``#`` raw)
and keeps the corpus and findings under ``fuzz/``; every command runs from a subfolder
with no flags. fuzz, report, replay, triage, export, the pytest plugin and
``pctfuzz.testing`` must all see the same findings and the same implementation.

The fixtures are the project (``UserProject``: where it is, how to run pctfuzz and
pytest in it, how to fix its bug) and one campaign on it that found the bug
(``found``, once per module); a test that changes the project works on a copy
(``found_copy``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ADAPTER = '''\
"""The project's query-value encoder{note}."""
from urllib.parse import quote

from pctfuzz._internal.oracles import function_adapter

# The URL Standard's query percent-encode set leaves these raw.
SAFE = "!$%&'()*+,-./:;=?@[\\\\]^_`{{|}}~"{bug}


def encode_query_value(text: str) -> str:
    return quote(text, safe=SAFE)


adapter = function_adapter("qv", encode=encode_query_value, sets={{"query": "query"}})
'''

PYPROJECT = '''\
[project]
name = "qvproject"
version = "1.0"

[tool.pctfuzz]
impl = "qv_encoder:adapter"
corpus = "fuzz/corpus"
findings = "fuzz/findings"
max-time = 15
jobs = 1
'''

TESTING_FILE = '''\
from pctfuzz.testing import differential_tests

globals().update(differential_tests(questions=["encode"]))
'''

#: The planted bug's finding: "#" left raw where the reference writes %23.


@dataclass
class UserProject:
    """A temp project: ``root`` holds pyproject.toml and the adapter; commands run
    from ``cwd``, a subfolder."""

    root: Path

    @property
    def cwd(self) -> Path:
        return self.root / "src" / "app"

    @property
    def findings(self) -> Path:
        return self.root / "fuzz" / "findings"

    @property
    def corpus(self) -> Path:
        return self.root / "fuzz" / "corpus"

    @classmethod
    def create(cls, root: Path, *, broken: bool = True) -> UserProject:
        project = cls(root)
        project.cwd.mkdir(parents=True)
        (root / "pyproject.toml").write_text(PYPROJECT)
        project.write_adapter(broken=broken)
        return project

    def write_adapter(self, *, broken: bool) -> None:
        (self.root / "qv_encoder.py").write_text(ADAPTER.format(
            note=", with a planted bug: it leaves '#' raw" if broken else "",
            bug=' + "#"' if broken else ""))
        shutil.rmtree(self.root / "__pycache__", ignore_errors=True)

    def env(self) -> dict[str, str]:
        # Nothing from the suite's own environment: no PYTHONPATH, no pytest state.
        return {k: v for k, v in os.environ.items()
                if k != "PYTHONPATH" and not k.startswith(("PYTEST", "PCTFUZZ_"))}

    def pctfuzz(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pctfuzz", *args], cwd=self.cwd,
                              env=self.env(), capture_output=True, text=True,
                              timeout=timeout, check=False)

    def pytest(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                               "-p", "no:xdist", *args], cwd=self.cwd, env=self.env(),
                              capture_output=True, text=True, timeout=600, check=False)

    def records(self) -> list[dict[str, object]]:
        return [json.loads(p.read_text()) for p in sorted(self.findings.glob("*.json"))]

    def planted_id(self) -> str:
        (ident,) = [str(r["id"]) for r in self.records()
                    if r["target"] == "diff_encode" and "%23" in str(r["expected"])
                    and "#" in str(r["actual"])]
        return ident


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[UserProject, dict]]:
    """The project after one campaign that found the planted bug, with the campaign's
    ``--json`` document."""
    project = UserProject.create(tmp_path_factory.mktemp("user") / "qvproject")
    run = project.pctfuzz("fuzz", "--json", "campaign.json")
    assert run.returncode == 1, run.stdout + run.stderr
    yield project, {"run": run, "json": json.loads((project.cwd / "campaign.json").read_text())}


@pytest.fixture
def found_copy(found: tuple[UserProject, dict], tmp_path: Path) -> UserProject:
    """A copy of ``found``'s project, for a test that changes it."""
    shutil.copytree(found[0].root, tmp_path / "qvproject", symlinks=True)
    return UserProject(tmp_path / "qvproject")


def test_the_campaign_fuzzes_the_project_adapter_in_the_project_store(
        found: tuple[UserProject, dict]) -> None:
    project, campaign = found
    run = campaign["run"]
    # where the store is, said at the start; the store under the root, nothing in cwd
    assert (f"project {project.root}; corpus {project.corpus}; findings {project.findings}"
            in run.stdout), run.stdout
    assert sorted(p.name for p in project.cwd.iterdir()) == ["campaign.json"]
    assert project.records() and all(r["impl"] == "qv_encoder:adapter"
                                     for r in project.records())
    project.planted_id()
    # The user's code gets the campaign: no invariant target (pctfuzz's self-check) ran.
    summary = campaign["json"]["summary"]
    assert summary["impl_execs"] >= 0.9 * summary["execs"] > 0, summary
    assert {t["target"] for t in campaign["json"]["targets"]} == {"diff_encode"}
    assert "executions on the implementation under test" in run.stdout


def test_report_replay_export_and_the_plugin_see_the_same_finding(
        found: tuple[UserProject, dict]) -> None:
    project, _ = found
    ident = project.planted_id()
    (record,) = project.findings.glob(f"*-{ident}.json")

    report = project.pctfuzz("report")
    assert report.returncode == 0 and ident in report.stdout, report.stdout + report.stderr
    assert f"in {project.findings}" in report.stdout

    # the record names the project's adapter: replayed against it, no --impl needed
    for path in (os.path.relpath(record, project.cwd), os.path.relpath(project.findings,
                                                                      project.cwd)):
        replay = project.pctfuzz("replay", path)
        assert replay.returncode == 1 and f"reproduces (diff_encode, finding {ident})" \
            in replay.stdout, replay.stdout + replay.stderr

    # raw corpus inputs have no record: they run against the project's adapter too
    raw = project.pctfuzz("replay", os.path.relpath(project.corpus / "diff_encode",
                                                    project.cwd))
    assert raw.returncode == 1 and "|impl=qv_encoder:adapter]" in raw.stdout, raw.stdout

    export = project.pctfuzz("export", ident, "-o", "../../test_exported.py")
    assert export.returncode == 0, export.stderr
    exported = project.pytest(str(project.root / "test_exported.py"))
    assert exported.returncode == 1 and "1 failed" in exported.stdout, exported.stdout

    plugin = project.pytest("-q", "--collect-only")
    assert "1 test collected" in plugin.stdout, plugin.stdout
    assert f"fuzz/findings/{record.name}::{ident}" in plugin.stdout, plugin.stdout
    ran = project.pytest("-q")
    assert ran.returncode == 1 and "1 failed" in ran.stdout, ran.stdout
    assert f"reproduces (diff_encode, finding {ident})" in ran.stdout


def test_triage_and_the_plugin_agree_and_a_failed_triage_leaves_no_lock(
        found_copy: UserProject) -> None:
    project = found_copy
    ident = project.planted_id()
    missing = "0123456789abcdef"
    bad = project.pctfuzz("triage", missing, "--status", "fixed")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert not (project.findings / ".locks" / f"{missing}.lock").exists()
    triaged = project.pctfuzz("triage", ident, "--status", "known-divergence",
                              "--note", "by design")
    assert triaged.returncode == 0, triaged.stderr
    ran = project.pytest("-q")
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout


def test_a_record_whose_implementation_does_not_load_is_one_line_exit_2(
        found_copy: UserProject) -> None:
    project = found_copy
    (project.root / "qv_encoder.py").unlink()
    for args in (("replay", "../../fuzz/findings"), ("export", project.planted_id())):
        run = project.pctfuzz(*args)
        assert run.returncode == 2, run.stdout + run.stderr
        assert "qv_encoder" in run.stderr and "Traceback" not in run.stderr
        assert "no longer reproduces" not in run.stdout


def test_pctfuzz_testing_uses_the_project_adapter(found_copy: UserProject) -> None:
    project = found_copy
    (project.root / "tests").mkdir()
    (project.root / "tests" / "test_qv.py").write_text(TESTING_FILE)
    run = project.pytest("-q", str(project.root / "tests"))
    assert run.returncode == 1 and "1 failed" in run.stdout, run.stdout
    assert "qv" in run.stdout and "'#'" in run.stdout
    project.write_adapter(broken=False)
    fixed = project.pytest("-q", str(project.root / "tests"))
    assert fixed.returncode == 0 and "1 passed" in fixed.stdout, fixed.stdout


def test_outside_the_project_the_plugin_names_its_own_flag(
        found: tuple[UserProject, dict], tmp_path: Path) -> None:
    """A record naming an adapter that is not built in, collected outside its project:
    the item fails with one line whose hint is the plugin's flag (it said --impl)."""
    project, _ = found
    shutil.copytree(project.findings, tmp_path / "findings")
    outside = UserProject(tmp_path)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:xdist", "--pctfuzz-findings", "findings"], cwd=tmp_path,
                         env=outside.env(), capture_output=True, text=True, timeout=600,
                         check=False)
    assert run.returncode == 1 and "pass --pctfuzz-impl" in run.stdout, run.stdout
    ident = project.planted_id()
    assert f"findings/divergence-diff_encode-{ident}.json::{ident}" in run.stdout
    mine = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "--pctfuzz-findings", "findings",
                           "--pctfuzz-impl", "qv_encoder:adapter"], cwd=tmp_path,
                          env={**outside.env(), "PYTHONPATH": str(project.root)},
                          capture_output=True, text=True, timeout=600, check=False)
    assert mine.returncode == 1 and "reproduces (diff_encode" in mine.stdout, mine.stdout
