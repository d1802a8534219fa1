"""The project under test, resolved once at each entry point and passed down.

A ``Project`` is everything a command needs to know about where it runs: the root, the
checked ``[tool.pctfuzz]`` settings, the store (corpus and findings folders), the
accepted-differences file, the declared sets and the implementation under test. The
entry points (the CLI, the pytest plugin, ``pctfuzz.testing``) build it with
``Project.load`` and hand it down; the harness processes get it through one explicit
hand-off (``handoff()``, ``pctfuzz._internal.fuzz.protocol.HarnessSettings``). Nothing below the
entry points reads ``os.environ`` or ``[tool.pctfuzz]``.

API::

    project = Project.load(start=None, *, corpus=None, findings=None, accept=None,
                           impl=None, sets=None,   # flags as given (None: not given)
                           read_only=False)        # True: never run a .py accept file
    project.root, project.pyproject         # the root; its pyproject.toml (None: none)
    project.values                          # the checked [tool.pctfuzz] table
    project.corpus, project.findings        # absolute folders of the store
    project.accept                          # the accept file or module (None: none)
    project.accept_in_force                 # the one whose entries apply (None: none)
    project.sets                            # {label: set spec} ({}: the adapter's own)
    project.impl, project.impl_flag         # the implementation named (None: the
                                            # default, urllib); named by a flag?
    project.impl_name                       # impl or "urllib"
    project.targets, .max_time, .jobs       # the table's defaults (None: not set)
    project.implementation()                # the adapter, loaded once (UsageError)
    project.trusted_impls                   # names a record may replay against
    project.finding_store(), project.corpus_store()
    project.activate()                      # this process: root importable, accept
                                            # file checked (nothing else set)
    project.run_settings                    # RunSettings: accept file, --no-accepted,
                                            # sets, handed down (Target.bind)
    project.handoff()                       # HarnessSettings for a harness process
    project.where()                         # "project R; corpus C; findings F"

The root is the nearest folder, from ``start`` (default: the current one) upwards,
whose ``pyproject.toml`` (PEP 518) has a ``[tool.pctfuzz]`` table; without one it is the
current folder. Folders from the table are relative to the root and may not leave it
(absolute, ``..`` out of it, or a symlink out of it: refused, exit 2); folders given as
flags are relative to the current folder and may point anywhere.

```toml
[tool.pctfuzz]
impl = "mypkg.urls:MyAdapter"   # implementation under test (--impl)
targets = ["diff_encode"]       # default TARGET list
sets = ["path", "component"]    # percent-encode sets to fuzz (--set)
accept = "accepted.toml"        # the accepted-differences file (--accept)
corpus = "fuzz/corpus"          # --corpus, relative to the root
findings = "fuzz/findings"      # --findings, relative to the root
max-time = 120                  # --max-time, seconds (at most MAX_SECONDS)
jobs = 2                        # --jobs (at most max_jobs())
```

Command-line flags override these. An unknown key, a value of the wrong type or
beyond the command line's limits is a one-line error (``ConfigError``, exit 2).
"""

from __future__ import annotations

import math
import os
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pctfuzz._internal.errors import ConfigError, UsageError
from pctfuzz._internal.settings import RunSettings
from pctfuzz._internal.text import one_line

if TYPE_CHECKING:
    from pctfuzz._internal.fuzz.protocol import HarnessSettings
    from pctfuzz._internal.oracles.base import Impl
    from pctfuzz._internal.store import Corpus, FindingStore

__all__ = ["DEFAULT_IMPL", "JOBS_PER_CORE", "KEYS", "MAX_SECONDS", "ConfigError",
           "Project", "ProjectConfig", "find_pyproject", "load_config", "max_jobs",
           "parse_sets"]

#: Longest time limit accepted (``--max-time``, ``--timeout``, ``max-time``): 30 days.
MAX_SECONDS = 30 * 24 * 3600

#: Processes per core ``--jobs`` / ``jobs`` may ask for.
JOBS_PER_CORE = 4

#: The implementation under test when none is named.
DEFAULT_IMPL = "urllib"


