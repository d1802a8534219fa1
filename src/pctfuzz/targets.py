"""Fuzz targets: a name, a case type, a stable byte format, a strategy and a check.

A target is written once and run by every driver (docs/architecture.md, "The drivers"):
Hypothesis draws cases from ``strategy()``, atheris builds them from raw bytes with
``from_bytes``, replay rebuilds them from a finding's JSON; all call ``check``,
against the subject ``resolve_subject`` gives (a codec or an adapter).

The byte formats (how fuzzer bytes become a case) are in ``pctfuzz.formats``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias, cast

from pctfuzz.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz.errors import PctfuzzError
from pctfuzz.formats import (  # re-exported: the public path of the byte formats
    FUZZ_ENCODINGS,
    FUZZ_SETS,
    AnswerDomain,
    declared_sets,
    decode_from_bytes,
    decode_to_bytes,
    encode_from_bytes,
    encode_to_bytes,
    form_from_bytes,
    form_parse_from_bytes,
    form_parse_to_bytes,
    form_to_bytes,
)
from pctfuzz.identity import TARGET_NAME
from pctfuzz.text import one_line

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from pctfuzz.checks.invariants import Rotation
    from pctfuzz.oracles.base import Impl
    from pctfuzz.oracles.codec import Codec, Subject

__all__ = [
    "FUZZ_ENCODINGS",
    "FUZZ_SETS",
    "REFERENCE_MODULES",
    "TARGETS",
    "Target",
    "get_target",
    "modules_under_test",
    "resolve_subject",
]

_TARGET_NAME = re.compile(TARGET_NAME)

CaseType: TypeAlias = type[EncodeCase] | type[DecodeCase] | type[FormCase] | type[FormParseCase]

# --- the registry --------------------------------------------------------------------------
# The checks, their strategies and the subjects (codecs, faults, adapters) are imported
# when the registry or the resolver is first used, not with this module (``_late``): the
# atheris harness of an invariant target imports this module inside
# ``atheris.instrument_imports``, where only the reference and the byte formats above
# should get coverage counters (``Target.hooks_imports``). Importing the
# checks there instrumented them, the divergence registry and the oracles package too,
# and took the harness start-up from 0.53 s to 1.85 s of CPU.

#: The reference's modules with per-input branches (WHATWG URL 1.3 percent-encode and
#: percent-decode, 5.1/5.2 the form parser and serializer, the Encoding Standard's
#: encoders): what a differential target instruments besides the adapter
#: (``Target.instrumented_modules``).
REFERENCE_MODULES: tuple[str, ...] = ("pctfuzz.reference", "pctfuzz.encoding.encoders",
                                      "pctfuzz.form")

#: A target's check: raises ``Violation``/``Divergence``; a differential check returns
#: None (not answered) or the ids of the registry entries that accepted a difference.
Check = Callable[[Any, Any], "tuple[str, ...] | None"]


@dataclass(frozen=True)
class Target:
    """One fuzz target. ``check(case, subject)`` raises ``Violation``/``Divergence`` on a
    failure; the subject under test is a ``Codec`` for an invariant target and an
    adapter for a differential one (``resolve_subject``).

    ``cases`` is the Hypothesis strategy function of its cases, ``checker`` the shared
    check (``checks.invariants`` or ``checks.differential``), and ``rotation`` the
    atheris driver's variant of an invariant check (None for a differential one)."""

    name: str
    description: str
    case_type: CaseType
    from_bytes: Callable[[bytes], Any]
    to_bytes: Callable[[Any], bytes]
    cases: Callable[[], SearchStrategy[Any]]
    checker: Check
    differential: bool
    rotation: Rotation | None = None

    def __post_init__(self) -> None:
        if not _TARGET_NAME.fullmatch(self.name):
            raise ValueError(f"target name {self.name!r}: letters, digits, _ and - only")
        if (self.rotation is None) != self.differential:
            raise ValueError(f"target {self.name!r}: an invariant target needs a rotation, "
                             "a differential one has none")

    def check(self, case: Case, subject: Subject | str | None = None) -> tuple[str, ...] | None:
        """Run the shared check on ``case`` against ``subject`` (``resolve_subject``:
        None is the reference, or ``urllib`` for a differential target).

        Returns what a differential check returns -- None when the implementation does
        not answer the case, else the ids of the registry entries that accepted a
        difference (``()``: they agree) -- and ``()`` for an invariant target.
        """
        result = self.checker(case, resolve_subject(self, subject))
        return result if self.differential else ()

    def check_fast(self, case: Case, subject: Subject | str | None = None,
                   turn: int = 0) -> None:
        """The atheris driver's check: an invariant target runs the rotation of its
        aggregate at ``turn`` (``invariants.ROTATING``: the cheap invariants and one
        costly one), a differential target its check. Raises as ``check`` does; what
        it raises is re-checked with ``check`` before it is recorded (``fuzz.driver``),
        so signatures and replays never depend on the turn."""
        if self.rotation is None:
            self.check(case, subject)
            return
        self.rotation.check(case, _codec(self, subject), turn)

    def turns(self) -> int:
        """How many consecutive turns of ``check_fast`` run every invariant of ``check``."""
        return 1 if self.rotation is None else self.rotation.turns

    def code_under_test(self, subject: Subject | str | None = None) -> tuple[str, ...]:
        """The modules whose frames locate a crash of ``subject`` (``identity``): the
        adapter's for a differential target; none for an invariant one, whose codec is
        the reference or a fault of pctfuzz's own."""
        if not self.differential:
            return ()
        return modules_under_test(resolve_subject(self, subject))

    @property
    def hooks_imports(self) -> bool:
        """Whether the atheris harness imports pctfuzz inside ``atheris.instrument_imports``,
        so every pctfuzz module imported there carries coverage counters: an invariant
        target's, whose code under test is the reference. A differential target's code
        under test is the adapter: its harness imports pctfuzz plainly and the driver
        instruments ``instrumented_modules`` only (the byte formats, cases, targets and
        the driver itself would only cost, about 11 % of the time per input)."""
        return not self.differential

    def instrumented_modules(self, subject: Subject | str | None = None) -> tuple[str, ...]:
        """The modules the atheris driver instruments once imported
        (``fuzz.driver.instrument_modules``): for a differential target the code under
        test and the reference it is compared with, ``REFERENCE_MODULES`` (whose
        branches tell inputs apart, so libFuzzer keeps inputs that take the reference
        down another path: without them a fault that shows only in ISO-2022-JP text
        switching state twice was not found in 30 s); none for an invariant target
        (``hooks_imports``)."""
        if not self.differential:
            return ()
        return (*REFERENCE_MODULES, *self.code_under_test(subject))

    def strategy(self) -> SearchStrategy[Any]:
        """The Hypothesis strategy for this target's cases."""
        return self.cases()

    def case_from_bytes(self, data: bytes, subject: Subject | str | None = None) -> Case:
        """The case of fuzzer bytes ``data``; for ``diff_encode``, within what ``subject``
        answers (``AnswerDomain``). Deterministic, so minimization and replay of a raw
        input against the same implementation see the same case."""
        if self.differential and self.case_type is EncodeCase and subject is not None:
            domain = _answer_domain(resolve_subject(self, subject))
            if domain != _ALL:
                return encode_from_bytes(data, sets=domain.sets, encodings=domain.encodings,
                                         value_types=domain.value_types,
                                         spaces=domain.spaces)
        return cast(Case, self.from_bytes(data))

    def run_bytes(self, data: bytes, subject: Subject | str | None = None) -> Case:
        """Build the case from fuzzer bytes, check it, and return it."""
        case = self.case_from_bytes(data, subject)
        self.check(case, subject)
        return case


