"""The exit codes of the ``pctfuzz`` command and of the harness it starts: ``ExitCode``.

This enum is their one home in the code. What each code means for each command is
described once, for users, in docs/guide.md ("Exit codes"); ``pctfuzz --help`` ends
with ``epilog()``, rendered from here. The values are part of the command's contract
and never change.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode"]


class ExitCode(IntEnum):
    """How a ``pctfuzz`` command (or a harness process) ended. An ``int``: ``sys.exit``,
    ``subprocess`` and JSON see the number."""

    OK = 0
    """Success; fuzz/replay: nothing new, nothing reproduces."""
    FOUND = 1
    """fuzz: a new finding was saved; replay: an input reproduces or fails differently;
    ``divergences --check``: a pinned example no longer checks."""
    USAGE = 2
    """Usage error or unusable input (``UsageError``, or any ``PctfuzzError``)."""
    INCOMPLETE = 3
    """The run is incomplete: something was lost, unreadable, or never ran. It wins
    over ``FOUND``: a lost finding never reads as an ordinary run."""
    INTERNAL = 4
    """A bug in pctfuzz, reported as one line; never ``FOUND``."""
    SIGHUP = 129
    """Stopped by SIGHUP (128 + the signal's number, the shell's convention)."""
    SIGINT = 130
    """Stopped by SIGINT."""
    SIGTERM = 143
    """Stopped by SIGTERM."""

    @classmethod
    def stopped_by(cls, signum: int) -> ExitCode:
        """The code of a stop by the signal ``signum`` (SIGHUP, SIGINT or SIGTERM)."""
        return cls(128 + signum)

    @property
    def is_signal(self) -> bool:
        """A stop by a signal (128 + its number)."""
        return self > 128


#: A few words per code, for ``pctfuzz --help`` (``epilog``); the signals share one.
_SUMMARY = {
    ExitCode.OK: "ok / nothing new",
    ExitCode.FOUND: "finding or reproduction",
    ExitCode.USAGE: "usage or input error",
    ExitCode.INCOMPLETE: "run incomplete",
    ExitCode.INTERNAL: "internal error (a pctfuzz bug; PCTFUZZ_DEBUG=1 shows the traceback)",
}


def epilog() -> str:
    """The end of ``pctfuzz --help``: every code, on one line."""
    stops = [code for code in ExitCode if code.is_signal]
    return ("Exit codes: "
            + ", ".join(f"{code.value} {_SUMMARY[code]}" for code in ExitCode if not code.is_signal)
            + f", {'/'.join(str(c.value) for c in stops)} stopped by "
            + "/".join(c.name for c in stops) + ".")
