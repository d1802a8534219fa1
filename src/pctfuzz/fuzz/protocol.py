"""The lines a harness process writes on stderr for the campaign that runs it.

One home for both sides: ``fuzzing.Recorder`` prints these lines and ``campaign``
parses them, so the format cannot drift apart. Every line starts with ``pctfuzz: ``
so it never mixes with libFuzzer's own output.

``pctfuzz: NEW FINDING <kind> <id> <signature>``
    a finding was saved for the first time (``KNOWN`` instead of ``NEW``: the record
    existed already, from an earlier run or another process).
``pctfuzz: LOST <what>: <why>``
    something that should have been stored was not: a finding, or hits of one (a
    full disk, a read-only folder, an unreadable record). The campaign then ends
    with ``EXIT_INCOMPLETE``, never as a clean run.
``pctfuzz: ANSWERED <answered> <asked>``
    a differential harness's running count of the cases it asked and the
    implementation answered (not ``Unsupported``), about once a second.
``pctfuzz: UNDER TEST <reached> <total>``
    a differential harness's lines of the code under test (the adapter's
    ``modules_under_test``, not pctfuzz's own) reached so far, out of the lines in
    their functions, about once a second (``pctfuzz.fuzz.undertest``).
``pctfuzz: MODULE <module> <reached> <total> <executions>``
    the same per module under test, with the executions run so far: a module never
    reached (or that cannot be traced, ``total`` 0) is a warning of the campaign.
``pctfuzz: WARNING: <message>``
    anything else worth saying (an input not added to the corpus, a corrupt record
    moved aside); reported, not an error of the run.
"""

from __future__ import annotations

import re
import sys

__all__ = ["ANSWERED", "FINDING", "LOST", "MODULE", "UNDER_TEST", "answered_line",
           "finding_line", "lost_line", "module_line", "say", "under_test_line",
           "warning_line"]

FINDING = re.compile(r"^pctfuzz: (?P<word>NEW|KNOWN) FINDING (?P<kind>\S+) (?P<id>[0-9a-f]{16})"
                     r"(?: (?P<signature>.*))?$")
LOST = re.compile(r"^pctfuzz: LOST (?P<what>.*)$")
ANSWERED = re.compile(r"^pctfuzz: ANSWERED (?P<answered>\d+) (?P<asked>\d+)$")
UNDER_TEST = re.compile(r"^pctfuzz: UNDER TEST (?P<reached>\d+) (?P<total>\d+)$")
MODULE = re.compile(r"^pctfuzz: MODULE (?P<module>\S+) (?P<reached>\d+) (?P<total>\d+) "
                    r"(?P<executions>\d+)$")
WARNING_PREFIX = "pctfuzz: WARNING: "


def finding_line(is_new: bool, kind: str, ident: str, signature: str) -> str:
    return f"pctfuzz: {'NEW' if is_new else 'KNOWN'} FINDING {kind} {ident} {signature}"


def answered_line(answered: int, asked: int) -> str:
    return f"pctfuzz: ANSWERED {answered} {asked}"


def under_test_line(reached: int, total: int) -> str:
    return f"pctfuzz: UNDER TEST {reached} {total}"


def module_line(module: str, reached: int, total: int, executions: int) -> str:
    return f"pctfuzz: MODULE {module} {reached} {total} {executions}"


def lost_line(what: str, why: object) -> str:
    return f"pctfuzz: LOST {what}: {why}"


def warning_line(message: str) -> str:
    return f"{WARNING_PREFIX}{message}"


def say(line: str) -> None:
    """Write one protocol line to stderr, at once."""
    print(line, file=sys.stderr, flush=True)
