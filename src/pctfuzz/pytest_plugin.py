"""A pytest plugin: every finding of a folder as a test item.

``pytest --pctfuzz-findings findings/`` adds one item per finding record, named by its
id. An item replays its finding (``pctfuzz.fuzz.replay``, which never runs code a record
names) and fails when the bug is there:

- status ``new`` or ``fixed``: fails if the finding reproduces or fails differently
  (a ``fixed`` one that fails again is a regression);
- status ``known-divergence``: passes either way (a triaged, accepted difference).

A record naming an implementation that is not built in replays against
``--pctfuzz-impl MOD:CLASS`` (your adapter); without it the item fails with the one-line
reason. A record that does not load is an item that fails with the loader's message.
Registered through the ``pytest11`` entry point; it does nothing unless the option is
given, so it costs an installed project nothing.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["FindingItem", "pytest_addoption", "pytest_collection_modifyitems"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pctfuzz")
    group.addoption("--pctfuzz-findings", metavar="DIR", default=None,
                    help="collect every pctfuzz finding of DIR as a test item")
    group.addoption("--pctfuzz-impl", metavar="MOD:CLASS", default=None,
                    help="the implementation to replay findings against (default: the "
                    "record's, when it is built in)")


class FindingItem(pytest.Item):
    """One finding record, replayed when the item runs."""

    def __init__(self, *, path_of_record: Path, impl: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.record = path_of_record
        self.impl = impl

    def runtest(self) -> None:
        from pctfuzz.fuzz.replay import Verdict, replay_paths

        (result,) = list(replay_paths([self.record], impl=self.impl))
        if not isinstance(result, Verdict):
            raise FindingFailed(f"{result[0]}: {result[1]}")
        if result.reproduces and result.status != "known-divergence":
            raise FindingFailed(result.line())

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, FindingFailed):
            from pctfuzz.text import one_line  # lazy: see pytest_collection_modifyitems

            return one_line(str(excinfo.value), 2000)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        # The folder, not the file: pytest prints this path as it is, and the file's
        # name is untrusted (the item's name is its one_line form).
        return self.record.parent, None, f"pctfuzz finding {self.name}"


class FindingFailed(Exception):
    """A finding that reproduces (or a record that cannot be replayed)."""


def _records(folder: Path) -> Iterator[Path]:
    """The record files of ``folder``: regular files only (a folder named ``d.json``
    is not a record; a symlink is never followed, as in the store)."""
    for path in sorted(folder.glob("*.json")):
        if path.name.startswith("."):
            continue
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):
                yield path
        except OSError:
            continue


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    folder = config.getoption("--pctfuzz-findings")
    if folder is None:
        return
    root = Path(folder)
    if not root.is_dir():
        raise pytest.UsageError(f"--pctfuzz-findings: {folder} is not a folder")
    # Lazy: without --pctfuzz-findings the plugin imports nothing of pctfuzz.
    from pctfuzz.text import one_line

    impl = config.getoption("--pctfuzz-impl")
    taken: set[str] = set()
    for record in _records(root):
        # A file name is untrusted text: it reaches the terminal through one_line only.
        name = f"pctfuzz-finding-{one_line(record.stem.rsplit('-', 1)[-1], 80)}"
        if name in taken:  # two records of one id (a copy): each item its own name
            name = f"{name}[{one_line(record.name, 120)}]"
        taken.add(name)
        items.append(FindingItem.from_parent(session, name=name, path_of_record=record,
                                             impl=impl))
