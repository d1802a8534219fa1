"""One libFuzzer process: its command line, and what its stderr says.

``watch`` reads libFuzzer's status lines (``#N NEW cov: ... exec/s: ...``) and the
harness's protocol lines (``pctfuzz._internal.fuzz.protocol``) into a ``TargetStats`` while the
process runs. A process's executions are the largest of its last status line,
libFuzzer's final stats and the harness's own ``EXECUTIONS`` count: a process stopped
while it loads its seed corpus prints no status line, yet ran every seed it loaded.
The harness runs in record mode (``pctfuzz._internal.fuzz.driver``): findings are saved as they
happen and fuzzing goes on. When libFuzzer itself stops on an input
(per-input timeout, RSS limit, an uncaught error, a deadly signal) ``record_death``
saves that input as a finding of kind timeout/oom/crash: for a crash in a question the
harness asked its implementation beyond libFuzzer's input, that question, read off the
process's breadcrumb (``checks.breadcrumb``).
"""

from __future__ import annotations

import base64
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from pctfuzz._internal.cases import Case, EncodeCase
from pctfuzz._internal.checks.breadcrumb import read_breadcrumb
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.formats import AnswerDomain, encode_to_bytes_within
from pctfuzz._internal.fuzz.protocol import (
    ANSWERED,
    EXECUTIONS,
    FINDING,
    LOST,
    MODULE,
    PEER_FAILED,
    UNDER_TEST,
    WARNING_PREFIX,
)
from pctfuzz._internal.fuzz.stats import ModuleReach, TargetStats
from pctfuzz._internal.fuzz.supervisor import Supervisor
from pctfuzz._internal.operations import get_operation
from pctfuzz._internal.targets import Target, get_target

if TYPE_CHECKING:
    from pctfuzz._internal.store import FindingStore

__all__ = ["BREADCRUMB", "PROGRESS_SECONDS", "STARTUP", "command", "record_death",
           "rerun_command", "watch"]

#: The file a process keeps its breadcrumb in, in its artifacts folder (``checks.breadcrumb``).
BREADCRUMB = "asking.crumb"

#: libFuzzer's ``-max_len``: the longest input a harness is given (``command``).
MAX_LEN = 8192

#: Seconds between two progress reports of a running process.
PROGRESS_SECONDS = 1.0

_MAX_ERRORS = 20

_STATUS = re.compile(
    r"^#(?P<execs>\d+)\s+(?P<event>\w+)\s+cov: (?P<cov>\d+) ft: (?P<ft>\d+) "
    r"corp: (?P<units>\d+)/(?P<size>\S+).*?exec/s: (?P<eps>\d+)"
)
_ARTIFACT = re.compile(r"Test unit written to (?P<path>\S+)")
#: libFuzzer ran an input file given alone through (``rerun_command``).
_EXECUTED = re.compile(r"^Executed \S.* in \d+ ms$")
#: libFuzzer's run is over (``-max_total_time``, ``-runs``; or every input file given
#: has run: a rerun's): no input is being run after it.
_DONE = re.compile(r"^Done \d+ runs in \d+ second|^\*\*\* NOTE: fuzzing was not performed")
#: libFuzzer starts to run its seed corpus (``INITED`` once it has run all of it).
_LOADING = re.compile(r"^INFO:\s+\d+ files found in ")
_DEATH = (
    ("timeout", re.compile(r"ERROR: libFuzzer: timeout")),
    ("oom", re.compile(r"ERROR: libFuzzer: (out-of-memory|malloc)")),
    ("crash", re.compile(r"ERROR: libFuzzer: |=== Uncaught Python exception")),
)

#: About how long a harness process takes to start (Python, atheris, instrumentation).
STARTUP = 1.0


