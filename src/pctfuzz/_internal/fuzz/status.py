"""What a running campaign shows a person (issue 13, item 4).

``Board`` holds the latest ``TargetStats`` of each target and renders them: a head
line (elapsed, remaining, new findings) and one line per target with exec/s, libFuzzer's
coverage, the lines of the code under test reached (``undertest``), the share of
cases the implementation answered, and its findings; below them, a warning for each
module under test the campaign does not reach (``TargetStats.not_reached``). Two ways
to show it:

- ``LiveStatus``: on a terminal, the lines are redrawn in place (``rich.live``) and
  each new finding is printed once, as one readable line, above them;
- ``PlainStatus``: otherwise (a pipe, a CI log), one line per target at most every
  ``PlainStatus.EVERY`` seconds, and each new finding as one line at once.

Both take the same ``describe(id)`` callback for a finding's one-line description
(the command line builds it from the store: this layer does not render records).
"""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from pctfuzz._internal.fuzz.stats import TargetStats
from pctfuzz._internal.text import one_line

__all__ = ["Board", "LiveStatus", "PlainStatus", "Status", "status_for"]

Describe = Callable[[str], str]


def _count(n: int) -> str:
    return f"{n:,}"


def _under_test(stats: TargetStats) -> str:
    if stats.under_test is None or not stats.under_test_total:
        return "-"
    share = stats.under_test / stats.under_test_total
    return f"{stats.under_test}/{stats.under_test_total} {share:.0%}"


def _findings(stats: TargetStats) -> str:
    parts = []
    if stats.new_findings:
        parts.append(f"{len(stats.new_findings)} new")
    if stats.known_findings:
        parts.append(f"{len(stats.known_findings)} known")
    return ", ".join(parts) or "0"


class Board:
    """The latest figures of each target of a campaign, and their text."""

    HEAD = ("target", "execs", "exec/s", "cov", "under test (lines)", "answered", "findings")

    def __init__(self, targets: Sequence[str], max_time: float, impl: str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.targets = list(targets)
        self.max_time = max_time
        self.impl = impl
        self.clock = clock
        self.started = clock()
        self.stats: dict[str, TargetStats] = {}
        self.seen: set[str] = set()  # finding ids already announced
        self.lock = threading.Lock()

    def update(self, stats: TargetStats) -> list[str]:
        """Keep ``stats`` as its target's latest; returns the ids of findings new to
        this campaign not announced before (each is returned once)."""
        with self.lock:
            self.stats[stats.target] = stats
            fresh = [f for f in stats.new_findings if f not in self.seen]
            self.seen.update(fresh)
            return fresh

    def head(self) -> str:
        elapsed = self.clock() - self.started
        left = max(0.0, self.max_time - elapsed)
        new = len(self.seen)
        return (f"pctfuzz fuzz: {elapsed:.0f} s of {self.max_time:g} s, {left:.0f} s left; "
                f"{self.impl}; {new} new finding{'s' if new != 1 else ''}")

    def row(self, name: str) -> tuple[str, ...] | None:
        """The figures of ``name``, None while it has not run yet."""
        stats = self.stats.get(name)
        if stats is None:
            return None
        rate = stats.answered_rate
        return (name, _count(stats.execs), _count(stats.exec_per_s), str(stats.cov),
                _under_test(stats), "-" if rate is None else f"{rate:.0%}", _findings(stats))

    def lines(self) -> list[str]:
        """The head line, then a table of one line per target."""
        with self.lock:
            rows = {name: self.row(name) for name in self.targets}
            head = self.head()
        shown = [self.HEAD, *(r for r in rows.values() if r is not None)]
        widths = [max(len(r[i]) for r in shown) for i in range(len(self.HEAD))]

        def line(row: tuple[str, ...]) -> str:
            # the name left-aligned, figures right-aligned, so digits line up
            return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                             for i, (c, w) in enumerate(zip(row, widths, strict=True)))

        table = [line(self.HEAD)] + [
            line(row) if row is not None else f"{name.ljust(widths[0])}  waiting"
            for name, row in rows.items()]
        return [head, *table, *self.warnings()]

    def warnings(self) -> list[str]:
        """One line per module under test that a target does not reach
        (``TargetStats.reach_lines``)."""
        with self.lock:
            stats = [self.stats[name] for name in self.targets if name in self.stats]
        return [one_line(line, 300) for s in stats for line in s.reach_lines()]

    def plain(self, name: str) -> str:
        """One target's figures as one plain line (``PlainStatus``)."""
        elapsed = self.clock() - self.started
        with self.lock:
            stats = self.stats[name]
        rate = stats.answered_rate
        answered = f" answered={rate:.0%}" if rate is not None else ""
        under = (f" under_test={stats.under_test}/{stats.under_test_total}"
                 if stats.under_test is not None else "")
        return (f"[{name}] {elapsed:.0f}/{self.max_time:g}s execs={stats.execs} "
                f"exec/s={stats.exec_per_s} cov={stats.cov}{under} corpus={stats.corpus_units} "
                f"findings={stats.findings}{answered}")


