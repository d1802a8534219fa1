#!/usr/bin/env python3
"""Throughput of the reference encoder/decoder against urllib.parse, in the same run.

    python benchmarks/bench_reference.py            # full run, < 60 s
    python benchmarks/bench_reference.py --quick    # ~10 s, scaling up to 4 MiB
    python benchmarks/bench_reference.py --json     # machine-readable results on stdout

Two parts:

1. Comparisons on identical inputs, outputs asserted equal before timing:
   - ``percent_encode(s, "component")`` vs ``urllib.parse.quote(s, safe=SAFE)``, where
     SAFE is the component set's printable safe characters minus what urllib never
     encodes anyway (ASCII letters, digits and ``_.-~``): ``!'()*``.
   - ``percent_decode(e)`` vs ``urllib.parse.unquote_to_bytes(e)`` on encoded text.
   Ratio = urllib time / our time; > 1 means we are faster.
2. Scaling from 1 KiB to 64 MiB (powers of 4) for encode and decode, including
   adversarial decode inputs ("%" floods, "%4" repeats, "%%%%", dense "%41"), printed as
   nanoseconds per input byte: a flat column means linear time.

Inputs are deterministic (fixed seed). Large inputs repeat a 1 MiB block, which keeps
set-up fast and does not change the per-byte work.
"""

from __future__ import annotations

import argparse
import functools
import json
import platform
import random
import string
import sys
import time
import timeit
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    import pctfuzz
except ImportError:  # running from a checkout without an install
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    import pctfuzz

from pctfuzz.reference import percent_decode, percent_encode
from pctfuzz.sets import get_set

KiB = 1 << 10
MiB = 1 << 20

#: What urllib.parse.quote leaves unencoded whatever ``safe`` says (CPython's
#: ``_ALWAYS_SAFE``: letters, digits and "_.-~").
URLLIB_ALWAYS_SAFE = frozenset(string.ascii_letters + string.digits + "_.-~")

#: ``safe=`` that makes quote() produce the component set's output.
COMPONENT_SAFE = "".join(
    c for c in get_set("component").printable_safe if c not in URLLIB_ALWAYS_SAFE
)
assert COMPONENT_SAFE == "!'()*", COMPONENT_SAFE
# quote() can only match a set whose safe characters include urllib's always-safe ones.
assert set(get_set("component").printable_safe) >= URLLIB_ALWAYS_SAFE

TARGETS = {"encode-mixed": 2.0, "encode-ascii": 1.0, "decode": 1.0}


# --- inputs ----------------------------------------------------------------------------------

_UNRESERVED = string.ascii_letters + string.digits + "-._~"
# Mixed text: mostly ASCII letters, with reserved characters, Latin-1, CJK and emoji.
_MIXED_POOL = (
    list(string.ascii_letters + string.digits) * 4
    + list(" /?#&=+%:@!$'()*,;[]")
    + ["\u00e9", "\u00fc", "\u00f1", "\u4e2d", "\u6587", "\u5b57", "\U0001f600", "\U0001f389"]
)


def ascii_text(nbytes: int, rng: random.Random) -> str:
    """Mostly unreserved letters: 1 in 32 characters is a space or "/"."""
    return "".join(
        rng.choice(" /") if rng.random() < 1 / 32 else rng.choice(_UNRESERVED)
        for _ in range(nbytes)
    )


def mixed_text(nbytes: int, rng: random.Random) -> str:
    """About ``nbytes`` of UTF-8 drawn from _MIXED_POOL."""
    out: list[str] = []
    size = 0
    while size < nbytes:
        char = rng.choice(_MIXED_POOL)
        out.append(char)
        size += len(char.encode("utf-8"))
    return "".join(out)


def repeated(block: str | bytes, nbytes: int) -> Any:
    """``block`` cut or repeated to about ``nbytes`` bytes (str blocks measured in UTF-8)."""
    if isinstance(block, str):
        raw = block.encode("utf-8")
        if nbytes <= len(raw):
            return raw[:nbytes].decode("utf-8", "ignore")  # drop a cut character
        return block * round(nbytes / len(raw))
    return block[:nbytes] if nbytes <= len(block) else block * round(nbytes / len(block))


