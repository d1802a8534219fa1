#!/usr/bin/env python3
"""Per-pair cost of the form codec: 1 MiB ``form`` fuzz inputs with many short pairs.

    python benchmarks/bench_form.py            # every input, best of 3 (about a minute)
    python benchmarks/bench_form.py --quick    # best of 1
    python benchmarks/bench_form.py --json     # machine-readable results on stdout

Each input is a 1 MiB file in the ``form`` target's byte format
(``[encoding][len][name][len][value]...``, see ``pctfuzz._internal.targets``), the largest a
campaign keeps. For each one this prints the seconds taken by:

- ``serialize``: ``form_urlencode(pairs)`` (WHATWG URL 5.2);
- ``parse``: ``form_urldecode`` of that serialization (WHATWG URL 5.1);
- ``form check``: the whole ``form`` target on the raw bytes (``Target.run_bytes``:
  byte format -> case -> every form invariant), what a fuzzing execution costs;
- ada-url's ``URLSearchParams`` (C++) serializing and parsing the same pairs, as a
  compiled peer (UTF-8 inputs only; its output is asserted equal to ours first).

This measures the checkout it is in (its ``src/`` comes first on ``sys.path``), so a
copy of the script in an older checkout gives that checkout's "before" figures.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from pctfuzz._internal.form import form_urldecode, form_urlencode
from pctfuzz._internal.formats import form_from_bytes
from pctfuzz._internal.targets import TARGETS

try:
    import ada_url
except ImportError:  # the `impls` extra is not installed: no peer column
    ada_url = None

MiB = 1 << 20
#: The header byte for UTF-8 (any byte below 0x80).
UTF8 = b"\x00"


def fields(*items: bytes) -> bytes:
    """Length-prefixed fields, the unit repeated to fill an input."""
    return b"".join(bytes([len(item)]) + item for item in items)


def fill(header: bytes, unit: bytes) -> bytes:
    """``header`` then as many whole ``unit`` as fit in 1 MiB."""
    return header + unit * ((MiB - len(header)) // len(unit))


def legacy_header(name: str) -> bytes:
    from pctfuzz._internal.formats import _encoding_to_byte

    return bytes([_encoding_to_byte(name)])


INPUTS: dict[str, Callable[[], bytes]] = {
    # 262,143 pairs ("a", "b"): nothing to encode, the worst case.
    "1-byte pairs, plain": lambda: fill(UTF8, fields(b"a", b"b")),
    # 262,143 pairs (" ", "~"): every field is encoded ("+", "%7E").
    "1-byte pairs, encoded": lambda: fill(UTF8, fields(b" ", b"~")),
    # 174,762 pairs ("é", "é"): UTF-8, two escapes per field.
    "2-byte pairs, UTF-8": lambda: fill(UTF8, fields("é".encode(), "é".encode())),
    # 131,071 pairs of 3 bytes with "=", "&", "%" and "+" in them.
    "3-byte pairs, reserved": lambda: fill(UTF8, fields(b"a=&", b"%+b")),
    # 524,287 pairs ("", ""): the most pairs a 1 MiB input can hold.
    "empty pairs": lambda: fill(UTF8, fields(b"", b"")),
    # 262,143 pairs ("a", "b") in windows-1252: a legacy output encoding.
    "1-byte pairs, windows-1252": lambda: fill(legacy_header("windows-1252"), fields(b"a", b"b")),
    # 174,762 pairs ("é", "é") in windows-1252: the legacy encoder on every field.
    "2-byte pairs, windows-1252": lambda: fill(
        legacy_header("windows-1252"), fields("é".encode(), "é".encode())
    ),
    # 174,762 pairs ("é", "é") in Shift_JIS, whose encoder cannot write "é": each
    # field is a numeric character reference ("%26%23233%3B").
    "2-byte pairs, Shift_JIS": lambda: fill(
        legacy_header("Shift_JIS"), fields("é".encode(), "é".encode())
    ),
    # 149,796 pairs ("あ", "¥") in ISO-2022-JP: the stateful encoder, each name in the
    # jis0208 state and each value in the Roman one, escape sequences around every field.
    "jis0208/Roman pairs, ISO-2022-JP": lambda: fill(
        legacy_header("ISO-2022-JP"), fields("あ".encode(), "¥".encode())
    ),
}


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def ada_serialize(pairs: tuple[tuple[str, str], ...]) -> str:
    params = ada_url.URLSearchParams("")
    append = params.append
    for name, value in pairs:
        append(name, value)
    return str(params)


def ada_parse(text: str) -> list[tuple[str, str]]:
    return list(ada_url.URLSearchParams(text).items())


def measure(label: str, data: bytes, repeat: int) -> dict[str, Any]:
    case = form_from_bytes(data)
    pairs, encoding = case.pairs, case.encoding
    # The label's last word names the encoding when it is not UTF-8.
    named = label.rsplit(", ", 1)[-1]
    legacy = ("windows-1252", "Shift_JIS", "ISO-2022-JP")
    assert encoding == (named if named in legacy else "UTF-8"), label
    text = form_urlencode(pairs, encoding=encoding)
    row: dict[str, Any] = {"input": label, "bytes": len(data), "pairs": len(pairs)}
    row["serialize_s"] = best(lambda: form_urlencode(pairs, encoding=encoding), repeat)
    row["parse_s"] = best(lambda: form_urldecode(text), repeat)
    row["check_s"] = best(lambda: TARGETS["form"].run_bytes(data), repeat)
    utf8 = data[0] < 0x80
    if ada_url is not None and utf8:
        assert ada_serialize(pairs) == text, f"ada serializes {label} differently"
        assert ada_parse(text) == form_urldecode(text), f"ada parses {label} differently"
        row["ada_serialize_s"] = best(lambda: ada_serialize(pairs), repeat)
        row["ada_parse_s"] = best(lambda: ada_parse(text), repeat)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="best of 1 instead of 3")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else 3
    rows = [measure(label, make(), repeat) for label, make in INPUTS.items()]
    if args.json:
        json.dump({"python": platform.python_version(), "rows": rows}, sys.stdout, indent=2)
        print()
        return 0
    python = platform.python_version()
    print(f"form codec on 1 MiB `form` inputs, best of {repeat}; Python {python}")
    header = (
        f"{'input':<34}{'pairs':>8}{'serialize s':>13}{'parse s':>10}{'form check s':>14}"
        f"{'µs/pair':>9}{'ada ser. s':>12}{'ada parse s':>13}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        ada = "".join(
            f"{row[key]:>{width}.3f}" if key in row else f"{'-':>{width}}"
            for key, width in (("ada_serialize_s", 12), ("ada_parse_s", 13))
        )
        print(
            f"{row['input']:<34}{row['pairs']:>8}{row['serialize_s']:>13.3f}"
            f"{row['parse_s']:>10.3f}{row['check_s']:>14.3f}"
            f"{row['check_s'] / row['pairs'] * 1e6:>9.2f}{ada}"
        )
    print("\nµs/pair: the form check's time per pair (the default per-input timeout is 5 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
