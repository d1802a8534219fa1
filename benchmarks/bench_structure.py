#!/usr/bin/env python3
"""Time to first finding on planted bugs that need structure, per driver, side by side.

The bugs are ``structure_bugs.BUGS``: urllib.parse with one planted bug each that only
a structured input shows (a particular escape of several bytes, an escape in a
particular place of a form, many pairs...). For each bug, in one run, each driver
gets up to ``--cap`` seconds from an empty start:

- ``campaign``: the default campaign, ``pctfuzz fuzz TARGET --impl
  structure_bugs:<Class> --jobs 1`` (``-q``, an empty corpus and findings store in a
  scratch folder, ``benchmarks/`` on PYTHONPATH), timed from its spawn (start-up
  included) to its first ``NEW FINDING`` line or finding file;
- ``no-grammar``: the same with ``--no-grammar`` (the grammar-aware mutator and the
  dictionary off); "n/a" while ``pctfuzz fuzz --help`` does not offer that flag;
- ``hypothesis``: the target's Hypothesis strategy and the bound check, in-process,
  derandomize off, no database, generate phase only;
- ``random``: uniform random bytes through the target's ``case_from_bytes`` and the
  bound check, in-process: 0-64 bytes, and 0-4096 bytes one input in 32.

A bug that ``random`` finds within the cap is flagged: it is not a structure bug.
``--check`` runs no driver: it checks, in seconds, that each bug's trigger case differs
from the reference, that its benign case agrees, and that unmodified urllib agrees on
the trigger (the difference is the planted one). Usage:

    python benchmarks/bench_structure.py [--cap 60] [--bugs NAME ...] [--drivers D ...]
                                         [--hogs N] [--json] [--check]

The drivers run one after the other, bug by bug, so they share the machine's load;
``--hogs N`` adds N busy processes for the run. The load average is printed with the
figures.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from structure_bugs import BUGS, PlantedBug  # noqa: E402

DRIVERS = ("campaign", "no-grammar", "hypothesis", "random")

#: ``random``: one input in LONG_ONE_IN is 0-4096 bytes long (libFuzzer's -max_len of
#: a campaign), the others 0-64.
LONG_ONE_IN = 32

#: Seconds a campaign may run past the cap (its end: the replay of open findings)
#: before it is stopped; a finding after the cap does not count.
GRACE_S = 3.0


@dataclass(frozen=True)
class Run:
    """One driver on one bug: seconds to the first finding (None: none within the cap),
    the inputs it ran when it counts them, and "n/a" or an error in ``note``."""

    seconds: float | None
    executions: int | None = None
    note: str = ""


def impl_path(bug: type[PlantedBug]) -> str:
    """``--impl`` of a bug, with ``benchmarks/`` on the path."""
    return f"structure_bugs:{bug.__name__}"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    return env


@functools.cache
def has_no_grammar() -> bool:
    """Whether ``pctfuzz fuzz`` offers ``--no-grammar`` (asked once, from its help)."""
    proc = subprocess.run([sys.executable, "-m", "pctfuzz", "fuzz", "--help"], env=_env(),
                          capture_output=True, text=True, check=False)
    return "--no-grammar" in proc.stdout


def _stop(proc: subprocess.Popen[str]) -> None:
    """Stop a campaign we started, then whatever is left of its process group (it was
    started in a session of its own, so the group is its harness processes)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def by_campaign(bug: type[PlantedBug], cap: float, extra: tuple[str, ...] = ()) -> Run:
    """Seconds from the spawn of ``pctfuzz fuzz`` on the bug's target until its first
    ``NEW FINDING`` line or finding file."""
    with tempfile.TemporaryDirectory(prefix="bench-structure-") as tmp:
        findings = Path(tmp, "findings")
        cmd = [sys.executable, "-m", "pctfuzz", "fuzz", bug.target, "-q",
               "--impl", impl_path(bug), "--max-time", str(math.ceil(cap)), "--jobs", "1",
               "--corpus", str(Path(tmp, "corpus")), "--findings", str(findings), *extra]
        started = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=tmp, env=_env(), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace",
                                start_new_session=True)
        announced = threading.Event()
        tail: list[str] = []

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                if "NEW FINDING" in line:
                    announced.set()
                tail[:] = [*tail[-4:], line.rstrip()]

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        found: float | None = None
        try:
            while time.monotonic() - started < cap + GRACE_S:
                if announced.is_set() or any(findings.glob("*.json")):
                    found = time.monotonic() - started
                    break
                if proc.poll() is not None and not reader.is_alive():
                    break
                time.sleep(0.05)
        finally:
            _stop(proc)
            reader.join(timeout=5)
    if found is not None and found <= cap:
        return Run(found)
    if proc.returncode not in (0, 1, -signal.SIGTERM, 128 + signal.SIGTERM) and found is None:
        return Run(None, note=f"error (exit {proc.returncode}): {' | '.join(tail)[-200:]}")
    return Run(None)


