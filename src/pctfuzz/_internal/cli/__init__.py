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

from pctfuzz._internal.cli.exits import (
    EXIT_FOUND,
    EXIT_INCOMPLETE,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
)
from pctfuzz._internal.cli.main import build_parser, main

__all__ = ["EXIT_FOUND", "EXIT_INCOMPLETE", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE",
           "build_parser", "main"]
