"""The comparison value of the differential checks, and the reference's answer.

A differential check asks the reference and an implementation the same question (one
of ``CHECKS``) and compares their ``Outcome``: a value, or the exception raised. Two
outcomes agree when the values are equal or both sides raised the same type.
The reference answers with the library's own functions: WHATWG URL 1.3
(percent-encode after encoding, percent-decode), 5.2 (form serializer), 5.1 (form
parser). ``Outcome.describe`` writes an answer and ``case_text`` the question, each in
one short line, for tables and messages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.errors import NotScalarValueError, PctfuzzError
from pctfuzz._internal.form import form_urldecode, form_urlencode
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE, OPERATIONS
from pctfuzz._internal.reference import Surrogates, percent_decode, percent_encode

__all__ = [
    "CHECKS", "Outcome", "Reconcile", "case_text", "qualified_type", "reference_answer",
    "reference_outcome", "refusal_type",
]

#: The four differential checks, named as in findings (``Divergence.check``).
CHECKS: tuple[str, ...] = tuple(op.name for op in OPERATIONS)


@dataclass(frozen=True, eq=False)
class Outcome:
    """What one side answered: a value, or the exception it raised."""

    value: Any = None
    error: BaseException | None = None

    @property
    def raised(self) -> bool:
        return self.error is not None

    def same(self, other: Outcome) -> bool:
        """Equal values, or both raised exceptions of the same type."""
        if self.error is not None or other.error is not None:
            return type(self.error) is type(other.error)
        return bool(self.value == other.value)

    def describe(self) -> str:
        if self.error is not None:
            return f"raises {type(self.error).__name__}: {self.error}"
        return repr(self.value)


def qualified_type(exc: BaseException) -> str:
    """An exception's type as ``module.QualName`` (``builtins`` left out)."""
    cls = type(exc)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def refusal_type(exc: BaseException) -> str:
    """The family of exceptions a refusal finding names (``refuses``' ``raised``): the
    topmost class of the exception's own library in its MRO (a library's error base),
    else the builtin right below ``Exception`` (``ValueError`` for a
    ``UnicodeDecodeError``: urllib refuses invalid UTF-8 with it and with a
    ``UnicodeEncodeError``, one refusal); a peer's error by its own name (the class
    pctfuzz makes for it, ``EscapeError``). So a crash of another family on such input
    (an ``IndexError`` beside a deliberate ``ValueError``; pycurl's ``ValueError`` for a
    NUL beside libcurl's ``pycurl.error`` for every control) is a finding of its own."""
    cls = type(exc)
    if cls.__module__.startswith("pctfuzz."):
        return cls.__qualname__
    own = [c for c in cls.__mro__ if c.__module__ != "builtins"]
    if own:
        top = own[-1]
    else:
        mro = cls.__mro__
        top = mro[mro.index(Exception) - 1] if Exception in mro and mro[0] is not Exception \
            else cls
    return top.__qualname__ if top.__module__ == "builtins" \
        else f"{top.__module__}.{top.__qualname__}"


#: ``reconcile(case, reference's outcome, implementation's outcome)``: both outcomes
#: with one accepted difference taken out, or None when they do not show it.
Reconcile: TypeAlias = Callable[[Case, Outcome, Outcome], "tuple[Outcome, Outcome] | None"]


def reference_answer(check: str, case: Case, *, surrogates: Surrogates = "strict") -> Any:
    """The reference's answer to a differential check (the same calls the adapters
    answer): ``percent_encode(value, set, encoding=, space_as_plus=)``,
    ``percent_decode``, ``form_urlencode(pairs, encoding=)``, ``form_urldecode``.
    ``surrogates="replace"`` answers as for a WebIDL USVString (lone surrogate ->
    U+FFFD first), for implementations that declare ``scalar_values = "replace"``."""
    if check == ENCODE.name and isinstance(case, EncodeCase):
        return percent_encode(
            case.value, case.set_name, encoding=case.encoding, space_as_plus=case.space_as_plus,
            surrogates=surrogates,
        )
    if check == DECODE.name and isinstance(case, DecodeCase):
        return percent_decode(case.value)
    if check == FORM_SERIALIZE.name and isinstance(case, FormCase):
        return form_urlencode(case.pairs, encoding=case.encoding, surrogates=surrogates)
    if check == FORM_PARSE.name and isinstance(case, FormParseCase):
        return form_urldecode(case.text)
    raise PctfuzzError(f"check {check!r} does not take a {type(case).__name__}")


def reference_outcome(check: str, case: Case, *, surrogates: Surrogates = "strict") -> Outcome:
    """The reference's outcome; only ``NotScalarValueError`` counts as an answer (the
    standard's inputs are scalar value strings), other errors propagate."""
    try:
        return Outcome(reference_answer(check, case, surrogates=surrogates))
    except NotScalarValueError as exc:
        return Outcome(error=exc)


def case_text(case: Case) -> str:
    """A short Python-like rendering of a case, defaults left out."""
    if isinstance(case, EncodeCase):
        parts = [repr(case.value), f"set={case.set_name!r}"]
        if case.encoding != "utf-8":
            parts.append(f"encoding={case.encoding!r}")
        if case.space_as_plus:
            parts.append("space_as_plus=True")
        return f"encode({', '.join(parts)})"
    if isinstance(case, DecodeCase):
        return f"decode({case.value!r})"
    if isinstance(case, FormCase):
        pairs = list(case.pairs)
        extra = "" if case.encoding == "utf-8" else f", encoding={case.encoding!r}"
        return f"form({pairs!r}{extra})"
    return f"form_parse({case.text!r})"
