"""``pctfuzz replay`` (one verdict per finding or corpus input) and ``pctfuzz migrate``
(rewrite records of an older signature format).

The work is imported inside each command's function, not at the top: ``pctfuzz --help``
imports every command module, and the campaign, store and reports would add to that
start-up what only a real run needs.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pctfuzz._internal.cli.args import folder_path, memory_mb, positive_seconds
from pctfuzz._internal.cli.divergences import add_accept_option, add_no_accepted_option
from pctfuzz._internal.cli.results import (
    add_report_options,
    check_outputs,
    human_stream,
    write_reports,
)
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.fuzz.protocol import DEFAULT_RSS_LIMIT_MB

if TYPE_CHECKING:
    from pctfuzz._internal.project import Project

__all__ = ["add_command"]


def _cmd_replay_open(args: argparse.Namespace, project: Project, dests: Any, out: Any) -> int:
    """``replay --open``: every open finding of the implementation, verdicts recorded.

    Bounded by ``--timeout`` per case and ``--max-time`` in all; SIGINT, SIGTERM and
    SIGHUP end the replay, not the command (``replay.StopOnSignals``): the verdicts so
    far, the findings left unreplayed and the results files are still written."""
    from pctfuzz._internal.fuzz.replay import StopOnSignals, replay_open
    from pctfuzz._internal.reports import replay_results
    from pctfuzz._internal.store import printable_path, utc_now
    from pctfuzz._internal.text import one_line

    if args.paths:
        raise UsageError("--open replays the findings store; give no PATH")
    impl = project.impl_name
    findings = project.findings
    if not findings.is_dir():
        raise UsageError(f"findings folder {printable_path(findings)} does not exist")
    started, clock = utc_now(), time.monotonic()
    with StopOnSignals() as stop:
        verified = replay_open(findings, impl, timeout=args.timeout,
                               max_seconds=args.max_time, stop=stop,
                               settings=project.run_settings, rss_limit_mb=args.rss_limit_mb)
        for verdict in verified.verdicts:
            print(verdict.line(), file=out)
        print(verified.lines()[-1], file=out)
        for path, message in verified.skipped:
            print(f"pctfuzz: WARNING: {printable_path(path)}: not a finding record, skipped: "
                  f"{one_line(message)}", file=sys.stderr)
        for path, message in verified.errors:
            print(f"{printable_path(path)}: error: {message}", file=sys.stderr)
        incomplete = verified.not_replayed_lines()
        stopped_by = verified.stopped_by or stop.signum
        if stopped_by is not None:
            incomplete.insert(0, f"INCOMPLETE: stopped by {signal.Signals(stopped_by).name} "
                              f"during the replay of open findings ({len(verified.verdicts)} "
                              "replayed)")
        for line in incomplete:
            print(f"pctfuzz: {line}", file=sys.stderr)
        # Incomplete first, as for a campaign: a finding not replayed may be the one
        # that still fails. A stop by a signal: 128 + its number unless one fails.
        code = (ExitCode.INCOMPLETE if verified.incomplete
                else ExitCode.FOUND if verified.reproduced
                else ExitCode.stopped_by(stopped_by) if stopped_by is not None
                else ExitCode.OK)
        if any(d is not None for d in dests):
            settings: dict[str, Any] = {"paths": [], "target": None, "impl": impl,
                                        "timeout": args.timeout, "findings": str(findings)}
            if args.max_time is not None:
                settings["max_time"] = args.max_time
            items: list[Any] = [*verified.verdicts, *verified.errors]
            items += [(path, f"INCOMPLETE: open finding {ident} not replayed "
                       f"({verified.why_not_replayed}; still open)")
                      for path, ident in verified.not_replayed]
            if stopped_by is not None:
                items.append((findings, incomplete[0]))
            document = replay_results(items, settings=settings, started=started,
                                      seconds=time.monotonic() - clock, exit_code=code)
            write_reports(document, *dests)
    return code


def _by_id(project: Project, given: str) -> Path:
    """A path as given, or for a finding id that is no file here, its record in the
    project's store (an id ``pctfuzz migrate`` replaced resolves to its new record)."""
    from pctfuzz._internal.store import ID_RE, StoreError

    if os.path.lexists(given) or not ID_RE.fullmatch(given):
        return Path(given)
    store = project.finding_store()
    try:
        return store.path_for(store.get(given))
    except StoreError:
        return Path(given)  # replay says it does not exist


def _cmd_replay(args: argparse.Namespace) -> int:
    from pctfuzz._internal.fuzz.replay import Verdict, replay_paths
    from pctfuzz._internal.project import Project
    from pctfuzz._internal.reports import replay_results
    from pctfuzz._internal.store import printable_path, utc_now

    dests = check_outputs(args)
    project = Project.load(accept=args.accept, impl=args.impl, findings=args.findings,
                           no_accepted=args.no_accepted)
    project.activate()
    out = human_stream(dests)
    if args.open or not args.paths:
        # No PATH: the project's open findings, the usual thing to check after a fix.
        return _cmd_replay_open(args, project, dests, out)
    # A record replays against the implementation it names; the project's own adapter
    # ([tool.pctfuzz] impl) is the user's word, like --impl, so a record naming it may
    # use it. --impl overrides the record's.
    trusted = project.trusted_impls
    paths = [_by_id(project, p) for p in args.paths]
    started, clock = utc_now(), time.monotonic()
    items: list[Verdict | tuple[Path, str]] = []
    reproduced = unusable = 0
    for item in replay_paths(paths, target=args.target,
                             impl=args.impl, timeout=args.timeout, trusted=trusted,
                             raw_impl=project.impl, settings=project.run_settings,
                             rss_limit_mb=args.rss_limit_mb):
        items.append(item)
        if isinstance(item, Verdict):
            reproduced += item.reproduces
            print(item.line(), file=out)
        else:
            unusable += 1
            print(f"{printable_path(item[0])}: error: {item[1]}", file=sys.stderr)
    code = ExitCode.FOUND if reproduced else ExitCode.USAGE if unusable else ExitCode.OK
    if not items:  # an empty findings folder: say so, rather than a silent success
        print(f"pctfuzz replay: nothing to replay: no finding or corpus input under "
              f"{', '.join(printable_path(Path(p)) for p in args.paths)}", file=sys.stderr)
    if any(d is not None for d in dests):
        settings = {"paths": list(args.paths), "target": args.target, "impl": args.impl,
                    "timeout": args.timeout}
        document = replay_results(items, settings=settings, started=started,
                                  seconds=time.monotonic() - clock, exit_code=code)
        write_reports(document, *dests)
    return code


