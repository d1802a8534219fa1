"""The accept file under faults and hostile input (issue 33, items 1, 10, 12, 14).

- Two ``pctfuzz accept`` runs into one file at once both land, even when a rename is
  delayed (item 1).
- A symlinked accept file is written through to its target; an existing file keeps
  its mode, a new one gets the umask's (item 10).
- ``report``, ``triage`` and ``export`` never execute a ``.py`` accept file (item 12).
- A FIFO, a symlink to ``/dev/zero``, a directory, an immutable file, a read-only folder:
  one line, exit 2, nothing written; an empty or comment-only file is added to (item 14).
"""

from __future__ import annotations

import errno
import fcntl
import os
import resource
import stat
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import impact_impls
import pytest

from pctfuzz._internal.accept import ACCEPT_ENV, load_accept_file
from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.store import FindingStore

IMPL = "impact_impls:plus_raw"
SRC = Path(__file__).resolve().parents[2] / "src"
SUPPORT = Path(__file__).resolve().parents[1] / "support"


@pytest.fixture
def tilde(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A harmless finding ('~' left raw) in ``tmp_path/findings``; cwd is ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    return impact_impls.record_plus_raw(tmp_path / "findings", "~")


def _accept(accept: Path | str, ident: str, *extra: str) -> int:
    return main(["accept", ident, "--accept", str(accept), "--findings", "findings",
                 "--impl", IMPL, *extra])


def _one_line(capsys: pytest.CaptureFixture[str], *words: str) -> None:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and all(w in err[0] for w in words), err
    assert "internal error" not in err[0] and "Traceback" not in err[0], err


def _status(tmp_path: Path, ident: str) -> str:
    return FindingStore(tmp_path / "findings").get(ident).status


# --- item 1: two writers at once ----------------------------------------------------------
#: One child: accepts its id into accept-<round>.toml each round, in step with the other
#: child (a start barrier per round), and its rename of the accept file is delayed until
#: the other child reaches its own rename too (or WAIT s pass): without a lock between
#: them, both have checked the old file and both rename, and one entry is lost.
CHILD = textwrap.dedent('''
    import os, sys, time
    from pathlib import Path

    name, other, ident, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    extra, here, WAIT = sys.argv[5:], Path.cwd(), 1.5
    real_replace, current = os.replace, [0]

    def wait_for(marker, seconds):
        deadline = time.monotonic() + seconds
        while not (here / marker).exists() and time.monotonic() < deadline:
            time.sleep(0.01)

    def delayed_replace(src, dst, *args, **kwargs):
        if os.path.basename(dst).startswith("accept-"):
            (here / f"replace-{current[0]}-{name}").touch()
            wait_for(f"replace-{current[0]}-{other}", WAIT)
        return real_replace(src, dst, *args, **kwargs)

    os.replace = delayed_replace
    from pctfuzz._internal.cli import main

    codes = []
    for r in range(rounds):
        current[0] = r
        (here / f"start-{r}-{name}").touch()
        wait_for(f"start-{r}-{other}", 60)
        codes.append(main(["accept", ident, "--accept", f"accept-{r}.toml",
                           "--findings", "findings", "--impl", "impact_impls:plus_raw",
                           *extra]))
    print(" ".join(map(str, codes)))
''')


def test_two_accepts_at_once_keep_both_entries(tmp_path: Path, tilde: str) -> None:
    """Item 1: each round both children accept one id into one new file at once, their
    renames held until both are ready; every round's file holds both entries."""
    plus = impact_impls.record_plus_raw(tmp_path / "findings", "+")
    rounds = 5
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), str(SUPPORT)]))
    env.pop(ACCEPT_ENV, None)
    children = [subprocess.Popen(
        [sys.executable, "-c", CHILD, name, other, ident, str(rounds), *extra],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name, other, ident, extra in (("a", "b", tilde, ()),
                                          ("b", "a", plus, ("--accept-impact",)))]
    outputs = []
    try:
        for child in children:
            outputs.append(child.communicate(timeout=180))
    finally:
        for child in children:
            child.kill()
            child.wait()
    for child, (out, err) in zip(children, outputs, strict=True):
        assert child.returncode == 0, err
        assert out.splitlines()[-1].split() == ["0"] * rounds, (out, err)
    for r in range(rounds):
        text = (tmp_path / f"accept-{r}.toml").read_text()
        assert text.count("[[divergence]]") == 2, text
        assert 'raw = "~"' in text and 'chars = "+"' in text, text
        assert len(load_accept_file(str(tmp_path / f"accept-{r}.toml"))) == 2
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".accept-")]


