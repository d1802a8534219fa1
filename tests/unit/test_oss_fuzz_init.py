"""``pctfuzz oss-fuzz init`` against a hostile project (issue 33.7): an ``impl`` that
would be code is one line and exit 2, and nothing is written."""

from __future__ import annotations

import os
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
