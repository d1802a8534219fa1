"""Throughput of the process line protocol (docs/protocol.md) with the Node.js peer.

Reports, in one run on the same machine:

- round trips/s of ``encode`` requests (``ProcessAdapter.encode``, one JSON line each
  way), for short and 1 KiB values;
- exec/s of the ``diff_encode`` check (``pctfuzz._internal.checks.differential.check_encode``: the
  reference *and* the peer) on cases drawn from the ``diff_encode`` target's byte
  format (``pctfuzz._internal.targets``), as the fuzzer runs it, and on encodeURIComponent cases
  only (every case a round trip);
- the same check against ``urllib`` (in-process), for scale.

    python benchmarks/bench_protocol.py [--seconds S] [--impl node]

Speed is never asserted in tests; the figures go in the issue's closing notes.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks.differential import check_encode
from pctfuzz._internal.oracles import get_impl
from pctfuzz._internal.targets import TARGETS
from pctfuzz._internal.violations import Divergence


def _rate(label: str, seconds: float, step: Callable[[int], object]) -> float:
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(200):
            step(count)
            count += 1
        now = time.perf_counter()
        if now >= deadline:
            break
    rate = count / (now - start)
    print(f"  {label:<58} {rate:>10,.0f} /s   ({count:,} in {now - start:.1f} s)")
    return rate


def _fuzz_cases(n: int, seed: int) -> list[object]:
    """Cases decoded from random fuzzer inputs, as the atheris target sees them."""
    target = TARGETS["diff_encode"]
    rng = random.Random(seed)
    cases = []
    while len(cases) < n:
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        try:
            cases.append(target.from_bytes(data))
        except Exception:  # an input the format rejects is skipped by the target too
            continue
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--impl", default="node", help="a process-protocol implementation")
    args = parser.parse_args(argv)

    impl = get_impl(args.impl)
    info = getattr(impl, "peer_info", {})
    print(f"{args.impl} via {info.get('runtime', '?')}, python {sys.version.split()[0]}")

    print("round trips (ProcessAdapter.encode, encodeURIComponent):")
    short = EncodeCase("a b/é?", "component")
    long = EncodeCase("a b/é?" * 170, "component")
    _rate("short value (6 chars)", args.seconds, lambda i: impl.encode(short))
    _rate("1 KiB value", args.seconds, lambda i: impl.encode(long))

    def check(cases: list[object], against: object) -> Callable[[int], object]:
        def step(i: int) -> object:
            try:
                return check_encode(cases[i % len(cases)], against)  # type: ignore[arg-type]
            except Divergence:
                return None

        return step

    fuzz = _fuzz_cases(5000, seed=1)
    component = [
        EncodeCase(c.value, "component")
        for c in fuzz
        if isinstance(c, EncodeCase) and isinstance(c.value, str)
    ]
    print("diff_encode check (reference + implementation):")
    _rate(f"{args.impl}: cases from the diff_encode byte format", args.seconds, check(fuzz, impl))
    _rate(f"{args.impl}: encodeURIComponent cases only", args.seconds, check(component, impl))
    urllib = get_impl("urllib")
    _rate("urllib (in-process): cases from the diff_encode byte format", args.seconds,
          check(fuzz, urllib))
    return 0


if __name__ == "__main__":
    sys.exit(main())