def test_a_run_that_waits_too_long_for_the_lock_is_one_line(
        tmp_path: Path, tilde: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Another run holding the folder's lock: a bounded wait, then exit 2, nothing written."""
    from pctfuzz._internal.cli import accept as accept_cli

    monkeypatch.setattr(accept_cli, "_LOCK_WAIT", 0.3)
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a descriptor of its own: flock conflicts with it
        assert _accept(tmp_path / "accept.toml", tilde) == ExitCode.USAGE
    finally:
        os.close(fd)
    _one_line(capsys, "accept.toml", "held its folder's lock")
    assert not (tmp_path / "accept.toml").exists() and _status(tmp_path, tilde) == "new"


# --- item 10: a symlink, the file's mode ----------------------------------------------------
#: A shared accept file with one entry of its own.
TEAM = """# the team's accepted differences
[[divergence]]
id = "toml-brackets"
check = "encode"
reconciler = "left_raw"
chars = "[]"
citation = "RFC 3986 3.2.2"
why = "IPv6 literals"
example = { value = "[", set = "encodeURI" }
"""


def test_a_symlinked_accept_file_is_written_through(tmp_path: Path, tilde: str) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    target = shared / "team-accept.toml"
    target.write_text(TEAM)
    target.chmod(0o640)
    link = tmp_path / "accept.toml"
    link.symlink_to(os.path.relpath(target, tmp_path))
    assert _accept(link, tilde) == ExitCode.OK
    assert link.is_symlink() and os.readlink(link) == os.path.relpath(target, tmp_path)
    text = target.read_text()
    assert text.startswith(TEAM) and 'raw = "~"' in text
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert _status(tmp_path, tilde) == "known-divergence"
    assert sorted(p.name for p in shared.iterdir()) == ["team-accept.toml"]


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640)])
def test_a_new_accept_file_gets_the_umask_mode(tmp_path: Path, tilde: str, umask: int,
                                               mode: int) -> None:
    old = os.umask(umask)
    try:
        assert _accept(tmp_path / "accept.toml", tilde) == ExitCode.OK
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "accept.toml").stat().st_mode) == mode


def test_an_existing_accept_file_keeps_its_mode(tmp_path: Path, tilde: str) -> None:
    accept = tmp_path / "accept.toml"
    accept.write_text(TEAM)
    accept.chmod(0o664)
    assert _accept(accept, tilde) == ExitCode.OK
    assert stat.S_IMODE(accept.stat().st_mode) == 0o664


# --- kill -9 of a run, then the same run again (benchmarks/kill_surfaces.py) ---------------
#: A ``pctfuzz accept`` child that SIGKILLs itself at its rename of ``accept.toml``:
#: ``before`` it (the new file written beside it and checked) or just ``after`` it
#: (the entry in force, the finding's status not set yet).
KILLED_CHILD = textwrap.dedent('''
    import os, signal, sys

    when, argv = sys.argv[1], sys.argv[2:]
    real_replace = os.replace

    def replace(src, dst, *args, **kwargs):
        if os.path.basename(dst) == "accept.toml":
            if when == "before":
                os.kill(os.getpid(), signal.SIGKILL)
            real_replace(src, dst, *args, **kwargs)
            os.kill(os.getpid(), signal.SIGKILL)
        return real_replace(src, dst, *args, **kwargs)

    os.replace = replace
    from pctfuzz._internal.cli import main
    sys.exit(main(argv))
''')


def _killed_accept(tmp_path: Path, ident: str, when: str) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), str(SUPPORT)]))
    env.pop(ACCEPT_ENV, None)
    child = subprocess.run(
        [sys.executable, "-c", KILLED_CHILD, when, "accept", ident, "--accept",
         "accept.toml", "--findings", "findings", "--impl", IMPL],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert child.returncode == -9, (child.returncode, child.stderr)


def test_a_run_killed_after_writing_the_entry_is_finished_by_the_next(
        tmp_path: Path, tilde: str) -> None:
    """Killed between the rename and the finding's status: the entry is in force, the
    finding still open. Run again, accept set the status (it said "accepted already",
    exit 2, and left the finding open for good)."""
    (tmp_path / "accept.toml").write_text(TEAM)
    _killed_accept(tmp_path, tilde, "after")
    assert _status(tmp_path, tilde) == "new"
    assert _accept(tmp_path / "accept.toml", tilde) == ExitCode.OK
    assert _status(tmp_path, tilde) == "known-divergence"
    text = (tmp_path / "accept.toml").read_text()
    assert text.startswith(TEAM) and text.count(f"-{tilde}\"") == 1, text
    # Finished now: a third run refuses, as for any accepted finding.
    assert _accept(tmp_path / "accept.toml", tilde) == ExitCode.USAGE


def test_a_run_killed_before_its_rename_leaves_no_temp_file_after_the_next(
        tmp_path: Path, tilde: str) -> None:
    """Killed with the new file written beside the old one: the old one is whole, and
    the next run (under the same lock, so no writer is alive) removes the leftover."""
    (tmp_path / "accept.toml").write_text(TEAM)
    _killed_accept(tmp_path, tilde, "before")
    assert (tmp_path / "accept.toml").read_text() == TEAM
    left = [p.name for p in tmp_path.iterdir() if p.name.startswith(".accept.toml.")]
    assert len(left) == 1, left  # what the kill leaves: the point of this test
    assert _accept(tmp_path / "accept.toml", tilde) == ExitCode.OK
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".accept.toml.")] == []
    assert _status(tmp_path, tilde) == "known-divergence"