def by_no_grammar(bug: type[PlantedBug], cap: float) -> Run:
    """``by_campaign`` with ``--no-grammar``; "n/a" without the flag."""
    if not has_no_grammar():
        return Run(None, note="n/a")
    return by_campaign(bug, cap, ("--no-grammar",))


def _first_failure(step: Callable[[], None], cap: float) -> Run:
    """Run ``step`` until it raises (a difference) or ``cap`` seconds pass."""
    started, executions = time.monotonic(), 0
    while time.monotonic() - started < cap:
        executions += 1
        try:
            step()
        except Exception:
            return Run(time.monotonic() - started, executions)
    return Run(None, executions)


def by_random(bug: type[PlantedBug], cap: float) -> Run:
    """Uniform random bytes through the bound target, in-process."""
    from pctfuzz._internal.targets import get_target

    bound, rng = get_target(bug.target).bind(bug()), random.Random()

    def step() -> None:
        size = rng.randrange(4097) if rng.randrange(LONG_ONE_IN) == 0 else rng.randrange(65)
        bound.check(bound.case_from_bytes(rng.randbytes(size)))

    return _first_failure(step, cap)


class _TimeUp(Exception):
    pass


def by_hypothesis(bug: type[PlantedBug], cap: float) -> Run:
    """A plain ``@given`` loop over the target's strategy, in-process."""
    from hypothesis import HealthCheck, Phase, given, settings

    from pctfuzz._internal.targets import get_target

    target = get_target(bug.target)
    bound = target.bind(bug())
    found: list[float] = []
    executions = [0]
    started = time.monotonic()

    @settings(max_examples=10**8, deadline=None, database=None, derandomize=False,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(target.strategy())
    def loop(case: Any) -> None:
        if time.monotonic() - started > cap:
            raise _TimeUp
        executions[0] += 1
        try:
            bound.check(case)
        except Exception:
            if not found:
                found.append(time.monotonic() - started)
            raise

    with contextlib.suppress(Exception):  # the failure (or _TimeUp), raised again at the end
        loop()
    return Run(found[0] if found and found[0] <= cap else None, executions[0])


RUNNERS: dict[str, Callable[[type[PlantedBug], float], Run]] = {
    "campaign": by_campaign, "no-grammar": by_no_grammar, "hypothesis": by_hypothesis,
    "random": by_random}


@contextlib.contextmanager
def hogs(n: int) -> Iterator[None]:
    """``n`` busy Python processes for the duration, stopped (by their ids) after."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait()


# --- --check -------------------------------------------------------------------------------

def check_bug(bug: type[PlantedBug]) -> dict[str, str]:
    """The three checks of ``--check``: "ok" or what went wrong, per check."""
    from pctfuzz._internal.targets import get_target
    from pctfuzz._internal.violations import Divergence

    target = get_target(bug.target)
    out: dict[str, str] = {}
    try:
        target.bind(bug()).check(bug.trigger)
        out["trigger differs"] = "FAIL: the check passed"
    except Divergence:
        out["trigger differs"] = "ok"
    except Exception as exc:  # not a divergence: the check itself broke
        out["trigger differs"] = f"FAIL: {type(exc).__name__}: {exc}"
    for label, subject, case in (("benign agrees", bug(), bug.benign),
                                 ("urllib agrees on trigger", "urllib", bug.trigger)):
        try:
            target.bind(subject).check(case)
            out[label] = "ok"
        except Exception as exc:
            out[label] = f"FAIL: {type(exc).__name__}: {str(exc)[:120]}"
    return out


def run_check(names: list[str], as_json: bool) -> int:
    results = {name: check_bug(BUGS[name]) for name in names}
    failed = sum(v != "ok" for checks in results.values() for v in checks.values())
    if as_json:
        print(json.dumps({"check": results, "failed": failed}, indent=2))
        return 1 if failed else 0
    labels = list(next(iter(results.values()))) if results else []
    print((f"{'bug':<26}{'target':<17}" + "".join(f"{label:<26}" for label in labels)).rstrip())
    for name, checks in results.items():
        print((f"{name:<26}{BUGS[name].target:<17}"
               + "".join(f"{'ok' if v == 'ok' else 'FAIL':<26}" for v in checks.values())).rstrip())
        for label, verdict in checks.items():
            if verdict != "ok":
                print(f"    {label}: {verdict}")
    print(f"{len(names)} bugs, {failed} failed check(s)")
    return 1 if failed else 0


# --- the bench -----------------------------------------------------------------------------

def _cell(run: Run, cap: float) -> str:
    if run.note:
        return "n/a" if run.note == "n/a" else "error"
    return f"> {cap:g}" if run.seconds is None else f"{run.seconds:.2f}"


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=60.0, help="seconds per bug and driver")
    parser.add_argument("--bugs", nargs="*", help=f"bug names (default: all {len(BUGS)})")
    parser.add_argument("--drivers", nargs="*", default=list(DRIVERS), choices=DRIVERS)
    parser.add_argument("--hogs", type=int, default=0, metavar="N",
                        help="start N busy processes for the run (a loaded machine)")
    parser.add_argument("--json", action="store_true", help="results as JSON on stdout")
    parser.add_argument("--check", action="store_true",
                        help="no fuzzing: check each trigger differs and each benign agrees")
    args = parser.parse_args()

    names = args.bugs or list(BUGS)
    unknown = [n for n in names if n not in BUGS]
    if unknown:
        print(f"bench_structure: unknown bug(s) {', '.join(unknown)}; known: {', '.join(BUGS)}",
              file=sys.stderr)
        return 2
    if args.check:
        return run_check(names, args.json)

    drivers: list[str] = args.drivers
    load_start = _load()
    results: dict[str, dict[str, Run]] = {}
    with hogs(args.hogs):
        for name in names:
            bug = BUGS[name]
            results[name] = {d: RUNNERS[d](bug, args.cap) for d in drivers}
            print(f"  {name:<26}{bug.target:<17}"
                  + "".join(f"{_cell(results[name][d], args.cap):>12}" for d in drivers),
                  file=sys.stderr, flush=True)
    load_end = _load()

    summary: dict[str, dict[str, Any]] = {}
    for d in drivers:
        runs = [results[n][d] for n in names if not results[n][d].note]
        if not runs:
            summary[d] = {"found": None, "of": len(names), "median_s": None}
            continue
        summary[d] = {"found": sum(r.seconds is not None for r in runs), "of": len(runs),
                      "median_s": statistics.median(
                          args.cap if r.seconds is None else r.seconds for r in runs)}
    reachable = [n for n in names if "random" in results[n]
                 and results[n]["random"].seconds is not None]

    if args.json:
        print(json.dumps({
            "cap_s": args.cap, "hogs": args.hogs, "cores": os.cpu_count(),
            "loadavg_start": load_start, "loadavg_end": load_end,
            "bugs": {n: {"target": BUGS[n].target, "impl": impl_path(BUGS[n]),
                         "drivers": {d: {"seconds": r.seconds, "executions": r.executions,
                                         "note": r.note} for d, r in results[n].items()}}
                     for n in names},
            "summary": summary, "reachable_by_random": reachable}, indent=2))
        return 0

    print(f"time to first finding, empty start, cap {args.cap:g} s per bug and driver; "
          f"{args.hogs} hog(s); load average {load_start} at start, {load_end} at end, "
          f"{os.cpu_count()} cores (campaigns include their start-up)")
    print(f"{'bug':<26}{'target':<17}" + "".join(f"{d:>12}" for d in drivers))
    for name in names:
        by_driver = results[name]
        flag = ("   reachable by random bytes: not a structure bug"
                if name in reachable else "")
        print(f"{name:<26}{BUGS[name].target:<17}"
              + "".join(f"{_cell(by_driver[d], args.cap):>12}" for d in drivers) + flag)
        for d, run in by_driver.items():
            if run.note.startswith("error"):
                print(f"    {d}: {run.note}")
    found = "".join(
        f"{'n/a' if s['found'] is None else str(s['found']) + '/' + str(s['of']):>12}"
        for s in summary.values())
    median = "".join(f"{'n/a' if s['median_s'] is None else format(s['median_s'], '.2f'):>12}"
                     for s in summary.values())
    print(f"{'found':<43}{found}")
    print(f"{'median s (a miss counts as the cap)':<43}{median}")
    for d in ("hypothesis", "random"):
        if d in drivers:
            execs = [results[n][d].executions or 0 for n in names]
            print(f"{d}: {sum(execs):,} inputs in all, {min(execs):,}-{max(execs):,} per bug")
    if reachable:
        print(f"reachable by random bytes within {args.cap:g} s: {', '.join(reachable)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
