"""The package's exceptions: one root class, ``PctfuzzError``.

Each concrete error also derives from the built-in exception a Python user would
expect (``TypeError`` for a wrong type, ``LookupError`` for an unknown name,
``ValueError`` for a value outside the domain), so ``except ValueError`` keeps
working for callers who do not know about pctfuzz.
"""

from __future__ import annotations


class PctfuzzError(Exception):
    """Root of every error raised on purpose by pctfuzz."""


class UsageError(PctfuzzError, ValueError):
    """What the user gave cannot be used: an option, a file or folder named on the
    command line, an implementation, adapter, set or accept file. The command line
    prints it as one line and exits 2 (``pctfuzz._internal.cli``), as it does for every
    ``PctfuzzError``; this class names the ones that are the user's to fix."""


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


class CaseFormatError(PctfuzzError, ValueError):
    """A case, finding or corpus record does not have the documented format."""
