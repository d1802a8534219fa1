"""``pctfuzz report --upstream ID``: a finding as the Markdown body of an issue for the
library's tracker.

What a maintainer needs and nothing of pctfuzz's store: a title, the library and its
version, the minimal input, the answer the standard requires with the section that
requires it, the library's answer, a reproduction that needs only the library when the
adapter can write one (``Adapter.reproduction``; the urllib call of ``urllib_call``
otherwise, for urllib) and else the replay command, and pctfuzz's version.

Record text is data, and so is what an adapter says of itself (a peer's name and version
come from its handshake): every value reaches the body as ASCII inside a code span or a
code block that nothing in it can close (``reports.markdown``), never as Markdown. A
reproduction is printed only after it was run and gave exactly the adapter's answer (it
is the adapter's source, values as literals: ``oracles.base.library_call``).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import platform
import shlex
from typing import Any

from pctfuzz import __version__
from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks.profile import run_impl, scalar_values
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.operations import OPERATIONS
from pctfuzz._internal.oracles.base import impl_name, impl_version
from pctfuzz._internal.outcome import Outcome, case_text, reference_outcome
from pctfuzz._internal.reports.markdown import code_block, code_span
from pctfuzz._internal.reports.results import reproduce_command
from pctfuzz._internal.reports.urllib_call import urllib_expression
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.store import Finding
from pctfuzz._internal.targets import get_target
from pctfuzz._internal.text import one_line

__all__ = ["SECTIONS", "upstream_report"]

#: check -> the part of the URL Standard that defines the expected answer.
SECTIONS = {op.name: op.section for op in OPERATIONS}
_ARGUMENT = {op.name: op.argument for op in OPERATIONS}


def _plain(text: str) -> str:
    """``text`` (often a ``repr`` already) as one line of ASCII: ``text.one_line``, then
    every other non-ASCII character as a backslash escape."""
    return one_line(text).encode("ascii", "backslashreplace").decode("ascii")


def _shown(outcome: Outcome | None) -> str:
    if outcome is None:
        return "(no answer: the adapter does not support this case)"
    return _plain(outcome.describe())


def _checked_source(source: str | None, answer: Outcome | None) -> str | None:
    """``source`` if running it binds ``actual`` to exactly ``answer``'s value (or
    raises ``answer``'s exception type); None otherwise, and for no source."""
    if source is None or answer is None:
        return None
    namespace: dict[str, Any] = {"__builtins__": builtins}
    try:
        code = compile(source, "<reproduction>", "exec")
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, namespace)  # the adapter's own source, values as literals
    except Exception as exc:
        return source if answer.raised and type(exc) is type(answer.error) else None
    if answer.raised or "actual" not in namespace:
        return None
    actual = namespace["actual"]
    return source if type(actual) is type(answer.value) and actual == answer.value else None


def _reproduction(adapter: Any, check: str, case: Any, answer: Outcome | None,
                  expected: Outcome) -> str | None:
    """A script that needs only the library: the adapter's ``reproduction``, else the
    recorded urllib.parse call; None when neither gives the adapter's answer."""
    source: str | None = None
    method = getattr(adapter, "reproduction", None)
    if callable(method):
        with contextlib.suppress(Exception):
            source = _checked_source(method(check, case), answer)
    if source is None and impl_name(adapter) in ("urllib", "urllib-unquote"):
        call = urllib_expression(adapter, check, case, _ARGUMENT[check])
        if call is not None:
            name, value, expression = call
            source = _checked_source(
                f"import urllib.parse\n{name} = {value!r}\nactual = {expression}\n", answer)
    if source is None:
        return None
    tail = "print(ascii(actual))\n"
    if not expected.raised:
        tail += f"assert actual == {expected.value!r}, 'expected {_ARGUMENT[check]} per " \
                f"{SECTIONS[check].split(' (')[0]}'\n"
    return source + tail


def upstream_report(finding: Finding, adapter: Any, *, path: str, impl: str) -> str:
    """The Markdown issue body of ``finding`` against ``adapter`` (named ``impl``)."""
    target = get_target(finding.target)
    if not target.differential or finding.case is None:
        raise UsageError(f"finding {finding.id} is a {finding.kind} of {finding.target}, "
                         "pctfuzz's own check, not of an implementation: report it to pctfuzz")
    case = finding.rebuild_case()
    check = str(finding.case["type"])
    expected = reference_outcome(check, case, surrogates=scalar_values(adapter))
    answer = run_impl(check, case, adapter)
    library = _plain(impl_version(adapter))
    recorded = finding.versions.get(finding.impl or "", "")
    # A finding that no longer reproduces is titled with what the library answered when
    # it was found (the record's answers), never with today's equal ones.
    gone = answer is not None and expected.same(answer)
    shown_answer = _plain(finding.actual or "") if gone and finding.actual else _shown(answer)
    shown_expected = _plain(finding.expected or "") if gone and finding.expected \
        else _shown(expected)
    title = (f"{code_span(_plain(impl_name(adapter))[:60])}: "
             f"{code_span(_plain(case_text(case))[:120])} "
             f"{'gave' if gone else 'gives'} {code_span(shown_answer[:80])} where the URL "
             f"Standard gives {code_span(shown_expected[:80])}"
             + (f" (no longer reproduces with {code_span(library[:60])})" if gone else ""))
    lines = [f"# {title}", ""]
    if finding.behaviour:
        behaviour = _plain(str(finding.behaviour.get("text", "")))[:300]
        lines += [f"Behaviour: {code_span(behaviour)}", ""]
    lines += [
        f"- Library: {code_span(library)}"
        + (f" (found with {code_span(_plain(recorded))})"
           if recorded and recorded != library else ""),
        f"- Python: {platform.python_implementation()} {platform.python_version()}",
        f"- Found by: pctfuzz {__version__} (finding {finding.id}, "
        f"{finding.hits} hit(s) since {finding.first_seen[:10]})",
        "",
        "## Minimal input",
        "",
        code_block(_plain(case_text(case)), "python"),
        "",
        "## Expected",
        "",
        code_block(_shown(expected)),
        "",
        f"Required by the {SECTIONS[check]}"
        + (f", with the set {code_span(_plain(get_set(case.set_name).source))}"
           if isinstance(case, EncodeCase) else "") + ".",
        "",
        "## Actual",
        "",
        code_block(shown_answer),
        "",
    ]
    if gone:
        lines += [f"Recorded when the finding was made (with "
                  f"{code_span(_plain(recorded or '?'))}). Note: this version gives the "
                  f"expected answer, {code_span(_shown(answer))}: "
                  "the finding no longer reproduces here.", ""]
    script = _reproduction(adapter, check, case, answer, expected)
    lines += ["## Reproduction", ""]
    if script is not None:
        lines += ["With the library alone:", "", code_block(script.rstrip("\n"), "python")]
    else:
        command = reproduce_command(finding, path)
        if impl and "--impl" not in command:
            command += f" --impl {shlex.quote(impl)}"
        lines += ["With pctfuzz (the adapter writes no library-only script for this case):",
                  "", code_block(_plain(f"pip install pctfuzz && {command}"), "sh")]
    lines += ["", f"Reported with pctfuzz {__version__} (`pctfuzz report --upstream "
              f"{finding.id}`)."]
    return "\n".join(lines) + "\n"
