"""``pctfuzz init`` (issue 34): the five files of a project set up around its functions,
the set the probe declares, and the refusals: a table or file that exists (without
``--force``, which keeps the table and the accept file), a hostile name, a function
that does not import, a symlink on the way, a project above the current folder. Each
refusal is one line and exit 2 with nothing written."""

from __future__ import annotations

import ast
import os
import tomllib
from pathlib import Path

import pytest
import yaml

from pctfuzz._internal.accept import load_accept_file
from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode

#: A user's module: a query encoder that leaves '#' raw (the query set encodes it), one
#: that is exactly rfc3986-unreserved with '+' for a space, and a decoder.
USER_MODULE = '''\
from urllib.parse import quote, quote_plus, unquote

QUERY_RAW = "!$%&'()*+,-./:;=?@[\\\\]^_`{|}~"


def encode_query(text):
    return quote(text, safe=QUERY_RAW + "#")


def encode_plus(text):
    return quote_plus(text, safe="")


def decode(text):
    return unquote(text)
'''
FILES = ["pyproject.toml", "pctfuzz_adapter.py", "pctfuzz-accept.toml",
         "tests/test_pctfuzz.py", ".github/workflows/pctfuzz.yml"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project folder holding only the user's module; the current folder."""
    root = tmp_path / "shop"
    root.mkdir()
    (root / "urls_under_test.py").write_text(USER_MODULE)
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))
    return root


def _tree(root: Path) -> dict[str, bytes | str]:
    """Every file (bytes) and symlink (its target) under ``root``."""
    found: dict[str, bytes | str] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            rel = os.path.relpath(path, root)
            if path.is_symlink():
                found[rel] = os.readlink(path)
            elif path.is_file() and "__pycache__" not in rel:
                found[rel] = path.read_bytes()
    return found


def _refused(capsys: pytest.CaptureFixture[str], code: int, *words: str) -> None:
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE, err
    assert err.count("\n") == 1 and "internal error" not in err, err
    assert all(w in err for w in words), err


def test_an_empty_folder_gets_the_five_files(project: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["init", "--encode", "urls_under_test:encode_query",
                 "--decode", "urls_under_test:decode",
                 "--pctfuzz-requirement", "ci/pctfuzz-0.1.0-py3-none-any.whl"])
    assert code == ExitCode.OK, capsys.readouterr().err
    for name in FILES:
        assert (project / name).is_file(), name
        assert "_internal" not in (project / name).read_text(), name  # the public line only
    table = tomllib.loads((project / "pyproject.toml").read_text())["tool"]["pctfuzz"]
    assert table == {"impl": "pctfuzz_adapter:adapter", "accept": "pctfuzz-accept.toml",
                     "corpus": "fuzz/corpus", "findings": "fuzz/findings"}
    assert load_accept_file(str(project / "pctfuzz-accept.toml")) == []
    # The adapter: the functions named, the probe's set, nothing else answered.
    namespace: dict[str, object] = {}
    exec(compile((project / "pctfuzz_adapter.py").read_text(), "a.py", "exec"), namespace)
    adapter = namespace["adapter"]
    assert dict(adapter.sets) == {"encode_query": "query"}  # type: ignore[attr-defined]
    assert adapter.name == "shop"  # type: ignore[attr-defined]
    tests = (project / "tests" / "test_pctfuzz.py").read_text()
    assert 'QUESTIONS = ["encode", "decode"]' in tests and "pctfuzz.testing" in tests
    # The workflow: a bounded campaign, SARIF to code scanning, a job summary.
    workflow = yaml.safe_load((project / ".github/workflows/pctfuzz.yml").read_text())
    steps = workflow["jobs"]["fuzz"]["steps"]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "pctfuzz fuzz --max-time 60 --sarif pctfuzz.sarif" in runs
    assert "python -m pip install ci/pctfuzz-0.1.0-py3-none-any.whl" in runs
    assert 'pctfuzz report --markdown - >> "$GITHUB_STEP_SUMMARY"' in runs
    (upload,) = [s for s in steps if s.get("uses", "").startswith(
        "github/codeql-action/upload-sarif")]
    assert upload["with"]["sarif_file"] == "pctfuzz.sarif"
    assert workflow["jobs"]["fuzz"]["permissions"]["security-events"] == "write"


