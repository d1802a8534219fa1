"""The spec side of the invariants: the invariant names, the input domain, and what
the specification says should be percent-encoded.

"Expected" values come from the specification's side, never from the codec under test:
the bytes to be percent-encoded are the UTF-8 bytes of the input (or its bytes, or the
WHATWG legacy encoder's output), and the set is the registry's (``pctfuzz._internal.sets``). The
legacy bytes come from :func:`pctfuzz._internal.encoding.encode_inband` (the encoder layer, which
the reference's legacy path starts from too), else from the transcription of the
Encoding Standard's loop, :func:`pctfuzz._internal.encoding.encode_runs`; the tests pin the two
equal on every code point, so a fuzz execution does not pay for the loop.

Inputs outside the specification's domain -- a str with a lone surrogate (not a
*scalar value string*, WHATWG URL 1.3), an unknown set name or encoding label -- have
one invariant only, ``input-domain`` (:func:`check_input_domain`): the codec must
reject them with the documented error. Every other invariant is vacuous for them.
"""

from __future__ import annotations

import functools

from pctfuzz._internal import encoding as _encoding
from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.errors import (
    NotScalarValueError,
    PctfuzzError,
    UnknownEncodingError,
    UnknownSetError,
)
from pctfuzz._internal.oracles.codec import REFERENCE, Codec
from pctfuzz._internal.sets import PercentEncodeSet, get_set
from pctfuzz._internal.spec import ASCII_HEX_DIGITS
from pctfuzz._internal.text import LONE_SURROGATE
from pctfuzz._internal.violations import Violation

# Invariant names: part of a finding's signature, so never rename one.
INPUT_DOMAIN = "input-domain"
OUTPUT_ALPHABET = "output-alphabet"
ROUND_TRIP = "round-trip"
LENGTH_BOUND = "length-bound"
DETERMINISM = "determinism"
UNRESERVED_IDEMPOTENCE = "unreserved-idempotence"
MONOTONICITY = "monotonicity"
CONCATENATION = "concatenation"
DECODE_ROBUSTNESS = "decode-robustness"
FORM_ROUND_TRIP = "form-round-trip"
FORM_SERIALIZER = "form-serializer"
FORM_PARSE = "form-parse"

_HEX_BYTES = ASCII_HEX_DIGITS


# --- what the specification says should be encoded ---------------------------------------


def _is_scalar(text: str) -> bool:
    return LONE_SURROGATE.search(text) is None


def _first_surrogate(text: str) -> int | None:
    found = LONE_SURROGATE.search(text)
    return None if found is None else found.start()


@functools.lru_cache(maxsize=512)
def _setting(set_name: str, encoding: str) -> tuple[PercentEncodeSet | None, bool | None]:
    """(the set, or None when the name is unknown; whether the label is UTF-8, or None
    when it is unknown). Independent of the value, so cached: every input asks."""
    try:
        pes: PercentEncodeSet | None = get_set(set_name)
    except UnknownSetError:
        pes = None
    try:
        utf8: bool | None = _encoding.lookup(encoding).is_utf8
    except UnknownEncodingError:
        utf8 = None
    return pes, utf8


def expected_encode_error(case: EncodeCase) -> type[PctfuzzError] | None:
    """The error the reference documents for ``case``, or None when it is in the domain.

    Checked in the reference's order: set name, then (str only: bytes ignore the
    encoding) encoding label, then scalar-value-ness (WHATWG URL 1.3 takes a scalar
    value string).
    """
    pes, utf8 = _setting(case.set_name, case.encoding)
    if pes is None:
        return UnknownSetError
    if isinstance(case.value, bytes):
        return None
    if utf8 is None:
        return UnknownEncodingError
    return None if _is_scalar(case.value) else NotScalarValueError


class _Expect:
    """The spec side of an in-domain encode case.

    For a str in a legacy encoding the encoder's bytes are computed on first use, so
    the checks that need none (alphabet, concatenation, monotonicity, determinism)
    do not run the pure-Python legacy encoder a second time.
    """

    __slots__ = ("_encoded", "_encoding", "_value", "legacy", "pes", "plus")

    def __init__(self, pes: PercentEncodeSet, plus: bool, value: str | bytes, encoding: str,
                 legacy: bool, encoded: tuple[bytes, int, int] | None = None) -> None:
        self.pes = pes
        self.plus = plus
        self.legacy = legacy  # a str through a non-UTF-8 encoder (NCRs, stateful encoders)
        self._value = value
        self._encoding = encoding
        self._encoded = encoded

    def _bytes(self) -> tuple[bytes, int, int]:
        if self._encoded is None:
            self._encoded = _encoder_bytes(self._value, self._encoding)
        return self._encoded

    @property
    def data(self) -> bytes:
        """The bytes to percent-encode; an unencodable code point N as b"&#N;"."""
        return self._bytes()[0]

    @property
    def raw_len(self) -> int:
        """``len(data)`` without the NCRs."""
        return self._bytes()[1]

    @property
    def ncr_len(self) -> int:
        """Output length of the NCRs, "%26%23" N "%3B" each."""
        return self._bytes()[2]


