"""Argument types shared by the subcommands: every limit is checked by argparse, so an
odd value is a one-line usage error (exit 2) before any work starts.

- seconds (``--max-time``, ``--timeout``): finite, above 0, at most ``MAX_SECONDS``
  (``nan``, ``inf``, ``1e309``, ``0`` and ``-1`` are refused: 0 or less used to mean
  "no limit" for replay, and a hang then went unnoticed);
- ``--jobs``: 1 to ``max_jobs()``, 4 processes per core (more only thrash and eat
  memory: each libFuzzer process holds its own interpreter);
- folders (``--corpus``, ``--findings``): a symlink loop is refused by name.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

# The limits are the project's too ([tool.pctfuzz] obeys them): one definition.
from pctfuzz._internal.project import JOBS_PER_CORE, MAX_SECONDS, max_jobs

__all__ = ["JOBS_PER_CORE", "MAX_SECONDS", "count", "folder_path", "job_count", "max_jobs",
           "memory_mb", "positive_seconds", "whole_seconds"]


def positive_seconds(text: str) -> float:
    """A time limit in seconds: a finite number in (0, ``MAX_SECONDS``]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"{text!r}: seconds must be above 0 and at most {MAX_SECONDS} (30 days)")
    return value


def whole_seconds(text: str) -> int:
    """``positive_seconds`` rounded up to whole seconds: libFuzzer's ``-timeout`` is an
    integer, and ``-timeout=0`` would mean no limit at all."""
    return math.ceil(positive_seconds(text))


def job_count(text: str) -> int:
    """``--jobs``: an integer from 1 to ``max_jobs()``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= max_jobs():
        raise argparse.ArgumentTypeError(
            f"{value}: must be 1 to {max_jobs()} ({JOBS_PER_CORE} per core)")
    return value


def count(text: str) -> int:
    """A number of things (``matrix --max-inputs``): a whole number above 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: must be 1 or more")
    return value


def memory_mb(text: str) -> int:
    """``--rss-limit-mb``: a whole number of MiB, 0 or more. 0 is libFuzzer's "no
    limit" (``-rss_limit_mb=0``): a memory blow-up is then no ``oom`` finding."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of MiB") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value}: must be 0 (no limit) or more")
    return value


def folder_path(text: str) -> str:
    """A folder argument (it may not exist yet) that is not a symlink loop."""
    try:
        Path(text).resolve()
    except (RuntimeError, OSError) as exc:  # RuntimeError: "Symlink loop" (Python 3.11)
        raise argparse.ArgumentTypeError(f"{text!r} cannot be resolved: {exc}") from None
    return text
