"""``pctfuzz probe TARGET``: which percent-encode set an encoder implements.

The logic is ``pctfuzz._internal.checks.probe``.

Exit codes: 0 the report was printed (whether or not a set matches exactly); 2 the target
does not import, is neither a function nor an adapter, an adapter came without ``--set``,
or it answered no ASCII character.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from pctfuzz._internal.checks.probe import ProbeReport, load_encoder, probe

__all__ = ["add_command", "render"]


def render(report: ProbeReport) -> str:
    """The human-readable report: one fact per line."""
    asked = f" (encode with set {report.set})" if report.set else ""
    lines = [f"target: {report.target}{asked}"]
    if report.exact:
        others = [n for n in report.same_as if n != report.exact]
        lines.append(f"exact set: {report.exact}" + (f" (same bytes: {', '.join(others)})"
                                                     if others else ""))
    elif report.distance == 0:
        lines.append(
            f"exact set: none (the bytes match {report.nearest}, but some answers below are "
            "irregular or depend on context)"
        )
    else:
        lines.append("exact set: none")
        differ = "1 byte differs" if report.distance == 1 else f"{report.distance} bytes differ"
        lines.append(f"nearest set: {report.nearest} ({differ})")
        if report.also_encoded:
            lines.append(f"  also encodes: {report.also_encoded}")
        if report.left_raw:
            lines.append(f"  leaves raw: {report.left_raw}")
    if report.delimiters:  # declaring the spec would hide a bug: say so beside it
        lines.append(f"spec: {report.spec}    (check the warnings below before you "
                     "declare it)")
        lines += [f"  WARNING: {line}" for line in report.delimiters]
    else:
        lines.append(f"spec: {report.spec}    (use as --set NAME={report.spec})")
    if report.urllib_safe:
        lines.append(f"same set as: {report.urllib_safe}")
    for c, out in report.irregular.items():
        lines.append(f"irregular: {c!a} -> {out!a}")
    for text, out in report.context.items():
        lines.append(f"in context: {text!a} -> {out!a}")
    lines += [
        f"existing %HH: {report.existing_escapes}",
        f"invalid %zz, %4: {report.invalid_escapes}",
        f"hex case: {report.hex_case}",
        f"space: {report.space}",
        f"plus sign: {report.plus}",
        f"normalization: {report.normalization}",
        f"lone surrogates: {report.surrogates}",
        f"non-ASCII: {report.non_ascii}",
    ]
    return "\n".join(lines)


def _cmd_probe(args: argparse.Namespace) -> int:
    from pctfuzz._internal.errors import UsageError
    from pctfuzz._internal.project import Project

    project = Project.load()
    project.activate()  # a module of the project imports from any subfolder
    args.target = args.target or project.impl
    if not args.target:
        raise UsageError("give TARGET (module:function or module:Class); this project "
                         "names no [tool.pctfuzz] impl")
    fn, set_name = load_encoder(args.target, args.set)
    report = probe(fn, args.target, set_name=set_name)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(render(report))
    return 0


def add_command(subparsers: Any) -> None:
    """Register ``probe`` on the ``pctfuzz`` subparsers."""
    parser = subparsers.add_parser(
        "probe",
        help="infer the percent-encode set a function or adapter implements",
        description="Call an encoder on every ASCII character and a battery of %%HH, "
        "space, non-ASCII, normalization and surrogate cases; report the named set it "
        "implements, or the nearest one and the difference as a set spec.",
        epilog="Exit codes: 0 report printed; 2 target unusable (import error, not an "
        "encoder, adapter without --set).",
    )
    parser.add_argument(
        "target",
        metavar="TARGET", nargs="?",
        help="module:function (str -> str) or module:Class (an adapter, with --set); "
        "default: the project's [tool.pctfuzz] impl",
    )
    parser.add_argument(
        "--set",
        metavar="NAME",
        help="adapters only: the set name or spec (or a label of the adapter's sets) "
        "to give encode",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=_cmd_probe)
