"""Bounded fuzzing campaigns: atheris targets as libFuzzer subprocesses.

**Scheduling** (``plan_rotation``, ``slice_seconds``). ``run_campaign`` runs ``jobs``
libFuzzer processes at once. The differential targets come first. With at least as
many targets as jobs, process slot ``i`` rotates through targets ``i``, ``i + jobs``,
... in short slices (``-max_total_time`` of a few seconds, longer for long campaigns),
so every target runs early and often. With fewer targets than jobs, each target has
``jobs // targets`` slots for the whole time (the first ``jobs % targets`` one more):
libFuzzer's own ``-jobs`` model, with different ``-seed`` values, their findings
deduplicated by the findings store (same signature, one record, hits added). A
target's stats are summed over its slots (``workers``).

**Process management** (``_Supervisor``). The parent holds the deadline: a process
still running ``DEADLINE_GRACE`` seconds after it (libFuzzer's clock starts after its
start-up) is sent SIGTERM, and SIGKILL ``KILL_AFTER`` seconds later. SIGINT, SIGTERM
and SIGHUP to the campaign stop the processes the same way; the campaign then imports
their new inputs and returns normally (``CampaignResult.stopped_by``), so the summary
and result files are still written. The processes run in their own session (a
terminal's Ctrl-C reaches the campaign only) and die with it if it is killed
(``PR_SET_PDEATHSIG``, set by ``pctfuzz.harness``). A stopped process loses the hits
it counted since its last flush (at most ``PCTFUZZ_FLUSH_SECONDS``), like a kill -9.

libFuzzer never writes into ``corpus/<target>`` itself: it writes new inputs with a
plain ``fopen(dir/sha1, "wb")``, which follows a symlink of that name out of the
folder and leaves a torn file when killed. Each process gets a private copy of the
corpus (``corpus/.libfuzzer-<target>-<pid>-*``); afterwards its new inputs whose sha1
matches their name are added through ``store.Corpus`` (atomic, no symlinks followed)
and the copy is removed. Copies left by killed processes are imported at the next
start-up. Processes of one target therefore share new inputs at restarts, not live.

It reads libFuzzer's status lines to report progress. The harness processes run in
record mode (see ``fuzzing.py``): findings are saved as they happen and fuzzing goes
on. When libFuzzer itself stops on an input (per-input timeout, RSS limit, an uncaught
error) the input is saved as a finding of kind timeout/oom/crash and the process
restarts for the rest of its slice.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pctfuzz.errors import PctfuzzError
from pctfuzz.fuzz.protocol import ANSWERED, FINDING, LOST, WARNING_PREFIX
from pctfuzz.fuzz.scratch import owned_dir, pid_alive, remove_abandoned
from pctfuzz.identity import TARGET_NAME
from pctfuzz.targets import TARGETS, get_target

if TYPE_CHECKING:
    from pctfuzz.store import Corpus, StoreProblem

__all__ = [
    "CampaignResult",
    "TargetStats",
    "default_harness_dir",
    "merge_stats",
    "order_targets",
    "plan_rotation",
    "plan_workers",
    "run_campaign",
]

_STATUS = re.compile(
    r"^#(?P<execs>\d+)\s+(?P<event>\w+)\s+cov: (?P<cov>\d+) ft: (?P<ft>\d+) "
    r"corp: (?P<units>\d+)/(?P<size>\S+).*?exec/s: (?P<eps>\d+)"
)
_ARTIFACT = re.compile(r"Test unit written to (?P<path>\S+)")
_DEATH = (
    ("timeout", re.compile(r"ERROR: libFuzzer: timeout")),
    ("oom", re.compile(r"ERROR: libFuzzer: (out-of-memory|malloc)")),
    ("crash", re.compile(r"ERROR: libFuzzer: |=== Uncaught Python exception")),
)


@dataclass
class TargetStats:
    """What one target did during the campaign (summed over restarts)."""

    target: str
    seconds: float = 0.0
    execs: int = 0
    exec_per_s: int = 0
    initial_cov: int | None = None  # libFuzzer's cov: once the seed corpus is loaded
    cov: int = 0
    ft: int = 0
    corpus_units: int = 0
    new_findings: list[str] = field(default_factory=list)
    known_findings: list[str] = field(default_factory=list)
    restarts: int = 0
    errors: list[str] = field(default_factory=list)
    #: differential targets: cases asked and answered (not ``Unsupported``)
    asked: int = 0
    answered: int = 0
    #: what should have been stored and was not (``pctfuzz: LOST`` lines, a stop
    #: finding that could not be saved): the campaign is then incomplete
    lost: list[str] = field(default_factory=list)
    workers: int = 1  # libFuzzer processes that fuzzed this target at the same time

    @property
    def findings(self) -> int:
        return len(self.new_findings) + len(self.known_findings)

    @property
    def answered_rate(self) -> float | None:
        """The share of its cases the implementation answered (differential targets)."""
        return self.answered / self.asked if self.asked else None

    def problems(self, *, stopped: bool = False) -> list[str]:
        """Why this target's part of the campaign is incomplete (empty if it is not):
        something lost, or no execution at all (its harness never started, or the
        budget left it no slice). A campaign ``stopped`` by a signal did not promise
        to run every target: then only what was lost counts."""
        problems = [f"lost {what}" for what in self.lost]
        if self.execs == 0 and not stopped:
            problems.append("ran 0 executions (its harness did not start, or --max-time "
                            "left it no time; see errors)")
        return problems


@dataclass
class CampaignResult:
    stats: list[TargetStats]
    seconds: float
    stopped_by: int | None = None  # the signal that stopped the campaign early

    @property
    def new_findings(self) -> list[str]:
        """Distinct ids of the findings first saved by this campaign."""
        return list(dict.fromkeys(f for s in self.stats for f in s.new_findings))

    @property
    def known_findings(self) -> list[str]:
        """Distinct ids of findings seen again that existed before this campaign."""
        new = set(self.new_findings)
        return list(dict.fromkeys(f for s in self.stats for f in s.known_findings
                                  if f not in new))

    def problems(self) -> list[str]:
        """``<target>: <why>`` for each reason the campaign is incomplete."""
        stopped = self.stopped_by is not None
        return [f"{s.target}: {p}" for s in self.stats for p in s.problems(stopped=stopped)]

    @property
    def incomplete(self) -> bool:
        """A finding or hits were lost, or a target never ran: never a green run."""
        return bool(self.problems())

    def summary(self) -> str:
        """The end-of-campaign table."""
        head = ("target", "secs", "execs", "exec/s", "cov0", "cov", "ft", "corpus", "new",
                "known")
        rows = [
            (s.target, f"{s.seconds:.0f}", str(s.execs), str(s.exec_per_s),
             str(s.initial_cov or 0), str(s.cov),
             str(s.ft), str(s.corpus_units), str(len(s.new_findings)),
             str(len(s.known_findings)))
            for s in self.stats
        ]
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                           enumerate(zip(row, widths, strict=True))) for row in [head, *rows]]
        lines.insert(1, "  ".join("-" * w for w in widths))
        new = self.new_findings
        parallel = [f"{s.target}={s.workers}" for s in self.stats if s.workers > 1]
        if parallel:
            lines.append("processes per target: " + ", ".join(parallel))
        lines.append(f"{len(new)} new finding(s) in {self.seconds:.0f} s"
                     + (": " + ", ".join(new) if new else ""))
        rates = [(s.target, s.answered_rate) for s in self.stats if s.answered_rate is not None]
        if rates:
            lines.append("answered by the implementation: "
                         + ", ".join(f"{t} {r:.0%}" for t, r in rates))
        for target, rate in rates:
            if rate < LOW_ANSWER_RATE:
                lines.append(f"WARNING: {target}: the implementation answered only {rate:.0%} "
                             "of the cases (the rest Unsupported): bugs may hide there")
        for problem in self.problems():
            lines.append(f"INCOMPLETE: {problem}")
        return "\n".join(lines)


def default_harness_dir() -> Path:
    """``./harness`` when run from the project, else the one beside the source tree."""
    here = Path.cwd() / "harness"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[3] / "harness"  # src/pctfuzz/fuzz/ -> the checkout


def _command(target: str, harness: Path | None, out_dir: Path, seconds: int,
             artifacts: Path, timeout: int, rss_limit_mb: int,
             extra: Sequence[str]) -> list[str]:
    """The libFuzzer process of one slice: ``python -m pctfuzz.harness TARGET`` (it
    adds the packaged dictionary), or a ``fuzz_<target>.py`` script of ``harness``."""
    if harness is None:
        cmd = [sys.executable, "-m", "pctfuzz.harness", target]
    else:
        cmd = [sys.executable, str(harness / f"fuzz_{target}.py")]
        dictionary = harness / f"{target}.dict"
        if dictionary.is_file():
            cmd.append(f"-dict={dictionary}")
    cmd += [
        str(out_dir),
        f"-max_total_time={seconds}",
        f"-timeout={timeout}",
        f"-rss_limit_mb={rss_limit_mb}",
        f"-artifact_prefix={artifacts}/",
        "-max_len=4096",
        "-print_final_stats=1",
        # SIGTERM (the deadline, a stop) is the harness's own: it flushes its hit
        # counts before it exits (fuzzing.main); libFuzzer's handler would _Exit first.
        "-handle_term=0",
    ]
    return [*cmd, *extra]


#: Below this share of answered cases, the summary warns (issue 12).
LOW_ANSWER_RATE = 0.5
#: Seconds after the deadline before the processes still running get SIGTERM.
DEADLINE_GRACE = 1.0
#: Seconds after SIGTERM before SIGKILL.
KILL_AFTER = 2.0
#: About how much longer than its budget a slice takes (measured 1 s on 2 cores).
SLICE_OVERHEAD = 1.5
#: A slice shorter than this is not started.
MIN_SLICE = 2.0
#: About how long a harness process takes to start (Python, atheris, instrumentation).
STARTUP = 1.0


class _Supervisor:
    """The live libFuzzer processes of a campaign: started in their own session,
    stopped together (SIGTERM, then SIGKILL) at the deadline or on a signal."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.stop_signal: int | None = None
        self.stopped_at: float | None = None
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen[str]] = set()
        self._stopped: set[int] = set()  # pids this supervisor signalled

    def remaining(self) -> float:
        return 0.0 if self.stopped_at is not None else self.deadline - time.monotonic()

    def start(self, cmd: list[str], env: dict[str, str]) -> subprocess.Popen[str] | None:
        """Start ``cmd``, or None once the campaign is stopping. Called from the slot's
        thread, which waits for the process: ``PR_SET_PDEATHSIG`` fires when the
        *thread* that started a process ends, not only the whole campaign."""
        with self._lock:
            if self.stopped_at is not None:
                return None
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    stdin=subprocess.DEVNULL, env=env, text=True,
                                    errors="replace", start_new_session=True)
            self._live.add(proc)
            return proc

    def finished(self, proc: subprocess.Popen[str]) -> bool:
        """Forget ``proc`` (it has exited); True if this supervisor stopped it."""
        with self._lock:
            self._live.discard(proc)
            return proc.pid in self._stopped

    def stop(self, signum: int | None = None) -> None:
        """No new process; SIGTERM to the running ones (libFuzzer exits at once)."""
        with self._lock:
            if signum is not None and self.stop_signal is None:
                self.stop_signal = signum
            if self.stopped_at is None:
                self.stopped_at = time.monotonic()
            self._signal_all(signal.SIGTERM)

    def kill(self) -> None:
        with self._lock:
            self._signal_all(signal.SIGKILL)

    def _signal_all(self, signum: int) -> None:
        for proc in self._live:
            self._stopped.add(proc.pid)
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signum)

    def tick(self) -> None:
        """Enforce the deadline: called by the main thread a few times a second."""
        now = time.monotonic()
        if self.stopped_at is None and now >= self.deadline + DEADLINE_GRACE:
            self.stop()
        elif self.stopped_at is not None and now >= self.stopped_at + KILL_AFTER:
            self.kill()


