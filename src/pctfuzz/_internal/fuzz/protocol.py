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
    with ``ExitCode.INCOMPLETE``, never as a clean run.
``pctfuzz: PEER FAILED <message>``
    a peer process failed with no input to blame (it died, was killed, or wrote a
    line nobody asked for, and a fresh peer answered the input): the campaign then
    ends with ``ExitCode.INCOMPLETE``.
``pctfuzz: ANSWERED <answered> <asked> [<deferred>]``
    a differential harness's running count of the cases it asked and the
    implementation answered (not ``Unsupported``), about once a second; and of the
    diverging inputs it left unnamed, as naming had its share of the time
    (``checks.known.NamingBudget``).
``pctfuzz: UNDER TEST <reached> <total>``
    a differential harness's lines of the code under test (the adapter's
    ``modules_under_test``, not pctfuzz's own) reached so far, out of the lines in
    their functions, about once a second (``pctfuzz._internal.fuzz.undertest``).
``pctfuzz: MODULE <module> <reached> <total> <executions>``
    the same per module under test, with the executions run so far: a module never
    reached (or that cannot be traced, ``total`` 0) is a warning of the campaign.
``pctfuzz: WARNING: <message>``
    anything else worth saying (an input not added to the corpus, a corrupt record
    moved aside); reported, not an error of the run.
``pctfuzz: EXECUTIONS <count>``
    the harness's own count of the inputs it ran, written once as it ends (at
    libFuzzer's exit, a stop, or SIGTERM). The campaign's "ran 0 executions" verdict
    rests on it (or on libFuzzer's final ``stat::number_of_executed_units``), never on
    the status lines alone, which a loaded machine may deliver late or not at all.

The other direction, campaign to harness, is ``HarnessSettings``: the one hand-off of
the project's settings to a harness process, as environment variables (a libFuzzer
child has no other channel; OSS-Fuzz scripts set the same variables).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field

from pctfuzz._internal.accept import ACCEPT_ENV
from pctfuzz._internal.formats import SETS_ENV
from pctfuzz._internal.oracles.process import peer_failed_line
from pctfuzz._internal.settings import RunSettings

__all__ = ["ANSWERED", "EXECUTIONS", "FINDING", "LOST", "LOST_HITS", "MODULE", "PEER_FAILED",
           "UNDER_TEST", "HarnessSettings", "answered_line", "executions_line", "finding_line",
           "lost_hits", "lost_line", "module_line", "peer_failed_line", "say",
           "under_test_line", "warning_line"]

FINDING = re.compile(r"^pctfuzz: (?P<word>NEW|KNOWN) FINDING (?P<kind>\S+) (?P<id>[0-9a-f]{16})"
                     r"(?: (?P<signature>.*))?$")
LOST = re.compile(r"^pctfuzz: LOST (?P<what>.*)$")
#: What a ``LOST`` line says of a finding's hits (``lost_hits``), its reason after it.
LOST_HITS = re.compile(r"^(?P<count>\d+) HIT\(S\) (?P<rest>of .*)$")
PEER_FAILED = re.compile(r"^pctfuzz: PEER FAILED (?P<what>.*)$")
ANSWERED = re.compile(r"^pctfuzz: ANSWERED (?P<answered>\d+) (?P<asked>\d+)"
                      r"(?: (?P<deferred>\d+))?$")
UNDER_TEST = re.compile(r"^pctfuzz: UNDER TEST (?P<reached>\d+) (?P<total>\d+)$")
EXECUTIONS = re.compile(r"^pctfuzz: EXECUTIONS (?P<count>\d+)$")
MODULE = re.compile(r"^pctfuzz: MODULE (?P<module>\S+) (?P<reached>\d+) (?P<total>\d+) "
                    r"(?P<executions>\d+)(?: (?P<compiled>\d+))?$")
WARNING_PREFIX = "pctfuzz: WARNING: "