def command(target: str, harness: Path | None, out_dir: Path, seconds: int,
            artifacts: Path, timeout: int, rss_limit_mb: int,
            extra: Sequence[str], inputs: Sequence[Path] = ()) -> list[str]:
    """The libFuzzer process of one slice: ``python -m pctfuzz._internal.harness TARGET`` (it
    adds the packaged dictionary), or a ``fuzz_<target>.py`` script of ``harness``.
    libFuzzer writes new inputs into ``out_dir`` and only reads ``inputs`` (folders
    of seed inputs: ``staging.stage_for_reading``)."""
    return [
        *_harness(target, harness),
        str(out_dir),
        *map(str, inputs),
        f"-max_total_time={seconds}",
        f"-timeout={timeout}",
        f"-rss_limit_mb={rss_limit_mb}",
        f"-artifact_prefix={artifacts}/",
        # Room for the grammar's longest shapes (fuzz.mutator: a 4097-byte value, 2048
        # fields); libFuzzer's own mutations stay near each input's size.
        f"-max_len={MAX_LEN}",
        "-print_final_stats=1",
        # SIGTERM (the deadline, a stop) is the harness's own: it flushes its hit
        # counts before it exits (fuzzing.main); libFuzzer's handler would _Exit first.
        "-handle_term=0",
        *extra,
    ]


def rerun_command(target: str, harness: Path | None, data: Path, timeout: int,
                  rss_limit_mb: int, artifacts: Path) -> list[str]:
    """A libFuzzer process that runs the harness once on the input file ``data`` (given
    a file, libFuzzer runs it and exits: no fuzzing, no corpus), with a per-input
    ``timeout`` of its own (``campaign``'s confirmation of a timeout); what it writes
    if it dies goes into ``artifacts``, as ``command``'s does."""
    return [*_harness(target, harness), str(data), f"-timeout={timeout}",
            f"-rss_limit_mb={rss_limit_mb}", f"-artifact_prefix={artifacts}/",
            f"-max_len={MAX_LEN}", "-handle_term=0"]


def _harness(target: str, harness: Path | None) -> list[str]:
    """The command of a harness process of ``target``, before libFuzzer's flags."""
    if harness is None:
        return [sys.executable, "-m", "pctfuzz._internal.harness", target]
    cmd = [sys.executable, str(harness / f"fuzz_{target}.py")]
    dictionary = harness / f"{target}.dict"
    if dictionary.is_file():
        cmd.append(f"-dict={dictionary}")
    return cmd


def watch(cmd: list[str], env: dict[str, str], stats: TargetStats, base_execs: int,
          progress: Callable[[TargetStats], None] | None,
          supervisor: Supervisor, *,
          log: Path | None = None,
          until: float | None = None) -> tuple[str | None, Path | None, int]:
    """Run one libFuzzer process; returns (why it died or None, artifact, execs). A
    process the supervisor stopped did not die on an input. ``progress`` gets the
    stats about once a second, and at once when a finding is reported; ``log``
    (``-v``) is a file that every raw stderr line is appended to; ``until``: the end
    of its slice, enforced while it runs its seed corpus (``Supervisor.start``). A
    process that ends before it has run its whole seed corpus (no ``INITED``) counts
    its executions in ``stats.corpus_run``."""
    proc = supervisor.start(cmd, env, until=until)
    if proc is None:
        return None, None, 0
    assert proc.stderr is not None
    raw: TextIO | None = None
    if log is not None:
        try:
            raw = log.open("a", encoding="utf-8", errors="replace", buffering=1)
        except OSError as exc:  # the log is a help, not the campaign: say so, go on
            if len(stats.errors) < _MAX_ERRORS:
                stats.errors.append(f"no log file {log}: {exc.strerror or exc}")
    try:
        return _read(proc, stats, base_execs, progress, supervisor, raw)
    finally:
        if raw is not None:
            raw.close()


