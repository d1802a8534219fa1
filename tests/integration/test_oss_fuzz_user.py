"""``pctfuzz oss-fuzz init`` for a user's project (``user_project``): the files it
writes, the fuzzer script run as it is, and (``make oss-fuzz-user-check``, outside
``make test``: minutes) the real build with ``compile_python_fuzzer`` and a fuzzer that
finds the project's planted bug from a seed corpus that does not hold it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from user_project import IMPL, make_project, pctfuzz, seed

ROOT = Path(__file__).resolve().parents[2]
#: The planted bug, as the fuzzer reports it: a value with "#" left raw (anywhere inside
#: the quoted value and answer, a "," before it too: 'a,#' was missed).
_FOUND = re.compile(r"Divergence: encode; case=EncodeCase\(value=(['\"])(?:(?!\1).)*#"
                    r".*actual=(['\"])(?:(?!\2).)*#")


def _init(tmp_path: Path, *args: str) -> tuple[Path, subprocess.CompletedProcess[str]]:
    root = tmp_path / "myurls-project"
    cwd = make_project(root)
    return root, pctfuzz(cwd, "oss-fuzz", "init", *args)


def test_init_writes_the_build_files_of_the_configured_project(tmp_path: Path) -> None:
    root, run = _init(tmp_path)
    assert run.returncode == 0, run.stderr
    folder = root / ".clusterfuzzlite"
    assert sorted(p.name for p in folder.iterdir()) == [
        "Dockerfile", "build.sh", "fuzz_diff_encode.py", "project.yaml"]  # targets = [diff_encode]
    script = (folder / "fuzz_diff_encode.py").read_text()
    compile(script, "fuzz_diff_encode.py", "exec")
    assert f'os.environ.setdefault("PCTFUZZ_IMPL", {IMPL!r})' in script
    assert "import myurls.fuzzing" in script  # bundled by PyInstaller
    build = (folder / "build.sh").read_text()
    assert "pip3 install pctfuzz==" in build and "pip3 install ." in build
    assert 'compile_python_fuzzer "$fuzzer" --collect-submodules pctfuzz' in build
    assert '"fuzz/corpus/$target"' in build
    assert "COPY . $SRC/myurls" in (folder / "Dockerfile").read_text()
    assert yaml.safe_load((folder / "project.yaml").read_text())["language"] == "python"
    for name in ("cflite_pr.yml", "cflite_batch.yml"):
        workflow = yaml.safe_load((root / ".github" / "workflows" / name).read_text())
        assert "jobs" in workflow
    assert subprocess.run(["bash", "-n", str(folder / "build.sh")], check=False).returncode == 0
    # Nothing is replaced without --force.
    again = pctfuzz(root, "oss-fuzz", "init")
    assert again.returncode == 2 and "--force" in again.stderr
    assert pctfuzz(root, "oss-fuzz", "init", "--force").returncode == 0


def test_init_bundles_the_accept_file_and_sets(tmp_path: Path) -> None:
    root = tmp_path / "p"
    make_project(root)
    (root / "fuzz").mkdir()
    (root / "fuzz" / "accept.toml").write_text(
        '[[divergence]]\nid = "hash"\ncheck = "encode"\nreconciler = "left_raw"\n'
        'chars = "#"\ncitation = "c"\nwhy = "w"\n'
        'example = { value = "#", set = "query-value", space_as_plus = true }\n')
    with (root / "pyproject.toml").open("a") as file:
        file.write('accept = ["fuzz/accept.toml"]\nsets = ["query-value"]\n')
    run = pctfuzz(root, "oss-fuzz", "init")
    assert run.returncode == 0, run.stderr
    script = (root / ".clusterfuzzlite" / "fuzz_diff_encode.py").read_text()
    assert "PCTFUZZ_ACCEPT" in script and "'accept.toml'" in script
    assert "PCTFUZZ_SETS" in script and "query-value" in script
    assert "--add-data fuzz/accept.toml:." in (root / ".clusterfuzzlite" / "build.sh").read_text()


def test_init_needs_a_project_with_an_adapter(tmp_path: Path) -> None:
    run = pctfuzz(tmp_path, "oss-fuzz", "init")
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1
    (tmp_path / "pyproject.toml").write_text("[tool.pctfuzz]\ntargets = [\"diff_encode\"]\n")
    run = pctfuzz(tmp_path, "oss-fuzz", "init")
    assert run.returncode == 2 and "no impl" in run.stderr


@pytest.mark.slow
def test_the_fuzzer_script_finds_the_planted_bug_as_a_plain_script(tmp_path: Path) -> None:
    root, run = _init(tmp_path)
    assert run.returncode == 0, run.stderr
    seed(root, "ab")  # no "#": the fuzzer must make one
    corpus = root / "fuzz" / "corpus" / "diff_encode"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PCTFUZZ_")}
    # libFuzzer stops at the first crash; -runs bounds a fuzzer that never finds it.
    fuzz = subprocess.run(
        [sys.executable, str(root / ".clusterfuzzlite" / "fuzz_diff_encode.py"),
         f"-artifact_prefix={tmp_path}/", "-runs=2000000", f"-dict={ROOT}/harness/"
         "diff_encode.dict", str(corpus)], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=900, check=False)
    output = fuzz.stdout + fuzz.stderr  # atheris prints the exception on stdout
    assert fuzz.returncode != 0, output[-2000:]
    assert _FOUND.search(output), output[-2000:]
    assert list(tmp_path.glob("crash-*"))


_VENV = os.environ.get("PCTFUZZ_OSSFUZZ_VENV")


@pytest.mark.slow
@pytest.mark.skipif(not _VENV, reason="make oss-fuzz-user-check runs it (a venv with "
                    "atheris, pyinstaller and this pctfuzz)")
def test_compile_python_fuzzer_builds_the_project_and_its_fuzzer_finds_the_bug(
        tmp_path: Path) -> None:
    root, run = _init(tmp_path)
    assert run.returncode == 0, run.stderr
    seed(root, "ab")
    env = dict(os.environ, MAX_TIME="600", TMPDIR=str(tmp_path))
    check = subprocess.run([str(ROOT / ".clusterfuzzlite" / "oss_fuzz_check"),
                            str(Path(str(_VENV)).absolute()), str(root)], env=env,
                           capture_output=True, text=True, timeout=1800, check=False)
    print(check.stdout)
    # Exit 1: a fuzzer crashed, i.e. found something (3 would be a broken build or run).
    assert check.returncode == 1, check.stdout + check.stderr
    assert re.search(r"^build: build\.sh \(address\) took \d+ s$", check.stdout, re.M)
    failed = re.search(r"^FAIL fuzz_diff_encode: .*\(log: (\S+)\)$", check.stdout, re.M)
    assert failed is not None, check.stdout
    log = Path(failed[1]).read_text(errors="replace")
    assert _FOUND.search(log), log[-3000:]
    assert "INFO: seed corpus: files: 1" in log
