"""``pctfuzz oss-fuzz init`` against a hostile or broken project (issue 33.7, 33.8,
33.15): an ``impl`` that would be code, symlinks and FIFOs where its files go, a folder
it cannot write. Each is one line and exit 2, and nothing is written, inside the
project or out of it."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pctfuzz._internal.cli import main
from pctfuzz._internal.cli.ossfuzz import fuzzer_script
from pctfuzz._internal.errors import UsageError

_IMPL = "mypkg.urls:Adapter"
#: Every file init writes, relative to the root (targets = ["diff_encode"]).
_FILES = (".clusterfuzzlite/fuzz_diff_encode.py", ".clusterfuzzlite/build.sh",
          ".clusterfuzzlite/Dockerfile", ".clusterfuzzlite/project.yaml",
          ".github/workflows/cflite_pr.yml", ".github/workflows/cflite_batch.yml")


def _project(root: Path, impl: str = _IMPL) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "p"\n\n[tool.pctfuzz]\nimpl = {_toml(impl)}\n'
        'targets = ["diff_encode"]\n')
    return root


def _toml(value: str) -> str:
    """``value`` as a TOML basic string (json's escapes are TOML's)."""
    import json

    return json.dumps(value)


def _init(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
          *args: str) -> tuple[int, str]:
    monkeypatch.chdir(root)
    code = main(["oss-fuzz", "init", *args])
    return code, capsys.readouterr().err


def _written(root: Path) -> list[str]:
    """What is under ``root`` besides pyproject.toml (symlinks listed, not followed)."""
    found = []
    for folder, dirs, files in os.walk(root):
        found += [os.path.relpath(os.path.join(folder, n), root) for n in dirs + files]
    return sorted(n for n in found if n != "pyproject.toml")


def _one_line_exit_2(code: int, err: str, *named: str) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and "internal error" not in err, err
    for word in named:
        assert word in err, err


# --- 33.7: the impl string is a name, never code -----------------------------------------

HOSTILE_IMPLS = [
    'm:X\n"""\nopen("PWNED", "w")\n"""',  # breaks out of the docstring
    "m:X'\nopen('PWNED', 'w')#",
    'm:X"""; open("PWNED", "w"); """',
    "m:X\\",  # a backslash ending the docstring's line
    "m:",
    ":X",
    "m:1X",
    "m:X Y",
    "m.:X",
    "no such built-in",
]


@pytest.mark.parametrize("impl", HOSTILE_IMPLS)
def test_a_hostile_impl_is_refused_before_anything_is_written(
        tmp_path: Path, impl: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path / "p", impl)
    code, err = _init(root, monkeypatch, capsys)
    _one_line_exit_2(code, err, "impl")
    assert _written(root) == []
    # The same through --impl, in a project whose own impl is fine.
    good = _project(tmp_path / "good")
    code, err = _init(good, monkeypatch, capsys, "--impl", impl)
    _one_line_exit_2(code, err, "impl")
    assert _written(good) == []
    with pytest.raises(UsageError):
        fuzzer_script("diff_encode", impl)


@pytest.mark.parametrize("impl", ["pkg.mod:Outer.Inner", "urllib", "URLLIB", "m:_x9"])
def test_a_good_impl_is_written_as_a_literal(tmp_path: Path, impl: str,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path / "p", impl)
    code, err = _init(root, monkeypatch, capsys)
    assert code == 0, err
    script = (root / ".clusterfuzzlite" / "fuzz_diff_encode.py").read_text()
    compile(script, "fuzz_diff_encode.py", "exec")
    assert f'os.environ.setdefault("PCTFUZZ_IMPL", {impl!r})' in script


def test_the_files_written_use_the_public_line_only(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """docs/api.md: the fuzzers call ``pctfuzz.testing.atheris_main``, and no file names
    the internal package (issue 35.6)."""
    root = _project(tmp_path / "p")
    code, err = _init(root, monkeypatch, capsys)
    assert code == 0, err
    for name in _FILES:
        assert "_internal" not in (root / name).read_text(), name
    script = (root / ".clusterfuzzlite" / "fuzz_diff_encode.py").read_text()
    assert "from pctfuzz.testing import atheris_main" in script
    assert "atheris_main('diff_encode', sys.argv)" in script


# --- 33.8: never through a symlink, never into a FIFO ------------------------------------

@pytest.mark.parametrize("link", [".clusterfuzzlite", ".github", ".github/workflows"])
def test_a_folder_that_is_a_symlink_out_of_the_project_is_refused(
        tmp_path: Path, link: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path / "p")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / link).parent.mkdir(parents=True, exist_ok=True)
    (root / link).symlink_to(outside, target_is_directory=True)
    made = _written(root)
    for args in ((), ("--force",)):
        code, err = _init(root, monkeypatch, capsys, *args)
        _one_line_exit_2(code, err, link, "symlink")
        assert list(outside.iterdir()) == []
        assert _written(root) == made


def test_a_dangling_workflow_link_is_refused_not_written_through(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path / "p")
    (root / ".github" / "workflows").mkdir(parents=True)
    target = tmp_path / "outside" / "pr.yml"
    target.parent.mkdir()
    (root / ".github" / "workflows" / "cflite_pr.yml").symlink_to(target)
    for args in ((), ("--force",)):
        code, err = _init(root, monkeypatch, capsys, *args)
        _one_line_exit_2(code, err, ".github/workflows/cflite_pr.yml", "symlink")
        assert not target.exists()
        assert not (root / ".clusterfuzzlite").exists()


def test_force_never_writes_through_a_linked_build_sh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path / "p")
    assert _init(root, monkeypatch, capsys)[0] == 0
    before = {name: (root / name).read_text() for name in _FILES}
    user_file = tmp_path / "bashrc"
    user_file.write_text("mine\n")
    (root / ".clusterfuzzlite" / "build.sh").unlink()
    (root / ".clusterfuzzlite" / "build.sh").symlink_to(user_file)
    code, err = _init(root, monkeypatch, capsys, "--force")
    _one_line_exit_2(code, err, ".clusterfuzzlite/build.sh", "symlink")
    assert user_file.read_text() == "mine\n"
    assert (root / ".clusterfuzzlite" / "build.sh").is_symlink()
    for name in _FILES:
        if name != ".clusterfuzzlite/build.sh":
            assert (root / name).read_text() == before[name]


def test_a_folder_in_place_of_a_file_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path / "p")
    (root / ".clusterfuzzlite" / "project.yaml").mkdir(parents=True)
    code, err = _init(root, monkeypatch, capsys, "--force")
    _one_line_exit_2(code, err, ".clusterfuzzlite/project.yaml", "not a regular file")
    assert _written(root) == [".clusterfuzzlite", ".clusterfuzzlite/project.yaml"]


@pytest.mark.parametrize("force", [False, True])
def test_a_fifo_in_place_of_the_dockerfile_is_refused_without_hanging(
        tmp_path: Path, force: bool) -> None:
    root = _project(tmp_path / "p")
    (root / ".clusterfuzzlite").mkdir()
    fifo = root / ".clusterfuzzlite" / "Dockerfile"
    os.mkfifo(fifo)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PCTFUZZ_")}
    run = subprocess.run([sys.executable, "-m", "pctfuzz", "oss-fuzz", "init",
                          *(["--force"] if force else [])], cwd=root, env=env,
                         capture_output=True, text=True, timeout=60, check=False)
    _one_line_exit_2(run.returncode, run.stderr, ".clusterfuzzlite/Dockerfile",
                     "not a regular file")
    assert _written(root) == [".clusterfuzzlite", ".clusterfuzzlite/Dockerfile"]


# --- 33.15: a folder that cannot be written: one line, no half set -----------------------

def _refuse(monkeypatch: pytest.MonkeyPatch, name: str, function: str) -> None:
    """Make ``os.<function>`` fail with EACCES on a path holding ``name``, as in a
    read-only folder. The tests run as root, which permission bits do not stop, so the
    failure is simulated where the code meets it."""
    real = getattr(os, function)

    def refused(path: object, *args: object, **kwargs: object) -> object:
        if name in os.fsdecode(path):  # type: ignore[arg-type]
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, function, refused)


def test_a_folder_that_cannot_be_created_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``.clusterfuzzlite`` can be made, ``.github`` cannot (a read-only folder): the
    first used to be written whole before the second failed (exit 4)."""
    root = _project(tmp_path / "p")
    _refuse(monkeypatch, ".github", "mkdir")
    code, err = _init(root, monkeypatch, capsys)
    _one_line_exit_2(code, err, ".github", "Permission denied")
    assert _written(root) == []


