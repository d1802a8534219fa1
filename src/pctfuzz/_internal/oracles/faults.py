"""Deliberately wrong codecs: each one breaks the reference in one realistic way.

They prove the invariants have teeth (``tests/unit/test_faults.py``: every invariant
catches at least one fault, every fault is caught by at least one invariant), and give
benchmarks and the fuzzer a known bug to find (``FAULTS[name]`` is a ``Codec``).

Encoder faults are built from a per-byte table, the way the reference works, with one
entry changed; the form serializer and parser of an encoder or decoder fault are
derived from the faulty function (``Codec.build``), as a real library would share them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType

from pctfuzz._internal import encoding as _encoding
from pctfuzz._internal.accept.meaning import C0_SPACE
from pctfuzz._internal.form import form_sequences, form_urldecode, form_urldecode_bytes
from pctfuzz._internal.oracles.codec import (
    REFERENCE,
    Codec,
    DecodeFunc,
    EncodeFunc,
    FormDecodeFunc,
    FormEncodeFunc,
    form_serializer,
)
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.sets import FORM, PercentEncodeSet, get_set
from pctfuzz._internal.spec import ASCII_HEX_DIGITS, HEX_PAIR

__all__ = ["FAULTS", "Tweak", "table_encoder"]

#: Changes a fresh per-byte output table in place: (table, set, spaceAsPlus).
Tweak = Callable[[list[str], PercentEncodeSet, bool], None]


def _runs(value: str | bytes, encoding: str) -> Iterator[bytes | int]:
    """The bytes (and unencodable code points) the reference percent-encodes."""
    if isinstance(value, bytes):
        yield value
    else:
        yield from _encoding.encode_runs(_encoding.lookup(encoding), value)


def table_encoder(tweak: Tweak) -> EncodeFunc:
    """A per-byte encoder like the reference's, with ``tweak`` applied to its table."""

    @functools.lru_cache(maxsize=64)
    def table(pes: PercentEncodeSet, plus: bool) -> list[str]:
        out = [f"%{b:02X}" if b in pes else chr(b) for b in range(0x100)]
        if plus:
            out[0x20] = "+"
        tweak(out, pes, plus)
        return out

    def encode(value: str | bytes, set_name: str, *, encoding: str, space_as_plus: bool) -> str:
        chars = table(get_set(set_name), space_as_plus)
        return "".join(
            f"%26%23{piece}%3B"
            if isinstance(piece, int)
            else piece.decode("latin-1").translate(chars)
            for piece in _runs(value, encoding)
        )

    return encode


def _reference_encode(
    value: str | bytes, set_name: str, *, encoding: str, space_as_plus: bool
) -> str:
    return percent_encode(value, set_name, encoding=encoding, space_as_plus=space_as_plus)


# --- encoder faults -----------------------------------------------------------------------


def _lowercase_hex(table: list[str], pes: PercentEncodeSet, plus: bool) -> None:
    # RFC 3986 2.1 only says SHOULD; WHATWG 1.3 requires uppercase.
    for byte in pes:
        table[byte] = table[byte].lower()


def _tilde_encoded(table: list[str], pes: PercentEncodeSet, plus: bool) -> None:
    # urllib.parse.quote before Python 3.7 (RFC 2396 listed "~" as unsafe-ish).
    table[0x7E] = "%7E"


def _hole(set_name: str, byte: int) -> Tweak:
    def tweak(table: list[str], pes: PercentEncodeSet, plus: bool) -> None:
        if pes.name == set_name:
            table[byte] = chr(byte)

    return tweak


def _percent_raw(table: list[str], pes: PercentEncodeSet, plus: bool) -> None:
    # "%25 dropped": a hand-written set that forgot "%".
    table[0x25] = "%"


def _plus_ignored(table: list[str], pes: PercentEncodeSet, plus: bool) -> None:
    if plus:
        table[0x20] = "%20" if 0x20 in pes else " "


def _plus_raw(table: list[str], pes: PercentEncodeSet, plus: bool) -> None:
    # With spaceAsPlus, a raw "+" reads back as a space.
    if plus:
        table[0x2B] = "+"


_ESCAPED = re.compile(f"(%{HEX_PAIR})")
_ESCAPED_BYTES = re.compile(f"(%{HEX_PAIR})".encode("ascii"))