# --- timing ----------------------------------------------------------------------------------


def best_time(fn: Callable[[Any], object], arg: Any, budget: float) -> float:
    """Best seconds per call: calibrate once, then take the best of up to 3 repeats."""
    start = time.perf_counter()
    fn(arg)
    once = time.perf_counter() - start
    if once >= budget:
        return once
    number = max(1, int(budget / 3 / max(once, 1e-9)))
    timer = timeit.Timer(functools.partial(fn, arg))
    return min(timer.repeat(repeat=3, number=number)) / number


def best_pair(
    ours: Callable[[Any], object], theirs: Callable[[Any], object], arg: Any, budget: float
) -> tuple[float, float]:
    """Best seconds per call of each, measured in alternating rounds so that a change in
    machine load affects both sides alike."""
    numbers = []
    for fn in (ours, theirs):
        start = time.perf_counter()
        fn(arg)
        numbers.append(max(1, int(budget / 5 / max(time.perf_counter() - start, 1e-9))))
    best = [float("inf"), float("inf")]
    for _ in range(5):
        for side, (fn, number) in enumerate(zip((ours, theirs), numbers, strict=True)):
            seconds = timeit.Timer(functools.partial(fn, arg)).timeit(number) / number
            best[side] = min(best[side], seconds)
    return best[0], best[1]


def nbytes_of(value: str | bytes) -> int:
    return len(value.encode("utf-8")) if isinstance(value, str) else len(value)


# --- the two parts ---------------------------------------------------------------------------


