"""The project, resolved once (``pctfuzz._internal.project``, issue 22.1) and the limits of its
``[tool.pctfuzz]`` table (issue 23.6, 23.8, 23.9): every bad table is one line and
exit 2, never an internal error, never a value the command line would refuse, never
a store outside the root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pctfuzz._internal.cli import main
from pctfuzz._internal.fuzz.protocol import HarnessSettings
from pctfuzz._internal.project import MAX_SECONDS, ConfigError, Project, load_config, max_jobs


def _project(root: Path, table: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "p"\n\n[tool.pctfuzz]\n{table}')
    return root


def _exit_of(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             *argv: str) -> tuple[int, str]:
    monkeypatch.chdir(root)
    code = main(list(argv))
    return code, capsys.readouterr().err


BAD_TABLES = [
    # 23.6: nested deeper than tomllib's recursion: was exit 4 (RecursionError)
    ("impl = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    # 23.8: the command line's limits
    (f"jobs = {max_jobs() + 1}\n", "jobs must be a whole number from 1 to max_jobs()"),
    ("max-time = 1e300\n", f"at most {MAX_SECONDS}"),
    ("max-time = 0\n", "above 0"),
    # 23.9: folders of the table stay under the root
    ('corpus = "/tmp/elsewhere"\n', "corpus = '/tmp/elsewhere' leaves the project root"),
    ('findings = "../out"\n', "findings = '../out' leaves the project root"),
    ('findings = "fuzz/../../out"\n', "leaves the project root"),
    ('accept = ["../accept.toml"]\n', "accept = '../accept.toml' leaves the project root"),
]


@pytest.mark.parametrize(("table", "message"), BAD_TABLES)
def test_a_bad_table_is_one_line_and_exit_2(tmp_path: Path, table: str, message: str,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path / "proj", table)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_config(root)
    for argv in (("fuzz",), ("report",), ("replay", "x.json"), ("corpus", "seed")):
        code, err = _exit_of(root, monkeypatch, capsys, *argv)
        assert code == 2 and err.count("\n") == 1 and message in err, (argv, err)
        assert "internal error" not in err


def test_flags_may_point_anywhere_and_table_folders_follow_the_root(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", 'corpus = "fuzz/corpus"\nfindings = "fuzz/findings"\n'
                    'impl = "mine:Adapter"\nsets = ["query", "q=query-#"]\n')
    sub = root / "src" / "deep"
    sub.mkdir(parents=True)
    project = Project.load(sub)
    assert project.root == root and project.pyproject == root / "pyproject.toml"
    assert project.corpus == root / "fuzz" / "corpus"
    assert project.findings == root / "fuzz" / "findings"
    assert project.impl == "mine:Adapter" and not project.impl_flag
    assert project.trusted_impls == ("mine:Adapter",)
    assert dict(project.sets) == {"query": "query", "q": "query-#"}
    elsewhere = tmp_path / "elsewhere"
    flagged = Project.load(sub, corpus=str(elsewhere), impl="urllib")
    assert flagged.corpus == elsewhere and flagged.impl == "urllib" and flagged.impl_flag
    bare = tmp_path / "bare"
    bare.mkdir()
    plain = Project.load(bare)
    assert plain.pyproject is None and plain.impl is None and plain.impl_name == "urllib"
    assert plain.findings == bare / "findings"


def test_the_harness_handoff_round_trips_and_drops_a_stale_one() -> None:
    told = HarnessSettings(impl="mine:Adapter", findings="/f", corpus="/c", accept="/a.toml",
                           sets={"q": "query-#"}, root="/root", parent_pid=7)
    env = told.to_env({"PATH": "/bin", "PCTFUZZ_CORPUS": "/old", "PCTFUZZ_FAULT": "old"})
    assert HarnessSettings.from_env(env) == told and env["PATH"] == "/bin"
    assert "PCTFUZZ_FAULT" not in env  # an earlier hand-off's value is not inherited
    assert HarnessSettings.from_env({}) == HarnessSettings()
    with pytest.raises(ValueError, match="PCTFUZZ_SETS"):
        HarnessSettings.from_env({"PCTFUZZ_SETS": "[1]"})


def test_the_run_settings_carry_the_accept_file_and_sets(tmp_path: Path) -> None:
    (tmp_path / "accept.toml").write_text(
        '[[divergence]]\nid = "x"\ncheck = "encode"\nreconciler = "left_raw"\nchars = "#"\n'
        'citation = "c"\nwhy = "w"\n[divergence.example]\nvalue = "#"\nset = "query"\n')
    root = _project(tmp_path, 'accept = ["accept.toml"]\nsets = ["query"]\n')
    project = Project.load(root)
    project.activate()  # checks the file; sets nothing of the process
    # no setting of the process: the run's, handed down
    assert project.run_settings.accept_file == str(root / "accept.toml")
    assert project.run_settings.accepted
    assert dict(project.run_settings.declared_sets) == {"query": "query"}
    assert not Project.load(root, no_accepted=True).run_settings.accepted
    assert project.handoff().run_settings == project.run_settings


@pytest.mark.parametrize(("reconciler", "param"), [("left_raw", "chars = 5"),
                                                   ("encoded", "chars = []"),
                                                   ("both_refuse", "types = 5")])
def test_an_accept_parameter_of_the_wrong_type_is_exit_2(
        tmp_path: Path, reconciler: str, param: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23.6: ``chars = 5``, ``types = 5`` were internal errors (exit 4)."""
    (tmp_path / "a.toml").write_text(
        f'[[divergence]]\nid = "x"\ncheck = "encode"\nreconciler = "{reconciler}"\n{param}\n'
        'citation = "c"\nwhy = "w"\n[divergence.example]\nvalue = "["\nset = "component"\n')
    code, err = _exit_of(tmp_path, monkeypatch, capsys, "divergences", "--accept", "a.toml")
    assert code == 2 and err.count("\n") == 1 and "divergence 1" in err, err