def _read(proc: subprocess.Popen[str], stats: TargetStats, base_execs: int,
          progress: Callable[[TargetStats], None] | None, supervisor: Supervisor,
          raw: TextIO | None) -> tuple[str | None, Path | None, int]:
    """Read one process's stderr to its end: libFuzzer's lines (status, the input it
    stopped on, why it died) here, the harness's own (``fuzz.protocol``) in
    ``_HarnessLines``; then why it ended (``_ended``)."""
    assert proc.stderr is not None
    death: str | None = None
    at_exit: str | None = None  # a death after libFuzzer's run was done (``_DONE``)
    done = False
    artifact: Path | None = None
    execs = 0
    last_progress = 0.0
    tail: list[str] = []
    inited = False
    harness = _HarnessLines(stats, base_execs)
    for line in proc.stderr:
        if raw is not None:
            raw.write(line if line.endswith("\n") else line + "\n")
        line = line.rstrip("\n")
        tail = [*tail[-30:], line]
        urgent = False
        if m := _STATUS.match(line):
            execs = int(m["execs"])
            if m["event"] == "INITED":
                if not inited:
                    inited = True
                    supervisor.loaded(proc)
                if stats.initial_cov is None:
                    stats.initial_cov = int(m["cov"])
            stats.execs = base_execs + execs
            stats.exec_per_s = int(m["eps"])
            stats.cov = max(stats.cov, int(m["cov"]))
            stats.ft = max(stats.ft, int(m["ft"]))
            stats.corpus_units = int(m["units"])
        elif (said := harness.read(line)) is not None:
            urgent = said.urgent
            if said.execs:
                execs = max(execs, said.execs)
                stats.execs = base_execs + execs
        elif m := _ARTIFACT.search(line):
            artifact = Path(m["path"])
        elif _EXECUTED.match(line):  # (one input file, run through: an execution)
            execs = max(execs, 1)
        elif _DONE.match(line):
            done = True
        elif not inited and _LOADING.match(line):
            supervisor.loading(proc)
        elif death is None and at_exit is None:
            kind = next((kind for kind, pattern in _DEATH if pattern.search(line)), None)
            if done:
                at_exit = kind
            else:
                death = kind
        if m2 := re.match(r"^stat::number_of_executed_units:\s+(\d+)", line):
            execs = max(execs, int(m2[1]))
        if progress and (urgent or time.monotonic() - last_progress > PROGRESS_SECONDS):
            last_progress = time.monotonic()
            progress(stats)
    code = proc.wait()
    if not inited:  # stopped (or dead) before it had run its whole seed corpus
        stats.corpus_run = max(stats.corpus_run, execs)
    if supervisor.finished(proc):
        return None, None, execs
    death = _ended(stats, code, death, done, at_exit, tail)
    return death, artifact if death is not None else None, execs


def _ended(stats: TargetStats, code: int, death: str | None, done: bool,
           at_exit: str | None, tail: list[str]) -> str | None:
    """Why a process the supervisor did not stop ended: ``death`` (libFuzzer said it
    stopped on an input), a crash (it exited non-zero without saying: its last lines
    kept as an error), or None. ``done``: libFuzzer's run was over, and a death then
    (``at_exit``, or an exit code) is no input's."""
    if death is None and done and (at_exit is not None or code != 0):
        # Its run was over: the process died on its way out (a compiled library's static
        # destructor, an atexit handler), and the input libFuzzer writes then is whatever
        # it ran last. Said, never a finding of that input (a held-out JavaScript
        # engine's every process end was a crash finding of a harmless input).
        note = (f"the harness process died ({at_exit or f'exit {code}'}) after its run was "
                "done, on its way out (a library's exit code: a static destructor, an "
                "atexit handler); no input caused it, none is recorded")
        if note not in stats.errors:
            stats.errors.append(note)
        return None
    if death is None and code != 0:
        said = f"exit {code}: " + " | ".join(tail[-5:])
        if said in stats.errors:  # (a restarted process saying it again is one error,
            stats.errors.remove(said)  # kept last: what the last process said)
        stats.errors.append(said)
        return "crash"
    return death


