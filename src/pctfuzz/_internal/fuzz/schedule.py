"""Scheduling: which targets each libFuzzer process slot runs, and for how long.

``run_campaign`` runs ``jobs`` processes at once, the differential targets first
(``order_targets``). With at least as many targets as jobs, slot ``i`` rotates
through targets ``i``, ``i + jobs``, ... in short slices (``slice_seconds``: a few
seconds, longer for long campaigns), so every target runs early and often. With
fewer targets than jobs, each target has ``jobs // targets`` slots for the whole time
(the first ``jobs % targets`` one more, ``plan_workers``): libFuzzer's own ``-jobs``
model, each process with its own ``-seed`` (``seeded``), their findings deduplicated
by the findings store.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.targets import get_target

__all__ = ["MIN_SLICE", "SLICE_OVERHEAD", "order_targets", "plan_rotation", "plan_workers",
           "seeded", "slice_seconds"]


#: About how much longer than its budget a slice takes (measured 1 s on 2 cores).
SLICE_OVERHEAD = 1.5
#: A slice shorter than this is not started.
MIN_SLICE = 2.0


def order_targets(names: Sequence[str]) -> list[str]:
    """The differential targets first (they run the implementation under test), each
    group in the given order."""
    return sorted(names, key=lambda n: not get_target(n).differential)


def plan_rotation(names: Sequence[str], jobs: int) -> list[list[str]]:
    """The targets each of the ``jobs`` process slots rotates through: targets ``i``,
    ``i + jobs``, ... for slot ``i``; with fewer targets than jobs, one target per slot
    and ``plan_workers`` slots per target."""
    if jobs < len(names):
        return [list(names[i::jobs]) for i in range(jobs)]
    return [[name] for name, count in zip(names, plan_workers(names, jobs), strict=True)
            for _ in range(count)]


def slice_seconds(max_time: float, rotation: int) -> float:
    """Seconds per slice for a slot rotating through ``rotation`` targets: about two
    turns each within the budget, from 5 s (a start-up costs about a second; shorter
    when the budget has less than 5 s per target, so each still gets a turn) to 300 s.
    A slot with one target runs it in one slice."""
    if rotation <= 1:
        return max_time
    shortest = max(MIN_SLICE + 1, min(5.0, max_time / rotation))
    return min(300.0, max(shortest, max_time / rotation / 2))



def seeded(extra: Sequence[str], workers: int) -> list[list[str]]:
    """``extra`` for each process with its own ``-seed``: the given seed plus the
    process index, else a random base plus the index."""
    given = [a for a in extra if a.startswith("-seed=")]
    rest = [a for a in extra if not a.startswith("-seed=")]
    try:
        base = int(given[-1].split("=", 1)[1]) if given else 0
    except ValueError:
        raise PctfuzzError(f"bad libFuzzer option {given[-1]!r}") from None
    if base <= 0:
        base = random.SystemRandom().randrange(1, 2**30)
    return [[*rest, f"-seed={base + i}"] for i in range(workers)]


def plan_workers(targets: Sequence[str], jobs: int) -> list[int]:
    """Processes per target for ``jobs``: one each when targets >= jobs; otherwise
    ``jobs`` spread over the targets (the first ones get the remainder)."""
    if jobs <= len(targets):
        return [1] * len(targets)
    base, extra = divmod(jobs, len(targets))
    return [base + (i < extra) for i in range(len(targets))]

