"""Fuzz targets: a name, a case type, a stable byte format, a strategy and a check.

A target is written once and run by every driver (docs/architecture.md, "The drivers"):
Hypothesis draws cases from ``strategy()``, atheris builds them from raw bytes with
``from_bytes``, replay rebuilds them from a finding's JSON; all call ``check``,
against the subject ``resolve_subject`` gives (a codec or an adapter).

The byte formats (how fuzzer bytes become a case) are in ``pctfuzz._internal.formats``.
"""

from __future__ import annotations

import contextlib
import functools
import re
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, TypeAlias, cast

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.known import KnownFindings
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.formats import (  # re-exported: the public path of the byte formats
    FUZZ_ENCODINGS,
    FUZZ_SETS,
    AnswerDomain,
    decode_from_bytes,
    decode_to_bytes,
    encode_from_bytes,
    encode_to_bytes,
    form_from_bytes,
    form_parse_from_bytes,
    form_parse_to_bytes,
    form_to_bytes,
)
from pctfuzz._internal.identity import TARGET_NAME
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE, Operation
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings
from pctfuzz._internal.text import one_line
from pctfuzz._internal.violations import Violation

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from pctfuzz._internal.checks.invariants import Rotation
    from pctfuzz._internal.oracles.base import Impl
    from pctfuzz._internal.oracles.codec import Codec, Subject