def comparisons(budget: float, rng: random.Random) -> list[dict[str, Any]]:
    mixed_1m = mixed_text(MiB, rng)
    encode_inputs = {
        "ascii 1 KiB": ("encode-ascii", ascii_text(KiB, rng)),
        "mixed 1 KiB": ("encode-mixed", mixed_text(KiB, rng)),
        "mixed 1 MiB": ("encode-mixed", mixed_1m),
    }
    rows: list[dict[str, Any]] = []
    for label, (target, text) in encode_inputs.items():
        ours_out = percent_encode(text, "component")
        theirs_out = urllib.parse.quote(text, safe=COMPONENT_SAFE)
        assert ours_out == theirs_out, f"encode outputs differ on {label}"
        ours, theirs = best_pair(
            lambda s: percent_encode(s, "component"),
            lambda s: urllib.parse.quote(s, safe=COMPONENT_SAFE),
            text,
            budget,
        )
        rows.append(_row("encode", label, target, nbytes_of(text), ours, theirs))
    decode_inputs = {
        "encoded mixed 64 B": urllib.parse.quote(mixed_text(64, rng), safe=COMPONENT_SAFE),
        "encoded mixed 1 KiB": urllib.parse.quote(mixed_text(KiB, rng), safe=COMPONENT_SAFE),
        "encoded mixed 1 MiB": urllib.parse.quote(mixed_1m, safe=COMPONENT_SAFE),
        "encoded CJK 1 MiB": urllib.parse.quote(repeated("\u4e2d\u6587\u5b57", MiB // 3)),
        "'%41' x 1 MiB": repeated("%41", MiB),
        "'%' x 1 MiB": repeated("%", MiB),
    }
    for label, text in decode_inputs.items():
        assert percent_decode(text) == urllib.parse.unquote_to_bytes(text), label
        ours, theirs = best_pair(percent_decode, urllib.parse.unquote_to_bytes, text, budget)
        rows.append(_row("decode", label, "decode", nbytes_of(text), ours, theirs))
    return rows


def _row(op: str, label: str, target: str, size: int, ours: float, theirs: float) -> dict[str, Any]:
    ratio = theirs / ours
    return {
        "op": op,
        "input": label,
        "bytes": size,
        "ours_s": ours,
        "urllib_s": theirs,
        "ratio": ratio,
        "target": TARGETS[target],
        "met": ratio >= TARGETS[target],
    }


def scaling(max_size: int, budget: float, rng: random.Random) -> list[dict[str, Any]]:
    mixed_block = mixed_text(MiB, rng)
    encoded_block = urllib.parse.quote(mixed_block, safe=COMPONENT_SAFE).encode("ascii")
    cases: dict[str, tuple[Callable[[Any], object], Callable[[int], Any]]] = {
        "encode mixed": (
            lambda s: percent_encode(s, "component"),
            lambda n: repeated(mixed_block, n),
        ),
        "decode encoded": (percent_decode, lambda n: repeated(encoded_block, n)),
        "decode '%' flood": (percent_decode, lambda n: b"%" * n),
        "decode '%4' x n": (percent_decode, lambda n: b"%4" * (n // 2)),
        "decode '%%%%'": (percent_decode, lambda n: b"%%%%" * (n // 4)),
        "decode '%41' x n": (percent_decode, lambda n: repeated(b"%41", n)),
    }
    sizes = [KiB * 4**k for k in range(20) if KiB * 4**k <= max_size]
    rows: list[dict[str, Any]] = []
    for name, (fn, make) in cases.items():
        for size in sizes:
            value = make(size)
            seconds = best_time(fn, value, budget if size < 4 * MiB else 0.0)
            n = nbytes_of(value)
            rows.append(
                {"case": name, "bytes": n, "seconds": seconds, "ns_per_byte": seconds / n * 1e9}
            )
            del value
    return rows


# --- output ----------------------------------------------------------------------------------


def human(size: int) -> str:
    for unit, scale in (("MiB", MiB), ("KiB", KiB)):
        if size >= scale:
            return f"{size / scale:.0f} {unit}"
    return f"{size} B"


def print_tables(compared: list[dict[str, Any]], scaled: list[dict[str, Any]]) -> None:
    print(
        f"pctfuzz {pctfuzz.__version__} reference vs urllib.parse, Python "
        f"{platform.python_version()} ({platform.machine()})"
    )
    print(f"quote(s, safe={COMPONENT_SAFE!r}) == percent_encode(s, 'component') on every input\n")
    header = (
        f"{'op':<7}{'input':<22}{'bytes':>9}{'ours µs':>12}{'urllib µs':>12}{'ratio':>8}  target"
    )
    print(header)
    print("-" * len(header))
    for row in compared:
        print(
            f"{row['op']:<7}{row['input']:<22}{row['bytes']:>9}{row['ours_s'] * 1e6:>12.1f}"
            f"{row['urllib_s'] * 1e6:>12.1f}{row['ratio']:>8.2f}  >= {row['target']:g}"
            f" {'ok' if row['met'] else 'MISSED'}"
        )
    print("\nratio = urllib time / our time (> 1: we are faster)\n")
    cases = list(dict.fromkeys(r["case"] for r in scaled))
    sizes = list(dict.fromkeys(human(r["bytes"]) for r in scaled if r["case"] == cases[0]))
    print("scaling, ns per input byte (flat = linear)")
    print(f"{'case':<20}" + "".join(f"{s:>10}" for s in sizes))
    for case in cases:
        cells = [r["ns_per_byte"] for r in scaled if r["case"] == case]
        print(f"{case:<20}" + "".join(f"{c:>10.2f}" for c in cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="~10 s: shorter timing, up to 4 MiB")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    parser.add_argument(
        "--max-size", type=int, default=None, metavar="BYTES", help="largest scaling input"
    )
    args = parser.parse_args(argv)
    budget = 0.05 if args.quick else 0.2
    max_size = args.max_size or (4 * MiB if args.quick else 64 * MiB)
    rng = random.Random(20240531)
    started = time.perf_counter()
    compared = comparisons(budget, rng)
    scaled = scaling(max_size, budget, rng)
    elapsed = time.perf_counter() - started
    if args.json:
        json.dump(
            {
                "python": platform.python_version(),
                "pctfuzz": pctfuzz.__version__,
                "urllib_safe": COMPONENT_SAFE,
                "comparisons": compared,
                "scaling": scaled,
                "elapsed_s": elapsed,
            },
            sys.stdout,
            indent=2,
        )
        print()
    else:
        print_tables(compared, scaled)
        print(f"\n(total {elapsed:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
