#!/usr/bin/env python3
"""Throughput after the first finding: exec/s of the last third of a campaign on an
adapter whose difference shows on most inputs, against the same adapter without it.

Two encoders of the ``component`` set share one table-driven code path (so the code
under test costs the same): ``clean`` writes uppercase hex, as the reference does;
``lower`` writes lowercase hex, a difference nearly every input shows. Each runs one
record-mode harness process, as ``pctfuzz fuzz diff_encode`` starts it (fresh corpus
and store), one after the other in this run; the exec/s of the last third of each is
read off the executions the harness reports every second. Before the known findings
became the check's fast path (``checks.known``), every diverging input was named again
by the rule catalogue and ``lower`` ran at about 0.02x of ``clean``; the goal is at
least 0.5x. Not part of ``make test``. Usage::

    python benchmarks/bench_known.py [--max-time 90] [--rounds 1] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pctfuzz import percent_encode
from pctfuzz._internal.fuzz.protocol import HarnessSettings
from pctfuzz.oracles import function_adapter

ROOT = Path(__file__).resolve().parent.parent

#: The bytes the component set encodes, read off the reference (ASCII; non-ASCII always).
_ENCODED = frozenset(b for b in range(0x80) if percent_encode(chr(b), "component") != chr(b))


def _table(hex_format: str) -> tuple[str, ...]:
    return tuple(hex_format % b if b in _ENCODED or b >= 0x80 else chr(b) for b in range(256))


_UPPER, _LOWER = _table("%%%02X"), _table("%%%02x")


def _encoder(table: tuple[str, ...]) -> Any:
    def encode(text: str) -> str:
        # a lone surrogate raises UnicodeEncodeError, as the reference refuses it
        return "".join([table[b] for b in text.encode("utf-8")])
    return encode


clean = function_adapter("bench-clean", encode=_encoder(_UPPER), sets={"c": "component"})
lower = function_adapter("bench-lower", encode=_encoder(_LOWER), sets={"c": "component"})

def campaign(name: str, max_time: float, seed: int) -> dict[str, Any]:
    """One record-mode harness process on adapter ``name`` of this module, started as
    ``pctfuzz fuzz`` starts it (fresh corpus and store; libFuzzer's ``seed``: the two
    adapters of a round mutate alike, so their inputs grow alike); the executions it
    reports each second (``pctfuzz: ANSWERED``, stamped as they arrive) and the exec/s
    of its last third."""
    with tempfile.TemporaryDirectory(prefix="bench-known-") as scratch:
        corpus, findings = Path(scratch, "corpus"), Path(scratch, "findings")
        corpus.mkdir()
        # (and a breadcrumb, as ``pctfuzz fuzz`` gives each process: checks.breadcrumb)
        settings = HarnessSettings(impl=f"benchmarks.bench_known:{name}",
                                   findings=str(findings), corpus=str(corpus),
                                   breadcrumb=str(Path(scratch, "asking.crumb")))
        env = settings.to_env({k: v for k, v in os.environ.items()
                               if not k.startswith("PCTFUZZ_")})
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
        started = time.monotonic()
        samples: list[tuple[float, int]] = []
        with subprocess.Popen(
                [sys.executable, "-m", "pctfuzz._internal.harness", "diff_encode",
                 str(corpus), f"-max_total_time={int(max_time)}", f"-seed={seed}"],
                cwd=scratch, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                text=True, errors="replace") as process:
            assert process.stderr is not None
            for line in process.stderr:
                if line.startswith("pctfuzz: ANSWERED "):
                    samples.append((time.monotonic() - started, int(line.split()[3])))
        made = len(list(findings.glob("*.json")))
    if len(samples) < 3:
        return {"adapter": name, "error": f"{len(samples)} status lines"}
    start = next(s for s in samples if s[0] >= 2 * samples[-1][0] / 3)
    end = samples[-1]
    rate = (end[1] - start[1]) / max(1e-9, end[0] - start[0])
    return {"adapter": name, "findings": made, "execs": end[1],
            "last_third_exec_s": round(rate, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-time", type=float, default=90)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = []
    for seed in range(1, args.rounds + 1):
        for name in ("clean", "lower"):
            rows.append(campaign(name, args.max_time, seed))
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'adapter':8} {'findings':>8} {'execs':>9} {'last third exec/s':>18}")
    for row in rows:
        if "error" in row:
            print(f"{row['adapter']:8} error: {row['error']}")
            continue
        print(f"{row['adapter']:8} {row['findings']:>8} {row['execs']:>9} "
              f"{row['last_third_exec_s']:>18}")
    rates = {n: [r["last_third_exec_s"] for r in rows if r["adapter"] == n and "error" not in r]
             for n in ("clean", "lower")}
    if rates["clean"] and rates["lower"]:
        ratio = (sum(rates["lower"]) / len(rates["lower"])) / (
            sum(rates["clean"]) / len(rates["clean"]))
        print(f"lower / clean, last third: {ratio:.2f}x (goal: at least 0.5x)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
