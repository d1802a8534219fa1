"""The planted bugs of ``benchmarks/structure_bugs.py`` (``bench_structure.py``): each
trigger is a real difference under its target's differential check, a benign case of
the same shape agrees, and unmodified urllib agrees on the trigger, so the difference
is the planted one. No fuzzing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# As the campaigns import them (``--impl structure_bugs:<Class>``): benchmarks/ on the path.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from structure_bugs import BUGS, PlantedBug

from pctfuzz._internal.targets import get_target
from pctfuzz._internal.violations import Divergence

BUG_CLASSES = pytest.mark.parametrize("bug", list(BUGS.values()), ids=list(BUGS))


def test_enough_bugs_on_the_differential_targets() -> None:
    assert len(BUGS) >= 15
    assert {bug.target for bug in BUGS.values()} == {
        "diff_decode", "diff_encode", "diff_form", "diff_form_parse"}
    assert len({bug.name for bug in BUGS.values()}) == len(BUGS)


@BUG_CLASSES
def test_trigger_differs_from_the_reference(bug: type[PlantedBug]) -> None:
    with pytest.raises(Divergence):
        get_target(bug.target).bind(bug()).check(bug.trigger)


@BUG_CLASSES
def test_benign_case_agrees(bug: type[PlantedBug]) -> None:
    get_target(bug.target).bind(bug()).check(bug.benign)


@BUG_CLASSES
def test_unmodified_urllib_agrees_on_the_trigger(bug: type[PlantedBug]) -> None:
    get_target(bug.target).bind("urllib").check(bug.trigger)


@BUG_CLASSES
def test_trigger_has_fuzzer_bytes(bug: type[PlantedBug]) -> None:
    """A driver working on bytes can reach the trigger: the target's byte format
    writes it, and the case read back (an encoding label may be spelt otherwise)
    still shows the bug."""
    target, adapter = get_target(bug.target), bug()
    data = target.to_bytes(bug.trigger)
    rebuilt = target.case_from_bytes(data, adapter)
    assert target.to_bytes(rebuilt) == data
    with pytest.raises(Divergence):
        target.bind(adapter).check(rebuilt)


@BUG_CLASSES
def test_keeps_urllib_registry_names(bug: type[PlantedBug]) -> None:
    assert bug.registry_names == ("urllib",)
    assert bug.name == f"urllib+{bug.bug}"
    assert bug.__doc__ and bug.__doc__.strip()