def _requote(value: str | bytes, set_name: str, *, encoding: str, space_as_plus: bool) -> str:
    """Leaves existing ``%HH`` escapes alone ("don't double-encode"), as requoting
    helpers in HTTP clients do; not percent-encoding."""
    pieces = _ESCAPED_BYTES.split(value) if isinstance(value, bytes) else _ESCAPED.split(value)
    out = []
    for index, piece in enumerate(pieces):
        if index % 2:  # the regex group: an escape, kept as is
            out.append(piece.decode("ascii") if isinstance(piece, bytes) else piece)
        elif piece:
            out.append(
                percent_encode(piece, set_name, encoding=encoding, space_as_plus=space_as_plus)
            )
    return "".join(out)




def _strip(value: str | bytes, set_name: str, *, encoding: str, space_as_plus: bool) -> str:
    """Strips leading and trailing C0 control or space first: the URL parser's first
    step, misapplied to a component."""
    stripped: str | bytes
    if isinstance(value, bytes):
        stripped = value.strip(C0_SPACE.encode("ascii"))
    else:
        stripped = value.strip(C0_SPACE)
    return percent_encode(stripped, set_name, encoding=encoding, space_as_plus=space_as_plus)


def _double_encoded(
    value: str | bytes, set_name: str, *, encoding: str, space_as_plus: bool
) -> str:
    """Encodes an already encoded string again."""
    once = percent_encode(value, set_name, encoding=encoding, space_as_plus=space_as_plus)
    return percent_encode(once, set_name, encoding=encoding, space_as_plus=space_as_plus)


class _Alternating:
    """Hidden state: every other call writes lowercase hex (a shared flag toggled by
    each call, the kind of bug a module-level buffer or cache causes)."""

    def __init__(self) -> None:
        self.lower = False
        self.encode_lower = table_encoder(_lowercase_hex)

    def __call__(
        self, value: str | bytes, set_name: str, *, encoding: str, space_as_plus: bool
    ) -> str:
        self.lower = not self.lower
        encode = self.encode_lower if self.lower else _reference_encode
        return encode(value, set_name, encoding=encoding, space_as_plus=space_as_plus)


