"""The ``pctfuzz`` command line: the parser, the dispatch, and the exit-code contract
(``ExitCode``, ``pctfuzz._internal.exits``)."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

from pctfuzz import __version__
from pctfuzz._internal.cli import (
    accept,
    codec,
    corpus,
    coverage,
    divergences,
    fuzz,
    impls,
    init,
    matrix,
    ossfuzz,
    probe,
    replay,
    report,
)
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.exits import ExitCode, epilog
from pctfuzz._internal.text import one_line

#: The command groups, in ``--help`` order; each has ``add_command(subparsers)``, which
#: sets ``func`` (args -> exit code) on its parser.
COMMANDS = (init, codec, fuzz, matrix, replay, corpus, coverage, divergences, impls, report,
            accept, probe, ossfuzz)


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(ExitCode.USAGE, f"{self.prog}: error: {one_line(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pctfuzz",
        description="Reference URL percent-encoder, property checks and fuzzing harness.",
        epilog=epilog(),
    )
    parser.add_argument("--version", action="version", version=f"pctfuzz {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True


    for module in COMMANDS:
        module.add_command(sub)
    return parser


def _stdout_gone() -> int:
    """The reader of stdout went away (``| head -1``): end quietly, exit 0.

    Python would print "BrokenPipeError" when it flushes stdout at exit; pointing the
    descriptor at /dev/null first makes that flush succeed (the standard recipe of the
    ``signal`` module's documentation)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return ExitCode.OK


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
        return ExitCode.USAGE
    except KeyboardInterrupt:
        return ExitCode.SIGINT
    except BrokenPipeError:
        return _stdout_gone()
    except SystemExit as exc:
        # No command exits this way: it is user code (an adapter, an accept file,
        # ``probe builtins:exit``), whose code must never read as pctfuzz's own.
        print(f"pctfuzz {args.command}: error: user code raised SystemExit("
              f"{one_line(repr(exc.code), 80)}); pctfuzz does not exit with its code",
              file=sys.stderr)
        return ExitCode.USAGE
    except Exception as exc:
        # A bug in pctfuzz: one line and its own exit code, never 1 ("a finding").
        if os.environ.get("PCTFUZZ_DEBUG"):
            import traceback

            traceback.print_exc()
        print(f"pctfuzz {args.command}: internal error: {type(exc).__name__}: "
              f"{one_line(str(exc), 500)} (please report; rerun with PCTFUZZ_DEBUG=1 for the "
              "traceback)", file=sys.stderr)
        return ExitCode.INTERNAL
    return code


#: Seconds the exit handlers get at the end of a command (``run``).
EXIT_GRACE = 5.0


def run() -> NoReturn:
    """The ``pctfuzz`` command: ``main``, then out with its exit code whatever the code
    under test left running. An adapter's library may start threads that never end (a
    worker pool) or hang in its exit handlers: ``pctfuzz fuzz`` printed its summary and
    never exited (a CI job hangs until its own timeout). So the exit handlers
    (pctfuzz's own, which close peer processes, and the libraries') get
    ``EXIT_GRACE`` seconds, and the process ends without waiting for threads or
    finalizers."""
    try:
        code = main()
    except SystemExit as exc:  # (argparse's usage errors)
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    _flush()
    watchdog = threading.Timer(EXIT_GRACE, os._exit, args=(code,))
    watchdog.daemon = True
    watchdog.start()
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    _flush()
    os._exit(code)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


if __name__ == "__main__":
    run()
