"""The pinned examples, run: each entry's example must still diverge and be accepted
(``pctfuzz divergences --check``; ``pctfuzz._internal.accept.entry`` describes the fields)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.checks.locate import agree
from pctfuzz._internal.checks.profile import run_impl, scalar_values
from pctfuzz._internal.checks.registry.lookup import accepted_entries, explain
from pctfuzz._internal.errors import NotScalarValueError, UsageError
from pctfuzz._internal.oracles.base import registry_names
from pctfuzz._internal.oracles.registry import get_impl
from pctfuzz._internal.outcome import Outcome, reference_outcome
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings

__all__ = ["CheckResult", "check_entries", "example_outcomes"]


def example_outcomes(entry: KnownDivergence) -> tuple[Outcome, Outcome]:
    """(reference, implementation) outcomes on a built-in entry's pinned example."""
    expected = reference_outcome(entry.check, entry.example)
    actual = run_impl(entry.check, entry.example, get_impl(entry.impl))
    if actual is None:  # pragma: no cover - an example must be expressible
        raise UsageError(f"divergence {entry.id}: {entry.impl} does not support its example")
    return expected, actual


@dataclass(frozen=True)
class CheckResult:
    """What ``check_entries`` found for one entry's pinned example."""

    entry: KnownDivergence
    ok: bool
    problem: str = ""

    def line(self) -> str:
        state = "ok" if self.ok else f"FAILED: {self.problem}"
        return f"{self.entry.id} ({self.entry.impl}, {self.entry.check}): {state}"


def check_entries(impl: object, entries: Sequence[KnownDivergence],
                  settings: RunSettings = DEFAULT_SETTINGS) -> list[CheckResult]:
    """Run each entry's pinned example on ``impl``: it must still diverge from the
    reference, and ALL the entries of the adapter (built-in and user entries, composed,
    ``pctfuzz._internal.accept.entry``) must accept it with this entry among those used, and
    without it they must not: each example is accepted with its own entry. An inactive
    entry (fixed upstream) is skipped as ok. ``settings``: the run's (its accept file's
    entries are among the user entries in force)."""
    names = registry_names(impl)
    extra = accepted_entries(impl, settings)
    results = []
    for entry in entries:
        if not entry.active():
            results.append(CheckResult(entry, True, "inactive"))
            continue
        try:
            expected = reference_outcome(entry.check, entry.example,
                                         surrogates=scalar_values(impl))
        except NotScalarValueError as exc:  # pragma: no cover - reference_outcome catches
            expected = Outcome(error=exc)
        actual = run_impl(entry.check, entry.example, impl)  # type: ignore[arg-type]
        if actual is None:
            results.append(CheckResult(entry, False, "the implementation does not support "
                                       "the example (Unsupported)"))
        elif agree(entry.check, entry.example, expected, actual):
            results.append(CheckResult(
                entry, False, "the example no longer diverges (reference "
                f"{expected.describe()}, implementation {actual.describe()}: they agree)"))
        else:
            used = explain(entry.check, names, entry.example, expected, actual, extra=extra,
                           settings=settings)
            others = None if used is None else explain(
                entry.check, names, entry.example, expected, actual, extra=extra,
                without=entry.id, settings=settings)
            if used is not None and (entry.id not in used or others is not None):
                by = others if others is not None else used
                results.append(CheckResult(
                    entry, False, f"redundant: the example is accepted by {', '.join(by)} "
                    "without this entry"))
            elif used is None:
                results.append(CheckResult(
                    entry, False, f"the example diverges but is not accepted: reference "
                    f"{expected.describe()}, implementation {actual.describe()}"))
            else:
                results.append(CheckResult(entry, True))
    return results