_ALL = AnswerDomain()

#: The last adapter ``_answer_domain`` read, the declared sets then, its domain.
_LAST_DOMAIN: list[Any] = [None, None, _ALL]


def _answer_domain(impl: Subject) -> AnswerDomain:
    """``AnswerDomain.of(impl)``, read again only for another adapter or another
    set of declared sets (``formats.declare_sets``): the harness asks on every input,
    about one adapter."""
    sets = declared_sets()
    if _LAST_DOMAIN[0] is not impl or _LAST_DOMAIN[1] is not sets:
        _LAST_DOMAIN[:] = [impl, sets, AnswerDomain.of(impl)]
    domain: AnswerDomain = _LAST_DOMAIN[2]
    return domain


def modules_under_test(impl: Any) -> tuple[str, ...]:
    """The Python modules holding the code of an implementation under test: the
    adapter's ``modules_under_test``, else the adapter's own module (what the atheris
    driver instruments and ``pctfuzz coverage`` measures)."""
    declared: tuple[str, ...] = tuple(getattr(impl, "modules_under_test", ()) or ())
    return declared or (type(impl).__module__,)


def resolve_subject(target: Target, subject: Subject | str | None = None) -> Subject:
    """What ``target`` runs against, from an object or a name: the one resolver of the
    harness, replay, export and coverage.

    - A differential target compares an adapter (``Impl``): an adapter is taken as it
      is, a name or import path goes through ``oracles.get_impl`` (once, cached), None
      is ``urllib``. A ``Codec`` is an error.
    - An invariant target checks a ``Codec``: None or ``"reference"`` is the reference,
      a name is a deliberately wrong codec of ``oracles.faults``. An adapter or any
      other name is an error: an invariant check would fail on its first call.

    Errors are one-line ``PctfuzzError``s naming the target and what was given.
    """
    late = _late()
    if not target.differential:
        return _codec(target, subject)
    if isinstance(subject, late.codec_type):
        raise PctfuzzError(
            f"target {target.name} compares an implementation adapter with the "
            f"reference; {subject.name!r} is a codec (give it to the "
            f"{target.name.removeprefix('diff_')} target)")
    return late.resolve_impl(cast("Impl | str | None", subject))


