"""Every exception pctfuzz raises across a module boundary, in one module.

One root, ``PctfuzzError``, for every error raised on purpose. Each concrete error also
derives from the built-in exception a Python user would expect (``TypeError`` for a
wrong type, ``LookupError`` for an unknown name, ``ValueError`` for a value outside the
domain), so ``except ValueError`` keeps working for callers who do not know about
pctfuzz. The command line prints any ``PctfuzzError`` as one line and exits 2
(``ExitCode.USAGE``, ``pctfuzz._internal.exits``)::

    PctfuzzError
    ├── UsageError (ValueError)            what the user gave cannot be used
    ├── ConfigError (ValueError)           a [tool.pctfuzz] table that cannot be used
    ├── InputTypeError (TypeError)         the library: an argument of the wrong type
    ├── UnknownSetError (LookupError)      ... not a set name, alias or spec
    ├── UnknownEncodingError (LookupError) ... not a WHATWG encoding label
    ├── NotScalarValueError (ValueError)   ... a str with a lone surrogate
    ├── CaseFormatError (ValueError)       a case, finding or corpus record
    ├── StoreError (ValueError)            a corpus or findings file
    │   ├── StoreReadError (OSError)       ... that cannot be read
    │   ├── FindingFormatError (CaseFormatError)  ... not a valid record
    │   └── FindingNotFoundError (LookupError)    ... no finding with that id
    ├── Unsupported                        an adapter cannot express a case (skipped)
    ├── PeerError                          a peer process failed (not an answer)
    │   └── PeerUnavailable, PeerDied, PeerTimeout, PeerProtocolError
    └── Violation (AssertionError)         a check failed: an invariant broke
        └── Divergence                     ... the implementation and the reference differ

    NotModelled (Exception)                an accepted-difference model cannot answer
                                           (raised by accept.model, caught by the rules)
    Deferred (Exception)                   a diverging input left unnamed: naming had its
                                           share of the campaign (checks.known.NamingBudget;
                                           raised by the check, counted by the driver)

The public modules re-export the ones users catch (``pctfuzz``: the root and the
library's errors; ``pctfuzz.oracles``: ``Unsupported``). The modules that raise them
import them from here, and keep the names they had (``store.errors.StoreError``,
``oracles.peer.PeerError``, ``violations.Divergence``...), so ``isinstance`` and pickles
see one class. Not here: the signals that one module raises and catches itself, never
past its own functions (``_Timeout``, ``_Stop``, ``_OutOfBudget``, ``ReplayStopped``, the
peer protocol's ``_Mismatch``, the pytest plugin's ``FindingFailed``, which the plugin
defines itself so that pytest starts without importing pctfuzz): they are control
flow, not errors. Nor the exceptions that stand for an implementation's own failure,
whose qualified name is part of a finding's signature (``raised=MODULE.TYPE``) and so
stays where it was: ``oracles.peer.RemoteError`` (and its subclass per remote type)
and ``oracles.curl.CurlError``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from pctfuzz._internal.text import one_line

__all__ = [
    "CaseFormatError",
    "ConfigError",
    "Deferred",
    "Divergence",
    "FindingFormatError",
    "FindingNotFoundError",
    "InputTypeError",
    "NotModelled",
    "NotScalarValueError",
    "PctfuzzError",
    "PeerDied",
    "PeerError",
    "PeerProtocolError",
    "PeerTimeout",
    "PeerUnavailable",
    "StoreError",
    "StoreReadError",
    "UnknownEncodingError",
    "UnknownSetError",
    "Unsupported",
    "UsageError",
    "Violation",
    "type_name",
]


class PctfuzzError(Exception):
    """Root of every error raised on purpose by pctfuzz."""


# --- what the user gave ----------------------------------------------------------------

class UsageError(PctfuzzError, ValueError):
    """What the user gave cannot be used: an option, a file or folder named on the
    command line, an implementation, adapter, set or accept file. The command line
    prints it as one line and exits 2 (``ExitCode.USAGE``), as it does for every
    ``PctfuzzError``; this class names the ones that are the user's to fix."""


class ConfigError(PctfuzzError, ValueError):
    """A ``[tool.pctfuzz]`` table that cannot be used."""


# --- the library (the reference encoder) -------------------------------------------------

class InputTypeError(PctfuzzError, TypeError):
    """An argument has the wrong type (e.g. ``percent_encode(42)``)."""


class UnknownSetError(PctfuzzError, LookupError):
    """A percent-encode set name is not in the registry (see ``pctfuzz sets``)."""


class UnknownEncodingError(PctfuzzError, LookupError):
    """An encoding label is not a WHATWG Encoding Standard label."""


class NotScalarValueError(PctfuzzError, ValueError):
    """A str holds a lone surrogate, so it is not a *scalar value string*.

    WHATWG "percent-encode after encoding" is defined on scalar value strings only;
    pass ``surrogates="replace"`` to apply the standard's conversion (U+FFFD) instead.
    """


def type_name(value: object) -> str:
    """The short type name used in error messages."""
    return type(value).__name__


# --- records and the store ---------------------------------------------------------------

class CaseFormatError(PctfuzzError, ValueError):
    """A case, finding or corpus record does not have the documented format."""


class StoreError(PctfuzzError, ValueError):
    """A corpus or findings file cannot be used; ``str()`` is one line naming it."""

    def __init__(self, path: os.PathLike[str] | str, message: str) -> None:
        self.path = Path(path)
        self.message = one_line(message, 500)
        super().__init__(f"{one_line(os.fspath(path))}: {self.message}")


class StoreReadError(StoreError, OSError):
    """A file that exists could not be read (permission, I/O error): not malformed, so
    it is never moved aside or replaced; the caller reports it and leaves it alone."""


class FindingFormatError(StoreError, CaseFormatError):
    """A finding file was read but its content is not a valid record."""


class FindingNotFoundError(StoreError, LookupError):
    """No finding with the requested id is in the store."""


# --- adapters and peers ------------------------------------------------------------------

class Unsupported(PctfuzzError):
    """The implementation cannot express this case; the differential check skips it."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class PeerError(PctfuzzError):
    """The peer process failed: it is not the implementation's answer."""


class PeerUnavailable(PeerError):
    """The peer cannot be started or does not offer the implementation."""


class PeerDied(PeerError):
    """The peer exited while a request was outstanding."""


class PeerTimeout(PeerError):
    """The peer did not answer in time; it has been killed."""


class PeerProtocolError(PeerError):
    """The peer answered something that is not a protocol answer."""


# --- checks ------------------------------------------------------------------------------

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


# --- a signal between two layers, not an error of a run ---------------------------------

class NotModelled(Exception):
    """The model cannot answer this case exactly (so it explains nothing here)."""


class AskedBefore(Exception):
    """A question an earlier process of this campaign died asking the implementation
    (a native crash: ``checks.breadcrumb``), not asked again: the answer it stands for.
    A crash in the set probe killed every restarted process at its first naming (55
    executions a second)."""


class Deferred(Exception):
    """A diverging input left unnamed: naming had its share of the campaign
    (``checks.known.NamingBudget``). Not a finding: the atheris driver counts it."""

