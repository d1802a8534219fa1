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
import importlib.metadata
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

from pctfuzz._internal.reference import percent_decode, percent_decode_text, percent_encode
from pctfuzz._internal.sets import get_set

try:  # peers (the `impls` extra); a missing one is left out of the table
    import yarl._quoting_c as yarl_c
except ImportError:
    yarl_c = None
try:
    import ada_url
except ImportError:
    ada_url = None

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

#: Minimum urllib time / our time: never slower than urllib (issue 15), and 2x on
#: mixed text of 1 KiB and more.
TARGETS = {
    "encode-mixed": 2.0,
    "encode-short": 1.0,
    "encode-ascii": 1.0,
    "encode-noop": 1.0,
    "decode": 1.0,
}


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


def best_of(fns: dict[str, Callable[[Any], object]], arg: Any, budget: float) -> dict[str, float]:
    """Best seconds per call of each function, measured in alternating rounds so that a
    change in machine load affects every side alike."""
    numbers = {}
    for name, fn in fns.items():
        start = time.perf_counter()
        fn(arg)
        numbers[name] = max(1, int(budget / 5 / max(time.perf_counter() - start, 1e-9)))
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(5):
        for name, fn in fns.items():
            seconds = timeit.Timer(functools.partial(fn, arg)).timeit(numbers[name])
            best[name] = min(best[name], seconds / numbers[name])
    return best


def nbytes_of(value: str | bytes) -> int:
    return len(value.encode("utf-8")) if isinstance(value, str) else len(value)


# --- peers -------------------------------------------------------------------------------------

#: ``safe=`` for quote() to produce the path set's output (same derivation as COMPONENT_SAFE).
PATH_SAFE = "".join(c for c in get_set("path").printable_safe if c not in URLLIB_ALWAYS_SAFE)
assert set(get_set("path").printable_safe) >= URLLIB_ALWAYS_SAFE

EncodeFn = Callable[[str], str]


def encode_peers(set_name: str) -> dict[str, EncodeFn]:
    """Peers that can produce ``set_name``'s exact output on the benchmark inputs.

    - urllib ``quote``: a set whose safe characters include urllib's always-safe ones
      (component, path; not form, which encodes "~").
    - yarl's C ``_Quoter(requote=False)``: it always leaves ``!$'()*,`` and ``+&=;``
      unencoded, so only the path set (component and form encode some of them).
    - ada: no free-standing encoder; the WHATWG APIs that only percent-encode:
      ``pathname`` on a non-special URL for path (inputs without tab, newline or
      dot segments), ``URLSearchParams.append`` for form with spaceAsPlus.
    """
    peers: dict[str, EncodeFn] = {}
    if set_name == "component":
        peers["urllib"] = lambda s: urllib.parse.quote(s, safe=COMPONENT_SAFE)
    elif set_name == "path":
        peers["urllib"] = lambda s: urllib.parse.quote(s, safe=PATH_SAFE)
        if yarl_c is not None:
            quoter = yarl_c._Quoter(safe=get_set("path").printable_safe, requote=False)
            peers["yarl-C"] = quoter
        if ada_url is not None:
            url = ada_url.URL("x://h")

            def ada_path(s: str) -> str:
                url.pathname = "/" + s
                return str(url.pathname)[1:]

            peers["ada"] = ada_path
    elif set_name == "form" and ada_url is not None:

        def ada_form(s: str) -> str:
            params = ada_url.URLSearchParams("")
            params.append(s, "")
            return str(params)[:-1]  # minus the "=" of the empty value

        peers["ada"] = ada_form
    return peers


def ours_encode(set_name: str) -> EncodeFn:
    plus = set_name == "form"  # the form serializer's spaceAsPlus
    return lambda s: percent_encode(s, set_name, space_as_plus=plus)


# --- the two parts ---------------------------------------------------------------------------


