"""What ``pctfuzz fuzz`` and ``pctfuzz replay`` share about their machine-readable
results: the ``--json``/``--sarif``/``--junit`` options, checked before any work, and
writing them."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

__all__ = ["add_report_options", "check_outputs", "human_stream", "write_reports"]


def check_outputs(args: argparse.Namespace) -> tuple[str | None, str | None, str | None]:
    """(--json, --sarif, --junit), checked before any work starts."""
    # Imported here, not at the top: every command module is imported for ``--help``,
    # and the reports package adds about 160 ms to that (python -X importtime).
    from pctfuzz._internal.reports import check_destinations

    dests = (args.json, args.sarif, args.junit)
    check_destinations(*dests)
    return dests


def human_stream(dests: tuple[str | None, ...]) -> TextIO:
    """Where the human-readable lines go: stderr when a report is written to stdout."""
    return sys.stderr if "-" in dests else sys.stdout


def write_reports(document: dict[str, Any], json_dest: str | None, sarif: str | None,
                  junit: str | None) -> None:
    from pctfuzz._internal.reports import (  # see above
        to_json_text,
        to_junit,
        to_sarif,
        write_output,
    )

    if json_dest is not None:
        write_output(json_dest, to_json_text(document))
    if sarif is not None:
        write_output(sarif, json.dumps(to_sarif(document), indent=2, ensure_ascii=False) + "\n")
    if junit is not None:
        write_output(junit, to_junit(document))


def add_report_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("machine-readable results (FILE or - for stdout)")
    group.add_argument("--json", metavar="FILE",
                       help="results as JSON (schema: pctfuzz report --schema)")
    group.add_argument("--sarif", metavar="FILE", help="SARIF 2.1.0 log (code scanning)")
    group.add_argument("--junit", metavar="FILE", help="JUnit XML (CI test reports)")


