#!/usr/bin/env python3
"""Findings per planted behaviour: one finding each, named truly?

``planted_behaviours.PLANTED`` holds implementations that are pctfuzz's reference with
exactly one deviation each (a decoder that decodes twice, a serializer that writes
``;`` between pairs, ...), built with ``function_adapter``. For each of them:

- its example is run through its target's check (``pctfuzz.testing.check_case``): it
  must diverge; the name pctfuzz gives it is printed (*example*);
- one ``pctfuzz fuzz --impl benchmarks.planted_behaviours:<name> --jobs 1`` campaign
  runs for ``--max-time`` seconds in an empty scratch corpus and store, from the
  repository root (so ``benchmarks`` imports), with no ``PCTFUZZ_*`` variable in its
  environment. The adapter answers one question, so one differential target runs.

The table gives per planted behaviour the findings the campaign stored, their names
(the catalogue rule and its parameters when one explains a finding, its
``behaviour``; else ``kind:class`` from its signature), and the executions per second.
The goal is one finding per behaviour whose name says what the planted code does:
compare the names with ``truth`` (printed under the table). The last line is the total
findings over the number of planted behaviours.

Campaigns run one at a time (the machine is shared; the load average is printed).
Not part of ``make test``. Usage::

    python benchmarks/bench_planted.py [--max-time 60] [--only NAME ...]
                                       [--json FILE] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODULE = "benchmarks.planted_behaviours"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.planted_behaviours import PLANTED, Planted  # noqa: E402


def _pctfuzz(*args: str, timeout: float) -> subprocess.CompletedProcess[str] | None:
    """``python -m pctfuzz ARGS`` from the repository root; None when it overran."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PCTFUZZ_")}
    try:
        return subprocess.run([sys.executable, "-m", "pctfuzz", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=False, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def _printable(text: str) -> str:
    """``text`` for a Markdown table cell: control and other unprintable characters
    escaped, ``|`` escaped."""
    out = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
    return out.replace("|", "\\|")


def finding_name(record: dict[str, Any]) -> str:
    """A finding's name: its rule with parameters (``behaviour``), else the kind and
    difference class of its signature."""
    behaviour = record.get("behaviour")
    if behaviour:
        params = ",".join(f"{k}={v}" for k, v in sorted(behaviour["params"].items()))
        return f"{behaviour['rule']}({params})"
    parts = record["signature"].split("|")
    return f"{parts[1]}:{parts[3]}" if len(parts) > 3 else record["signature"]


def example_name(entry: Planted) -> str:
    """What pctfuzz's check says about the entry's example: the finding name it would
    get, or that the check finds no difference (the plant is broken)."""
    from pctfuzz._internal.violations import Violation
    from pctfuzz.testing import check_case

    try:
        check_case(entry.target, entry.example.to_json(), impl=f"{MODULE}:{entry.name}")
    except Violation as violation:
        behaviour = getattr(violation, "behaviour", None)
        if behaviour:
            params = ",".join(f"{k}={v}" for k, v in sorted(behaviour["params"].items()))
            return f"{behaviour['rule']}({params})"
        return f"{violation.kind}:{getattr(violation, 'difference', '-')}"
    return "NO DIFFERENCE"


def measure(entry: Planted, max_time: float, keep: Path | None) -> dict[str, Any]:
    """One campaign over ``entry`` in a scratch store: its findings' names and speed."""
    row: dict[str, Any] = {"planted": entry.name, "truth": entry.truth,
                           "target": entry.target, "example": example_name(entry)}
    scratch = Path(tempfile.mkdtemp(prefix=f"bench-planted-{entry.name}-"))
    try:
        corpus, findings, report = scratch / "corpus", scratch / "findings", scratch / "r.json"
        run = _pctfuzz("fuzz", "--impl", f"{MODULE}:{entry.name}", "--jobs", "1",
                       "--max-time", f"{max_time:g}", "--corpus", str(corpus),
                       "--findings", str(findings), "-q", "--json", str(report),
                       timeout=3 * max_time + 300)
        if run is None or not report.exists():
            error = "timed out" if run is None else (run.stderr or run.stdout).strip()[-300:]
            return {**row, "error": error}
        document = json.loads(report.read_text())
        ran = [t for t in document["targets"] if t.get("execs")]
        execs = sum(t["execs"] for t in ran)
        seconds = sum(t.get("seconds") or 0.0 for t in ran)
        records = [json.loads(p.read_text()) for p in sorted(findings.glob("*.json"))]
        names = Counter(finding_name(r) for r in records)
        if keep is not None and findings.exists():
            shutil.copytree(findings, keep / entry.name, dirs_exist_ok=True)
        return {**row, "findings": len(records), "names": dict(names), "execs": execs,
                "exec_per_s": round(execs / seconds) if seconds else 0,
                "targets": [t["target"] for t in ran], "exit_code": run.returncode}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _names_cell(names: dict[str, int]) -> str:
    if not names:
        return "-"
    ordered = sorted(names.items(), key=lambda item: (-item[1], item[0]))
    return "; ".join(f"{count} x {_printable(name)}" if count > 1 else _printable(name)
                     for name, count in ordered)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-time", type=float, default=60.0)
    parser.add_argument("--only", nargs="+", metavar="NAME", choices=sorted(PLANTED),
                        help="these planted behaviours only (default: all)")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    parser.add_argument("--keep", metavar="DIR", help="copy each store to DIR/<name>")
    args = parser.parse_args()
    entries = [PLANTED[name] for name in args.only] if args.only else list(PLANTED.values())
    keep = Path(args.keep) if args.keep else None
    import pctfuzz

    print(f"load average {os.getloadavg()[0]:.2f}; --max-time {args.max_time:g} --jobs 1; "
          f"{len(entries)} planted behaviours; pctfuzz {pctfuzz.__version__} from "
          f"{Path(pctfuzz.__file__).parent}", flush=True)
    print("| planted | findings | names of the findings | exec/s | example |", flush=True)
    print("|---|---:|---|---:|---|", flush=True)
    rows = []
    for entry in entries:
        row = measure(entry, args.max_time, keep)
        rows.append(row)
        if "error" in row:
            print(f"| {entry.name} | error: {_printable(row['error'])} | | | "
                  f"{_printable(row['example'])} |", flush=True)
            continue
        print(f"| {entry.name} | {row['findings']} | {_names_cell(row['names'])} | "
              f"{row['exec_per_s']} | {_printable(row['example'])} |", flush=True)
    done = [row for row in rows if "error" not in row]
    total = sum(row["findings"] for row in done)
    print()
    print("truth:")
    for entry in entries:
        print(f"    {entry.name}: {entry.truth}")
    one = sum(1 for row in done if row["findings"] == 1)
    none = sum(1 for row in done if row["findings"] == 0)
    print(f"\n{total} findings / {len(done)} planted behaviours = "
          f"{total / len(done) if done else 0:.2f} per behaviour "
          f"({one} with exactly one finding, {none} with none, "
          f"{len(rows) - len(done)} errors)", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