def encoder_bytes(value: str | bytes, encoding: str) -> bytes:
    """The bytes "percent-encode after encoding" (WHATWG URL 1.3) percent-encodes.

    Bytes are used as they are; a str goes through the encoding's encoder (UTF-8, or a
    WHATWG legacy encoder), and each code point N it cannot encode stands for the bytes
    ``&#N;``, which the algorithm writes as ``%26%23N%3B`` whatever the set.
    """
    return _encoder_bytes(value, encoding)[0]


def _encoder_bytes(value: str | bytes, encoding: str) -> tuple[bytes, int, int]:
    """(encoder bytes, how many of them are not NCRs, output length of the NCRs)."""
    if isinstance(value, bytes):
        return value, len(value), 0
    enc = _encoding.lookup(encoding)
    if enc.is_utf8:
        data = value.encode("utf-8")
        return data, len(data), 0
    inband = _encoding.encode_inband(enc, value)
    if inband is not None:
        # The same bytes as the loop below, in C (tests/unit/test_encode_ncr.py compares
        # the two on every code point): the cost of the loop was half of the encode
        # target's time on the fuzzer's ISO-2022-JP inputs (U+FFFD floods).
        data = _encoding.inband_ncr_bytes(inband)
        ncrs = _encoding.inband_ncrs("".join(_encoding.INBAND_ERRORS.findall(inband)))
        return data, len(data) - len(ncrs), len(ncrs) + 6 * ncrs.count("&")
    chunks: list[bytes] = []
    raw_len = ncr_len = 0
    for piece in _encoding.encode_runs(enc, value):
        if isinstance(piece, int):
            ncr = b"&#%d;" % piece
            chunks.append(ncr)
            ncr_len += len(ncr) + 6  # "&", "#" and ";" take 3 chars each once encoded
        else:
            chunks.append(piece)
            raw_len += len(piece)
    return b"".join(chunks), raw_len, ncr_len


def _expect(case: EncodeCase) -> _Expect | None:
    """The spec side of ``case``; None when the case is outside the domain."""
    if expected_encode_error(case) is not None:
        return None
    pes, utf8 = _setting(case.set_name, case.encoding)
    assert pes is not None
    value = case.value
    plus = case.space_as_plus
    if isinstance(value, bytes):
        return _Expect(pes, plus, value, case.encoding, False, (value, len(value), 0))
    if utf8:
        data = value.encode("utf-8")
        return _Expect(pes, plus, value, case.encoding, False, (data, len(data), 0))
    return _Expect(pes, plus, value, case.encoding, True)


def _encode(
    codec: Codec, case: EncodeCase, value: str | bytes | None = None, set_name: str | None = None
) -> str:
    """``codec.encode`` with the case's arguments; a deliberate refusal of in-domain
    input (a PctfuzzError, ValueError or LookupError) is an ``input-domain`` violation."""
    try:
        return codec.encode(
            case.value if value is None else value,
            case.set_name if set_name is None else set_name,
            encoding=case.encoding,
            space_as_plus=case.space_as_plus,
        )
    except (PctfuzzError, ValueError, LookupError) as exc:
        if isinstance(exc, Violation):
            raise
        raise Violation(
            INPUT_DOMAIN,
            case,
            expected="an encoding",
            actual=f"{type(exc).__name__}: {exc}",
            detail=f"{codec.name} rejected an in-domain input "
            f"({'the value' if value is None else repr(value)}, "
            f"set {set_name or case.set_name!r})",
        ) from exc


# --- input-domain ---------------------------------------------------------------------


def check_input_domain(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """Out-of-domain input is rejected with the documented error; in-domain input is not
    rejected. Lone surrogates -> NotScalarValueError (WHATWG URL 1.3 takes a scalar value
    string; Infra "convert" is the caller's choice), unknown set -> UnknownSetError,
    unknown encoding label -> UnknownEncodingError (Encoding 4.2 "get an encoding")."""
    wanted = expected_encode_error(case)
    if wanted is None:
        _encode(codec, case)
        return
    position = _first_surrogate(case.value) if isinstance(case.value, str) else None
    try:
        result = codec.encode(
            case.value, case.set_name, encoding=case.encoding, space_as_plus=case.space_as_plus
        )
    except wanted:
        return
    except Exception as exc:
        raise Violation(
            INPUT_DOMAIN,
            case,
            expected=wanted.__name__,
            actual=f"{type(exc).__name__}: {exc}",
            position=position,
            detail="rejected with the wrong error",
        ) from exc
    raise Violation(
        INPUT_DOMAIN,
        case,
        expected=wanted.__name__,
        actual=result,
        position=position,
        detail="accepted an input outside the specification's domain",
    )