#: What a campaign does on these signals: stop (see the module docstring).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def _stop_on_signals(supervisor: _Supervisor) -> Iterator[None]:
    """SIGINT/SIGTERM/SIGHUP stop the campaign (a second one kills the processes at
    once). Handlers can only be set from the main thread; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, _frame: object) -> None:
        if supervisor.stopped_at is not None and supervisor.stop_signal is not None:
            supervisor.kill()
        supervisor.stop(signum)

    previous = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def order_targets(names: Sequence[str]) -> list[str]:
    """The differential targets first (they run the implementation under test), each
    group in the given order."""
    return sorted(names, key=lambda n: not get_target(n).differential)


def plan_rotation(names: Sequence[str], jobs: int) -> list[list[str]]:
    """The targets each of the ``jobs`` process slots rotates through: targets ``i``,
    ``i + jobs``, ... for slot ``i``; with fewer targets than jobs, one target per slot
    and ``plan_workers`` slots per target."""
    if jobs < len(names):
        return [list(names[i::jobs]) for i in range(jobs)]
    return [[name] for name, count in zip(names, plan_workers(names, jobs), strict=True)
            for _ in range(count)]


def slice_seconds(max_time: float, rotation: int) -> float:
    """Seconds per slice for a slot rotating through ``rotation`` targets: about two
    turns each within the budget, from 5 s (a start-up costs about a second; shorter
    when the budget has less than 5 s per target, so each still gets a turn) to 300 s.
    A slot with one target runs it in one slice."""
    if rotation <= 1:
        return max_time
    shortest = max(MIN_SLICE + 1, min(5.0, max_time / rotation))
    return min(300.0, max(shortest, max_time / rotation / 2))


@dataclass(frozen=True)
class _Job:
    """What every process of a campaign is given."""

    harness: Path | None
    corpus: Path
    findings: Path
    impl: str
    timeout: int
    rss_limit_mb: int


def _run_slot(plan: Sequence[str], slice_len: float, job: _Job, *, supervisor: _Supervisor,
              extra: Sequence[str],
              progress: Callable[[TargetStats], None] | None) -> list[TargetStats]:
    """One process slot: slices of the targets of ``plan`` in turn until the deadline;
    returns the stats of each target it ran (summed over its slices)."""
    from pctfuzz.store import Corpus, StoreError

    stats = {name: TargetStats(name) for name in plan}
    store = Corpus(job.corpus)
    # One private corpus copy per target, kept across the slot's slices: the copy is
    # paid once (seconds for a large corpus), and each process resumes where the last
    # one of its target stopped.
    stagings: dict[str, tuple[Path, set[str]]] = {}
    runnable = list(plan)
    started: set[str] = set()
    turn = 0
    try:
        while runnable:
            name = runnable[turn % len(runnable)]
            turn += 1
            left = supervisor.remaining()
            if left < MIN_SLICE:
                break
            if name not in stagings:
                try:
                    staging = _stage(store, name)
                except StoreError as exc:  # it cannot run: 0 executions, an incomplete run
                    stats[name].errors.append(str(exc))
                    runnable.remove(name)
                    continue
                stagings[name] = staging, set(os.listdir(staging))
            # Until every target of the slot has had its first turn, a slice leaves
            # each of the others an equal share of what is left: start-up and a slow
            # machine must not push the last target out of the budget.
            waiting = [n for n in runnable if n not in started]
            # A slice costs about SLICE_OVERHEAD more than its budget (start-up, the
            # final stats, the import of new inputs): leave that to the others too.
            share = (left / len(waiting) - (SLICE_OVERHEAD if len(waiting) > 1 else 0)
                     if name in waiting else left)
            started.add(name)
            _run_slice(stats[name], min(slice_len, max(MIN_SLICE, share)), *stagings[name],
                       job, supervisor=supervisor, extra=extra, progress=progress)
    finally:
        for name, (staging, known) in stagings.items():
            _unstage(store, name, staging, known=known)
    for s in stats.values():
        if s.seconds > 0:
            s.exec_per_s = int(s.execs / s.seconds)
    return [s for s in stats.values() if s.seconds > 0]


def _run_slice(stats: TargetStats, seconds: float, staging: Path, known: set[str], job: _Job,
               *, supervisor: _Supervisor, extra: Sequence[str],
               progress: Callable[[TargetStats], None] | None) -> None:
    """One slice of ``stats.target`` (restarted after a stop on an input) on its
    private corpus copy ``staging``, whose new inputs are then added to the corpus;
    the slice's figures are added to ``stats``."""
    from pctfuzz.store import Corpus

    target = stats.target
    started = time.monotonic()
    deadline = started + seconds
    env = dict(os.environ, PCTFUZZ_FINDINGS=str(job.findings), PCTFUZZ_CORPUS=str(job.corpus),
               PCTFUZZ_IMPL=job.impl, PCTFUZZ_PARENT_PID=str(os.getpid()),
               PYTHONUNBUFFERED="1")
    store = Corpus(job.corpus)
    base_execs = stats.execs
    while (left := min(deadline - time.monotonic(), supervisor.remaining())) >= MIN_SLICE:
        # Artifact folders carry the pid and an owner file, so a later start-up can
        # remove those of campaigns that were killed, and only those (``scratch``).
        with _artifacts_dir() as artifacts:
            try:
                # libFuzzer's clock starts after the interpreter's start-up.
                budget = max(1, int(left - STARTUP))
                cmd = _command(target, job.harness, staging, budget, Path(artifacts),
                               job.timeout, job.rss_limit_mb, extra)
                death, artifact, run_execs = _watch(cmd, env, stats, base_execs, progress,
                                                    supervisor)
            finally:
                _unstage(store, target, staging, known=known, remove=False)
            base_execs += run_execs
            if death is None:
                break
            stats.restarts += 1
            _record_death(target, death, artifact, job.impl, job.findings, stats)
    stats.seconds += time.monotonic() - started
    stats.execs = base_execs


