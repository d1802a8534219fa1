"""What a campaign measured: ``TargetStats`` per target, ``CampaignResult`` for the
whole run and its end-of-campaign table (``summary``).

A target fuzzed by several libFuzzer processes at once has one ``TargetStats`` per
process; ``merge_stats`` sums them into the target's line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pctfuzz._internal.fuzz.protocol import LOST_HITS, lost_hits

__all__ = ["LOW_ANSWER_RATE", "UNREACHED_AFTER", "CampaignResult", "ModuleReach",
           "TargetStats", "merge_stats"]

#: Executions after which a module under test that no line was reached in is reported
#: (issue 21, part 6): all of them traced (``undertest.FULL``), so 0 lines is a fact.
UNREACHED_AFTER = 2000


@dataclass
class ModuleReach:
    """One module of the code under test (``undertest.UnderTest.modules``): lines
    reached, lines inside its functions (0: it cannot be traced), executions so far."""

    reached: int = 0
    total: int = 0
    executions: int = 0
    #: how many of it and its loaded submodules are compiled (C, Cython, Rust)
    compiled: int = 0

    def problem(self) -> str | None:
        """Why the campaign may not test this module, or None."""
        if self.total == 0:
            return ("cannot be traced (not imported, or no Python source: a C or Cython "
                    "extension); whether the campaign reaches it is unknown")
        if self.reached == 0 and self.executions >= UNREACHED_AFTER and self.compiled:
            # (a package of Cython modules beside Python ones: the adapter may well
            # call only the compiled ones, whose lines no tracer sees)
            return (f"0 of {self.total} Python lines reached after {self.executions:,} "
                    f"executions; {self.compiled} of its modules are compiled and cannot "
                    "be traced: whether the campaign reaches them is unknown")
        if self.reached == 0 and self.executions >= UNREACHED_AFTER:
            return (f"0 of {self.total} lines reached after {self.executions:,} executions: "
                    "the adapter does not call it (check modules_under_test)")
        return None


@dataclass
class TargetStats:
    """What one target did during the campaign (summed over restarts)."""

    target: str
    seconds: float = 0.0
    execs: int = 0
    exec_per_s: int = 0
    initial_cov: int | None = None  # libFuzzer's cov: once the seed corpus is loaded
    cov: int = 0
    ft: int = 0
    corpus_units: int = 0
    new_findings: list[str] = field(default_factory=list)
    known_findings: list[str] = field(default_factory=list)
    restarts: int = 0
    errors: list[str] = field(default_factory=list)
    #: differential targets: cases asked and answered (not ``Unsupported``)
    asked: int = 0
    answered: int = 0
    #: differential targets: diverging inputs left unnamed, as naming had its share of
    #: the time (``checks.known.NamingBudget``)
    deferred: int = 0
    #: what should have been stored and was not (``pctfuzz: LOST`` lines, a stop
    #: finding that could not be saved): the campaign is then incomplete
    lost: list[str] = field(default_factory=list)
    #: failures of a peer process that no input was blamed for (``pctfuzz: PEER
    #: FAILED`` lines): the campaign is then incomplete
    peer_failures: list[str] = field(default_factory=list)
    workers: int = 1  # libFuzzer processes that fuzzed this target at the same time
    #: differential targets: lines of the code under test reached, of how many
    #: (``pctfuzz._internal.fuzz.undertest``; None until the harness says)
    under_test: int | None = None
    under_test_total: int | None = None
    #: differential targets: each module under test (``ModuleReach``), by name
    modules: dict[str, ModuleReach] = field(default_factory=dict)
    #: corpus inputs its processes were given to load (the largest such corpus), and
    #: the most executions of one that ended before it had run them all (no
    #: ``INITED``). ``initial_cov`` is set once one has run them all.
    corpus_inputs: int = 0
    corpus_run: int = 0
    #: why it never ran (its slot's time was gone before its first turn), if so
    no_turn: str | None = None
    #: what its last harness said when its processes kept dying before their first
    #: input (``campaign.START_ATTEMPTS`` in a row): it was not started again
    cannot_start: str | None = None
    #: timeouts whose input finished when run again alone (``campaign._confirm_timeout``),
    #: and whether one timed out again (later ones are then recorded without a rerun)
    timeouts_not_confirmed: int = 0
    timeout_confirmed: bool = False

    @property
    def findings(self) -> int:
        return len(self.new_findings) + len(self.known_findings)

    @property
    def answered_rate(self) -> float | None:
        """The share of its cases the implementation answered (differential targets)."""
        return self.answered / self.asked if self.asked else None

    def not_reached(self) -> dict[str, str]:
        """Module -> why the campaign may not reach it (``ModuleReach.problem``)."""
        return {name: why for name, reach in self.modules.items()
                if (why := reach.problem()) is not None}

    def reach_lines(self) -> list[str]:
        """``not_reached`` as the status and the summary say it: a WARNING, but a note
        for a module whose compiled code cannot be traced while the target's other code
        under test is reached (a wrapper calling pycurl's C code warned "0 of 201
        Python lines reached" for every target that found its bugs)."""
        reached = any(reach.reached for reach in self.modules.values())
        return [f"{'note' if reached and (reach.compiled or not reach.total) else 'WARNING'}: "
                f"{self.target}: code under test not reached: {name} {why}"
                for name, reach in self.modules.items()
                if (why := reach.problem()) is not None]

    def add_lost(self, what: str, limit: int) -> None:
        """Note ``what`` was lost (a ``pctfuzz: LOST`` line), at most ``limit`` notes:
        hits of one finding lost for one reason are one note, their counts summed (a
        full disk lost them at every flush: twelve lines for one record)."""
        hits = LOST_HITS.match(what)
        for index, known in enumerate(self.lost):
            same = LOST_HITS.match(known)
            if hits and same and same["rest"] == hits["rest"]:
                self.lost[index] = lost_hits(int(same["count"]) + int(hits["count"]),
                                             hits["rest"].removeprefix("of "))
                return
            if known == what:
                return
        if len(self.lost) < limit:
            self.lost.append(what)

    def problems(self, *, stopped: bool = False) -> list[str]:
        """Why this target's part of the campaign is incomplete (empty if it is not):
        something lost, or no execution at all (its harness never started, or the
        budget left it no slice). A campaign ``stopped`` by a signal did not promise
        to run every target: then only what was lost counts."""
        problems = [f"lost {what}" for what in self.lost]
        problems += [f"peer failed: {what}" for what in self.peer_failures]
        if self.cannot_start is not None:
            problems.append(f"its harness could not start: {self.cannot_start}")
        elif self.execs == 0 and not stopped:
            problems.append(f"ran 0 executions: not reached: {self.no_turn}"
                            if self.no_turn else
                            "ran 0 executions (its harness did not start, or --max-time "
                            "left it no time; see errors)")
        return problems

    def corpus_not_run(self) -> str | None:
        """What of its corpus no process ran, or None: every input of it ran once
        (a process printed ``INITED``), or it had none, or it never ran at all (a
        problem of its own)."""
        if not self.corpus_inputs or self.initial_cov is not None or self.execs == 0:
            return None
        left = max(0, self.corpus_inputs - self.corpus_run)
        return (f"ran {self.corpus_run:,} of its {self.corpus_inputs:,} corpus inputs before "
                f"its processes were stopped (slice end or deadline); the other {left:,} "
                "never ran, and it never fuzzed beyond them: give it more --max-time, or "
                "fewer inputs (pctfuzz corpus merge)")


@dataclass
class CampaignResult:
    stats: list[TargetStats]
    seconds: float
    stopped_by: int | None = None  # the signal that stopped the campaign early

    @property
    def new_findings(self) -> list[str]:
        """Distinct ids of the findings first saved by this campaign."""
        return list(dict.fromkeys(f for s in self.stats for f in s.new_findings))

    @property
    def known_findings(self) -> list[str]:
        """Distinct ids of findings seen again that existed before this campaign."""
        new = set(self.new_findings)
        return list(dict.fromkeys(f for s in self.stats for f in s.known_findings
                                  if f not in new))

    def problems(self) -> list[str]:
        """``<target>: <why>`` for each reason the campaign is incomplete."""
        stopped = self.stopped_by is not None
        return [f"{s.target}: {p}" for s in self.stats for p in s.problems(stopped=stopped)]

    @property
    def implementation_share(self) -> tuple[int, int]:
        """(executions on the implementation under test, all executions): the
        differential targets run the adapter; the invariant targets, pctfuzz's own
        reference (its self-check)."""
        from pctfuzz._internal.targets import TARGETS

        total = sum(s.execs for s in self.stats)
        on_impl = sum(s.execs for s in self.stats
                      if s.target in TARGETS and TARGETS[s.target].differential)
        return on_impl, total

    @property
    def incomplete(self) -> bool:
        """A finding or hits were lost, or a target never ran: never a green run."""
        return bool(self.problems())

    def summary(self) -> str:
        """The end-of-campaign table."""
        head = ("target", "secs", "execs", "exec/s", "cov0", "cov", "ft", "corpus", "new",
                "known")
        rows = [
            (s.target, f"{s.seconds:.0f}", str(s.execs), str(s.exec_per_s),
             str(s.initial_cov or 0), str(s.cov),
             str(s.ft), str(s.corpus_units), str(len(s.new_findings)),
             str(len(s.known_findings)))
            for s in self.stats
        ]
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                           enumerate(zip(row, widths, strict=True))) for row in [head, *rows]]
        lines.insert(1, "  ".join("-" * w for w in widths))
        new = self.new_findings
        parallel = [f"{s.target}={s.workers}" for s in self.stats if s.workers > 1]
        if parallel:
            lines.append("processes per target: " + ", ".join(parallel))
        lines.append(f"{len(new)} new finding(s) in {self.seconds:.0f} s"
                     + (": " + ", ".join(new) if new else ""))
        on_impl, total = self.implementation_share
        if total:
            rest = "; the rest on pctfuzz's own reference" if on_impl < total else ""
            lines.append(f"executions on the implementation under test: {on_impl} of {total} "
                         f"({on_impl / total:.0%}{rest})")
        rates = [(s.target, s.answered_rate) for s in self.stats if s.answered_rate is not None]
        if rates:
            lines.append("answered by the implementation: "
                         + ", ".join(f"{t} {r:.0%}" for t, r in rates))
        deferred = [f"{s.target} {s.deferred}" for s in self.stats if s.deferred]
        if deferred:
            lines.append("diverging inputs left unnamed, as naming had half the time "
                         "(a known finding's hits, or met again): " + ", ".join(deferred))
        rerun = [f"{s.target} {s.timeouts_not_confirmed}" for s in self.stats
                 if s.timeouts_not_confirmed]
        if rerun:
            lines.append("timeouts not findings (each input, run again alone, finished: the "
                         "time went to naming, saving, or a loaded machine): "
                         + ", ".join(rerun))
        for s in self.stats:
            lines += s.reach_lines()
        for s in self.stats:
            if (corpus := s.corpus_not_run()) is not None:
                lines.append(f"WARNING: {s.target}: corpus not run in full: {corpus}")
        for target, rate in rates:
            if rate < LOW_ANSWER_RATE:
                lines.append(f"WARNING: {target}: the implementation answered only {rate:.0%} "
                             "of the cases (the rest Unsupported): bugs may hide there")
        for problem in self.problems():
            lines.append(f"INCOMPLETE: {problem}")
        return "\n".join(lines)



