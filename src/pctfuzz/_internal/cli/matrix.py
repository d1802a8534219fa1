"""``pctfuzz matrix``: one campaign over many implementations, then a conformance matrix
(``fuzz.matrix`` runs it, ``reports.matrix`` renders it; docs/peers.md).

Every available built-in implementation by default (one line on stderr says which
were skipped and why), or those given with ``--impl`` (one that is not available is a
usage error). Writes ``matrix.md`` and ``matrix.html`` into ``--out`` (the findings
first, then the rows with a bug; ``--all-rows``: every row), ``matrix.json`` (every
row), prints a line per dated change of the standard's sets (who is on its new side,
who on its old: ``reports.matrix_changes``), and the findings,
recorded as ``pctfuzz fuzz`` records them, into ``--out``'s ``findings/`` folder: a
survey of other people's libraries is not the project's regression store (whose every
record the pytest plugin makes a test item), so that store changes only when
``--findings`` names it.

Exit codes: 0 no bug; 1 a cell has a bug (a finding is recorded); 2 usage error or an
``--impl`` that is not available; 3 incomplete (a finding lost, an input unreadable, no
implementation answered anything, or a peer failed mid-run: it died or timed out with
no input to blame, or could not be started again), which wins over 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pctfuzz._internal.cli.args import count
from pctfuzz._internal.cli.divergences import add_no_accepted_option
from pctfuzz._internal.errors import PctfuzzError, UsageError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.fuzz.matrix import CHECK_OF, run_matrix
from pctfuzz._internal.oracles.base import Impl
from pctfuzz._internal.oracles.registry import IMPLS, get_impl, impl_language
from pctfuzz._internal.reports.matrix import (
    counts_text,
    matrix_counts,
    render_matrix_html,
    render_matrix_markdown,
)
from pctfuzz._internal.reports.matrix_changes import changes_lines
from pctfuzz._internal.reports.matrix_json import render_matrix_json
from pctfuzz._internal.text import one_line

__all__ = ["add_command"]


def _implementations(names: list[str] | None) -> dict[str, Impl]:
    chosen: dict[str, Impl] = {}
    if names:
        for name in names:
            chosen[name] = get_impl(name)  # not available: a usage error, exit 2
        return chosen
    skipped = []
    for name in IMPLS:
        try:
            chosen[name] = get_impl(name)
        except PctfuzzError as exc:
            skipped.append(f"{name} ({one_line(str(exc))[:80]})")
    if skipped:
        print(f"pctfuzz matrix: not available, skipped: {'; '.join(skipped)}", file=sys.stderr)
    return chosen


def _cmd_matrix(args: argparse.Namespace) -> int:
    from pctfuzz._internal.project import Project

    project = Project.load(corpus=args.corpus, findings=args.findings,
                           no_accepted=args.no_accepted)
    project.activate()  # its root importable, its accept file checked (run_settings: below)
    out = Path(args.out)
    findings = project.findings if args.findings else out / "findings"
    corpus = project.corpus
    targets = args.target or list(CHECK_OF)
    unknown = [t for t in targets if t not in CHECK_OF]
    if unknown:
        raise UsageError(f"--target {unknown[0]}: one of {', '.join(CHECK_OF)}")
    impls = _implementations(args.impl)
    if not impls:
        raise UsageError("no implementation is available (pctfuzz impls says why)")
    try:
        run = run_matrix(impls, max_time=args.max_time, findings=findings, corpus=corpus,
                         targets=targets, seed=args.seed, max_inputs=args.max_inputs,
                         settings=project.run_settings)
    finally:
        for impl in impls.values():
            close = getattr(impl, "close", None)
            if callable(close):
                close()
    languages = {name: impl_language(name) if name in IMPLS else "" for name in impls}
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "matrix.md").write_text(
            render_matrix_markdown(run, languages, all_rows=args.all_rows), encoding="utf-8")
        (out / "matrix.html").write_text(
            render_matrix_html(run, languages, all_rows=args.all_rows), encoding="utf-8")
        (out / "matrix.json").write_text(render_matrix_json(run, languages), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--out {out}: {exc.strerror or exc}") from None
    counts = matrix_counts(run)  # the pages show the same counts, in the same words
    print(f"pctfuzz matrix: {counts_text(counts)}"
          + (f"; {len(run.incomplete)} incomplete (a peer failed)" if run.incomplete else "")
          + f"; findings in {findings}; wrote {out / 'matrix.html'}, {out / 'matrix.md'} and "
          f"{out / 'matrix.json'}")
    for line in changes_lines(run):  # who follows each of the standard's set changes
        print(f"pctfuzz matrix: {line}")
    for line in run.lost[:5]:
        print(f"pctfuzz matrix: lost: {line}", file=sys.stderr)
    incomplete = run.incomplete
    for name, reasons in incomplete.items():
        more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
        print(f"pctfuzz matrix: INCOMPLETE: {one_line(name, 100)}: peer failed: "
              f"{one_line(reasons[-1], 300)}{more}", file=sys.stderr)
    if run.lost or not run.cells or incomplete:
        return ExitCode.INCOMPLETE
    return ExitCode.FOUND if counts.bug else ExitCode.OK


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "matrix", help="fuzz many implementations at once; write a conformance matrix",
        description="Ask every input of every implementation (the reference answers each "
        "case once), record findings per implementation, and write matrix.md, "
        "matrix.html and matrix.json: the findings, then the implementations with a bug by "
        "operation and set (--all-rows: every implementation), which side of each dated "
        "change of the standard's percent-encode sets each one is on (asked, not looked "
        "up), and the pairs that disagree. The counts printed are the pages'.",
        epilog="Exit codes: 0 no bug; 1 a bug was found; 2 usage error; 3 incomplete (a "
        "finding lost, nothing answered, or a peer failed mid-run: its implementation is "
        "marked incomplete on the pages).")
    parser.add_argument("--impl", action="append", metavar="NAME",
                        help="an implementation (repeatable; default: every available one)")
    parser.add_argument("--max-time", type=float, default=60.0, metavar="SECONDS",
                        help="wall-clock budget (default 60)")
    parser.add_argument("--max-inputs", type=count, metavar="N",
                        help="stop once each target has asked N inputs (also bounded by "
                        "--max-time): a run of a fixed size, whatever the machine's load")
    parser.add_argument("--target", action="append", metavar="TARGET",
                        help=f"a differential target (repeatable; default all: "
                        f"{', '.join(CHECK_OF)})")
    parser.add_argument("--out", default="pctfuzz-matrix", metavar="DIR",
                        help="where matrix.md, matrix.html, matrix.json and findings/ go "
                        "(default pctfuzz-matrix)")
    parser.add_argument("--findings", metavar="DIR",
                        help="where to record the findings (default: findings/ in --out; "
                        "the project's findings store only when named here)")
    parser.add_argument("--corpus", metavar="DIR",
                        help="seed inputs (read only; default: corpus/ in the project)")
    parser.add_argument("--seed", type=int, default=0, help="the mutation loop's seed")
    parser.add_argument("--all-rows", action="store_true",
                        help="put every implementation in the pages' table (default: the "
                        "findings, then the rows with a bug; matrix.html folds the others "
                        "below, matrix.md names them)")
    add_no_accepted_option(parser)
    parser.set_defaults(func=_cmd_matrix)