def finding_line(is_new: bool, kind: str, ident: str, signature: str) -> str:
    return f"pctfuzz: {'NEW' if is_new else 'KNOWN'} FINDING {kind} {ident} {signature}"


def answered_line(answered: int, asked: int, deferred: int = 0) -> str:
    """Cases answered and asked so far; ``deferred``: diverging inputs left unnamed
    (``checks.known.NamingBudget``)."""
    return f"pctfuzz: ANSWERED {answered} {asked} {deferred}"


def under_test_line(reached: int, total: int) -> str:
    return f"pctfuzz: UNDER TEST {reached} {total}"


def executions_line(count: int) -> str:
    return f"pctfuzz: EXECUTIONS {count}"
def module_line(module: str, reached: int, total: int, executions: int,
                compiled: int = 0) -> str:
    return f"pctfuzz: MODULE {module} {reached} {total} {executions} {compiled}"


def lost_line(what: str, why: object) -> str:
    return f"pctfuzz: LOST {what}: {why}"


def lost_hits(count: int, ident: str) -> str:
    """The ``what`` of a ``lost_line`` for ``count`` hits of finding ``ident``."""
    return f"{count} HIT(S) of {ident}"


def warning_line(message: str) -> str:
    return f"{WARNING_PREFIX}{message}"


def say(line: str) -> None:
    """Write one protocol line to stderr, at once."""
    print(line, file=sys.stderr, flush=True)


#: The environment variables of the hand-off (``HarnessSettings``).
IMPL_ENV = "PCTFUZZ_IMPL"
#: The memory a harness process, or a replayed stop finding's process, may hold (MiB;
#: libFuzzer's ``-rss_limit_mb`` default): more is an ``oom``.
DEFAULT_RSS_LIMIT_MB = 2048
FAULT_ENV = "PCTFUZZ_FAULT"
FINDINGS_ENV = "PCTFUZZ_FINDINGS"
CORPUS_ENV = "PCTFUZZ_CORPUS"
ROOT_ENV = "PCTFUZZ_PROJECT_ROOT"
PARENT_ENV = "PCTFUZZ_PARENT_PID"
NO_ACCEPTED_ENV = "PCTFUZZ_NO_ACCEPTED"
NO_GRAMMAR_ENV = "PCTFUZZ_NO_GRAMMAR"
BREADCRUMB_ENV = "PCTFUZZ_BREADCRUMB"
ANSWER_ONLY_ENV = "PCTFUZZ_ANSWER_ONLY"
_ALL_ENV = (IMPL_ENV, FAULT_ENV, FINDINGS_ENV, CORPUS_ENV, ACCEPT_ENV, SETS_ENV, ROOT_ENV,
            PARENT_ENV, NO_ACCEPTED_ENV, NO_GRAMMAR_ENV, BREADCRUMB_ENV, ANSWER_ONLY_ENV)