def finding_line(ident: str, target: str, describe: Describe | None) -> str:
    """A new finding as one readable line."""
    text = describe(ident) if describe is not None else ident
    return one_line(f"NEW FINDING [{target}] {text}", 300)


class Status:
    """What ``run_campaign`` calls with each target's stats (its ``progress``)."""

    def __init__(self, board: Board, describe: Describe | None = None) -> None:
        self.board = board
        self.describe = describe

    def __call__(self, stats: TargetStats) -> None:
        raise NotImplementedError

    def __enter__(self) -> Status:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


#: The figures of a warning, which change while its reason does not (``PlainStatus``).
_COUNTS = re.compile(r"\d[\d,]*")


class PlainStatus(Status):
    """Plain lines on ``out``: findings at once, figures every ``EVERY`` seconds."""

    EVERY = 5.0

    def __init__(self, board: Board, describe: Describe | None = None, *,
                 out: TextIO | None = None, quiet: bool = False) -> None:
        super().__init__(board, describe)
        self.out = out
        self.quiet = quiet  # -q: the findings only
        self.last: dict[str, float] = {}
        self.warned: set[str] = set()

    def __call__(self, stats: TargetStats) -> None:
        out = self.out or sys.stderr
        for ident in self.board.update(stats):
            print(finding_line(ident, stats.target, self.describe), file=out, flush=True)
        for warning in self.board.warnings():  # each once, at once
            # (once whatever its counts say: "0 of 3205 lines reached after N
            # executions" was printed again at every refresh as N grew)
            key = _COUNTS.sub("#", warning)
            if key not in self.warned and not self.quiet:
                self.warned.add(key)
                print(warning, file=out, flush=True)
        now = self.board.clock()
        if not self.quiet and now - self.last.get(stats.target, -self.EVERY) >= self.EVERY:
            self.last[stats.target] = now
            print(self.board.plain(stats.target), file=out, flush=True)


class _Picture:
    """The board as rich redraws it (``__rich__`` is called on each refresh)."""

    def __init__(self, board: Board) -> None:
        self.board = board

    def __rich__(self) -> Any:
        from rich.text import Text

        return Text("\n".join(self.board.lines()), no_wrap=True, overflow="ellipsis")


class LiveStatus(Status):
    """The board redrawn in place on a terminal, findings printed above it."""

    def __init__(self, board: Board, describe: Describe | None = None, *,
                 out: TextIO | None = None) -> None:
        from rich.console import Console
        from rich.live import Live

        super().__init__(board, describe)
        self.console = Console(file=out or sys.stderr, highlight=False)
        self.live = Live(_Picture(board), console=self.console, refresh_per_second=4,
                         transient=False, redirect_stdout=False, redirect_stderr=False)

    def __call__(self, stats: TargetStats) -> None:
        for ident in self.board.update(stats):
            self.live.console.print(finding_line(ident, stats.target, self.describe),
                                    markup=False, highlight=False, soft_wrap=True)

    def __enter__(self) -> Status:
        self.live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.stop()  # the last picture stays on the screen above the summary


def status_for(board: Board, describe: Describe | None, *, quiet: bool,
               out: TextIO | None = None) -> Status:
    """The live status on a terminal (unless ``quiet``), else plain lines."""
    stream = out or sys.stderr
    if not quiet and stream.isatty():
        return LiveStatus(board, describe, out=stream)
    return PlainStatus(board, describe, out=stream, quiet=quiet)
