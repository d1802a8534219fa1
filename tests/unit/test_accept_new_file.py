"""``pctfuzz accept`` in a project that names no accept file (issue 34): it creates
``pctfuzz-accept.toml`` in the root and names it in ``[tool.pctfuzz]`` (the key added
to the table, or the table appended to the root's pyproject.toml), once the file is
written. It used to stop at "no accept file: set accept = [...]"."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import impact_impls
import pytest

from pctfuzz._internal.accept import load_accept_file
from pctfuzz._internal.cli import main
from pctfuzz._internal.cli.tool_table import with_key, with_table
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.store import FindingStore

IMPL = "impact_impls:plus_raw"
TABLE = f'[tool.pctfuzz]  # fuzzing\nimpl = "{IMPL}"\nfindings = "fuzz/findings"\n'


def _project(root: Path, text: str) -> Path:
    """``text`` as the root's pyproject.toml and a harmless finding ('~' left raw) in
    fuzz/findings; the current folder is a subfolder of the root."""
    (root / "pyproject.toml").write_text(text)
    (root / "src").mkdir()
    os.chdir(root / "src")
    return root / "fuzz" / "findings"


def _one_line(capsys: pytest.CaptureFixture[str], *words: str) -> None:
    err = [line for line in capsys.readouterr().err.strip().splitlines()
           if "NEW FINDING" not in line]  # (the finding, as it was recorded)
    assert len(err) == 1 and all(w in err[0] for w in words), err


def test_the_file_is_created_and_named_under_the_tables_header(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    text = f'[project]\nname = "p"\n\n{TABLE}\n[tool.other]\nx = 1\n'
    findings = _project(tmp_path, text)
    ident = impact_impls.record_plus_raw(findings, "~")
    assert main(["accept", ident]) == ExitCode.OK
    # The user's text byte for byte, with one line under the header.
    assert (tmp_path / "pyproject.toml").read_text() == text.replace(
        "# fuzzing\n", '# fuzzing\naccept = "pctfuzz-accept.toml"\n')
    (entry,) = load_accept_file(str(tmp_path / "pctfuzz-accept.toml"))
    assert entry.id.endswith(ident)
    assert FindingStore(findings).get(ident).status == "known-divergence"


def test_a_pyproject_without_the_table_gets_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"')  # no final newline
    ident = impact_impls.record_plus_raw(tmp_path / "findings", "~")
    assert main(["accept", ident, "--impl", IMPL]) == ExitCode.OK
    document = tomllib.loads((tmp_path / "pyproject.toml").read_text())
    assert document == {"project": {"name": "p"},
                        "tool": {"pctfuzz": {"accept": "pctfuzz-accept.toml"}}}
    assert len(load_accept_file(str(tmp_path / "pctfuzz-accept.toml"))) == 1


def test_a_refused_finding_writes_neither_the_file_nor_the_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    findings = _project(tmp_path, TABLE)
    plus = impact_impls.record_plus_raw(findings, "+")  # splits a field: --accept-impact
    assert main(["accept", plus]) == ExitCode.USAGE
    _one_line(capsys, "--accept-impact")
    assert (tmp_path / "pyproject.toml").read_text() == TABLE
    assert not (tmp_path / "pctfuzz-accept.toml").exists()


def test_without_a_pyproject_it_says_to_run_init(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    ident = impact_impls.record_plus_raw(tmp_path / "findings", "~")
    assert main(["accept", ident, "--impl", IMPL]) == ExitCode.USAGE
    _one_line(capsys, "pctfuzz init", "--accept FILE")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["findings"]


def test_a_symlinked_pyproject_is_not_written_through(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    shared = tmp_path / "shared.toml"
    shared.write_text(TABLE)
    root = tmp_path / "p"
    root.mkdir()
    (root / "pyproject.toml").symlink_to(shared)
    ident = impact_impls.record_plus_raw(root / "fuzz" / "findings", "~")
    monkeypatch.chdir(root)
    assert main(["accept", ident]) == ExitCode.USAGE
    _one_line(capsys, "pyproject.toml is a symlink")
    assert shared.read_text() == TABLE and not (root / "pctfuzz-accept.toml").exists()


@pytest.mark.parametrize("text", [
    'tool.pctfuzz.impl = "m:a"\n',  # dotted keys: no header line to add under
    'tool = { pctfuzz = { impl = "m:a" } }\n',
    'x = """\n[tool.pctfuzz]\n"""\n[tool.pctfuzz]\nimpl = "m:a"\n',  # a header in a string
])
def test_a_layout_the_key_cannot_go_into_is_refused_not_damaged(text: str) -> None:
    with pytest.raises(UsageError, match=re.escape('accept = "pctfuzz-accept.toml"')):
        with_key(text, "accept", "pctfuzz-accept.toml", "pyproject.toml")


def test_keys_and_tables_keep_the_text_and_its_line_ends() -> None:
    text = '[tool.pctfuzz]\r\nimpl = "m:a"\r\n'
    assert with_key(text, "accept", "a.toml", "p") == \
        '[tool.pctfuzz]\r\naccept = "a.toml"\r\nimpl = "m:a"\r\n'
    assert with_key("[tool.pctfuzz]", "accept", "a.toml", "p") == \
        '[tool.pctfuzz]\naccept = "a.toml"\n'
    with pytest.raises(UsageError, match="already"):
        with_table('[tool.pctfuzz]\nimpl = "m:a"\n', '[tool.pctfuzz]\naccept = "a"\n', "p")
    with pytest.raises(UsageError, match="add the table by hand"):
        with_table('tool = { black = {} }\n', '[tool.pctfuzz]\naccept = "a"\n', "p")


@pytest.mark.parametrize("table", [True, False], ids=["key-added", "table-appended"])
def test_a_run_that_waited_while_another_named_the_file_does_not_name_it_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: bool) -> None:
    """Two runs at once in a project that names no accept file: both read the
    configuration before either named the file, the second waits for the first's
    lock. It then found the key (or the table) there already: exit 2 after its entry
    was written, the finding left open. The second run's state is made here without a
    race: the configuration it read before the first run, then the first run."""
    from pctfuzz._internal import project

    monkeypatch.chdir(tmp_path)
    if table:
        findings, extra = _project(tmp_path, f'[project]\nname = "p"\n\n{TABLE}'), []
    else:  # the root's pyproject.toml gets the table
        (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
        findings = tmp_path / "findings"
        extra = ["--findings", str(findings), "--impl", IMPL]
    tilde = impact_impls.record_plus_raw(findings, "~")
    plus = impact_impls.record_plus_raw(findings, "+")
    before = project.load_config()
    assert main(["accept", tilde, *extra]) == ExitCode.OK
    monkeypatch.setattr(project, "load_config", lambda start=None: before)
    assert main(["accept", plus, "--accept-impact", *extra]) == ExitCode.OK
    named = (tmp_path / "pyproject.toml").read_text()
    assert named.count("accept = ") == 1, named
    assert tomllib.loads(named)["tool"]["pctfuzz"]["accept"] == "pctfuzz-accept.toml"
    # (tomllib: load_accept_file keeps what the runs in this process loaded)
    tables = tomllib.loads((tmp_path / "pctfuzz-accept.toml").read_text())["divergence"]
    assert sorted(t["id"].rsplit("-", 1)[1] for t in tables) == sorted([tilde, plus])
    store = FindingStore(findings)
    assert store.get(plus).status == store.get(tilde).status == "known-divergence"
