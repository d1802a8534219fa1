"""``pctfuzz fuzz``, ``pctfuzz targets`` and ``pctfuzz replay``."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from ..cli import EXIT_FOUND, EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE
from ..errors import PctfuzzError
from .args import JOBS_PER_CORE, folder_path, job_count, positive_seconds, whole_seconds
from .divergences import add_accept_option, set_accept


def _cmd_targets(args: argparse.Namespace) -> int:
    from ..targets import TARGETS

    width = max(map(len, TARGETS))
    for name, target in TARGETS.items():
        print(f"{name:<{width}}  {target.description}")
    return EXIT_OK


def _progress(stats: object) -> None:
    from ..campaign import TargetStats

    assert isinstance(stats, TargetStats)
    print(f"[{stats.target}] execs={stats.execs} exec/s={stats.exec_per_s} cov={stats.cov} "
          f"corpus={stats.corpus_units} findings={stats.findings}", file=sys.stderr, flush=True)


def _outputs(args: argparse.Namespace) -> tuple[str | None, str | None, str | None]:
    """(--json, --sarif, --junit), checked before any work starts."""
    from ..reports import check_destinations

    dests = (args.json, args.sarif, args.junit)
    check_destinations(*dests)
    return dests


def _human(dests: tuple[str | None, ...]) -> TextIO:
    """Where the human-readable lines go: stderr when a report is written to stdout."""
    return sys.stderr if "-" in dests else sys.stdout


def _write_reports(document: dict[str, Any], json_dest: str | None, sarif: str | None,
                   junit: str | None) -> None:
    import json

    from ..reports import to_json_text, to_junit, to_sarif, write_output

    if json_dest is not None:
        write_output(json_dest, to_json_text(document))
    if sarif is not None:
        write_output(sarif, json.dumps(to_sarif(document), indent=2, ensure_ascii=False) + "\n")
    if junit is not None:
        write_output(junit, to_junit(document))


def _cmd_fuzz(args: argparse.Namespace) -> int:
    from ..campaign import run_campaign
    from ..oracles import get_impl
    from ..reports import fuzz_results
    from ..store import utc_now

    dests = _outputs(args)
    set_accept(args.accept)  # PCTFUZZ_ACCEPT: the libFuzzer children inherit it
    get_impl(args.impl)  # fail fast, before any process starts
    started = utc_now()
    result = run_campaign(
        args.targets,
        max_time=args.max_time,
        jobs=args.jobs,
        impl=args.impl,
        corpus=Path(args.corpus),
        findings=Path(args.findings),
        timeout=args.timeout,
        rss_limit_mb=args.rss_limit_mb,
        progress=None if args.quiet else _progress,
    )
    out = _human(dests)
    print(result.summary(), file=out)
    for stats in result.stats:
        for error in stats.errors:
            print(f"[{stats.target}] {error}", file=sys.stderr)
    # Incomplete wins over "new finding": a lost finding may be the one that matters.
    code = (EXIT_INCOMPLETE if result.incomplete else
            EXIT_FOUND if result.new_findings else EXIT_OK)
    if any(d is not None for d in dests):
        from ..targets import TARGETS

        settings = {
            "targets": list(args.targets) or list(TARGETS), "max_time": args.max_time,
            "jobs": args.jobs, "impl": args.impl, "corpus": args.corpus,
            "findings": args.findings, "timeout": args.timeout,
            "rss_limit_mb": args.rss_limit_mb,
        }
        document = fuzz_results(result, settings=settings, findings_dir=Path(args.findings),
                                started=started, exit_code=code)
        _write_reports(document, *dests)
    return code


def _cmd_replay(args: argparse.Namespace) -> int:
    from ..replay import Verdict, replay_paths
    from ..reports import replay_results
    from ..store import printable_path, utc_now

    dests = _outputs(args)
    set_accept(args.accept)
    out = _human(dests)
    started, clock = utc_now(), time.monotonic()
    items: list[Verdict | tuple[Path, str]] = []
    reproduced = unusable = 0
    for item in replay_paths([Path(p) for p in args.paths], target=args.target,
                             impl=args.impl, timeout=args.timeout):
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
    from ..migrate import migrate_findings

    for migration in migrate_findings(Path(args.findings), impl=args.impl):
        if migration.outcome != "current" or args.verbose:
            print(migration.line())
    return EXIT_OK


def _cmd_corpus_seed(args: argparse.Namespace) -> int:
    from ..seeds import seed_cases
    from ..store import Corpus
    from ..targets import TARGETS, get_target

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
    from ..campaign import default_harness_dir
    from ..merge import merge_target
    from ..oracles import get_impl
    from ..targets import TARGETS, get_target

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
    from ..store import FindingStore, StoreProblem

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
        "fuzz", help="run a bounded atheris campaign",
        description="Fuzz the targets as atheris subprocesses within the time budget. "
        "Exit 0: no new finding; 1: a new finding was saved; 2: usage error; 3: incomplete "
        "(a finding or hits lost, a record unreadable, a target with 0 executions).")
    fuzz.add_argument("targets", nargs="*", metavar="TARGET", help="default: all targets")
    fuzz.add_argument("--max-time", type=positive_seconds, default=60, metavar="SECONDS",
                      help="wall-clock budget for the whole campaign (default 60)")
    fuzz.add_argument("--jobs", type=job_count, default=os.cpu_count() or 1, metavar="N",
                      help="libFuzzer processes at once (default: cores, at most "
                      f"{JOBS_PER_CORE} per core); with fewer targets than N, each target "
                      "gets several processes on its shared corpus")
    fuzz.add_argument("--impl", default="urllib", metavar="NAME",
                      help="implementation under test: a registered name or module:Class")
    fuzz.add_argument("--corpus", type=folder_path, default="corpus", metavar="DIR")
    fuzz.add_argument("--findings", type=folder_path, default="findings", metavar="DIR")
    fuzz.add_argument("--timeout", type=whole_seconds, default=5, metavar="SECONDS",
                      help="per-input time limit; a slower input is a timeout finding")
    fuzz.add_argument("--rss-limit-mb", type=int, default=2048, metavar="MB",
                      help="memory limit; exceeding it is an oom finding")
    fuzz.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    add_accept_option(fuzz)
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
