"""One accepted difference (``KnownDivergence``) and how entries explain a case.

An implementation under test agrees with the reference on a case when both give the
same answer, or both raise; a difference is accepted only when entries explain it.
Each entry has:

- ``id``, ``impl`` (the adapter name it is written for; variants inherit their parent's
  entries, see ``pctfuzz.oracles``), ``check`` (one of ``pctfuzz.outcome.CHECKS``);
- ``applies(case) -> bool``: a narrow predicate on the case (the feature that triggers
  the difference: a set, a lone surrogate, a legacy encoding...);
- ``reconcile(case, expected, actual)``: the *exact* statement of the difference. Given
  the reference's and the implementation's outcomes it returns them with this entry's
  difference taken out (e.g. the reference's ``%7E`` written back as ``~``), or None
  when the outcomes do not show it. A case is accepted only if, after every applicable
  entry has reconciled (in order: entries that replace a whole outcome, such as a
  refusal or a model of the implementation, before entries that rewrite text inside
  one, ``phase``), the two outcomes are equal: so the ``~`` entry accepts "differs only
  in ``~`` vs ``%7E``" and nothing else, and two entries can explain one case together
  (``~`` *and* space as ``%20``);
- ``reference`` and ``implementation``: the observed behaviours, in words;
- ``citation`` (WHATWG/RFC section, CPython docs, upstream issue) and ``why`` accepted;
- ``example``: a pinned case on which the divergence happens today, checked by
  ``pctfuzz divergences --check``; ``active()`` says whether the entry applies to the
  running versions (an upstream fix turns it off instead of breaking the tests).

The built-in entries are in ``pctfuzz.checks.registry``, a user's are built with
``pctfuzz.accept.divergence``; ``reconcile`` and ``explain`` here take either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pctfuzz.cases import Case
from pctfuzz.outcome import CHECKS, Outcome, Reconcile

__all__ = ["KnownDivergence", "explain", "reconcile"]


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
    phase: int = 0

    def __post_init__(self) -> None:
        if self.check not in CHECKS:
            raise ValueError(f"divergence {self.id}: unknown check {self.check!r}")

    def matches(self, case: Case, expected: Outcome, actual: Outcome) -> bool:
        """This entry alone explains the difference between the two outcomes."""
        if not (self.active() and self.applies(case)):
            return False
        pair = self.reconcile(case, expected, actual)
        return pair is not None and pair[0].same(pair[1])


def reconcile(
    check: str, impl_names: Sequence[str], case: Case, expected: Outcome, actual: Outcome,
    entries: Sequence[KnownDivergence],
) -> tuple[tuple[str, ...], Outcome, Outcome]:
    """Apply every active entry of ``entries`` for ``check`` and one of ``impl_names``
    whose predicate accepts ``case``, in the order given: (ids of the entries that
    changed an outcome, the reference's outcome and the implementation's with those
    differences taken out). What still differs between the two is what no entry
    explains."""
    used: list[str] = []
    for entry in entries:
        if entry.check != check or entry.impl not in impl_names:
            continue
        try:
            if not (entry.active() and entry.applies(case)):
                continue
            pair = entry.reconcile(case, expected, actual)
        except Exception:
            # An answer of an unexpected shape (a new bug) is not explained by the entry;
            # leaving it unexplained reports it.
            continue
        if pair is None:
            continue
        if not (pair[0].same(expected) and pair[1].same(actual)):
            used.append(entry.id)
        expected, actual = pair
    return tuple(used), expected, actual


def explain(
    check: str, impl_names: Sequence[str], case: Case, expected: Outcome, actual: Outcome,
    entries: Sequence[KnownDivergence],
) -> tuple[str, ...] | None:
    """Ids of the entries that together explain the difference, or None if they do not:
    the difference is explained if the ``reconcile``d outcomes are the same. The ids
    returned are those that changed one."""
    used, expected, actual = reconcile(check, impl_names, case, expected, actual, entries)
    if used and expected.same(actual):
        return used
    return None