class _HarnessLines:
    """The lines a harness says of itself (``fuzz.protocol``), read into ``stats``:
    its findings, answered counts, executions, code under test reached, what it lost,
    its peers' failures and warnings. A restarted process counts from 0 again, so its
    counts are added to what ``stats`` held when it started."""

    def __init__(self, stats: TargetStats, base_execs: int) -> None:
        self.stats, self.base_execs = stats, base_execs
        self.base_asked, self.base_answered = stats.asked, stats.answered
        self.base_deferred = stats.deferred
        self.base_runs = {name: reach.executions for name, reach in stats.modules.items()}

    def read(self, line: str) -> _Said | None:
        """What ``line`` said (None: not a harness line)."""
        stats = self.stats
        if m := FINDING.match(line):
            # A restarted process, or another process of this target, prints KNOWN
            # for a finding this campaign saved: it is counted once, as new.
            if m["word"] == "NEW":
                if m["id"] not in stats.new_findings:
                    stats.new_findings.append(m["id"])
                if m["id"] in stats.known_findings:
                    stats.known_findings.remove(m["id"])
            elif m["id"] not in stats.new_findings and m["id"] not in stats.known_findings:
                stats.known_findings.append(m["id"])
            return _Said(urgent=True)  # a finding is shown at once, not at the next refresh
        if m := ANSWERED.match(line):  # running counts of this process
            stats.asked = self.base_asked + int(m["asked"])
            stats.answered = self.base_answered + int(m["answered"])
            stats.deferred = self.base_deferred + int(m["deferred"] or 0)
        elif m := EXECUTIONS.match(line):  # the harness's own count, as it ends
            return _Said(execs=int(m["count"]))
        elif m := UNDER_TEST.match(line):  # lines of the code under test reached
            stats.under_test = max(stats.under_test or 0, int(m["reached"]))
            stats.under_test_total = int(m["total"])
        elif m := MODULE.match(line):  # the same, per module under test
            reach = stats.modules.setdefault(m["module"], ModuleReach())
            reach.reached = max(reach.reached, int(m["reached"]))
            reach.total = int(m["total"])
            reach.executions = self.base_runs.get(m["module"], 0) + int(m["executions"])
            reach.compiled = int(m["compiled"] or 0)
        elif m := LOST.match(line):
            stats.add_lost(m["what"], _MAX_ERRORS)
        elif m := PEER_FAILED.match(line):
            if m["what"] not in stats.peer_failures and len(stats.peer_failures) < _MAX_ERRORS:
                stats.peer_failures.append(m["what"])
        elif line.startswith(WARNING_PREFIX):
            # The recorder could not save something (e.g. a hostile findings folder).
            if line not in stats.errors and len(stats.errors) < _MAX_ERRORS:
                stats.errors.append(line)
        else:
            return None
        return _Said()


@dataclass(frozen=True)
class _Said:
    """What a harness line changes in the reading of its process: shown at once
    (``urgent``), the executions the harness counted (``execs``)."""

    urgent: bool = False
    execs: int = 0


