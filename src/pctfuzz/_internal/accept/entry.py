"""One accepted difference (``KnownDivergence``) and how entries explain a case.

An implementation under test agrees with the reference on a case when both give the
same answer, or both raise; a difference is accepted only when entries explain it.
Each entry has:

- ``id``, ``impl`` (the adapter name it is written for; variants inherit their parent's
  entries, see ``pctfuzz._internal.oracles``), ``check`` (one of
  ``pctfuzz._internal.outcome.CHECKS``);
- ``applies(case) -> bool``: a narrow predicate on the case (the feature that triggers
  the difference: a set, a lone surrogate, a legacy encoding...);
- ``reconcile(case, expected, actual)``: the *exact* statement of the difference. Given
  the reference's and the implementation's outcomes it returns them with this entry's
  difference taken out (e.g. the reference's ``%7E`` written back as ``~``), or None
  when the outcomes do not show it;
- ``model``: for the ready-made reconcilers, the same difference as one field of a
  ``pctfuzz._internal.accept.model.Model``. A case is accepted when, after every applicable
  entry has reconciled, the two outcomes are equal. One phase order: entries that
  replace a whole outcome (``REPLACE``: a refusal, a model written as code), then the
  *composed model* of every applicable entry with a ``model`` (their models merged
  into one: one effective set by set arithmetic, text rewrites on what it gives,
  structure on the result; listing order never matters), then ``MODEL`` entries
  written as code, then ``REWRITE`` entries (text rewrites of the answer: truncation,
  a prefix). So ``left_raw("~")``, ``encoded("*")`` and ``pairs_order("sorted")``
  explain one form case together, and entries of other checks or adapters are never
  consulted;
- ``reference`` and ``implementation``: the observed behaviours, in words;
- ``citation`` (WHATWG/RFC section, CPython docs, upstream issue) and ``why`` accepted;
- ``example``: a pinned case on which the divergence happens today, checked by
  ``pctfuzz divergences --check``; ``active()`` says whether the entry applies to the
  running versions (an upstream fix turns it off instead of breaking the tests).

The built-in entries are in ``pctfuzz._internal.checks.registry``, a user's are built with
``pctfuzz._internal.accept.divergence``; ``reconcile`` and ``explain`` here take either.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pctfuzz._internal.accept.model import Model, NotModelled, render
from pctfuzz._internal.cases import Case
from pctfuzz._internal.outcome import CHECKS, Outcome, Reconcile

__all__ = ["MODEL", "REPLACE", "REWRITE", "KnownDivergence", "compose", "explain", "merge",
           "predicts", "reconcile"]

#: The one phase order of reconciling (module docstring): whole outcomes replaced,
#: then the composed model and models written as code, then rewrites of the text.
REPLACE, MODEL, REWRITE = 0, 1, 2


def _always() -> bool:
    return True


@dataclass(frozen=True)
class KnownDivergence:
    """One accepted difference (see the module docstring for each field)."""

    id: str
    impl: str
    check: str
    summary: str
    applies: Callable[[Case], bool] = field(repr=False)
    reconcile: Reconcile = field(repr=False)
    reference: str
    implementation: str
    citation: str
    why: str
    example: Case
    active: Callable[[], bool] = field(default=_always, repr=False)
    #: Reconcile order among entries (lower first): an entry replacing a whole outcome
    #: runs before one rewriting text inside it (module docstring).
    phase: int = REPLACE
    #: The difference as a field of the composed model (None: ``reconcile`` only).
    model: Model | None = None

    def __post_init__(self) -> None:
        if self.check not in CHECKS:
            raise ValueError(f"divergence {self.id}: unknown check {self.check!r}")

    def matches(self, case: Case, expected: Outcome, actual: Outcome) -> bool:
        """This entry alone explains the difference between the two outcomes."""
        if not (self.active() and self.applies(case)):
            return False
        pair = self.reconcile(case, expected, actual)
        return pair is not None and pair[0].same(pair[1])


def _applicable(check: str, impl_names: Sequence[str], case: Case,
                entries: Sequence[KnownDivergence]) -> list[KnownDivergence]:
    found = []
    for entry in entries:
        if entry.check != check or entry.impl not in impl_names:
            continue
        try:
            if entry.active() and entry.applies(case):
                found.append(entry)
        except Exception:
            continue  # a predicate failing on a new shape of case explains nothing
    return found


def _merged(entries: Sequence[KnownDivergence]) -> Model:
    models = []
    for entry in entries:
        assert entry.model is not None
        models.append(entry.model)
    return _merged_models(tuple(models))


def merge(models: Sequence[Model]) -> Model:
    """``models`` merged into one (``Model.merge``, cached by value); ``NotModelled`` when
    they cannot be one (two modes of one rule)."""
    return _merged_models(tuple(models))


@functools.lru_cache(maxsize=512)
def _merged_models(models: tuple[Model, ...]) -> Model:
    """The models merged, one object per combination: a campaign composes the same few
    entries on every diverging input (and each without one of them, ``needed``), and a
    model computes its facts once per object (``Model._facts``). A pure function of
    frozen values, so cached by value."""
    model = Model()
    for other in models:
        model = model.merge(other)
    return model


def compose(check: str, case: Case, entries: Sequence[KnownDivergence],
            current: Any = None) -> Any:
    """The composed model's answer to ``case``; ``NotModelled`` when the model has
    none."""
    try:
        return render(_merged(entries), check, case, current)
    except NotModelled:
        raise
    except Exception as exc:  # an input the model's encoder refuses
        raise NotModelled(f"{type(exc).__name__}: {exc}") from None


def needed(check: str, case: Case, entries: Sequence[KnownDivergence], value: Any,
           current: Any = None) -> list[str]:
    """The ids of the entries the composed answer ``value`` needs: those without which
    it changes; all of them when none alone matters (two identical entries). One
    render per entry, so asked only of an answer that changed the reference's."""
    found = []
    for index, entry in enumerate(entries):
        others = [*entries[:index], *entries[index + 1:]]
        try:
            without = render(_merged(others), check, case, current)
        except Exception:
            without = None
        if without != value:
            found.append(entry.id)
    return found or [e.id for e in entries]


