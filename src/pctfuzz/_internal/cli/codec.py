"""``pctfuzz encode``, ``decode`` and ``sets``: the reference encoder on the command line."""

from __future__ import annotations

import argparse
import sys

from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.sets import ALIASES, SETS, get_set
from pctfuzz._internal.setspec import byte_ranges, canonical_spec, urllib_safe_spec

#: Largest TEXT or stdin the encode/decode commands accept, in bytes.
MAX_INPUT_BYTES = 256 * 1024 * 1024

def _read_input(text: str | None, as_bytes: bool) -> str | bytes:
    """TEXT if given, else all of stdin without one trailing newline."""
    if text is not None:
        # The OS hands argv over with undecodable bytes as U+DC80-U+DCFF
        # (surrogateescape): turn them back into the bytes that were typed.
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as exc:
            raise UsageError(
                f"TEXT is not valid UTF-8: lone surrogate at index {exc.start}"
            ) from None
    else:
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        if data.endswith(b"\n"):
            data = data[:-2] if data.endswith(b"\r\n") else data[:-1]
    if len(data) > MAX_INPUT_BYTES:
        raise UsageError(f"input is larger than {MAX_INPUT_BYTES} bytes")
    if as_bytes:
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"input is not valid UTF-8 at byte {exc.start}; use --bytes to encode raw bytes"
        ) from None


def _cmd_encode(args: argparse.Namespace) -> int:
    value = _read_input(args.text, args.bytes)
    plus = True if args.plus else None
    sys.stdout.write(
        percent_encode(value, args.set, encoding=args.encoding, space_as_plus=plus) + "\n"
    )
    return ExitCode.OK


def _cmd_decode(args: argparse.Namespace) -> int:
    value = _read_input(args.text, True)
    assert isinstance(value, bytes)
    if args.plus:
        value = value.replace(b"+", b" ")
    decoded = percent_decode(value)
    if args.bytes:
        sys.stdout.buffer.write(decoded)
        sys.stdout.flush()
    else:
        sys.stdout.write(decoded.decode("utf-8", "replace") + "\n")
    return ExitCode.OK


def _cmd_set_spec(spec: str) -> int:
    """``sets --spec``: what one spec (or name) contains; a bad spec is UnknownSetError -> 2."""
    pes = get_set(spec)
    same = [name for name, named in SETS.items() if named.members == pes.members]
    print(f"spec: {canonical_spec(pes)}")
    print(f"description: {pes.description}")
    if same:
        print(f"same bytes as: {', '.join(same)}")
    print(f"space as +: {'yes' if pes.space_as_plus else 'no'} (recipe default)")
    print(f"printable ASCII left raw: {pes.printable_safe!r}")
    print(f"encoded bytes: {byte_ranges(pes.members)}")
    print(f"as urllib quote(safe=): {urllib_safe_spec(pes.members) or 'not expressible'}")
    return ExitCode.OK


def _cmd_sets(args: argparse.Namespace) -> int:
    if args.spec is not None:
        return _cmd_set_spec(args.spec)
    aliases: dict[str, list[str]] = {}
    for alias, name in ALIASES.items():
        aliases.setdefault(name, []).append(alias)
    width = max(map(len, SETS))
    for name, pes in SETS.items():
        extra = f" (alias: {', '.join(aliases[name])})" if name in aliases else ""
        print(f"{name:<{width}}  {pes.description}{extra}")
        if args.verbose:
            print(f"{'':<{width}}  source: {pes.source}")
            print(f"{'':<{width}}  printable ASCII left as is: {pes.printable_safe!r}")
    return ExitCode.OK



def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    enc = sub.add_parser("encode", help="percent-encode TEXT (or stdin)")
    enc.add_argument("text", nargs="?", metavar="TEXT", help="text to encode; stdin if absent")
    enc.add_argument("--set", default="component", metavar="NAME", help="percent-encode set")
    enc.add_argument("--encoding", default="utf-8", metavar="LABEL", help="WHATWG label")
    enc.add_argument("--plus", action="store_true", help="write space as + (spaceAsPlus)")
    enc.add_argument("--bytes", action="store_true", help="encode the raw input bytes")
    enc.set_defaults(func=_cmd_encode)

    dec = sub.add_parser("decode", help="percent-decode TEXT (or stdin)")
    dec.add_argument("text", nargs="?", metavar="TEXT", help="text to decode; stdin if absent")
    dec.add_argument("--plus", action="store_true", help="read + as space first (form style)")
    dec.add_argument("--bytes", action="store_true", help="write the raw decoded bytes")
    dec.set_defaults(func=_cmd_decode)

    sets = sub.add_parser("sets", help="list the percent-encode sets")
    sets.add_argument("-v", "--verbose", action="store_true", help="show sources and safe chars")
    sets.add_argument(
        "--spec",
        metavar="SPEC",
        help="show one set: a name, or a spec like encodeURI-[] or urllib-safe:/ "
        "(grammar: docs/guide.md, set specs)",
    )
    sets.set_defaults(func=_cmd_sets)
