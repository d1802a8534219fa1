"""The ``pctfuzz`` command.

Its exit codes are the same for every subcommand: ``pctfuzz._internal.exits.ExitCode``
(docs/guide.md, "Exit codes", says what each means). A bug in pctfuzz exits 4, never
1, so a crash of the tool cannot read as "a finding" in CI. A reader of stdout that
goes away (``pctfuzz ... | head -1``) ends the command quietly.
"""

from pctfuzz._internal.cli.main import build_parser, main
from pctfuzz._internal.exits import ExitCode

__all__ = ["ExitCode", "build_parser", "main"]
