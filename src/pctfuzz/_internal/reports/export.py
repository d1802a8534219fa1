"""``pctfuzz export``: findings as a standalone pytest module, one test per finding,
failing while the finding reproduces (docs/continuous-fuzzing.md, "filing a bug upstream").

A differential finding against urllib.parse becomes a test that needs neither pctfuzz
nor its store: it calls the urllib.parse function the adapter called for the case,
with the arguments it passed (``urllib_call`` records them: the adapter stays the one
home of that mapping), and compares with the reference's answer, computed at export
time. Every other finding runs the target's shared check, without the store.

Every value of a record reaches the source as a ``repr`` literal and every comment as
ASCII on one line, and the source is compiled before it is returned.
"""

from __future__ import annotations

import pprint
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Any

from pctfuzz import __version__
from pctfuzz._internal.checks.differential import resolve_impl
from pctfuzz._internal.checks.registry import divergences_for, reference_outcome
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.fuzz.replay import is_builtin_impl
from pctfuzz._internal.identity import RESOURCE_STOPS
from pctfuzz._internal.operations import ENCODE, OPERATIONS
from pctfuzz._internal.oracles.base import registry_names
from pctfuzz._internal.oracles.faults import FAULTS
from pctfuzz._internal.reports.results import finding_check
from pctfuzz._internal.reports.urllib_call import urllib_expression
from pctfuzz._internal.store import Finding
from pctfuzz._internal.targets import get_target
from pctfuzz._internal.text import ascii_line, one_line

__all__ = ["export_tests"]

_EXPORT_HEADER = '''"""Regression tests exported by `pctfuzz export` (pctfuzz {version}, {date}).

Each test fails while its finding reproduces and passes once it is fixed. They read
no findings store: values are inlined. Tests of differential findings against
urllib.parse call urllib.parse directly and compare with the reference's answer,
computed at export time; the others need pctfuzz installed.
"""

from __future__ import annotations
'''

_TIMEOUT_HELPER = '''

def _within(seconds: float, func: Any) -> None:
    """Run ``func``; fail if it runs longer than ``seconds`` (a timeout finding)."""
    import signal

    def alarm(signum: int, frame: Any) -> None:
        raise AssertionError(f"ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        func()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
'''


def _lit(value: Any) -> str:
    """``value`` as a Python literal, wrapped for the body of a test function."""
    text = repr(value)
    if len(text) <= 64:
        return text
    return pprint.pformat(value, width=80, sort_dicts=False).replace("\n", "\n        ")


def _shown(source: str) -> str:
    """Where a record was read, as the file says it: a relative path as given, an
    absolute one by its file name only (the file goes into a repository, or upstream:
    no home folder, no machine's layout)."""
    path = PurePath(source)
    return path.name if path.is_absolute() else source


def _func_name(finding: Finding, used: set[str]) -> str:
    # The loader validated kind, target and id; an identifier is still made sure of.
    base = re.sub(r"\W", "_", f"test_{finding.kind}_{finding.target}_{finding.id}", flags=re.ASCII)
    name, n = base, 1
    while name in used:
        n += 1
        name = f"{base}_{n}"
    used.add(name)
    return name


#: check -> the name the exported test binds the case's value to
_ARGUMENT = {op.name: op.argument for op in OPERATIONS}


def _registry_applies(adapter: Any, check: str, case: Any) -> bool:
    """Some active divergence-registry entry of ``adapter`` for ``check`` covers ``case``."""
    for entry in divergences_for(registry_names(adapter), check):
        try:
            if entry.active() and entry.applies(case):
                return True
        except Exception:
            return True
    return False


def _direct_test(finding: Finding) -> list[str] | None:
    """Body of a test that calls urllib.parse without pctfuzz, when possible: the
    call the adapter made for the case (``urllib_call``), against the reference's
    answer computed now."""
    if finding.case is None or finding.impl not in ("urllib", "urllib-unquote"):
        return None
    target = get_target(finding.target)
    if not target.differential or finding.kind in RESOURCE_STOPS:
        return None
    case = finding.rebuild_case()
    check = str(finding.case.get("type"))
    if finding.impl == "urllib-unquote" and check != ENCODE.name:
        return None  # its decoders re-encode surrogates: not a one-line call
    adapter = resolve_impl(finding.impl)
    if _registry_applies(adapter, check, case):
        # An accepted difference touches this case: plain equality with the reference
        # would keep failing after a fix, so compare through pctfuzz's check instead.
        return None
    expected = reference_outcome(check, case)
    if expected.raised:
        return None  # the reference refuses the case: compare through pctfuzz instead
    call = urllib_expression(adapter, check, case, _ARGUMENT[check])
    if call is None:
        return None
    name, value, expression = call
    return [
        f"{name} = {_lit(value)}",
        f"expected = {_lit(expected.value)}  # the reference's answer",
        f"actual = {expression}",
        "assert actual == expected",
    ]