def record_death(target: str, kind: str, artifact: Path | None, impl: str, findings: Path,
                 stats: TargetStats, *, accepted: bool = True,
                 breadcrumb: Path | None = None,
                 evidence: dict[str, object] | None = None) -> None:
    """Save the input libFuzzer stopped on as a finding (timeout / oom / crash).

    ``breadcrumb``: the file the process kept the question it was asking its
    implementation in (``checks.breadcrumb``). A crash in a question (the set probe,
    a variant, a minimizer's candidate: not libFuzzer's input) is that question's: its
    case, its raw input rebuilt in its target's format (evidence ``died_on:
    question``, and the input it was asked for, ``while_checking``). Otherwise it is
    libFuzzer's input, read within the adapter's answer domain as the harness read it
    (``died_on: input`` when the breadcrumb says no question was being asked; without a
    breadcrumb the record does not say: ``FindingStore.record`` keeps an input seen to
    stop the process over it). ``evidence``: more to say (``campaign._confirm_timeout``).

    The input is kept in the finding only, not added to the corpus: the restarted
    process would load it as a seed and stop on it again."""
    from pctfuzz._internal.store import FindingStore, StoreError, new_stop_finding

    trail = read_breadcrumb(breadcrumb) if breadcrumb is not None else None
    data = artifact.read_bytes() if artifact is not None and artifact.is_file() else None
    tgt = get_target(target)
    evidence = dict(evidence or {})
    case: Case | None
    raw: bytes | None
    if kind == "crash" and trail is not None and trail.question is not None:
        check, case = trail.question
        tgt = get_target(get_operation(check).differential_target)
        raw = _raw_input(tgt, case, trail.domain)
        evidence["died_on"] = "question"
        if data is not None and len(data) <= MAX_LEN:
            evidence["while_checking"] = base64.b64encode(data).decode("ascii")
    elif data is None:
        stats.errors.append(f"{kind} without an input file")
        return
    else:
        raw, case = data, _case_of(tgt, data, None if trail is None else trail.domain)
        if kind == "crash" and trail is not None and not trail.torn:
            evidence["died_on"] = "input"
    owner = impl if tgt.differential else None
    kind = _out_of_resources_as(FindingStore(findings), tgt.name, kind, owner, accepted, evidence)
    finding = new_stop_finding(target=tgt, kind=kind, raw_input=raw, case=case, impl=owner,
                               accepted=accepted, evidence=evidence)
    try:
        stored, is_new = FindingStore(findings).record(finding)
    except StoreError as exc:
        stats.lost.append(f"{kind} finding {finding.id}: {exc}")
        return
    bucket = stats.new_findings if is_new else stats.known_findings
    if stored.id not in stats.new_findings and stored.id not in bucket:
        bucket.append(stored.id)


def _out_of_resources_as(store: FindingStore, target: str, kind: str, impl: str | None,
                         accepted: bool, evidence: dict[str, object]) -> str:
    """The kind a stop of ``kind`` is recorded as: a timeout as the store's oom of the
    same target and implementation when there is one, and the reverse (the kind it
    stopped as kept in its evidence, ``out_of``): ``identity.signatures.RESOURCE_STOPS``."""
    from pctfuzz._internal.identity import finding_id, other_resource_stop, stop_signature
    from pctfuzz._internal.store import StoreError

    other = other_resource_stop(kind)
    if other is None:
        return kind
    try:
        store.get(finding_id(stop_signature(target, other, impl, accepted=accepted)))
    except StoreError:
        return kind
    evidence["out_of"] = "time" if kind == "timeout" else "memory"
    return other


def _case_of(target: Target, data: bytes, domain: AnswerDomain | None) -> Case | None:
    """The case of libFuzzer's input ``data``, as the harness read it: within the
    adapter's answer domain (``diff_encode``); None when it reads as none."""
    try:
        if domain is not None and target.case_type is EncodeCase:
            return domain.encode_case(data)
        return cast(Case, target.from_bytes(data))
    except Exception:
        return None


def _raw_input(target: Target, case: Case, domain: AnswerDomain | None) -> bytes | None:
    """Fuzzer bytes of ``target`` that read as exactly ``case`` (within ``domain`` for
    an encode case, as ``_case_of`` reads them); None when its format cannot say it (a
    set outside the adapter's domain, a form field over 255 bytes)."""
    try:
        if domain is not None and isinstance(case, EncodeCase):
            data = encode_to_bytes_within(case, domain)
        else:
            data = bytes(target.to_bytes(case))
        return data if _case_of(target, data, domain) == case else None
    except (PctfuzzError, LookupError, ValueError):
        return None
