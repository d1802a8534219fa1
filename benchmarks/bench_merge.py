#!/usr/bin/env python3
"""``pctfuzz corpus merge`` of many tiny inputs: wall time and files before/after.

    python benchmarks/bench_merge.py --files 50000

Builds a decode corpus of N distinct 4-byte inputs (each named by its sha1) in a
temporary folder and merges it once (issue 23, item 12: 50,000 tiny files once took
over 300 s). Timed here, never in a test.
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from pathlib import Path

from pctfuzz._internal.fuzz.merge import merge_target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=50_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "corpus" / "decode"
        folder.mkdir(parents=True)
        for i in range(args.files):
            data = i.to_bytes(3, "big") + b"%"
            (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)
        started = time.monotonic()
        result = merge_target("decode", folder.parent)
        seconds = time.monotonic() - started
    print(f"{args.files} tiny files: {result.line()} in {seconds:.1f} s")


if __name__ == "__main__":
    main()
