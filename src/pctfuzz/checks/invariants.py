"""The invariants of percent-encoding, as plain functions that raise ``Violation``.

Every check takes the implementation under test as a :class:`Codec` (default
:data:`REFERENCE`), so a deliberately wrong codec (``pctfuzz.oracles.faults``) or another
library's adapter can be checked by the same code. Each driver (Hypothesis, atheris,
replay) calls one aggregate per case type — :func:`check_encode`, :func:`check_decode`,
:func:`check_form`, :func:`check_form_parse` — and :data:`INVARIANTS` lists every single
invariant for the docs and the fault tests. The atheris driver alone may call the
rotating variants of :data:`ROTATING` instead: the cheap invariants on every input and
one costly one per execution, so an execution costs about two codec calls; what they
find is re-checked with the aggregate before it is recorded.

"Expected" values come from the specification's side, never from the codec under test:
the bytes to be percent-encoded are the UTF-8 bytes of the input (or its bytes, or the
WHATWG legacy encoder's output from :func:`pctfuzz.encoding.encode_runs`), and the set
is the registry's (``pctfuzz.sets``).

Inputs outside the specification's domain — a str with a lone surrogate (not a
*scalar value string*, WHATWG URL 1.3), an unknown set name or encoding label — have
one invariant only, ``input-domain``: the codec must reject them with the documented
error (``NotScalarValueError``, ``UnknownSetError``, ``UnknownEncodingError``). Every
other invariant is vacuous for them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol

from pctfuzz import encoding as _encoding
from pctfuzz.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz.errors import NotScalarValueError, PctfuzzError, UnknownEncodingError, UnknownSetError
from pctfuzz.form import form_urldecode, form_urlencode
from pctfuzz.reference import percent_decode, percent_encode
from pctfuzz.sets import FORM, SETS, UNRESERVED, PercentEncodeSet, get_set
from pctfuzz.violations import Violation

__all__ = [
    "CONCATENATION",
    "DECODE_ROBUSTNESS",
    "DETERMINISM",
    "FORM_PARSE",
    "FORM_ROUND_TRIP",
    "FORM_SERIALIZER",
    "INPUT_DOMAIN",
    "INVARIANTS",
    "LENGTH_BOUND",
    "MONOTONICITY",
    "OUTPUT_ALPHABET",
    "REFERENCE",
    "ROTATING",
    "ROUND_TRIP",
    "UNRESERVED_IDEMPOTENCE",
    "Codec",
    "Invariant",
    "Rotation",
    "check_concatenation",
    "check_decode",
    "check_decode_robustness",
    "check_determinism",
    "check_encode",
    "check_form",
    "check_form_parse",
    "check_form_round_trip",
    "check_form_serializer",
    "check_input_domain",
    "check_length_bound",
    "check_monotonicity",
    "check_output_alphabet",
    "check_round_trip",
    "check_unreserved_idempotence",
    "encoder_bytes",
    "expected_encode_error",
    "expected_form_error",
    "form_parser",
    "form_serializer",
    "model_percent_decode",
    "round_trip_holds",
    "set_neighbours",
]

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


# --- the implementation under test ------------------------------------------------------


class EncodeFunc(Protocol):
    """Percent-encode after encoding (WHATWG URL 1.3) of a str or bytes."""

    def __call__(
        self, value: str | bytes, set_name: str, *, encoding: str, space_as_plus: bool
    ) -> str: ...


class DecodeFunc(Protocol):
    """Percent-decode (WHATWG URL 1.3) of a str or bytes, to bytes."""

    def __call__(self, value: str | bytes) -> bytes: ...


class FormEncodeFunc(Protocol):
    """application/x-www-form-urlencoded serializer (WHATWG URL 5.2)."""

    def __call__(self, pairs: Sequence[tuple[str, str]], *, encoding: str) -> str: ...


class FormDecodeFunc(Protocol):
    """application/x-www-form-urlencoded parser (WHATWG URL 5.1)."""

    def __call__(self, text: str | bytes) -> list[tuple[str, str]]: ...


@dataclass(frozen=True)
class Codec:
    """An implementation under test: four callables with the reference's meaning.

    Build one with :meth:`build` to derive the form serializer and parser from
    ``encode``/``decode`` by the WHATWG algorithms (5.1, 5.2), so a fault injected into
    the encoder shows up in the form functions too.
    """

    name: str
    encode: EncodeFunc
    decode: DecodeFunc
    form_encode: FormEncodeFunc
    form_decode: FormDecodeFunc
    description: str = field(default="", compare=False)

    @classmethod
    def build(
        cls,
        name: str,
        encode: EncodeFunc,
        decode: DecodeFunc,
        *,
        form_encode: FormEncodeFunc | None = None,
        form_decode: FormDecodeFunc | None = None,
        description: str = "",
    ) -> Codec:
        return cls(
            name,
            encode,
            decode,
            form_encode or form_serializer(encode),
            form_decode or form_parser(decode),
            description,
        )


def _reference_encode(
    value: str | bytes, set_name: str, *, encoding: str, space_as_plus: bool
) -> str:
    return percent_encode(value, set_name, encoding=encoding, space_as_plus=space_as_plus)


def _reference_form_encode(pairs: Sequence[tuple[str, str]], *, encoding: str) -> str:
    return form_urlencode(pairs, encoding=encoding)


#: pctfuzz's own reference (``pctfuzz.reference`` and ``pctfuzz.form``).
REFERENCE = Codec(
    "reference",
    _reference_encode,
    percent_decode,
    _reference_form_encode,
    form_urldecode,
    "pctfuzz.reference and pctfuzz.form",
)


def form_serializer(encode: EncodeFunc) -> FormEncodeFunc:
    """WHATWG URL 5.2 serializer on top of ``encode``: each name and value percent-encoded
    after encoding with the form set and spaceAsPlus true, ``name=value`` joined by ``&``."""

    def serialize(pairs: Sequence[tuple[str, str]], *, encoding: str) -> str:
        return "&".join(
            encode(name, FORM.name, encoding=encoding, space_as_plus=True)
            + "="
            + encode(value, FORM.name, encoding=encoding, space_as_plus=True)
            for name, value in pairs
        )

    return serialize


_SURROGATE = re.compile("[\ud800-\udfff]")


def form_parser(decode: DecodeFunc) -> FormDecodeFunc:
    """WHATWG URL 5.1 parser on top of ``decode``: split on ``&`` (empty sequences
    skipped), first ``=`` splits name from value, ``+`` -> space, percent-decode, then
    UTF-8 decode without BOM."""

    def parse(text: str | bytes) -> list[tuple[str, str]]:
        data = _SURROGATE.sub("\ufffd", text).encode() if isinstance(text, str) else text
        pairs = []
        for sequence in data.split(b"&"):
            if sequence:
                name, _, value = sequence.partition(b"=")
                pairs.append(
                    (
                        decode(name.replace(b"+", b" ")).decode("utf-8", "replace"),
                        decode(value.replace(b"+", b" ")).decode("utf-8", "replace"),
                    )
                )
        return pairs

    return parse


# --- what the specification says should be encoded ---------------------------------------


def _is_scalar(text: str) -> bool:
    return _SURROGATE.search(text) is None


def _first_surrogate(text: str) -> int | None:
    found = _SURROGATE.search(text)
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


def _first_difference(a: Sequence[Any], b: Sequence[Any]) -> int:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


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


# --- output-alphabet ------------------------------------------------------------------

_HEX = "0123456789ABCDEF"
_NCR_OUTPUT = r"%26%23[0-9]+%3B"


def _char_class(codes: Iterable[int]) -> str:
    return "[" + "".join(f"\\x{c:02x}" for c in codes) + "]"


@functools.lru_cache(maxsize=128)
def _alphabet_pattern(pes: PercentEncodeSet, plus: bool, legacy: bool) -> re.Pattern[str]:
    """A regex whose greedy match over an output ends at the first character that breaks
    the alphabet (WHATWG URL 1.3 "percent-encode after encoding", RFC 3986 2.1).

    Tokens: an uppercase ``%HH`` triplet of a byte in the set (never ``%20`` with
    spaceAsPlus: space is then always ``+``); an ASCII char outside the set (with
    spaceAsPlus: never a raw space, and ``+`` is allowed: it stands for space); for
    legacy encodings, an NCR ``%26%23<digits>%3B`` whatever the set. When ``%`` is
    outside the set a raw ``%`` is a token too, so only the rest can be checked.
    """
    members = pes.members
    triplet = sorted(b for b in members if not (plus and b == 0x20))
    by_high: dict[int, list[int]] = {}
    for b in triplet:
        by_high.setdefault(b >> 4, []).append(b & 0xF)
    triplets = "|".join(
        _HEX[high] + "[" + "".join(_HEX[low] for low in lows) + "]"
        for high, lows in sorted(by_high.items())
    )
    raw = {b for b in range(0x80) if b not in members}
    if plus:
        raw.discard(0x20)
        raw.add(0x2B)
    alternatives = [f"%(?:{triplets})"] if triplets else []
    if legacy:
        alternatives.insert(0, _NCR_OUTPUT)
    if raw:
        alternatives.append(_char_class(sorted(raw)))
    return re.compile("(?:" + "|".join(alternatives) + ")*")


def _alphabet_detail(out: str, pos: int, pes: PercentEncodeSet, plus: bool) -> str:
    char = out[pos]
    code = ord(char)
    if code > 0x7F:
        return f"non-ASCII output U+{code:04X}"
    if char == "%" and 0x25 in pes:
        triplet = out[pos : pos + 3]
        if re.fullmatch("%[0-9A-Fa-f]{2}", triplet):
            byte = int(triplet[1:], 16)
            if triplet != triplet.upper():
                return f"lowercase hex in {triplet!r} (WHATWG 1.3, RFC 3986 2.1: uppercase)"
            if plus and byte == 0x20:
                return "space written %20 although spaceAsPlus is true (it must be '+')"
            return f"{triplet!r} encodes 0x{byte:02X}, which is not in the set"
        return f"'%' not followed by two hex digits ({triplet!r}) although '%' is in the set"
    if char == " " and plus:
        return "raw space although spaceAsPlus is true"
    return f"raw {char!r} (0x{code:02X}) is in the set and must be percent-encoded"


def _alphabet(case: EncodeCase, exp: _Expect, out: str) -> None:
    end = _alphabet_pattern(exp.pes, exp.plus, exp.legacy).match(out)
    pos = end.end() if end else 0
    if pos != len(out):
        raise Violation(
            OUTPUT_ALPHABET,
            case,
            expected=f"ASCII %HH triplets of bytes in {exp.pes.name!r} and bytes outside it",
            actual=out,
            position=pos,
            detail=_alphabet_detail(out, pos, exp.pes, exp.plus),
        )


def check_output_alphabet(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """Output is ASCII; when ``%`` is in the set every ``%`` starts an uppercase ``%HH``
    triplet of a byte in the set; every other output char is outside the set; legacy
    encodings add NCRs ``%26%23<digits>%3B`` whatever the set (WHATWG URL 1.3).

    ``+`` exactly: with spaceAsPlus, space is always ``+`` (never raw, never ``%20``)
    and a ``+`` may appear whatever the set (it stands for space, or is a raw ``+`` when
    ``+`` is outside the set: the round trip then fails, see ``round_trip_holds``);
    without spaceAsPlus, ``+`` appears only when it is outside the set. When ``%`` is
    outside the set a ``%`` in the output may be raw input, so triplets are not checked.
    """
    exp = _expect(case)
    if exp is not None:
        _alphabet(case, exp, _encode(codec, case))


# --- round-trip -----------------------------------------------------------------------

_ESCAPE = re.compile(rb"%[0-9A-Fa-f]{2}")
_HEX_BYTES = frozenset(b"0123456789ABCDEFabcdef")


def round_trip_holds(pes: PercentEncodeSet, plus: bool, data: bytes) -> bool:
    """The exact condition for ``decode(encode(x)) == data``, ``data`` the encoder's bytes.

    It holds iff (``%`` is in the set, or ``data`` has no ``%`` followed by two hex
    digits) and (spaceAsPlus is false, or ``+`` is in the set, or ``data`` has no ``+``).
    "Iff" needs the set to leave hex digits raw (every registered set does): then a raw
    ``%HH`` in the output always collapses to one byte, and a raw ``+`` always becomes
    a space, so the decoded bytes differ.
    """
    if 0x25 not in pes and _ESCAPE.search(data):
        return False
    return not (plus and 0x2B not in pes and b"+" in data)


def _round_trip(case: EncodeCase, codec: Codec, exp: _Expect, out: str) -> bytes:
    back = codec.decode(out.replace("+", " ") if exp.plus else out)
    if round_trip_holds(exp.pes, exp.plus, exp.data):
        if back != exp.data:
            raise Violation(
                ROUND_TRIP,
                case,
                expected=exp.data,
                actual=back,
                position=_first_difference(exp.data, back),
                detail=f"decode(encode(x)) != x although round trip must hold (output {out!r})",
            )
    elif back == exp.data and not (_HEX_BYTES & exp.pes.members):
        raise Violation(
            ROUND_TRIP,
            case,
            expected="a lossy round trip (a raw %HH or + in the output)",
            actual=back,
            detail=f"the input has a raw '%HH' or '+' the set leaves raw, so decoding "
            f"{out!r} must not give it back; the encoder encoded more than the set",
        )
    return back


def check_round_trip(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """``decode(encode(x, P)) == bytes(x)`` (``+`` mapped back to space first when
    spaceAsPlus) holds exactly when ``%`` is in P or x has no ``%`` followed by two hex
    digits, and, with spaceAsPlus, ``+`` is in P or x has no ``+``; otherwise it fails.
    ``bytes(x)``: UTF-8 for str, the legacy encoder's bytes with each unencodable code
    point as ``&#N;`` (WHATWG URL 1.3)."""
    exp = _expect(case)
    if exp is not None:
        _round_trip(case, codec, exp, _encode(codec, case))