def reconcile(
    check: str, impl_names: Sequence[str], case: Case, expected: Outcome, actual: Outcome,
    entries: Sequence[KnownDivergence], *, needs: bool = True,
) -> tuple[tuple[str, ...], Outcome, Outcome]:
    """Apply every active entry of ``entries`` for ``check`` and one of ``impl_names``
    whose predicate accepts ``case``, in the phase order of the module docstring
    (entries of one phase in the order given): (ids of the entries that changed an
    outcome, the reference's outcome and the implementation's with those differences
    taken out). What still differs between the two is what no entry explains.
    ``needs=False``: the composed model's entries are all counted as used, not only
    those its answer ``needed`` (one render each), for a caller that asks whether the
    outcomes agree, not which entries it took."""
    found = _applicable(check, impl_names, case, entries)
    used: list[str] = []

    def run(entry: KnownDivergence) -> None:
        nonlocal expected, actual
        try:
            pair = entry.reconcile(case, expected, actual)
        except Exception:
            # An answer of an unexpected shape (a new bug) is not explained by the entry;
            # leaving it unexplained reports it.
            return
        if pair is None:
            return
        if not (pair[0].same(expected) and pair[1].same(actual)):
            used.append(entry.id)
        expected, actual = pair

    coded = [e for e in found if e.model is None]
    declared = [e for e in found if e.model is not None]
    for entry in coded:
        if entry.phase <= REPLACE:
            run(entry)
    # Python's codec answers a lone surrogate the reference refuses (an NCR, or '?'),
    # and so does a model that drops it or encodes its surrogatepass bytes.
    if declared and not actual.raised and (
            not expected.raised or any(e.model and (e.model.python_codec or e.model.surrogates
                                                    or e.model.unmappable)
                                       for e in declared)):
        current = None if expected.raised else expected.value
        try:
            value = compose(check, case, declared, current)
        except NotModelled:
            pass
        else:
            modelled = Outcome(value)
            if not modelled.same(expected):
                used += (needed(check, case, declared, value, current) if needs
                         else [e.id for e in declared])
            expected = modelled
    for phase in (MODEL, REWRITE):
        for entry in coded:
            if entry.phase == phase or (phase == REWRITE and entry.phase > REWRITE):
                run(entry)
    return tuple(used), expected, actual


def explain(
    check: str, impl_names: Sequence[str], case: Case, expected: Outcome, actual: Outcome,
    entries: Sequence[KnownDivergence],
) -> tuple[str, ...] | None:
    """Ids of the entries that together explain the difference, or None if they do not:
    the difference is explained if the ``reconcile``d outcomes are the same. The ids
    returned are those that changed one."""
    if not entries:  # (a differential check asks on every differing input)
        return None
    # Whether they explain it first, without telling which entries did: most asks
    # are refused (a rule's candidates, the known findings), and telling costs a
    # render per entry of the composed model.
    used, fixed_expected, fixed_actual = reconcile(check, impl_names, case, expected,
                                                   actual, entries, needs=False)
    if not (used and fixed_expected.same(fixed_actual)):
        return None
    used, expected, actual = reconcile(check, impl_names, case, expected, actual, entries)
    return used if used else None


def predicts(check: str, impl_names: Sequence[str], case: Case, expected: Outcome,
             actual: Outcome, entries: Sequence[KnownDivergence],
             models: dict[tuple[str, ...], Model] | None = None) -> bool | None:
    """Whether the composed model of the ``entries`` that apply gives exactly ``actual``,
    in one render (``explain`` renders once more per entry, to tell which it needs):
    the check's fast path (``checks.known``). None when the composed model alone does
    not decide it -- an entry written as code applies, the implementation raised, or
    the model has no answer -- and ``explain`` must. ``models`` caches the merged
    model per set of applicable entries (by id)."""
    if actual.raised:
        return None
    found = _applicable(check, impl_names, case, entries)
    if not found or any(e.model is None for e in found):
        return None
    if expected.raised and not any(e.model and (e.model.python_codec or e.model.surrogates
                                                or e.model.unmappable) for e in found):
        return None  # (as ``reconcile``: the composed model answers no other refusal)
    key = tuple(e.id for e in found)
    model = None if models is None else models.get(key)
    if model is None:
        try:
            model = _merged(found)
        except NotModelled:
            return None
        if models is not None:
            if len(models) >= 256:
                models.clear()
            models[key] = model
    try:
        value = render(model, check, case, None if expected.raised else expected.value)
    except Exception:  # NotModelled, or an input the model's encoder refuses
        return None
    return bool(value == actual.value)
