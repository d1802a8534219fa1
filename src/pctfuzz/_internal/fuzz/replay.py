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

import contextlib
import dataclasses
import json
import os
import select
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from pctfuzz import __version__
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.fuzz.protocol import DEFAULT_RSS_LIMIT_MB
from pctfuzz._internal.identity import (
    SIGNATURE_VERSION,
    made_without_accepted,
    resource_stop,
    signature_of,
    stop_signature,
    without_accepted_mode,
)
from pctfuzz._internal.oracles.faults import FAULTS
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings
from pctfuzz._internal.targets import TARGETS, Bound, Target, get_target
from pctfuzz._internal.text import one_line

if TYPE_CHECKING:
    from pctfuzz._internal.store import FindingStore

__all__ = ["FAILING_OUTCOMES", "OpenReplay", "ReplayStopped", "Run", "StopOnSignals", "Verdict",
           "bound_for", "check_recorded_impl", "is_builtin_impl", "replay_open", "replay_paths",
           "run_case"]

#: Seconds a replayed input may run before it counts as a hang (timeout findings).
DEFAULT_TIMEOUT = 5.0


class _Timeout(BaseException):
    """Raised by the replay alarm. A BaseException, so that ``except Exception`` in an
    adapter or in ``profile.run_impl`` (which turns an implementation's exception
    into a crash Divergence) cannot swallow it: a hang replays as a timeout."""


