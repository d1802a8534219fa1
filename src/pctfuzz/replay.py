"""Replay: re-run stored findings and raw corpus inputs through their target's check.

A finding is rebuilt from its case JSON (never by re-decoding its raw bytes), and run
against the implementation it was found with, unless another is named. A raw input
is decoded with its target's byte format; its target is the name of its folder or
given explicitly.

Inputs are data, never trusted: raw inputs are read like the corpus reads them
(regular files only, symlinks never followed, size checked before reading); a
finding's recorded implementation must be a built-in one (``check_recorded_impl``):
nothing a record names is ever imported or called; ``--impl`` (the user's choice)
replaces it. Every unusable input is one ``(path, message)``.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from .errors import PctfuzzError
from .fuzzing import classify
from .targets import TARGETS, Target, get_target
from .text import one_line

__all__ = ["Verdict", "check_recorded_impl", "is_builtin_impl", "replay_paths", "run_case"]

#: Seconds a replayed input may run before it counts as a hang (timeout findings).
DEFAULT_TIMEOUT = 5.0


class _Timeout(BaseException):
    """Raised by the replay alarm. A BaseException, so that ``except Exception`` in an
    adapter or in ``differential.run_impl`` (which turns an implementation's exception
    into a crash Divergence) cannot swallow it: a hang replays as a timeout."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of replaying one input."""

    path: Path
    target: str
    reproduces: bool
    evidence: str
    finding_id: str | None = None
    status: str | None = None  # the finding's recorded status

    def line(self) -> str:
        word = "reproduces" if self.reproduces else "no longer reproduces"
        what = f"finding {self.finding_id}" if self.finding_id else "input"
        tail = f": {self.evidence}" if self.evidence else ""
        return f"{one_line(str(self.path))}: {word} ({self.target}, {what}){one_line(tail)}"


def run_case(target: Target, case: Any, impl: Any, timeout: float = DEFAULT_TIMEOUT
             ) -> tuple[bool, str, str | None]:
    """(fails?, evidence, kind) for one case; a run longer than ``timeout`` is a timeout."""

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise _Timeout

    use_alarm = timeout > 0 and hasattr(signal, "setitimer")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        target.check(case, impl)
    except _Timeout:
        return True, f"ran longer than {timeout:g} s", "timeout"
    except MemoryError:
        return True, "MemoryError", "oom"
    except Exception as exc:
        kind, _check, _located = classify(exc)
        return True, f"{type(exc).__name__}: {exc}"[:500], kind
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    return False, "", None


def _impl_for(target: Target, name: str | None, cache: dict[str | None, Any], *,
              recorded: bool = False) -> Any:
    """What ``target.check`` runs against: an implementation under test (differential
    targets, default ``urllib``), or the reference unless a fault codec is named.

    ``recorded``: the name comes from a finding record, not from ``--impl``. A record
    is untrusted (it may come with a bug report), so its name must be a built-in one:
    nothing it names is ever imported or called (see ``check_recorded_impl``)."""
    from .faults import FAULTS

    if recorded:
        check_recorded_impl(target, name)
    if not target.differential:
        # Invariant targets check the reference; a finding recorded against one of the
        # deliberately wrong codecs (PCTFUZZ_FAULT) names it, and replays against it.
        return FAULTS.get(name or "")
    from .oracles import get_impl

    if name not in cache:
        cache[name] = get_impl(name or "urllib")
    return cache[name]


def check_recorded_impl(target: Target, name: str | None) -> None:
    """``PctfuzzError`` (one line) unless a record's implementation is built in.

    ``get_impl`` imports ``module:Name`` and instantiates or calls ``Name``, so a
    record naming ``evil_mod:Anything`` or ``os:abort`` would run code of the record's
    choosing as soon as it is replayed (Python puts the current folder and
    ``PYTHONPATH`` on the import path). Any other implementation must be named by the
    user with ``--impl``, which then replaces the record's."""
    if not is_builtin_impl(target, name):
        assert name is not None
        raise PctfuzzError(f"names implementation {one_line(name, 100)!r}, which is not "
                           "built in; pass --impl to replay it against your own")


def is_builtin_impl(target: Target, name: str | None) -> bool:
    """``name`` (from a record) is None or built in: an adapter of
    ``pctfuzz.oracles.IMPLS`` for a differential target, a codec of ``pctfuzz.faults``
    for an invariant target. What replay and export may use without importing."""
    from .faults import FAULTS
    from .oracles import IMPLS

    if name is None:
        return True
    if target.differential:
        return name in IMPLS or name.lower() in IMPLS
    return name in FAULTS


def _inputs(paths: Sequence[Path], target: str | None) -> Iterator[tuple[str, Path, str | None]]:
    """("finding" | "raw" | "error", path, target name or error message) for each input."""
    for path in paths:
        if path.is_symlink():
            yield "error", path, "is a symbolic link; not followed"
        elif path.is_dir():
            try:
                entries = sorted(p for p in path.iterdir() if not p.name.startswith("."))
            except OSError as exc:
                yield "error", path, f"cannot be listed: {exc.strerror or exc}"
                continue
            if target is None and path.name not in TARGETS and any(
                p.name in TARGETS and p.is_dir() for p in entries
            ):
                # A corpus root: one folder per target.
                yield from _inputs([p for p in entries if p.name in TARGETS], None)
                continue
            inner = target or (path.name if path.name in TARGETS else None)
            for entry in entries:
                if entry.is_dir() and not entry.is_symlink():
                    # A folder where an input file belongs (in a target folder, or named
                    # like a finding) is reported; other subfolders are not ours.
                    if inner is not None or entry.suffix == ".json":
                        yield "error", entry, "is a directory, expected a file"
                    continue
                yield from _inputs([entry], inner)
        elif not path.exists():  # before the .json test: a missing record "does not exist"
            yield "error", path, "does not exist"
        elif path.suffix == ".json" and target is None and path.parent.name not in TARGETS:
            yield "finding", path, None
        else:
            name = target or path.parent.name
            if name not in TARGETS:
                folder = path.parent.name
                yield "error", path, f"cannot tell the target (folder {folder!r}); use --target"
            else:
                yield "raw", path, name


def replay_paths(paths: Sequence[Path], *, target: str | None = None, impl: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> Iterator[Verdict | tuple[Path, str]]:
    """Verdicts for every input under ``paths``; unusable inputs as (path, message)."""
    from .store import StoreError, load_finding, read_input

    if target is not None:
        get_target(target)
    impls: dict[str | None, Any] = {}
    for kind, path, info in _inputs(paths, target):
        try:
            if kind == "error":
                yield path, str(info)
                continue
            if kind == "finding":
                finding = load_finding(path)
                tgt = get_target(finding.target)
                case = finding.rebuild_case()
                chosen = impl or finding.impl
                runner = _impl_for(tgt, chosen, impls, recorded=impl is None)
                fails, evidence, _ = run_case(tgt, case, runner, timeout)
                yield Verdict(path, tgt.name, fails, evidence, finding.id, finding.status)
            else:
                assert info is not None
                tgt = get_target(info)
                data = read_input(path)  # regular file, no symlink, size checked first
                case = tgt.from_bytes(data)
                fails, evidence, _ = run_case(tgt, case, _impl_for(tgt, impl, impls), timeout)
                yield Verdict(path, tgt.name, fails, evidence)
        except (PctfuzzError, OSError) as exc:
            # A StoreError about this very file names it already: the caller prints
            # the path, so give the message alone (no "path: error: path: ...").
            if isinstance(exc, StoreError) and exc.path == path:
                yield path, exc.message
            else:
                yield path, str(exc)