_STAGING = ".libfuzzer-"
_ARTIFACTS = "pctfuzz-artifacts-"
_SHA1_NAME = re.compile(r"[0-9a-f]{40}")
_MAX_ERRORS = 20


def _stage(store: Corpus, target: str) -> Path:
    """A private copy of ``target``'s corpus for one libFuzzer process to read and
    write (see the module docstring). Only entries ``Corpus.iter`` accepts are copied:
    no symlinks, folders or oversized files reach libFuzzer.

    The copy goes in the corpus root (where a killed campaign's copy is recovered
    from). If that folder is full or read-only, the partial copy is removed and the
    copy goes to the temporary folder instead: fuzzing goes on, and what it finds is
    imported through ``Corpus.add`` as far as the corpus can take it. ``StoreError``
    (one line) if no copy can be made at all."""
    from pctfuzz.store import StoreError

    problems: list[StoreProblem] = []
    prefix = f"{_STAGING}{target}-{os.getpid()}-"
    for where in (store.root, Path(tempfile.gettempdir())):
        staging: Path | None = None
        try:
            staging = Path(tempfile.mkdtemp(prefix=prefix, dir=where))
            problems = []
            for path, data in store.iter(target, problems=problems):
                (staging / path.name).write_bytes(data)
            break
        except OSError as exc:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            failure = exc
    else:
        raise StoreError(store.root, f"no private corpus copy for {target}: "
                         f"{failure.strerror or failure}")
    if staging.parent != store.root:
        print(f"pctfuzz: WARNING: [{target}] corpus folder {store.root} cannot take a "
              f"private copy ({failure.strerror}); fuzzing from {staging}",
              file=sys.stderr, flush=True)
    for problem in problems:  # a huge file or a sub-folder is not fuzzed: say so, once
        if str(problem) not in _SKIPPED:
            _SKIPPED.add(str(problem))
            print(f"pctfuzz: WARNING: [{target}] corpus entry skipped: {problem}",
                  file=sys.stderr, flush=True)
    return staging


