"""``pctfuzz accept ID [ID ...]``: accept a finding's behaviour in one command.

A finding (a divergence, or a crash a ``refuses`` rule explains) whose difference a rule
explains (its ``behaviour``: a reconciler of ``accept.reconcilers.RECONCILERS`` and
that entry's parameters) becomes a
``[[divergence]]`` table of the project's accept file (``[tool.pctfuzz] accept``, the
TOML format of ``pctfuzz.accept``), with its minimized case as the pinned ``example``,
and the finding is marked ``known-divergence``. A project that names no accept file
gets ``pctfuzz-accept.toml`` in its root, and the key in its ``[tool.pctfuzz]`` (the
table appended to the root's pyproject.toml if it has none: ``cli.tool_table``) once
the file is written.

The user's file is never lost: its text is kept byte for byte and the new tables are
appended; the whole new file is written to a temporary file beside it, loaded, its new
entries checked as ``pctfuzz divergences --check`` checks them (the example diverges
and this entry accepts it), and only then renamed over the old one. An id that cannot
be accepted is said in one line and the others are accepted (exit 2 when any was
refused). A finding whose impact splits a field or loses data (``accept.impact``) is
accepted only with ``--accept-impact``: such a finding is usually the bug.

The file itself (issue 33):

- Writers take turns: each holds an exclusive ``flock`` on the file's folder from
  reading the file to renaming the new one, so two runs at once both land.
- A run killed (``kill -9``, a crash) is finished by running it again: the temp file
  it left beside the accept file is removed by the next run (which holds the lock, so
  no writer of that file is alive), and a finding whose entry it wrote but whose
  status it did not set yet (still open) gets its status, exit 0.
- A symlink is written through: the new file replaces the link's target, in the
  target's folder, and the link stays (a shared file gets the entries).
- The new file keeps the old one's mode (and owner, where allowed); a file created
  anew gets the mode the umask gives.
- Anything but a regular file (a FIFO, a device, a folder) is refused before it is
  opened, and a file that cannot be written (an immutable file, a read-only folder) is
  one line: exit 2 (``UsageError``), the old file as it was, no finding's status set.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import re
import secrets
import stat
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pctfuzz._internal.accept.meaning import BLOCKING
from pctfuzz._internal.cli.args import folder_path
from pctfuzz._internal.cli.tool_table import toml_string
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.text import one_line

if TYPE_CHECKING:
    from pctfuzz._internal.project import Project, ProjectConfig
    from pctfuzz._internal.store import FindingStore

__all__ = ["add_command", "toml_string"]

#: check -> how its case JSON becomes the example table (``accept._example``'s keys)
_EXAMPLE_KEYS = {ENCODE.name: ("value", "set", "encoding", "space_as_plus"),
                 DECODE.name: ("value",), FORM_SERIALIZE.name: ("pairs", "encoding"),
                 FORM_PARSE.name: ("text",)}


def _toml_value(value: Any) -> str:
    """A TOML value for a parameter or example field (str, bool, int, lists of them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise UsageError(f"a value of type {type(value).__name__} cannot be written to TOML")


@dataclass(frozen=True)
class _Accepted:
    finding: Any
    entry_id: str
    check: str
    table: str


def _example(check: str, case: Any) -> str:
    """The finding's case as the inline example table of its check."""
    from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase

    values: dict[str, Any]
    if isinstance(case, EncodeCase):
        values = {"value": case.value, "set": case.set_name, "encoding": case.encoding,
                  "space_as_plus": case.space_as_plus}
    elif isinstance(case, DecodeCase):
        values = {"value": case.value}
    elif isinstance(case, FormCase):
        values = {"pairs": [list(p) for p in case.pairs], "encoding": case.encoding}
    elif isinstance(case, FormParseCase):
        values = {"text": case.text}
    else:  # pragma: no cover - every case type is above
        raise UsageError(f"no example format for a {type(case).__name__}")
    if any(isinstance(v, bytes) for v in values.values()):
        raise UsageError("its case is bytes, which an accept file's example cannot hold")
    return "{ " + ", ".join(f"{k} = {_toml_value(values[k])}" for k in _EXAMPLE_KEYS[check]
                            if k in values) + " }"


def _by_hand(ident: str, accept: Path, why: str) -> UsageError:
    return UsageError(
        f"finding {ident} {why}; accept it by hand: add a [[divergence]] table (check, "
        f"reconciler and its parameter, citation, why, example) to {accept} "
        f"(see `python -c 'import pctfuzz.accept; help(pctfuzz.accept)'`), then "
        f"`pctfuzz triage {ident} --status known-divergence`")


def _table(finding: Any, accept: Path, why: str | None, citation: str | None
           ) -> _Accepted:
    """The ``[[divergence]]`` table of one finding (``UsageError`` if it has none)."""
    from pctfuzz._internal.accept import not_acceptable

    behaviour = finding.behaviour
    why_not = not_acceptable(finding.kind, finding.target, behaviour)
    if why_not is not None:
        raise _by_hand(finding.id, accept, why_not)
    rule, params = behaviour["rule"], behaviour["params"]
    case = finding.rebuild_case()
    check = str(finding.case["type"])
    try:
        example = _example(check, case)
    except UsageError as exc:
        raise _by_hand(finding.id, accept, f"cannot be pinned: {exc}") from None
    entry_id = f"{rule.replace('_', '-')}-{finding.id}"
    text = one_line(str(behaviour.get("text") or rule), 200)
    lines = [
        "",
        "[[divergence]]",
        f"id = {toml_string(entry_id)}",
        f"check = {toml_string(check)}",
        f"reconciler = {toml_string(rule)}",
        *(f"{key} = {_toml_value(value)}" for key, value in params.items()),
        f"summary = {toml_string(text)}",
        f"citation = {toml_string(citation or f'pctfuzz finding {finding.id}')}",
        f"why = {toml_string(why or f'accepted with pctfuzz accept: {text}')}",
        f"example = {example}",
    ]
    return _Accepted(finding, entry_id, check, "\n".join(lines) + "\n")


def _existing_ids(text: str, accept: Path) -> set[str]:
    import tomllib

    if not text.strip():
        return set()
    try:
        tables = tomllib.loads(text).get("divergence", [])
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{accept}: not valid TOML ({exc}); fix it first") from None
    return {str(t.get("id")) for t in tables if isinstance(t, dict)} \
        if isinstance(tables, list) else set()


#: How long a run waits for another one writing the same accept file.
_LOCK_WAIT = 60.0


def _write_target(accept: Path) -> Path:
    """The file a write of ``accept`` replaces: ``accept``, or where its symlinks lead.
    ``UsageError`` unless that is a regular file or missing, in an existing folder --
    checked before anything opens it (a FIFO would block, ``/dev/zero`` never ends)."""
    from pctfuzz._internal.store import printable_path

    target = Path(os.path.realpath(accept))
    try:
        mode: int | None = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise UsageError(f"{accept}: cannot be examined: {exc.strerror or exc}") from None
    if mode is not None and stat.S_ISLNK(mode):  # realpath stops inside a loop
        raise UsageError(f"{accept}: is a symlink loop")
    if mode is not None and not stat.S_ISREG(mode):
        shown = "" if target == accept else f" ({printable_path(target)})"
        raise UsageError(f"{accept}: is not a regular file{shown}")
    if not target.parent.is_dir():
        raise UsageError(f"{accept}: folder {printable_path(target.parent)} does not exist")
    return target


@contextlib.contextmanager
def _writer_lock(folder: Path, accept: Path) -> Iterator[int]:
    """An exclusive ``flock`` on ``folder`` itself (no lock file is left anywhere), so
    one ``pctfuzz accept`` at a time reads, checks and replaces a file in it; yields the
    folder's descriptor. ``UsageError`` after ``_LOCK_WAIT`` s of waiting."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise UsageError(f"{accept}: cannot lock its folder: {exc.strerror or exc}") from None
    try:
        deadline = time.monotonic() + _LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    # Another accept writing the file, or a corpus merge of this folder.
                    raise UsageError(f"{accept}: another pctfuzz run held its folder's lock "
                                     f"for {_LOCK_WAIT:g} s; run again") from None
                time.sleep(0.05)
        yield fd
    finally:
        os.close(fd)  # releases the lock


def _read_current(target: Path, accept: Path) -> bytes | None:
    """The bytes of ``target`` (None: no file), read as ``--accept`` reads it."""
    from pctfuzz._internal.accept.files import read_accept_file

    if not os.path.lexists(target):
        return None
    return read_accept_file(target, str(accept))


def _temp_name(target: Path) -> str:
    """The name of the new file ``_write_checked`` writes beside ``target`` (hidden,
    this process's; named .toml: ``load_accept_file`` reads a file by its suffix)."""
    return f".{target.name}.{os.getpid()}.{secrets.token_hex(6)}.toml"


def _remove_stale_temp(target: Path) -> None:
    """Remove the temp files of ``target`` (``_temp_name``) that killed runs left.
    Called under the writer lock: a temp file is written only under it, so every one
    found is a dead run's (a kill between writing it and renaming it)."""
    pattern = re.compile(re.escape(f".{target.name}.") + r"[0-9]+\.[0-9a-f]{12}\.toml")
    with contextlib.suppress(OSError):
        for entry in os.scandir(target.parent):
            if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)


def _write_checked(accept: Path, target: Path, folder_fd: int, old: bytes | None,
                   new_text: str, impl: Any, entry_ids: set[str]) -> None:
    """Write ``new_text`` to a temporary file beside ``target`` (``accept`` or its
    symlinks' end), load it and check its new entries on ``impl`` (``divergences
    --check``), then rename it over ``target`` unless the file changed meanwhile (an
    editor takes no lock). ``UsageError`` leaves ``target`` untouched."""
    from pctfuzz._internal.accept import load_accept_file
    from pctfuzz._internal.checks.registry.examples import check_entries
    from pctfuzz._internal.settings import RunSettings

    tmp = target.parent / _temp_name(target)
    created = False
    try:
        try:
            # 0o666: a new file gets the mode the user's umask gives (mkstemp's is 0600).
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o666)
            created = True
            with os.fdopen(fd, "wb") as handle:
                if old is not None:  # the old file's owner and mode, not ours
                    info = os.stat(target)
                    with contextlib.suppress(OSError):  # only root may give a file away
                        os.fchown(handle.fileno(), info.st_uid, info.st_gid)
                    os.fchmod(handle.fileno(), stat.S_IMODE(info.st_mode))
                handle.write(new_text.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise UsageError(f"{accept}: cannot be written: {exc.strerror or exc}") from None
        entries = [e for e in load_accept_file(str(tmp)) if e.id in entry_ids]
        # the new file, as the next campaign will read it
        failed = [r for r in check_entries(impl, entries, RunSettings(accept_file=str(tmp)))
                  if not r.ok]
        if failed:
            raise UsageError(f"not written: {failed[0].line()}")
        if _read_current(target, accept) != old:
            raise UsageError(f"{accept} changed while the entries were checked; run again")
        try:
            os.replace(tmp, target)
        except OSError as exc:
            raise UsageError(f"{accept}: cannot be written: {exc.strerror or exc}") from None
        created = False
        with contextlib.suppress(OSError):  # the rename survives a crash of the machine
            os.fsync(folder_fd)
    finally:
        if created:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _project(args: argparse.Namespace, accept: Path) -> Project:
    """The project, with the accept file out of force: its entries are checked from the
    new file only (``_write_checked``), and a file still to be created is no error."""
    import dataclasses

    from pctfuzz._internal.project import Project

    project = dataclasses.replace(Project.load(findings=args.findings, impl=args.impl),
                                  accept=str(accept) if accept.is_file() else None)
    project.activate()
    return project


def _cmd_accept(args: argparse.Namespace) -> int:
    from pctfuzz._internal.project import load_config
    from pctfuzz._internal.store import FindingStore

    # The accept file may not exist yet: the table is read as it is (Project.load
    # loads the file it names, and refuses a missing one).
    config = load_config()
    name_it: Callable[[], None] | None = None
    if args.accept:
        accept = Path(args.accept).absolute()
    elif config.values.get("accept"):
        accept = config.root / config.values["accept"][0]
    else:
        accept, name_it = _named_in_config(config)
    if accept.suffix != ".toml":
        raise UsageError(f"{accept}: pctfuzz accept writes TOML files only")
    target = _write_target(accept)
    project = _project(args, accept)
    store = FindingStore(project.findings)
    # One run at a time from reading the file to renaming the new one: a run that
    # waited reads what the other wrote, and adds to it.
    with _writer_lock(target.parent, accept) as folder_fd:
        _remove_stale_temp(target)
        return _append(args, accept, target, folder_fd, project, store, name_it)


def _named_in_config(config: ProjectConfig) -> tuple[Path, Callable[[], None]]:
    """The project names no accept file: ``ACCEPT_FILE`` in its root, and what names it
    in ``[tool.pctfuzz]`` once it is written (the key added to the table, or the table
    appended to the root's pyproject.toml). Checked now: ``UsageError`` before anything
    is written if the key cannot be added."""
    from pctfuzz._internal.cli.project_files import check_places, write_all
    from pctfuzz._internal.cli.tool_table import ACCEPT_FILE, table_text, with_key, with_table

    root = config.root
    pyproject = config.pyproject or root / "pyproject.toml"
    if not pyproject.is_file():
        raise UsageError("no accept file, and no pyproject.toml here to name one in: run "
                         "`pctfuzz init` in your project, or give --accept FILE")
    accept = root / ACCEPT_FILE
    if accept.is_symlink():  # [tool.pctfuzz] would then name a file that may leave the root
        raise UsageError(f"{ACCEPT_FILE} is a symlink: name the accept file in "
                         "[tool.pctfuzz] accept yourself, or give --accept FILE")
    check_places(root, [pyproject], "pctfuzz accept")

    def new_text() -> str | None:
        """The pyproject's new text; None if it names the file already: another run
        at once (which read the configuration before this one) named it first."""
        text = pyproject.read_text(encoding="utf-8")
        if _names(text, ACCEPT_FILE):
            return None
        if config.pyproject is None:  # no table yet: the root's pyproject gets one
            return with_table(text, table_text({"accept": ACCEPT_FILE}), pyproject.name)
        return with_key(text, "accept", ACCEPT_FILE, pyproject.name)

    new_text()  # refused now, before the accept file is written

    def name_it() -> None:
        text = new_text()  # again: under the writer lock, after any run before this one
        if text is not None:
            write_all(root, {pyproject: text})
            print(f"{ACCEPT_FILE}: named in [tool.pctfuzz] accept of {pyproject.name}")

    return accept, name_it


def _names(text: str, name: str) -> bool:
    """Whether the pyproject ``text``'s ``[tool.pctfuzz] accept`` is ``name`` (alone or
    in a list); False for text that is no TOML (``with_key`` says what is wrong)."""
    import tomllib

    try:
        tool = tomllib.loads(text).get("tool")
    except tomllib.TOMLDecodeError:
        return False
    table = tool.get("pctfuzz") if isinstance(tool, dict) else None
    accept = table.get("accept") if isinstance(table, dict) else None
    return accept == name or (isinstance(accept, list) and name in accept)


def _append(args: argparse.Namespace, accept: Path, target: Path, folder_fd: int,
            project: Project, store: FindingStore,
            name_it: Callable[[], None] | None = None) -> int:
    """``_cmd_accept`` under the writer lock: read the file, append, check, replace;
    ``name_it`` names a new accept file in ``[tool.pctfuzz]`` once it is written."""
    from pctfuzz._internal.store import OPEN_STATUSES, StoreError, printable_path

    old = _read_current(target, accept)
    try:
        old_text = old.decode("utf-8") if old is not None else ""
    except UnicodeDecodeError as exc:
        raise UsageError(f"{accept}: not UTF-8 (byte {exc.start}); fix it first") from None
    known = _existing_ids(old_text, accept)
    # Each id on its own: one that cannot be accepted is said in one line and does not
    # stop the others (exit 2 at the end).
    accepted: list[_Accepted] = []
    unfinished: list[_Accepted] = []  # in the file already, the finding still open
    refused: list[str] = []
    for ident in dict.fromkeys(args.ids):
        try:
            item = _table(store.get(ident), accept, args.why, args.citation)
            if item.entry_id in known and item.finding.status in OPEN_STATUSES:
                # A run stopped (kill -9) between writing the entry and setting the
                # status: the entry is in force, so finish that run's work.
                unfinished.append(item)
                continue
            if item.entry_id in known:
                raise UsageError(f"finding {item.finding.id} is accepted already "
                                 f"({item.entry_id} in {accept})")
            if accepted and item.finding.impl != accepted[0].finding.impl:
                raise UsageError(f"finding {item.finding.id} names another implementation "
                                 "than the others; accept it on its own")
            impact = _impact(item.finding)
            if impact in BLOCKING and not args.accept_impact:
                raise UsageError(
                    f"finding {item.finding.id} {_IMPACT_WORDS[impact]} ({impact}); accept it "
                    "only if that is intended, with --accept-impact")
        except (UsageError, StoreError) as exc:
            refused.append(str(exc))
            continue
        accepted.append(item)
    if not accepted and not unfinished:
        if len(refused) == 1:
            raise UsageError(refused[0])
        for line in refused:
            print(f"pctfuzz accept: {one_line(line, 400)}", file=sys.stderr)
        raise UsageError(f"none of the {len(refused)} findings was accepted")
    if accepted:
        _write_entries(accept, target, folder_fd, old, old_text, project, accepted)
    # Also when the entries were written by a run that stopped before it named the file.
    if name_it is not None:
        try:
            name_it()
        except (OSError, UsageError) as exc:
            raise UsageError(f"{accept} written, but [tool.pctfuzz] does not name it yet "
                             f"({exc}); the findings' status was not set") from None
    for item in [*accepted, *unfinished]:
        try:
            store.update_status(item.finding.id, "known-divergence",
                                note=f"accepted as {item.entry_id} in {accept.name}")
        except StoreError as exc:
            raise UsageError(f"{item.entry_id} written, but the finding's status was not "
                             f"set: {exc}") from None
        done = "appended to" if item in accepted else "was in"
        print(f"{item.finding.id}: known-divergence; {item.entry_id} ({item.check}, "
              f"{_impact(item.finding)}) {done} {printable_path(accept)}")
    for line in refused:
        print(f"pctfuzz accept: {one_line(line, 400)}", file=sys.stderr)
    if refused:
        raise UsageError(f"{len(refused)} of {len(refused) + len(accepted)} findings not "
                         "accepted (above); the others were")
    return ExitCode.OK


def _write_entries(accept: Path, target: Path, folder_fd: int, old: bytes | None,
                   old_text: str, project: Project, accepted: list[_Accepted]) -> None:
    """Append the tables of ``accepted`` (findings of one implementation) to the file,
    checked on that implementation (``_write_checked``)."""
    from pctfuzz._internal.fuzz.replay import is_builtin_impl
    from pctfuzz._internal.targets import get_target

    chosen = [item.finding for item in accepted]
    name = chosen[0].impl
    # A record never selects code to run: its implementation is loaded only when it is
    # built in or the one the user named (--impl, [tool.pctfuzz] impl).
    if name not in project.trusted_impls and not is_builtin_impl(
            get_target(chosen[0].target), name):
        raise UsageError(f"the findings name implementation {one_line(str(name), 100)!r}, "
                         "which is not built in; pass --impl to load it")
    impl = project.implementation(str(name))
    head = old_text if not old_text or old_text.endswith("\n") else old_text + "\n"
    if not old_text:
        head = ("# Accepted differences of the implementation under test (pctfuzz.accept).\n"
                "# Entries below were written by `pctfuzz accept`.\n")
    new_text = head + "".join(item.table for item in accepted)
    _write_checked(accept, target, folder_fd, old, new_text, impl,
                   {item.entry_id for item in accepted})


#: What each impact that needs ``--accept-impact`` does, in the refusal's words.
_IMPACT_WORDS = {"splits-field": "writes a delimiter where it must be escaped, or reads one "
                 "that was escaped, so one field reads back as two",
                 "loses-data": "loses data"}


def _impact(finding: Any) -> str:
    """The finding's impact (``accept.impact``)."""
    from pctfuzz._internal.accept.impact import impact_of

    klass = finding.signature.split("|")[3] if finding.signature.count("|") >= 3 else ""
    return impact_of(finding.kind, klass, finding.behaviour)


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "accept", help="accept findings' behaviours: write them to the accept file",
        description="Write the rule that explains each finding (its behaviour), with its "
        "minimized case as the pinned example, to the project's accept file "
        "([tool.pctfuzz] accept; created if missing, existing text kept), and mark the "
        "finding known-divergence. A project that names no accept file gets "
        "pctfuzz-accept.toml in its root, named in [tool.pctfuzz] once it is written. The "
        "file is checked as `pctfuzz divergences --check` does before it replaces the old "
        "one. Exit 2 (nothing written) if a finding has no "
        "such rule: the message says what to write by hand.")
    parser.add_argument("ids", nargs="+", metavar="ID", help="finding ids (16 hex digits)")
    parser.add_argument("--why", metavar="TEXT", help="why the difference is accepted")
    parser.add_argument("--citation", metavar="TEXT",
                        help="the documentation or spec that states the behaviour")
    parser.add_argument("--accept", metavar="FILE",
                        help="the accept file (default: [tool.pctfuzz] accept, else "
                        "pctfuzz-accept.toml in the project root)")
    parser.add_argument("--findings", type=folder_path, metavar="DIR",
                        help="the findings store (default: the project's)")
    parser.add_argument("--impl", metavar="NAME",
                        help="the implementation to load (default: [tool.pctfuzz] impl)")
    parser.add_argument("--accept-impact", action="store_true",
                        help="also accept findings whose impact is splits-field or "
                        "loses-data (refused without it: such a finding is usually the bug)")
    parser.set_defaults(func=_cmd_accept)
