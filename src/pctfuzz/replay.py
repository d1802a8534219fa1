"""Replay: re-run stored findings and raw corpus inputs through their target's check.

A finding is rebuilt from its case JSON (never by re-decoding its raw bytes), and run
against the implementation it was found with, unless another is named. A raw input
is decoded with its target's byte format; its target is the name of its folder or
given explicitly.
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

__all__ = ["Verdict", "replay_paths", "run_case"]

#: Seconds a replayed input may run before it counts as a hang (timeout findings).
DEFAULT_TIMEOUT = 5.0


class _Timeout(Exception):
    pass


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
        return f"{self.path}: {word} ({self.target}, {what}){tail}"


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


def _impl_for(target: Target, name: str | None, cache: dict[str, Any]) -> Any:
    """What ``target.check`` runs against: an implementation under test (differential
    targets, default ``urllib``), or the reference unless a fault codec is named."""
    if not target.differential:
        # Invariant targets check the reference; a finding recorded against one of the
        # deliberately wrong codecs (PCTFUZZ_FAULT) names it, and replays against it.
        from .faults import FAULTS

        return FAULTS.get(name or "")
    from .oracles import get_impl

    name = name or "urllib"
    if name not in cache:
        cache[name] = get_impl(name)
    return cache[name]


def _inputs(paths: Sequence[Path], target: str | None) -> Iterator[tuple[str, Path, str | None]]:
    """("finding" | "raw" | "error", path, target name or error message) for each input."""
    for path in paths:
        if path.is_symlink():
            yield "error", path, "is a symbolic link; not followed"
        elif path.is_dir():
            entries = sorted(p for p in path.iterdir() if not p.name.startswith("."))
            if target is None and path.name not in TARGETS and any(
                p.name in TARGETS and p.is_dir() for p in entries
            ):
                # A corpus root: one folder per target.
                yield from _inputs([p for p in entries if p.name in TARGETS], None)
            else:
                yield from _inputs([p for p in entries if not p.is_dir()], target or (
                    path.name if path.name in TARGETS else None))
        elif path.suffix == ".json" and target is None and path.parent.name not in TARGETS:
            yield "finding", path, None
        elif not path.exists():
            yield "error", path, "does not exist"
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
    from .store import load_finding

    if target is not None:
        get_target(target)
    impls: dict[str, Any] = {}
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
                fails, evidence, _ = run_case(tgt, case, _impl_for(tgt, chosen, impls), timeout)
                yield Verdict(path, tgt.name, fails, evidence, finding.id, finding.status)
            else:
                assert info is not None
                tgt = get_target(info)
                data = path.read_bytes()
                case = tgt.from_bytes(data)
                fails, evidence, _ = run_case(tgt, case, _impl_for(tgt, impl, impls), timeout)
                yield Verdict(path, tgt.name, fails, evidence)
        except (PctfuzzError, OSError) as exc:
            yield path, str(exc)
