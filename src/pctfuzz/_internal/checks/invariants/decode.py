"""The decode invariant, decode robustness (WHATWG URL 1.3 "percent-decode"), checked
against a model of the spec's loop written independently of the reference.
"""

from __future__ import annotations

from pctfuzz._internal.cases import DecodeCase
from pctfuzz._internal.checks.invariants.expect import (
    _HEX_BYTES,
    DECODE_ROBUSTNESS,
    _first_difference,
)
from pctfuzz._internal.oracles.codec import REFERENCE, Codec
from pctfuzz._internal.text import surrogates_to_fffd
from pctfuzz._internal.violations import Violation

# --- decode-robustness ------------------------------------------------------------------


def model_percent_decode(value: str | bytes) -> bytes:
    """WHATWG URL 1.3 "percent-decode", written independently of the reference: walk
    the ``%`` signs; ``%`` + two ASCII hex digits (either case) is a byte, any other
    ``%`` stays. A str is UTF-8 encoded first, lone surrogates as U+FFFD."""
    data = surrogates_to_fffd(value).encode("utf-8") if isinstance(value, str) else value
    out = bytearray()
    pos = 0
    while (cut := data.find(b"%", pos)) >= 0:
        out += data[pos:cut]
        pair = data[cut + 1 : cut + 3]
        if len(pair) == 2 and pair[0] in _HEX_BYTES and pair[1] in _HEX_BYTES:
            out.append(int(pair, 16))
            pos = cut + 3
        else:
            out.append(0x25)
            pos = cut + 1
    out += data[pos:]
    return bytes(out)


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
            position=_first_difference(want, got) if isinstance(got, bytes) else None,
            detail="differs from the spec's percent-decode loop",
        )


def check_decode(case: DecodeCase, codec: Codec = REFERENCE) -> None:
    """Every decode invariant on one case (the check the decode target runs)."""
    check_decode_robustness(case, codec)


def _decode_rotating(case: DecodeCase, codec: Codec, turn: int) -> None:
    """:func:`check_decode` (one invariant, one decode: nothing to rotate)."""
    check_decode_robustness(case, codec)