#: Corpus entries already reported as skipped by ``_stage`` (one warning each).
_SKIPPED: set[str] = set()
#: Corpus folders already reported as unable to take new inputs (one warning each).
_UNSAVED: set[str] = set()


def _unstage(store: Corpus, target: str, staging: Path, *, known: set[str] | None = None,
             remove: bool = True) -> int:
    """Add the new inputs libFuzzer wrote to ``staging`` (whole files only: the name
    must be the sha1 of the bytes) to the corpus, then remove ``staging`` (unless
    ``remove`` is false). Names in ``known`` (already in the corpus) are not read
    again; the names imported are added to it."""
    from pctfuzz.store import StoreError

    added = 0
    try:
        entries = list(os.scandir(staging))
    except OSError:
        return 0
    for entry in entries:
        if known is not None and entry.name in known:
            continue
        if not (_SHA1_NAME.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)):
            continue
        try:
            data = Path(entry.path).read_bytes()
        except OSError:
            continue
        if hashlib.sha1(data).hexdigest() == entry.name and len(data) <= store.max_size:
            try:
                added += store.add(target, data) is not None
            except StoreError as exc:  # a full or read-only corpus: say so once, go on
                if str(store.root) not in _UNSAVED:
                    _UNSAVED.add(str(store.root))
                    print(f"pctfuzz: WARNING: [{target}] new inputs not added to the "
                          f"corpus: {exc}", file=sys.stderr, flush=True)
                continue
            if known is not None:
                known.add(entry.name)
    if remove:
        shutil.rmtree(staging, ignore_errors=True)
    return added