def max_jobs() -> int:
    """The largest ``--jobs``: ``JOBS_PER_CORE`` x ``os.cpu_count()``."""
    return JOBS_PER_CORE * (os.cpu_count() or 1)


#: Key -> what its value must be (the checks are in ``_check``).
KEYS: dict[str, str] = {
    "impl": "a string",
    "targets": "a list of strings",
    "sets": "a list of strings",
    "accept": "a string or a list of one string",
    "corpus": "a string",
    "findings": "a string",
    "max-time": f"a number of seconds above 0 and at most {MAX_SECONDS} (30 days)",
    "jobs": "a whole number from 1 to max_jobs() (4 per core)",
}

#: Largest pyproject.toml read, in bytes (it is parsed whole).
MAX_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ProjectConfig:
    """The root and the checked ``[tool.pctfuzz]`` values (empty without a table)."""

    root: Path
    pyproject: Path | None = None
    values: dict[str, Any] = field(default_factory=dict)

    def path(self, key: str, default: str) -> Path:
        """``corpus``/``findings``: the configured folder or ``default``, under the root."""
        return self.root / str(self.values.get(key, default))


def _table(pyproject: Path) -> dict[str, Any] | None:
    """``[tool.pctfuzz]`` of ``pyproject``, or None when it has none."""
    try:
        with pyproject.open("rb") as file:
            text = file.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{pyproject}: cannot read: {exc.strerror or exc}") from None
    if len(text) > MAX_BYTES:
        raise ConfigError(f"{pyproject}: larger than {MAX_BYTES} bytes")
    try:
        document = tomllib.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{pyproject}: not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per nesting level (issue 23.6)
        raise ConfigError(f"{pyproject}: not valid TOML: nested too deeply") from None
    tool = document.get("tool")
    table = tool.get("pctfuzz") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.pctfuzz] must be a table")
    return table


