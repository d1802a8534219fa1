"""The ClusterFuzzLite / OSS-Fuzz build (``.clusterfuzzlite/``) and the CI workflows.

Docker is not available here, so ``build.sh`` runs on this machine with stand-ins for
the builder image's tools on PATH: ``compile_python_fuzzer`` records its arguments and
writes a fake fuzzer into ``$OUT`` (as the real one writes a launcher named after the
script), and ``pip3`` records that the project was installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CFLITE = ROOT / ".clusterfuzzlite"
WORKFLOWS = ROOT / ".github" / "workflows"

STUB_COMPILE = """#!/bin/sh
# stand-in for the builder's compile_python_fuzzer: record, then write $OUT/<basename>
echo "$@" >> "$STUB_LOG"
name=$(basename -s .py "$1")
printf '#!/bin/sh\\n# LLVMFuzzerTestOneInput for fuzzer detection.\\n' > "$OUT/$name"
chmod +x "$OUT/$name"
"""
STUB_PIP = """#!/bin/sh
echo "pip3 $@ (in $PWD)" >> "$STUB_LOG"
"""


def _stubs(folder: Path) -> Path:
    folder.mkdir()
    for name, text in (("compile_python_fuzzer", STUB_COMPILE), ("pip3", STUB_PIP)):
        (folder / name).write_text(text)
        (folder / name).chmod(0o755)
    return folder


def _build(tmp_path: Path, cwd: Path) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    out, src = tmp_path / "out", tmp_path / "src"
    out.mkdir()
    src.mkdir()
    stubs = _stubs(tmp_path / "stubs")
    log = tmp_path / "stub.log"
    env = dict(os.environ, OUT=str(out), SRC=str(src), STUB_LOG=str(log),
               PATH=f"{stubs}{os.pathsep}{os.environ['PATH']}")
    run = subprocess.run(["bash", str(CFLITE / "build.sh")], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=60, check=False)
    return run, out, log


def test_build_sh_builds_every_harness_with_corpus_and_dictionary(tmp_path: Path) -> None:
    run, out, log = _build(tmp_path, ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    harnesses = sorted(ROOT.glob("harness/fuzz_*.py"))
    assert harnesses
    calls = log.read_text().splitlines()
    assert calls[0] == f"pip3 install . (in {ROOT})"
    assert calls[1:] == [f"harness/{h.name} --collect-submodules pctfuzz" for h in harnesses]

    for script in harnesses:
        name = script.stem  # fuzzer name = script basename without .py
        target = name.removeprefix("fuzz_")
        assert re.fullmatch(r"[A-Za-z0-9_-]+", target)
        fuzzer = out / name
        assert fuzzer.is_file() and os.access(fuzzer, os.X_OK)
        assert (out / f"{name}.dict").read_bytes() == (ROOT / "harness" / f"{target}.dict"
                                                       ).read_bytes()
        assert "max_len = 4096" in (out / f"{name}.options").read_text()
        corpus = {p.name: p.read_bytes() for p in (ROOT / "corpus" / target).iterdir()
                  if p.is_file() and not p.name.startswith(".")}
        with zipfile.ZipFile(out / f"{name}_seed_corpus.zip") as archive:
            assert archive.testzip() is None
            assert {n: archive.read(n) for n in archive.namelist()} == corpus
    produced = {p.name for p in out.iterdir()}
    expected = {f"{h.stem}{suffix}" for h in harnesses
                for suffix in ("", ".dict", ".options", "_seed_corpus.zip")}
    assert produced == expected


def test_build_sh_skips_bad_names_and_fails_without_harnesses(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "harness").mkdir(parents=True)
    shutil.copy(ROOT / "harness" / "fuzz_decode.py", project / "harness" / "fuzz_bad name.py")
    run, out, _log = _build(tmp_path, project)
    assert run.returncode == 1
    assert "skipping" in run.stderr and "no harness" in run.stderr
    assert list(out.iterdir()) == []


def test_dockerfile_and_project_yaml() -> None:
    docker = (CFLITE / "Dockerfile").read_text().splitlines()
    instructions = [line.split()[0] for line in docker if line and not line.startswith("#")]
    assert instructions[0] == "FROM"
    assert "FROM gcr.io/oss-fuzz-base/base-builder-python" in docker
    assert "COPY . $SRC/pctfuzz" in docker and "WORKDIR $SRC/pctfuzz" in docker
    assert "COPY .clusterfuzzlite/build.sh $SRC/" in docker
    project = (CFLITE / "project.yaml").read_text()
    assert re.search(r"^language: python$", project, re.M)
    assert os.access(CFLITE / "build.sh", os.X_OK)


def test_workflow_text() -> None:
    """Checks that need no YAML parser (PyYAML is not a test dependency)."""
    text = (WORKFLOWS / "fuzz.yml").read_text()
    assert "\t" not in text
    for needle in ("pull_request:", "schedule:", "actions/cache/restore@", "actions/cache/save@",
                   "github/codeql-action/upload-sarif@", "actions/upload-artifact@",
                   "security-events: write", "--sarif results/fuzz.sarif",
                   "steps.fuzz.outputs.exit_code == '1'"):
        assert needle in text, needle
    for name in ("cflite_pr.yml", "cflite_batch.yml"):
        flow = (WORKFLOWS / name).read_text()
        assert "google/clusterfuzzlite/actions/build_fuzzers@v1" in flow
        assert "language: python" in flow


def test_workflows_parse_and_wire_up_the_campaign() -> None:
    yaml = pytest.importorskip("yaml")
    fuzz = yaml.safe_load((WORKFLOWS / "fuzz.yml").read_text())
    triggers = fuzz[True]  # YAML 1.1 reads the key `on` as a boolean
    assert {"pull_request", "schedule"} <= set(triggers)
    steps = fuzz["jobs"]["campaign"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("actions/cache/restore@") for u in uses)
    assert any(u.startswith("actions/cache/save@") for u in uses)
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    assert any(u.startswith("actions/upload-artifact@") for u in uses)
    run = "\n".join(s.get("run", "") for s in steps)
    assert "pctfuzz fuzz" in run and "--sarif" in run and "pctfuzz corpus merge" in run
    for name in ("cflite_pr.yml", "cflite_batch.yml"):
        flow = yaml.safe_load((WORKFLOWS / name).read_text())
        for job in flow["jobs"].values():
            build = next(s for s in job["steps"] if "build_fuzzers" in s.get("uses", ""))
            assert build["with"]["language"] == "python"