def _cmd_migrate(args: argparse.Namespace) -> int:
    from pctfuzz._internal.fuzz.migrate import migrate_findings
    from pctfuzz._internal.project import Project
    from pctfuzz._internal.store import printable_path

    project = Project.load(findings=args.findings, impl=args.impl)
    project.activate()
    findings = project.findings
    if not findings.is_dir():  # a typo must not look like a store with nothing to do
        what = "is not a directory" if os.path.lexists(findings) else "does not exist"
        raise UsageError(f"findings folder {printable_path(findings)} {what}")
    skipped = failed = 0
    for migration in migrate_findings(findings, impl=args.impl or project.impl,
                                      reidentify=args.reidentify,
                                      settings=project.run_settings):
        skipped += migration.outcome == "skipped"
        failed += migration.failed
        if migration.outcome != "current" or args.verbose:
            print(migration.line())
    if skipped:
        print(f"pctfuzz migrate: {skipped} record(s) skipped: of another implementation "
              "than --impl (migrate them with theirs)")
    if failed:
        print(f"pctfuzz migrate: error: {failed} record(s) could not be rewritten",
              file=sys.stderr)
        return ExitCode.INCOMPLETE
    return ExitCode.OK


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    replay = sub.add_parser(
        "replay", help="replay findings or corpus inputs",
        description="One verdict line per input; with no PATH, every open finding of "
        "the project's findings store (as --open). Exit 1 if anything reproduces, 0 if "
        "nothing does (or there is nothing to replay, which is said on stderr), 2 if an "
        "input was unusable (--open: 3 if an open finding could not be replayed, or "
        "--max-time left some unreplayed; 129/130/143 if SIGHUP/SIGINT/SIGTERM stopped "
        "it and none still fails).")
    replay.add_argument("paths", nargs="*", metavar="PATH",
                        help="finding JSON files or ids (in the findings store), raw corpus "
                        "files, or folders (none: the open findings, as --open)")
    replay.add_argument("--open", action="store_true",
                        help="replay every open finding of the implementation in the "
                        "findings store; one that no longer reproduces becomes fixed "
                        "(with the implementation's version), one that still does exits 1")
    replay.add_argument("--findings", type=folder_path, metavar="DIR",
                        help="the findings store of --open and of finding ids (default: the "
                        "project's)")
    replay.add_argument("--target", metavar="NAME", help="target of raw inputs")
    replay.add_argument("--impl", metavar="NAME", help="override the implementation")
    replay.add_argument("--timeout", type=positive_seconds, default=5, metavar="SECONDS",
                        help="per-input time limit; a slower input is a timeout (default 5)")
    replay.add_argument("--rss-limit-mb", type=memory_mb, default=DEFAULT_RSS_LIMIT_MB,
                        metavar="MB", help="memory limit of a finding that stopped its "
                        "process (a crash, timeout or oom: run in a process of its own); "
                        f"more is an oom (0: no limit; default {DEFAULT_RSS_LIMIT_MB})")
    replay.add_argument("--max-time", type=positive_seconds, metavar="SECONDS",
                        help="--open: bound on the whole replay (default: none); the open "
                        "findings it leaves are listed, still open, and the run is "
                        "incomplete (exit 3)")
    add_accept_option(replay)
    add_no_accepted_option(replay)
    add_report_options(replay)
    replay.set_defaults(func=_cmd_replay)

    migrate = sub.add_parser(
        "migrate", help="rewrite findings of an older signature format; re-minimize all",
        description="Replay each finding of an older signature format and rewrite it under "
        "the current signature (new id), keeping its status, history and hits. Then "
        "re-minimize every finding that still fails with its signature to a 1-minimal "
        "case (same id, status, note and hits; a finding that now fails differently is "
        "kept as it is and listed). With --impl, a finding of another implementation is "
        "skipped. Two migrations of one store run one after the other, and a migration "
        "that was stopped can be run again: no hit is counted twice.",
        epilog="Exit codes: 0 done; 2 usage error, a --findings that is missing or not a "
        "folder, or a store that cannot be written; 3 a finding could not be rewritten.")
    migrate.add_argument("--findings", type=folder_path, metavar="DIR",
                         help="default: the project's findings folder")
    migrate.add_argument("--impl", metavar="NAME",
                         help="implementation for findings that name one not built in")
    migrate.add_argument("--reidentify", action="store_true",
                         help="also rewrite a finding whose case now fails with another "
                         "signature of the same target, kind and check (after an identity "
                         "change): new id, its status, note and hits kept")
    migrate.add_argument("-v", "--verbose", action="store_true",
                         help="also list records that are current and 1-minimal")
    migrate.set_defaults(func=_cmd_migrate)