def test_deeply_nested_accept_toml_is_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "deep.toml").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    code, err = _exit_of(tmp_path, monkeypatch, capsys, "divergences", "--accept", "deep.toml")
    assert code == 2 and "nested too deeply" in err and err.count("\n") == 1, err


def test_a_configured_accept_file_may_be_one_string_and_may_not_exist_yet(
        tmp_path: Path) -> None:
    """``accept = "fuzz/accept.toml"`` (one file, as ``pctfuzz accept`` writes it) before
    any entry exists: nothing is accepted, nothing fails; once written, it is in force.
    A flag naming a missing file is still an error."""
    from pctfuzz._internal.errors import PctfuzzError

    root = _project(tmp_path, 'accept = "fuzz/accept.toml"\n')
    project = Project.load(root)
    assert project.accept == str(root / "fuzz" / "accept.toml")
    assert project.accept_in_force is None
    project.activate()
    assert project.run_settings.accept_file is None
    (root / "fuzz").mkdir()
    (root / "fuzz" / "accept.toml").write_text(
        '[[divergence]]\nid = "x"\ncheck = "encode"\nreconciler = "left_raw"\nchars = "#"\n'
        'citation = "c"\nwhy = "w"\n[divergence.example]\nvalue = "#"\nset = "query"\n')
    written = Project.load(root)
    written.activate()
    assert written.run_settings.accept_file == str(root / "fuzz" / "accept.toml")
    flagged = Project.load(root, accept=str(tmp_path / "missing.toml"))
    assert flagged.accept_in_force == str(tmp_path / "missing.toml")
    with pytest.raises(PctfuzzError):
        flagged.activate()


# --- issue 33.11: a committed symlink does not carry the table's paths out of the root ---

@pytest.mark.parametrize(("key", "value"), [("corpus", "fuzz/corpus"),
                                            ("findings", "fuzz/findings"),
                                            ("accept", "fuzz/accept.toml")])
@pytest.mark.parametrize("dangling", [False, True])
def test_a_table_path_through_a_symlink_out_of_the_root_is_refused(
        tmp_path: Path, key: str, value: str, dangling: bool,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(tmp_path / "proj", f'{key} = "{value}"\n')
    outside = tmp_path / "outside"
    if not dangling:
        outside.mkdir()
    (root / "fuzz").symlink_to(outside, target_is_directory=True)
    leads = str(outside / value.split("/")[1])
    with pytest.raises(ConfigError, match=f"{key} = '{value}' leads to {leads}"):
        load_config(root)
    for argv in (("corpus", "seed"), ("report",)):
        code, err = _exit_of(root, monkeypatch, capsys, *argv)
        assert code == 2 and err.count("\n") == 1, (argv, err)
        assert f"[tool.pctfuzz] {key} = '{value}' leads to {leads}" in err, (argv, err)
        assert not os.path.lexists(outside / value.split("/")[1])
    # A flag still points anywhere: only the table's paths come with a cloned repository.
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n\n[tool.pctfuzz]\n')
    flagged = Project.load(root, **{key: str(root / value)})
    assert str(getattr(flagged, key)) == str(root / value)


def test_an_accept_file_linked_out_of_the_root_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared.toml"
    shared.write_text("")
    root = _project(tmp_path / "proj", 'accept = "accept.toml"\n')
    (root / "accept.toml").symlink_to(shared)
    with pytest.raises(ConfigError, match=f"accept = 'accept.toml' leads to {shared}"):
        load_config(root)


def test_a_symlink_that_stays_in_the_root_is_followed(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", 'corpus = "fuzz/corpus"\nfindings = "fuzz/findings"\n')
    (root / "store").mkdir()
    (root / "fuzz").symlink_to(root / "store", target_is_directory=True)
    project = Project.load(root)
    assert project.corpus == root / "fuzz" / "corpus"
    # The root reached through a symlink of its own is still the root.
    (tmp_path / "alias").symlink_to(root, target_is_directory=True)
    assert Project.load(tmp_path / "alias").findings == tmp_path / "alias" / "fuzz" / "findings"
