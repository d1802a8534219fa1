"""A pytest plugin: every finding of the project as a test item.

In a project configured by ``[tool.pctfuzz]`` (``pctfuzz._internal.project``) a plain ``pytest``
collects every finding record of the project's findings folder, one item per record,
named by its file: ``fuzz/findings/<file>.json::<id>``. ``--pctfuzz-findings DIR``
names another folder (and works without a configured project). An item replays its
finding (``pctfuzz._internal.fuzz.replay``, which never runs code a record names) and fails when
the bug is there:

- status ``new`` or ``fixed``: fails if the finding reproduces or fails differently
  (a ``fixed`` one that fails again is a regression);
- a triaged status (``known-divergence``, ``false-positive``, ``adapter-bug``,
  ``wont-fix``): passes either way (``store.TRIAGED_STATUSES``).

A record replays against the implementation it names: a built-in one, or the
project's own (``[tool.pctfuzz] impl``); ``--pctfuzz-impl MOD:CLASS`` replaces it.
A record naming any other implementation, or one that does not load, is an item that
fails with the one-line reason. The findings folder is collected when pytest collects
from the project's default places (no path given on the command line, or a path that
holds the folder); named test files alone run alone. Registered through the
``pytest11`` entry point; outside a configured project and without the option it does
nothing, so it costs an installed project nothing.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings

if TYPE_CHECKING:
    from pctfuzz._internal.project import Project

__all__ = ["FindingItem", "FindingsFile", "pytest_addoption", "pytest_collect_file",
           "pytest_configure"]

_PROJECT: pytest.StashKey[Project | None] = pytest.StashKey()
_FOLDER: pytest.StashKey[Path | None] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pctfuzz")
    group.addoption("--pctfuzz-findings", metavar="DIR", default=None,
                    help="collect every pctfuzz finding of DIR as a test item (default: "
                    "the findings folder of the project's [tool.pctfuzz])")
    group.addoption("--pctfuzz-impl", metavar="MOD:CLASS", default=None,
                    help="the implementation to replay findings against (default: the "
                    "record's, when it is built in or the project's own)")


def pytest_configure(config: pytest.Config) -> None:
    """Resolve the project once; add its findings folder to what pytest collects."""
    from pctfuzz._internal.errors import PctfuzzError
    from pctfuzz._internal.project import Project

    flag = config.getoption("--pctfuzz-findings")
    try:
        project = Project.load(Path(config.invocation_params.dir), findings=flag,
                               impl=config.getoption("--pctfuzz-impl"))
    except PctfuzzError as exc:
        if flag is None:  # a broken table of someone else's project: not our run
            config.stash[_PROJECT], config.stash[_FOLDER] = None, None
            return
        raise pytest.UsageError(f"pctfuzz: {exc}") from None
    if flag is None and project.pyproject is None:
        config.stash[_PROJECT], config.stash[_FOLDER] = None, None
        return
    folder = project.findings
    if flag is not None and not folder.is_dir():
        raise pytest.UsageError(f"--pctfuzz-findings: {flag} is not a folder")
    found = folder.resolve() if folder.is_dir() else None
    config.stash[_PROJECT], config.stash[_FOLDER] = project, found
    if found is None:
        return
    project.activate()  # its root importable, its accept file checked (run_settings: below)
    explicit = config.args_source == pytest.Config.ArgsSource.ARGS
    if flag is not None or not explicit:
        args = [Path(config.invocation_params.dir, a.split("::")[0]).resolve()
                for a in config.args]
        if not any(_within(found, a) for a in args):
            config.args.append(str(found))


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _regular(path: Path) -> bool:
    """A record is a regular file: a folder named ``d.json`` is not one, and a symlink
    is never followed, as in the store."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> FindingsFile | None:
    folder = parent.config.stash.get(_FOLDER, None)
    if (folder is None or file_path.suffix != ".json" or file_path.name.startswith(".")
            or file_path.resolve().parent != folder or not _regular(file_path)):
        return None
    if file_path.name.isprintable():
        file: FindingsFile = FindingsFile.from_parent(parent, path=file_path)
        return file
    # A file name is untrusted text: its node id (which pytest prints) through one_line.
    from pctfuzz._internal.text import one_line

    try:
        shown = file_path.relative_to(parent.config.rootpath).as_posix()
    except ValueError:
        shown = file_path.as_posix()
    named: FindingsFile = FindingsFile.from_parent(parent, path=file_path,
                                                   nodeid=one_line(shown, 300))
    return named


class FindingsFile(pytest.File):
    """A finding record: one item, named by the record's id."""

    def collect(self) -> Iterator[FindingItem]:
        from pctfuzz._internal.text import one_line

        project = self.config.stash[_PROJECT]
        assert project is not None
        # A file name is untrusted text: it reaches the terminal through one_line only.
        ident = one_line(self.path.stem.rsplit("-", 1)[-1], 80)
        yield FindingItem.from_parent(self, name=ident, path_of_record=self.path,
                                      impl=project.impl if project.impl_flag else None,
                                      trusted=project.trusted_impls,
                                      settings=project.run_settings)


class FindingItem(pytest.Item):
    """One finding record, replayed when the item runs."""

    def __init__(self, *, path_of_record: Path, impl: str | None,
                 trusted: tuple[str, ...] = (), settings: RunSettings = DEFAULT_SETTINGS,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.record = path_of_record
        self.impl = impl
        self.trusted = trusted
        self.settings = settings

    def runtest(self) -> None:
        from pctfuzz._internal.fuzz.replay import Verdict, replay_paths
        from pctfuzz._internal.store import TRIAGED_STATUSES
        from pctfuzz._internal.text import one_line

        (result,) = list(replay_paths([self.record], impl=self.impl, trusted=self.trusted,
                                      settings=self.settings))
        if not isinstance(result, Verdict):
            # replay's hint names the command line's flag; here it is the plugin's
            message = result[1].replace("pass --impl", "pass --pctfuzz-impl")
            raise FindingFailed(f"{one_line(str(result[0]))}: {one_line(message)}")
        if result.reproduces and result.status not in TRIAGED_STATUSES:
            raise FindingFailed(result.line())

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, FindingFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.record, None, f"pctfuzz finding {self.name}"


class FindingFailed(Exception):
    """A finding that reproduces (or a record that cannot be replayed)."""
