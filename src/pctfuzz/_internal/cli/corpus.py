"""``pctfuzz corpus seed`` (the spec vectors as seed inputs) and ``pctfuzz corpus merge``
(libFuzzer -merge=1 through the packaged harness, or the scripts of ``--harness``).

The work is imported inside each command's function, not at the top: ``pctfuzz --help``
imports every command module, and the campaign, store and reports would add to that
start-up what only a real run needs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pctfuzz._internal.cli.args import folder_path, whole_seconds
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.identity import RESOURCE_STOPS

__all__ = ["add_command"]


def _cmd_corpus_seed(args: argparse.Namespace) -> int:
    from pctfuzz._internal.fuzz.seeds import seed_cases
    from pctfuzz._internal.fuzz.staging import recover
    from pctfuzz._internal.project import Project
    from pctfuzz._internal.targets import TARGETS, get_target

    corpus = Project.load(corpus=args.corpus).corpus_store()
    recover(corpus)  # leftovers of killed runs on this corpus: removed, and said
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
    return ExitCode.OK


def _cmd_corpus_merge(args: argparse.Namespace) -> int:
    from pctfuzz._internal.fuzz.merge import merge_target
    from pctfuzz._internal.fuzz.staging import recover
    from pctfuzz._internal.project import Project
    from pctfuzz._internal.store import Corpus
    from pctfuzz._internal.targets import TARGETS, get_target

    project = Project.load(corpus=args.corpus, findings=args.findings, impl=args.impl)
    names = args.targets or list(TARGETS)
    for name in names:
        get_target(name)
    project.implementation()  # an unusable one is a usage error before any process
    corpus = project.corpus
    if not corpus.is_dir():
        raise UsageError(f"corpus folder {corpus} does not exist")
    recover(Corpus(corpus))  # leftovers of killed runs on this corpus: removed, and said
    harness = Path(args.harness) if args.harness else None  # None: the packaged harness
    keep = _finding_inputs(project.findings)
    for name in names:
        if not args.targets and not (corpus / name).is_dir():
            continue  # merging everything: skip targets that have no folder
        result = merge_target(name, corpus, harness=harness, impl=project.impl_name,
                              handoff=project.handoff(),
                              inputs=[Path(p) for p in args.input], timeout=args.timeout,
                              keep=keep.get(name, []))
        print(result.line())
        for line in result.skipped:
            print(f"[{name}] {line}", file=sys.stderr)
    return ExitCode.OK


def _finding_inputs(folder: Path) -> dict[str, list[bytes]]:
    """Target -> raw inputs of its findings, which a merge must keep. Timeouts, OOMs
    and crashes that stopped the process are left out: in the corpus, they would stop
    every campaign that starts."""
    from pctfuzz._internal.store import FindingStore, StoreProblem

    problems: list[StoreProblem] = []
    keep: dict[str, list[bytes]] = {}
    for finding in FindingStore(folder).iter_findings(problems):
        raw = finding.raw_bytes()
        if raw is not None and finding.kind not in RESOURCE_STOPS \
                and not finding.native_crash:
            keep.setdefault(finding.target, []).append(raw)
    for problem in problems:
        print(f"skipped {problem}", file=sys.stderr)
    return keep



def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    corpus = sub.add_parser("corpus", help="manage the corpus")
    corpus_sub = corpus.add_subparsers(dest="corpus_command", metavar="ACTION")
    corpus_sub.required = True
    seed = corpus_sub.add_parser("seed", help="write the spec-vector seeds for each target")
    seed.add_argument("targets", nargs="*", metavar="TARGET", help="default: all targets")
    seed.add_argument("--corpus", type=folder_path, metavar="DIR",
                      help="default: the project's corpus folder")
    seed.set_defaults(func=_cmd_corpus_seed)

    merge = corpus_sub.add_parser(
        "merge", help="shrink each target's corpus to the inputs that add coverage",
        description="libFuzzer -merge=1: replace corpus/<target> by the smallest set of its "
        "inputs (plus --input folders) with the same coverage, atomically.")
    merge.add_argument("targets", nargs="*", metavar="TARGET",
                       help="default: every target with a corpus folder")
    merge.add_argument("--corpus", type=folder_path, metavar="DIR",
                       help="default: the project's corpus folder")
    merge.add_argument("--input", action="append", default=[], metavar="DIR",
                       help="another folder of inputs to merge in (repeatable)")
    merge.add_argument("--findings", type=folder_path, metavar="DIR",
                       help="findings whose inputs the merge keeps (default: the "
                       "project's findings folder)")
    merge.add_argument("--impl", metavar="NAME",
                       help="implementation the diff_* targets run (it shapes coverage; "
                       "default: the project's, else urllib)")
    merge.add_argument("--harness", metavar="DIR",
                       help="a folder of fuzz_<target>.py scripts (default: the harness "
                       "packaged with pctfuzz, which `pctfuzz fuzz` runs)")
    merge.add_argument("--timeout", type=whole_seconds, default=5, metavar="SECONDS",
                       help="per-input time limit")
    merge.set_defaults(func=_cmd_corpus_merge)
