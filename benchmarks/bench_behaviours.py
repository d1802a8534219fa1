#!/usr/bin/env python3
"""Findings per behaviour (issue 21's Done-when), per built-in adapter.

For each ``--impl``: one ``pctfuzz fuzz --no-accepted`` campaign (every accepted
difference ignored: the registry's, the adapter's own, any accept file), all targets,
``--jobs 2``, ``--max-time`` seconds, an empty scratch corpus and store; then

- *rules*: the findings grouped by the catalogue rule (and check) that names them
  (``behaviour``); *findings/rule* is the goal's findings per behaviour (at most 1.2)
  for those; the *unexplained* ones (a difference class, printed) are triaged by hand;
- *accepted on replay*: each finding replayed normally (``pctfuzz replay``, the
  adapter's entries in force): ``accepted`` counts those the entries explain; the
  others must be known real bugs (docs/in-the-wild.md), listed with their outcome.

Campaigns run one at a time (the machine is shared; the load average is printed).
Not part of ``make test``. Usage::

    python benchmarks/bench_behaviours.py --impl urllib requests ... [--max-time 90]
                                          [--jobs 2] [--json FILE] [--keep DIR]
    python benchmarks/bench_behaviours.py --impl urllib ... --reidentify DIR
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


def _pctfuzz(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PCTFUZZ_")}
    return subprocess.run([sys.executable, "-m", "pctfuzz", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)


def behaviour_key(record: dict[str, Any]) -> str:
    """What names a finding's behaviour: its rule with parameters, else its class."""
    behaviour = record.get("behaviour")
    if behaviour:
        params = ",".join(f"{k}={v}" for k, v in sorted(behaviour["params"].items()))
        return f"{record['evidence'].get('check', '')} {behaviour['rule']}({params})"
    parts = record["signature"].split("|")
    return f"{parts[2]} {parts[1]}:{parts[3]}"


def measure(impl: str, max_time: float, jobs: int, keep: Path | None) -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix=f"bench-behaviours-{impl}-"))
    try:
        corpus, findings, report = scratch / "corpus", scratch / "findings", scratch / "r.json"
        run = _pctfuzz("fuzz", "--impl", impl, "--no-accepted", "--jobs", str(jobs),
                       "--max-time", str(max_time), "--corpus", str(corpus), "--findings",
                       str(findings), "-q", "--json", str(report), cwd=scratch)
        if not report.exists():
            return {"impl": impl, "error": (run.stderr or run.stdout).strip()[-300:]}
        document = json.loads(report.read_text())
        execs = sum(t["execs"] or 0 for t in document["targets"])
        paths = sorted(findings.glob("*.json"))
        records = [json.loads(p.read_text()) for p in paths]
        groups = Counter(behaviour_key(r) for r in records)
        named = [r for r in records if r.get("behaviour")]
        rules = len({behaviour_key(r) for r in named})
        verdicts: Counter[str] = Counter()
        others: list[str] = []
        if paths:
            replayed = scratch / "replay.json"
            _pctfuzz("replay", *map(str, paths), "--json", str(replayed), cwd=scratch)
            for item in json.loads(replayed.read_text())["replays"]:
                verdicts[item["outcome"]] += 1
                if item["outcome"] != "accepted":
                    record = next(r for r in records if r["id"] == item["finding_id"])
                    others.append(f"{item['outcome']}: {behaviour_key(record)}")
        if keep is not None:
            shutil.copytree(findings, keep / impl, dirs_exist_ok=True)
        return {"impl": impl, "execs": execs, "findings": len(records),
                "named": len(named), "rules": rules, "unexplained": len(records) - len(named),
                "groups": dict(groups),
                "per_rule": round(len(named) / rules, 2) if rules else 0.0,
                "accepted_on_replay": verdicts["accepted"], "verdicts": dict(verdicts),
                "not_accepted": others, "exit_code": run.returncode}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def reidentify(folder: Path) -> Counter[str]:
    """The findings of a kept store (``--keep``) named again by this pctfuzz (their
    cases replayed under --no-accepted): class -> findings. How the rules added after a
    campaign would have named what it found, without fuzzing again."""
    from pctfuzz._internal.fuzz.replay import Verdict, replay_paths
    from pctfuzz._internal.settings import RunSettings

    named: Counter[str] = Counter()
    for item in replay_paths(sorted(folder.glob("*.json")), timeout=10,
                             settings=RunSettings(accepted=False)):
        if isinstance(item, Verdict):
            parts = (item.signature or "").split("|")
            named[f"{parts[2]} {parts[3]}" if len(parts) > 3 else item.outcome] += 1
        else:
            named[f"error: {item[1][:60]}"] += 1
    return named


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", nargs="+", required=True, metavar="NAME")
    parser.add_argument("--max-time", type=float, default=90.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    parser.add_argument("--keep", metavar="DIR", help="copy each store to DIR/<impl>")
    parser.add_argument("--reidentify", metavar="DIR",
                        help="no campaign: name again the findings kept in DIR/<impl>")
    args = parser.parse_args()
    if args.reidentify:
        for impl in args.impl:
            named = reidentify(Path(args.reidentify) / impl)
            rules = sum(1 for key in named if "rule=" in key)
            print(f"{impl}: {sum(named.values())} findings -> {len(named)} classes "
                  f"({rules} rules, {len(named) - rules} unexplained)")
            for key, count in named.most_common():
                print(f"    {count} x {key}")
        return 0
    keep = Path(args.keep) if args.keep else None
    print(f"load average {os.getloadavg()[0]:.2f}; --max-time {args.max_time:g} "
          f"--jobs {args.jobs} --no-accepted", flush=True)
    print("| adapter | execs | findings | named by a rule | rules | findings/rule | "
          "unexplained | accepted on replay |", flush=True)
    print("|---|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    rows = []
    for impl in args.impl:
        row = measure(impl, args.max_time, args.jobs, keep)
        rows.append(row)
        if "error" in row:
            print(f"| {impl} | error: {row['error']} |||||||", flush=True)
            continue
        print(f"| {impl} | {row['execs']} | {row['findings']} | {row['named']} | "
              f"{row['rules']} | {row['per_rule']} | {row['unexplained']} | "
              f"{row['accepted_on_replay']} of {row['findings']} |", flush=True)
        print(f"{impl}:", file=sys.stderr, flush=True)
        for key, count in sorted(row["groups"].items()):
            print(f"    {count} x {key}", file=sys.stderr, flush=True)
        for line in row["not_accepted"]:
            print(f"    replayed: {line}", file=sys.stderr, flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