__all__ = [
    "FUZZ_ENCODINGS",
    "FUZZ_SETS",
    "REFERENCE_MODULES",
    "TARGETS",
    "Bound",
    "BoundDifferential",
    "BoundInvariant",
    "DifferentialTarget",
    "InvariantTarget",
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
REFERENCE_MODULES: tuple[str, ...] = ("pctfuzz._internal.reference",
                                      "pctfuzz._internal.encoding.encoders",
                                      "pctfuzz._internal.form")

#: A target's check ``(case, subject)``: raises ``Violation``/``Divergence``; a differential
#: check returns None (not answered) or the ids of the registry entries that accepted a
#: difference, and takes ``known=`` (``checks.known``).
Check = Callable[..., "tuple[str, ...] | None"]


@dataclass(frozen=True)
class Target:
    """One fuzz target: an operation (``operations.Operation``), its byte format and the
    Hypothesis strategy of its cases (``cases``), and a check (``checker``: raises
    ``Violation``/``Divergence`` on a failure). Two kinds: an ``InvariantTarget``
    checks a codec, a ``DifferentialTarget`` compares an adapter with the reference.

    ``bind(subject)`` resolves the subject once and gives the bound target the drivers
    call on every input. The methods here that take a ``subject`` bind on each call:
    for one-off checks (tests, replay of a single case), never on a fuzzing path."""

    name: str
    description: str
    operation: Operation
    from_bytes: Callable[[bytes], Any]
    to_bytes: Callable[[Any], bytes]
    cases: Callable[[], SearchStrategy[Any]]
    checker: Check

    #: Whether it compares an implementation with the reference (the kind, not a flag).
    differential: ClassVar[bool]

    def __post_init__(self) -> None:
        if not _TARGET_NAME.fullmatch(self.name):
            raise ValueError(f"target name {self.name!r}: letters, digits, _ and - only")

    @property
    def case_type(self) -> CaseType:
        return self.operation.case_type

    def bind(self, subject: Subject | str | None = None,
             settings: RunSettings = DEFAULT_SETTINGS) -> Bound:
        """This target bound to its subject (``resolve_subject``) and the run's
        ``settings`` (``settings.RunSettings``: the accept file, ``--no-accepted``, the
        declared sets), which the bound target carries: what a driver runs."""
        raise NotImplementedError

    def check(self, case: Case, subject: Subject | str | None = None) -> tuple[str, ...] | None:
        """Run the shared check on ``case`` against ``subject`` (``resolve_subject``:
        None is the reference, or ``urllib`` for a differential target).

        Returns what a differential check returns -- None when the implementation does
        not answer the case, else the ids of the registry entries that accepted a
        difference (``()``: they agree) -- and ``()`` for an invariant target.
        """
        return self.bind(subject).check(case)

    def check_fast(self, case: Case, subject: Subject | str | None = None,
                   turn: int = 0) -> None:
        """``Bound.check_fast`` against ``subject``."""
        self.bind(subject).check_fast(case, turn)

    def turns(self) -> int:
        """How many consecutive turns of ``check_fast`` run every invariant of ``check``."""
        return 1

    def code_under_test(self, subject: Subject | str | None = None) -> tuple[str, ...]:
        """``Bound.code_under_test`` of ``subject``."""
        return self.bind(subject).code_under_test

    def instrumented_modules(self, subject: Subject | str | None = None) -> tuple[str, ...]:
        """``Bound.instrumented_modules`` of ``subject``."""
        return self.bind(subject).instrumented_modules

    @property
    def hooks_imports(self) -> bool:
        """Whether the atheris harness imports pctfuzz inside ``atheris.instrument_imports``,
        so every pctfuzz module imported there carries coverage counters: an invariant
        target's, whose code under test is the reference. A differential target's code
        under test is the adapter: its harness imports pctfuzz plainly and the driver
        instruments ``instrumented_modules`` only (the byte formats, cases, targets and
        the driver itself would only cost, about 11 % of the time per input)."""
        return not self.differential

    def strategy(self) -> SearchStrategy[Any]:
        """The Hypothesis strategy for this target's cases."""
        return self.cases()

    def case_from_bytes(self, data: bytes, subject: Subject | str | None = None) -> Case:
        """The case of fuzzer bytes ``data``; with a subject, ``Bound.case_from_bytes``
        (``diff_encode`` within what it answers). Deterministic, so minimization and
        replay of a raw input against the same implementation see the same case."""
        if subject is None:
            return cast(Case, self.from_bytes(data))
        return self.bind(subject).case_from_bytes(data)

    def run_bytes(self, data: bytes, subject: Subject | str | None = None) -> Case:
        """Build the case from fuzzer bytes, check it, and return it."""
        bound = self.bind(subject)
        case = bound.case_from_bytes(data) if subject is not None \
            else cast(Case, self.from_bytes(data))
        bound.check(case)
        return case


@dataclass(frozen=True)
class InvariantTarget(Target):
    """A target whose check holds a codec (``oracles.codec.Codec``: the reference or a
    fault) to the invariants. ``rotation`` is the atheris driver's variant of the check
    (``invariants.ROTATING``)."""

    rotation: Rotation
    differential: ClassVar[bool] = False

    def bind(self, subject: Subject | str | None = None,
             settings: RunSettings = DEFAULT_SETTINGS) -> BoundInvariant:
        return BoundInvariant(self, _codec(self, subject), settings=settings)

    def turns(self) -> int:
        return self.rotation.turns

    def code_under_test(self, subject: Subject | str | None = None) -> tuple[str, ...]:
        return ()  # whatever the subject: the reference, or a fault of pctfuzz's own

    def instrumented_modules(self, subject: Subject | str | None = None) -> tuple[str, ...]:
        return ()  # its harness imports pctfuzz inside the hook (``hooks_imports``)


@dataclass(frozen=True)
class DifferentialTarget(Target):
    """A target whose check compares an implementation adapter (``oracles.base.Impl``)
    with the reference (``checks.differential``)."""

    differential: ClassVar[bool] = True

    def bind(self, subject: Subject | str | None = None,
             settings: RunSettings = DEFAULT_SETTINGS) -> BoundDifferential:
        impl = _impl(self, subject)
        return BoundDifferential(self, impl, modules_under_test(impl, self.operation),
                                 settings=settings)


@dataclass(frozen=True)
class BoundInvariant:
    """An invariant target bound to its codec: what the drivers run per input."""

    target: InvariantTarget
    subject: Codec
    code_under_test: tuple[str, ...] = ()  # the reference, or a fault of pctfuzz's own
    #: None: its harness imports pctfuzz inside the hook instead (``hooks_imports``).
    instrumented_modules: tuple[str, ...] = ()
    #: What is in force for the run (``BoundDifferential.settings``).
    settings: RunSettings = DEFAULT_SETTINGS

    @property
    def turns(self) -> int:
        """How many consecutive turns of ``check_fast`` run every invariant of ``check``."""
        return self.target.rotation.turns

    def case_from_bytes(self, data: bytes) -> Case:
        return cast(Case, self.target.from_bytes(data))

    def check(self, case: Case) -> tuple[str, ...]:
        """The full check; ``()`` when it passes. A violation is named by the
        catalogue rule that explains the codec's answer (``_named``)."""
        try:
            self.target.checker(case, self.subject)
        except Violation as exc:
            raise self._named(exc) from None
        return ()

    def check_fast(self, case: Case, turn: int) -> None:
        """The rotation of the aggregate at ``turn`` (``invariants.ROTATING``: the cheap
        invariants and one costly one). Raises as ``check`` does; what it raises is
        re-checked with ``check`` before it is recorded (``run``), so signatures and
        replays never depend on the turn."""
        self.target.rotation.check(case, self.subject, turn)

    def _named(self, exc: Violation) -> Violation:
        """``exc`` with the rule that explains how the codec answers its case unlike
        the reference (``checks.differential.rule_for``), as a divergence of an
        implementation is named: an encoder that strips spaces breaks round-trip and
        the output's spec in as many ways as inputs hold spaces, and is one behaviour
        (issue 21). Failures are rare, so the checks are imported here, not with the
        harness (see "the registry")."""
        if exc.behaviour is not None or self.subject is _late().reference:
            return exc
        from pctfuzz._internal.checks.differential import rule_for

        try:
            rule = rule_for(self.target.operation.name, cast(Case, exc.case), self._adapter,
                            settings=self.settings)
        except Exception:  # a codec that raises while asked: its violation stands
            return exc
        if rule is not None:
            exc.behaviour = rule.behaviour()
        return exc

    @functools.cached_property
    def _adapter(self) -> Impl:
        from pctfuzz._internal.oracles.codec import as_adapter

        return as_adapter(self.subject)

    def answer(self, data: bytes) -> None:
        """The codec's checks of ``data``, a failure not recorded
        (``BoundDifferential.answer``)."""
        with contextlib.suppress(Exception):
            self.run(data)

    def run(self, data: bytes, turn: int | None = None) -> tuple[str, ...]:
        """What the atheris driver runs on one input: ``check_fast`` at ``turn``, by
        default the input's CRC-32 (the same input always takes the same turn, so
        libFuzzer sees deterministic coverage; a turn taken from the execution count made
        it keep duplicate inputs). A failure is checked again in full and the full
        check's exception is raised: what is recorded or written as a crash is what a
        replay computes. The fast check's exception stands only if the full check passes
        (a codec with hidden state). One turn (decode): the full check, once."""
        target = self.target
        if target.rotation.turns == 1:
            return self.check(target.from_bytes(data))
        try:
            target.rotation.check(target.from_bytes(data), self.subject,
                                  zlib.crc32(data) if turn is None else turn)
        except Exception as fast:
            try:
                self.check(target.from_bytes(data))
            except Exception as exc:
                raise exc from None
            raise fast from None
        return ()


@dataclass(frozen=True)
class BoundDifferential:
    """A differential target bound to its adapter and what the adapter answers
    (``AnswerDomain``, read once): what the drivers run per input."""

    target: DifferentialTarget
    subject: Impl
    #: The modules whose frames locate a crash of the adapter (``identity``).
    code_under_test: tuple[str, ...]
    #: The findings already made against this adapter: the check's fast path and what
    #: a new behaviour is named beside (``checks.known``); the recorder adds to it.
    known: KnownFindings = field(default_factory=KnownFindings, compare=False)
    #: What is in force for the run (the accept file, ``--no-accepted``, the declared
    #: sets), handed down by the entry point that bound it.
    settings: RunSettings = DEFAULT_SETTINGS
    turns: ClassVar[int] = 1

    def __post_init__(self) -> None:
        # (a refusal's raise statement is located in the adapter's code: ``checks.known``)
        self.known.code_under_test = self.code_under_test

    @functools.cached_property
    def domain(self) -> AnswerDomain:
        """What the adapter answers (``AnswerDomain``, the run's declared sets over the
        adapter's own), read on the first input and kept by the bound target (the
        harness asks on every input): only ``diff_encode`` narrows its cases to it."""
        if self.target.case_type is not EncodeCase:
            return _ALL
        domain = AnswerDomain.of(self.subject, self.settings.declared_sets)
        return _ALL if domain == _ALL else domain

    @property
    def instrumented_modules(self) -> tuple[str, ...]:
        """The modules the atheris driver instruments once imported
        (``fuzz.driver.instrument_modules``): the code under test and the reference it
        is compared with, ``REFERENCE_MODULES`` (whose branches tell inputs apart, so
        libFuzzer keeps inputs that take the reference down another path: without them
        a fault that shows only in ISO-2022-JP text switching state twice was not found
        in 30 s)."""
        return (*REFERENCE_MODULES, *self.code_under_test)

    def case_from_bytes(self, data: bytes) -> Case:
        """The case of fuzzer bytes ``data``; for ``diff_encode``, within what the
        adapter answers (``AnswerDomain``)."""
        domain = self.domain
        if domain is _ALL:
            return cast(Case, self.target.from_bytes(data))
        return domain.encode_case(data)

    def check(self, case: Case) -> tuple[str, ...] | None:
        """None when the adapter does not answer ``case``, else the ids of the registry
        entries that accepted a difference (``()``: they agree)."""
        return self.target.checker(case, self.subject, known=self.known,
                                   settings=self.settings)

    def check_fast(self, case: Case, turn: int = 0) -> None:
        self.check(case)

    def run(self, data: bytes, turn: int | None = None) -> tuple[str, ...] | None:
        """What the atheris driver runs on one input: the check of its case."""
        return self.check(self.case_from_bytes(data))

    def answer(self, data: bytes) -> None:
        """The implementation asked the case of ``data`` alone: nothing compared,
        nothing named (what a timeout is confirmed with, ``fuzz.campaign``). An error
        it raises is an answer."""
        from pctfuzz._internal.checks.profile import run_impl

        run_impl(self.target.operation.name, self.case_from_bytes(data), self.subject)


#: A target bound to its subject.
Bound: TypeAlias = BoundInvariant | BoundDifferential


_ALL = AnswerDomain()

def modules_under_test(impl: Any, operation: Operation | None = None) -> tuple[str, ...]:
    """The Python modules holding the code of an implementation under test: the
    adapter's ``modules_of(operation)`` when it has one (a function adapter: the
    modules of that operation's function), else its ``modules_under_test``, else the
    adapter's own module (what the atheris driver instruments, ``pctfuzz coverage``
    measures and the summary's "not reached" warning counts)."""
    of = getattr(impl, "modules_of", None)
    if operation is not None and callable(of) and (own := tuple(of(operation))):
        return own
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
    if not target.differential:
        return _codec(target, subject)
    return _impl(target, subject)


def _impl(target: Target, subject: Subject | str | None) -> Impl:
    """``resolve_subject`` for a differential target."""
    late = _late()
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
        f"target {target.name} checks the invariants of a codec (pctfuzz.oracles.Codec); "
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
    from pctfuzz._internal.checks import differential, invariants, strategies
    from pctfuzz._internal.oracles.base import impl_name
    from pctfuzz._internal.oracles.codec import REFERENCE, Codec
    from pctfuzz._internal.oracles.faults import FAULTS

    # What the layers above the operations attach to each: its byte format, the
    # strategy of its cases, its invariant check and its differential check.
    kinds: dict[Operation, tuple[Callable[[bytes], Any], Callable[[Any], bytes],
                                 Callable[[], SearchStrategy[Any]],
                                 Callable[[Any, Codec], None], Check]] = {
        ENCODE: (encode_from_bytes, encode_to_bytes, strategies.encode_cases,
                 invariants.check_encode, differential.check_encode),
        DECODE: (decode_from_bytes, decode_to_bytes, strategies.decode_cases,
                 invariants.check_decode, differential.check_decode),
        FORM_SERIALIZE: (form_from_bytes, form_to_bytes, strategies.form_cases,
               invariants.check_form, differential.check_form),
        FORM_PARSE: (form_parse_from_bytes, form_parse_to_bytes, strategies.form_parse_cases,
                     invariants.check_form_parse, differential.check_form_parse),
    }
    targets: list[Target] = [
        InvariantTarget(op.ident, f"invariants: {op.description}", op, from_bytes, to_bytes,
                        cases, check, rotation=invariants.ROTATING[check])
        for op, (from_bytes, to_bytes, cases, check, _diff) in kinds.items()
    ]
    targets += [
        DifferentialTarget(op.differential_target, f"differential vs --impl: {op.description}",
                           op, from_bytes, to_bytes, cases, diff)
        for op, (from_bytes, to_bytes, cases, _check, diff) in kinds.items()
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
