"""``pctfuzz fuzz``, ``pctfuzz targets`` and ``pctfuzz replay``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..cli import EXIT_FOUND, EXIT_OK, EXIT_USAGE


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


def _cmd_fuzz(args: argparse.Namespace) -> int:
    from ..campaign import run_campaign
    from ..oracles import get_impl

    get_impl(args.impl)  # fail fast, before any process starts
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
    print(result.summary())
    for stats in result.stats:
        for error in stats.errors:
            print(f"[{stats.target}] {error}", file=sys.stderr)
    return EXIT_FOUND if result.new_findings else EXIT_OK


def _cmd_replay(args: argparse.Namespace) -> int:
    from ..replay import Verdict, replay_paths

    reproduced = unusable = 0
    for item in replay_paths([Path(p) for p in args.paths], target=args.target,
                             impl=args.impl, timeout=args.timeout):
        if isinstance(item, Verdict):
            reproduced += item.reproduces
            print(item.line())
        else:
            unusable += 1
            print(f"{item[0]}: error: {item[1]}", file=sys.stderr)
    if reproduced:
        return EXIT_FOUND
    return EXIT_USAGE if unusable else EXIT_OK


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


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    targets = sub.add_parser("targets", help="list the fuzz targets")
    targets.set_defaults(func=_cmd_targets)

    fuzz = sub.add_parser(
        "fuzz", help="run a bounded atheris campaign",
        description="Fuzz the targets as atheris subprocesses within the time budget. "
        "Exit 0: no new finding; 1: a new finding was saved; 2: usage error.")
    fuzz.add_argument("targets", nargs="*", metavar="TARGET", help="default: all targets")
    fuzz.add_argument("--max-time", type=float, default=60, metavar="SECONDS",
                      help="wall-clock budget for the whole campaign (default 60)")
    fuzz.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                      help="targets fuzzed at once (default: cores)")
    fuzz.add_argument("--impl", default="urllib", metavar="NAME",
                      help="implementation under test: a registered name or module:Class")
    fuzz.add_argument("--corpus", default="corpus", metavar="DIR")
    fuzz.add_argument("--findings", default="findings", metavar="DIR")
    fuzz.add_argument("--timeout", type=int, default=5, metavar="SECONDS",
                      help="per-input time limit; a slower input is a timeout finding")
    fuzz.add_argument("--rss-limit-mb", type=int, default=2048, metavar="MB",
                      help="memory limit; exceeding it is an oom finding")
    fuzz.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    fuzz.set_defaults(func=_cmd_fuzz)

    replay = sub.add_parser(
        "replay", help="replay findings or corpus inputs",
        description="One verdict line per input. Exit 1 if anything reproduces, 0 if "
        "nothing does, 2 if an input was unusable.")
    replay.add_argument("paths", nargs="+", metavar="PATH",
                        help="finding JSON files, raw corpus files, or folders")
    replay.add_argument("--target", metavar="NAME", help="target of raw inputs")
    replay.add_argument("--impl", metavar="NAME", help="override the implementation")
    replay.add_argument("--timeout", type=float, default=5, metavar="SECONDS")
    replay.set_defaults(func=_cmd_replay)

    corpus = sub.add_parser("corpus", help="manage the corpus")
    corpus_sub = corpus.add_subparsers(dest="corpus_command", metavar="ACTION")
    corpus_sub.required = True
    seed = corpus_sub.add_parser("seed", help="write the spec-vector seeds for each target")
    seed.add_argument("targets", nargs="*", metavar="TARGET", help="default: all targets")
    seed.add_argument("--corpus", default="corpus", metavar="DIR")
    seed.set_defaults(func=_cmd_corpus_seed)
