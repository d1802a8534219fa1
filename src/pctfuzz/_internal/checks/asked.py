"""What the differential check asks an implementation about itself (its U+FFFD mode,
its requote mode, the characters it leaves raw, the order of its pairs, ...:
``checks.profile``), kept so that each question is asked once per adapter: the caching
policy of those probes, stated once.

- **Per adapter object, by identity.** An adapter need not be hashable, and two
  equal adapters may be configured apart; the key is ``id(adapter)`` and the object is
  kept beside its answers, so that an id freed and reused by another object while an
  answer is kept never returns that answer (``get`` checks ``is``).
- **Bounded.** A table holding ``LIMIT`` answers starts again from empty: a program
  that goes through many adapters (``pctfuzz matrix``, the test suite) keeps at most
  that many, and a campaign, with one adapter, keeps all of its own.
- **Answers are data.** ``None`` is an answer (asked: no mode); ``UNASKED`` says the
  question has not been asked.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable
from typing import Final, Generic, TypeVar

__all__ = ["LIMIT", "UNASKED", "Asked"]

#: Answers a table keeps before it starts again.
LIMIT: Final = 64


class _Unasked(enum.Enum):
    UNASKED = "unasked"


#: What ``Asked.get`` returns for a question not asked of that adapter yet (an enum
#: member, so that ``is not UNASKED`` narrows the answer's type).
UNASKED: Final = _Unasked.UNASKED

T = TypeVar("T")


class Asked(Generic[T]):
    """One kind of question's answers, per adapter and question (module docstring)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._answers: dict[tuple[int, Hashable], tuple[object, T]] = {}

    def get(self, adapter: object, question: Hashable) -> T | _Unasked:
        """The answer kept for ``adapter`` and ``question``, or ``UNASKED``."""
        kept = self._answers.get((id(adapter), question))
        if kept is None or kept[0] is not adapter:
            return UNASKED
        return kept[1]

    def put(self, adapter: object, question: Hashable, answer: T) -> T:
        """Keep ``answer`` for ``adapter`` and ``question``; returns it."""
        if len(self._answers) >= LIMIT:
            self._answers.clear()
        self._answers[id(adapter), question] = (adapter, answer)
        return answer

    def clear(self) -> None:
        """Forget every answer (a test that asks again)."""
        self._answers.clear()

    def __len__(self) -> int:
        return len(self._answers)

    def __repr__(self) -> str:
        return f"Asked({self.name!r}, {len(self)} answers)"
