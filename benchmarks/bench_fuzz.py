#!/usr/bin/env python3
"""Fuzzing speed: exec/s per atheris target next to an empty atheris target, and
time-to-first-finding for the deliberately wrong codecs of ``pctfuzz.faults``.

Everything is measured in the same run on the same machine, so compare ratios, not
absolute numbers. Usage:

    python benchmarks/bench_fuzz.py [--seconds 10] [--targets encode decode ...] [--json]

Each target runs from an empty corpus with the target's dictionary (coverage feedback
on, as in a campaign). A fault run uses crash mode and stops at the first failure.
"""

from __future__ import annotations

import argparse
import json
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

_DONE = re.compile(r"Done (\d+) runs in (\d+) second")
_EPS = re.compile(r"exec/s: (\d+)")


def _run(cmd: list[str], env: dict[str, str] | None = None, timeout: float = 600
         ) -> tuple[str, float]:
    started = time.monotonic()
    # atheris prints the Python traceback on stdout and libFuzzer's lines on stderr.
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace", env=env, timeout=timeout, check=False)
    return proc.stdout, time.monotonic() - started


def exec_rate(script: list[str], seconds: int, dictionary: Path | None) -> dict[str, float]:
    """Runs and exec/s of one libFuzzer process over ``seconds``."""
    with tempfile.TemporaryDirectory() as corpus:
        cmd = [sys.executable, *script, corpus, f"-max_total_time={seconds}", "-max_len=64"]
        if dictionary is not None:
            cmd.append(f"-dict={dictionary}")
        err, _ = _run(cmd)
    done = _DONE.search(err)
    runs = int(done[1]) if done else 0
    secs = max(1, int(done[2])) if done else seconds
    rates = [int(x) for x in _EPS.findall(err)]
    return {"runs": runs, "exec_per_s": runs / secs, "last_reported_exec_per_s": rates[-1]
            if rates else 0}


def first_finding(target: str, fault: str, limit: int) -> float | None:
    """Seconds until libFuzzer stops on the first failure of ``fault``, or None."""
    import os

    env = dict(os.environ, PCTFUZZ_FAULT=fault)
    with tempfile.TemporaryDirectory() as corpus:
        cmd = [sys.executable, str(HARNESS / f"fuzz_{target}.py"), corpus,
               f"-max_total_time={limit}", f"-dict={HARNESS / f'{target}.dict'}",
               f"-artifact_prefix={corpus}/"]
        err, took = _run(cmd, env=env, timeout=limit + 60)
    return took if "Uncaught Python exception" in err else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--targets", nargs="*", default=[
        "encode", "decode", "form", "form_parse",
        "diff_encode", "diff_decode", "diff_form", "diff_form_parse"])
    parser.add_argument("--fault-limit", type=int, default=60)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as empty:
        empty.write(EMPTY_TARGET)
    results: dict[str, object] = {}
    baseline = exec_rate([empty.name], args.seconds, None)
    results["empty"] = baseline
    for target in args.targets:
        results[target] = exec_rate([str(HARNESS / f"fuzz_{target}.py")], args.seconds,
                                    HARNESS / f"{target}.dict")

    sys.path.insert(0, str(ROOT / "src"))
    from pctfuzz.faults import FAULTS

    ttff: dict[str, float | None] = {}
    for name in FAULTS:
        # The invariant target whose checks the fault breaks first (by the fault's name).
        target = ("form_parse" if name in ("form-plus-kept", "form-surrogateescape") else
                  "form" if name.startswith("form-") else
                  "decode" if name.startswith("decode-") else "encode")
        ttff[f"{name} ({target})"] = first_finding(target, name, args.fault_limit)
    results["time_to_first_finding"] = ttff

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'target':<18}{'exec/s':>10}{'vs empty':>10}")
    empty_rate = baseline["exec_per_s"] or 1
    for target in ["empty", *args.targets]:
        rate = results[target]["exec_per_s"]  # type: ignore[index]
        print(f"{target:<18}{rate:>10.0f}{rate / empty_rate:>10.3f}")
    print(f"\ntime to first finding (limit {args.fault_limit} s, includes ~1 s start-up):")
    for name, took in ttff.items():
        print(f"  {name:<36}{'not found' if took is None else f'{took:.1f} s'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
