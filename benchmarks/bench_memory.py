#!/usr/bin/env python3
"""Peak memory of percent_encode / percent_decode: proportional to the input.

    python benchmarks/bench_memory.py                 # 1, 4, 16, 64 MiB, every case
    python benchmarks/bench_memory.py --sizes 16 --json

Each measurement runs in a fresh subprocess (``--child CASE MIB``), so one run's
garbage, arenas and peaks never count towards another's. The child builds the input,
collects garbage, notes its resident set (VmRSS), resets the kernel's peak counter
(``/proc/self/clear_refs`` = 5; else the lifetime peak ``ru_maxrss`` is used, which
can only overstate), runs the call once, and reads the peak (VmHWM). Then it runs the
call again under ``tracemalloc`` for the peak of Python allocations. Printed per input
byte:

- ``rss``: (peak RSS during the call - RSS before it) / input size: the extra memory
  the call needed, output included;
- ``traced``: tracemalloc's peak / input size (Python heap only, output included).

A flat column across sizes means memory proportional to the input. The output itself
is part of the peak: encoding writes up to 3 output bytes per input byte, and the
encoder holds the encoded 64 KiB blocks and then their join (2 x output), so
``encode-all`` cannot go below ~6; decoding holds the decoded blocks and their join
(2 x output, output <= input) plus, for str input, its UTF-8 bytes. ``BOUNDS``
(checked at 16 MiB by tests/integration/test_reliability.py) are the documented limits, with
headroom over the measured factors (encode ~4.9-6.0, decode ~0.7-2.2 at 16-64 MiB on
CPython 3.11); they are memory bounds, not timing assertions.

Cases (inputs are deterministic):

- ``encode-bytes``: every byte value in turn, ``component`` set: 2/3 of bytes encoded;
- ``encode-all``: bytes 0x80-0xFF: every byte encoded (output = 3 x input);
- ``encode-text``: mixed text (ASCII, Latin-1, CJK, emoji, spaces), ``component``;
- ``decode-dense``: ``%41`` repeated (every byte in a triplet; output 1/3 of input);
- ``decode-flood``: ``%%4%`` repeated: many ``%``, no triplet (output = input);
- ``decode-text``: str of ``%C3%A9`` and non-ASCII text (UTF-8 encoded first).
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

try:
    import pctfuzz  # noqa: F401
except ImportError:  # running from a checkout without an install
    sys.path.insert(0, str(ROOT / "src"))

from pctfuzz._internal.reference import percent_decode, percent_encode  # noqa: E402

MiB = 1 << 20
SIZES = (1, 4, 16, 64)

#: Upper bounds on extra peak RSS per input byte (the ``rss`` factor) at 16 MiB.
BOUNDS: dict[str, float] = {
    "encode-bytes": 8.0,
    "encode-all": 8.0,
    "encode-text": 8.0,
    "decode-dense": 4.0,
    "decode-flood": 4.0,
    "decode-text": 4.0,
}


def _repeat(unit: bytes | str, size: int) -> Any:
    return (unit * (size // len(unit) + 1))[:size]


def make_input(case: str, size: int) -> tuple[Callable[[], object], int]:
    """(the call to measure, input size in bytes)."""
    if case == "encode-bytes":
        data = _repeat(bytes(range(256)), size)
        return lambda: percent_encode(data, "component"), len(data)
    if case == "encode-all":
        data = _repeat(bytes(range(128, 256)), size)
        return lambda: percent_encode(data, "component"), len(data)
    if case == "encode-text":
        unit = "abc def/\u00e9\u00fc\u4e2d\u6587\U0001f600?&=xyz"
        text = _repeat(unit, size // 2)  # ~2 UTF-8 bytes per character on average
        return lambda: percent_encode(text, "component"), len(text.encode("utf-8"))
    if case == "decode-dense":
        data = _repeat(b"%41", size)
        return lambda: percent_decode(data), len(data)
    if case == "decode-flood":
        data = _repeat(b"%%4%", size)
        return lambda: percent_decode(data), len(data)
    if case == "decode-text":
        text = _repeat("%C3%A9 caf\u00e9 %E4%B8%AD\u4e2d ", size // 2)
        return lambda: percent_decode(text), len(text.encode("utf-8"))
    raise SystemExit(f"unknown case {case!r}; cases: {', '.join(BOUNDS)}")


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")  # reset VmHWM to the current RSS (Linux >= 4.0)
        return True
    except OSError:
        return False


def child(case: str, mib: int) -> dict[str, Any]:
    """One measurement, in this process (see the module docstring)."""
    call, size = make_input(case, mib * MiB)
    gc.collect()
    before = _status_kib("VmRSS")
    reset = _reset_peak()
    started = time.perf_counter()
    result = call()
    seconds = time.perf_counter() - started
    peak = _status_kib("VmHWM") if reset else None
    if before is None or peak is None:  # no /proc: the lifetime peak, an overstatement
        before = before or 0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out_size = len(result) if isinstance(result, bytes | str) else 0
    del result
    gc.collect()
    tracemalloc.start()
    call()
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "case": case,
        "mib": mib,
        "input_bytes": size,
        "output_len": out_size,
        "rss_before": before * 1024,
        "rss_peak": peak * 1024,
        "rss_factor": (peak - before) * 1024 / size,
        "traced_factor": traced / size,
        "seconds": seconds,
        "peak_reset": reset,
    }


def measure(case: str, mib: int) -> dict[str, Any]:
    """One measurement in a fresh subprocess."""
    run = subprocess.run([sys.executable, __file__, "--child", case, str(mib)],
                         capture_output=True, text=True, timeout=600, check=True)
    result: dict[str, Any] = json.loads(run.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), metavar="MIB")
    parser.add_argument("--cases", nargs="+", default=list(BOUNDS), choices=list(BOUNDS))
    parser.add_argument("--json", action="store_true", help="one JSON list on stdout")
    parser.add_argument("--child", nargs=2, metavar=("CASE", "MIB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]))))
        return 0
    results = []
    if not args.json:
        print(f"{'case':<14}{'MiB':>5}{'rss/input':>11}{'traced/input':>14}"
              f"{'peak RSS MiB':>14}{'s':>7}   bound")
    for case in args.cases:
        for mib in args.sizes:
            r = measure(case, mib)
            results.append(r)
            if not args.json:
                print(f"{case:<14}{mib:>5}{r['rss_factor']:>11.2f}{r['traced_factor']:>14.2f}"
                      f"{r['rss_peak'] / MiB:>14.0f}{r['seconds']:>7.2f}   {BOUNDS[case]:g}",
                      flush=True)
    if args.json:
        print(json.dumps(results, indent=1))
    over = [r for r in results if r["mib"] >= 16 and r["rss_factor"] > BOUNDS[r["case"]]]
    for r in over:
        print(f"OVER BOUND: {r['case']} at {r['mib']} MiB: {r['rss_factor']:.2f} > "
              f"{BOUNDS[r['case']]}", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
