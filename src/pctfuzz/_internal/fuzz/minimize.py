"""1-minimal cases: a failing case reduced until every single removal loses its failure.

A finding is one behaviour (its signature, ``pctfuzz._internal.identity``), so a minimized case
must keep *the same signature*, not just some failure (issue 21, part 4). The search
works on the case, not on the fuzzer's bytes (``pctfuzz._internal.cases``); its units are:

- ``EncodeCase``/``DecodeCase``: the value's code points (or bytes);
- ``FormParseCase``: the text's code points (or bytes);
- ``FormCase``: its pairs, then the code points of each name and value.

As in delta debugging's ddmin (Zeller and Hildebrandt, "Simplifying and Isolating
Failure-Inducing Input", 2002), chunks of halving size are removed first, then single
units, round after round until a round removes nothing: the case is then 1-minimal.
Each remaining unit is then lowered to the simplest one that keeps the signature
(``SIMPLER``: ``a``, ``0``, ``A``, other ASCII letters and digits, ASCII punctuation,
controls, then a few non-ASCII representatives), and an encode or form case is tried
with spaceAsPlus off and UTF-8; if that changed anything, removal starts again.
Where ``keeps`` also takes another failure (a campaign's new behaviour beside known
ones: ``same_failure``'s ``unknown``), only a removal may move to it: lowering and the
parameters keep the failure of the case they change (``alike``), or a name's raw
``é`` would be lowered to a raw ``#`` and be its finding.

The search is deterministic and bounded by tries (``max_tries``); ``max_seconds`` is
only a safety net (a harness must stay below libFuzzer's per-input ``-timeout``).
``Minimized.complete`` says whether it reached the fixpoint (1-minimal) or a bound.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.formats import encode_to_bytes_within
from pctfuzz._internal.identity import signature_of
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings
from pctfuzz._internal.targets import BoundDifferential, Target

__all__ = ["DEFAULT_SECONDS", "DEFAULT_TRIES", "Minimized", "SameFailure", "minimize_case",
           "raw_input_for", "removals", "same_failure"]

#: Checks a minimization may run (the primary bound).
DEFAULT_TRIES = 5000
#: Wall-clock safety net, in seconds.
DEFAULT_SECONDS = 60.0

Keeps = Callable[[Case], bool]
#: (candidate, the case it was changed from): the candidate keeps the latter's failure
Alike = Callable[[Case, Case], bool]


def _simplicity(unit: int) -> tuple[int, int]:
    """The order in which units count as simpler (smaller first): ``a``, ``0``, ``A``,
    ASCII letters and digits, ASCII space and punctuation, ASCII controls, other BMP,
    astral, lone surrogates; by code point within a group."""
    if unit == 0x61:
        return (0, unit)
    if unit == 0x30:
        return (1, unit)
    if unit == 0x41:
        return (2, unit)
    if unit < 0x80:
        if chr(unit).isalnum():
            return (3, unit)
        return (4, unit) if 0x20 <= unit < 0x7F else (5, unit)
    if 0xD800 <= unit <= 0xDFFF:
        return (8, unit)
    return (6, unit) if unit < 0x10000 else (7, unit)


_ASCII_SIMPLER = (0x61, 0x30, 0x41, *range(0x20, 0x30), *range(0x3A, 0x41),
                  *range(0x5B, 0x61), *range(0x7B, 0x7F), *range(0x20), 0x7F)
#: The replacements tried for a code point, simplest first: every ASCII punctuation and
#: control (each can matter to a percent-encoder), a few non-ASCII representatives (two
#: UTF-8 bytes, three, a noncharacter-free BMP letter, U+FFFD, astral, lone surrogates).
SIMPLER: tuple[int, ...] = tuple(sorted(
    {*_ASCII_SIMPLER, 0x80, 0xA0, 0xE9, 0xFF, 0x100, 0x7FF, 0x800, 0x20AC, 0x3042, 0xFFFD,
     0x10000, 0xD800, 0xDC00}, key=_simplicity))
#: The same for a byte.
SIMPLER_BYTES: tuple[int, ...] = tuple(sorted({*_ASCII_SIMPLER, 0x80, 0xA0, 0xC3, 0xE9, 0xFF},
                                              key=_simplicity))


@dataclass(frozen=True)
class Minimized:
    """What ``minimize_case`` found: the smallest ``case`` that keeps the failure, the
    ``tries`` (checks run) it took, and whether it is 1-minimal (``complete``) or the
    search stopped at ``max_tries``/``max_seconds``."""

    case: Case
    tries: int
    complete: bool


class _OutOfBudget(Exception):
    pass


# --- the units of a case ---------------------------------------------------------------
# A "slot" is one removable sequence of a case: (get, put). A text or bytes value is
# its own sequence (slicing and concatenation work on both str and bytes).
#: (get, put): the sequence of a case, and the case with another sequence there. A
#: sequence is a str, bytes or a tuple of pairs (``Any``: all three slice and add).
Slot = tuple[Callable[[Case], Any], Callable[[Case, Any], Case]]


def _get_value(case: Case) -> Any:
    return case.text if isinstance(case, FormParseCase) else getattr(case, "value", "")


def _put_value(case: Case, units: Any) -> Case:
    if isinstance(case, FormParseCase):
        return dataclasses.replace(case, text=units)
    assert isinstance(case, EncodeCase | DecodeCase)
    return dataclasses.replace(case, value=units)


def _pairs_slot() -> Slot:
    def get(case: Case) -> Any:
        assert isinstance(case, FormCase)
        return case.pairs

    def put(case: Case, units: Any) -> Case:
        assert isinstance(case, FormCase)
        return dataclasses.replace(case, pairs=tuple(units))

    return get, put


def _field_slot(pair: int, side: int) -> Slot:
    def get(case: Case) -> Any:
        assert isinstance(case, FormCase)
        return case.pairs[pair][side] if pair < len(case.pairs) else ""

    def put(case: Case, units: Any) -> Case:
        assert isinstance(case, FormCase)
        fields = list(case.pairs[pair])
        fields[side] = str(units)
        pairs = list(case.pairs)
        pairs[pair] = (fields[0], fields[1])
        return dataclasses.replace(case, pairs=tuple(pairs))

    return get, put


def _slots(case: Case) -> list[Slot]:
    """The removable sequences of ``case``, coarsest first (see the module docstring)."""
    if isinstance(case, EncodeCase | DecodeCase | FormParseCase):
        return [(_get_value, _put_value)]
    if isinstance(case, FormCase):
        return [_pairs_slot()] + [_field_slot(i, side) for i in range(len(case.pairs))
                                  for side in (0, 1)]
    raise PctfuzzError(f"cannot minimize a {type(case).__name__}")


def removals(case: Case) -> Iterator[Case]:
    """Every case with one unit of ``case`` removed: one pair, or one code point (or
    byte) of a value, name or text. ``case`` is 1-minimal when none keeps its failure."""
    for get, put in _slots(case):
        units = get(case)
        for index in range(len(units)):
            yield put(case, units[:index] + units[index + 1:])


def _parameters(case: Case) -> list[Case]:
    """The simpler parameters to try: spaceAsPlus off, UTF-8."""
    out: list[Case] = []
    if isinstance(case, EncodeCase) and case.space_as_plus:
        out.append(dataclasses.replace(case, space_as_plus=False))
    if isinstance(case, EncodeCase | FormCase):
        try:
            utf8 = lookup(case.encoding).name == "UTF-8"
        except LookupError:
            utf8 = True  # an unknown label is the case's point: keep it
        if not utf8:
            out.append(dataclasses.replace(case, encoding="UTF-8"))
    return out


# --- the search --------------------------------------------------------------------------
class _Search:
    def __init__(self, keeps: Keeps, max_tries: int, max_seconds: float,
                 alike: Alike | None = None) -> None:
        self.keeps = keeps
        self.alike = alike
        self.max_tries = max_tries
        self.deadline = time.monotonic() + max_seconds
        self.tries = 0

    def test(self, candidate: Case, changed: Case | None = None) -> bool:
        """``keeps(candidate)``; for a unit or parameter ``changed`` (not removed), the
        failure of ``changed`` itself (``alike``)."""
        if self.tries >= self.max_tries or time.monotonic() > self.deadline:
            raise _OutOfBudget
        self.tries += 1
        if changed is not None and self.alike is not None:
            return self.alike(candidate, changed)
        return self.keeps(candidate)

    def remove(self, case: Case, slot: Slot) -> Case:
        """ddmin's removal over one sequence: chunks of halving size, down to one unit."""
        get, put = slot
        units = get(case)
        chunk = max(1, len(units) // 2)
        while units and chunk >= 1:
            start = 0
            while start < len(units):
                fewer = units[:start] + units[start + chunk:]
                candidate = put(case, fewer)
                if self.test(candidate):
                    case, units = candidate, fewer
                else:
                    start += chunk
            chunk //= 2
        return case

    def removal_round(self, case: Case) -> Case:
        """One round over every sequence (pairs first, then each field)."""
        index = 0
        while index < len(slots := _slots(case)):  # removing pairs changes the fields
            case = self.remove(case, slots[index])
            index += 1
        return case

    def lower(self, case: Case) -> Case:
        """Each unit replaced by the simplest one that keeps the failure."""
        for get, put in _slots(case)[1:] if isinstance(case, FormCase) else _slots(case):
            units = get(case)
            for index in range(len(units)):
                units = get(case)
                current = units[index] if isinstance(units, bytes) else ord(units[index])
                ladder = SIMPLER_BYTES if isinstance(units, bytes) else SIMPLER
                for simpler in ladder:
                    if _simplicity(simpler) >= _simplicity(current):
                        break
                    unit: Any = bytes([simpler]) if isinstance(units, bytes) else chr(simpler)
                    candidate = put(case, units[:index] + unit + units[index + 1:])
                    if self.test(candidate, case):
                        case = candidate
                        break
        return case

    def parameters(self, case: Case) -> Case:
        for candidate in _parameters(case):
            if self.test(candidate, case):
                case = candidate
        return case


def minimize_case(case: Case, keeps: Keeps, *, max_tries: int = DEFAULT_TRIES,
                  max_seconds: float = DEFAULT_SECONDS) -> Minimized:
    """The 1-minimal, simplest case found for which ``keeps`` holds (``keeps(case)``
    is assumed: the failure was just seen). Deterministic; see the module docstring.
    A ``SameFailure`` keeps also says what lowering keeps (``SameFailure.alike``)."""
    alike = keeps.alike if isinstance(keeps, SameFailure) else None
    search = _Search(keeps, max_tries, max_seconds, alike)
    best = case
    try:
        while True:
            start = best
            best = search.parameters(best)
            previous = None
            while previous != best:  # single removals until a round removes nothing
                previous = best
                best = search.removal_round(best)
            best = search.lower(best)
            if best == start:
                return Minimized(best, search.tries, True)
    except _OutOfBudget:
        return Minimized(best, search.tries, False)


# --- the failure to keep, and the fuzzer bytes of a case ----------------------------------
def same_failure(target: Target, subject: Any, impl_name: str | None, signature: str, *,
                 guard: Callable[[Callable[[], Any]], Any] | None = None,
                 representable: bool = False,
                 check: Callable[[Case], Any] | None = None,
                 unknown: Callable[[str], bool] | None = None,
                 settings: RunSettings = DEFAULT_SETTINGS) -> SameFailure:
    """``keeps`` for ``minimize_case``: ``target``'s check on a case fails with
    ``signature`` (``identity.signature_of``, as the drivers and replay compute it).
    ``guard`` runs each check (the Hypothesis driver's per-input alarm). With
    ``representable`` a case must also have fuzzer bytes (``raw_input_for``), so a
    finding found from bytes keeps a raw input for the corpus. ``check`` is the bound
    target's (default: ``target.check`` against ``subject``), so a case is named beside
    the findings already made, as the campaign named it. ``settings``: the run's
    (``settings.RunSettings``), which the bound target carries.

    ``unknown``: a failure of the same kind and check whose signature it says is no
    known finding's keeps the case too. An input that shows a new behaviour beside
    known ones (or two behaviours mixed, named by a unit of neither) then shrinks to one
    that shows a new behaviour alone, never to a known one: the finding is what is new
    in it (DDSET's abstraction of a failure-inducing input, to what causes it)."""
    if check is None:
        def check(case: Case) -> Any:
            return target.bind(subject, settings).check(case)

    return SameFailure(target, subject, impl_name, signature, check, guard=guard,
                       representable=representable, unknown=unknown, settings=settings)


class SameFailure:
    """``keeps`` for ``minimize_case`` (``same_failure``), which also tells whether a
    changed case fails as the case it was changed from (``alike``)."""

    def __init__(self, target: Target, subject: Any, impl_name: str | None, signature: str,
                 check: Callable[[Case], Any], *,
                 guard: Callable[[Callable[[], Any]], Any] | None = None,
                 representable: bool = False,
                 unknown: Callable[[str], bool] | None = None,
                 settings: RunSettings = DEFAULT_SETTINGS) -> None:
        self.target, self.subject, self.impl_name = target, subject, impl_name
        self.settings = settings
        self.signature, self.check, self.guard = signature, check, guard
        self.representable, self.unknown = representable, unknown
        self.code = target.code_under_test(subject)
        #: the signature each case asked about fails with (None: it passes, or has no
        #: fuzzer bytes where they are needed); one minimization's, so bounded by its tries
        self._found: dict[Case, str | None] = {}

    def __call__(self, case: Case) -> bool:
        found = self.failure(case)
        return found is not None and (found == self.signature or (
            self.unknown is not None
            and found.split("|")[1:3] == self.signature.split("|")[1:3]
            and self.unknown(found)))

    def alike(self, candidate: Case, changed: Case) -> bool:
        """``candidate`` is kept and fails as ``changed`` does."""
        return self(candidate) and self.failure(candidate) == self.failure(changed)

    def failure(self, case: Case) -> str | None:
        """The signature ``case`` fails with; None when it passes."""
        if case in self._found:
            return self._found[case]
        found = None
        if not self.representable or raw_input_for(self.target, case, self.subject,
                                                           self.settings) \
                is not None:
            try:
                if self.guard is None:
                    self.check(case)
                else:
                    self.guard(lambda: self.check(case))
            except Exception as exc:
                found = signature_of(self.target.name, exc, case=case, subject=self.subject,
                                     impl=self.impl_name, code_under_test=self.code,
                                     accepted=self.settings.accepted)
        self._found[case] = found
        return found


def raw_input_for(target: Target, case: Case, subject: Any = None,
                  settings: RunSettings = DEFAULT_SETTINGS) -> bytes | None:
    """Fuzzer bytes that ``target.case_from_bytes`` (against ``subject``, within the
    run's declared sets: ``settings``) turns into exactly ``case``, or None when its
    byte format cannot say it (a form field over 255 UTF-8 bytes, a set or encoding
    outside the adapter's answer domain)."""
    try:
        if subject is None:
            data = target.to_bytes(case)
            made = target.case_from_bytes(data)
        else:
            bound = target.bind(subject, settings)
            data = encode_to_bytes_within(case, bound.domain) \
                if isinstance(bound, BoundDifferential) and isinstance(case, EncodeCase) \
                else target.to_bytes(case)
            made = bound.case_from_bytes(data)
        if made == case:
            return bytes(data)
    except (PctfuzzError, LookupError, ValueError):
        pass
    return None
