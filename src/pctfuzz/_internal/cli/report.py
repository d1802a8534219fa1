"""``pctfuzz report`` (the findings table, an HTML page, JSON) and ``pctfuzz export``
(findings as a standalone pytest file). See ``pctfuzz._internal.reports``.

``pctfuzz._internal.reports`` and ``pctfuzz._internal.store`` are imported inside the commands, not
here:
``pctfuzz._internal.cli.main`` imports this module for every command, and those two packages
(with the targets, checks and oracles they import) add about 160 ms to the 240 ms of
``pctfuzz --help`` (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pctfuzz._internal.cli.args import folder_path
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.exits import ExitCode

if TYPE_CHECKING:
    from pctfuzz._internal.project import Project

__all__ = ["add_command"]

_ID = re.compile(r"[0-9a-f]{16}")


def _cmd_report(args: argparse.Namespace) -> int:
    from pctfuzz._internal.reports import (  # lazy: start-up time (module docstring)
        RESULTS_SCHEMA,
        check_destinations,
        findings_markdown,
        findings_table,
        load_campaign,
        render_html,
        report_results,
        to_json_text,
        write_output,
    )
    from pctfuzz._internal.store import FindingStore, StoreProblem  # lazy: start-up time

    if args.schema:
        print(json.dumps(RESULTS_SCHEMA, indent=2))
        return ExitCode.OK
    if args.upstream:
        return _upstream(args)
    check_destinations(args.html, args.json, args.markdown)
    project = _project(args.findings)
    folder = project.findings
    if not folder.is_dir():
        raise UsageError(f"findings folder {folder} does not exist")
    campaign = load_campaign(Path(args.campaign)) if args.campaign else None
    problems: list[StoreProblem] = []
    findings = list(FindingStore(folder).iter_findings(problems))
    document = report_results(
        findings, findings_dir=folder, problems=problems, campaign=campaign,
        settings={"findings": str(folder), "campaign": args.campaign})
    out = sys.stderr if "-" in (args.html, args.json, args.markdown) else sys.stdout
    if document["findings"]:
        print(findings_table(document["findings"]), file=out)
    print(f"{len(document['findings'])} finding(s) in {folder}", file=out)
    for problem in problems:
        print(f"skipped {problem}", file=sys.stderr)
    if args.json is not None:
        write_output(args.json, to_json_text(document))
    if args.html is not None:
        write_output(args.html, render_html(document, findings))
    if args.markdown is not None:
        shown = folder  # the runner's absolute path says nothing in a job summary
        with contextlib.suppress(ValueError):
            shown = folder.relative_to(project.root)
        write_output(args.markdown, findings_markdown(document["findings"], str(shown)))
    return ExitCode.OK


def _project(findings: str | None, impl: str | None = None) -> Project:
    """The project (``pctfuzz._internal.project``): ``--findings`` (and ``--impl``) over
    ``[tool.pctfuzz]``. These commands only read: an accept file that is code (a .py
    file, a module) is not run (``Project.read_only``); none of their output depends on
    its entries."""
    from pctfuzz._internal.project import Project

    project = Project.load(findings=findings, impl=impl, read_only=True)
    project.activate()
    return project


def _upstream(args: argparse.Namespace) -> int:
    """``report --upstream ID``: the finding as a Markdown issue body, against the
    implementation it names (built in, or the project's), or ``--impl``."""
    from pctfuzz._internal.fuzz.replay import is_builtin_impl
    from pctfuzz._internal.reports import check_destinations, write_output
    from pctfuzz._internal.reports.upstream import upstream_report
    from pctfuzz._internal.store import StoreError
    from pctfuzz._internal.targets import get_target

    check_destinations(args.output)
    project = _project(args.findings, impl=args.impl)
    try:
        finding = project.finding_store().get(args.upstream)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    name = args.impl or finding.impl or "urllib"
    trusted = project.trusted_impls
    if name not in trusted and not is_builtin_impl(get_target(finding.target), name):
        raise UsageError(f"finding {finding.id} names implementation {name!r}, which is not "
                         "built in; pass --impl to load it")
    path = project.findings / finding.file_name
    with contextlib.suppress(ValueError):  # shown relative to here when it is under it
        path = path.relative_to(Path.cwd())
    text = upstream_report(finding, project.implementation(name), path=str(path),
                           impl=name if name in trusted else "")
    write_output(args.output, text)
    if args.output != "-":
        print(f"issue body for {finding.id} written to {args.output}", file=sys.stderr)
    return ExitCode.OK


def _cmd_triage(args: argparse.Namespace) -> int:
    """Set findings' status (and note): the triage verdict later campaigns keep."""
    from pctfuzz._internal.store import StoreError  # lazy: start-up time

    store = _project(args.findings).finding_store()
    ids = list(dict.fromkeys(args.ids))
    try:
        # Every id looked up first: a typo changes nothing, and an id with no record
        # is an error before any lock file is made.
        for ident in ids:
            store.get(ident)
        for ident in ids:
            updated = store.update_status(ident, args.status, args.note)
            note = f" ({updated.note})" if updated.note else ""
            print(f"{updated.id}: {updated.status}{note}")
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    return ExitCode.OK


def _collect(items: list[str], findings_dir: Path) -> list[tuple[Any, str]]:
    """(Finding, source) for finding files, folders of them, and ids in ``findings_dir``."""
    from pctfuzz._internal.store import (  # lazy: start-up time
        FindingStore,
        StoreError,
        load_finding,
    )

    chosen: list[tuple[Any, str]] = []
    for item in items:
        path = Path(item)
        if path.is_dir() and not path.is_symlink():
            store = FindingStore(path)
            problems: list[Any] = []
            chosen += [(f, str(path / f.file_name)) for f in store.iter_findings(problems)]
            if problems:
                raise UsageError(str(problems[0]))
        elif path.exists() or path.is_symlink() or not _ID.fullmatch(item):
            chosen.append((load_finding(path), str(path)))
        else:
            try:
                finding = FindingStore(findings_dir).get(item)
            except StoreError as exc:
                raise UsageError(str(exc)) from None
            chosen.append((finding, str(findings_dir / finding.file_name)))
    unique = {f.id: (f, source) for f, source in chosen}
    return list(unique.values())


def _cmd_export(args: argparse.Namespace) -> int:
    from pctfuzz._internal.reports import (  # lazy: start-up time (module docstring)
        check_destinations,
        export_examples,
        export_tests,
        write_output,
    )

    check_destinations(args.output)
    project = _project(args.findings_dir, impl=args.impl)
    findings = _collect(args.findings, project.findings)
    if args.impl is not None:  # the user's word replaces the records'
        findings = [(dataclasses.replace(f, impl=args.impl), source) for f, source in findings]
    # A record is exported against the implementation it names: one that the test
    # would import must load now (one line, exit 2), never fail only when it runs.
    for finding, _source in findings:
        if finding.impl in project.trusted_impls:
            project.implementation(finding.impl)
    source = (export_examples(findings) if args.hypothesis
              else export_tests(findings, trusted=project.trusted_impls))
    write_output(args.output, source)
    if args.output != "-":
        print(f"{len(findings)} finding(s) exported to {args.output}", file=sys.stderr)
    return ExitCode.OK


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    report = sub.add_parser(
        "report", help="summarize the findings (table, HTML, JSON)",
        description="Print the findings table (id, target, kind, status, hits, "
        "implementation and version, case, expected, actual; then each signature and the "
        "command that reproduces it); --html writes a single-file HTML report, --json the "
        "results document. The HTML report leads with what to fix: the open findings "
        "(behaviour, impact, minimal input, expected and actual side by side, the commands "
        "that replay or accept each), then the accepted and triaged ones, the fixed ones, "
        "and the statistics last.")
    report.add_argument("--findings", type=folder_path, metavar="DIR",
                        help="default: the project's findings folder ([tool.pctfuzz] "
                        "findings, else findings/ in the project root)")
    report.add_argument("--html", metavar="FILE",
                        help="write an HTML report, open findings first")
    report.add_argument("--json", metavar="FILE", help="write JSON (FILE or - for stdout)")
    report.add_argument("--markdown", metavar="FILE",
                        help="write the findings as a Markdown table, open ones first, with "
                        "their replay commands (FILE or - for stdout; for a CI job summary: "
                        "--markdown - >> \"$GITHUB_STEP_SUMMARY\")")
    report.add_argument("--campaign", metavar="FILE",
                        help="a `pctfuzz fuzz --json` file: add its per-target statistics")
    report.add_argument("--schema", action="store_true",
                        help="print the JSON Schema of --json output (fuzz, replay, report)")
    report.add_argument("--upstream", metavar="ID",
                        help="write finding ID as the Markdown body of an issue for the "
                        "library's tracker (library and version, minimal input, expected "
                        "answer and the spec section, actual answer, a reproduction with the "
                        "library alone when the adapter can write one)")
    report.add_argument("--impl", metavar="NAME",
                        help="with --upstream: the implementation to load (default: the "
                        "record's, if built in or [tool.pctfuzz] impl)")
    report.add_argument("-o", "--output", default="-", metavar="FILE",
                        help="with --upstream: the file to write (default: stdout)")
    report.set_defaults(func=_cmd_report)

    triage = sub.add_parser(
        "triage", help="set findings' status: new, fixed, or a triage verdict",
        description="Record the triage verdict of findings ID... in their records (kept by "
        "later campaigns, shown by report). new: open (a campaign that replays it fails "
        "while it reproduces); known-divergence: intended behaviour (`pctfuzz accept` "
        "also writes the accept file); false-positive: not a bug; adapter-bug: the "
        "adapter's own mistake; wont-fix: a bug nobody will fix; fixed: fixed (a campaign "
        "marks it so when a replay no longer reproduces it). A triaged finding never fails "
        "a run; a fixed one that fails again in a campaign is open again.")
    triage.add_argument("ids", nargs="+", metavar="ID", help="finding ids (16 hex digits)")
    triage.add_argument("--status", required=True,
                        choices=("new", "known-divergence", "false-positive", "adapter-bug",
                                 "wont-fix", "fixed"))
    triage.add_argument("--note", metavar="TEXT", help="one line: why (an upstream issue...)")
    triage.add_argument("--findings", type=folder_path, metavar="DIR",
                        help="default: the project's findings folder ([tool.pctfuzz] "
                        "findings, else findings/ in the project root)")
    triage.set_defaults(func=_cmd_triage)

    export = sub.add_parser(
        "export", help="write findings as a standalone pytest file",
        description="Write a pytest module with one test per finding that fails while the "
        "finding reproduces. Differential findings against urllib call urllib.parse "
        "directly; the others run pctfuzz's check (no findings store needed).")
    export.add_argument("findings", nargs="+", metavar="FINDING",
                        help="finding JSON files, folders of them, or finding ids")
    export.add_argument("--hypothesis", action="store_true",
                        help="write Hypothesis @example decorators (ENCODE_EXAMPLES, ...) "
                        "for your own @given tests instead of a test module")
    export.add_argument("--impl", metavar="NAME",
                        help="export against this implementation instead of the one each "
                        "record names (a record naming the project's [tool.pctfuzz] impl "
                        "uses it without this flag)")
    export.add_argument("-o", "--output", default="-", metavar="FILE",
                        help="the test file to write (default: stdout)")
    export.add_argument("--findings", dest="findings_dir", type=folder_path, metavar="DIR",
                        help="where to look finding ids up (default: the project's "
                        "findings folder)")
    export.set_defaults(func=_cmd_export)
