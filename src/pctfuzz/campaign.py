"""Bounded fuzzing campaigns: atheris targets as libFuzzer subprocesses.

``run_campaign`` runs ``jobs`` libFuzzer processes at once. With at least as many
targets as jobs, each target gets one process and an equal share of
``max_time * jobs`` seconds, up to ``jobs`` targets at a time. With fewer targets
than jobs, every target runs for the whole ``max_time`` with ``jobs // targets``
processes (the first ``jobs % targets`` targets get one more): libFuzzer's own
``-jobs`` model, with different ``-seed`` values, their findings deduplicated by the
findings store (same signature, one record, hits added). A target's stats are summed
over its processes (``workers``).

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
restarts for the rest of its share.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import PctfuzzError
from .fuzz_protocol import FINDING, LOST, WARNING_PREFIX
from .scratch import owned_dir, remove_abandoned
from .targets import TARGETS, get_target

if TYPE_CHECKING:
    from .store import Corpus, StoreProblem

__all__ = [
    "CampaignResult",
    "TargetStats",
    "default_harness_dir",
    "merge_stats",
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
    #: what should have been stored and was not (``pctfuzz: LOST`` lines, a stop
    #: finding that could not be saved): the campaign is then incomplete
    lost: list[str] = field(default_factory=list)
    workers: int = 1  # libFuzzer processes that fuzzed this target at the same time

    @property
    def findings(self) -> int:
        return len(self.new_findings) + len(self.known_findings)

    def problems(self) -> list[str]:
        """Why this target's part of the campaign is incomplete (empty if it is not):
        something lost, or no execution at all (the harness never started)."""
        problems = [f"lost {what}" for what in self.lost]
        if self.execs == 0:
            problems.append("ran 0 executions (the harness did not start; see errors)")
        return problems


@dataclass
class CampaignResult:
    stats: list[TargetStats]
    seconds: float

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
        return [f"{s.target}: {p}" for s in self.stats for p in s.problems()]

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
        for problem in self.problems():
            lines.append(f"INCOMPLETE: {problem}")
        return "\n".join(lines)


def default_harness_dir() -> Path:
    """``./harness`` when run from the project, else the one beside the source tree."""
    here = Path.cwd() / "harness"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[2] / "harness"


def _command(target: str, harness: Path, out_dir: Path, seconds: int, artifacts: Path,
             timeout: int, rss_limit_mb: int, extra: Sequence[str]) -> list[str]:
    cmd = [
        sys.executable,
        str(harness / f"fuzz_{target}.py"),
        str(out_dir),
        f"-max_total_time={seconds}",
        f"-timeout={timeout}",
        f"-rss_limit_mb={rss_limit_mb}",
        f"-artifact_prefix={artifacts}/",
        "-max_len=4096",
        "-print_final_stats=1",
    ]
    dictionary = harness / f"{target}.dict"
    if dictionary.is_file():
        cmd.append(f"-dict={dictionary}")
    return [*cmd, *extra]


def _run_worker(target: str, seconds: float, *, harness: Path, corpus: Path, findings: Path,
                impl: str, timeout: int, rss_limit_mb: int, extra: Sequence[str],
                progress: Callable[[TargetStats], None] | None) -> TargetStats:
    """One libFuzzer process of ``target`` (restarted after a stop) for ``seconds``."""
    from .store import Corpus

    stats = TargetStats(target)
    deadline = time.monotonic() + seconds
    started = time.monotonic()
    env = dict(os.environ, PCTFUZZ_FINDINGS=str(findings), PCTFUZZ_CORPUS=str(corpus),
               PCTFUZZ_IMPL=impl, PYTHONUNBUFFERED="1")
    store = Corpus(corpus)
    base_execs = 0
    while (left := deadline - time.monotonic()) >= 2:
        # Artifact folders carry the pid and an owner file, so a later start-up can
        # remove those of campaigns that were killed, and only those (``scratch``).
        with _artifacts_dir() as artifacts:
            staging = _stage(store, target)
            try:
                cmd = _command(target, harness, staging, int(left), Path(artifacts), timeout,
                               rss_limit_mb, extra)
                death, artifact, run_execs = _watch(cmd, env, stats, base_execs, progress)
            finally:
                _unstage(store, target, staging)
            base_execs += run_execs
            if death is None:
                break
            stats.restarts += 1
            _record_death(target, death, artifact, impl, findings, stats)
    stats.seconds = time.monotonic() - started
    stats.execs = base_execs
    if stats.seconds > 0:
        stats.exec_per_s = int(stats.execs / stats.seconds)
    return stats


_STAGING = ".libfuzzer-"
_ARTIFACTS = "pctfuzz-artifacts-"
_SHA1_NAME = re.compile(r"[0-9a-f]{40}")
_MAX_ERRORS = 20


def _stage(store: Corpus, target: str) -> Path:
    """A private copy of ``target``'s corpus for one libFuzzer process to read and
    write (see the module docstring). Only entries ``Corpus.iter`` accepts are copied:
    no symlinks, folders or oversized files reach libFuzzer."""
    staging = Path(tempfile.mkdtemp(prefix=f"{_STAGING}{target}-{os.getpid()}-",
                                    dir=store.root))
    problems: list[StoreProblem] = []
    for path, data in store.iter(target, problems=problems):
        (staging / path.name).write_bytes(data)
    for problem in problems:  # a huge file or a sub-folder is not fuzzed: say so, once
        if str(problem) not in _SKIPPED:
            _SKIPPED.add(str(problem))
            print(f"pctfuzz: WARNING: [{target}] corpus entry skipped: {problem}",
                  file=sys.stderr, flush=True)
    return staging


#: Corpus entries already reported as skipped by ``_stage`` (one warning each).
_SKIPPED: set[str] = set()


def _unstage(store: Corpus, target: str, staging: Path) -> int:
    """Add the new inputs libFuzzer wrote to ``staging`` (whole files only: the name
    must be the sha1 of the bytes) to the corpus, then remove ``staging``."""
    added = 0
    try:
        entries = list(os.scandir(staging))
    except OSError:
        return 0
    for entry in entries:
        if not (_SHA1_NAME.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)):
            continue
        try:
            data = Path(entry.path).read_bytes()
        except OSError:
            continue
        if hashlib.sha1(data).hexdigest() == entry.name and len(data) <= store.max_size:
            added += store.add(target, data) is not None
    shutil.rmtree(staging, ignore_errors=True)
    return added


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _recover(store: Corpus, names: Sequence[str]) -> None:
    """Start-up: import the private corpus copies and remove the artifact folders that
    killed campaigns left behind, and stale temp files of killed writers."""
    pattern = re.compile(rf"{re.escape(_STAGING)}(?P<target>[A-Za-z0-9_-]+?)-(?P<pid>\d+)-")
    try:
        entries = list(os.scandir(store.root))
    except OSError:
        entries = []
    for entry in entries:
        m = pattern.match(entry.name)
        if m and m["target"] in names and entry.is_dir(follow_symlinks=False) and not (
                _pid_alive(int(m["pid"]))):
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


def _run_target(target: str, seconds: float, *, workers: int = 1, harness: Path,
                corpus: Path, findings: Path, impl: str, timeout: int, rss_limit_mb: int,
                extra: Sequence[str],
                progress: Callable[[TargetStats], None] | None) -> TargetStats:
    """``workers`` libFuzzer processes of ``target`` on its shared corpus folder."""
    worker = functools.partial(_run_worker, target, seconds, harness=harness, corpus=corpus,
                               findings=findings, impl=impl, timeout=timeout,
                               rss_limit_mb=rss_limit_mb)
    if workers <= 1:
        return worker(extra=extra, progress=progress)
    parts = [TargetStats(target) for _ in range(workers)]
    lock = threading.Lock()

    def report(index: int) -> Callable[[TargetStats], None]:
        def update(stats: TargetStats) -> None:
            with lock:
                parts[index] = stats
                if progress:
                    progress(merge_stats(target, parts))
        return update

    # Different seeds, so the processes do not walk the same mutations in lockstep.
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [
            pool.submit(worker, extra=args, progress=report(i))
            for i, args in enumerate(_seeded(extra, workers))
        ]
        done = [f.result() for f in futures]
    return merge_stats(target, done)


def plan_workers(targets: Sequence[str], jobs: int) -> list[int]:
    """Processes per target for ``jobs``: one each when targets >= jobs; otherwise
    ``jobs`` spread over the targets (the first ones get the remainder)."""
    if jobs <= len(targets):
        return [1] * len(targets)
    base, extra = divmod(jobs, len(targets))
    return [base + (i < extra) for i in range(len(targets))]


def _watch(cmd: list[str], env: dict[str, str], stats: TargetStats, base_execs: int,
           progress: Callable[[TargetStats], None] | None) -> tuple[str | None, Path | None, int]:
    """Run one libFuzzer process; returns (why it died or None, artifact, execs)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env, text=True, errors="replace")
    assert proc.stderr is not None
    death: str | None = None
    artifact: Path | None = None
    execs = 0
    last_progress = 0.0
    tail: list[str] = []
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
    if code != 0 and death is None:
        death = "crash"
        stats.errors.append(f"exit {code}: " + " | ".join(tail[-5:]))
    return death, artifact, execs


