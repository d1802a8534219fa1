"""The corpus: ``<root>/<target>/<sha1 hex of the bytes>``, libFuzzer's own layout.

libFuzzer reads and writes exactly this, so ``python -m pctfuzz._internal.harness TARGET
corpus/TARGET`` and ``Corpus`` share one folder. ``Corpus.iter`` skips and *reports*
(``StoreProblem``) every entry it will not read: folders, symlinks (never followed),
special files, files over the size limit, unreadable files. Hidden names
(``.gitkeep``, temp files) are ignored silently. Adds are idempotent and race-free
between processes: content-addressed names plus an exclusive ``link`` of the finished
temp file, so of several processes adding the same bytes exactly one gets the path.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from pctfuzz._internal.errors import type_name
from pctfuzz._internal.store.errors import StoreError, StoreProblem, printable_path
from pctfuzz._internal.store.files import (
    atomic_write,
    check_writable,
    cleanup_stale_temp,
    inside,
    is_target_name,
    read_regular_file,
    shared_flock,
    validate_target,
)

__all__ = ["DEFAULT_CORPUS_MAX_SIZE", "Corpus", "read_input"]

DEFAULT_CORPUS_MAX_SIZE: Final = 1 << 20  # 1 MiB: seeds may exceed libFuzzer's -max_len


def read_input(path: os.PathLike[str] | str, max_size: int = DEFAULT_CORPUS_MAX_SIZE) -> bytes:
    """The bytes of one raw input file, read as ``Corpus.iter`` reads: a regular file
    (never through a symlink; a FIFO never blocks) of at most ``max_size`` bytes,
    checked before it is read. ``StoreError`` naming the file otherwise. For inputs
    named on the command line (``pctfuzz replay``)."""
    return read_regular_file(Path(path), max_size)


class Corpus:
    """Seed and discovered inputs, one folder per target, files named by sha1.

    ``problems`` collects what ``iter`` skipped when no list is passed to it.
    """

    def __init__(self, root: Path, *, max_size: int = DEFAULT_CORPUS_MAX_SIZE) -> None:
        self.root = Path(root).resolve()
        self.max_size = max_size
        self.problems: list[StoreProblem] = []

    def dir(self, target: str) -> Path:
        """``root/target`` (validated name; not created)."""
        return self.root / validate_target(target)

    @staticmethod
    def name_for(data: bytes) -> str:
        """The libFuzzer file name of ``data``: the sha1 hex of its bytes."""
        return hashlib.sha1(data).hexdigest()

    def _target_dir(self, target: str, *, create: bool) -> Path:
        folder = self.dir(target)
        if create:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(folder, f"cannot create folder: {exc.strerror}") from None
        if folder.is_symlink():
            raise StoreError(folder, "is a symlink (symlinks are never followed)")
        if folder.exists() and not folder.is_dir():
            raise StoreError(folder, "is not a directory")
        resolved = folder.resolve()
        if resolved != self.root / folder.name or not resolved.is_relative_to(self.root):
            root = printable_path(self.root)
            raise StoreError(folder, f"resolves outside the corpus root {root}")
        return folder

    def ensure_dir(self, target: str) -> Path:
        """``root/target``, created if missing. ``StoreError`` (one line) if it is a
        symlink, not a directory, or resolves outside the root: what a campaign must
        check before it gives the folder to libFuzzer, which follows symlinks."""
        return self._target_dir(target, create=True)

    def ensure_writable(self, target: str) -> Path:
        """``ensure_dir``, and ``StoreError`` (one line) unless a file can be written
        there: a campaign's new inputs would otherwise be lost one warning at a time."""
        folder = self.ensure_dir(target)
        check_writable(folder)
        return folder

    def add(self, target: str, data: bytes) -> Path | None:
        """Store ``data``; its path, or None if an identical input is already there."""
        if not isinstance(data, bytes):
            raise StoreError(self.dir(target), f"corpus data must be bytes, not {type_name(data)}")
        if len(data) > self.max_size:
            raise StoreError(
                self.dir(target), f"input of {len(data)} bytes is over the {self.max_size} limit"
            )
        folder = self._target_dir(target, create=True)
        with shared_flock(folder):  # a merge swaps the folder under an exclusive one
            path = inside(self.root, folder / self.name_for(data))
            if os.path.lexists(path):
                return None
            return path if atomic_write(path, data, exclusive=True) else None

    def iter(
        self,
        target: str,
        *,
        max_size: int | None = None,
        problems: list[StoreProblem] | None = None,
    ) -> Iterator[tuple[Path, bytes]]:
        """Yield ``(path, bytes)`` for each readable input of ``target``, sorted by name.

        Skipped entries (directory, symlink, special file, over ``max_size``,
        unreadable) are appended to ``problems`` (default: ``self.problems``).
        Hidden names (``.gitkeep``, ``.*.tmp``) are ignored silently.
        """
        validate_target(target)  # a bad name is the caller's error: raised, not reported
        sink = self.problems if problems is None else problems
        limit = self.max_size if max_size is None else max_size
        try:
            folder = self._target_dir(target, create=False)
        except StoreError as exc:
            sink.append(StoreProblem.from_error(exc))
            return
        try:
            names = sorted(os.listdir(folder))
        except FileNotFoundError:
            return
        except OSError as exc:
            sink.append(StoreProblem(folder, f"cannot be listed: {exc.strerror}"))
            return
        for name in names:
            if name.startswith("."):
                continue
            path = folder / name
            try:
                data = read_regular_file(path, limit)
            except StoreError as exc:
                sink.append(StoreProblem.from_error(exc))
                continue
            yield path, data

    def targets(self) -> list[str]:
        """Names of the target folders present under the root."""
        try:
            entries = list(os.scandir(self.root))
        except OSError:
            return []
        return sorted(
            e.name for e in entries if is_target_name(e.name) and e.is_dir(follow_symlinks=False)
        )

    def cleanup_stale_temp(self, max_age_s: float) -> list[Path]:
        """``cleanup_stale_temp`` over every target folder."""
        removed: list[Path] = []
        for target in self.targets():
            removed += cleanup_stale_temp(self.root / target, max_age_s)
        return removed
