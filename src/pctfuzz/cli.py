"""The ``pctfuzz`` command.

Exit codes (the same for every subcommand):
  0  success; for fuzz/replay: nothing new / nothing reproduces
  1  fuzz: a new finding was saved; replay: at least one input reproduces or fails
     differently
  2  usage error or unusable input (unknown set or encoding, malformed file, ...)
  3  fuzz: the run is incomplete -- a finding or its hits could not be saved, a
     record could not be read, or a target ran no execution -- even if something
     new was found: nothing lost is ever reported as a clean or ordinary run
  4  internal error: a bug in pctfuzz, reported as one line (``PCTFUZZ_DEBUG=1``
     prints the traceback)
  129/130/143  stopped by SIGHUP/SIGINT/SIGTERM

Exit 4 is never 1, so a crash of the tool cannot read as "a finding" in CI. A reader
of stdout that goes away (``pctfuzz ... | head -1``) ends the command quietly.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from . import __version__
from .errors import PctfuzzError
from .reference import percent_decode, percent_encode
from .sets import ALIASES, SETS, get_set
from .setspec import byte_ranges, canonical_spec, urllib_safe_spec
from .text import one_line

EXIT_OK = 0
EXIT_FOUND = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3
EXIT_INTERNAL = 4

#: Largest TEXT or stdin the encode/decode commands accept, in bytes.
MAX_INPUT_BYTES = 256 * 1024 * 1024

#: Modules that add more subcommands; each has ``add_command(subparsers)`` which sets
#: ``func`` (args -> exit code) on its parser.
COMMAND_MODULES: tuple[str, ...] = (
    # one line per module in pctfuzz/commands/
    "pctfuzz.commands.fuzz",
    "pctfuzz.commands.coverage",
    "pctfuzz.commands.divergences",
    "pctfuzz.commands.report",
    "pctfuzz.commands.probe",
)


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {one_line(message)}\n")


def _read_input(text: str | None, as_bytes: bool) -> str | bytes:
    """TEXT if given, else all of stdin without one trailing newline."""
    if text is not None:
        # The OS hands argv over with undecodable bytes as U+DC80-U+DCFF
        # (surrogateescape): turn them back into the bytes that were typed.
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as exc:
            raise PctfuzzError(
                f"TEXT is not valid UTF-8: lone surrogate at index {exc.start}"
            ) from None
    else:
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        if data.endswith(b"\n"):
            data = data[:-2] if data.endswith(b"\r\n") else data[:-1]
    if len(data) > MAX_INPUT_BYTES:
        raise PctfuzzError(f"input is larger than {MAX_INPUT_BYTES} bytes")
    if as_bytes:
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PctfuzzError(
            f"input is not valid UTF-8 at byte {exc.start}; use --bytes to encode raw bytes"
        ) from None


def _cmd_encode(args: argparse.Namespace) -> int:
    value = _read_input(args.text, args.bytes)
    plus = True if args.plus else None
    sys.stdout.write(
        percent_encode(value, args.set, encoding=args.encoding, space_as_plus=plus) + "\n"
    )
    return EXIT_OK


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
    return EXIT_OK


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
    return EXIT_OK


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
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pctfuzz",
        description="Reference URL percent-encoder, property checks and fuzzing harness.",
        epilog="Exit codes: 0 ok / nothing new, 1 finding or reproduction, 2 usage or input "
        "error, 3 run incomplete, 4 internal error (a pctfuzz bug; PCTFUZZ_DEBUG=1 shows the "
        "traceback).",
    )
    parser.add_argument("--version", action="version", version=f"pctfuzz {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

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
        "(grammar: pctfuzz.setspec)",
    )
    sets.set_defaults(func=_cmd_sets)

    for module in COMMAND_MODULES:
        importlib.import_module(module).add_command(sub)
    return parser


def _stdout_gone() -> int:
    """The reader of stdout went away (``| head -1``): end quietly, exit 0.

    Python would print "BrokenPipeError" when it flushes stdout at exit; pointing the
    descriptor at /dev/null first makes that flush succeed (the standard recipe of the
    ``signal`` module's documentation)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_OK


#: Commands that take options for libFuzzer after ``--`` (``pctfuzz fuzz … -- -max_len=64``).
PASSTHROUGH_COMMANDS = ("fuzz",)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    # Everything after "--" goes to libFuzzer untouched (argparse would take it as
    # positional TARGETs).
    passthrough: list[str] = []
    command = next((w for w in words if not w.startswith("-")), None)
    if command in PASSTHROUGH_COMMANDS and "--" in words:
        cut = words.index("--")
        words, passthrough = words[:cut], words[cut + 1:]
    try:
        args = parser.parse_args(words)
    except BrokenPipeError:  # --help or --version into a closed pipe
        return _stdout_gone()
    bad = [w for w in passthrough if not w.startswith("-")]
    if bad:
        parser.error(f"after --, libFuzzer options (-flag=value) only, not {bad[0]!r}")
    args.passthrough = passthrough
    try:
        code: int = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
    except PctfuzzError as exc:
        print(f"pctfuzz {args.command}: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _stdout_gone()
    except Exception as exc:
        # A bug in pctfuzz: one line and its own exit code, never 1 ("a finding").
        if os.environ.get("PCTFUZZ_DEBUG"):
            import traceback

            traceback.print_exc()
        print(f"pctfuzz {args.command}: internal error: {type(exc).__name__}: "
              f"{one_line(str(exc), 500)} (please report; rerun with PCTFUZZ_DEBUG=1 for the "
              "traceback)", file=sys.stderr)
        return EXIT_INTERNAL
    return code


if __name__ == "__main__":
    sys.exit(main())