# --- item 14: hostile and faulty accept files ----------------------------------------------
def _limit_memory() -> None:
    # Reading /dev/zero whole would take all the machine's memory before MemoryError.
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_a_non_regular_accept_file_is_one_line_and_exit_2(tmp_path: Path, tilde: str,
                                                          kind: str) -> None:
    """Item 14: a FIFO used to hang, /dev/zero to raise MemoryError, a directory to be
    an internal error. In a child process with a timeout: the old code hangs."""
    accept = tmp_path / "accept.toml"
    if kind == "fifo":
        os.mkfifo(accept)  # no writer: opening it for reading would wait forever
    elif kind == "dev-zero":
        accept.symlink_to("/dev/zero")
    else:
        accept.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), str(SUPPORT)]))
    env.pop(ACCEPT_ENV, None)
    run = subprocess.run(
        [sys.executable, "-m", "pctfuzz", "accept", tilde, "--accept", str(accept),
         "--findings", "findings", "--impl", IMPL],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
        preexec_fn=_limit_memory)
    assert run.returncode == ExitCode.USAGE, run.stderr
    err = run.stderr.strip().splitlines()
    assert len(err) == 1 and "is not a regular file" in err[0], err
    assert _status(tmp_path, tilde) == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["accept.toml", "findings"]


def test_an_immutable_accept_file_is_one_line_and_exit_2(
        tmp_path: Path, tilde: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Item 14: root may write any file, so an immutable one (chattr +i: a rename over
    it fails with EPERM) is simulated by making that rename fail the same way."""
    accept = tmp_path / "accept.toml"
    accept.write_text(TEAM)
    real_replace = os.replace

    def immutable(src: str, dst: str, *args: object, **kwargs: object) -> None:
        if Path(dst) == accept:
            raise PermissionError(errno.EPERM, os.strerror(errno.EPERM), str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", immutable)
    assert _accept(accept, tilde) == ExitCode.USAGE
    _one_line(capsys, "accept.toml", "cannot be written", "Operation not permitted")
    assert accept.read_text() == TEAM
    assert _status(tmp_path, tilde) == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["accept.toml", "findings"]


def test_a_read_only_folder_is_one_line_and_exit_2(
        tmp_path: Path, tilde: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Item 14: root may write in any folder, so a read-only one is simulated: creating
    a file in it fails with EROFS (a read-only mount)."""
    folder = tmp_path / "fuzz"
    folder.mkdir()
    real_open = os.open

    def read_only(path: str, flags: int, *args: object, **kwargs: object) -> int:
        if flags & os.O_CREAT and Path(path).parent == folder:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", read_only)
    assert _accept(folder / "accept.toml", tilde) == ExitCode.USAGE
    _one_line(capsys, "accept.toml", "cannot be written", "Read-only file system")
    assert list(folder.iterdir()) == []
    assert _status(tmp_path, tilde) == "new"


@pytest.mark.parametrize("text", ["", "# accepted differences: none yet\n",
                                  "# a comment without a newline"])
def test_an_empty_or_comment_only_accept_file_is_added_to(
        tmp_path: Path, tilde: str, text: str) -> None:
    """Item 14: it used to be refused ("expected [[divergence]] tables")."""
    accept = tmp_path / "accept.toml"
    accept.write_text(text)
    assert load_accept_file(str(accept)) == []
    assert _accept(accept, tilde) == ExitCode.OK
    new = accept.read_text()
    assert new.startswith(text) and 'raw = "~"' in new
    assert len(tomllib.loads(new)["divergence"]) == 1
    assert _status(tmp_path, tilde) == "known-divergence"


# --- item 12: commands that only read run no code of the project ---------------------------
#: A project's .py accept file that says when it runs.
PY_ACCEPT = """
from pathlib import Path
Path(__file__).with_name("executed").write_text("the accept file ran")
divergences = []
"""


def test_read_only_commands_do_not_execute_a_py_accept_file(
        tmp_path: Path, tilde: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Item 12: a cloned repository's accept.py ran on `report`, `triage`, `export`."""
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.pctfuzz]\nimpl = "{IMPL}"\naccept = "accept.py"\n')
    (tmp_path / "accept.py").write_text(PY_ACCEPT)
    executed = tmp_path / "executed"
    for argv in (["report"], ["report", "--json", "-"], ["report", "--upstream", tilde],
                 ["triage", tilde, "--status", "wont-fix"], ["export", tilde]):
        assert main(argv) == ExitCode.OK, (argv, capsys.readouterr().err)
        assert not executed.exists(), argv
    assert _status(tmp_path, tilde) == "wont-fix"
    capsys.readouterr()
    # A command that runs the implementation under test anyway still loads it.
    assert main(["divergences"]) == ExitCode.OK
    assert executed.exists()