def _codec(target: Target, subject: Subject | str | None) -> Codec:
    """``resolve_subject`` for an invariant target."""
    late = _late()
    if isinstance(subject, late.codec_type):
        return subject
    if subject is None or subject == late.reference.name:
        return late.reference
    if isinstance(subject, str):
        if subject in late.faults:
            return late.faults[subject]
        raise PctfuzzError(
            f"target {target.name} checks the reference or a fault codec; "
            f"{one_line(subject, 100)!r} is neither (faults: {', '.join(late.faults)})")
    raise PctfuzzError(
        f"target {target.name} checks the invariants of a codec (pctfuzz.oracles.codec); "
        f"{one_line(late.impl_name(subject), 100)!r} is an implementation adapter: "
        f"use diff_{target.name}")


class _Late(NamedTuple):
    """What the registry and the resolver import on first use (see "the registry")."""

    targets: Mapping[str, Target]
    reference: Codec
    codec_type: type[Codec]
    faults: Mapping[str, Codec]
    resolve_impl: Callable[[Impl | str | None], Impl]
    impl_name: Callable[[object], str]


@functools.cache
def _late() -> _Late:
    from pctfuzz.checks import differential, invariants, strategies
    from pctfuzz.oracles.base import impl_name
    from pctfuzz.oracles.codec import REFERENCE, Codec
    from pctfuzz.oracles.faults import FAULTS

    kinds: tuple[tuple[str, CaseType, Callable[[bytes], Any], Callable[[Any], bytes],
                       Callable[[], SearchStrategy[Any]], Callable[[Any, Codec], None],
                       Check, str], ...] = (
        ("encode", EncodeCase, encode_from_bytes, encode_to_bytes, strategies.encode_cases,
         invariants.check_encode, differential.check_encode,
         "percent_encode over every set, encoding and spaceAsPlus"),
        ("decode", DecodeCase, decode_from_bytes, decode_to_bytes, strategies.decode_cases,
         invariants.check_decode, differential.check_decode,
         "percent_decode of arbitrary str/bytes"),
        ("form", FormCase, form_from_bytes, form_to_bytes, strategies.form_cases,
         invariants.check_form, differential.check_form,
         "application/x-www-form-urlencoded serializer (and parse back)"),
        ("form_parse", FormParseCase, form_parse_from_bytes, form_parse_to_bytes,
         strategies.form_parse_cases, invariants.check_form_parse,
         differential.check_form_parse,
         "application/x-www-form-urlencoded parser on arbitrary input"),
    )
    targets = [
        Target(name, f"invariants: {what}", case_type, from_bytes, to_bytes, cases, check,
               differential=False, rotation=invariants.ROTATING[check])
        for name, case_type, from_bytes, to_bytes, cases, check, _diff, what in kinds
    ] + [
        Target(f"diff_{name}", f"differential vs --impl: {what}", case_type, from_bytes,
               to_bytes, cases, diff, differential=True)
        for name, case_type, from_bytes, to_bytes, cases, _check, diff, what in kinds
    ]
    return _Late({t.name: t for t in targets}, REFERENCE, Codec, FAULTS,
                 differential.resolve_impl, impl_name)


class _Registry(Mapping[str, Target]):
    """``TARGETS``: a read-only mapping built on first use (see "the registry")."""

    def __getitem__(self, name: str) -> Target:
        return _late().targets[name]

    def __iter__(self) -> Iterator[str]:
        return iter(_late().targets)

    def __len__(self) -> int:
        return len(_late().targets)


#: name -> target, invariant targets first.
TARGETS: Mapping[str, Target] = _Registry()


def get_target(name: str) -> Target:
    """Look a target up by name; ``PctfuzzError`` listing the known ones otherwise."""
    try:
        return TARGETS[name]
    except KeyError:
        raise PctfuzzError(f"unknown target {name!r}; known: {', '.join(TARGETS)}") from None