class ReplayStopped(BaseException):
    """A stop signal while a replayed case ran (``StopOnSignals``). A BaseException,
    for the reason ``_Timeout`` is one."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class StopOnSignals:
    """SIGINT, SIGTERM and SIGHUP while a command replays and then writes its results:
    the signal is kept (``signum``) and ends the replay, never the command, so the
    results are still written. Only a running case is interrupted (it may hang); a
    record being updated finishes first. Handlers are set from the main thread only."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._running = False
        self._previous: dict[int, Any] = {}

    def _handler(self, signum: int, _frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum
        if self._running:
            self._running = False
            raise ReplayStopped(signum)

    def run(self, call: Any) -> Any:
        """``call()``, interrupted by a stop signal (``ReplayStopped``)."""
        if self.signum is not None:
            raise ReplayStopped(self.signum)
        self._running = True
        try:
            return call()
        finally:
            self._running = False

    def __enter__(self) -> StopOnSignals:
        import threading

        if threading.current_thread() is threading.main_thread():
            from pctfuzz._internal.fuzz.supervisor import STOP_SIGNALS

            self._previous = {s: signal.signal(s, self._handler) for s in STOP_SIGNALS}
        return self

    def __exit__(self, *_exc: object) -> None:
        for signum, old in self._previous.items():
            signal.signal(signum, old)


#: What replaying one input found: ``reproduces`` and ``fails differently`` are
#: failures (exit 1); the others are not.
FAILING_OUTCOMES = frozenset({"reproduces", "fails differently"})


@dataclass(frozen=True)
class Verdict:
    """The outcome of replaying one input.

    ``outcome`` is one of: ``reproduces`` (the finding's own signature fails again),
    ``fails differently`` (another failure: ``signature`` says which), ``accepted``
    (the implementation still differs, and the registry entries ``accepted`` explain
    it), ``unsupported`` (the implementation no longer answers the case), ``no longer
    reproduces`` (it passes). A raw corpus input has no signature to compare: any
    failure ``reproduces`` (its signature is in the evidence).
    """

    path: Path
    target: str
    outcome: str
    evidence: str
    finding_id: str | None = None
    status: str | None = None  # the finding's recorded status
    signature: str | None = None  # the failure observed now, if any
    accepted: tuple[str, ...] = ()

    @property
    def reproduces(self) -> bool:
        """Whether replaying it failed (its own bug, or another one)."""
        return self.outcome in FAILING_OUTCOMES

    def line(self) -> str:
        what = f"finding {self.finding_id}" if self.finding_id else "input"
        word = self.outcome
        if self.outcome == "fails differently" and self.signature:
            word = f"fails differently: {self.signature}"
        elif self.outcome == "accepted":
            word = f"accepted by {', '.join(self.accepted)}"
        tail = f": {self.evidence}" if self.evidence else ""
        return (f"{one_line(str(self.path))}: {one_line(word)} ({self.target}, {what})"
                f"{one_line(tail)}")


@dataclass(frozen=True)
class Run:
    """One run of a target's check on a case: ``signature`` of the failure (None if
    it passed), its evidence, and the registry entries that accepted a difference
    (``accepted``), or ``supported=False`` if the implementation did not answer."""

    signature: str | None
    evidence: str = ""
    accepted: tuple[str, ...] = ()
    supported: bool = True
    timed_out: bool = False  # stopped by the ``timeout`` alarm (a timeout signature)


def run_case(bound: Bound, case: Any, timeout: float = DEFAULT_TIMEOUT, *,
             impl_name: str | None = None, isolated: bool = False,
             rss_limit_mb: int = DEFAULT_RSS_LIMIT_MB) -> Run:
    """Run the check of ``bound`` (a target bound to its subject, ``Target.bind``) on
    ``case``, its subject named ``impl_name`` in signatures; a run longer than
    ``timeout`` seconds is a timeout. The signatures are of the bound target's run
    (``settings.accepted``: ``--no-accepted`` or not). ``isolated``: in a child
    process of its own (``_run_in_child``), for a finding that stopped its process,
    killed once it holds more than ``rss_limit_mb`` MiB (0: no limit)."""
    if isolated and hasattr(os, "fork"):
        return _run_in_child(bound, case, timeout, impl_name, rss_limit_mb)
    target = bound.target
    accepted = bound.settings.accepted

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise _Timeout

    use_alarm = timeout > 0 and hasattr(signal, "setitimer")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        result = bound.check(case)
    except _Timeout:
        return Run(stop_signature(target.name, "timeout", impl_name, accepted=accepted),
                   f"ran longer than {timeout:g} s", timed_out=True)
    except MemoryError:
        return Run(stop_signature(target.name, "oom", impl_name, accepted=accepted),
                   "MemoryError")
    except Exception as exc:
        signature = signature_of(target.name, exc, case=case, subject=bound.subject,
                                 impl=impl_name, code_under_test=bound.code_under_test,
                                 accepted=accepted)
        return Run(signature, f"{type(exc).__name__}: {exc}"[:500])
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    if result is None:
        return Run(None, "the implementation does not answer this case", supported=False)
    return Run(None, accepted=result)


#: Seconds past its ``timeout`` that an isolated run's process may take (the alarm
#: that ends a run cannot stop code that never returns to Python) before it is killed.
_CHILD_GRACE = 2.0


def _run_in_child(bound: Bound, case: Any, timeout: float, impl_name: str | None,
                  rss_limit_mb: int = DEFAULT_RSS_LIMIT_MB) -> Run:
    """``run_case`` in a child process forked for it, which writes the ``Run`` back as
    JSON: a case that kills its process (a SIGSEGV in a C extension, ``abort()``, an
    exit of the implementation: a finding ``native_crash``) kills the child, and that
    death is the stop's own signature (``stop_signature``, kind ``crash``) again. A
    child still running ``_CHILD_GRACE`` seconds past ``timeout`` is killed: a
    timeout; one holding more than ``rss_limit_mb`` MiB of memory is killed: an oom
    (libFuzzer's ``-rss_limit_mb``, the campaign's). A stop signal
    (``StopOnSignals``) kills the child and goes on up."""
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: the run, then out at once, whatever happens
        code = 1
        try:
            os.close(read_end)
            run = run_case(bound, case, timeout, impl_name=impl_name)
            payload = memoryview(json.dumps(dataclasses.asdict(run)).encode("utf-8"))
            while payload:
                payload = payload[os.write(write_end, payload):]
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    deadline = None if timeout <= 0 else time.monotonic() + timeout + _CHILD_GRACE
    chunks: list[bytes] = []
    reaped = False
    grew = None  # the child's memory, when it passed ``rss_limit_mb``
    try:
        while deadline is None or time.monotonic() < deadline:
            wait = _MEMORY_POLL if deadline is None else \
                max(0.0, min(_MEMORY_POLL, deadline - time.monotonic()))
            if not select.select([read_end], [], [], wait)[0]:
                grew = _over_memory(pid, rss_limit_mb)
                if grew is not None:  # (libFuzzer's -rss_limit_mb, for a replay)
                    os.kill(pid, signal.SIGKILL)
                    break
                continue
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        else:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        reaped = True
    finally:
        os.close(read_end)
        if not reaped:  # stopped (``ReplayStopped``): the child must not outlive it
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    accepted = bound.settings.accepted
    try:
        got = json.loads(b"".join(chunks))
        return Run(got["signature"], got["evidence"], tuple(got["accepted"]),
                   got["supported"], got["timed_out"])
    except (ValueError, KeyError, TypeError):
        pass
    if grew is not None:
        return Run(stop_signature(bound.target.name, "oom", impl_name, accepted=accepted),
                   f"its process held {grew} MiB, more than {rss_limit_mb} MiB")
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL and \
            deadline is not None and time.monotonic() >= deadline:
        return Run(stop_signature(bound.target.name, "timeout", impl_name, accepted=accepted),
                   f"ran longer than {timeout:g} s", timed_out=True)
    if os.WIFSIGNALED(status):
        died = f"its process died of {_signal_name(os.WTERMSIG(status))}"
    else:
        died = f"its process exited with status {os.waitstatus_to_exitcode(status)}"
    return Run(stop_signature(bound.target.name, "crash", impl_name, accepted=accepted), died)


#: Seconds between looks at an isolated run's memory (``_over_memory``).
_MEMORY_POLL = 0.1


def _over_memory(pid: int, limit_mb: int = DEFAULT_RSS_LIMIT_MB) -> int | None:
    """The resident memory of process ``pid`` in MiB when it holds more than
    ``limit_mb`` (0: no limit), else None (also where ``/proc`` does not say). An input
    that makes its library allocate without bound was a timeout finding whose replay
    took the machine's 24 GiB before its timeout (a held-out parser)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    held = pages * os.sysconf("SC_PAGE_SIZE") >> 20
    return held if limit_mb and held > limit_mb else None


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _without_impl(signature: str) -> str:
    head, sep, tail = without_accepted_mode(signature).rpartition("|impl=")
    return head if sep and "|" not in tail else signature


def _finding_verdict(path: Path, finding: Any, run: Run, *, overridden: bool) -> Verdict:
    """Compare a replay with the finding's signature (see ``Verdict``)."""
    def verdict(outcome: str, evidence: str = run.evidence) -> Verdict:
        return Verdict(path, finding.target, outcome, evidence, finding.id, finding.status,
                       run.signature, run.accepted)

    if run.signature is None:
        if not run.supported:
            return verdict("unsupported")
        return verdict("accepted" if run.accepted else "no longer reproduces")
    # A --no-accepted finding replayed normally (or the reverse) names the same failure.
    recorded = without_accepted_mode(finding.signature)
    observed = without_accepted_mode(run.signature)
    if overridden:  # --impl: the same bug in another implementation still reproduces
        recorded, observed = _without_impl(recorded), _without_impl(observed)
    if finding.signature_version < SIGNATURE_VERSION:
        # An older format cannot be recomputed: the same target, kind and check is
        # the best match until `pctfuzz migrate` rewrites the record.
        same = observed.split("|")[:3] == recorded.split("|")[:3]
        note = f" (signature format {finding.signature_version}; run pctfuzz migrate)"
        return verdict("reproduces" if same else "fails differently", run.evidence + note)
    resources = resource_stop(recorded)
    if observed != recorded and resources is not None and resource_stop(observed) == resources:
        # A timeout replayed as an oom, or the reverse: one input that allocates without
        # bound, stopped by whichever limit it met first (the machine's speed and load
        # decide which, for libFuzzer too).
        return verdict("reproduces", f"{run.evidence} (recorded as {recorded.split('|')[1]})")
    return verdict("reproduces" if observed == recorded else "fails differently")


def bound_for(target: Target, name: str | None, cache: dict[Any, Bound],
              *, recorded: bool = False,
              settings: RunSettings = DEFAULT_SETTINGS) -> Bound:
    """``target`` bound (``Target.bind``, once per target and name) to what it runs
    against: an implementation under test for a differential target (default
    ``urllib``); for an invariant target the reference, or the deliberately wrong codec
    a finding recorded (``PCTFUZZ_FAULT``), with the run's ``settings``.
    ``--impl`` names the implementation of the differential targets: given with
    invariant inputs it leaves them on the reference, unless it names a fault.

    ``recorded``: the name comes from a finding record, not from ``--impl``. A record
    is untrusted (it may come with a bug report), so its name must be a built-in one:
    nothing it names is ever imported or called (see ``check_recorded_impl``)."""
    if recorded:
        check_recorded_impl(target, name)
    if not target.differential and name not in FAULTS:
        name = None
    key = (target.name, name, settings)
    if key not in cache:
        cache[key] = target.bind(name, settings)
    return cache[key]


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
    ``pctfuzz._internal.oracles.IMPLS`` for a differential target, a codec of
    ``pctfuzz._internal.oracles.faults``
    for an invariant target. What replay and export may use without importing."""
    from pctfuzz._internal.oracles.registry import IMPLS

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
        elif path.is_dir() and path.suffix == ".json":
            yield "error", path, "is a directory, expected a finding file"
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
                 timeout: float = DEFAULT_TIMEOUT, trusted: Sequence[str] = (),
                 raw_impl: str | None = None, settings: RunSettings = DEFAULT_SETTINGS,
                 rss_limit_mb: int = DEFAULT_RSS_LIMIT_MB
                 ) -> Iterator[Verdict | tuple[Path, str]]:
    """Verdicts for every input under ``paths``; unusable inputs as (path, message).

    ``trusted``: implementations the user named elsewhere (``[tool.pctfuzz] impl``): a
    record naming one of them replays against it, as if given with ``--impl``.
    ``raw_impl``: what a raw corpus input of a differential target runs against when
    ``impl`` is not given (the project's implementation; default urllib).
    ``settings``: the run's (``Project.run_settings``), carried by the bound targets.
    ``rss_limit_mb``: the memory a finding that stopped its process may take in the
    process of its own it runs in (``run_case``)."""
    from pctfuzz._internal.store import Finding, StoreError, load_finding, read_input

    if target is not None:
        get_target(target)
    impls: dict[Any, Bound] = {}
    inputs = list(_inputs(paths, target))
    # Each record read once: what it says, or why it cannot be read (said at its turn).
    records: dict[Path, Finding | Exception] = {}
    for kind, path, _ in inputs:
        if kind == "finding":
            try:
                records[path] = load_finding(path)
            except (PctfuzzError, OSError, ValueError) as exc:
                records[path] = exc
    # (as ``replay_open``: every finding of an implementation that crashed a process
    # runs in a process of its own)
    crashing = {record.impl for record in records.values()
                if isinstance(record, Finding) and record.native_crash}
    for kind, path, info in inputs:
        try:
            if kind == "error":
                yield path, str(info)
                continue
            if kind == "finding":
                finding = records[path]
                if isinstance(finding, Exception):
                    raise finding
                tgt = get_target(finding.target)
                case = finding.rebuild_case()
                chosen = impl or finding.impl
                runner = bound_for(tgt, chosen, impls,
                                   recorded=impl is None and chosen not in trusted,
                                   settings=settings)
                run = run_case(runner, case, timeout, impl_name=chosen,
                               isolated=finding.stopped_a_process or finding.impl in crashing,
                               rss_limit_mb=rss_limit_mb)
                yield _finding_verdict(path, finding, run, overridden=impl is not None)
            else:
                assert info is not None
                tgt = get_target(info)
                data = read_input(path)  # regular file, no symlink, size checked first
                chosen = impl or raw_impl
                name = (chosen or "urllib") if tgt.differential else impl
                runner = bound_for(tgt, chosen if tgt.differential else impl, impls,
                                   settings=settings)
                case = runner.case_from_bytes(data)
                run = run_case(runner, case, timeout, impl_name=name)
                # A raw input has no recorded signature: any failure reproduces.
                outcome = "reproduces" if run.signature else "no longer reproduces"
                evidence = f"{run.evidence} [{run.signature}]" if run.signature else ""
                yield Verdict(path, tgt.name, outcome, evidence, signature=run.signature,
                              accepted=run.accepted)
        except (PctfuzzError, OSError) as exc:
            # A StoreError about this very file names it already: the caller prints
            # the path, so give the message alone (no "path: error: path: ...").
            if isinstance(exc, StoreError) and exc.path == path:
                yield path, exc.message
            else:
                yield path, str(exc)


@dataclass(frozen=True)
class OpenReplay:
    """What replaying the open findings of an implementation did (``replay_open``)."""

    verdicts: list[Verdict] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)  # ids now ``fixed``
    accepted: list[str] = field(default_factory=list)  # ids now ``known-divergence``
    reopened: list[str] = field(default_factory=list)  # ``fixed`` ids seen again
    errors: list[tuple[Path, str]] = field(default_factory=list)
    #: Files of the store that are not readable records (a folder named ``*.json``,
    #: invalid JSON): warned and skipped, as the store does everywhere; not a finding
    #: that could not be replayed, so not an incomplete run.
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    #: The signal that stopped the replay before every open finding was replayed.
    stopped_by: int | None = None
    #: Open findings not replayed, (record path, finding id), status unchanged: those
    #: left when the bound (``max_seconds``) was reached or a signal stopped the replay,
    #: and the one whose case the bound cut short (no verdict: it may have passed).
    not_replayed: list[tuple[Path, str]] = field(default_factory=list)
    #: The total bound in seconds, when it was reached (``not_replayed`` then says what
    #: was left): the replay is incomplete.
    out_of_time: float | None = None

    @property
    def reproduced(self) -> list[str]:
        """Ids of the open findings that still fail."""
        return [v.finding_id for v in self.verdicts if v.reproduces and v.finding_id]

    @property
    def incomplete(self) -> bool:
        """An open finding could not be replayed, or the bound left some unreplayed
        (a stop by a signal is said by ``stopped_by``, not here)."""
        return bool(self.errors) or self.out_of_time is not None

    @property
    def why_not_replayed(self) -> str:
        """Why ``not_replayed`` is not empty: the bound, or the signal."""
        if self.out_of_time is not None:
            return f"the replay's bound of {self.out_of_time:g} s was reached"
        if self.stopped_by is not None:
            return f"stopped by {signal.Signals(self.stopped_by).name}"
        return "stopped"

    def not_replayed_lines(self) -> list[str]:
        """``INCOMPLETE: ...`` for the open findings left unreplayed, each by id (empty
        when every open finding was replayed)."""
        if not self.not_replayed:
            return []
        ids = ", ".join(ident for _path, ident in self.not_replayed)
        return [f"INCOMPLETE: {len(self.not_replayed)} open finding(s) not replayed "
                f"({self.why_not_replayed}; still open): {ids}"]

    def lines(self) -> list[str]:
        """The human summary: one line per change of status, then the count."""
        out = [f"back: {ident} failed again in this run; open again" for ident in self.reopened]
        out += [v.line() for v in self.verdicts if v.finding_id in self.fixed + self.accepted]
        out.append(f"open findings replayed: {len(self.verdicts)}; still failing: "
                   f"{len(self.reproduced)}" + (f" ({', '.join(self.reproduced)})"
                                                 if self.reproduced else "")
                   + f"; fixed: {len(self.fixed)}; accepted: {len(self.accepted)}")
        return out


def _belongs(target: Target, finding: Any, impl: str, targets: Sequence[str] | None,
             accepted: bool = True) -> bool:
    """A finding of the implementation under test: a differential finding recorded
    against ``impl`` in this run's mode (``accepted``; a ``--no-accepted`` finding only under
    ``--no-accepted``, a normal one only normally: accepted differences explain the
    first, so a normal replay would close it); an invariant finding of the reference
    (no impl) when its target is among ``targets`` (None: any)."""
    if target.differential:
        return bool(finding.impl == impl) and \
            made_without_accepted(finding.signature) != accepted
    return finding.impl is None and (targets is None or target.name in targets)


def replay_open(findings: Path, impl: str, *, targets: Sequence[str] | None = None,
                seen: Sequence[str] = (), timeout: float = DEFAULT_TIMEOUT,
                max_seconds: float | None = None,
                stop: StopOnSignals | None = None,
                settings: RunSettings = DEFAULT_SETTINGS,
                rss_limit_mb: int = DEFAULT_RSS_LIMIT_MB) -> OpenReplay:
    """Replay every open finding of ``impl`` in the store ``findings`` (ClusterFuzz's
    verification of open testcases) and record the verdicts: one that no longer
    reproduces becomes ``fixed``, with the implementation's version and the date
    (``fixed_in``); one that an accepted difference now explains becomes
    ``known-divergence``; the others stay open. ``seen``: ids a campaign just hit; a
    ``fixed`` one among them is back, and open again, before the replay.

    ``impl`` is the user's choice (``--impl``, ``[tool.pctfuzz] impl``), so a record
    naming it runs against it; records naming another implementation are not ours.

    Bounds: each case runs at most ``timeout`` seconds (longer is a timeout), and the
    whole replay at most ``max_seconds`` (None: no bound): a case runs for no more than
    what is left of it, and a case cut short by the bound gets no verdict. The
    findings recorded as timeouts are replayed last (each may take its ``timeout``).
    ``stop``: a stop signal ends the replay early (``OpenReplay.stopped_by``). Either
    way, the findings left are listed (``OpenReplay.not_replayed``), still open.
    ``settings``: the run's (``Project.run_settings``), carried by the bound targets.
    ``rss_limit_mb``: as for ``replay_paths``."""
    from pctfuzz._internal.store import FindingStore

    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    store = FindingStore(findings)
    result = OpenReplay()
    _reopen_seen(store, findings, seen, result)
    problems: list[Any] = []
    subjects: dict[Any, Bound] = {}
    chosen = _open_of(store, findings, impl, targets, settings, result, problems)
    # An implementation that crashed a process may crash this one at any question its
    # findings' replays ask (a divergence's naming asks the set probe's character that
    # killed a harness): each of them runs in a process of its own.
    crashing = {f.impl for _p, f, _t in chosen if f.native_crash}
    for index, (path, finding, target) in enumerate(chosen):
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            result = replace(result, out_of_time=max_seconds)
            result.not_replayed.extend((p, f.id) for p, f, _t in chosen[index:])
            break
        budget = timeout if left is None else min(timeout, left)
        try:
            bound = bound_for(target, finding.impl, subjects, settings=settings)
            case = finding.rebuild_case()
            isolated = finding.stopped_a_process or finding.impl in crashing
            if stop is None:
                run = run_case(bound, case, budget, impl_name=finding.impl, isolated=isolated,
                               rss_limit_mb=rss_limit_mb)
            else:
                try:
                    run = stop.run(lambda b=bound, c=case, n=finding.impl, t=budget,
                                   i=isolated: run_case(b, c, t, impl_name=n, isolated=i,
                                                        rss_limit_mb=rss_limit_mb))
                except ReplayStopped as exc:
                    result = replace(result, stopped_by=exc.signum)
                    result.not_replayed.extend((p, f.id) for p, f, _t in chosen[index:])
                    break
            if run.timed_out and budget < timeout:
                # Cut short by the bound, not a timeout of its own: no verdict.
                result = replace(result, out_of_time=max_seconds)
                result.not_replayed.extend((p, f.id) for p, f, _t in chosen[index:])
                break
            result.verdicts.append(_recorded(store, path, finding, run, bound, result))
        except (PctfuzzError, OSError) as exc:
            result.errors.append((path, str(exc)))
    result.skipped.extend((p.path, p.message) for p in problems)
    return result


def _reopen_seen(store: FindingStore, folder: Path, seen: Sequence[str],
                 result: OpenReplay) -> None:
    """Each ``fixed`` finding among ``seen`` (a campaign just hit it) is open again;
    ``folder``: the store's folder as the user gave it, for the messages."""
    from pctfuzz._internal.store import StoreError

    for ident in dict.fromkeys(seen):
        try:
            if store.get(ident).status == "fixed":
                store.update_status(ident, "new")
                result.reopened.append(ident)
        except StoreError as exc:
            result.errors.append((folder, str(exc)))


def _open_of(store: FindingStore, folder: Path, impl: str, targets: Sequence[str] | None,
             settings: RunSettings, result: OpenReplay, problems: list[Any]
             ) -> list[tuple[Path, Any, Target]]:
    """The open findings of ``impl`` (``_belongs``), each with its record's path and
    its target, the recorded timeouts last: each may well take its whole timeout
    again. A record of an unknown target is an error of ``result``; one that cannot
    be read, a problem of ``problems``."""
    from pctfuzz._internal.store import OPEN_STATUSES

    chosen: list[tuple[Path, Any, Target]] = []
    for finding in list(store.iter_findings(problems)):
        path = folder / finding.file_name
        try:
            target = get_target(finding.target)
        except PctfuzzError as exc:
            result.errors.append((path, str(exc)))
            continue
        if finding.status in OPEN_STATUSES and _belongs(target, finding, impl, targets,
                                                        settings.accepted):
            chosen.append((path, finding, target))
    chosen.sort(key=lambda item: item[1].kind == "timeout")
    return chosen


def _recorded(store: FindingStore, path: Path, finding: Any, run: Run, bound: Bound,
              result: OpenReplay) -> Verdict:
    """The verdict of ``finding``'s replay ``run``, its status changed in the store where
    the verdict says: ``fixed`` (with the implementation's version and the date) when
    it no longer reproduces, ``known-divergence`` when an accepted difference explains
    it now."""
    from pctfuzz._internal.oracles.base import impl_version
    from pctfuzz._internal.store import utc_now

    verdict = _finding_verdict(path, finding, run, overridden=False)
    if verdict.outcome == "no longer reproduces":
        version = (impl_version(bound.subject) if get_target(finding.target).differential
                   else f"pctfuzz {__version__}")  # the reference is pctfuzz's
        store.update_status(finding.id, "fixed",
                            fixed_in={"version": one_line(version, 200), "date": utc_now()})
        result.fixed.append(finding.id)
        return replace(verdict, status="fixed")
    if verdict.outcome == "accepted":
        store.update_status(finding.id, "known-divergence",
                            note=one_line(f"accepted by {', '.join(run.accepted)}", 500))
        result.accepted.append(finding.id)
        return replace(verdict, status="known-divergence")
    return verdict