def _record_death(target: str, kind: str, artifact: Path | None, impl: str, findings: Path,
                  stats: TargetStats) -> None:
    """Save the input libFuzzer stopped on as a finding (timeout / oom / crash).

    The input is kept in the finding only, not added to the corpus: the restarted
    process would load it as a seed and stop on it again."""
    from .store import FindingStore, new_stop_finding

    if artifact is None or not artifact.is_file():
        stats.errors.append(f"{kind} without an input file")
        return
    from .store import StoreError

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
    """Fuzz ``targets`` (default: all) for about ``max_time`` seconds of wall time."""
    names = list(targets) or list(TARGETS)
    for name in names:
        get_target(name)
    if max_time <= 0:
        raise PctfuzzError(f"--max-time must be positive, not {max_time}")
    jobs = max(1, jobs or os.cpu_count() or 1)
    harness = harness or default_harness_dir()
    missing = [n for n in names if not (harness / f"fuzz_{n}.py").is_file()]
    if missing:
        raise PctfuzzError(f"no harness script for {', '.join(missing)} in {harness}")
    from .store import Corpus, FindingStore

    # Check the folders before any process starts: a symlinked or blocked folder is a
    # one-line error (exit 2), never a traceback or a write outside the folders.
    store = Corpus(corpus)
    for name in names:
        store.ensure_dir(name)
    findings_store = FindingStore(findings)
    findings_store.ensure_root()
    findings_store.cleanup_stale_temp(3600)
    _recover(store, names)
    workers = plan_workers(names, jobs)
    share = max(4.0, max_time * min(jobs, len(names)) / len(names))
    started = time.monotonic()
    lock = threading.Lock()

    def report(stats: TargetStats) -> None:
        if progress:
            with lock:
                progress(stats)

    with ThreadPoolExecutor(max_workers=min(jobs, len(names))) as pool:
        futures = [
            pool.submit(_run_target, name, share, workers=count, harness=harness,
                        corpus=corpus, findings=findings, impl=impl, timeout=timeout,
                        rss_limit_mb=rss_limit_mb, extra=libfuzzer_args, progress=report)
            for name, count in zip(names, workers, strict=True)
        ]
        stats = [f.result() for f in futures]
    return CampaignResult(stats, time.monotonic() - started)
