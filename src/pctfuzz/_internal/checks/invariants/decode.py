"""The decode invariant, decode robustness (WHATWG URL 1.3 "percent-decode"), checked
against the spec's loop (``spec.percent_decode``), which is independent of the reference.
"""

from __future__ import annotations

from pctfuzz._internal import spec
from pctfuzz._internal.cases import DecodeCase
from pctfuzz._internal.checks.invariants.expect import DECODE_ROBUSTNESS
from pctfuzz._internal.oracles.codec import REFERENCE, Codec
from pctfuzz._internal.text import first_difference, surrogates_to_fffd
from pctfuzz._internal.violations import Violation

# --- decode-robustness ------------------------------------------------------------------


def model_percent_decode(value: str | bytes) -> bytes:
    """WHATWG URL 1.3 "percent-decode", independent of the reference: the spec's
    transcription (``spec.percent_decode``, the readable twin the reference is tested
    against, fast enough for a fuzz execution). A str is converted to a scalar value
    string (lone surrogates as U+FFFD) and UTF-8 encoded first."""
    return spec.percent_decode(
        surrogates_to_fffd(value).encode("utf-8") if isinstance(value, str) else value)


def check_decode_robustness(case: DecodeCase, codec: Codec = REFERENCE) -> None:
    """Any str or bytes decodes without an error, to bytes equal to the spec's loop: each
    ``%HH`` (hex in either case) is a byte, a ``%`` not followed by two hex digits is
    kept, lone surrogates in a str count as U+FFFD (WHATWG URL 1.3 percent-decode)."""
    want = model_percent_decode(case.value)
    try:
        got = codec.decode(case.value)
    except Exception as exc:
        raise Violation(
            DECODE_ROBUSTNESS,
            case,
            expected=want,
            actual=f"{type(exc).__name__}: {exc}",
            detail="percent-decode must accept any input",
        ) from exc
    if not isinstance(got, bytes) or got != want:
        raise Violation(
            DECODE_ROBUSTNESS,
            case,
            expected=want,
            actual=got,
            position=first_difference(want, got) if isinstance(got, bytes) else None,
            detail="differs from the spec's percent-decode loop",
        )


def check_decode(case: DecodeCase, codec: Codec = REFERENCE) -> None:
    """Every decode invariant on one case (the check the decode target runs)."""
    check_decode_robustness(case, codec)


def _decode_rotating(case: DecodeCase, codec: Codec, turn: int) -> None:
    """:func:`check_decode` (one invariant, one decode: nothing to rotate)."""
    check_decode_robustness(case, codec)