def _surrogatepass(
    value: str | bytes, set_name: str, *, encoding: str, space_as_plus: bool
) -> str:
    """Encodes lone surrogates as CESU-style bytes (``"surrogatepass"``) instead of
    rejecting them: ``\\ud800`` -> ``%ED%A0%80``."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = value.encode("utf-8", "surrogatepass")
    return percent_encode(value, set_name, encoding=encoding, space_as_plus=space_as_plus)


# --- decoder faults -------------------------------------------------------------------

_HEX = ASCII_HEX_DIGITS


def _as_bytes(value: str | bytes) -> bytes:
    if isinstance(value, bytes):
        return value
    return value.encode("utf-8", "replace")


def _decode_short_escape(value: str | bytes) -> bytes:
    """``%`` + one hex digit + a non-hex char (or the end) decodes as that one digit:
    ``%2`` -> ``\\x02``."""
    data = _as_bytes(value)
    out = bytearray()
    pos = 0
    while (cut := data.find(b"%", pos)) >= 0:
        out += data[pos:cut]
        first, second = data[cut + 1 : cut + 2], data[cut + 2 : cut + 3]
        if first and first[0] in _HEX:
            if second and second[0] in _HEX:
                out.append(int(first + second, 16))
                pos = cut + 3
            else:  # the bug: one digit is taken as a whole escape
                out.append(int(first, 16))
                pos = cut + 2
        else:
            out.append(0x25)
            pos = cut + 1
    out += data[pos:]
    return bytes(out)


_UPPER_ESCAPE = re.compile(b"%([0-9A-F]{2})")


def _decode_uppercase_only(value: str | bytes) -> bytes:
    """Decodes ``%HH`` with uppercase hex only (``%7e`` stays)."""
    return _UPPER_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), _as_bytes(value))


def _decode_raises(value: str | bytes) -> bytes:
    """Reads two chars after every ``%`` as hex with ``int(…, 16)``: ``%zz`` raises."""
    data = _as_bytes(value)
    pieces = data.split(b"%")
    out = bytearray(pieces[0])
    for piece in pieces[1:]:
        out.append(int(piece[:2], 16))  # ValueError on a malformed escape
        out += piece[2:]
    return bytes(out)


# --- form faults -----------------------------------------------------------------------


def _raw_pairs(text: str | bytes, *, plus: bool = True) -> list[tuple[bytes, bytes]]:
    """WHATWG URL 5.1 up to (not including) the UTF-8 decode; ``plus=False`` skips the
    ``+`` -> space step."""
    data = text.encode("utf-8", "replace") if isinstance(text, str) else text
    if plus:
        return form_urldecode_bytes(data)
    return [(percent_decode(name), percent_decode(value)) for name, value in form_sequences(data)]


def _form_plus_kept(text: str | bytes) -> list[tuple[str, str]]:
    """Parses without turning ``+`` into space (percent-decoding only)."""
    return [
        (name.decode("utf-8", "replace"), value.decode("utf-8", "replace"))
        for name, value in _raw_pairs(text, plus=False)
    ]


def _form_space_as_percent20(pairs: Sequence[tuple[str, str]], *, encoding: str) -> str:
    """Serializes with spaceAsPlus false: space becomes ``%20`` (still parses back)."""
    return "&".join(
        percent_encode(name, FORM, encoding=encoding, space_as_plus=False)
        + "="
        + percent_encode(value, FORM, encoding=encoding, space_as_plus=False)
        for name, value in pairs
    )


def _form_surrogateescape(text: str | bytes) -> list[tuple[str, str]]:
    """UTF-8 decodes with ``surrogateescape``: invalid bytes become lone surrogates."""
    return [
        (name.decode("utf-8", "surrogateescape"), value.decode("utf-8", "surrogateescape"))
        for name, value in _raw_pairs(text)
    ]


# --- the registry ---------------------------------------------------------------------


def _encoder_fault(name: str, encode: EncodeFunc, description: str) -> Codec:
    return Codec.build(name, encode, percent_decode, description=description)


def _decoder_fault(
    name: str, decode: DecodeFunc, description: str
) -> Codec:
    return Codec.build(name, _reference_encode, decode, description=description)


def _form_fault(
    name: str,
    description: str,
    *,
    form_encode: FormEncodeFunc | None = None,
    form_decode: FormDecodeFunc | None = None,
) -> Codec:
    return Codec(
        name,
        REFERENCE.encode,
        REFERENCE.decode,
        form_encode or form_serializer(REFERENCE.encode),
        form_decode or form_urldecode,
        description,
    )


def _faults() -> Iterator[Codec]:
    yield _encoder_fault(
        "lowercase-hex", table_encoder(_lowercase_hex), "%HH written with lowercase hex"
    )
    yield _encoder_fault(
        "tilde-encoded", table_encoder(_tilde_encoded), "~ percent-encoded by every set"
    )
    yield _encoder_fault(
        "fragment-lt-raw",
        table_encoder(_hole("fragment", 0x3C)),
        "< left raw by the fragment set",
    )
    yield _encoder_fault(
        "path-dquote-raw",
        table_encoder(_hole("path", 0x22)),
        '" left raw by the path set (the query set below it encodes it)',
    )
    yield _encoder_fault(
        "percent-raw", table_encoder(_percent_raw), "% never encoded (%25 dropped)"
    )
    yield _encoder_fault(
        "plus-ignored",
        table_encoder(_plus_ignored),
        "spaceAsPlus ignored: space stays %20 (or raw)",
    )
    yield _encoder_fault(
        "plus-raw", table_encoder(_plus_raw), "+ left raw when spaceAsPlus is true"
    )
    yield _encoder_fault("requote", _requote, "existing %HH escapes left as they are")
    yield _encoder_fault(
        "strip", _strip, "leading/trailing C0 controls and spaces stripped before encoding"
    )
    yield _encoder_fault("double-encoded", _double_encoded, "the output encoded a second time")
    yield _encoder_fault(
        "alternating-hex-case", _Alternating(), "hidden state: every other call is lowercase"
    )
    yield _encoder_fault(
        "surrogatepass", _surrogatepass, "lone surrogates encoded as CESU bytes, not rejected"
    )
    yield _decoder_fault(
        "decode-short-escape", _decode_short_escape, "%2 followed by a non-hex char -> 0x02"
    )
    yield _decoder_fault(
        "decode-uppercase-only", _decode_uppercase_only, "%hh with lowercase hex not decoded"
    )
    yield _decoder_fault(
        "decode-raises", _decode_raises, "int(..., 16) on every escape: %zz raises ValueError"
    )
    yield _form_fault(
        "form-plus-kept", "form parser leaves + as +", form_decode=_form_plus_kept
    )
    yield _form_fault(
        "form-space-as-%20",
        "form serializer writes space as %20 (spaceAsPlus false)",
        form_encode=_form_space_as_percent20,
    )
    yield _form_fault(
        "form-surrogateescape",
        "form parser decodes invalid UTF-8 to lone surrogates",
        form_decode=_form_surrogateescape,
    )


#: name -> a deliberately wrong codec (its ``description`` says how it is wrong).
FAULTS: Mapping[str, Codec] = MappingProxyType({codec.name: codec for codec in _faults()})