def _pctfuzz_test(finding: Finding) -> list[str]:
    """Body of a test that runs the target's shared check through the public
    ``pctfuzz.testing.check_case`` (pctfuzz, no store)."""
    target = get_target(finding.target)
    if finding.case is not None:
        args = [repr(finding.target), _lit(finding.case)]
    elif finding.raw_input is not None:
        args = [repr(finding.target), f"raw_input=base64.b64decode({finding.raw_input!r})"]
    else:
        raise UsageError(f"finding {finding.id} has neither a case nor a raw input")
    # The subject as the harness and replay resolve it: an adapter for a differential
    # target, a deliberately wrong codec by its name, else the reference.
    if target.differential:
        args.append(f"impl={(finding.impl or 'urllib')!r}")
    elif finding.impl in FAULTS:
        args.append(f"impl={finding.impl!r}")
    call = f"check_case({', '.join(args)})"
    if finding.kind == "timeout":
        return [f"_within(5.0, lambda: {call})"]
    return [call]


def export_tests(findings: Sequence[tuple[Finding, str]], *,
                 trusted: Sequence[str] = ()) -> str:
    """A standalone pytest module reproducing ``findings`` (``(Finding, source path)``
    pairs): one test per finding, failing while it reproduces. ``trusted``: the
    implementations besides the built-in ones that the user named (the project's own,
    ``--impl``), which the test may import."""
    if not findings:
        raise UsageError("no findings to export")
    used: set[str] = set()
    bodies: list[str] = []
    needs: set[str] = set()
    for finding, source in findings:
        if (not is_builtin_impl(get_target(finding.target), finding.impl)
                and finding.impl not in trusted):
            # The test would import it: a record never chooses code that runs.
            raise UsageError(f"{one_line(source)}: names implementation "
                             f"{one_line(str(finding.impl), 100)!r}, which is not built in; "
                             "pass --impl to export it against your adapter")
        body = _direct_test(finding)
        if body is not None:
            needs.add("urllib")
        else:
            body = _pctfuzz_test(finding)
            needs.add("pctfuzz")
            if finding.case is None:
                needs.add("base64")
            if finding.kind == "timeout":
                needs.add("timeout")
        check = finding_check(finding)
        # Comments hold record text through ``ascii_line`` only (ASCII, no newline), so
        # no value of a record can end a comment and become source.
        doc = [
            ascii_line(f"# {finding.kind} in {finding.target}" + (f" ({check})" if check else "")
                     + (f" against {finding.impl}" if finding.impl else "")),
            f"# signature: {ascii_line(finding.signature)}",
            ascii_line(f"# finding: {_shown(source)} (status {finding.status}, "
                       f"{finding.hits} hit(s), first seen {finding.first_seen})"),
        ]
        if finding.expected is not None or finding.actual is not None:
            doc.append(f"# recorded: expected {ascii_line(str(finding.expected))[:300]}, "
                       f"actual {ascii_line(str(finding.actual))[:300]}")
        name = _func_name(finding, used)
        bodies.append("\n\n" + "\n".join(doc) + f"\ndef {name}() -> None:\n"
                      + "".join(f"    {line}\n" for line in body))
    imports = []
    if "timeout" in needs:
        imports.append("from typing import Any")
    if "base64" in needs:
        imports.append("import base64")
    if "urllib" in needs:
        imports.append("import urllib.parse")
    pkg = []
    if "pctfuzz" in needs:
        pkg += ["from pctfuzz.testing import check_case"]
    date = datetime.now(UTC).strftime("%Y-%m-%d")
    source = _EXPORT_HEADER.format(version=__version__, date=date)
    if imports:
        source += "\n" + "\n".join(sorted(imports)) + "\n"
    if pkg:
        source += "\n" + "\n".join(sorted(pkg)) + "\n"
    if "timeout" in needs:
        source += _TIMEOUT_HELPER
    source += "".join(bodies)
    compile(source, "<pctfuzz export>", "exec")  # never write a file that does not parse
    return source

