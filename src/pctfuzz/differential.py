"""Differential checks: run a case on the reference and on an implementation under test.

Shared by every driver (Hypothesis tests, the atheris ``diff_*`` targets, replay), like
the invariants in ``properties``. Each check:

1. asks the reference (``divergences.reference_outcome``): a value, or
   ``NotScalarValueError`` for a str that is not a scalar value string;
2. asks the implementation (an adapter, see ``pctfuzz.oracles``): a value, an
   exception, or ``Unsupported`` -- then the check returns ``None`` (skipped);
3. returns ``()`` when the two agree (equal values, or exceptions of the same type);
4. returns the ids of the registry entries (``pctfuzz.divergences``) that together
   explain the difference, when they do;
5. otherwise raises ``pctfuzz.violations.Divergence`` with ``check``, ``case``,
   ``impl`` (its name), ``expected`` (the reference's value, or a description of its
   exception), ``actual`` (the implementation's value, or None) and ``impl_error``
   (the implementation's exception, if it raised).

An exception from the implementation on a case it claims to support is a finding: the
fuzzer classifies a ``Divergence`` with ``impl_error`` set as kind ``crash``, located
at that exception (``pctfuzz.fuzzing.classify``). When the *reference* refuses a case
and the implementation refuses it too, with a different exception type, that too needs
a registry entry: error-versus-error behaviour is part of what is compared.

``impl`` may be an adapter, a name or import path for ``oracles.get_impl``, or None
(``urllib``).
"""

from __future__ import annotations

import functools
from typing import Any

from .cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from .divergences import Outcome, explain, reference_outcome
from .oracles import Impl, Unsupported, get_impl, impl_name, registry_names
from .violations import Divergence

__all__ = [
    "Outcome",
    "check_decode",
    "check_encode",
    "check_form",
    "check_form_parse",
    "resolve_impl",
    "run_impl",
]

#: check name -> the adapter method answering it.
_METHOD = {
    "encode": "encode",
    "decode": "decode",
    "form": "form_serialize",
    "form-parse": "form_parse",
}


@functools.lru_cache(maxsize=32)
def _impl_by_name(name: str) -> Impl:
    return get_impl(name)


def resolve_impl(impl: Impl | str | None) -> Impl:
    """An adapter for ``impl`` (names are resolved once and cached)."""
    if impl is None or isinstance(impl, str):
        return _impl_by_name(impl or "urllib")
    return impl


def run_impl(check: str, case: Case, impl: Impl) -> Outcome | None:
    """The implementation's outcome for ``check`` on ``case``; None if Unsupported."""
    method = getattr(impl, _METHOD[check])
    try:
        return Outcome(method(case))
    except Unsupported:
        return None
    except Exception as exc:
        return Outcome(error=exc)


def _first_difference(expected: Any, actual: Any) -> int | None:
    if isinstance(expected, str | bytes | list) and type(expected) is type(actual):
        for index, (a, b) in enumerate(zip(expected, actual, strict=False)):
            if a != b:
                return index
        if len(expected) != len(actual):
            return min(len(expected), len(actual))
    return None


def _check(check: str, case: Case, impl: Impl | str | None) -> tuple[str, ...] | None:
    adapter = resolve_impl(impl)
    actual = run_impl(check, case, adapter)
    if actual is None:
        return None
    expected = reference_outcome(check, case)
    if expected.same(actual):
        return ()
    accepted = explain(check, registry_names(adapter), case, expected, actual)
    if accepted is not None:
        return accepted
    name = impl_name(adapter)
    detail = ""
    if expected.raised and not actual.raised:
        detail = f"reference {expected.describe()}; {name} returned {actual.value!r}"
    elif expected.raised:
        detail = f"reference {expected.describe()}; {name} {actual.describe()}"
    raise Divergence(
        check,
        case,
        impl=name,
        expected=expected.describe() if expected.raised else expected.value,
        actual=None if actual.raised else actual.value,
        impl_error=actual.error,
        position=None
        if expected.raised or actual.raised
        else _first_difference(expected.value, actual.value),
        detail=detail,
    )


def check_encode(case: EncodeCase, impl: Impl | str | None = None) -> tuple[str, ...] | None:
    """Percent-encoding: ``impl.encode(case)`` against ``percent_encode``."""
    return _check("encode", case, impl)


def check_decode(case: DecodeCase, impl: Impl | str | None = None) -> tuple[str, ...] | None:
    """Percent-decoding: ``impl.decode(case)`` against ``percent_decode``."""
    return _check("decode", case, impl)


def check_form(case: FormCase, impl: Impl | str | None = None) -> tuple[str, ...] | None:
    """Form serialization: ``impl.form_serialize(case)`` against ``form_urlencode``."""
    return _check("form", case, impl)


def check_form_parse(case: FormParseCase, impl: Impl | str | None = None) -> tuple[str, ...] | None:
    """Form parsing: ``impl.form_parse(case)`` against ``form_urldecode``."""
    return _check("form-parse", case, impl)
