"""What a failed check raises: ``Violation`` (an invariant broke) and ``Divergence``
(the implementation under test disagreed with the reference outside the registry).

Both carry structured evidence so a driver can store a finding without parsing
messages: ``check`` names the invariant (part of a finding's signature), and
``expected``/``actual``/``position`` say what differed and where.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from pctfuzz._internal.errors import PctfuzzError

__all__ = ["Divergence", "Violation"]


class Violation(PctfuzzError, AssertionError):
    """An invariant does not hold for a case.

    ``behaviour`` is the catalogue rule (``pctfuzz._internal.accept.rules``: ``{"rule",
    "params", "text"}``) that explains the difference between the codec under test and
    the reference on the case, set by the target that ran the check; None when no rule
    does, or the codec is the reference."""

    kind: ClassVar[str] = "violation"
    behaviour: dict[str, Any] | None = None

    def __init__(
        self,
        check: str,
        case: object,
        *,
        expected: Any = None,
        actual: Any = None,
        position: int | Callable[[], int | None] | None = None,
        detail: str = "",
    ) -> None:
        self.check = check
        self.case = case
        self.expected = expected
        self.actual = actual
        self._position = position
        self.detail = detail
        # The message (and a position given as a function) is worked out when asked: a
        # campaign raises one for every input a known finding explains
        # (``checks.known``), and drops it.
        super().__init__()

    @property
    def position(self) -> int | None:
        """Where ``expected`` and ``actual`` first differ (None: not located)."""
        if callable(self._position):
            self._position = self._position()
        return self._position

    def __str__(self) -> str:
        return self._message()

    def _message(self) -> str:
        parts = [f"{self.check}: {self.detail}" if self.detail else self.check]
        parts.append(f"case={self.case!r}")
        parts.append(f"expected={self.expected!r}")
        parts.append(f"actual={self.actual!r}")
        if self.position is not None:
            parts.append(f"position={self.position}")
        return "; ".join(parts)

    def evidence(self) -> dict[str, Any]:
        """Plain data for a finding record (values are repr'd: they may be bytes)."""
        return {
            "check": self.check,
            "detail": self.detail,
            "expected": repr(self.expected),
            "actual": repr(self.actual),
            "position": self.position,
        } | ({} if self.behaviour is None else {"behaviour": self.behaviour["text"]})


class Divergence(Violation):
    """The implementation under test and the reference disagree, and no registry
    entry (``divergences.py``) accepts the difference.

    ``expected`` is the reference's answer, ``actual`` the implementation's; when the
    implementation raised, ``actual`` is None and ``impl_error`` holds the exception.
    ``difference`` is the class of the difference (``pctfuzz._internal.identity``): what makes
    this finding's signature, so two different bugs are two findings. ``behaviour``
    is the catalogue rule that explains it (``pctfuzz._internal.accept.rules``: ``{"rule",
    "params", "text"}``), whose class ``difference`` then is; None when no rule does.
    """

    kind: ClassVar[str] = "divergence"

    def __init__(
        self,
        check: str,
        case: object,
        *,
        impl: str,
        expected: Any = None,
        actual: Any = None,
        impl_error: BaseException | None = None,
        position: int | Callable[[], int | None] | None = None,
        detail: str = "",
        difference: str = "-",
        behaviour: dict[str, Any] | None = None,
    ) -> None:
        self.impl = impl
        self.impl_error = impl_error
        self.difference = difference
        self.behaviour = behaviour
        if impl_error is not None and not detail:
            detail = f"{impl} raised {type(impl_error).__name__}: {impl_error}"
        super().__init__(
            check, case, expected=expected, actual=actual, position=position, detail=detail
        )

    def evidence(self) -> dict[str, Any]:
        data = super().evidence()
        data["impl"] = self.impl
        data["difference"] = self.difference
        if self.impl_error is not None:
            data["impl_error"] = f"{type(self.impl_error).__name__}: {self.impl_error}"
        return data
