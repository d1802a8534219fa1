#!/usr/bin/env python3
"""kill -9 a running ``pctfuzz fuzz`` campaign at random moments; the store must survive.

    python benchmarks/kill_test.py --kills 200            # the long variant (~6 min)
    python benchmarks/kill_test.py --kills 20 --lanes 2   # what `make test-slow` runs

Each kill starts ``pctfuzz fuzz diff_encode --impl broken_impls:TildeEncodingUrllib``
(an implementation broken on purpose, so findings come within a second) in its own
process group, waits a random 0.5-3 s, and SIGKILLs the whole group -- the campaign
and its libFuzzer children, also any descendant that left the group -- then checks:

- every ``findings/*.json`` loads (``store.load_finding``: strict schema), one file
  per finding id, and the temp files killed writers left (``.*.tmp``) are ignored by
  the readers (no problem reported);
- every finding present before the kill is still there, with no fewer hits;
- every corpus file is whole: the sha1 of its bytes is its name;
- no process of the campaign survives the kill.

A corpus file that is *not* whole is counted apart (``torn_corpus``). libFuzzer
writes new inputs with a plain fopen/fwrite (no temp file, no rename), so a kill can
leave a partial file under a sha1 name; the campaign therefore gives libFuzzer a
private copy of the corpus and imports only whole files through ``Corpus.add``
(``campaign.py``). Before that change, ~1 torn file was seen in ~260 kills; the test
now requires none.

All kills share one corpus and one findings folder, so every campaign also starts on
what the killed ones left behind. ``--lanes 2`` runs two such kill loops at once on
the same folders (two campaigns sharing a store, both killed). At the end, stale temp
files are removed with ``cleanup_stale_temp`` (none may remain) and every finding is
replayed with ``pctfuzz replay`` (each must reproduce). ``PCTFUZZ_FLUSH_SECONDS=0.1``
makes the recorders write hit counts ten times a second, so kills land during writes.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests" / "support"  # planted-bug adapters (slow_impls, broken_impls)

try:
    import pctfuzz  # noqa: F401
except ImportError:  # running from a checkout without an install
    sys.path.insert(0, str(ROOT / "src"))

from pctfuzz._internal.store import (  # noqa: E402
    Corpus,
    FindingStore,
    StoreProblem,
    cleanup_stale_temp,
)

TARGET = "diff_encode"
IMPL = "broken_impls:TildeEncodingUrllib"
MARKER = "PCTFUZZ_KILL_TEST"


@dataclass
class KillReport:
    kills: int = 0
    kills_with_fuzzer_running: int = 0  # a libFuzzer child existed when the kill came
    kills_after_a_finding: int = 0  # at least one finding was on disk before the kill
    temp_files_seen: int = 0  # leftover .*.tmp after kills (ignored by readers)
    temp_files_cleaned: int = 0
    leaked_tmp_dirs: int = 0  # the campaign's libFuzzer artifact dirs left in TMPDIR
    torn_corpus: set[str] = field(default_factory=set)  # libFuzzer's non-atomic writes
    findings: int = 0
    hits: int = 0
    corpus_files: int = 0
    replayed: int = 0
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.kills} kills ({self.kills_with_fuzzer_running} with libFuzzer running, "
            f"{self.kills_after_a_finding} after a finding was saved): "
            f"{self.findings} finding(s), {self.hits} hits, {self.corpus_files} corpus files, "
            f"{self.replayed} replayed; {self.temp_files_seen} temp file(s) left by killed "
            f"writers (ignored, {self.temp_files_cleaned} cleaned), "
            f"{self.leaked_tmp_dirs} artifact dir(s) leaked in TMPDIR; "
            f"{len(self.torn_corpus)} torn corpus file(s) written by libFuzzer; "
            f"{len(self.problems)} problem(s)"
        )


# ------------------------------------------------------------------------- processes


def descendants(pid: int) -> list[int]:
    """Every descendant of ``pid`` (Linux /proc), children first."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{parent}/task/{tid}/children") as handle:
                    kids = [int(k) for k in handle.read().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def marked_processes(marker: str) -> list[int]:
    """Live processes whose environment holds ``MARKER=marker``."""
    needle = f"{MARKER}={marker}".encode() + b"\0"
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if needle in handle.read():
                    pids.append(int(name))
        except OSError:
            continue
    return pids


def kill_group(proc: subprocess.Popen[bytes]) -> int:
    """SIGKILL ``proc``'s process group and every descendant; returns how many
    descendants there were (the campaign's libFuzzer processes)."""
    kids = descendants(proc.pid)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in kids:  # in case one left the group
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    proc.wait()
    return len(kids)


def campaign_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    path = os.pathsep.join(p for p in [str(TESTS), os.environ.get("PYTHONPATH", "")] if p)
    return dict(os.environ, PYTHONPATH=path, **(extra or {}))


def start_campaign(corpus: Path, findings: Path, *, env: dict[str, str], log: Path,
                   args: tuple[str, ...] = (TARGET, "--impl", IMPL)) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "pctfuzz", "fuzz", *args, "--max-time", "120",
           "--jobs", "1", "-q", "--corpus", str(corpus), "--findings", str(findings)]
    with open(log, "ab") as out:
        return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=out,
                                stdin=subprocess.DEVNULL, start_new_session=True)


