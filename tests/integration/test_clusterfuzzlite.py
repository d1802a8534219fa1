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
import sys
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
                         capture_output=True, text=True, timeout=600, check=False)
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


# --- `make oss-fuzz-check`: the copy of OSS-Fuzz's compile_python_fuzzer and the check ---

COMPILE = CFLITE / "compile_python_fuzzer"
CHECK = CFLITE / "oss_fuzz_check"

# What upstream's compile_python_fuzzer writes as $OUT/<fuzzer> (google/oss-fuzz,
# infra/base-images/base-builder/compile_python_fuzzer), for fuzz_x.
UPSTREAM_LAUNCHER = """#!/bin/sh
# LLVMFuzzerTestOneInput for fuzzer detection.
this_dir=$(dirname "$0")
chmod +x $this_dir/fuzz_x.pkg
LD_PRELOAD=$this_dir/sanitizer_with_fuzzer.so ASAN_OPTIONS=$ASAN_OPTIONS:symbolize=1:\
external_symbolizer_path=$this_dir/llvm-symbolizer:detect_leaks=0 $this_dir/fuzz_x.pkg $@
"""

# Stand-in for pyinstaller: records its arguments, and writes as the onefile "package"
# the program named by $FAKE_PACKAGE (pyinstaller's --distpath and --name decide where).
FAKE_PYINSTALLER = """#!/bin/sh
printf '%s\\n' "$@" > "$STUB_LOG.pyinstaller"
while [ $# -gt 0 ]; do
  case $1 in --distpath) dist=$2; shift ;; --name) name=$2; shift ;; esac
  shift
done
cp "$FAKE_PACKAGE" "$dist/$name"
"""

# The onefile package of a fake fuzzer, which behaves as its name says. It runs in an
# empty environment (env -i), so where it records its arguments is written into it.
FAKE_PACKAGE = """#!/bin/sh
name=$(basename -s .pkg "$0")
printf '%s\\n' "$(pwd)" "OUT=${OUT-unset}" "LD_PRELOAD=$LD_PRELOAD" "$@" > "@STUBS@/$name.args"
for arg; do case $arg in -artifact_prefix=*) artifacts=${arg#-artifact_prefix=} ;; esac; done
case $name in
  fuzz_ok) echo "#7 INITED cov: 5 ft: 6 corp: 1/1b"; echo "Done 7 runs in 1 second(s)" ;;
  fuzz_noinited) echo "Done 3 runs in 0 second(s)" ;;
  fuzz_crash) echo "==1== ERROR: libFuzzer: deadly signal"; touch "${artifacts}crash-1"; exit 1 ;;
  *) echo "ModuleNotFoundError: No module named 'pctfuzz._internal.oracles'"; exit 255 ;;
esac
"""


def _run_compile(tmp_path: Path, *args: str, sanitizer: str = "address"
                 ) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    out, src, bin_ = tmp_path / "out", tmp_path / "src", tmp_path / "bin"
    for folder in (out, src, bin_):
        folder.mkdir(exist_ok=True)
    (bin_ / "pyinstaller").write_text(FAKE_PYINSTALLER)
    (tmp_path / "package").write_text("#!/bin/sh\n")
    (bin_ / "pyinstaller").chmod(0o755)
    env = dict(os.environ, OUT=str(out), SRC=str(src), SANITIZER=sanitizer,
               STUB_LOG=str(tmp_path / "stub"), FAKE_PACKAGE=str(tmp_path / "package"),
               PATH=f"{bin_}{os.pathsep}{os.environ['PATH']}")
    run = subprocess.run(["bash", str(COMPILE), *args], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600, check=False)
    return run, out, src


def test_compile_python_fuzzer_packages_and_writes_the_launcher_as_upstream(
        tmp_path: Path) -> None:
    run, out, src = _run_compile(tmp_path, "harness/fuzz_x.py", "--collect-submodules",
                                 "pctfuzz")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "stub.pyinstaller").read_text().splitlines() == [
        "--distpath", str(out), f"--workpath={src}/pyfuzzworkdir//fuzz_x", "--onefile",
        "--name", "fuzz_x.pkg", "--collect-submodules", "pctfuzz", "harness/fuzz_x.py"]
    assert (src / "pyfuzzworkdir" / "fuzz_x").is_dir()
    # OSS-Fuzz finds fuzzers by their executable bit: the package has none, the launcher has.
    assert not os.access(out / "fuzz_x.pkg", os.X_OK)
    assert os.access(out / "fuzz_x", os.X_OK)
    assert (out / "fuzz_x").read_text() == UPSTREAM_LAUNCHER


@pytest.mark.parametrize("sanitizer", ["coverage", "introspector"])
def test_compile_python_fuzzer_refuses_the_builder_only_modes(tmp_path: Path,
                                                              sanitizer: str) -> None:
    run, out, _src = _run_compile(tmp_path, "harness/fuzz_x.py", sanitizer=sanitizer)
    assert run.returncode == 2
    assert "builder image" in run.stderr
    assert list(out.iterdir()) == []


