"""``pctfuzz fuzz`` (a bounded campaign, libFuzzer or Hypothesis) and ``pctfuzz targets``.

The work is imported inside each command's function, not at the top: ``pctfuzz --help``
imports every command module, and the campaign, store and reports would add to that
start-up what only a real run needs.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import signal
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pctfuzz._internal.cli.args import (
    JOBS_PER_CORE,
    folder_path,
    job_count,
    memory_mb,
    positive_seconds,
    whole_seconds,
)
from pctfuzz._internal.cli.divergences import add_accept_option, add_no_accepted_option
from pctfuzz._internal.cli.results import (
    add_report_options,
    check_outputs,
    human_stream,
    write_reports,
)
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.fuzz.protocol import DEFAULT_RSS_LIMIT_MB
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings

if TYPE_CHECKING:
    from pctfuzz._internal.project import Project


def _cmd_targets(args: argparse.Namespace) -> int:
    from pctfuzz._internal.targets import TARGETS

    width = max(map(len, TARGETS))
    for name, target in TARGETS.items():
        print(f"{name:<{width}}  {target.description}")
    return ExitCode.OK


def _answered_targets(requested: list[str], impl: Any, project: Project, self_check: bool,
                      out: TextIO) -> list[str]:
    """The targets to fuzz: the requested ones as they are (plus the invariant targets
    with ``--self-check``). By default: with an implementation named (``--impl``,
    ``[tool.pctfuzz] impl``), the differential targets whose question it answers for
    at least one seed case, so a campaign on the user's code spends its time on that
    code; the invariant targets (pctfuzz's self-check of its reference) only when no
    implementation is named, or with ``--self-check``. Each skipped differential
    target is said, with the adapter's reason, on one line. If none is left, the differential
    targets all run, so an adapter that answers nothing is an incomplete run."""
    from pctfuzz._internal.fuzz.seeds import unanswered
    from pctfuzz._internal.targets import TARGETS, get_target

    invariants = [n for n, t in TARGETS.items() if not t.differential]
    if requested:  # named on purpose; the summary shows what was answered
        return list(dict.fromkeys([*requested, *(invariants if self_check else [])]))
    with_invariants = self_check or project.impl is None
    kept, skipped = [], []
    differential = [n for n, t in TARGETS.items() if t.differential]
    for name in differential:
        reason = unanswered(get_target(name), impl)
        if reason is None:
            kept.append(name)  # a value or an exception: worth fuzzing
        else:
            skipped.append(name + (f" ({reason})" if reason else ""))
    if skipped and kept:  # (one line: an encoder alone skips three targets)
        print(f"pctfuzz: skipped {', '.join(skipped)}: {project.impl_name} answers none of "
              "their seed cases", file=out, flush=True)
    kept = kept or differential
    if not with_invariants:
        print(f"pctfuzz: fuzzing {project.impl_name} ({', '.join(kept)}); pctfuzz's own "
              "invariant targets run with --self-check", file=out, flush=True)
        return kept
    return [n for n in TARGETS if n in kept or n in invariants]


def _describer(findings: Path) -> Callable[[str], str]:
    """A finding's one readable line: what went in, what the reference says, what
    came out (the live status's and the summary's)."""
    from pctfuzz._internal.reports import finding_entry
    from pctfuzz._internal.store import FindingStore, StoreError
    from pctfuzz._internal.text import one_line

    store = FindingStore(findings)

    def describe(ident: str) -> str:
        try:
            finding = store.get(ident)
        except StoreError as exc:
            return f"{ident}: {exc}"
        entry = finding_entry(finding, findings / finding.file_name, new=True)
        impl = f"{entry['impl'] or 'reference'} [{entry['impact']}]"
        if entry.get("raised"):
            return one_line(f"{ident} {entry['kind']} in {impl}: {entry['case']}: raised "
                            f"{entry['raised']}", 300)
        if entry.get("behaviour"):
            return one_line(f"{ident} {entry['kind']} in {impl}: behaviour: "
                            f"{entry['behaviour']['text']}: {entry['case']}", 300)
        if finding.native_crash:  # no answer to show: the process died (``record_death``)
            asked = " (asked while naming another input)" \
                if finding.evidence.get("died_on") == "question" else ""
            return one_line(f"{ident} {entry['kind']} in {impl}: {entry['case']}: the process "
                            f"died{asked}", 300)
        return one_line(f"{ident} {entry['kind']} in {impl}: {entry['case']}: expected "
                        f"{entry['expected']}, got {entry['actual']}", 300)

    return describe


def _describe_new_findings(idents: list[str], findings: Path, out: TextIO) -> None:
    """Under the summary: each new finding in one readable line and the exact command
    that reproduces it."""
    from pctfuzz._internal.reports import finding_entry
    from pctfuzz._internal.store import FindingStore, StoreError
    from pctfuzz._internal.text import one_line

    store = FindingStore(findings)
    describe = _describer(findings)
    for ident in idents:
        print(f"  {describe(ident)}", file=out)
        try:
            finding = store.get(ident)
        except StoreError:
            continue
        entry = finding_entry(finding, findings / finding.file_name, new=True)
        print(f"    reproduce: {one_line(entry['reproduce'], 300)}", file=out)
    for line in _behaviours_in_several_functions(store, idents):
        print(f"  {line}", file=out)
    if idents:
        print(f"  findings in {findings}; `pctfuzz report --findings {findings}` lists them all",
              file=out)


def _behaviours_in_several_functions(store: Any, idents: list[str]) -> list[str]:
    """One line per behaviour that a rule names in findings of several targets: a
    finding is one function's (each target asks its own function, and a library fixes
    them apart), so one mechanism met by an encoder and a form serializer is two
    findings; this says they are one behaviour (a 90 s campaign on Tcl's http: a lone
    surrogate, and a newline, each in ``diff_encode`` and ``diff_form``)."""
    from pctfuzz._internal.store import StoreError
    from pctfuzz._internal.text import one_line

    grouped: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    for ident in idents:
        try:
            finding = store.get(ident)
        except StoreError:
            continue
        behaviour = finding.behaviour or {}
        if isinstance(behaviour.get("text"), str):
            key = (finding.impl or "", str(behaviour.get("rule")), behaviour["text"])
            grouped.setdefault(key, []).append((ident, finding.target))
    lines = []
    for (_impl, _rule, text), found in grouped.items():
        targets = {target for _ident, target in found}
        if len(targets) > 1:
            where = ", ".join(f"{ident} ({target})" for ident, target in found)
            lines.append(one_line(f"one behaviour in {len(targets)} functions: {text}: {where}",
                                  300))
    return lines


def _merge_into_named(args: argparse.Namespace, result: Any, out: TextIO, stop: Any,
                      settings: RunSettings = DEFAULT_SETTINGS) -> None:
    """Merge each new finding no rule names into the finding a rule names whose hit its
    case is (``migrate.merge_into_named``), before the summary counts them. Also after
    the stop signal that ended the campaign: a class met before its context would
    otherwise stay a finding of its own after a Ctrl-C; one check per new finding, and
    the next signal ends it (``stop``)."""
    from pctfuzz._internal.fuzz.migrate import merge_into_named
    from pctfuzz._internal.text import one_line

    if not result.new_findings:
        return
    try:
        merged = merge_into_named(Path(args.findings), args.impl, result.new_findings,
                                  settings, stop)
    except Exception as exc:  # (the findings stand as recorded: nothing is lost)
        print(f"pctfuzz: WARNING: new findings not merged: {type(exc).__name__}: "
              f"{one_line(str(exc), 200)}", file=sys.stderr)
        return
    renamed = {ident: into for ident, into, new in merged if new}
    gone = {ident for ident, _into, _new in merged}
    for stats in result.stats:
        stats.new_findings[:] = list(dict.fromkeys(
            renamed.get(i, i) for i in stats.new_findings if i in renamed or i not in gone))
    for ident, into, new in merged:
        print(f"pctfuzz: {ident} renamed {into}: named again with the findings met after it "
              "known" if new else f"pctfuzz: {ident} merged into {into}: its case is "
              "a hit of that finding's rule, found after it", file=out)


def _verify_open(args: argparse.Namespace, result: Any, out: TextIO, stop: Any,
                 settings: RunSettings = DEFAULT_SETTINGS) -> Any:
    """After the campaign, replay every open finding of the implementation (an open
    bug keeps CI red; a fix is verified: ``replay.replay_open``), each case within
    ``--timeout``, the whole within ``--replay-time`` (default ``--max-time``). Skipped
    when a signal stopped the run: the user asked it to end; ended early by one
    (``stop``)."""
    from pctfuzz._internal.fuzz.replay import OpenReplay, replay_open
    from pctfuzz._internal.store import printable_path
    from pctfuzz._internal.text import one_line

    if result.stopped_by:
        return OpenReplay()
    verified = replay_open(Path(args.findings), args.impl, targets=args.targets,
                           seen=result.known_findings, timeout=args.timeout,
                           max_seconds=args.replay_time or args.max_time, stop=stop,
                           settings=settings, rss_limit_mb=args.rss_limit_mb)
    for line in verified.lines():
        print(f"pctfuzz: {line}", file=out)
    for path, message in verified.skipped:
        print(f"pctfuzz: WARNING: {printable_path(path)}: not a finding record, skipped: "
              f"{one_line(message)}", file=sys.stderr)
    for path, message in verified.errors:
        print(f"pctfuzz: INCOMPLETE: open finding {printable_path(path)} not replayed: "
              f"{message}", file=sys.stderr)
    for line in verified.not_replayed_lines():
        print(f"pctfuzz: {line}", file=sys.stderr)
    return verified


def _project(args: argparse.Namespace) -> Project:
    """The project (``pctfuzz._internal.project``), the flags over ``[tool.pctfuzz]``; the options
    not given are filled from it, then from the built-in defaults."""
    from pctfuzz._internal.project import Project

    project = Project.load(corpus=args.corpus, findings=args.findings, accept=args.accept,
                           impl=args.impl, sets=args.set, no_accepted=args.no_accepted)
    args.targets = args.targets or project.targets
    if args.max_time is None:
        args.max_time = project.max_time or 60.0
    if args.jobs is None:
        args.jobs = project.jobs or os.cpu_count() or 1
    args.impl = project.impl_name
    args.corpus, args.findings = str(project.corpus), str(project.findings)
    return project


def _cmd_fuzz(args: argparse.Namespace) -> int:
    from pctfuzz._internal.fuzz import campaign
    from pctfuzz._internal.fuzz.hypothesis_driver import run_hypothesis
    from pctfuzz._internal.fuzz.replay import StopOnSignals
    from pctfuzz._internal.fuzz.status import Board, status_for
    from pctfuzz._internal.store import utc_now

    project = _project(args)
    dests = check_outputs(args)
    hypothesis = args.driver == "hypothesis"
    if hypothesis and args.passthrough:
        raise PctfuzzError("flags after -- are libFuzzer's; --driver hypothesis takes none")
    impl = project.implementation()  # fail fast, before any process starts
    out = human_stream(dests)
    where = f"pctfuzz: {project.where()}"
    if not args.quiet:  # -q: said under the summary instead
        print(where, file=out, flush=True)
    args.targets = _answered_targets(args.targets, impl, project, args.self_check, out)
    started = utc_now()
    # -v: libFuzzer's raw lines, one file per target, kept after the run
    logs = (Path(tempfile.mkdtemp(prefix="pctfuzz-logs-"))
            if args.verbose and not hypothesis else None)
    board = Board(campaign.order_targets(args.targets), args.max_time, args.impl)
    with status_for(board, _describer(Path(args.findings)), quiet=args.quiet) as status:
        if hypothesis:
            result = run_hypothesis(args.targets, max_time=args.max_time, impl=args.impl,
                                    findings=Path(args.findings), timeout=args.timeout,
                                    progress=status, settings=project.run_settings)
        else:
            result = campaign.run_campaign(
                args.targets,
                max_time=args.max_time,
                jobs=args.jobs,
                impl=args.impl,
                corpus=Path(args.corpus),
                findings=Path(args.findings),
                timeout=args.timeout,
                rss_limit_mb=args.rss_limit_mb,
                libfuzzer_args=args.passthrough,
                progress=status,
                log_dir=logs,
                handoff=dataclasses.replace(project.handoff(), grammar=not args.no_grammar),
            )
    # From here to the results written, a stop signal ends the replay of the open
    # findings, never the command: the results say what was done (issue 33, item 6).
    with StopOnSignals() as stop:
        return _finish(args, result, stop, dests=dests, out=out, where=where, logs=logs,
                       started=started, run_settings=project.run_settings)


def _finish(args: argparse.Namespace, result: Any, stop: Any, *, dests: Any, out: TextIO,
            where: str, logs: Path | None, started: str,
            run_settings: RunSettings = DEFAULT_SETTINGS) -> int:
    """The end of ``fuzz``: summary, replay of the open findings, exit code, results."""
    from pctfuzz._internal.reports import fuzz_results
    from pctfuzz._internal.store import printable_path

    _merge_into_named(args, result, out, stop, run_settings)
    print(result.summary(), file=out)
    _describe_new_findings(result.new_findings, Path(args.findings), out)
    verified = _verify_open(args, result, out, stop, run_settings)
    if args.quiet:
        print(where, file=out)
    if logs is not None:
        print(f"pctfuzz: libFuzzer logs: {printable_path(logs)}/<target>.log", file=out)
    stopped_by = result.stopped_by or stop.signum
    replay_stop: list[str] = []
    if result.stopped_by:
        print(f"pctfuzz: stopped by {signal.Signals(result.stopped_by).name} after "
              f"{result.seconds:.0f} s", file=sys.stderr)
    elif stop.signum:
        replay_stop = [f"INCOMPLETE: stopped by {signal.Signals(stop.signum).name} during "
                       f"the replay of open findings ({len(verified.verdicts)} replayed)"]
        print(f"pctfuzz: {replay_stop[0]}", file=sys.stderr)
    for stats in result.stats:
        for error in stats.errors:
            print(f"[{stats.target}] {error}", file=sys.stderr)
    # Incomplete wins over "new finding": a lost finding may be the one that matters.
    # A new finding outranks a stop by a signal (exit 128 + the signal number).
    stopped = ExitCode.stopped_by(stopped_by) if stopped_by else ExitCode.OK
    failing = (bool(result.new_findings) if args.fail_on == "new" else
               bool(result.new_findings or verified.reproduced) if args.fail_on == "open"
               else False)
    code = (ExitCode.INCOMPLETE if result.incomplete or verified.incomplete else
            ExitCode.FOUND if failing else stopped)
    if any(d is not None for d in dests):
        from pctfuzz._internal.targets import TARGETS

        settings = {
            "targets": list(args.targets) or list(TARGETS), "max_time": args.max_time,
            "jobs": 1 if args.driver == "hypothesis" else args.jobs, "impl": args.impl,
            "corpus": args.corpus, "findings": args.findings, "timeout": args.timeout,
            "rss_limit_mb": args.rss_limit_mb, "driver": args.driver, "fail_on": args.fail_on,
            "replay_time": args.replay_time or args.max_time,
        }
        # Each open finding left unreplayed, by its record (nothing is lost: still open).
        replay_stop += [f"INCOMPLETE: open finding {ident} ({printable_path(path)}) not "
                        f"replayed ({verified.why_not_replayed}; still open)"
                        for path, ident in verified.not_replayed]
        document = fuzz_results(result, settings=settings, findings_dir=Path(args.findings),
                                started=started, exit_code=code, verified=verified.verdicts,
                                errors=replay_stop)
        write_reports(document, *dests)
    return code


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    targets = sub.add_parser("targets", help="list the fuzz targets")
    targets.set_defaults(func=_cmd_targets)

    fuzz = sub.add_parser(
        "fuzz", help="run a bounded atheris (or Hypothesis) campaign",
        description="Fuzz the targets as atheris subprocesses within the time budget "
        "(--driver hypothesis: under Hypothesis, in this process). On a terminal a live "
        "status shows each target (exec/s, coverage, lines of the code under test "
        "reached, answered rate, findings); elsewhere, plain lines. "
        "Defaults come from [tool.pctfuzz] in the nearest pyproject.toml that has one "
        "(the project root; else the current folder). At the end every open finding of the "
        "implementation is replayed: one that no longer reproduces becomes fixed. Exit 0: "
        "nothing failing; 1: a new finding, or an open one that still reproduces "
        "(--fail-on); 2: usage error; 3: incomplete (a finding or hits lost, a record "
        "unreadable, a target with 0 executions, an open finding not replayed, also when "
        "--replay-time ran out); "
        "129/130/143: stopped by SIGHUP/SIGINT/SIGTERM.")
    fuzz.add_argument("targets", nargs="*", metavar="TARGET", help="default: all targets")
    # Defaults come from [tool.pctfuzz] (see _apply_project), then from these helps.
    fuzz.add_argument("--max-time", type=positive_seconds, metavar="SECONDS",
                      help="wall-clock budget for the whole campaign (default 60)")
    fuzz.add_argument("--jobs", type=job_count, metavar="N",
                      help="libFuzzer processes at once (default: cores, at most "
                      f"{JOBS_PER_CORE} per core); with fewer targets than N, each target "
                      "gets several processes on its shared corpus")
    fuzz.add_argument("--impl", metavar="NAME",
                      help="implementation under test: a registered name or module:Class "
                      "(default urllib)")
    fuzz.add_argument("--corpus", type=folder_path, metavar="DIR",
                      help="default: corpus/ in the project root")
    fuzz.add_argument("--findings", type=folder_path, metavar="DIR",
                      help="default: findings/ in the project root")
    fuzz.add_argument("--timeout", type=whole_seconds, default=5, metavar="SECONDS",
                      help="per-input time limit; a slower input is a timeout finding")
    fuzz.add_argument("--replay-time", type=positive_seconds, metavar="SECONDS",
                      help="bound on the replay of open findings after the campaign (default: "
                      "--max-time); those it leaves stay open, are listed, and the run is "
                      "incomplete")
    fuzz.add_argument("--rss-limit-mb", type=memory_mb, default=DEFAULT_RSS_LIMIT_MB,
                      metavar="MB", help="memory limit; exceeding it is an oom finding (0: no "
                      "limit, so a memory blow-up is no finding; default "
                      f"{DEFAULT_RSS_LIMIT_MB})")
    fuzz.add_argument("--driver", choices=("libfuzzer", "hypothesis"), default="libfuzzer",
                      help="libfuzzer (default): atheris processes, coverage-guided; "
                      "hypothesis: a quick run in this process, the targets' Hypothesis "
                      "strategies and checks, failures saved to the same findings store "
                      "(no corpus, no --jobs, no libFuzzer flags)")
    loud = fuzz.add_mutually_exclusive_group()
    loud.add_argument("-q", "--quiet", action="store_true",
                      help="no status: each NEW FINDING line as it comes (stderr), then the "
                      "summary, the replay of the open findings and the project line (the "
                      "lines that name the targets chosen or skipped stay)")
    loud.add_argument("-v", "--verbose", action="store_true",
                      help="also keep libFuzzer's raw log, one file per target in a "
                      "pctfuzz-logs-* folder that the summary names")
    fuzz.add_argument("--fail-on", choices=("new", "open", "never"), default="open",
                      help="what makes the exit code 1: open (default) a new finding, or an "
                      "open finding of the implementation that still reproduces when it is "
                      "replayed at the end (a fix makes it `fixed`); new: new findings only; "
                      "never")
    fuzz.add_argument("--no-grammar", action="store_true",
                      help="libFuzzer's byte mutations alone: no grammar-aware mutator (pairs, "
                      "escapes, block sizes, legacy encodings) and no dictionary")
    add_accept_option(fuzz)
    add_no_accepted_option(fuzz)
    fuzz.add_argument("--self-check", action="store_true",
                      help="also fuzz pctfuzz's own reference (the invariant targets), "
                      "which run by default only when no implementation is named")
    fuzz.add_argument("--set", action="append", metavar="NAME=SPEC",
                      help="draw diff_encode cases from this set (repeatable; a set name or "
                      "spec such as encodeURI-[], see `pctfuzz sets --spec`)")
    add_report_options(fuzz)
    fuzz.set_defaults(func=_cmd_fuzz)