# ----------------------------------------------------------------------------- checks


def corpus_files(folder: Path) -> tuple[int, list[str], list[str]]:
    """(files, torn, problems) of a corpus folder: ``torn`` are regular files whose
    bytes do not hash to their name; any visible entry that is not a regular file is
    a problem."""
    torn: list[str] = []
    problems: list[str] = []
    count = 0
    if not folder.is_dir():
        return 0, torn, problems
    for entry in os.scandir(folder):
        if entry.name.startswith("."):
            continue
        if not entry.is_file(follow_symlinks=False):
            problems.append(f"{entry.path}: not a regular file")
            continue
        count += 1
        with open(entry.path, "rb") as handle:
            data = handle.read()
        if hashlib.sha1(data).hexdigest() != entry.name:
            torn.append(f"{entry.path} ({len(data)} bytes)")
    return count, torn, problems


def temp_files(*folders: Path) -> list[Path]:
    return [p for folder in folders if folder.is_dir() for p in folder.glob(".*.tmp")]


def snapshot(findings: Path) -> dict[str, int]:
    return {f.id: f.hits for f in FindingStore(findings).iter_findings([])}


def check_store(corpus: Path, findings: Path, before: dict[str, int]
                ) -> tuple[list[str], list[str]]:
    """(problems, torn corpus files) after a kill."""
    problems: list[str] = []
    store_problems: list[StoreProblem] = []
    loaded = list(FindingStore(findings).iter_findings(store_problems))
    problems += [f"unreadable finding: {p}" for p in store_problems]
    ids = [f.id for f in loaded]
    if len(ids) != len(set(ids)):
        problems.append(f"several files for one finding id: {sorted(ids)}")
    after = {f.id: f.hits for f in loaded}
    for ident, hits in before.items():
        if ident not in after:
            problems.append(f"finding {ident} recorded before the kill is gone")
        elif after[ident] < hits:
            problems.append(f"finding {ident}: hits went down from {hits} to {after[ident]}")
    corpus_problems: list[StoreProblem] = []
    list(Corpus(corpus).iter(TARGET, problems=corpus_problems))
    problems += [f"unreadable corpus file: {p}" for p in corpus_problems]
    _, torn, odd = corpus_files(corpus / TARGET)
    return problems + odd, torn


def reap_survivors(marker: str, wait: float = 5.0) -> list[int]:
    """Processes of a killed campaign still alive after ``wait`` seconds (SIGKILLed
    again). A killed process takes a moment to go, so its absence is polled for."""
    deadline = time.monotonic() + wait
    while (alive := marked_processes(marker)) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return alive


# ------------------------------------------------------------------------------- loop


#: How long the first campaign of a lane may take to save its first finding.
FIRST_FINDING_TIMEOUT = 60.0


def _wait_for_a_finding(findings: Path, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not snapshot(findings) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)


def _wait_for_children(proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not descendants(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)


def _lane(lane: int, kills: int, rng: random.Random, corpus: Path, findings: Path,
          tmpdir: Path, low: float, high: float, report: KillReport, lock: threading.Lock,
          log: Callable[[str], None]) -> None:
    marker = f"{os.getpid()}-{lane}-{rng.random()}"
    env = campaign_env({MARKER: marker, "TMPDIR": str(tmpdir),
                        "PCTFUZZ_FLUSH_SECONDS": "0.1"})
    for number in range(kills):
        proc = start_campaign(corpus, findings, env=env,
                              log=findings.parent / f"campaign-{lane}.log")
        if number == 0:
            # The first kill waits for a finding (how long that takes depends on the
            # machine's load), so every kill has a record to tear and hits to lose.
            _wait_for_a_finding(findings, proc, FIRST_FINDING_TIMEOUT)
        if number % 2:
            # Every other kill comes after the event "libFuzzer running" (the campaign
            # has child processes): on a loaded machine start-up alone can outlast
            # ``high``, and a kill test that only ever kills start-ups proves little.
            _wait_for_children(proc, 300.0)
        time.sleep(rng.uniform(low, high))
        before = snapshot(findings)
        children = kill_group(proc)
        survivors = reap_survivors(marker)
        problems, torn = check_store(corpus, findings, before)
        problems += [f"process {pid} survived the kill" for pid in survivors]
        left = len(temp_files(findings, corpus / TARGET))
        with lock:
            report.kills += 1
            report.kills_with_fuzzer_running += children > 0
            report.kills_after_a_finding += bool(before)
            report.temp_files_seen = max(report.temp_files_seen, left)
            report.torn_corpus.update(torn)
            report.problems += [f"lane {lane} kill {number + 1}: {p}" for p in problems]
        if problems or (number + 1) % 10 == 0:
            log(f"lane {lane}: {number + 1}/{kills} kills, {len(problems)} problem(s)"
                + "".join(f"\n  {p}" for p in problems))


def run_kills(workdir: Path, kills: int, *, seed: int = 0, lanes: int = 1,
              low: float = 0.5, high: float = 3.0,
              log: Callable[[str], None] = print) -> KillReport:
    """``kills`` kill -9s spread over ``lanes`` concurrent kill loops (see module doc)."""
    corpus, findings, tmpdir = workdir / "corpus", workdir / "findings", workdir / "tmp"
    tmpdir.mkdir(parents=True, exist_ok=True)
    report = KillReport()
    lock = threading.Lock()
    shares = [kills // lanes + (i < kills % lanes) for i in range(lanes)]
    threads = [
        threading.Thread(target=_lane, args=(i, shares[i], random.Random(seed * 1000 + i),
                                             corpus, findings, tmpdir, low, high, report,
                                             lock, log))
        for i in range(lanes)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    report.leaked_tmp_dirs = sum(1 for p in tmpdir.iterdir() if p.name.startswith("pctfuzz-"))
    # Nothing runs any more: every temp file is stale.
    removed = cleanup_stale_temp(findings, 0) + Corpus(corpus).cleanup_stale_temp(0)
    report.temp_files_cleaned = len(removed)
    if temp_files(findings, corpus / TARGET):
        report.problems.append(f"temp files remain after cleanup: {temp_files(findings)}")
    final = snapshot(findings)
    report.findings, report.hits = len(final), sum(final.values())
    report.corpus_files, torn, _ = corpus_files(corpus / TARGET)
    report.torn_corpus.update(torn)
    if final:
        run = subprocess.run([sys.executable, "-m", "pctfuzz", "replay", "--impl", IMPL,
                              str(findings)],
                             cwd=ROOT, env=campaign_env(), capture_output=True, text=True,
                             timeout=300, check=False)
        lines = run.stdout.splitlines()
        report.replayed = sum(": reproduces (" in line for line in lines)
        if run.returncode != 1 or report.replayed != len(final) or run.stderr.strip():
            report.problems.append(
                f"replay: exit {run.returncode}, {report.replayed}/{len(final)} reproduce: "
                + " | ".join([*lines, *run.stderr.splitlines()])[:2000]
            )
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--lanes", type=int, default=1, help="concurrent kill loops")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--min", type=float, default=0.5, help="earliest kill (s)")
    parser.add_argument("--max", type=float, default=3.0, help="latest kill (s)")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args()
    print(f"seed {args.seed}", flush=True)

    def log(message: str) -> None:
        print(message, flush=True)

    started = time.monotonic()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        report = run_kills(args.keep, args.kills, seed=args.seed, lanes=args.lanes,
                           low=args.min, high=args.max, log=log)
    else:
        with tempfile.TemporaryDirectory(prefix="pctfuzz-kill-") as work:
            report = run_kills(Path(work), args.kills, seed=args.seed, lanes=args.lanes,
                               low=args.min, high=args.max, log=log)
    print(report.summary())
    for problem in report.problems:
        print(f"PROBLEM: {problem}")
    for path in sorted(report.torn_corpus):
        print(f"torn by libFuzzer: {path}")
    print(f"{time.monotonic() - started:.0f} s")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