def test_a_file_that_cannot_be_written_leaves_the_old_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """With --force, the last file failing (its folder read-only) leaves every file as
    it was, and no temp file."""
    root = _project(tmp_path / "p")
    assert _init(root, monkeypatch, capsys)[0] == 0
    for name in _FILES:
        (root / name).write_text("old\n")
    (root / "pyproject.toml").write_text(
        (root / "pyproject.toml").read_text().replace(_IMPL, "other.mod:Adapter"))
    _refuse(monkeypatch, "cflite_batch.yml", "open")
    code, err = _init(root, monkeypatch, capsys, "--force")
    _one_line_exit_2(code, err, "cflite_batch.yml", "Permission denied")
    assert sorted(_written(root)) == sorted(
        [*_FILES, ".clusterfuzzlite", ".github", ".github/workflows"])
    for name in _FILES:
        assert (root / name).read_text() == "old\n", name


def test_a_read_only_project_folder_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The real thing, where permission bits hold (not as root)."""
    root = _project(tmp_path / "p")
    root.chmod(0o555)
    try:
        probe = root / ".probe"
        try:
            probe.mkdir()
        except PermissionError:
            pass
        else:
            probe.rmdir()
            pytest.skip("permission bits do not stop this user (root)")
        code, err = _init(root, monkeypatch, capsys)
        _one_line_exit_2(code, err, "Permission denied")
        assert _written(root) == []
    finally:
        root.chmod(0o755)