# --- length-bound and determinism -----------------------------------------------------


def _length(case: EncodeCase, exp: _Expect, out: str) -> None:
    low, high = exp.raw_len + exp.ncr_len, 3 * exp.raw_len + exp.ncr_len
    if not low <= len(out) <= high:
        raise Violation(
            LENGTH_BOUND,
            case,
            expected=f"{low} <= len <= {high}",
            actual=len(out),
            detail=f"each of the {exp.raw_len} encoder bytes is 1 or 3 chars; NCRs are "
            f"{exp.ncr_len} chars in all; output {out!r}",
        )


def check_length_bound(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """``n <= |output| <= 3n + NCRs``: each of the encoder's n bytes becomes one char or a
    ``%HH`` triplet; each unencodable code point N becomes ``%26%23N%3B``."""
    exp = _expect(case)
    if exp is not None:
        _length(case, exp, _encode(codec, case))


def _determinism(case: EncodeCase, codec: Codec, out: str) -> None:
    again = _encode(codec, case)
    if again != out:
        raise Violation(
            DETERMINISM,
            case,
            expected=out,
            actual=again,
            position=_first_difference(out, again),
            detail="the same call gave a different output the second time",
        )


def check_determinism(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """The same call twice gives the same output (no hidden state)."""
    if _expect(case) is not None:
        _determinism(case, codec, _encode(codec, case))


# --- unreserved-idempotence -----------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _not_unreserved(pes: PercentEncodeSet) -> tuple[re.Pattern[str], re.Pattern[bytes]]:
    """Regexes for runs of characters that are not unreserved-and-outside-the-set."""
    pattern = "[^" + _char_class(sorted(UNRESERVED - pes.members))[1:] + "+"
    return re.compile(pattern), re.compile(pattern.encode("ascii"))


def _unreserved(case: EncodeCase, codec: Codec, exp: _Expect, out: str, back: bytes) -> None:
    # 1. RFC 3986 2.3: unreserved characters are never encoded. One registered set
    # disagrees by definition: the WHATWG form set encodes "~" (URL 1.3: component set +
    # ! ' ( ) ~), so the check covers the unreserved characters outside the set.
    value = case.value
    as_text, as_bytes = _not_unreserved(exp.pes)
    only = as_bytes.sub(b"", value) if isinstance(value, bytes) else as_text.sub("", value)
    if only:
        text = only.decode("ascii") if isinstance(only, bytes) else only
        got = _encode(codec, case, value=only)
        if got != text:
            raise Violation(
                UNRESERVED_IDEMPOTENCE,
                case,
                expected=text,
                actual=got,
                position=_first_difference(text, got),
                detail="encoding unreserved characters must be the identity (RFC 3986 2.3)",
            )
        # 2. RFC 3986 6.2.2.2: %HH of an unreserved character decodes to it, either case.
        distinct = sorted(set(text))
        escaped = "".join(f"%{ord(c):02X}%{ord(c):02x}" for c in distinct)
        want = "".join(c + c for c in distinct).encode("ascii")
        decoded = codec.decode(escaped)
        if decoded != want:
            raise Violation(
                UNRESERVED_IDEMPOTENCE,
                case,
                expected=want,
                actual=decoded,
                position=_first_difference(want, decoded),
                detail=f"decoding {escaped!r}: %HH of an unreserved character is that "
                "character (RFC 3986 6.2.2.2)",
            )
    # 3. encode(decode(encode(x))) == encode(x) where the round trip holds. Re-encoding
    # the decoded bytes equals the output only without NCRs (their & # ; are encoded
    # whatever the set).
    if exp.ncr_len == 0 and back == exp.data and round_trip_holds(exp.pes, exp.plus, exp.data):
        again = _encode(codec, case, value=back)
        if again != out:
            raise Violation(
                UNRESERVED_IDEMPOTENCE,
                case,
                expected=out,
                actual=again,
                position=_first_difference(out, again),
                detail="encode(decode(encode(x))) != encode(x) although the round trip holds",
            )


def check_unreserved_idempotence(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """The unreserved characters of x (RFC 3986 2.3) encode to themselves under every set
    (except "~" under the WHATWG form set, which lists it: URL 1.3);
    ``%HH``/``%hh`` of each decodes to it (RFC 3986 6.2.2.2); and
    ``encode(decode(encode(x))) == encode(x)`` wherever the round trip holds."""
    exp = _expect(case)
    if exp is not None:
        out = _encode(codec, case)
        back = codec.decode(out.replace("+", " ") if exp.plus else out)
        _unreserved(case, codec, exp, out, back)


# --- concatenation --------------------------------------------------------------------


def _concatenation(case: EncodeCase, codec: Codec, exp: _Expect, out: str) -> None:
    if exp.legacy:
        return  # a legacy encoder has state (ISO-2022-JP) and NCRs: not a homomorphism
    value = case.value
    size = len(value)
    for cut in sorted({size // 2, size - 1}):
        if 0 < cut < size:
            joined = _encode(codec, case, value=value[:cut]) + _encode(
                codec, case, value=value[cut:]
            )
            if joined != out:
                raise Violation(
                    CONCATENATION,
                    case,
                    expected=out,
                    actual=joined,
                    position=_first_difference(out, joined),
                    detail=f"encode(x[:{cut}]) + encode(x[{cut}:]) != encode(x)",
                )


def check_concatenation(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """``encode(a + b) == encode(a) + encode(b)`` for UTF-8 (scalar values) and bytes,
    checked at a few cut points of x: the encoder works byte by byte (WHATWG URL 1.3)."""
    exp = _expect(case)
    if exp is not None:
        _concatenation(case, codec, exp, _encode(codec, case))


# --- monotonicity ---------------------------------------------------------------------


@functools.cache
def set_neighbours(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(registered sets just below ``name``, just above it) in the subset order; a set
    with the same members counts on both sides. Monotonicity along these edges gives it
    for every registered P ⊆ Q by transitivity."""
    me = get_set(name).members
    others = {n: s.members for n, s in SETS.items() if n != name}
    equal = tuple(n for n, m in others.items() if m == me)
    below = {n: m for n, m in others.items() if m < me}
    above = {n: m for n, m in others.items() if m > me}
    # n is just below ``name`` when no other set lies strictly between them.
    just_below = tuple(n for n, m in below.items() if not any(m < k for k in below.values()))
    just_above = tuple(n for n, m in above.items() if not any(k < m for k in above.values()))
    return equal + just_below, equal + just_above


_CHANGED_TOKEN = re.compile(r"%26%23[0-9]+%3B|%[0-9A-Fa-f]{2}|\+")


def _changed_units(
    codec: Codec, case: EncodeCase, units: list[int], set_name: str
) -> frozenset[int]:
    """Which of ``units`` (bytes, or ASCII code points of a str) the codec changes under
    ``set_name``: read off one encode of a probe of all of them, ``%`` last so a raw ``%``
    cannot be confused with ``%25``; per-unit calls if the output is not per-unit."""
    as_bytes = isinstance(case.value, bytes)
    probe: str | bytes = bytes(units) if as_bytes else "".join(map(chr, units))
    out = _encode(codec, case, value=probe, set_name=set_name)
    changed: set[int] = set()
    pos = 0
    for unit in units:
        char = chr(unit)
        if unit == 0x25:  # always the last unit
            if out[pos:] != "%":
                changed.add(unit)
            pos = len(out)
        elif out.startswith(char, pos):
            pos += 1
        else:
            token = _CHANGED_TOKEN.match(out, pos)
            if token is None:
                break
            changed.add(unit)
            pos = token.end()
    else:
        if pos == len(out):
            return frozenset(changed)
    return frozenset(
        unit
        for unit in units
        if _encode(
            codec, case, value=bytes([unit]) if as_bytes else chr(unit), set_name=set_name
        )
        != chr(unit)
    )


def _monotonicity(
    case: EncodeCase, codec: Codec, exp: _Expect, out: str, *, every_edge: bool = True
) -> None:
    value = case.value
    distinct = set(value) if isinstance(value, bytes) else {ord(c) for c in value if c < "\x80"}
    units = sorted(distinct - {0x25}) + ([0x25] if 0x25 in distinct else [])
    name = exp.pes.name
    below, above = set_neighbours(name)
    changed: dict[str, frozenset[int]] = {}
    outputs = {name: out}
    edges = [(b, name) for b in below] + [(name, a) for a in above]
    if edges and not every_edge:
        # One edge per case, picked by the input's length: deterministic (a finding
        # replays), cheap enough for atheris, and every edge gets its turn.
        edges = [edges[len(value) % len(edges)]]
    for lower, upper in edges:
        for side in (lower, upper):
            if side not in outputs:
                outputs[side] = _encode(codec, case, set_name=side)
            if units and side not in changed:
                changed[side] = _changed_units(codec, case, units, side)
        lost = changed[lower] - changed[upper] if units else frozenset()
        if lost:
            byte = min(lost)
            where = value.index(byte) if isinstance(value, bytes) else value.index(chr(byte))
            raise Violation(
                MONOTONICITY,
                case,
                expected=f"0x{byte:02X} encoded by {upper!r}",
                actual="left raw",
                position=where,
                detail=f"{lower!r} ⊆ {upper!r} but {lower!r} encodes 0x{byte:02X} "
                f"and {upper!r} does not",
            )
        # The same input as a whole: the bigger set's output cannot be shorter.
        small, big = outputs[lower], outputs[upper]
        if len(big) < len(small):
            raise Violation(
                MONOTONICITY,
                case,
                expected=f"len >= {len(small)} ({lower!r}: {small!r})",
                actual=f"{len(big)} ({upper!r}: {big!r})",
                detail=f"{lower!r} ⊆ {upper!r} but {upper!r}'s output is shorter",
            )


def check_monotonicity(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """For registered sets P ⊆ Q (the case's set and its neighbours in the subset order),
    every byte of x that P encodes, Q encodes, and Q's output is no shorter. Bytes >= 0x80
    are in every set (checked by output-alphabet); the check looks at x's ASCII."""
    exp = _expect(case)
    if exp is not None:
        _monotonicity(case, codec, exp, _encode(codec, case))


# --- the encode aggregate ---------------------------------------------------------------


def check_encode(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """Every encode invariant on one case (the check the encode target runs).

    Order: cheapest and most specific first; determinism last, so other calls have run
    in between its two calls. Monotonicity looks at one neighbouring set per case
    (``check_monotonicity`` looks at all of them) to keep a case near 30 µs.
    """
    exp = _expect(case)
    if exp is None:
        check_input_domain(case, codec)
        return
    out = _encode(codec, case)
    _alphabet(case, exp, out)
    _length(case, exp, out)
    back = _round_trip(case, codec, exp, out)
    _unreserved(case, codec, exp, out, back)
    _concatenation(case, codec, exp, out)
    _monotonicity(case, codec, exp, out, every_edge=False)
    _determinism(case, codec, out)


def _encode_rotating(case: EncodeCase, codec: Codec, turn: int) -> None:
    """:func:`check_encode` with one costly invariant per ``turn`` (5 turns: every one).

    Every turn encodes once and checks the output alphabet and (but for a legacy
    encoding: turn 0) the length bound, without a codec call; then round trip (one
    decode), or round trip and unreserved idempotence, or concatenation, or one
    monotonicity edge, or determinism.
    """
    exp = _expect(case)
    if exp is None:
        check_input_domain(case, codec)
        return
    out = _encode(codec, case)
    _alphabet(case, exp, out)
    pick = turn % 5
    if pick == 0 or not exp.legacy:  # a legacy encoder's bytes are costly: turn 0 only
        _length(case, exp, out)
    if pick == 0:
        _round_trip(case, codec, exp, out)
    elif pick == 1:
        _unreserved(case, codec, exp, out, _round_trip(case, codec, exp, out))
    elif pick == 2:
        _concatenation(case, codec, exp, out)
    elif pick == 3:
        _monotonicity(case, codec, exp, out, every_edge=False)
    else:
        _determinism(case, codec, out)


# --- decode-robustness ------------------------------------------------------------------


def model_percent_decode(value: str | bytes) -> bytes:
    """WHATWG URL 1.3 "percent-decode", written independently of the reference: walk
    the ``%`` signs; ``%`` + two ASCII hex digits (either case) is a byte, any other
    ``%`` stays. A str is UTF-8 encoded first, lone surrogates as U+FFFD."""
    data = _SURROGATE.sub("\ufffd", value).encode("utf-8") if isinstance(value, str) else value
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


# --- form -------------------------------------------------------------------------------


def expected_form_error(case: FormCase) -> type[PctfuzzError] | None:
    """The error the serializer documents for ``case`` (None: in the domain). The label
    is resolved when the first name is encoded, so no pairs means no error."""
    if not case.pairs:
        return None
    try:
        _encoding.lookup(case.encoding)
    except UnknownEncodingError:
        return UnknownEncodingError
    if all(_is_scalar(name) and _is_scalar(value) for name, value in case.pairs):
        return None
    return NotScalarValueError


def _form_encode(case: FormCase, codec: Codec) -> str | None:
    """The codec's serialization, or None after checking an out-of-domain case."""
    wanted = expected_form_error(case)
    try:
        out = codec.form_encode(case.pairs, encoding=case.encoding)
    except (PctfuzzError, ValueError, LookupError) as exc:
        if wanted is not None and isinstance(exc, wanted):
            return None
        raise Violation(
            INPUT_DOMAIN,
            case,
            expected=wanted.__name__ if wanted else "a serialization",
            actual=f"{type(exc).__name__}: {exc}",
            detail="form serializer raised the wrong error"
            if wanted
            else "form serializer rejected in-domain pairs",
        ) from exc
    if wanted is not None:
        raise Violation(
            INPUT_DOMAIN,
            case,
            expected=wanted.__name__,
            actual=out,
            detail="form serializer accepted pairs outside the domain (lone surrogates "
            "or an unknown label)",
        )
    return out


def _form_serializer(case: FormCase, codec: Codec, out: str) -> None:
    want = "&".join(
        codec.encode(name, FORM.name, encoding=case.encoding, space_as_plus=True)
        + "="
        + codec.encode(value, FORM.name, encoding=case.encoding, space_as_plus=True)
        for name, value in case.pairs
    )
    if out != want:
        raise Violation(
            FORM_SERIALIZER,
            case,
            expected=want,
            actual=out,
            position=_first_difference(want, out),
            detail="serialization is not name=value pairs joined by '&', each percent-encoded "
            "with the form set and spaceAsPlus (WHATWG URL 5.2)",
        )


def check_form_serializer(case: FormCase, codec: Codec = REFERENCE) -> None:
    """The serializer's output is ``&``-joined ``name=value``, each percent-encoded after
    encoding with the form set and spaceAsPlus true, by the same codec (WHATWG URL 5.2)."""
    out = _form_encode(case, codec)
    if out is not None:
        _form_serializer(case, codec, out)


def _form_round_trip(case: FormCase, codec: Codec, out: str) -> None:
    try:
        utf8 = _encoding.lookup(case.encoding).is_utf8
    except UnknownEncodingError:  # only reachable with no pairs: nothing to parse back
        utf8 = False
    if not utf8:
        return  # the parser decodes UTF-8 only: other encodings do not come back
    back = codec.form_decode(out)
    if back != list(case.pairs):
        raise Violation(
            FORM_ROUND_TRIP,
            case,
            expected=list(case.pairs),
            actual=back,
            position=_first_difference(list(case.pairs), back),
            detail=f"parse(serialize(pairs)) != pairs (serialized {out!r})",
        )


def check_form_round_trip(case: FormCase, codec: Codec = REFERENCE) -> None:
    """``form_urldecode(form_urlencode(pairs)) == pairs`` for scalar-value strings and a
    UTF-8 output encoding (WHATWG URL 5.1, 5.2)."""
    out = _form_encode(case, codec)
    if out is not None:
        _form_round_trip(case, codec, out)


def check_form(case: FormCase, codec: Codec = REFERENCE) -> None:
    """Every form-serializer invariant on one case (the check the form target runs)."""
    out = _form_encode(case, codec)
    if out is not None:
        _form_serializer(case, codec, out)
        _form_round_trip(case, codec, out)


def _form_rotating(case: FormCase, codec: Codec, turn: int) -> None:
    """:func:`check_form` with the serializer check (two encodes per pair) on even
    turns and the round trip (one parse) on odd ones; the domain on every turn."""
    out = _form_encode(case, codec)
    if out is not None:
        if turn % 2:
            _form_round_trip(case, codec, out)
        else:
            _form_serializer(case, codec, out)


def _parse(case: FormParseCase, codec: Codec, text: str | bytes) -> list[tuple[str, str]]:
    try:
        pairs = codec.form_decode(text)
    except Exception as exc:
        raise Violation(
            FORM_PARSE,
            case,
            expected="a list of pairs",
            actual=f"{type(exc).__name__}: {exc}",
            detail=f"the parser must accept any input; it raised on {text!r}",
        ) from exc
    if not isinstance(pairs, list):
        raise Violation(FORM_PARSE, case, expected="a list", actual=pairs, detail="not a list")
    for index, pair in enumerate(pairs):
        if not (
            isinstance(pair, tuple)
            and len(pair) == 2
            and all(isinstance(item, str) and _is_scalar(item) for item in pair)
        ):
            raise Violation(
                FORM_PARSE,
                case,
                expected="(str, str) of scalar value strings",
                actual=pair,
                position=index,
                detail="a parsed pair is not two scalar value strings (UTF-8 decode "
                "without BOM replaces errors with U+FFFD)",
            )
    return pairs


def check_form_parse(case: FormParseCase, codec: Codec = REFERENCE) -> None:
    """The parser never raises and returns a list of (str, str) scalar-value pairs, and
    re-parsing its re-serialization gives the same pairs (WHATWG URL 5.1, 5.2)."""
    _reparse(case, codec, _parse(case, codec, case.text))


def _reparse(case: FormParseCase, codec: Codec, pairs: list[tuple[str, str]]) -> None:
    again = _parse(case, codec, codec.form_encode(pairs, encoding="utf-8"))
    if again != pairs:
        raise Violation(
            FORM_PARSE,
            case,
            expected=pairs,
            actual=again,
            position=_first_difference(pairs, again),
            detail="parse(serialize(parse(t))) != parse(t)",
        )


def _form_parse_rotating(case: FormParseCase, codec: Codec, turn: int) -> None:
    """:func:`check_form_parse` with the re-serialization and second parse on odd
    turns only; the first parse and its pairs' types on every turn."""
    pairs = _parse(case, codec, case.text)
    if turn % 2:
        _reparse(case, codec, pairs)


def _decode_rotating(case: DecodeCase, codec: Codec, turn: int) -> None:
    """:func:`check_decode` (one invariant, one decode: nothing to rotate)."""
    check_decode_robustness(case, codec)


class Rotation(NamedTuple):
    """A harness-only variant of an aggregate check: ``check(case, codec, turn)`` runs
    part of the aggregate, and ``turns`` consecutive turns run all of it."""

    turns: int
    check: Callable[[Any, Codec, int], None]


#: aggregate check name -> its rotation. For the atheris driver only: replay,
#: minimization and the Hypothesis tests run the aggregate on every input.
ROTATING: Mapping[str, Rotation] = MappingProxyType(
    {
        "check_encode": Rotation(5, _encode_rotating),
        "check_decode": Rotation(1, _decode_rotating),
        "check_form": Rotation(2, _form_rotating),
        "check_form_parse": Rotation(2, _form_parse_rotating),
    }
)


# --- the registry ---------------------------------------------------------------------


class Invariant(NamedTuple):
    """One invariant: a one-line description (for the README and docs) and its check."""

    description: str
    check: Callable[..., None]


#: name -> (description, check(case, codec=REFERENCE)). The names appear in findings.
INVARIANTS: Mapping[str, Invariant] = MappingProxyType(
    {
        INPUT_DOMAIN: Invariant(
            "lone surrogates, unknown sets and labels raise the documented error; "
            "nothing else raises",
            check_input_domain,
        ),
        OUTPUT_ALPHABET: Invariant(
            "output is ASCII; %HH is uppercase and of a byte in the set; other chars are "
            "outside the set; with spaceAsPlus space is always +",
            check_output_alphabet,
        ),
        ROUND_TRIP: Invariant(
            "decode(encode(x)) == bytes(x) exactly when % is in the set or x has no %HH "
            "(and, with spaceAsPlus, + is in the set or x has no +)",
            check_round_trip,
        ),
        LENGTH_BOUND: Invariant(
            "n <= len(output) <= 3n for the encoder's n bytes, plus the NCRs' length",
            check_length_bound,
        ),
        DETERMINISM: Invariant("the same call twice gives the same output", check_determinism),
        UNRESERVED_IDEMPOTENCE: Invariant(
            "unreserved characters (but ~ in the form set) are never encoded and %HH of one "
            "decodes to it; "
            "encode(decode(encode(x))) == encode(x) where the round trip holds",
            check_unreserved_idempotence,
        ),
        MONOTONICITY: Invariant(
            "for P ⊆ Q, every byte P encodes Q encodes (and Q's output is no shorter)",
            check_monotonicity,
        ),
        CONCATENATION: Invariant(
            "encode(a + b) == encode(a) + encode(b) for UTF-8 and bytes",
            check_concatenation,
        ),
        DECODE_ROBUSTNESS: Invariant(
            "any str/bytes decodes without error, exactly as the spec's loop: "
            "a % without two hex digits is kept",
            check_decode_robustness,
        ),
        FORM_SERIALIZER: Invariant(
            "form serialization is name=value&... with the form set and spaceAsPlus",
            check_form_serializer,
        ),
        FORM_ROUND_TRIP: Invariant(
            "parse(serialize(pairs)) == pairs for scalar-value strings in UTF-8",
            check_form_round_trip,
        ),
        FORM_PARSE: Invariant(
            "the form parser never raises, returns scalar-value str pairs, and "
            "parse(serialize(parse(t))) == parse(t)",
            check_form_parse,
        ),
    }
)
