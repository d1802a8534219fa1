#!/usr/bin/env python3
"""Fuzzing speed: exec/s per atheris target next to two ceilings measured in the same
run: an empty atheris target, and the bare differential (``urllib.parse.quote(s,
safe="!'()*")`` against ``percent_encode(s, "component")``, compared, with pctfuzz and
urllib.parse instrumented as in the harness); and the floor of the encode target, its
byte format and one call of the instrumented reference (``one-encode-call``).

Each target runs exactly as ``python harness/fuzz_<target>.py <empty dir>
-max_total_time=<seconds>`` (standalone, crash mode, libFuzzer's default lengths), and
the table gives libFuzzer's final ``cov``/``ft`` too: coverage feedback still grows.
Compare ratios, not absolute numbers: the machine may be shared (the load average is
printed). ``--replay`` also replays each target's corpus of that run (or of ``--corpus
DIR/<target>``) in a fresh process instrumented as its harness is, warm, and prints
the CPU microseconds per input (best of ``--rounds``): the same inputs before and
after a change, so steadier than exec/s, whose inputs change with the coverage. Usage:

    python benchmarks/bench_fuzz.py [--seconds 10] [--quick] [--targets encode ...] [--json]
                                    [--replay [--corpus DIR] [--rounds 7]]

Time to first finding is ``bench_ttb.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "harness"

EMPTY_TARGET = """
import sys
import atheris

def test_one_input(data: bytes) -> None:
    pass

atheris.Setup(sys.argv, test_one_input)
atheris.Fuzz()
"""

#: The two calls that matter and a comparison, instrumented as the harness is.
BARE_DIFFERENTIAL = """
import sys
import urllib.parse

import atheris

with atheris.instrument_imports(include=["pctfuzz"]):
    from pctfuzz._internal.reference import percent_encode
atheris.instrument_func(urllib.parse.quote)
atheris.instrument_func(urllib.parse.quote_from_bytes)


def test_one_input(data: bytes) -> None:
    s = data.decode("utf-8", "replace")
    if urllib.parse.quote(s, safe="!'()*") != percent_encode(s, "component"):
        raise AssertionError(repr(s))

atheris.Setup(sys.argv, test_one_input)
atheris.Fuzz()
"""

#: The encode target's floor: its byte format and one call of the code under test (the
#: instrumented reference), no invariant. ``encode`` cannot be faster than this.
ONE_CALL = """
import sys

import atheris

with atheris.instrument_imports(include=["pctfuzz"]):
    from pctfuzz._internal.fuzz import driver  # noqa: F401  (instrumented as the harness is)
    from pctfuzz._internal.reference import percent_encode
    from pctfuzz._internal.targets import get_target

from_bytes = get_target("encode").from_bytes


def test_one_input(data: bytes) -> None:
    case = from_bytes(data)
    try:
        percent_encode(case.value, case.set_name, encoding=case.encoding,
                       space_as_plus=case.space_as_plus)
    except (ValueError, LookupError):  # out-of-domain input: the documented refusal
        pass

atheris.Setup(sys.argv, test_one_input)
atheris.Fuzz()
"""

#: Corpus replay, instrumented as ``python -m pctfuzz._internal.harness`` instruments the target
#: (``Target.hooks_imports``, ``Target.instrumented_modules``): argv = target, corpus
#: folder, rounds. Prints the best CPU microseconds per input over the rounds.
REPLAY = """
import sys
import time
from pathlib import Path

import atheris

from pctfuzz._internal.targets import get_target

name, folder, rounds = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
if get_target(name).hooks_imports:  # as pctfuzz._internal.harness: pctfuzz again, inside the hook
    for module in [m for m in sys.modules if m == "pctfuzz" or m.startswith("pctfuzz.")]:
        del sys.modules[module]
    with atheris.instrument_imports(include=["pctfuzz"]):
        import pctfuzz._internal.fuzz.driver  # noqa: F401
from pctfuzz._internal.fuzz import driver
from pctfuzz._internal.targets import get_target

target = get_target(name)
bound = target.bind("urllib" if target.differential else None)
driver.instrument_modules(bound.instrumented_modules)
inputs = [path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()]


def replay() -> None:
    for data in inputs:
        try:
            driver.run_input(bound, data)
        except Exception:  # a finding's input: timed like any other
            pass


replay()  # warm: caches, tables, lazily built encoders
best = float("inf")
for _ in range(rounds):
    started = time.process_time()
    replay()
    best = min(best, time.process_time() - started)
