"""Scratch folders that pctfuzz can prove it made, and their clean-up once abandoned.

A killed campaign or merge leaves its scratch folders behind (a ``finally`` never ran).
The next run removes one only when it can prove two things: pctfuzz made it (the name
is ``<prefix><pid>-<random>`` *and* it holds an owner file ``.pctfuzz-owner`` naming
that same pid), and its owner is gone (no process with that pid). Anything else, such
as another program's folder that happens to match the prefix, or the folder of a
running process, is left alone. A reused pid only keeps a leftover longer.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

__all__ = ["OWNER_FILE", "owned_dir", "pid_alive", "remove_abandoned"]

OWNER_FILE = ".pctfuzz-owner"


def pid_alive(pid: int) -> bool:
    """A process with ``pid`` exists in this pid namespace (EPERM: it does)."""
    if pid <= 0:
        return True  # never a process of ours: treat as alive, keep the folder
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def owned_dir(prefix: str, parent: Path | str | None = None) -> Path:
    """A new folder ``<parent>/<prefix><pid>-<random>`` holding its owner file."""
    folder = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(folder / OWNER_FILE, flags, 0o644)
    with os.fdopen(fd, "w") as handle:
        handle.write(f"{os.getpid()}\n")
    return folder


def _owner(folder: str, pid: int) -> bool:
    """``folder`` holds a regular owner file naming ``pid`` (read without following
    a symlink, at most a few bytes)."""
    path = os.path.join(folder, OWNER_FILE)
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > 32:
            return False
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        text = os.read(fd, 32).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    return text == str(pid)


def remove_abandoned(parent: Path | str, prefix: str) -> list[Path]:
    """Remove the ``<prefix><pid>-*`` folders of ``parent`` that pctfuzz made and whose
    owner process is gone; returns them."""
    pattern = re.compile(rf"{re.escape(prefix)}(?P<pid>\d+)-")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    for entry in entries:
        match = pattern.match(entry.name)
        if not match or not entry.is_dir(follow_symlinks=False):
            continue
        pid = int(match["pid"])
        if pid == os.getpid() or pid_alive(pid) or not _owner(entry.path, pid):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed
