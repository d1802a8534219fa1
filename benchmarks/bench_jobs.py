#!/usr/bin/env python3
"""Parallel jobs on one machine: total exec/s of ONE target at ``--jobs 1`` and ``--jobs 2``.

``run_campaign`` with fewer targets than jobs runs several libFuzzer processes of the
same target on its shared corpus folder (different ``-seed``; new inputs picked up
through ``-reload``). This measures what that buys: total executions per wall-clock
second, summed over the processes, each configuration from a fresh copy of the seed
corpus. For comparison it also runs libFuzzer's own ``-fork=2`` on the same harness
(through ``pctfuzz._internal.fuzz.merge.harness_launcher``, since fork mode re-runs ``argv[0]``).

    python benchmarks/bench_jobs.py [--target decode] [--seconds 10] [--jobs 1 2] [--json]

Same machine, same run: compare ratios, not absolute numbers (2 cores here).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from pctfuzz._internal.fuzz.campaign import run_campaign  # noqa: E402
from pctfuzz._internal.fuzz.merge import harness_launcher  # noqa: E402

_FORK_STATUS = re.compile(r"^#(\d+): cov: (\d+) .* exec/s (\d+)")


def _seed(tmp: Path, target: str) -> Path:
    corpus = tmp / "corpus"
    source = ROOT / "corpus" / target
    if source.is_dir():
        shutil.copytree(source, corpus / target)
    else:
        (corpus / target).mkdir(parents=True)
    return corpus


def campaign(target: str, seconds: float, jobs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-jobs-") as tmp:
        corpus = _seed(Path(tmp), target)
        result = run_campaign([target], max_time=seconds, jobs=jobs, corpus=corpus,
                              findings=Path(tmp) / "findings", harness=ROOT / "harness")
    (stats,) = result.stats
    return {"mode": f"jobs={jobs}", "processes": stats.workers, "seconds": result.seconds,
            "execs": stats.execs, "exec_per_s": stats.execs / result.seconds, "cov": stats.cov}


def fork(target: str, seconds: float, workers: int) -> dict[str, float]:
    """libFuzzer -fork=N for comparison (children restart every few seconds)."""
    with tempfile.TemporaryDirectory(prefix="bench-fork-") as tmp:
        corpus = _seed(Path(tmp), target)
        launcher = harness_launcher(ROOT / "harness" / f"fuzz_{target}.py", Path(tmp))
        env = dict(os.environ, PCTFUZZ_FINDINGS=str(Path(tmp) / "findings"),
                   PCTFUZZ_CORPUS=str(corpus))
        cmd = [str(launcher), str(corpus / target), f"-fork={workers}",
               f"-max_total_time={int(seconds)}", "-max_len=4096", "-ignore_crashes=1",
               f"-dict={ROOT / 'harness' / f'{target}.dict'}"]
        started = time.monotonic()
        proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True,
                              errors="replace", timeout=seconds * 4 + 60, check=False)
        wall = time.monotonic() - started
    execs = cov = 0
    for line in proc.stderr.splitlines():
        if m := _FORK_STATUS.match(line):
            execs, cov = int(m[1]), int(m[2])
    return {"mode": f"fork={workers}", "processes": workers, "seconds": wall, "execs": execs,
            "exec_per_s": execs / wall, "cov": cov}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="decode")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--no-fork", action="store_true", help="skip the -fork comparison")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()

    rows = [campaign(args.target, args.seconds, jobs) for jobs in args.jobs]
    if not args.no_fork:
        rows.append(fork(args.target, args.seconds, max(args.jobs)))
    base = rows[0]["exec_per_s"] or 1.0
    for row in rows:
        row["speedup"] = row["exec_per_s"] / base
    if args.json:
        print(json.dumps({"target": args.target, "cores": os.cpu_count(), "rows": rows},
                         indent=2))
        return
    print(f"target {args.target}, {args.seconds:g} s per run, {os.cpu_count()} cores")
    print(f"{'mode':<8} {'procs':>5} {'secs':>5} {'execs':>10} {'exec/s':>9} {'cov':>5} "
          f"{'speedup':>7}")
    for row in rows:
        print(f"{row['mode']:<8} {row['processes']:>5} {row['seconds']:>5.1f} "
              f"{row['execs']:>10} {row['exec_per_s']:>9.0f} {row['cov']:>5} "
              f"{row['speedup']:>6.2f}x")


if __name__ == "__main__":
    main()
