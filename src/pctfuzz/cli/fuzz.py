"""``pctfuzz fuzz``, ``pctfuzz targets`` and ``pctfuzz replay``."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from pctfuzz.cli.args import JOBS_PER_CORE, folder_path, job_count, positive_seconds, whole_seconds
from pctfuzz.cli.divergences import add_accept_option, set_accept
from pctfuzz.cli.exits import EXIT_FOUND, EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE
from pctfuzz.errors import PctfuzzError


def _cmd_targets(args: argparse.Namespace) -> int:
    from pctfuzz.targets import TARGETS

    width = max(map(len, TARGETS))
    for name, target in TARGETS.items():
        print(f"{name:<{width}}  {target.description}")
    return EXIT_OK


def _outputs(args: argparse.Namespace) -> tuple[str | None, str | None, str | None]:
    """(--json, --sarif, --junit), checked before any work starts."""
    from pctfuzz.reports import check_destinations

    dests = (args.json, args.sarif, args.junit)
    check_destinations(*dests)
    return dests


def _human(dests: tuple[str | None, ...]) -> TextIO:
    """Where the human-readable lines go: stderr when a report is written to stdout."""
    return sys.stderr if "-" in dests else sys.stdout


def _write_reports(document: dict[str, Any], json_dest: str | None, sarif: str | None,
                   junit: str | None) -> None:
    import json

    from pctfuzz.reports import to_json_text, to_junit, to_sarif, write_output

    if json_dest is not None:
        write_output(json_dest, to_json_text(document))
    if sarif is not None:
        write_output(sarif, json.dumps(to_sarif(document), indent=2, ensure_ascii=False) + "\n")
    if junit is not None:
        write_output(junit, to_junit(document))


def _set_sets(items: list[str] | None) -> None:
    """``--set NAME=SPEC`` (repeatable): diff_encode draws its cases from these sets
    (``targets.AnswerDomain``), whatever the adapter declares. Each spec is checked now,
    so a bad one is a usage error before any process starts."""
    import json

    from pctfuzz.sets import get_set
    from pctfuzz.targets import SETS_ENV

    if not items:
        return
    sets: dict[str, str] = {}
    for item in items:
        name, sep, spec = item.partition("=")
        if not sep or not name or not spec:
            raise PctfuzzError(f"--set {item!r}: expected NAME=SPEC, e.g. mine=encodeURI-[]")
        get_set(spec)
        sets[name] = spec
    os.environ[SETS_ENV] = json.dumps(sets)


#: Seed cases tried per differential target to see whether the adapter answers it.
_PROBE_CASES = 200

#: differential target -> the question it asks the adapter
_QUESTIONS = {"diff_encode": "encode", "diff_decode": "decode", "diff_form": "form",
              "diff_form_parse": "form-parse"}


def _answered_targets(requested: list[str], impl: Any, impl_name: str,
                      out: TextIO) -> list[str]:
    """The targets to fuzz: the requested ones as they are; by default every target,
    less the differential targets whose question the implementation answers for none
    of the seed cases (every one ``Unsupported``): fuzzing them would be time spent on
    nothing. Each skipped target is said, with the adapter's reason. If none is left,
    the whole list runs, so an adapter that answers nothing is an incomplete run."""
    from pctfuzz.checks.differential import run_impl
    from pctfuzz.fuzz.seeds import seed_cases
    from pctfuzz.targets import TARGETS, get_target

    if requested:
        return list(requested)  # named on purpose; the summary shows what was answered
    names = list(TARGETS)
    kept = []
    for name in names:
        target = get_target(name)
        if not target.differential:
            kept.append(name)
            continue
        question = _QUESTIONS[name]
        reason = ""
        answered = False
        for count, case in enumerate(seed_cases(target.case_type.type)):
            if count >= _PROBE_CASES:
                break
            # the seed as the campaign would ask it (the adapter's sets...); a seed
            # with no byte form is asked as it is
            with contextlib.suppress(Exception):
                case = target.case_from_bytes(target.to_bytes(case), impl)
            if run_impl(question, case, impl) is not None:
                answered = True  # a value or an exception: worth fuzzing
                break
            reason = reason or _unsupported_reason(impl, question, case)
        if answered:
            kept.append(name)
        else:
            print(f"pctfuzz: {name} skipped: {impl_name} answers none of its seed cases"
                  + (f" ({reason})" if reason else ""), file=out, flush=True)
    return kept or names


def _unsupported_reason(impl: Any, question: str, case: Any) -> str:
    from pctfuzz.oracles.base import Unsupported

    method = {"encode": "encode", "decode": "decode", "form": "form_serialize",
              "form-parse": "form_parse"}[question]
    try:
        getattr(impl, method)(case)
    except Unsupported as exc:
        return str(exc)
    except Exception:
        return ""
    return ""


def _describer(findings: Path) -> Callable[[str], str]:
    """A finding's one readable line: what went in, what the reference says, what
    came out (the live status's and the summary's)."""
    from pctfuzz.reports import finding_entry
    from pctfuzz.store import FindingStore, StoreError
    from pctfuzz.text import one_line

    store = FindingStore(findings)

    def describe(ident: str) -> str:
        try:
            finding = store.get(ident)
        except StoreError as exc:
            return f"{ident}: {exc}"
        entry = finding_entry(finding, findings / finding.file_name, new=True)
        impl = entry["impl"] or "reference"
        return one_line(f"{ident} {entry['kind']} in {impl}: {entry['case']}: expected "
                        f"{entry['expected']}, got {entry['actual']}", 300)

    return describe


def _describe_new_findings(idents: list[str], findings: Path, out: TextIO) -> None:
    """Under the summary: each new finding in one readable line and the exact command
    that reproduces it."""
    from pctfuzz.reports import finding_entry
    from pctfuzz.store import FindingStore, StoreError
    from pctfuzz.text import one_line

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
    if idents:
        print(f"  findings in {findings}; `pctfuzz report --findings {findings}` lists them all",
              file=out)


def _apply_project(args: argparse.Namespace) -> Path:
    """Fill the options not given on the command line from ``[tool.pctfuzz]``, then
    from the built-in defaults; returns the project root. Folders from the table are
    relative to the root, folders given as flags to the current folder. The root goes
    on ``sys.path`` and ``PYTHONPATH`` (for the harness processes), so an adapter
    module of the project is importable as ``--impl module:Class`` from any subfolder.
    """
    from pctfuzz.cli.config import load_config

    project = load_config()
    values = project.values
    args.targets = args.targets or list(values.get("targets", []))
    if getattr(args, "accept", None) is None and values.get("accept"):
        if len(values["accept"]) > 1:
            raise PctfuzzError("[tool.pctfuzz] accept: one file for now (merge them into one)")
        args.accept = str(project.root / values["accept"][0])
    if not getattr(args, "set", None) and values.get("sets"):
        # a spec alone names itself: sets = ["encodeURI-[]"] is --set encodeURI-[]=encodeURI-[]
        args.set = [s if "=" in s else f"{s}={s}" for s in values["sets"]]
    if args.max_time is None:
        args.max_time = float(values.get("max-time", 60))
    if args.jobs is None:
        args.jobs = values.get("jobs", os.cpu_count() or 1)
    if args.impl is None:
        args.impl = values.get("impl", "urllib")
    args.corpus = args.corpus or str(project.path("corpus", "corpus"))
    args.findings = args.findings or str(project.path("findings", "findings"))
    if project.pyproject is not None:
        root = str(project.root)
        if root not in sys.path:
            sys.path.insert(0, root)
        os.environ["PYTHONPATH"] = os.pathsep.join(
            p for p in (root, os.environ.get("PYTHONPATH")) if p)
    return project.root


def _cmd_fuzz(args: argparse.Namespace) -> int:
    from pctfuzz.fuzz import campaign
    from pctfuzz.fuzz.hypothesis_driver import run_hypothesis
    from pctfuzz.fuzz.status import Board, status_for
    from pctfuzz.oracles.registry import get_impl
    from pctfuzz.reports import fuzz_results
    from pctfuzz.store import printable_path, utc_now

    root = _apply_project(args)
    dests = _outputs(args)
    hypothesis = args.driver == "hypothesis"
    if hypothesis and args.passthrough:
        raise PctfuzzError("flags after -- are libFuzzer's; --driver hypothesis takes none")
    set_accept(args.accept)  # PCTFUZZ_ACCEPT: the libFuzzer children inherit it
    _set_sets(args.set)  # PCTFUZZ_SETS, likewise
    impl = get_impl(args.impl)  # fail fast, before any process starts
    out = _human(dests)
    args.targets = _answered_targets(args.targets, impl, args.impl, out)
    started = utc_now()
    where = "pctfuzz: project {}; corpus {}; findings {}".format(*(
        printable_path(p) for p in (root, Path(args.corpus).absolute(),
                                    Path(args.findings).absolute())))
    if not args.quiet:  # -q: said under the summary instead
        print(where, file=out, flush=True)
    # -v: libFuzzer's raw lines, one file per target, kept after the run
    logs = (Path(tempfile.mkdtemp(prefix="pctfuzz-logs-"))
            if args.verbose and not hypothesis else None)
    board = Board(campaign.order_targets(args.targets), args.max_time, args.impl)
    with status_for(board, _describer(Path(args.findings)), quiet=args.quiet) as status:
        if hypothesis:
            result = run_hypothesis(args.targets, max_time=args.max_time, impl=args.impl,
                                    findings=Path(args.findings), timeout=args.timeout,
                                    progress=status)
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
            )
    print(result.summary(), file=out)
    _describe_new_findings(result.new_findings, Path(args.findings), out)
    if args.quiet:
        print(where, file=out)
    if logs is not None:
        print(f"pctfuzz: libFuzzer logs: {printable_path(logs)}/<target>.log", file=out)
    if result.stopped_by:
        print(f"pctfuzz: stopped by {signal.Signals(result.stopped_by).name} after "
              f"{result.seconds:.0f} s", file=sys.stderr)
    for stats in result.stats:
        for error in stats.errors:
            print(f"[{stats.target}] {error}", file=sys.stderr)
    # Incomplete wins over "new finding": a lost finding may be the one that matters.
    # A new finding outranks a stop by a signal (exit 128 + the signal number).
    stopped = 128 + result.stopped_by if result.stopped_by else EXIT_OK
    code = (EXIT_INCOMPLETE if result.incomplete else
            EXIT_FOUND if result.new_findings else stopped)
    if any(d is not None for d in dests):
        from pctfuzz.targets import TARGETS

        settings = {
            "targets": list(args.targets) or list(TARGETS), "max_time": args.max_time,
            "jobs": 1 if hypothesis else args.jobs, "impl": args.impl,
            "corpus": args.corpus, "findings": args.findings, "timeout": args.timeout,
            "rss_limit_mb": args.rss_limit_mb, "driver": args.driver,
        }
        document = fuzz_results(result, settings=settings, findings_dir=Path(args.findings),
                                started=started, exit_code=code)
        _write_reports(document, *dests)
    return code


def _cmd_replay(args: argparse.Namespace) -> int:
    from pctfuzz.cli.config import load_config
    from pctfuzz.fuzz.replay import Verdict, replay_paths
    from pctfuzz.reports import replay_results
    from pctfuzz.store import printable_path, utc_now

    dests = _outputs(args)
    set_accept(args.accept)
    out = _human(dests)
    # The project's own adapter ([tool.pctfuzz] impl) is the user's word, like --impl:
    # records naming it replay against it, and the project root is importable.
    project = load_config()
    trusted = [str(project.values["impl"])] if "impl" in project.values else []
    if project.pyproject is not None and str(project.root) not in sys.path:
        sys.path.insert(0, str(project.root))
    started, clock = utc_now(), time.monotonic()
    items: list[Verdict | tuple[Path, str]] = []
    reproduced = unusable = 0
    for item in replay_paths([Path(p) for p in args.paths], target=args.target,
                             impl=args.impl, timeout=args.timeout, trusted=trusted):
        items.append(item)
        if isinstance(item, Verdict):
            reproduced += item.reproduces
            print(item.line(), file=out)
        else:
            unusable += 1
            print(f"{printable_path(item[0])}: error: {item[1]}", file=sys.stderr)
    code = EXIT_FOUND if reproduced else EXIT_USAGE if unusable else EXIT_OK
    if any(d is not None for d in dests):
        settings = {"paths": list(args.paths), "target": args.target, "impl": args.impl,
                    "timeout": args.timeout}
        document = replay_results(items, settings=settings, started=started,
                                  seconds=time.monotonic() - clock, exit_code=code)
        _write_reports(document, *dests)
    return code


def _cmd_migrate(args: argparse.Namespace) -> int:
    from pctfuzz.fuzz.migrate import migrate_findings

    for migration in migrate_findings(Path(args.findings), impl=args.impl):
        if migration.outcome != "current" or args.verbose:
            print(migration.line())
    return EXIT_OK


def _cmd_corpus_seed(args: argparse.Namespace) -> int:
    from pctfuzz.fuzz.seeds import seed_cases
    from pctfuzz.store import Corpus
    from pctfuzz.targets import TARGETS, get_target

    corpus = Corpus(Path(args.corpus))
    for target in map(get_target, args.targets or list(TARGETS)):
        added = 0
        for case in seed_cases(target.case_type.type):
            try:
                data = target.to_bytes(case)
            except Exception as exc:  # a seed with no byte form (e.g. a too long field)
                print(f"[{target.name}] seed skipped: {exc}", file=sys.stderr)
                continue
            added += corpus.add(target.name, data) is not None
        print(f"{target.name}: {added} new seed file(s) in {corpus.dir(target.name)}")
    return EXIT_OK


def _cmd_corpus_merge(args: argparse.Namespace) -> int:
    from pctfuzz.fuzz.campaign import default_harness_dir
    from pctfuzz.fuzz.merge import merge_target
    from pctfuzz.oracles.registry import get_impl
    from pctfuzz.targets import TARGETS, get_target

    names = args.targets or list(TARGETS)
    for name in names:
        get_target(name)
    get_impl(args.impl)
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        raise PctfuzzError(f"corpus folder {corpus} does not exist")
    harness = Path(args.harness) if args.harness else default_harness_dir()
    keep = _finding_inputs(Path(args.findings))
    for name in names:
        if not args.targets and not (corpus / name).is_dir():
            continue  # merging everything: skip targets that have no folder
        result = merge_target(name, corpus, harness=harness, impl=args.impl,
                              inputs=[Path(p) for p in args.input], timeout=args.timeout,
                              keep=keep.get(name, []))
        print(result.line())
        for line in result.skipped:
            print(f"[{name}] {line}", file=sys.stderr)
    return EXIT_OK


def _finding_inputs(folder: Path) -> dict[str, list[bytes]]:
    """Target -> raw inputs of its findings, which a merge must keep. Timeouts and OOMs
    are left out: in the corpus, they would stop every campaign that starts."""
    from pctfuzz.store import FindingStore, StoreProblem

    problems: list[StoreProblem] = []
    keep: dict[str, list[bytes]] = {}
    for finding in FindingStore(folder).iter_findings(problems):
        raw = finding.raw_bytes()
        if raw is not None and finding.kind not in ("timeout", "oom"):
            keep.setdefault(finding.target, []).append(raw)
    for problem in problems:
        print(f"skipped {problem}", file=sys.stderr)
    return keep


def _add_report_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("machine-readable results (FILE or - for stdout)")
    group.add_argument("--json", metavar="FILE",
                       help="results as JSON (schema: pctfuzz.reports.RESULTS_SCHEMA)")
    group.add_argument("--sarif", metavar="FILE", help="SARIF 2.1.0 log (code scanning)")
    group.add_argument("--junit", metavar="FILE", help="JUnit XML (CI test reports)")


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
        "(the project root; else the current folder). Exit 0: no new finding; 1: a new "
        "finding was saved; 2: usage error; 3: incomplete (a finding or hits lost, a record "
        "unreadable, a target with 0 executions); 129/130/143: stopped by "
        "SIGHUP/SIGINT/SIGTERM.")
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
    fuzz.add_argument("--rss-limit-mb", type=int, default=2048, metavar="MB",
                      help="memory limit; exceeding it is an oom finding")
    fuzz.add_argument("--driver", choices=("libfuzzer", "hypothesis"), default="libfuzzer",
                      help="libfuzzer (default): atheris processes, coverage-guided; "
                      "hypothesis: a quick run in this process, the targets' Hypothesis "
                      "strategies and checks, failures saved to the same findings store "
                      "(no corpus, no --jobs, no libFuzzer flags)")
    loud = fuzz.add_mutually_exclusive_group()
    loud.add_argument("-q", "--quiet", action="store_true",
                      help="only new findings and the summary (no status)")
    loud.add_argument("-v", "--verbose", action="store_true",
                      help="also keep libFuzzer's raw log, one file per target in a "
                      "pctfuzz-logs-* folder that the summary names")
    add_accept_option(fuzz)
    fuzz.add_argument("--set", action="append", metavar="NAME=SPEC",
                      help="draw diff_encode cases from this set (repeatable; a set name or "
                      "spec such as encodeURI-[], see `pctfuzz sets --spec`)")
    _add_report_options(fuzz)
    fuzz.set_defaults(func=_cmd_fuzz)

    replay = sub.add_parser(
        "replay", help="replay findings or corpus inputs",
        description="One verdict line per input. Exit 1 if anything reproduces, 0 if "
        "nothing does, 2 if an input was unusable.")
    replay.add_argument("paths", nargs="+", metavar="PATH",
                        help="finding JSON files, raw corpus files, or folders")
    replay.add_argument("--target", metavar="NAME", help="target of raw inputs")
    replay.add_argument("--impl", metavar="NAME", help="override the implementation")
    replay.add_argument("--timeout", type=positive_seconds, default=5, metavar="SECONDS",
                        help="per-input time limit; a slower input is a timeout (default 5)")
    add_accept_option(replay)
    _add_report_options(replay)
    replay.set_defaults(func=_cmd_replay)

    migrate = sub.add_parser(
        "migrate", help="rewrite findings recorded with an older signature format",
        description="Replay each finding of an older signature format and rewrite it under "
        "the current signature (new id), keeping its status, history and hits.")
    migrate.add_argument("--findings", default="findings", metavar="DIR")
    migrate.add_argument("--impl", metavar="NAME",
                         help="implementation for findings that name one not built in")
    migrate.add_argument("-v", "--verbose", action="store_true",
                         help="also list records that are current")
    migrate.set_defaults(func=_cmd_migrate)

    corpus = sub.add_parser("corpus", help="manage the corpus")
    corpus_sub = corpus.add_subparsers(dest="corpus_command", metavar="ACTION")
    corpus_sub.required = True
    seed = corpus_sub.add_parser("seed", help="write the spec-vector seeds for each target")
    seed.add_argument("targets", nargs="*", metavar="TARGET", help="default: all targets")
    seed.add_argument("--corpus", type=folder_path, default="corpus", metavar="DIR")
    seed.set_defaults(func=_cmd_corpus_seed)

    merge = corpus_sub.add_parser(
        "merge", help="shrink each target's corpus to the inputs that add coverage",
        description="libFuzzer -merge=1: replace corpus/<target> by the smallest set of its "
        "inputs (plus --input folders) with the same coverage, atomically.")
    merge.add_argument("targets", nargs="*", metavar="TARGET",
                       help="default: every target with a corpus folder")
    merge.add_argument("--corpus", type=folder_path, default="corpus", metavar="DIR")
    merge.add_argument("--input", action="append", default=[], metavar="DIR",
                       help="another folder of inputs to merge in (repeatable)")
    merge.add_argument("--findings", type=folder_path, default="findings", metavar="DIR",
                       help="findings whose inputs the merge keeps (default: findings)")
    merge.add_argument("--impl", default="urllib", metavar="NAME",
                       help="implementation the diff_* targets run (it shapes coverage)")
    merge.add_argument("--harness", metavar="DIR", help="harness folder (default: ./harness)")
    merge.add_argument("--timeout", type=whole_seconds, default=5, metavar="SECONDS",
                       help="per-input time limit")
    merge.set_defaults(func=_cmd_corpus_merge)