@dataclass(frozen=True)
class HarnessSettings:
    """What a harness process is told by the process that starts it (``pctfuzz fuzz``,
    ``corpus merge``): the implementation (``PCTFUZZ_IMPL``; a differential target's
    adapter, default urllib) or fault (``PCTFUZZ_FAULT``; an invariant target's
    deliberately wrong codec), the store (``PCTFUZZ_FINDINGS``: record mode;
    ``PCTFUZZ_CORPUS``), the accepted-differences file (``PCTFUZZ_ACCEPT``), the sets of
    ``--set`` / ``[tool.pctfuzz] sets`` (``PCTFUZZ_SETS``, JSON ``{label: spec}``), the
    project root to import the adapter from (``PCTFUZZ_PROJECT_ROOT``), the parent's
    pid (``PCTFUZZ_PARENT_PID``, to die with it), ``--no-accepted``
    (``PCTFUZZ_NO_ACCEPTED=1``: every accepted difference ignored) and ``--no-grammar``
    (``PCTFUZZ_NO_GRAMMAR=1``: libFuzzer's byte mutations alone, no dictionary; by
    default the grammar-aware mutator of ``fuzz.mutator`` and the target's
    dictionary), and the file a record-mode differential harness keeps its breadcrumb
    in (``PCTFUZZ_BREADCRUMB``: the question it is asking its implementation,
    ``checks.breadcrumb``; one per process, in its private artifacts folder), and
    ``PCTFUZZ_ANSWER_ONLY=1``: the harness only asks its implementation each input
    (``Bound.answer``), nothing compared or recorded, as the campaign confirms a
    timeout (``fuzz.campaign``).
    ``to_env`` writes them, ``from_env`` reads them: the only place either side
    touches these variables."""

    impl: str | None = None
    fault: str | None = None
    findings: str | None = None
    corpus: str | None = None
    accept: str | None = None
    sets: Mapping[str, str] = field(default_factory=dict)
    root: str | None = None
    parent_pid: int | None = None
    no_accepted: bool = False
    grammar: bool = True
    breadcrumb: str | None = None
    answer_only: bool = False

    def to_env(self, base: Mapping[str, str]) -> dict[str, str]:
        """``base`` (the parent's environment) with these settings, and none of an
        earlier hand-off's left over (a harness started from a harness's environment
        must not inherit its parent's store)."""
        env = {k: v for k, v in base.items() if k not in _ALL_ENV}
        values = {IMPL_ENV: self.impl, FAULT_ENV: self.fault, FINDINGS_ENV: self.findings,
                  CORPUS_ENV: self.corpus, ACCEPT_ENV: self.accept,
                  SETS_ENV: json.dumps(dict(self.sets)) if self.sets else None,
                  ROOT_ENV: self.root,
                  PARENT_ENV: None if self.parent_pid is None else str(self.parent_pid),
                  NO_ACCEPTED_ENV: "1" if self.no_accepted else None,
                  NO_GRAMMAR_ENV: None if self.grammar else "1",
                  BREADCRUMB_ENV: self.breadcrumb,
                  ANSWER_ONLY_ENV: "1" if self.answer_only else None}
        env.update({k: v for k, v in values.items() if v})
        return env

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> HarnessSettings:
        """The settings a harness was started with (``env``: its ``os.environ``)."""
        sets: dict[str, str] = {}
        if env.get(SETS_ENV):
            try:
                decoded = json.loads(env[SETS_ENV])
            except ValueError:
                decoded = None
            if not isinstance(decoded, dict) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in decoded.items()):
                raise ValueError(f"{SETS_ENV} must be a JSON object of set specs")
            sets = decoded
        parent = env.get(PARENT_ENV) or None
        return cls(impl=env.get(IMPL_ENV) or None, fault=env.get(FAULT_ENV) or None,
                   findings=env.get(FINDINGS_ENV) or None, corpus=env.get(CORPUS_ENV) or None,
                   accept=env.get(ACCEPT_ENV) or None, sets=sets,
                   root=env.get(ROOT_ENV) or None,
                   parent_pid=int(parent) if parent and parent.isdigit() else None,
                   no_accepted=env.get(NO_ACCEPTED_ENV) == "1",
                   grammar=env.get(NO_GRAMMAR_ENV) != "1",
                   breadcrumb=env.get(BREADCRUMB_ENV) or None,
                   answer_only=env.get(ANSWER_ONLY_ENV) == "1")

    def activate(self) -> None:
        """Apply the settings to this (harness) process: the project root importable
        (its adapter module). The accept file, ``--no-accepted`` and the declared sets
        are no setting of the process: they reach the bound target in ``run_settings``."""
        if self.root and self.root not in sys.path:
            sys.path.insert(0, self.root)

    @property
    def run_settings(self) -> RunSettings:
        """What is in force for the harness's run (``settings.RunSettings``), which the
        driver hands to ``Target.bind``."""
        return RunSettings.of(self.accept, not self.no_accepted, self.sets)