def test_the_probe_declares_a_set_that_does_not_hide_a_delimiter(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """encode_query is query-# (it leaves '#' raw, which ends a query), which the probe
    spells fragment-` (the same bytes, at the same distance from fragment): declaring
    it would hide the bug, so query is declared and the campaign reports it;
    encode_plus is exactly rfc3986-unreserved, with '+' for a space."""
    assert main(["init", "--encode", "urls_under_test:encode_query",
                 "--encode", "urls_under_test:encode_plus"]) == ExitCode.OK
    text = (project / "pctfuzz_adapter.py").read_text()
    ast.parse(text)
    assert '"encode_query": "query",' in text and '"encode_plus": "rfc3986-unreserved",' in text
    assert 'spaces={"encode_query": False, "encode_plus": True}' in text
    assert "if that is intended, declare fragment-`" in text
    err = capsys.readouterr().err
    assert "urls_under_test:encode_query: set query;" in err


def test_an_existing_pyproject_keeps_its_text(project: Path) -> None:
    text = '[project]\nname = "shop"\nversion = "1"\n\n[tool.black]\nline-length = 99'
    (project / "pyproject.toml").write_text(text)
    assert main(["init"]) == ExitCode.OK
    new = (project / "pyproject.toml").read_text()
    assert new.startswith(text + "\n\n[tool.pctfuzz]\n")
    assert tomllib.loads(new)["tool"]["black"] == {"line-length": 99}
    skeleton = (project / "pctfuzz_adapter.py").read_text()
    ast.parse(skeleton)
    assert "# encode=quote_value," in skeleton
    assert "QUESTIONS = []" in (project / "tests" / "test_pctfuzz.py").read_text()
    assert "python -m pip install .  #" in (project / ".github/workflows/pctfuzz.yml").read_text()


def test_a_second_init_is_refused_and_force_keeps_the_table_and_the_accept_file(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init"]) == ExitCode.OK
    capsys.readouterr()
    accept = project / "pctfuzz-accept.toml"
    accept.write_text(accept.read_text() + "# the user's entries\n")
    before = _tree(project)
    _refused(capsys, main(["init", "--encode", "urls_under_test:encode_plus"]),
             "[tool.pctfuzz] already", "--force")
    assert _tree(project) == before
    assert main(["init", "--force", "--encode", "urls_under_test:encode_plus"]) == ExitCode.OK
    after = _tree(project)
    assert after["pyproject.toml"] == before["pyproject.toml"]
    assert after["pctfuzz-accept.toml"] == before["pctfuzz-accept.toml"]
    assert b"encode=encode_plus" in after["pctfuzz_adapter.py"]  # type: ignore[operator]


def test_a_file_init_writes_is_never_clobbered_without_force(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "tests").mkdir()
    (project / "tests" / "test_pctfuzz.py").write_text("mine\n")
    before = _tree(project)
    _refused(capsys, main(["init"]), "tests/test_pctfuzz.py exists", "nothing written")
    assert _tree(project) == before


HOSTILE = ['m:X\n"""\nopen("PWNED", "w")\n"""', 'm:X"""; open("PWNED", "w"); """',
           "m:X'\nimport os#", "m:", ":X", "m:1X", "m:X Y", "m.:X", "os.system", "m:X\\"]


@pytest.mark.parametrize("flag", ["--encode", "--decode", "--form-serialize", "--form-parse"])
@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_name_is_refused_before_anything_is_imported_or_written(
        project: Path, capsys: pytest.CaptureFixture[str], flag: str, name: str) -> None:
    before = _tree(project)
    _refused(capsys, main(["init", flag, name]), flag, "module.path:name")
    assert _tree(project) == before


@pytest.mark.parametrize("args, words", [
    (["--encode", "urls_under_test:encode_query=query+\n"], ["control character"]),
    (["--encode", "urls_under_test:encode_query=nosuchset"], ["nosuchset"]),
    (["--encode", "no_such_module:quote"], ["cannot import 'no_such_module'"]),
    (["--decode", "urls_under_test:no_such_function"], ["no attribute"]),
    (["--pctfuzz-requirement", "pctfuzz ${{ github.token }}"], ["--pctfuzz-requirement"]),
    (["--pctfuzz-requirement", "pctfuzz\n  - run: x"], ["--pctfuzz-requirement"]),
])
def test_a_bad_set_function_or_requirement_is_one_line(
        project: Path, capsys: pytest.CaptureFixture[str], args: list[str],
        words: list[str]) -> None:
    before = _tree(project)
    _refused(capsys, main(["init", *args]), *words)
    assert _tree(project) == before


@pytest.mark.parametrize("link", ["pyproject.toml", ".github", "tests", "pctfuzz_adapter.py"])
def test_a_symlink_on_the_way_is_refused(project: Path, tmp_path: Path, link: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "target"
    if link in (".github", "tests"):
        target.mkdir()
    else:
        target.write_text("[project]\nname = 'x'\n" if link == "pyproject.toml" else "")
    (project / link).symlink_to(target)
    before, elsewhere = _tree(project), _tree(outside)
    for args in ([], ["--force"]):
        _refused(capsys, main(["init", *args]), f"{link} is a symlink", "nothing written")
        assert _tree(project) == before and _tree(outside) == elsewhere


def test_a_pyproject_above_is_not_a_new_project_inside(
        project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text('[project]\nname = "shop"\n')
    (project / "src").mkdir()
    monkeypatch.chdir(project / "src")
    before = _tree(project)
    _refused(capsys, main(["init"]), str(project / "pyproject.toml"), "project's root")
    assert _tree(project) == before


def test_a_subfolder_of_a_set_up_project_is_that_project(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["init"]) == ExitCode.OK
    (project / "src").mkdir()
    monkeypatch.chdir(project / "src")
    assert main(["init", "--force", "--encode", "urls_under_test:encode_plus"]) == ExitCode.OK
    assert sorted(p.name for p in (project / "src").iterdir()) == []
    assert "encode_plus" in (project / "pctfuzz_adapter.py").read_text()


def test_the_pyproject_keeps_its_mode(project: Path) -> None:
    """The new text replaces the file through a temporary one, which gets the old
    file's mode, not the umask's (``cli.project_files``)."""
    (project / "pyproject.toml").write_text('[project]\nname = "shop"\n')
    (project / "pyproject.toml").chmod(0o600)
    assert main(["init"]) == ExitCode.OK
    assert (project / "pyproject.toml").stat().st_mode & 0o777 == 0o600
    assert (project / "pctfuzz_adapter.py").stat().st_mode & 0o111 == 0  # not a script
