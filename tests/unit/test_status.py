"""The campaign status (``pctfuzz._internal.fuzz.status``) fed made-up progress: its text."""

from __future__ import annotations

import io

from pctfuzz._internal.fuzz.stats import TargetStats
from pctfuzz._internal.fuzz.status import Board, LiveStatus, PlainStatus, status_for


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _board(clock: Clock) -> Board:
    return Board(["diff_encode", "encode"], 60, "urllib", clock=clock)


def _diff(**kw: object) -> TargetStats:
    values: dict[str, object] = dict(execs=41230, exec_per_s=4310, cov=343, asked=200,
                                     answered=196, under_test=35, under_test_total=579)
    values.update(kw)
    return TargetStats("diff_encode", **values)  # type: ignore[arg-type]


def test_board_shows_time_figures_and_a_waiting_target() -> None:
    clock = Clock()
    board = _board(clock)
    clock.now += 12
    assert board.update(_diff(new_findings=["0123456789abcdef"])) == ["0123456789abcdef"]
    assert board.update(_diff(new_findings=["0123456789abcdef"])) == []  # announced once
    assert board.lines() == [
        "pctfuzz fuzz: 12 s of 60 s, 48 s left; urllib; 1 new finding",
        "target        execs  exec/s  cov  under test (lines)  answered  findings",
        "diff_encode  41,230   4,310  343           35/579 6%       98%     1 new",
        "encode       waiting",
    ]
    board.update(TargetStats("encode", execs=7, exec_per_s=3, cov=90,
                             known_findings=["fedcba9876543210"]))
    clock.now += 100  # past the budget: nothing negative
    lines = board.lines()
    assert lines[0] == "pctfuzz fuzz: 112 s of 60 s, 0 s left; urllib; 1 new finding"
    assert lines[3].split() == ["encode", "7", "3", "90", "-", "-", "1", "known"]


def test_plain_status_prints_findings_at_once_and_figures_every_few_seconds() -> None:
    clock = Clock()
    out = io.StringIO()
    status = PlainStatus(_board(clock), lambda ident: f"{ident} what it is", out=out)
    status(_diff())
    clock.now += 1
    status(_diff(execs=50000))  # within EVERY seconds of the last line: not printed
    clock.now += 1
    status(_diff(new_findings=["0123456789abcdef"]))
    clock.now += PlainStatus.EVERY
    status(_diff(new_findings=["0123456789abcdef"]))
    assert out.getvalue().splitlines() == [
        "[diff_encode] 0/60s execs=41230 exec/s=4310 cov=343 under_test=35/579 corpus=0 "
        "findings=0 answered=98%",
        "NEW FINDING [diff_encode] 0123456789abcdef what it is",
        "[diff_encode] 7/60s execs=41230 exec/s=4310 cov=343 under_test=35/579 corpus=0 "
        "findings=1 answered=98%",
    ]


def test_quiet_status_prints_the_findings_only() -> None:
    out = io.StringIO()
    status = status_for(_board(Clock()), None, quiet=True, out=out)
    assert isinstance(status, PlainStatus)
    with status:
        status(_diff())
        status(_diff(new_findings=["0123456789abcdef"]))
    assert out.getvalue() == "NEW FINDING [diff_encode] 0123456789abcdef\n"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_board_is_drawn_live_with_findings_above_it() -> None:
    out = Terminal()
    board = _board(Clock())
    status = status_for(board, lambda ident: f"{ident} described", quiet=False, out=out)
    assert isinstance(status, LiveStatus)
    with status:
        status(_diff(new_findings=["0123456789abcdef"]))
    text = out.getvalue()
    assert "\x1b[" in text  # cursor movement: redrawn in place
    assert "NEW FINDING [diff_encode] 0123456789abcdef described" in text
    # the finding is printed above the last picture of the board
    last = text.rindex("pctfuzz fuzz: 0 s of 60 s")
    assert text.index("NEW FINDING") < last
    assert "diff_encode  41,230   4,310  343           35/579 6%       98%     1 new" in text[last:]
    assert status_for(board, None, quiet=False, out=io.StringIO()).__class__ is PlainStatus
