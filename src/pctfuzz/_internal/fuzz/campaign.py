"""Bounded fuzzing campaigns: atheris targets as libFuzzer subprocesses.

``run_campaign`` checks the folders, recovers what killed campaigns left, then runs
the process slots of ``schedule.plan_rotation`` in threads: each slot runs slices of
its targets in turn (``_run_slot``), each slice one libFuzzer process that writes into
the target's private folder and reads its corpus (``staging``), restarted after a stop
on an input (``_run_slice``, ``libfuzzer.watch``). The main thread holds the deadline
and the signals (``supervisor``). What each target did is a ``stats.TargetStats``;
progress goes to the ``progress`` callback (``status`` renders it).

One job per module: ``schedule`` (who runs when), ``supervisor`` (deadline, signals),
``staging`` (private folders, corpus copies), ``libfuzzer`` (one process and its log),
``stats`` (figures and the summary table), ``status`` (the live status). The public
names of ``schedule`` and ``stats`` are re-exported here.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from pctfuzz._internal.checks.breadcrumb import (
    crashed_questions,
    read_breadcrumb,
    remember_crashed,
)
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.fuzz.libfuzzer import (
    BREADCRUMB,
    STARTUP,
    command,
    record_death,
    rerun_command,
    watch,
)
from pctfuzz._internal.fuzz.protocol import DEFAULT_RSS_LIMIT_MB, HarnessSettings
from pctfuzz._internal.fuzz.schedule import (
    MIN_SLICE,
    SLICE_OVERHEAD,
    order_targets,
    plan_rotation,
    plan_workers,
    seeded,
    slice_seconds,
)
from pctfuzz._internal.fuzz.staging import artifacts_dir, recover, stage_for_reading, unstage
from pctfuzz._internal.fuzz.stats import LOW_ANSWER_RATE, CampaignResult, TargetStats, merge_stats
from pctfuzz._internal.fuzz.supervisor import (
    DEADLINE_GRACE,
    KILL_AFTER,
    Supervisor,
    stop_on_signals,
)
from pctfuzz._internal.oracles.peer import kill_marked
from pctfuzz._internal.targets import TARGETS, get_target

#: The environment variable that marks a campaign's processes (``_Job.token``).
CAMPAIGN_TOKEN_ENV = "PCTFUZZ_CAMPAIGN_TOKEN"

__all__ = [
    "DEADLINE_GRACE",
    "KILL_AFTER",
    "LOW_ANSWER_RATE",
    "CampaignResult",
    "TargetStats",
    "merge_stats",
    "order_targets",
    "plan_rotation",
    "plan_workers",
    "run_campaign",
    "slice_seconds",
]



@dataclass(frozen=True)
class _Job:
    """What every process of a campaign is given."""

    harness: Path | None
    corpus: Path
    findings: Path
    impl: str
    timeout: int
    rss_limit_mb: int
    log_dir: Path | None = None  # -v: libFuzzer's raw lines, one file per target
    # the project's accept file, sets and root (the campaign adds the rest)
    handoff: HarnessSettings = dataclasses.field(default_factory=HarnessSettings)
    #: marks every process the campaign's harnesses start, and theirs (``_sweep``)
    token: str = ""

    def env(self, breadcrumb: Path | None = None, *,
            answer_only: bool = False) -> dict[str, str]:
        """A harness process's environment: this one, with the hand-off of the
        campaign's settings (``protocol.HarnessSettings``); ``breadcrumb``: the file
        it keeps the question it asks in (``checks.breadcrumb``); ``answer_only``: it
        only asks its implementation each input (``_confirm_timeout``)."""
        settings = dataclasses.replace(
            self.handoff, impl=self.impl, findings=str(self.findings),
            corpus=str(self.corpus), parent_pid=os.getpid(),
            breadcrumb=None if breadcrumb is None else str(breadcrumb),
            answer_only=answer_only)
        return {**settings.to_env(os.environ), "PYTHONUNBUFFERED": "1",
                CAMPAIGN_TOKEN_ENV: self.token}

    def log(self, target: str) -> Path | None:
        return None if self.log_dir is None else self.log_dir / f"{target}.log"


def _run_slot(plan: Sequence[str], slice_len: float, job: _Job, *, supervisor: Supervisor,
              extra: Sequence[str],
              progress: Callable[[TargetStats], None] | None) -> list[TargetStats]:
    """One process slot: slices of the targets of ``plan`` in turn until the deadline;
    returns the stats of each target it ran (summed over its slices)."""
    from pctfuzz._internal.store import Corpus, StoreError

    stats = {name: TargetStats(name) for name in plan}
    store = Corpus(job.corpus)
    # One private folder per target, kept across the slot's slices (a copy of the
    # corpus when it cannot be read in place, ``stage_for_reading``): a copy is paid
    # once (seconds for a large corpus), and each process resumes where the last one
    # of its target stopped.
    stagings: dict[str, tuple[Path, set[str], tuple[Path, ...]]] = {}
    staged: dict[str, tuple[int, float]] = {}  # target -> (inputs copied, seconds)
    runnable = list(plan)
    started: set[str] = set()
    turn = 0
    left = supervisor.remaining()
    try:
        while runnable:
            name = runnable[turn % len(runnable)]
            turn += 1
            left = supervisor.remaining()
            if left < MIN_SLICE:
                break
            if name not in stagings:
                clock = time.monotonic()
                try:
                    staging, inputs = stage_for_reading(store, name)
                except StoreError as exc:  # it cannot run: 0 executions, an incomplete run
                    stats[name].errors.append(str(exc))
                    runnable.remove(name)
                    continue
                stagings[name] = staging, set(os.listdir(staging)), inputs
                staged[name] = len(stagings[name][1]), time.monotonic() - clock
            # Measured after the copy: a large corpus takes seconds to copy, which the
            # shares below must not count as still there.
            left = supervisor.remaining()
            if left < MIN_SLICE:
                break
            # Until every target of the slot has had its first turn, a slice leaves
            # each of the others an equal share of what is left: start-up and a slow
            # machine must not push the last target out of the budget.
            waiting = [n for n in runnable if n not in started]
            # A slice costs about SLICE_OVERHEAD more than its budget (start-up, the
            # final stats, the import of new inputs): leave that to the others too.
            share = (left / len(waiting) - (SLICE_OVERHEAD if len(waiting) > 1 else 0)
                     if name in waiting else left)
            started.add(name)
            # While others still wait for their first turn, a process that is still
            # running its seed corpus at the end of its slice is stopped (a large
            # corpus must not take their turns: ``Supervisor.start``).
            first_turns = any(n not in started for n in runnable)
            _run_slice(stats[name], min(slice_len, max(MIN_SLICE, share)), *stagings[name],
                       job, supervisor=supervisor, extra=extra, progress=progress,
                       enforce_end=first_turns)
            if stats[name].cannot_start is not None:  # (said as a problem of the run)
                runnable.remove(name)
    finally:
        for name, (staging, known, _inputs) in stagings.items():
            unstage(store, name, staging, known=known, lost=stats[name].lost)
    for name in plan:
        if name not in started and not stats[name].errors and supervisor.stop_signal is None:
            # Exactly why it never ran: the slot's time was gone before its turn.
            copies = [f"{n} {count:,} inputs in {secs:.1f} s" for n, (count, secs)
                      in staged.items() if secs >= 1.0]
            stats[name].no_turn = (
                f"its slot had {max(0.0, left):.1f} s of --max-time left when its first "
                f"turn came, less than a slice ({MIN_SLICE:g} s); the targets before it in "
                f"the slot ({', '.join(n for n in plan if n in started) or 'none'}) used "
                "the rest" + (f" (copying corpora: {'; '.join(copies)})" if copies else ""))
    for s in stats.values():
        if s.seconds > 0:
            s.exec_per_s = int(s.execs / s.seconds)
    return [s for s in stats.values() if s.seconds > 0 or s.no_turn]


def _run_slice(stats: TargetStats, seconds: float, staging: Path, known: set[str],
               inputs: tuple[Path, ...], job: _Job, *, supervisor: Supervisor,
               extra: Sequence[str], progress: Callable[[TargetStats], None] | None,
               enforce_end: bool = False) -> None:
    """One slice of ``stats.target`` (restarted after a stop on an input) on its
    private folder ``staging`` (and the folders ``inputs`` it only reads), whose new
    inputs are then added to the corpus; the slice's figures are added to ``stats``.
    ``enforce_end``: a process still running its seed corpus at the end of the slice
    is stopped (``Supervisor.start``)."""
    from pctfuzz._internal.store import Corpus

    target = stats.target
    started = time.monotonic()
    deadline = started + seconds
    store = Corpus(job.corpus)
    base_execs = stats.execs
    # The first run gets the slice as given (its slot checked MIN_SLICE): measured from
    # the clock, a slice of exactly MIN_SLICE (a short budget's share) came out a few
    # microseconds short and never ran, so the first target of each slot lost its turn.
    left = min(seconds, supervisor.remaining())
    # The questions a process of this slice died asking: the next is told, and answers
    # them as refused (``Breadcrumb.killed_before``), where it would die at the same
    # question of its first naming (a set probe's character).
    crashed: list[bytes] = []
    failed_starts = 0  # processes in a row that died before their first input
    while left >= MIN_SLICE:
        # Artifact folders carry the pid and an owner file, so a later start-up can
        # remove those of campaigns that were killed, and only those (``scratch``).
        with artifacts_dir() as artifacts:
            try:
                # libFuzzer's clock starts after the interpreter's start-up.
                budget = max(1, int(left - STARTUP))
                cmd = command(target, job.harness, staging, budget, Path(artifacts),
                               job.timeout, job.rss_limit_mb, extra, inputs)
                # The question a differential harness is asking as it dies is in
                # the breadcrumb (``record_death``); libFuzzer writes no such name.
                breadcrumb = Path(artifacts, BREADCRUMB)
                if crashed:
                    remember_crashed(breadcrumb, crashed)
                env = job.env(breadcrumb)
                given = sum(map(_count_files, (staging, *inputs)))
                stats.corpus_inputs = max(stats.corpus_inputs, given)
                death, artifact, run_execs = watch(
                    cmd, env, stats, base_execs, progress, supervisor, log=job.log(target),
                    until=deadline if enforce_end else None)
            finally:
                unstage(store, target, staging, known=known, remove=False, lost=stats.lost)
            base_execs += run_execs
            if death is None:
                break
            stats.restarts += 1
            if _died_starting(run_execs, artifact, breadcrumb):
                failed_starts += 1
                if failed_starts >= START_ATTEMPTS:
                    # (what the last process said is the last error: ``libfuzzer._ended``)
                    stats.cannot_start = stats.errors[-1] if stats.errors else \
                        f"its process died ({death}) before its first input"
                    break
                left = min(deadline - time.monotonic(), supervisor.remaining())
                continue  # (no input to record: it never had one)
            failed_starts = 0
            evidence: dict[str, object] = {}
            if death == "timeout" and artifact is not None and not stats.timeout_confirmed:
                death, breadcrumb, evidence = _confirm_timeout(
                    stats, artifact, breadcrumb, crashed, job, supervisor, progress)
            if death is not None:
                record_death(target, death, artifact, job.impl, job.findings, stats,
                             accepted=not job.handoff.no_accepted, breadcrumb=breadcrumb,
                             evidence=evidence)
                crashed = crashed_questions(breadcrumb)
        left = min(deadline - time.monotonic(), supervisor.remaining())
    stats.seconds += time.monotonic() - started
    stats.execs = base_execs


#: Processes of one target in a row that may die before their first input before the
#: campaign starts it no more (``_run_slice``): the second rules out a passing cause,
#: and a harness that cannot import its implementation (botocore's lazy ``six.moves``,
#: once) was otherwise restarted until the deadline, 214 times in 40 s, running nothing.
START_ATTEMPTS = 2


def _died_starting(execs: int, artifact: Path | None, breadcrumb: Path) -> bool:
    """Whether a process died before its first input: no execution, no input file
    from libFuzzer, and no question of its implementation in hand (a death in the set
    probe is that question's finding: ``record_death``)."""
    if execs or artifact is not None:
        return False
    trail = read_breadcrumb(breadcrumb)
    return trail is None or trail.question is None


#: How many times libFuzzer's per-input timeout the harness that names the difference of
#: an input that timed out is given (``_confirm_timeout``).
RERUN_FACTOR = 4


def _confirm_timeout(stats: TargetStats, data: Path, first: Path, crashed: list[bytes],
                     job: _Job, supervisor: Supervisor,
                     progress: Callable[[TargetStats], None] | None
                     ) -> tuple[str | None, Path, dict[str, object]]:
    """Whether a timeout is the implementation's; returns what to record of the input
    ``data`` libFuzzer stopped on (None: nothing more), the breadcrumb to read (a
    rerun's, beside the first process's ``first``) and evidence to add.

    libFuzzer's clock counts all the harness does with an input: the implementation's
    answer, and pctfuzz naming, minimizing and saving the difference it shows, which
    asks the implementation thousands of questions more. On a loaded machine (a busy
    CI runner), or for a library slow on a long input (0.2 s a call), that work alone
    passed a 5 s timeout: the input was saved as a timeout finding it is not, and the
    difference being named was not saved at all. So the input is run again, alone,
    by fresh harnesses (``libfuzzer.rerun_command``):

    1. the implementation asked the input and nothing more (``Bound.answer``), with
       the campaign's timeout: a timeout there is the implementation's, a finding
       (and the target's later timeouts are recorded without a rerun: it would cost
       a timeout each time); a crash there is a crash finding of the input;
    2. else the harness in record mode, with ``RERUN_FACTOR`` times the timeout, which
       names and saves the difference itself: no timeout finding. One whose naming
       overruns that too is saved as a timeout still (the input kept), its evidence
       saying the implementation answered within the timeout.

    A rerun that did not run the input through (the campaign's end or a signal stopped
    it first) is no answer: the input is saved as a timeout, as it would be without
    it; one that ran it through, or saved a finding before it was stopped or overran,
    answered (a SIGINT right after the rerun saved its finding made a timeout finding
    of it too)."""
    # (no breadcrumb is kept: a crash there is its input's; the questions earlier
    # processes died asking are listed beside it for the next one, as they were)
    alone = first.with_name("alone-" + first.name)
    remember_crashed(alone, crashed)
    death, _artifact, ran = watch(
        rerun_command(stats.target, job.harness, data, job.timeout, job.rss_limit_mb,
                      first.parent), job.env(answer_only=True), stats, stats.execs, progress,
        supervisor, log=job.log(stats.target))
    # (``ran``: libFuzzer ran the input through, whatever stopped the process after)
    if death is not None or not ran:
        stats.timeout_confirmed = death == "timeout"
        return death or "timeout", alone, {}
    # Beside the first process's breadcrumb, not on it: a harness answers the question
    # a file says was being asked as its process died as refused (``Breadcrumb``).
    breadcrumb = first.with_name("rerun-" + first.name)
    remember_crashed(breadcrumb, crashed)
    seconds = RERUN_FACTOR * job.timeout
    reported = len(stats.new_findings) + len(stats.known_findings)
    death, _artifact, ran = watch(
        rerun_command(stats.target, job.harness, data, seconds, job.rss_limit_mb,
                      first.parent), job.env(breadcrumb), stats, stats.execs, progress,
        supervisor, log=job.log(stats.target))
    # (a finding the rerun saved is the difference it was naming, however it ended)
    saved = len(stats.new_findings) + len(stats.known_findings) > reported
    if (death is None and ran) or (saved and death in (None, "timeout")):
        stats.timeouts_not_confirmed += 1
        return None, breadcrumb, {}
    if death is not None and death != "timeout":
        return death, breadcrumb, {}
    # (not the first's breadcrumb: the question it was asking killed nothing, and the
    # next process would answer it as refused)
    return "timeout", alone, {"answered_alone": f"within {job.timeout} s; its difference "
                                                f"was not named within {seconds} s"}


def _count_files(folder: Path) -> int:
    """The inputs a libFuzzer process is given in ``folder`` (its seed corpus)."""
    try:
        with os.scandir(folder) as entries:
            return sum(1 for e in entries if e.is_file(follow_symlinks=False))
    except OSError:
        return 0


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
    rss_limit_mb: int = DEFAULT_RSS_LIMIT_MB,
    libfuzzer_args: Sequence[str] = (),
    progress: Callable[[TargetStats], None] | None = None,
    log_dir: Path | None = None,
    handoff: HarnessSettings | None = None,
) -> CampaignResult:
    """Fuzz ``targets`` (default: all) for ``max_time`` seconds of wall time (plus
    about a second to stop and import). ``harness``: a folder of ``fuzz_<target>.py``
    scripts to run instead of ``python -m pctfuzz._internal.harness``. ``log_dir``: a folder
    that gets each target's raw libFuzzer log as ``<target>.log`` (appended).
    ``handoff``: what the harness processes are told besides the implementation and
    the store (the project's accept file, declared sets and root)."""
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
    from pctfuzz._internal.store import Corpus, FindingStore

    # Check the folders before any process starts: a symlinked, blocked or read-only
    # folder is a one-line error (exit 2), never a traceback, a write outside the
    # folders, or a campaign that loses every new input.
    store = Corpus(corpus)
    for name in names:
        store.ensure_writable(name)
    findings_store = FindingStore(findings)
    findings_store.ensure_root()
    findings_store.cleanup_stale_temp(3600)
    recover(store, names)
    started = time.monotonic()
    supervisor = Supervisor(started + max_time)
    job = _Job(harness, corpus, findings, impl, timeout, rss_limit_mb, log_dir,
               handoff or HarnessSettings(), secrets.token_hex(8))
    try:
        parts = _run_slots(order_targets(names), jobs, max_time, job, supervisor, progress,
                           libfuzzer_args)
    finally:
        # A harness killed at the deadline cannot close its peers: the kernel kills
        # each peer (PR_SET_PDEATHSIG), not what the peer started. Those carry the
        # campaign's token in their environment, wherever they were reparented.
        kill_marked(CAMPAIGN_TOKEN_ENV, job.token)
    stats = [merge_stats(name, parts[name]) if parts[name] else TargetStats(name)
             for name in names]
    return CampaignResult(stats, time.monotonic() - started, supervisor.stop_signal)


def _run_slots(names: list[str], jobs: int, max_time: float, job: _Job,
               supervisor: Supervisor, progress: Callable[[TargetStats], None] | None,
               extra: Sequence[str]) -> dict[str, list[TargetStats]]:
    """Run the process slots of ``plan_rotation`` in threads, the main thread
    enforcing the deadline and handling signals; each target's stats per slot."""
    plans = plan_rotation(names, jobs)
    slots_of = {name: sum(name in plan for plan in plans) for name in names}
    seeds = {name: iter(seeded(extra, n)) for name, n in slots_of.items() if n > 1}
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

    with stop_on_signals(supervisor), ThreadPoolExecutor(max_workers=len(plans)) as pool:
        futures = []
        for slot, plan in enumerate(plans):
            # Several slots of one target: different seeds, so the processes do not
            # walk the same mutations in lockstep.
            args = next(seeds[plan[0]]) if plan[0] in seeds else list(extra)
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
