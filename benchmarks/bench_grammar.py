#!/usr/bin/env python3
"""The grammar-aware mutator's cost and reach: per differential target, a default
campaign (mutator and dictionary) and a ``--no-grammar`` one (libFuzzer's byte
mutations alone), side by side in one run: both start together, one process each
(``--jobs 1``), from empty corpora, against the same implementation.

Per target: exec/s of each and their ratio (issue 32 asks at least 0.8x), libFuzzer's
``cov`` and ``ft`` at the end (what each reached), and the findings each made. Compare
ratios, not absolute numbers: the load average is printed. Time to first finding on
bugs that need structure is ``bench_structure.py``. Usage:

    python benchmarks/bench_grammar.py [--seconds 60] [--targets diff_decode ...]
                                       [--impl urllib] [--rounds 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TARGETS = ("diff_encode", "diff_decode", "diff_form", "diff_form_parse")
MODES = {"grammar": [], "no-grammar": ["--no-grammar"]}


def _campaign(target: str, impl: str, seconds: int, flags: list[str],
              work: Path) -> subprocess.Popen[bytes]:
    work.mkdir(parents=True)
    cmd = [sys.executable, "-m", "pctfuzz", "fuzz", target, "--impl", impl,
           "--max-time", str(seconds), "--jobs", "1", "--corpus", str(work / "corpus"),
           "--findings", str(work / "findings"), "--json", str(work / "out.json"), "-q",
           "--fail-on", "never", *flags]
    return subprocess.Popen(cmd, cwd=work, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _result(work: Path) -> dict[str, Any]:
    data = json.loads((work / "out.json").read_text())
    row = data["targets"][0]
    return {"exec_per_s": row["exec_per_s"], "cov": row["cov"], "ft": row["ft"],
            "findings": len(list((work / "findings").glob("*.json")))}


def run(targets: list[str], impl: str, seconds: int, rounds: int) -> list[dict[str, Any]]:
    rows = []
    for target in targets:
        per_mode: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
        for n in range(rounds):
            with tempfile.TemporaryDirectory(prefix="bench-grammar-") as tmp:
                procs = {mode: _campaign(target, impl, seconds, flags, Path(tmp) / mode)
                         for mode, flags in MODES.items()}
                for proc in procs.values():
                    proc.wait()
                for mode in MODES:
                    per_mode[mode].append(_result(Path(tmp) / mode))
            print(f"  {target} round {n + 1}: " + ", ".join(
                f"{mode} {per_mode[mode][-1]['exec_per_s']}/s" for mode in MODES),
                file=sys.stderr)
        row: dict[str, Any] = {"target": target}
        for mode in MODES:
            for key in ("exec_per_s", "cov", "ft", "findings"):
                row[f"{mode}_{key}"] = statistics.median(r[key] for r in per_mode[mode])
        row["ratio"] = round(row["grammar_exec_per_s"] / max(1, row["no-grammar_exec_per_s"]), 2)
        rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--targets", nargs="+", default=list(TARGETS), choices=TARGETS)
    parser.add_argument("--impl", default="urllib")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()
    rows = run(args.targets, args.impl, args.seconds, args.rounds)
    if args.json:
        print(json.dumps({"load": load, "seconds": args.seconds, "rows": rows}, indent=2))
        return 0
    print(f"load average at start {load[0]:.2f}; {args.seconds} s each, side by side, "
          f"impl {args.impl}")
    print(f"{'target':16} {'exec/s':>8} {'no-gr':>8} {'ratio':>6} {'cov':>5} {'no-gr':>5} "
          f"{'ft':>6} {'no-gr':>6} {'found':>5} {'no-gr':>5}")
    for r in rows:
        print(f"{r['target']:16} {r['grammar_exec_per_s']:>8.0f} "
              f"{r['no-grammar_exec_per_s']:>8.0f} {r['ratio']:>6.2f} {r['grammar_cov']:>5.0f} "
              f"{r['no-grammar_cov']:>5.0f} {r['grammar_ft']:>6.0f} {r['no-grammar_ft']:>6.0f} "
              f"{r['grammar_findings']:>5.0f} {r['no-grammar_findings']:>5.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
