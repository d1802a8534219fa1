"""The reference percent-encoder and decoder.

- ``percent_encode``: WHATWG URL Standard 1.3 "percent-encode after encoding", for str
  (a scalar value string) or bytes (encoded byte-wise, no text encoding involved).
- ``percent_decode``: WHATWG URL Standard 1.3 "percent-decode" (bytes out).
- ``percent_decode_text``: percent-decode, then "UTF-8 decode without BOM" (Encoding 6).

Speed comes from doing per-byte work in C: each (set, space_as_plus) pair has a
256-entry table of output strings, applied with ``str.translate`` to the latin-1
view of the bytes (latin-1 maps byte ``b`` to ``chr(b)``, the spec's isomorphic decode).
"""

from __future__ import annotations

import functools
from typing import Literal

from . import encoding as _encoding
from .errors import InputTypeError, NotScalarValueError, PctfuzzError, type_name
from .sets import PercentEncodeSet, get_set

__all__ = [
    "percent_decode",
    "percent_decode_text",
    "percent_encode",
    "percent_encode_byte",
    "to_scalar_value_string",
]

Surrogates = Literal["strict", "replace"]

# "%HH" with uppercase hex: WHATWG 1.3 "percent-encode a byte"; RFC 3986 2.1 SHOULD.
_TRIPLETS: tuple[str, ...] = tuple(f"%{b:02X}" for b in range(0x100))


def percent_encode_byte(byte: int) -> str:
    """WHATWG 1.3 "percent-encode": ``%`` followed by two uppercase hex digits."""
    return _TRIPLETS[byte]


@functools.lru_cache(maxsize=64)
def _table(encode_set: PercentEncodeSet, space_as_plus: bool) -> list[str]:
    """Output for each byte value: itself, its ``%HH`` triplet, or ``+`` for space."""
    table = [_TRIPLETS[b] if b in encode_set else chr(b) for b in range(0x100)]
    if space_as_plus:
        # WHATWG 1.3 step "If spaceAsPlus is true and byte is 0x20 (SP), append U+002B (+)".
        table[0x20] = "+"
    return table


@functools.lru_cache(maxsize=64)
def _safe_chars(encode_set: PercentEncodeSet, space_as_plus: bool) -> str:
    """Chars that map to themselves; used for the "nothing to encode" fast path."""
    safe = encode_set.safe_bytes
    return safe.replace(" ", "") if space_as_plus else safe


def _translate_latin1(text: str, table: list[str], safe: str) -> str:
    # ``not text.rstrip(safe)`` is a C-speed "every char is safe" test (urllib uses it too).
    if not text.rstrip(safe):
        return text
    return text.translate(table)


def to_scalar_value_string(value: str, surrogates: Surrogates = "strict") -> str:
    """Infra "convert to a scalar value string": lone surrogates -> U+FFFD (``replace``),
    or ``NotScalarValueError`` naming the first one's position (``strict``)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        if surrogates == "replace":
            return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
        raise NotScalarValueError(
            f"value has a lone surrogate U+{ord(value[exc.start]):04X} at index {exc.start}; "
            "it is not a scalar value string (pass surrogates='replace' for U+FFFD)"
        ) from None
    return value


def _check_surrogates(surrogates: str) -> None:
    if surrogates not in ("strict", "replace"):
        raise PctfuzzError(f"surrogates must be 'strict' or 'replace', not {surrogates!r}")


def percent_encode(
    value: str | bytes,
    encode_set: str | PercentEncodeSet = "component",
    *,
    encoding: str = "utf-8",
    space_as_plus: bool | None = None,
    surrogates: Surrogates = "strict",
) -> str:
    """WHATWG URL 1.3 "percent-encode after encoding".

    ``value``: a str is a scalar value string, encoded with ``encoding`` (a WHATWG
    label); a lone surrogate raises ``NotScalarValueError`` unless
    ``surrogates="replace"``. ``bytes``/``bytearray``/``memoryview`` are already encoded
    and are percent-encoded byte by byte (``encoding`` is then ignored).
    ``space_as_plus=None`` takes the set's recipe default (True only for
    ``query-value``). Code points the encoding cannot represent become
    ``%26%23`` + decimal + ``%3B`` (the standard's "encode or fail" branch).

    The standard only combines a legacy encoding with the special-query or form
    set; other combinations are allowed here (useful for fuzzing) and follow the
    same algorithm.
    """
    pes = get_set(encode_set)
    plus = pes.space_as_plus if space_as_plus is None else bool(space_as_plus)
    table = _table(pes, plus)
    safe = _safe_chars(pes, plus)

    if isinstance(value, str):
        _check_surrogates(surrogates)
        enc = _encoding.lookup(encoding)
        if enc.is_utf8:
            if value.isascii():
                # ASCII is its own UTF-8 encoding and latin-1 view: skip both codecs.
                return _translate_latin1(value, table, safe)
            try:
                data = value.encode("utf-8")
            except UnicodeEncodeError:
                data = to_scalar_value_string(value, surrogates).encode("utf-8")
            return _translate_latin1(data.decode("latin-1"), table, safe)
        value = to_scalar_value_string(value, surrogates)
        out: list[str] = []
        for chunk in _encoding.encode_runs(enc, value):
            if isinstance(chunk, int):
                # "%26%23", the decimal code point, "%3B": an HTML numeric character
                # reference, itself percent-encoded (WHATWG 1.3 step 5.3).
                out.append(f"%26%23{chunk}%3B")
            else:
                out.append(_translate_latin1(chunk.decode("latin-1"), table, safe))
        return "".join(out)
    if isinstance(value, bytes | bytearray | memoryview):
        return _translate_latin1(bytes(value).decode("latin-1"), table, safe)
    raise InputTypeError(f"value must be str or bytes, not {type_name(value)}")


# Two hex digits -> the byte, for every case combination ("%4a" and "%4A").
_HEX_PAIRS: dict[bytes, bytes] = {
    f"{a}{b}".encode(): bytes([int(a + b, 16)])
    for a in "0123456789abcdefABCDEF"
    for b in "0123456789abcdefABCDEF"
}


def percent_decode(value: str | bytes) -> bytes:
    """WHATWG URL 1.3 "percent-decode": each ``%HH`` (hex in either case) becomes a byte;
    a ``%`` not followed by two ASCII hex digits is kept as is.

    A str is first UTF-8 encoded ("percent-decode a string"); lone surrogates in it
    become U+FFFD, as the URL parser's scalar-value conversion does. Never raises
    for str or bytes input; time is linear in the input length.
    """
    if isinstance(value, str):
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError:
            data = to_scalar_value_string(value, "replace").encode("utf-8")
    elif isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
    else:
        raise InputTypeError(f"value must be str or bytes, not {type_name(value)}")
    if b"%" not in data:
        return data
    # Every piece after a split point began with "%": decode its first two bytes if
    # they are hex, else put the "%" back. Splitting keeps this linear even for "%" floods.
    pieces = data.split(b"%")
    out = [pieces[0]]
    hex_pairs = _HEX_PAIRS
    for piece in pieces[1:]:
        byte = hex_pairs.get(piece[:2])
        if byte is None:
            out.append(b"%")
            out.append(piece)
        else:
            out.append(byte)
            out.append(piece[2:])
    return b"".join(out)


def percent_decode_text(value: str | bytes) -> str:
    """Percent-decode, then Encoding 6 "UTF-8 decode without BOM": invalid sequences
    become U+FFFD (maximal subparts), and a leading BOM is kept as U+FEFF."""
    return percent_decode(value).decode("utf-8", "replace")