def test_make_oss_fuzz_check_has_its_own_venv_outside_make_test() -> None:
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    # --no-print-directory: under `make test` this make is nested and would end its
    # output with "make[1]: Leaving directory ...".
    dry = subprocess.run([make, "--no-print-directory", "-n", "-B", "oss-fuzz-check"],
                         cwd=ROOT, capture_output=True,
                         text=True, timeout=600, check=True).stdout
    assert "-m venv .venv-ossfuzz" in dry
    assert '"pyinstaller==6.10.0"' in dry and '"atheris>=2.3.0"' in dry  # install_python.sh
    assert ".clusterfuzzlite/oss_fuzz_check .venv-ossfuzz" in dry.splitlines()[-1]
    test = subprocess.run([make, "-n", "test"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, check=True).stdout
    assert "oss_fuzz_check" not in test and "venv-ossfuzz" not in test
    assert ".venv-ossfuzz/" in (ROOT / ".gitignore").read_text().splitlines()


def _fake_project(tmp_path: Path, harnesses: tuple[str, ...]) -> tuple[Path, Path]:
    """A git repository with harness/fuzz_<h>.py, a one-file seed corpus each, this
    repository's .clusterfuzzlite/, and a venv whose pyinstaller writes FAKE_PACKAGE."""
    project, venv_bin = tmp_path / "project", tmp_path / "venv" / "bin"
    shutil.copytree(CFLITE, project / ".clusterfuzzlite")
    (project / "harness").mkdir()
    (project / "src" / "pctfuzz" / "data" / "dicts").mkdir(parents=True)
    for name in harnesses:
        (project / "harness" / f"fuzz_{name}.py").write_text("# a fake harness\n")
        (project / "corpus" / name).mkdir(parents=True)
        (project / "corpus" / name / "seed").write_bytes(b"%41")
        (project / "src" / "pctfuzz" / "data" / "dicts" / f"{name}.dict").write_text('"%"\n')
    subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=600)
    subprocess.run(["git", "-C", str(project), "add", "-A"], check=True, timeout=600)
    venv_bin.mkdir(parents=True)
    (tmp_path / "stubs").mkdir()
    (tmp_path / "package").write_text(FAKE_PACKAGE.replace("@STUBS@", str(tmp_path / "stubs")))
    (tmp_path / "package").chmod(0o755)
    (venv_bin / "pyinstaller").write_text(FAKE_PYINSTALLER)
    (venv_bin / "pip3").write_text('#!/bin/sh\necho "pip3 $@" >> "$STUB_LOG"\n')
    for tool in ("pyinstaller", "pip3"):
        (venv_bin / tool).chmod(0o755)
    # The check asks python3 for atheris' sanitizer libraries: this interpreter has atheris.
    pytest.importorskip("atheris")
    (venv_bin / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (venv_bin / "python3").chmod(0o755)
    return project, venv_bin.parent


def _check(tmp_path: Path, project: Path, venv: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OUT", "SRC", "KEEP")}
    env.update(STUB_LOG=str(tmp_path / "stub"), SANITIZER="undefined",
               FAKE_PACKAGE=str(tmp_path / "package"), MAX_TIME="3", TMPDIR=str(tmp_path))
    return subprocess.run([str(project / ".clusterfuzzlite" / "oss_fuzz_check"), str(venv)],
                          env=env, capture_output=True, text=True, timeout=600, check=False)


def test_oss_fuzz_check_runs_each_fuzzer_as_the_runner_does(tmp_path: Path) -> None:
    project, venv = _fake_project(tmp_path, ("ok",))
    run = _check(tmp_path, project, venv)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "ok   fuzz_ok: Done 7 runs in 1 second(s) (seeds: 1, INITED cov: 5 ft: 6)" in (
        run.stdout.splitlines())
    assert (tmp_path / "stub").read_text() == "pip3 install .\n"  # build.sh's, in the venv
    cwd, out, preload, *flags = (tmp_path / "stubs" / "fuzz_ok.args").read_text().splitlines()
    assert Path(cwd).name == "out" and out == "OUT=unset"  # run_fuzzer: cd $OUT; unset OUT
    assert preload == f"LD_PRELOAD={cwd}/sanitizer_with_fuzzer.so"
    assert flags[:4] == ["-rss_limit_mb=2560", "-timeout=25", "-max_len=4096",
                         "-dict=fuzz_ok.dict"]
    assert flags[-2] == "-max_total_time=3"
    assert Path(flags[-1]).name == "fuzz_ok"  # the seed corpus, unzipped
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("pctfuzz-ossfuzz-check")]


def test_oss_fuzz_check_tells_a_crash_from_a_fuzzer_that_never_ran(tmp_path: Path) -> None:
    project, venv = _fake_project(tmp_path, ("ok", "crash"))
    crash = _check(tmp_path, project, venv)
    assert crash.returncode == 1, crash.stdout + crash.stderr  # a finding
    lines = crash.stdout.splitlines()
    assert any(line.startswith("FAIL fuzz_crash: exit 1, no Done line, no INITED line; ")
               for line in lines)
    assert any(line.startswith("ok   fuzz_ok: ") for line in lines)

    for name in ("noimport", "noinited"):
        (project / "harness" / f"fuzz_{name}.py").write_text("# a fake harness\n")
    subprocess.run(["git", "-C", str(project), "add", "-A"], check=True, timeout=600)
    broken = _check(tmp_path, project, venv)
    assert broken.returncode == 3, broken.stdout + broken.stderr  # incomplete wins over 1
    assert any(line.startswith("FAIL fuzz_noimport: exit 255, no Done line, no INITED line; "
                               "last: ModuleNotFoundError") for line in broken.stdout.splitlines())
    # Done without INITED: libFuzzer never finished running the seeds.
    assert any(line.startswith("FAIL fuzz_noinited: exit 0, Done 3 runs in 0 second(s), no INITED")
               for line in broken.stdout.splitlines())


def test_oss_fuzz_check_usage_errors(tmp_path: Path) -> None:
    for args in ([], [str(tmp_path / "missing")], [str(tmp_path)]):
        run = subprocess.run([str(CHECK), *args], capture_output=True, text=True,
                             timeout=600, check=False)
        assert run.returncode == 2, args
        assert run.stderr.count("\n") == 2 and "oss_fuzz_check: error: " in run.stderr
