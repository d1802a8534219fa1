"""The urllib.parse call behind a urllib adapter's answer, written as Python source, for
an exported test that needs neither pctfuzz nor its store (docs/continuous-fuzzing.md,
"filing a bug upstream").

Which function a case picks, and with which arguments, is a fact of the adapter
(``pctfuzz._internal.oracles.urllib_parse``: ``urllib_function`` and the adapter's methods).
Nothing here re-states it: the adapter answers the case while every public function of
``urllib.parse`` is wrapped to note its outermost calls (the adapter looks each
function up on the module at every call, as its docstring promises), and those calls
are written down with their arguments as literals.

How the adapter turns urllib's return value into its answer (``unquote``'s str as
UTF-8 bytes, ``parse_qsl``'s bytes pairs decoded) is checked, not assumed: a
conversion is written only if it gives the adapter's own answer from the recorded
return value; otherwise there is no direct call and the export runs pctfuzz's check.
So does a case on which urllib raises at export time: with no answer, no conversion can
be checked. (With the real urllib every such case is registered or refused by the
reference, and so is exported through pctfuzz's check anyway.)
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pctfuzz._internal.cases import Case
from pctfuzz._internal.checks.profile import run_impl

__all__ = ["Call", "recorded_calls", "urllib_expression"]


@dataclass(frozen=True)
class Call:
    """One outermost call of a public urllib.parse function, and what it returned."""

    function: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    result: Any


@contextlib.contextmanager
def _recording() -> Iterator[list[Call]]:
    """Wrap urllib.parse's public functions; yield the list their outermost calls go to.

    A call made by urllib.parse itself (``quote`` calling ``quote_from_bytes``) is not
    noted: it is part of the call the adapter made. The module is restored on exit.
    Export runs in one thread, and nothing else calls urllib.parse meanwhile."""
    calls: list[Call] = []
    depth = 0

    def wrap(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(real)
        def noted(*args: Any, **kwargs: Any) -> Any:
            nonlocal depth
            depth += 1
            try:
                result = real(*args, **kwargs)
            finally:
                depth -= 1
            if depth == 0:
                calls.append(Call(name, args, kwargs, result))
            return result

        return noted

    originals = {name: getattr(urllib.parse, name) for name in urllib.parse.__all__
                 if inspect.isfunction(getattr(urllib.parse, name, None))}
    try:
        for name, real in originals.items():
            setattr(urllib.parse, name, wrap(name, real))
        yield calls
    finally:
        for name, real in originals.items():
            setattr(urllib.parse, name, real)


def recorded_calls(adapter: Any, check: str, case: Case) -> tuple[list[Call], Any] | None:
    """(the outermost urllib.parse calls, the adapter's answer) for ``case``; None when
    the adapter does not answer it (``Unsupported``) or raises."""
    with _recording() as calls:
        outcome = run_impl(check, case, adapter)
    if outcome is None or outcome.raised:
        return None
    return calls, outcome.value


def _literal(value: Any) -> str | None:
    """``value`` as source: a ``repr`` that reads back as an equal literal, or
    ``urllib.parse.NAME`` for a function of the module (``urlencode``'s ``quote_via``);
    None for anything else, so no value can become code."""
    wrapped = getattr(value, "__wrapped__", value)
    name = getattr(wrapped, "__name__", None)
    if callable(value) and isinstance(name, str) and getattr(urllib.parse, name, None) is wrapped:
        return f"urllib.parse.{name}"
    text = repr(value)
    try:
        same = ast.literal_eval(text) == value
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return text if same else None


def _call_source(call: Call, first: str) -> str | None:
    """``urllib.parse.F(first, k=v, ...)``: the first argument is a name the test binds
    (``value``, ``pairs``, ``text``), the others are literals."""
    parts = [first]
    for arg in call.args[1:]:
        text = _literal(arg)
        if text is None:
            return None
        parts.append(text)
    for key, arg in call.kwargs.items():
        text = _literal(arg)
        if text is None or not key.isidentifier():
            return None
        parts.append(f"{key}={text}")
    return f"urllib.parse.{call.function}({', '.join(parts)})"


def _decode_pairs(result: Any) -> Any:
    return [(n.decode("utf-8", "replace"), v.decode("utf-8", "replace")) for n, v in result]


#: (source template around the call, the same conversion in Python): the ways the
#: adapters turn urllib's return value into their answer, tried in this order.
_CONVERSIONS: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("{call}", lambda result: result),
    ('{call}.encode("utf-8", "surrogatepass")',
     lambda result: result.encode("utf-8", "surrogatepass")),
    ("[(n.decode('utf-8', 'replace'), v.decode('utf-8', 'replace')) for n, v in {call}]",
     _decode_pairs),
)


def _converted(call: str, result: Any, answer: Any) -> str | None:
    """``call`` wrapped in the first conversion that turns ``result`` into exactly the
    adapter's ``answer`` (same type, equal value); None if none does."""
    for template, convert in _CONVERSIONS:
        try:
            converted = convert(result)
        except (AttributeError, TypeError, ValueError, UnicodeError):
            continue
        if type(converted) is type(answer) and converted == answer:
            return template.format(call=call)
    return None


def urllib_expression(adapter: Any, check: str, case: Case, name: str
                      ) -> tuple[str, Any, str] | None:
    """(name, value, expression): ``expression`` computes the adapter's answer for
    ``case`` from urllib.parse alone once the test binds ``value`` (a literal) to
    ``name``; None when no such source gives exactly the adapter's answer.

    One call: ``value`` is its first argument, and the expression the call with the
    other arguments as literals, converted as the adapter converts it. Several calls of
    one function with one argument each, whose results paired up are the answer
    (``unquote_plus`` on each name and value of a form): ``value`` is the list of
    (name, value) arguments, bound to ``pieces``, and the expression calls the
    function on each.
    """
    recorded = recorded_calls(adapter, check, case)
    if recorded is None:
        return None
    calls, answer = recorded
    if len(calls) == 1 and calls[0].args:
        call = calls[0]
        source = _call_source(call, name)
        if _literal(call.args[0]) is None or source is None:
            return None
        converted = _converted(source, call.result, answer)
        return None if converted is None else (name, call.args[0], converted)
    if (not calls or len(calls) % 2 or len({c.function for c in calls}) != 1
            or any(len(c.args) != 1 or c.kwargs for c in calls)):
        return None
    results = [c.result for c in calls]
    if list(zip(results[::2], results[1::2], strict=True)) != answer:
        return None
    pieces = [(n.args[0], v.args[0]) for n, v in zip(calls[::2], calls[1::2], strict=True)]
    if _literal(pieces) is None:
        return None
    function = f"urllib.parse.{calls[0].function}"
    return "pieces", pieces, f"[({function}(n), {function}(v)) for n, v in pieces]"
