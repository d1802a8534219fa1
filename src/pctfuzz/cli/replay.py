"""``pctfuzz replay`` (one verdict per finding or corpus input) and ``pctfuzz migrate``
(rewrite records of an older signature format).

The work is imported inside each command's function, not at the top: ``pctfuzz --help``
imports every command module, and the campaign, store and reports would add to that
start-up what only a real run needs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from pctfuzz.cli.args import positive_seconds
from pctfuzz.cli.divergences import add_accept_option
from pctfuzz.cli.exits import EXIT_FOUND, EXIT_OK, EXIT_USAGE
from pctfuzz.cli.results import add_report_options, check_outputs, human_stream, write_reports

__all__ = ["add_command"]


def _cmd_replay(args: argparse.Namespace) -> int:
    from pctfuzz.fuzz.replay import Verdict, replay_paths
    from pctfuzz.project import Project
    from pctfuzz.reports import replay_results
    from pctfuzz.store import printable_path, utc_now

    dests = check_outputs(args)
    project = Project.load(accept=args.accept, impl=args.impl)
    project.activate()
    out = human_stream(dests)
    # A record replays against the implementation it names; the project's own adapter
    # ([tool.pctfuzz] impl) is the user's word, like --impl, so a record naming it may
    # use it. --impl overrides the record's.
    trusted = project.trusted_impls
    started, clock = utc_now(), time.monotonic()
    items: list[Verdict | tuple[Path, str]] = []
    reproduced = unusable = 0
    for item in replay_paths([Path(p) for p in args.paths], target=args.target,
                             impl=args.impl, timeout=args.timeout, trusted=trusted,
                             raw_impl=project.impl):
        items.append(item)
        if isinstance(item, Verdict):
            reproduced += item.reproduces
            print(item.line(), file=out)
        else:
            unusable += 1
            print(f"{printable_path(item[0])}: error: {item[1]}", file=sys.stderr)
    code = EXIT_FOUND if reproduced else EXIT_USAGE if unusable else EXIT_OK
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
    from pctfuzz.fuzz.migrate import migrate_findings
    from pctfuzz.project import Project

    project = Project.load(findings=args.findings, impl=args.impl)
    project.activate()
    for migration in migrate_findings(project.findings, impl=args.impl or project.impl,
                                      reidentify=args.reidentify):
        if migration.outcome != "current" or args.verbose:
            print(migration.line())
    return EXIT_OK



def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    replay = sub.add_parser(
        "replay", help="replay findings or corpus inputs",
        description="One verdict line per input. Exit 1 if anything reproduces, 0 if "
        "nothing does (or there is nothing to replay, which is said on stderr), 2 if an "
        "input was unusable.")
    replay.add_argument("paths", nargs="+", metavar="PATH",
                        help="finding JSON files, raw corpus files, or folders")
    replay.add_argument("--target", metavar="NAME", help="target of raw inputs")
    replay.add_argument("--impl", metavar="NAME", help="override the implementation")
    replay.add_argument("--timeout", type=positive_seconds, default=5, metavar="SECONDS",
                        help="per-input time limit; a slower input is a timeout (default 5)")
    add_accept_option(replay)
    add_report_options(replay)
    replay.set_defaults(func=_cmd_replay)

    migrate = sub.add_parser(
        "migrate", help="rewrite findings of an older signature format; re-minimize all",
        description="Replay each finding of an older signature format and rewrite it under "
        "the current signature (new id), keeping its status, history and hits. Then "
        "re-minimize every finding that still fails with its signature to a 1-minimal "
        "case (same id, status, note and hits; a finding that now fails differently is "
        "kept as it is and listed).")
    migrate.add_argument("--findings", metavar="DIR",
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