def _recover(store: Corpus, names: Sequence[str]) -> None:
    """Start-up: import the private corpus copies and remove the artifact folders that
    killed campaigns left behind, and stale temp files of killed writers."""
    pattern = re.compile(rf"{re.escape(_STAGING)}(?P<target>{TARGET_NAME}?)-(?P<pid>\d+)-")
    try:
        entries = list(os.scandir(store.root))
    except OSError:
        entries = []
    for entry in entries:
        m = pattern.match(entry.name)
        if m and m["target"] in names and entry.is_dir(follow_symlinks=False) and not (
                pid_alive(int(m["pid"]))):
            _unstage(store, m["target"], Path(entry.path))
    remove_abandoned(tempfile.gettempdir(), _ARTIFACTS)
    store.cleanup_stale_temp(3600)


@contextlib.contextmanager
def _artifacts_dir() -> Iterator[str]:
    """A ``pctfuzz-artifacts-<pid>-*`` folder with its owner file, removed afterwards."""
    folder = owned_dir(_ARTIFACTS)
    try:
        yield str(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def merge_stats(target: str, parts: Sequence[TargetStats]) -> TargetStats:
    """One target's stats summed over its processes: execs, exec/s and restarts add
    up; coverage, features and corpus size are the largest any process saw; a finding
    new to any process is new."""
    if len(parts) == 1:
        return parts[0]
    new: list[str] = []
    known: list[str] = []
    for part in parts:
        new += [f for f in part.new_findings if f not in new]
    for part in parts:
        known += [f for f in part.known_findings if f not in new and f not in known]
    initial = [p.initial_cov for p in parts if p.initial_cov is not None]
    return TargetStats(
        target,
        seconds=max(p.seconds for p in parts),
        execs=sum(p.execs for p in parts),
        exec_per_s=sum(p.exec_per_s for p in parts),
        initial_cov=min(initial) if initial else None,
        cov=max(p.cov for p in parts),
        ft=max(p.ft for p in parts),
        corpus_units=max(p.corpus_units for p in parts),
        new_findings=new,
        known_findings=known,
        restarts=sum(p.restarts for p in parts),
        errors=[f"[process {i}] {e}" for i, p in enumerate(parts, 1) for e in p.errors],
        lost=[f"[process {i}] {w}" for i, p in enumerate(parts, 1) for w in p.lost],
        asked=sum(p.asked for p in parts),
        answered=sum(p.answered for p in parts),
        workers=len(parts),
    )


def _seeded(extra: Sequence[str], workers: int) -> list[list[str]]:
    """``extra`` for each process with its own ``-seed``: the given seed plus the
    process index, else a random base plus the index."""
    given = [a for a in extra if a.startswith("-seed=")]
    rest = [a for a in extra if not a.startswith("-seed=")]
    try:
        base = int(given[-1].split("=", 1)[1]) if given else 0
    except ValueError:
        raise PctfuzzError(f"bad libFuzzer option {given[-1]!r}") from None
    if base <= 0:
        base = random.SystemRandom().randrange(1, 2**30)
    return [[*rest, f"-seed={base + i}"] for i in range(workers)]


def plan_workers(targets: Sequence[str], jobs: int) -> list[int]:
    """Processes per target for ``jobs``: one each when targets >= jobs; otherwise
    ``jobs`` spread over the targets (the first ones get the remainder)."""
    if jobs <= len(targets):
        return [1] * len(targets)
    base, extra = divmod(jobs, len(targets))
    return [base + (i < extra) for i in range(len(targets))]


def _watch(cmd: list[str], env: dict[str, str], stats: TargetStats, base_execs: int,
           progress: Callable[[TargetStats], None] | None,
           supervisor: _Supervisor) -> tuple[str | None, Path | None, int]:
    """Run one libFuzzer process; returns (why it died or None, artifact, execs). A
    process the supervisor stopped did not die on an input."""
    proc = supervisor.start(cmd, env)
    if proc is None:
        return None, None, 0
    assert proc.stderr is not None
    death: str | None = None
    artifact: Path | None = None
    execs = 0
    last_progress = 0.0
    tail: list[str] = []
    base_asked, base_answered = stats.asked, stats.answered
    for line in proc.stderr:
        line = line.rstrip("\n")
        tail = [*tail[-30:], line]
        if m := _STATUS.match(line):
            execs = int(m["execs"])
            if m["event"] == "INITED" and stats.initial_cov is None:
                stats.initial_cov = int(m["cov"])
            stats.execs = base_execs + execs
            stats.exec_per_s = int(m["eps"])
            stats.cov = max(stats.cov, int(m["cov"]))
            stats.ft = max(stats.ft, int(m["ft"]))
            stats.corpus_units = int(m["units"])
        elif m := FINDING.match(line):
            # A restarted process, or another process of this target, prints KNOWN
            # for a finding this campaign saved: it is counted once, as new.
            if m["word"] == "NEW":
                if m["id"] not in stats.new_findings:
                    stats.new_findings.append(m["id"])
                if m["id"] in stats.known_findings:
                    stats.known_findings.remove(m["id"])
            elif m["id"] not in stats.new_findings and m["id"] not in stats.known_findings:
                stats.known_findings.append(m["id"])
        elif m := ANSWERED.match(line):  # running counts of this process
            stats.asked = base_asked + int(m["asked"])
            stats.answered = base_answered + int(m["answered"])
        elif m := LOST.match(line):
            if m["what"] not in stats.lost and len(stats.lost) < _MAX_ERRORS:
                stats.lost.append(m["what"])
        elif line.startswith(WARNING_PREFIX):
            # The recorder could not save something (e.g. a hostile findings folder).
            if line not in stats.errors and len(stats.errors) < _MAX_ERRORS:
                stats.errors.append(line)
        elif m := _ARTIFACT.search(line):
            artifact = Path(m["path"])
        elif death is None:
            for kind, pattern in _DEATH:
                if pattern.search(line):
                    death = kind
                    break
        if m2 := re.match(r"^stat::number_of_executed_units:\s+(\d+)", line):
            execs = int(m2[1])
        if progress and time.monotonic() - last_progress > 5:
            last_progress = time.monotonic()
            progress(stats)
    code = proc.wait()
    if supervisor.finished(proc):
        return None, None, execs
    if code != 0 and death is None:
        death = "crash"
        stats.errors.append(f"exit {code}: " + " | ".join(tail[-5:]))
    return death, artifact, execs


def _record_death(target: str, kind: str, artifact: Path | None, impl: str, findings: Path,
                  stats: TargetStats) -> None:
    """Save the input libFuzzer stopped on as a finding (timeout / oom / crash).

    The input is kept in the finding only, not added to the corpus: the restarted
    process would load it as a seed and stop on it again."""
    from pctfuzz.store import FindingStore, new_stop_finding

    if artifact is None or not artifact.is_file():
        stats.errors.append(f"{kind} without an input file")
        return
    from pctfuzz.store import StoreError

    data = artifact.read_bytes()
    tgt = get_target(target)
    finding = new_stop_finding(target=tgt, kind=kind, raw_input=data,
                               impl=impl if tgt.differential else None)
    try:
        stored, is_new = FindingStore(findings).record(finding)
    except StoreError as exc:
        stats.lost.append(f"{kind} finding {finding.id}: {exc}")
        return
    bucket = stats.new_findings if is_new else stats.known_findings
    if stored.id not in stats.new_findings and stored.id not in bucket:
        bucket.append(stored.id)


def run_campaign(
    targets: Sequence[str] = (),
    *,
    max_time: float = 60,
    jobs: int | None = None,
    impl: str = "urllib",
    corpus: Path = Path("corpus"),
    findings: Path = Path("findings"),
    harness: Path | None = None,
    timeout: int = 5,
    rss_limit_mb: int = 2048,
    libfuzzer_args: Sequence[str] = (),
    progress: Callable[[TargetStats], None] | None = None,
) -> CampaignResult:
    """Fuzz ``targets`` (default: all) for ``max_time`` seconds of wall time (plus
    about a second to stop and import). ``harness``: a folder of ``fuzz_<target>.py``
    scripts to run instead of ``python -m pctfuzz.harness``."""
    names = list(targets) or list(TARGETS)
    for name in names:
        get_target(name)
    if not max_time > 0:  # also NaN
        raise PctfuzzError(f"--max-time must be positive, not {max_time}")
    jobs = max(1, jobs or os.cpu_count() or 1)
    if harness is not None:
        missing = [n for n in names if not (harness / f"fuzz_{n}.py").is_file()]
        if missing:
            raise PctfuzzError(f"no harness script for {', '.join(missing)} in {harness}")
    from pctfuzz.store import Corpus, FindingStore

    # Check the folders before any process starts: a symlinked or blocked folder is a
    # one-line error (exit 2), never a traceback or a write outside the folders.
    store = Corpus(corpus)
    for name in names:
        store.ensure_dir(name)
    findings_store = FindingStore(findings)
    findings_store.ensure_root()
    findings_store.cleanup_stale_temp(3600)
    _recover(store, names)
    started = time.monotonic()
    supervisor = _Supervisor(started + max_time)
    job = _Job(harness, corpus, findings, impl, timeout, rss_limit_mb)
    parts = _run_slots(order_targets(names), jobs, max_time, job, supervisor, progress,
                       libfuzzer_args)
    stats = [merge_stats(name, parts[name]) if parts[name] else TargetStats(name)
             for name in names]
    return CampaignResult(stats, time.monotonic() - started, supervisor.stop_signal)


def _run_slots(names: list[str], jobs: int, max_time: float, job: _Job,
               supervisor: _Supervisor, progress: Callable[[TargetStats], None] | None,
               extra: Sequence[str]) -> dict[str, list[TargetStats]]:
    """Run the process slots of ``plan_rotation`` in threads, the main thread
    enforcing the deadline and handling signals; each target's stats per slot."""
    plans = plan_rotation(names, jobs)
    slots_of = {name: sum(name in plan for plan in plans) for name in names}
    seeded = {name: iter(_seeded(extra, n)) for name, n in slots_of.items() if n > 1}
    lock = threading.Lock()
    live: dict[tuple[int, str], TargetStats] = {}

    def reporter(slot: int) -> Callable[[TargetStats], None]:
        def report(stats: TargetStats) -> None:
            if progress:
                with lock:  # one line per target, summed over its slots
                    live[slot, stats.target] = stats
                    progress(merge_stats(stats.target, [
                        s for (_, t), s in live.items() if t == stats.target]))
        return report

    with _stop_on_signals(supervisor), ThreadPoolExecutor(max_workers=len(plans)) as pool:
        futures = []
        for slot, plan in enumerate(plans):
            # Several slots of one target: different seeds, so the processes do not
            # walk the same mutations in lockstep.
            args = next(seeded[plan[0]]) if plan[0] in seeded else list(extra)
            futures.append(pool.submit(_run_slot, plan, slice_seconds(max_time, len(plan)),
                                       job, supervisor=supervisor, extra=args,
                                       progress=reporter(slot)))
        while not all(f.done() for f in futures):
            wait(futures, timeout=0.2)
            if any(f.done() and f.exception() for f in futures):
                supervisor.stop()
            supervisor.tick()
    parts: dict[str, list[TargetStats]] = {name: [] for name in names}
    for future in futures:
        for stats in future.result():
            parts[stats.target].append(stats)
    return parts