def comparisons(budget: float, rng: random.Random) -> list[dict[str, Any]]:
    """One row per (operation, set, input): our time and each comparable peer's."""
    mixed_1m = mixed_text(MiB, rng)
    encode_inputs = {
        "ascii 1 KiB": ("encode-ascii", ascii_text(KiB, rng)),
        "mixed 1 KiB": ("encode-mixed", mixed_text(KiB, rng)),
        "mixed 1 MiB": ("encode-mixed", mixed_1m),
    }
    decode_inputs = {
        "encoded mixed 64 B": urllib.parse.quote(mixed_text(64, rng), safe=COMPONENT_SAFE),
        "encoded mixed 1 KiB": urllib.parse.quote(mixed_text(KiB, rng), safe=COMPONENT_SAFE),
        "encoded mixed 1 MiB": urllib.parse.quote(mixed_1m, safe=COMPONENT_SAFE),
        "encoded CJK 1 MiB": urllib.parse.quote(repeated("\u4e2d\u6587\u5b57", MiB // 3)),
        "'%41' x 1 MiB": repeated("%41", MiB),
        "'%' x 1 MiB": repeated("%", MiB),
    }
    # (After the inputs above, so that their draws from `rng` stay as they were.)
    encode_inputs = {
        "unreserved 64 B": ("encode-noop", repeated(_UNRESERVED, 64)),
        "unreserved 1 KiB": ("encode-noop", repeated(_UNRESERVED, KiB)),
        "mixed 64 B": ("encode-short", mixed_text(64, rng)),
        **encode_inputs,
    }
    rows: list[dict[str, Any]] = []
    for set_name in ("component", "path", "form"):
        ours = ours_encode(set_name)
        for label, (target, text) in encode_inputs.items():
            expected = ours(text)
            peers = {
                name: fn for name, fn in encode_peers(set_name).items() if fn(text) == expected
            }
            times = best_of({"ours": ours, **peers}, text, budget)
            rows.append(_row(f"encode {set_name}", label, target, nbytes_of(text), times))
    for label, text in decode_inputs.items():
        assert percent_decode(text) == urllib.parse.unquote_to_bytes(text), label
        pair = {"ours": percent_decode, "urllib": urllib.parse.unquote_to_bytes}
        times = best_of(pair, text, budget)
        rows.append(_row("decode", label, "decode", nbytes_of(text), times))
    # To text, with U+FFFD for bad UTF-8: what yarl's unquoter returns.
    for label, text in decode_inputs.items():
        if yarl_c is None:
            break
        peers = {
            "urllib": functools.partial(urllib.parse.unquote, errors="replace"),
            "yarl-C": yarl_c._Unquoter(replace_invalid=True),
        }
        expected = percent_decode_text(text)
        peers = {name: fn for name, fn in peers.items() if fn(text) == expected}
        times = best_of({"ours": percent_decode_text, **peers}, text, budget)
        rows.append(_row("decode-text", label, "decode", nbytes_of(text), times))
    return rows


def _row(op: str, label: str, target: str, size: int, times: dict[str, float]) -> dict[str, Any]:
    """Ratios are peer time / our time; the target applies to urllib's."""
    ours = times.pop("ours")
    ratios = {name: seconds / ours for name, seconds in times.items()}
    return {
        "op": op,
        "input": label,
        "bytes": size,
        "ours_s": ours,
        "peers_s": times,
        "ratios": ratios,
        "target": TARGETS[target],
        "met": ratios["urllib"] >= TARGETS[target] if "urllib" in ratios else None,
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


PEERS = ("urllib", "yarl-C", "ada")


def print_tables(compared: list[dict[str, Any]], scaled: list[dict[str, Any]]) -> None:
    print(
        f"pctfuzz {pctfuzz.__version__} reference vs urllib.parse, yarl {_version('yarl')} "
        f"(C quoter), ada-url {_version('ada-url')}; Python {platform.python_version()} "
        f"({platform.machine()})"
    )
    print(
        f"quote(s, safe={COMPONENT_SAFE!r}) for component, safe={PATH_SAFE!r} for path; "
        "a peer is timed only where its output equals ours ('-': not comparable)\n"
    )
    header = (
        f"{'op':<17}{'input':<21}{'bytes':>8}{'ours µs':>10}"
        + "".join(f"{name + ' ×':>10}" for name in PEERS)
        + "  target (urllib)"
    )
    print(header)
    print("-" * len(header))
    for row in compared:
        ratios = "".join(
            f"{row['ratios'][name]:>10.2f}" if name in row["ratios"] else f"{'-':>10}"
            for name in PEERS
        )
        verdict = "" if row["met"] is None else (
            f">= {row['target']:g} {'ok' if row['met'] else 'MISSED'}"
        )
        print(
            f"{row['op']:<17}{row['input']:<21}{row['bytes']:>8}{row['ours_s'] * 1e6:>10.1f}"
            f"{ratios}  {verdict}"
        )
    print("\n× = peer time / our time (> 1: we are faster; < 1: the peer is)\n")
    cases = list(dict.fromkeys(r["case"] for r in scaled))
    sizes = list(dict.fromkeys(human(r["bytes"]) for r in scaled if r["case"] == cases[0]))
    print("scaling, ns per input byte (flat = linear)")
    print(f"{'case':<20}" + "".join(f"{s:>10}" for s in sizes))
    for case in cases:
        cells = [r["ns_per_byte"] for r in scaled if r["case"] == case]
        print(f"{case:<20}" + "".join(f"{c:>10.2f}" for c in cells))


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


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
                "urllib_safe": {"component": COMPONENT_SAFE, "path": PATH_SAFE},
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
