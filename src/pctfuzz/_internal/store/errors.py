"""What the store raises and reports: one line naming the file, never a traceback.

``StoreError`` (a ``ValueError``) is any corpus or findings file that cannot be used;
its subclasses add the built-in class a caller would catch (``OSError`` for a file
that exists but cannot be read, ``CaseFormatError`` for a malformed record,
``LookupError`` for an unknown id), as ``pctfuzz._internal.errors`` does for the library.
The classes are defined there, with every other exception; the store's modules import
them from here. ``StoreProblem`` is a skipped file, collected instead of raised by the
iterators.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pctfuzz._internal.errors import (
    FindingFormatError,
    FindingNotFoundError,
    StoreError,
    StoreReadError,
)
from pctfuzz._internal.text import one_line

__all__ = [
    "FindingFormatError",
    "FindingNotFoundError",
    "StoreError",
    "StoreProblem",
    "StoreReadError",
    "printable_path",
    "short",
]


def printable_path(path: os.PathLike[str] | str) -> str:
    """A path as one printable line (undecodable or control characters escaped)."""
    return one_line(os.fspath(path))


def short(value: object, limit: int = 60) -> str:
    """``repr(value)`` as one printable line of at most ``limit`` characters: how a
    message quotes a value that came from a file."""
    return one_line(repr(value), limit)


@dataclass(frozen=True)
class StoreProblem:
    """A skipped file and why; ``str()`` is one line naming the file."""

    path: Path
    message: str

    @classmethod
    def from_error(cls, exc: StoreError) -> StoreProblem:
        return cls(exc.path, exc.message)

    def __str__(self) -> str:
        return f"{printable_path(self.path)}: {one_line(self.message, 500)}"
