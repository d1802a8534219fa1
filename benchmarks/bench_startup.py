#!/usr/bin/env python3
"""Campaign start-up with a large corpus: seconds per target before fuzzing starts.

For each target, a corpus of ``--files`` distinct inputs (random bytes, 1-64 of them,
named as ``store.Corpus`` names them) is set up in a scratch folder; then the
campaign's own start-up steps are timed:

- ``recover``: ``staging.recover`` (imports copies left by killed processes);
- ``stage``: ``staging.stage``, the private copy one libFuzzer process reads;
- ``replay``: the harness in record mode, as the campaign runs it, until libFuzzer's
  ``INITED`` line: process start, imports, instrumentation and the replay of every
  seed input (then the process, started here, is stopped);
- ``unstage``: ``staging.unstage`` after it (at the end of a run, not before it).

Usage: python benchmarks/bench_startup.py [--files 10000] [--targets encode ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def startup(target: str, files: int, seed: int = 1) -> dict[str, float]:
    """The start-up steps of one target's first process, in seconds."""
    from pctfuzz._internal.fuzz import libfuzzer
    from pctfuzz._internal.fuzz import staging as staging_mod
    from pctfuzz._internal.store import Corpus

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        store = Corpus(Path(tmp, "corpus"))
        folder = store.ensure_dir(target)
        # Named as Corpus.add names them, written directly: add's fsyncs take a minute.
        while len(os.listdir(folder)) < files:
            data = rng.randbytes(rng.randrange(1, 65))
            (folder / store.name_for(data)).write_bytes(data)
        findings = Path(tmp, "findings")
        findings.mkdir()
        times: dict[str, float] = {}
        began = time.monotonic()
        staging_mod.recover(store, [target])
        times["recover"] = time.monotonic() - began
        began = time.monotonic()
        staging = staging_mod.stage(store, target)
        times["stage"] = time.monotonic() - began
        artifacts = Path(tmp, "artifacts")
        artifacts.mkdir()
        cmd = libfuzzer.command(target, ROOT / "harness", staging, 600, artifacts, 5, 2048, ())
        env = dict(os.environ, PCTFUZZ_FINDINGS=str(findings), PCTFUZZ_CORPUS=str(store.root),
                   PCTFUZZ_IMPL="urllib", PYTHONUNBUFFERED="1")
        began = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, env=env, text=True, errors="replace")
        assert proc.stderr is not None
        inited = float("nan")
        for line in proc.stderr:
            if "INITED" in line:
                inited = time.monotonic() - began
                break
        proc.terminate()
        proc.communicate(timeout=30)
        times["replay"] = inited
        began = time.monotonic()
        staging_mod.unstage(store, target, staging)
        times["unstage"] = time.monotonic() - began
        times["before_fuzzing"] = times["recover"] + times["stage"] + times["replay"]
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--targets", nargs="*", default=["encode", "diff_encode", "form_parse"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()
    results = {t: startup(t, args.files) for t in args.targets}
    if args.json:
        print(json.dumps({"files": args.files, "loadavg": load, "targets": results}, indent=2))
        return 0
    print(f"campaign start-up, {args.files} corpus files per target (load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores), seconds")
    steps = ["recover", "stage", "replay", "before_fuzzing", "unstage"]
    print(f"{'target':<16}" + "".join(f"{s:>15}" for s in steps))
    for target, row in results.items():
        print(f"{target:<16}" + "".join(f"{row[s]:>15.2f}" for s in steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
