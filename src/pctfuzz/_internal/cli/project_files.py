"""Files a command writes into the user's project (``pctfuzz init``, ``pctfuzz oss-fuzz
init``, the ``[tool.pctfuzz]`` key ``pctfuzz accept`` adds): the names that reach them
checked first, and the files written all or none.

- ``check_reference`` / ``check_impl``: a name written into a file (a Python import, a
  docstring, a shell or YAML line) is ``module.path:Name`` of identifiers (or, for
  ``check_impl``, a built-in implementation's name), never text that could be code.
- ``check_places``: each folder on the way from the root to a file is a real folder or
  missing, and each file a regular one or missing. The project may be a cloned
  repository: a committed symlink must not carry a write out of it, and a FIFO would
  hang the write.
- ``write_all``: every file is written to a temporary file beside it first, then each is
  renamed into place; a failure before the renames removes what was made. A failure is
  one line (``UsageError``, exit 2) ending in "nothing written".
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Collection, Mapping
from pathlib import Path

from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.text import one_line

__all__ = ["check_impl", "check_places", "check_reference", "project_name", "project_table",
           "write_all"]

_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")


def check_reference(text: str, what: str) -> tuple[str, str]:
    """``(module, name)`` of ``module.path:Name`` (both dotted identifiers);
    ``UsageError`` naming ``what`` for anything else."""
    module, colon, attr = text.partition(":")
    if colon and _MODULE.fullmatch(module) and _MODULE.fullmatch(attr):
        return module, attr
    raise UsageError(f"{what} {one_line(repr(text), 80)}: expected module.path:name of "
                     "identifiers")


def check_impl(impl: str, what: str = "impl") -> None:
    """``impl`` is a built-in name or ``module.path:Name`` of identifiers: it is written
    into a fuzzer's docstring and command lines, where anything else could be code."""
    from pctfuzz._internal.oracles.registry import IMPLS

    if ":" not in impl and (impl in IMPLS or impl.lower() in IMPLS):
        return
    try:
        check_reference(impl, what)
    except UsageError:
        raise UsageError(f"{what} {one_line(repr(impl), 80)}: expected a built-in name "
                         "(pctfuzz impls) or module.path:Name of identifiers") from None


def project_table(pyproject: Path | None) -> dict[str, object] | None:
    """The ``[project]`` table (PEP 621) of ``pyproject``, if it has one: then the
    project installs with pip."""
    import tomllib

    if pyproject is None or not pyproject.is_file():
        return None
    try:
        table = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return table if isinstance(table, dict) else None


def project_name(root: Path, table: Mapping[str, object] | None) -> str:
    """The project's name for file contents: ``[project] name``, else the root
    folder's name, reduced to ``[a-z0-9_-]``."""
    name = table.get("name") if table else None
    text = name if isinstance(name, str) else root.name
    text = re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-_")
    return text if _NAME.fullmatch(text) else "project"


def check_places(root: Path, files: Collection[Path], command: str) -> None:
    """``UsageError`` naming the first place on the way to one of ``files`` (under
    ``root``) that is a symlink, or not a folder / not a regular file (module
    docstring); ``command`` names who refuses."""
    for path in files:
        rel = path.relative_to(root)
        place = root
        for part in rel.parts:
            place = place / part
            try:
                mode = os.lstat(place).st_mode
            except FileNotFoundError:
                break  # nor is anything below it
            except OSError as exc:
                raise _unwritable(root, place, exc) from None
            shown = one_line(os.fspath(place.relative_to(root)))
            if stat.S_ISLNK(mode):
                raise UsageError(f"{shown} is a symlink: {command} never writes through "
                                 "one; nothing written")
            if place != path and not stat.S_ISDIR(mode):
                raise UsageError(f"{shown} is not a folder; nothing written")
            if place == path and not stat.S_ISREG(mode):
                raise UsageError(f"{shown} is not a regular file; nothing written")


def write_all(root: Path, files: Mapping[Path, str], scripts: Collection[Path] = ()) -> None:
    """Write ``files`` (path under ``root`` -> text) all or none (module docstring);
    the paths in ``scripts`` are made executable. ``check_places`` first."""
    made: list[Path] = []
    staged: dict[Path, str] = {}
    try:
        for path, text in files.items():
            _make_folders(root, path.parent, made)
            staged[path] = _temp_file(root, path, text, executable=path in scripts)
        for path, tmp in staged.items():
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise _unwritable(root, path, exc) from None
    except UsageError:
        for tmp in staged.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                os.rmdir(folder)
        raise


def _make_folders(root: Path, folder: Path, made: list[Path]) -> None:
    """Make ``folder`` and its missing parents under ``root``, each added to ``made``."""
    place = root
    for part in folder.relative_to(root).parts:
        place = place / part
        try:
            os.mkdir(place)
        except FileExistsError:
            continue  # a real folder: check_places saw it
        except OSError as exc:
            raise _unwritable(root, place, exc) from None
        made.append(place)


def _temp_file(root: Path, path: Path, text: str, *, executable: bool) -> str:
    """``text`` in a new temporary file beside ``path`` (``mkstemp``: a random name
    made with ``O_EXCL``, so a planted symlink is never followed). Its mode is the one
    of the file it replaces, else what the user's umask gives a new file (executable
    for a script)."""
    mask = os.umask(0)
    os.umask(mask)
    mode = (0o777 if executable else 0o666) & ~mask
    with contextlib.suppress(OSError):  # check_places saw a regular file or nothing
        mode = stat.S_IMODE(os.lstat(path).st_mode)
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)  # mkstemp makes 0600
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise _unwritable(root, path, exc) from None
    return tmp


def _unwritable(root: Path, path: Path, exc: OSError) -> UsageError:
    """The one-line error of ``path`` (under ``root``) that could not be written."""
    return UsageError(f"{one_line(os.fspath(path.relative_to(root)))}: cannot be written: "
                      f"{exc.strerror or exc}; nothing written")
