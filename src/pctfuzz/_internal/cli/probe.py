"""``pctfuzz probe TARGET``: what an encoder, a decoder, a form serializer or a form
parser does where the URL Standard says otherwise, so that an adapter and accept
entries can be written for it.

The logic is ``pctfuzz._internal.checks.probe`` (an encoder's set) and
``pctfuzz._internal.checks.probe_operations`` (the three others).

Exit codes: 0 the report was printed (whether or not a set matches exactly); 2 the target
does not import, is neither a function nor an adapter, answers none of the operations
asked, or an encoder answered no ASCII character.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from pctfuzz._internal.checks.probe import (
    ProbeReport,
    adapter_encoder,
    load_encoder,
    load_target,
    probe,
)
from pctfuzz._internal.checks.probe_operations import OperationReport, probe_operation
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE, OPERATIONS
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings

__all__ = ["add_command", "render", "render_operation"]

#: --operation's words (the adapter methods, dashed: ``form-serialize``) -> the operations'
#: record names (``Operation.name``).
_OPERATIONS = {op.method.replace("_", "-"): op.name for op in OPERATIONS}
#: ... and their words in a report's first line.
_TITLES = {DECODE.name: "decode", FORM_SERIALIZE.name: "form serialize",
           FORM_PARSE.name: "form parse"}
#: function_adapter's argument for each operation but encode.
_FUNCTION_ARGUMENT = {op.name: op.method for op in (DECODE, FORM_SERIALIZE, FORM_PARSE)}

Report = ProbeReport | OperationReport


def render(report: ProbeReport) -> str:
    """The human-readable report of an encoder: one fact per line."""
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


def render_operation(report: OperationReport) -> str:
    """The human-readable report of a decoder, a form serializer or a form parser: one
    fact per line, as the encoder's; where the answer differs from the reference's, the
    reference's word and the rule that names the difference (what ``pctfuzz accept``
    writes), or the accepted entries that explain it."""
    lines = [f"target: {report.target} ({_TITLES[report.operation]})"]
    for fact in report.facts:
        line = f"{fact.label}: {fact.word}"
        if not fact.agrees:
            why = (f"accepted by {', '.join(fact.accepted)}" if fact.accepted else
                   fact.rule or "no catalogue rule names it")
            line += f"    (the reference: {fact.reference}; {why})"
        elif fact.word != fact.reference and fact.key != "input":
            line += f"    (the reference: {fact.reference}; the check counts it as agreement)"
        lines.append(line)
    return "\n".join(lines)


def _function_adapter(fn: Any, target: str, operation: str) -> Any:
    from pctfuzz._internal.oracles import function_adapter

    return function_adapter(target, **{_FUNCTION_ARGUMENT[operation]: fn})


def _answers(impl: Any, operation: str) -> bool:
    """The adapter answers ``operation`` for one of its target's seed cases at least
    (``fuzz.seeds.unanswered``: what ``pctfuzz fuzz`` skips a target by)."""
    from pctfuzz._internal.fuzz.seeds import unanswered
    from pctfuzz._internal.operations import get_operation
    from pctfuzz._internal.targets import get_target

    return unanswered(get_target(get_operation(operation).differential_target), impl) is None


def _declared_sets(impl: Any) -> list[str]:
    sets = getattr(impl, "sets", None)
    return list(sets) if isinstance(sets, Mapping) else []


def _reports(target: str, set_name: str | None, operation: str | None,
             settings: RunSettings = DEFAULT_SETTINGS) -> tuple[list[Report], list[str]]:
    """The reports asked for, and one note per operation the adapter may answer that
    was not probed (its encoder without a set)."""
    from pctfuzz._internal.errors import UsageError

    fn, impl = load_target(target)
    if fn is not None:  # a plain function: an encoder unless --operation says otherwise
        if operation in (None, ENCODE.name):
            encoder, _ = load_encoder(target, set_name)
            return [probe(encoder, target)], []
        if set_name is not None:
            raise UsageError(f"target {target!r}: --set applies to an encoder")
        return [probe_operation(_function_adapter(fn, target, operation), operation,
                                target, settings)], []
    if set_name is not None:  # --set: the adapter's encoder with that set, as before
        if operation not in (None, ENCODE.name):
            raise UsageError("--set applies to --operation encode")
        encoder, spec = adapter_encoder(impl, set_name)
        return [probe(encoder, target, set_name=spec)], []
    labels = _declared_sets(impl)
    if operation == ENCODE.name and not labels:
        raise UsageError(f"target {target!r} declares no sets: give --set NAME to probe "
                         "its encoder")
    wanted = [operation] if operation else [ENCODE.name, *_TITLES]
    reports: list[Report] = []
    notes: list[str] = []
    for name in wanted:
        if name == ENCODE.name:
            for label in labels:
                encoder, spec = adapter_encoder(impl, label)
                reports.append(probe(encoder, target, set_name=spec))
            if not labels and operation is None and _answers_encode(impl):
                notes.append("encode: not probed: this adapter declares no sets; give "
                             "--set NAME (a set name or spec) to probe its encoder")
        elif operation is not None or _answers(impl, name):
            reports.append(probe_operation(impl, name, target, settings))
    if not reports:
        raise UsageError(f"target {target!r}: {notes[0]}" if notes else
                         f"target {target!r} answers none of encode (a declared set), "
                         "decode, form serialize, form parse")
    return reports, notes


def _answers_encode(impl: Any) -> bool:
    """The adapter may encode, but declares no ``sets`` to ask it with (an adapter that
    declares them, even none, said which it encodes)."""
    from pctfuzz._internal.oracles import Adapter

    if isinstance(getattr(impl, "sets", None), Mapping):
        return False
    own = getattr(type(impl), "encode", None)
    return own is not None and own is not Adapter.encode


def _cmd_probe(args: argparse.Namespace) -> int:
    from pctfuzz._internal.errors import UsageError
    from pctfuzz._internal.project import Project

    project = Project.load()
    project.activate()  # a module of the project imports from any subfolder
    args.target = args.target or project.impl
    if not args.target:
        raise UsageError("give TARGET (module:function or module:Class); this project "
                         "names no [tool.pctfuzz] impl")
    operation = _OPERATIONS[args.operation] if args.operation else None
    reports, notes = _reports(args.target, args.set, operation, project.run_settings)
    if args.json:
        documents = [report.to_json() for report in reports]
        print(json.dumps(documents[0] if len(documents) == 1 else documents, indent=2))
    else:
        print("\n\n".join(render(r) if isinstance(r, ProbeReport) else render_operation(r)
                          for r in reports))
        for note in notes:
            print(f"\n{note}")
    return ExitCode.OK


def add_command(subparsers: Any) -> None:
    """Register ``probe`` on the ``pctfuzz`` subparsers."""
    parser = subparsers.add_parser(
        "probe",
        help="what an encoder, decoder, form serializer or parser does: its set, its "
        "ways, the rules that accept them",
        description="An encoder: call it on every ASCII character and a battery of %%HH, "
        "space, non-ASCII, normalization and surrogate cases; report the named set it "
        "implements, or the nearest one and the difference as a set spec. A decoder: its "
        "plus sign, invalid escapes, invalid UTF-8, kept escapes, lone surrogates, "
        "refusals. A form serializer: its space, the characters it leaves raw or encodes "
        "in names and values, hex case, pair order, empty values. A form parser: its "
        "separators, plus sign, empty pairs, names, invalid escapes and UTF-8, pair order. "
        "Each answer is shown beside the reference's where they differ, with the rule "
        "that names the difference (what `pctfuzz accept` writes). An adapter without "
        "--set or --operation: every operation it answers (its encoder with each set it "
        "declares).",
        epilog="Exit codes: 0 report printed; 2 target unusable (import error, not a "
        "function or adapter, an operation it does not answer, an adapter's encoder "
        "without a set).",
    )
    parser.add_argument(
        "target",
        metavar="TARGET", nargs="?",
        help="module:function (an encoder str -> str, or as --operation says), "
        "module:Class or a built-in adapter's name; default: the project's "
        "[tool.pctfuzz] impl",
    )
    parser.add_argument(
        "--set",
        metavar="NAME",
        help="an adapter's encoder only: the set name or spec (or a label of the adapter's "
        "sets) to give encode",
    )
    parser.add_argument(
        "--operation", choices=tuple(_OPERATIONS),
        help="what a function is (default encode; decode: str -> bytes or str; "
        "form-serialize: a list of (name, value) pairs -> str; form-parse: str -> pairs, "
        "as function_adapter calls them), or the one operation of an adapter to probe",
    )
    parser.add_argument("--json", action="store_true",
                        help="print the report as JSON (several: a list of them)")
    parser.set_defaults(func=_cmd_probe)
