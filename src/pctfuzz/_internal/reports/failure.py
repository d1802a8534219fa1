"""A failed check as the text a user's own test shows (``pctfuzz.testing``): the finding
in the words of a report (behaviour, impact, input, expected, actual) and the line that
replays it, never pctfuzz's exception types. Every value goes through ``one_line``:
cases come from Hypothesis and may hold any character."""

from __future__ import annotations

from typing import Any

from pctfuzz._internal.accept.impact import impact_of
from pctfuzz._internal.outcome import case_text
from pctfuzz._internal.text import one_line
from pctfuzz._internal.violations import Divergence, Violation

__all__ = ["failure_text"]


def _answer(value: Any) -> str:
    return one_line(repr(value), 300)


def failure_text(failure: Violation, target: str, impl: str | None) -> str:
    """``failure`` (raised by ``target``'s check) as lines a test prints. ``impl``: the
    name ``check_case`` loads the adapter under (a built-in name or ``module:Name``),
    for the replay line; None when it is not known (an adapter object no module
    holds)."""
    case: Any = failure.case  # a case of the four types, as the checks raise them
    shown = case_text(case) if hasattr(case, "type") else repr(case)
    if isinstance(failure, Divergence):
        head = f"{failure.impl} differs from the reference on {one_line(shown, 300)}"
    else:
        head = f"{failure.check} does not hold for {one_line(shown, 300)}"
    behaviour = failure.behaviour
    lines = [head]
    if behaviour:
        lines.append(f"  behaviour: {one_line(str(behaviour.get('text', '')), 300)}")
    else:
        lines.append("  behaviour: no rule of pctfuzz's catalogue names it")
    if isinstance(failure, Divergence):
        kind = "crash" if failure.impl_error is not None else failure.kind  # as recorded
        lines.append(f"  impact:    {impact_of(kind, failure.difference, behaviour)}")
    lines.append(f"  input:     {one_line(shown, 300)}")
    lines.append(f"  expected:  {_answer(failure.expected)} (the reference)")
    if isinstance(failure, Divergence) and failure.impl_error is not None:
        error = failure.impl_error
        lines.append(f"  actual:    raised {type(error).__name__}: {one_line(str(error), 300)}")
    else:
        lines.append(f"  actual:    {_answer(failure.actual)}")
    if failure.detail:
        lines.append(f"  detail:    {one_line(failure.detail, 300)}")
    if isinstance(failure, Divergence) and hasattr(case, "to_json"):
        adapter = repr(impl or "<module:Name of your adapter>")
        call = f"check_case({target!r}, {case.to_json()!r}, impl={adapter})"
        lines.append("  replay:    from pctfuzz.testing import check_case; "
                     + one_line(call, 2000))
    else:  # a codec of the user's has no name check_case could load
        lines.append("  replay:    the falsifying example Hypothesis shows below")
    return "\n".join(lines)