print(len(inputs), best / max(1, len(inputs)) * 1e6)
"""

ALL_TARGETS = ["encode", "decode", "form", "form_parse",
               "diff_encode", "diff_decode", "diff_form", "diff_form_parse"]
#: ``--quick``: the targets of issue 15's goals.
QUICK_TARGETS = ["encode", "form", "form_parse", "diff_encode"]

_DONE = re.compile(r"Done (\d+) runs in (\d+) second")
_COV = re.compile(r"cov: (\d+) ft: (\d+)")


def _run(cmd: list[str], env: dict[str, str] | None = None, timeout: float = 600
         ) -> tuple[str, float]:
    started = time.monotonic()
    # atheris prints the Python traceback on stdout and libFuzzer's lines on stderr.
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace", env=env, timeout=timeout, check=False)
    return proc.stdout, time.monotonic() - started


def exec_rate(script: list[str], seconds: int, corpus: str | None = None
              ) -> dict[str, float]:
    """Runs, exec/s and final coverage of one libFuzzer process over ``seconds``,
    writing its corpus into ``corpus`` (a temporary folder if None)."""
    with tempfile.TemporaryDirectory() as scratch:
        out, _ = _run([sys.executable, *script, corpus or scratch,
                       f"-max_total_time={seconds}"])
    done = _DONE.search(out)
    runs = int(done[1]) if done else 0
    secs = max(1, int(done[2])) if done else seconds
    cov = _COV.findall(out)
    return {"runs": runs, "exec_per_s": runs / secs,
            "cov": int(cov[-1][0]) if cov else 0, "ft": int(cov[-1][1]) if cov else 0,
            "crashed": "Uncaught Python exception" in out}


def replay_rate(target: str, corpus: Path, rounds: int) -> dict[str, float]:
    """CPU microseconds per input of ``corpus`` through the instrumented ``run_input``."""
    out, _ = _run([sys.executable, "-c", REPLAY, target, str(corpus), str(rounds)])
    try:
        count, micros = out.split()[-2:]
        return {"inputs": int(count), "replay_us": float(micros)}
    except ValueError:
        raise SystemExit(f"bench_fuzz: replay of {target} failed:\n{out}") from None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help=" ".join(QUICK_TARGETS))
    parser.add_argument("--targets", nargs="*", choices=ALL_TARGETS)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--replay", action="store_true",
                        help="also time a corpus replay per target (module docstring)")
    parser.add_argument("--corpus", type=Path,
                        help="with --replay: replay DIR/<target> instead of this run's corpus")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    targets = args.targets or (QUICK_TARGETS if args.quick else ALL_TARGETS)

    load = os.getloadavg()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in (("empty", EMPTY_TARGET), ("bare-differential", BARE_DIFFERENTIAL),
                             ("one-encode-call", ONE_CALL)):
            path = Path(tmp, f"{name}.py")
            path.write_text(source)
            results[name] = exec_rate([str(path)], args.seconds)
        for target in targets:
            corpus = Path(tmp, "corpus", target)
            corpus.mkdir(parents=True)
            results[target] = exec_rate([str(HARNESS / f"fuzz_{target}.py")], args.seconds,
                                        str(corpus))
            if args.replay:
                results[target].update(replay_rate(
                    target, args.corpus / target if args.corpus else corpus, args.rounds))

    if args.json:
        print(json.dumps({"seconds": args.seconds, "loadavg": load, "targets": results},
                         indent=2))
        return 0
    empty = results["empty"]["exec_per_s"] or 1
    bare = results["bare-differential"]["exec_per_s"] or 1
    print(f"exec/s, standalone, empty corpus, {args.seconds} s each (load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores)")
    replay = "  replay us/input (inputs)" if args.replay else ""
    print(f"{'target':<19}{'exec/s':>9}{'vs empty':>10}{'vs bare':>9}{'cov':>6}{'ft':>6}"
          + replay)
    for name, row in results.items():
        rate = row["exec_per_s"]
        note = "  CRASHED" if row["crashed"] else ""
        if "replay_us" in row:
            note = f"{row['replay_us']:>17.1f} ({row['inputs']:.0f}){note}"
        print(f"{name:<19}{rate:>9.0f}{rate / empty:>10.3f}{rate / bare:>9.3f}"
              f"{row['cov']:>6}{row['ft']:>6}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
