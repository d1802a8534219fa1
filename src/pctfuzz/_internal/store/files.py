"""File primitives of the store: bounded reads, atomic writes, fsync, locks, names.

Local POSIX filesystems are assumed (``flock`` is not reliable over NFS).

- A read checks type and size with ``lstat`` *before* it opens the file, opens with
  ``O_NOFOLLOW | O_NONBLOCK`` and checks again on the descriptor: a symlink is never
  followed, a FIFO never blocks, a huge file is never read.
- A write goes to a temp file ``.<name>.<pid>.<random>.tmp`` in the same folder, is
  flushed and fsynced, renamed over the target with ``os.replace`` (or hard-linked, for
  an exclusive add), and the folder is fsynced: a reader sees the old file or the new
  one, never a mix, and a killed writer leaves at most a hidden temp file, which
  readers ignore and ``cleanup_stale_temp`` removes.
- ``inside`` refuses a path whose resolved folder leaves the store root.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import secrets
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final, TypeGuard

from pctfuzz._internal.identity import TARGET_NAME
from pctfuzz._internal.store.errors import StoreError, StoreReadError, printable_path, short

__all__ = [
    "atomic_write",
    "cleanup_stale_temp",
    "inside",
    "is_target_name",
    "locked",
    "read_regular_file",
    "shared_flock",
    "validate_target",
]

_TEMP_RE: Final = re.compile(r"\..+\.[0-9]+\.[0-9a-f]{12}\.tmp")
_TARGET_RE: Final = re.compile(TARGET_NAME)


def is_target_name(name: object) -> TypeGuard[str]:
    """``name`` is a str matching ``identity.TARGET_NAME`` (safe as a folder name)."""
    return isinstance(name, str) and _TARGET_RE.fullmatch(name) is not None


def validate_target(target: object) -> str:
    """``target`` if it matches ``identity.TARGET_NAME``, else ``StoreError``."""
    if not is_target_name(target):
        raise StoreError("<target>", f"invalid target name {short(target)}: use {TARGET_NAME}")
    return target


def read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see the module docstring:
    checked before it is opened, and again on the descriptor in case the entry was
    swapped in between)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise StoreError(path, "vanished while being read") from None
    except OSError as exc:
        raise StoreReadError(path, f"cannot be examined: {exc.strerror}") from None
    _check_stat(path, st, limit)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise StoreReadError(path, f"cannot be read: {exc.strerror}") from None
    try:
        _check_stat(path, os.fstat(fd), limit)
        chunks: list[bytes] = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as exc:
        raise StoreReadError(path, f"cannot be read: {exc.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise StoreError(path, f"grew past the {limit}-byte limit while being read")
    return data


def _check_stat(path: Path, st: os.stat_result, limit: int) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise StoreError(path, "is a symlink (symlinks are never followed)")
    if stat.S_ISDIR(st.st_mode):
        raise StoreError(path, "is a directory, expected a file")
    if not stat.S_ISREG(st.st_mode):
        raise StoreError(path, "is not a regular file")
    if st.st_size > limit:
        raise StoreError(path, f"is {st.st_size} bytes, over the {limit}-byte limit")


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some filesystems cannot fsync a directory; the rename still holds
        pass
    finally:
        os.close(fd)


def _temp_path(final: Path) -> Path:
    return final.parent / f".{final.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp"


def check_writable(folder: Path) -> None:
    """``StoreError`` (one line) unless a file can be created in ``folder``: a real
    create and remove, since neither mode bits (root ignores them) nor ``os.access``
    (blind to a read-only mount, an immutable folder) tell. The probe is named as a
    temp file, so a leftover of a killed run is removed like one."""
    probe = _temp_path(folder / "write-check")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        os.close(os.open(probe, flags, 0o644))
    except OSError as exc:
        raise StoreError(folder, f"cannot write here: {exc.strerror}") from None
    with contextlib.suppress(FileNotFoundError):
        os.unlink(probe)


def atomic_write(final: Path, data: bytes, *, exclusive: bool = False) -> bool:
    """Write ``data`` to ``final`` atomically (temp file, fsync, rename, fsync dir).

    With ``exclusive`` the finished temp file is hard-linked to ``final``, which fails
    if ``final`` exists: returns False then, and nothing changes. Otherwise ``final``
    is replaced. True means this call created/replaced ``final``. Only a regular file
    is ever replaced: a device, FIFO, socket, folder or symlink at ``final`` is a
    ``StoreError`` and stays as it is (a rename would put a file in its place).
    """
    _check_replaceable(final)
    tmp = _temp_path(final)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(tmp, flags, 0o644)
    except OSError as exc:
        raise StoreError(tmp, f"cannot create temp file: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if exclusive:
            try:
                os.link(tmp, final)
            except FileExistsError:
                return False
            except OSError:  # no hard links here (some FUSE/SMB mounts): best effort
                if os.path.lexists(final):
                    return False
                os.replace(tmp, final)
        else:
            os.replace(tmp, final)
    except OSError as exc:
        raise StoreError(final, f"cannot be written: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    _fsync_dir(final.parent)
    return True


def _check_replaceable(final: Path) -> None:
    try:
        mode = os.lstat(final).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(final, f"cannot be examined: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        kind = "a symlink" if stat.S_ISLNK(mode) else "not a regular file"
        raise StoreError(final, f"is {kind}: not replaced")


def cleanup_stale_temp(folder: Path, max_age_s: float) -> list[Path]:
    """Remove temp files (``.<name>.<pid>.<random>.tmp``) older than ``max_age_s``
    seconds from ``folder``: leftovers of writers killed mid-write. Returns them."""
    removed: list[Path] = []
    cutoff = time.time() - max_age_s
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not _TEMP_RE.fullmatch(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode) or st.st_mtime > cutoff:
                continue
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed


def inside(root: Path, path: Path) -> Path:
    """``path`` (whose parent must exist) if its resolved parent lies in ``root``."""
    parent = path.parent.resolve()
    if not parent.is_relative_to(root):
        raise StoreError(path, f"resolves outside the store root {printable_path(root)}")
    return parent / path.name


@contextlib.contextmanager
def locked(lock: Path) -> Iterator[None]:
    """An exclusive ``flock`` on the file ``lock`` (created if missing, never through a
    symlink). The kernel drops the lock of a killed holder. The file is left in place
    on purpose: unlinking a lock file races with its next user."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(lock, flags, 0o644)
    except OSError as exc:
        raise StoreError(lock, f"cannot open lock file: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


@contextlib.contextmanager
def shared_flock(folder: Path) -> Iterator[None]:
    """A shared ``flock`` on ``folder`` itself, held while one input is added, so that
    ``merge`` (which takes it exclusively around its final carry-over and swap) never
    swaps the folder between an add's temp file and its link. Best effort where a
    folder cannot be opened or locked."""
    held = None
    for _ in range(100):
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            break
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            if os.fstat(fd).st_ino == os.stat(folder).st_ino:
                held = fd  # the folder that is in place now: keep its lock
                break
        except OSError:
            pass
        os.close(fd)  # swapped meanwhile: lock the new one
    try:
        yield
    finally:
        if held is not None:
            os.close(held)