def find_pyproject(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest ``pyproject.toml`` at or above ``start`` with ``[tool.pctfuzz]``."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            table = _table(candidate)
            if table is not None:
                return candidate, table
    return None


def _check(key: str, value: Any) -> bool:
    """Whether ``value`` is what ``KEYS[key]`` says, within the command line's limits
    (``cli.args``: the same ``MAX_SECONDS`` and ``max_jobs()``)."""
    if key in ("impl", "corpus", "findings"):
        return isinstance(value, str) and bool(value)
    if key == "accept" and isinstance(value, str):
        return bool(value)  # one file, as `pctfuzz accept` writes it
    if key in ("targets", "sets", "accept"):
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if key == "max-time":
        return (isinstance(value, int | float) and not isinstance(value, bool)
                and math.isfinite(value) and 0 < value <= MAX_SECONDS)
    return (isinstance(value, int) and not isinstance(value, bool)  # jobs
            and 1 <= value <= max_jobs())


def _inside(pyproject: Path, key: str, value: str) -> None:
    """A path of the table stays under the root: not absolute, no ``..`` out of it, no
    symlink out of it (the table may come with a cloned repository, and so may its
    symlinks; a flag may point anywhere)."""
    path = Path(value)
    parts = os.path.normpath(value).split(os.sep)
    if path.is_absolute() or value.startswith("~") or parts[0] == "..":
        raise ConfigError(f"{pyproject}: [tool.pctfuzz] {key} = {value!r} leaves the project "
                          "root; give a folder under it (or the flag, which may point "
                          "anywhere)")
    # realpath follows every link there is, a dangling one too (a write through it
    # would create its target); the root is compared as it resolves.
    root = Path(os.path.realpath(pyproject.parent))
    leads = Path(os.path.realpath(pyproject.parent / value))
    if not leads.is_relative_to(root):
        raise ConfigError(f"{pyproject}: [tool.pctfuzz] {key} = {value!r} leads to "
                          f"{one_line(os.fspath(leads))} through a symlink, outside the project "
                          "root; give a folder under it (or the flag, which may point "
                          "anywhere)")


def load_config(start: Path | None = None) -> ProjectConfig:
    """The project of ``start`` (default: the current folder), its values checked."""
    start = (start or Path.cwd()).absolute()
    found = find_pyproject(start)
    if found is None:
        return ProjectConfig(start)
    pyproject, table = found
    for key, value in table.items():
        if key not in KEYS:
            raise ConfigError(f"{pyproject}: [tool.pctfuzz] unknown key {key!r} "
                              f"(known: {', '.join(KEYS)})")
        if not _check(key, value):
            shown = repr(value) if len(repr(value)) < 60 else f"{repr(value)[:57]}..."
            raise ConfigError(f"{pyproject}: [tool.pctfuzz] {key} must be {KEYS[key]}, "
                              f"not {shown}")
    for key in ("corpus", "findings"):
        if key in table:
            _inside(pyproject, key, table[key])
    table = dict(table)
    if isinstance(table.get("accept"), str):
        table["accept"] = [table["accept"]]
    for item in table.get("accept", []):
        if item.endswith((".toml", ".py")) or "/" in item:
            _inside(pyproject, "accept", item)
    return ProjectConfig(pyproject.parent, pyproject, dict(table))


def parse_sets(items: Sequence[str], what: str = "--set") -> dict[str, str]:
    """``NAME=SPEC`` items (a spec alone names itself) as ``{label: spec}``, each spec
    checked now: a bad one is a usage error before any work starts."""
    from pctfuzz._internal.sets import get_set

    sets: dict[str, str] = {}
    for item in items:
        name, sep, spec = item.partition("=") if "=" in item else (item, "=", item)
        if not sep or not name or not spec:
            raise UsageError(f"{what} {item!r}: expected NAME=SPEC, e.g. mine=encodeURI-[]")
        get_set(spec)
        sets[name] = spec
    return sets


@dataclass(frozen=True)
class Project:
    """One project, resolved once (module docstring)."""

    root: Path
    pyproject: Path | None
    values: Mapping[str, Any]
    corpus: Path
    findings: Path
    accept: str | None
    sets: Mapping[str, str]
    impl: str | None
    impl_flag: bool = False
    accept_flag: bool = False
    #: ``--no-accepted``: every accepted difference ignored
    # (handed down in ``run_settings``)
    no_accepted: bool = False
    #: A command that only reads (report, triage, export): an accept file that is code
    #: (a .py file, a module) is never run (``accept_in_force``)
    read_only: bool = False
    _loaded: dict[str, Impl] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def load(cls, start: Path | None = None, *, corpus: str | None = None,
             findings: str | None = None, accept: str | None = None,
             impl: str | None = None, sets: Sequence[str] | None = None,
             no_accepted: bool = False, read_only: bool = False) -> Project:
        """The project of ``start`` (default: the current folder), flags over the
        table: each flag as the user gave it, None when not given; ``read_only`` for a
        command that only reads (``accept_in_force``)."""
        config = load_config(start)
        values = config.values
        accept_given = accept is not None
        if accept is None and values.get("accept"):
            if len(values["accept"]) > 1:
                raise ConfigError(f"{config.pyproject}: [tool.pctfuzz] accept: one file for "
                                  "now (merge them into one)")
            accept = str(config.root / values["accept"][0]) \
                if values["accept"][0].endswith((".toml", ".py")) else values["accept"][0]
        elif accept is not None and accept.endswith((".toml", ".py")):
            accept = os.path.abspath(accept)
        declared = (parse_sets(sets) if sets else
                    parse_sets(values.get("sets", []), "[tool.pctfuzz] sets"))
        return cls(
            root=config.root,
            pyproject=config.pyproject,
            values=dict(values),
            corpus=Path(corpus).absolute() if corpus else config.path("corpus", "corpus"),
            findings=(Path(findings).absolute() if findings
                      else config.path("findings", "findings")),
            accept=accept,
            sets=declared,
            impl=impl or values.get("impl"),
            impl_flag=impl is not None,
            accept_flag=accept_given,
            no_accepted=no_accepted,
            read_only=read_only,
        )

    # --- the table's defaults ---------------------------------------------------------------
    @property
    def targets(self) -> list[str]:
        return list(self.values.get("targets", []))

    @property
    def max_time(self) -> float | None:
        value = self.values.get("max-time")
        return None if value is None else float(value)

    @property
    def jobs(self) -> int | None:
        value = self.values.get("jobs")
        return None if value is None else int(value)

    # --- the implementation -----------------------------------------------------------------
    @property
    def impl_name(self) -> str:
        """The implementation under test: the named one, else ``DEFAULT_IMPL``."""
        return self.impl or DEFAULT_IMPL

    @property
    def trusted_impls(self) -> tuple[str, ...]:
        """Names a record may select besides the built-in ones: the project's own
        implementation (the user's word in ``[tool.pctfuzz] impl`` or ``--impl``)."""
        return (self.impl,) if self.impl else ()

    def implementation(self, name: str | None = None) -> Impl:
        """The adapter ``name`` (default: the project's), loaded once; an adapter that
        cannot be loaded is a one-line ``UsageError`` (exit 2), never another one."""
        from pctfuzz._internal.oracles.registry import get_impl

        name = name or self.impl_name
        if name not in self._loaded:
            self.activate()
            self._loaded[name] = get_impl(name)
        return self._loaded[name]

    # --- the store -----------------------------------------------------------------------------
    def finding_store(self) -> FindingStore:
        from pctfuzz._internal.store import FindingStore

        return FindingStore(self.findings)

    def corpus_store(self) -> Corpus:
        from pctfuzz._internal.store import Corpus

        return Corpus(self.corpus)

    def where(self) -> str:
        """Where the project and its store are, for the start of a command."""
        from pctfuzz._internal.store import printable_path

        return "project {}; corpus {}; findings {}".format(
            *(printable_path(p) for p in (self.root, self.corpus, self.findings)))

    @property
    def accept_in_force(self) -> str | None:
        """The accept file whose entries apply: the configured one only once it exists
        (``pctfuzz accept`` creates it; until then nothing is accepted, which hides no
        finding), a flag's always (a missing one is then a usage error). In a
        ``read_only`` project a TOML file only: a .py file or a module is code (a cloned
        repository's), run only by commands that run the implementation anyway."""
        if (self.accept is not None and not self.accept_flag
                and self.accept.endswith((".toml", ".py"))
                and not os.path.lexists(self.accept)):
            return None
        if self.read_only and self.accept_is_code:
            return None
        return self.accept

    @property
    def accept_is_code(self) -> bool:
        """Whether the accept file is code to run: a .py file or a module."""
        return self.accept is not None and not self.accept.endswith(".toml")

    # --- this process and its children -------------------------------------------------------
    def activate(self) -> None:
        """Make the project this process's: its root importable (an adapter module of
        the project loads from any subfolder) and its accept file checked now (a bad
        one is a usage error before any work). What is in force for a run (the accept
        file, ``--no-accepted``, the declared sets) is no setting of the process: it
        reaches the checks in ``run_settings``, handed down."""
        from pctfuzz._internal.accept import load_accept_file

        if self.pyproject is not None and str(self.root) not in sys.path:
            sys.path.insert(0, str(self.root))
        if self.accept_in_force is not None:
            load_accept_file(self.accept_in_force)

    @property
    def run_settings(self) -> RunSettings:
        """What is in force for a run of this project (``settings.RunSettings``): the
        accept file in force, ``--no-accepted``, the declared sets. An entry point hands
        it down (``Target.bind(subject, settings)``)."""
        return RunSettings.of(self.accept_in_force, not self.no_accepted, self.sets)

    def handoff(self) -> HarnessSettings:
        """What a harness process is told about the project (the campaign adds the
        implementation and the store)."""
        from pctfuzz._internal.fuzz.protocol import HarnessSettings

        return HarnessSettings(accept=self.accept_in_force, sets=dict(self.sets),
                               root=str(self.root) if self.pyproject is not None else None,
                               no_accepted=self.no_accepted)