#: Below this share of answered cases, the summary warns (issue 12).
LOW_ANSWER_RATE = 0.5


def merge_stats(target: str, parts: Sequence[TargetStats]) -> TargetStats:
    """One target's stats summed over its processes: execs, exec/s and restarts add
    up; coverage, features and corpus size are the largest any process saw; a finding
    new to any process is new."""
    if len(parts) == 1:
        return parts[0]
    new: list[str] = []
    known: list[str] = []
    for part in parts:
        new += [f for f in part.new_findings if f not in new]
    for part in parts:
        known += [f for f in part.known_findings if f not in new and f not in known]
    initial = [p.initial_cov for p in parts if p.initial_cov is not None]
    modules: dict[str, ModuleReach] = {}
    for part in parts:
        for name, reach in part.modules.items():
            mine = modules.setdefault(name, ModuleReach())
            mine.reached = max(mine.reached, reach.reached)
            mine.total = max(mine.total, reach.total)
            mine.executions += reach.executions
            mine.compiled = max(mine.compiled, reach.compiled)
    reached = [p.under_test for p in parts if p.under_test is not None]
    totals = [p.under_test_total for p in parts if p.under_test_total is not None]
    return TargetStats(
        target,
        seconds=max(p.seconds for p in parts),
        execs=sum(p.execs for p in parts),
        exec_per_s=sum(p.exec_per_s for p in parts),
        initial_cov=min(initial) if initial else None,
        cov=max(p.cov for p in parts),
        ft=max(p.ft for p in parts),
        corpus_units=max(p.corpus_units for p in parts),
        new_findings=new,
        known_findings=known,
        restarts=sum(p.restarts for p in parts),
        errors=[f"[process {i}] {e}" for i, p in enumerate(parts, 1) for e in p.errors],
        lost=[f"[process {i}] {w}" for i, p in enumerate(parts, 1) for w in p.lost],
        peer_failures=[f"[process {i}] {w}" for i, p in enumerate(parts, 1)
                       for w in p.peer_failures],
        asked=sum(p.asked for p in parts),
        answered=sum(p.answered for p in parts),
        workers=len(parts),
        under_test=max(reached, default=None),
        under_test_total=max(totals, default=None),
        modules=modules,
        corpus_inputs=max(p.corpus_inputs for p in parts),
        corpus_run=max(p.corpus_run for p in parts),
        no_turn=next((p.no_turn for p in parts if p.no_turn), None),
        cannot_start=next((p.cannot_start for p in parts if p.cannot_start), None),
        timeouts_not_confirmed=sum(p.timeouts_not_confirmed for p in parts),
        timeout_confirmed=any(p.timeout_confirmed for p in parts),
    )

