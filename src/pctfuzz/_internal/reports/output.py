"""Writing results: every output file (``--json``, ``--sarif``, ``--junit``,
``report --html``, ``export -o``) is checked before the run; a regular file (or a new
one) is replaced atomically, anything else (``/dev/null``, ``/dev/stdout``, a FIFO) is
written in place, never replaced."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.reports.results import deep_clean
from pctfuzz._internal.text import one_line

__all__ = ["check_destinations", "to_json_text", "write_output"]


def check_destinations(*dests: str | None) -> None:
    """Fail early (``PctfuzzError``) on an output that cannot be written: at most one
    ``-`` (stdout), and every file's folder must exist."""
    given = [d for d in dests if d is not None]
    if sum(d == "-" for d in given) > 1:
        raise UsageError("only one of --json/--sarif/--junit/--html can be '-' (stdout)")
    for dest in given:
        if dest == "-":
            continue
        path = Path(dest)
        if path.is_dir():
            raise UsageError(f"{dest}: is a directory")
        if _special(path):
            continue  # written in place: its folder is never written to
        parent = path.parent if str(path.parent) else Path(".")
        if not parent.is_dir():
            raise UsageError(f"{dest}: folder {parent} does not exist")
        if not os.access(parent, os.W_OK):
            raise UsageError(f"{dest}: folder {parent} is not writable")


def write_output(dest: str, text: str) -> None:
    """Write ``text`` (UTF-8) to ``dest`` atomically, or to stdout for ``-``.

    The temporary file is made by ``tempfile.mkstemp`` in the destination folder:
    a random name, created with ``O_EXCL``, so a symlink planted at a temporary name
    is never followed (creation fails on it instead, and another name is tried). It is
    fsynced and renamed over ``dest``; a symlink at ``dest`` itself is replaced, not
    followed. A reader sees the old file or the new one, never part of one. A ``dest``
    that is a device or FIFO (after symlinks) is written in place instead."""
    if dest == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    path = Path(dest)
    data = text.encode("utf-8", "backslashreplace")
    if _special(path):
        _write_in_place(dest, data)
        return
    folder = path.parent if str(path.parent) else Path(".")
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "wb") as handle:
            mask = os.umask(0)
            os.umask(mask)
            os.fchmod(handle.fileno(), 0o666 & ~mask)  # mkstemp makes 0600
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise UsageError(f"{one_line(dest)}: cannot be written: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _special(path: Path) -> bool:
    """``path`` exists and is neither a regular file nor a folder, after symlinks
    (``/dev/stdout`` is a symlink to a device): renaming over it would replace the
    device, so it is written in place."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _write_in_place(dest: str, data: bytes) -> None:
    """Write to a device or FIFO through its own descriptor; a full device
    (``/dev/full``) is an error (``UsageError``, exit 2), never a silent loss."""
    try:
        fd = os.open(dest, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    except OSError as exc:
        raise UsageError(f"{one_line(dest)}: cannot be written: {exc.strerror or exc}") from None


def to_json_text(document: Mapping[str, Any]) -> str:
    """JSON text (UTF-8 safe: lone surrogates are written as ``\\udXXX`` text)."""
    return json.dumps(deep_clean(document), indent=2, ensure_ascii=False, allow_nan=False) + "\n"

