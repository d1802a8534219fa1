"""The reference percent-encoder and decoder.

- ``percent_encode``: WHATWG URL Standard 1.3 "percent-encode after encoding", for str
  (a scalar value string) or bytes (encoded byte-wise, no text encoding involved).
- ``percent_decode``: WHATWG URL Standard 1.3 "percent-decode" (bytes out).
- ``percent_decode_text``: percent-decode, then "UTF-8 decode without BOM" (Encoding 6).

Speed comes from doing all per-byte work in C, with no Python code run per byte
(see ``_encode_bytes`` and ``_decode_block``): built-in ``bytes.translate`` with
256-entry tables, strided slice assignment, and big integers used as vectors of
8-bit lanes. Long inputs are processed in blocks of ``_BLOCK`` bytes, so memory stays
bounded and time stays linear. Two common inputs take shorter paths: text with nothing
to encode is returned as is after one ``bytes.translate`` deletion pass, and text whose
every "%" starts a "%HH" is decoded by ``codecs.escape_decode`` (``_decode_escapes``).
The tests compare every path with byte-by-byte transcriptions of the spec's loops
(tests/unit/test_reference.py).

Over 400 lines on purpose: the fast paths and the block loop they fall back to are one
algorithm each, and reading them side by side is how a reviewer checks they agree.
"""

from __future__ import annotations

import functools
from codecs import escape_decode as _escape_decode  # type: ignore[attr-defined]
from dataclasses import dataclass
from typing import Literal

from pctfuzz._internal import encoding as _encoding
from pctfuzz._internal.errors import InputTypeError, NotScalarValueError, PctfuzzError, type_name
from pctfuzz._internal.sets import PercentEncodeSet, get_set
from pctfuzz._internal.spec import ASCII_HEX
from pctfuzz._internal.text import surrogates_to_fffd

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
#: The same with lowercase hex digits: not the standard's, what ``encode_bytes_lowercase``
#: writes for a model of an implementation that writes them (``accept.model``).
_LOWER_TRIPLETS: tuple[str, ...] = tuple(f"%{b:02x}" for b in range(0x100))


def percent_encode_byte(byte: int) -> str:
    """WHATWG 1.3 "percent-encode": ``%`` followed by two uppercase hex digits."""
    return _TRIPLETS[byte]


#: Accepted as already-encoded bytes. (A tuple: ``bytes | bytearray | memoryview`` in
#: an isinstance call would build a union object on every call.)
_BYTES_LIKE = (bytes, bytearray, memoryview)

#: Inputs longer than this are processed block by block (both directions).
_BLOCK = 1 << 16

#: Inputs up to this many bytes are encoded with ``str.translate`` (see ``_encode_bytes``).
_SHORT_ENCODE = 32

#: The hex digits, both cases: never a pad (a cell writes them).
_HEX_DIGITS = ASCII_HEX.encode("ascii")


@dataclass(frozen=True)
class _Encoder:
    """Byte tables for one (set, spaceAsPlus) pair; see ``_encode_bytes``."""

    #: The bytes written as themselves, as a deletion set: ``data.translate(None, keep)``
    #: is empty iff nothing in ``data`` changes (one C pass, no output built then).
    keep: bytes
    #: True if every byte >= 0x80 changes, so non-ASCII UTF-8 always has work to do.
    high_changes: bool
    #: Three ``bytes.translate`` tables, one per column of a 3-byte output cell.
    first: bytes
    high: bytes
    low: bytes
    #: A byte value that no cell writes as output, as a deletion set; None if the set
    #: has no such member (then ``table`` is used).
    pad: bytes | None
    #: Fallback: output string per byte value, for ``str.translate``.
    table: tuple[str, ...]


@functools.lru_cache(maxsize=64)
def _encoder(encode_set: PercentEncodeSet, space_as_plus: bool,
             lowercase: bool = False) -> _Encoder:
    encoded = encode_set.members
    triplets = _LOWER_TRIPLETS if lowercase else _TRIPLETS
    # What each byte becomes: itself, its "%HH" triplet, or "+" for space
    # (WHATWG 1.3: "If spaceAsPlus is true and byte is 0x20 (SP), append U+002B (+)").
    table = [triplets[b] if b in encoded else chr(b) for b in range(0x100)]
    if space_as_plus:
        table[0x20] = "+"
    changed = bytes(b for b in range(0x100) if table[b] != chr(b))
    # The pad must be a byte no cell ever outputs: one that is never written as itself,
    # and not "%", "+" or a hex digit. Every registry set has 0xFF for it.
    never_output = [b for b in changed if b not in b"%+" + _HEX_DIGITS]
    pad = never_output[-1] if never_output else None
    first, high, low = bytearray(0x100), bytearray(0x100), bytearray(0x100)
    for b, out in enumerate(table):  # (the columns are unused when pad is None)
        first[b], high[b], low[b] = out.encode("latin-1") + bytes([pad or 0]) * (3 - len(out))
    return _Encoder(
        keep=bytes(b for b in range(0x100) if b not in changed),
        high_changes=all(b in changed for b in range(0x80, 0x100)),
        first=bytes(first),
        high=bytes(high),
        low=bytes(low),
        pad=None if pad is None else bytes([pad]),
        table=tuple(table),
    )


def _encode_bytes(data: bytes, enc: _Encoder) -> str:
    """Percent-encode every byte of ``data`` (WHATWG 1.3 "percent-encode after
    encoding", step 5.4 on each byte), for one set and spaceAsPlus.

    Every byte becomes a 3-byte cell: ``%HH`` if it is encoded, else the output byte
    (itself, or "+" for a space with spaceAsPlus) followed by two pad bytes. Three
    ``bytes.translate`` calls produce the three columns of all cells at once, strided
    slice assignment interleaves them, and one more ``translate`` deletes the pads.
    """
    if not data.translate(None, enc.keep):
        return data.decode("latin-1")
    return _encode_changed(data, enc)


def encode_bytes_lowercase(data: bytes, set_name: str, space_as_plus: bool) -> str:
    """``percent_encode`` of ``data`` written with lowercase hex digits (``%c3%a9``):
    not the standard's (1.3 writes uppercase), what a model of an implementation that
    writes them renders (``accept.model``), in the reference's own time: a campaign
    renders it on nearly every input of such an implementation (``checks.known``)."""
    try:
        tables = _LOWERCASE[set_name, space_as_plus]
    except KeyError:
        if len(_LOWERCASE) >= _MAX_CALLS:
            _LOWERCASE.clear()
        tables = _LOWERCASE[set_name, space_as_plus] = _encoder(
            get_set(set_name), space_as_plus, lowercase=True)
    return _encode_bytes(data, tables)


#: ``encode_bytes_lowercase``'s tables by set name and spaceAsPlus.
_LOWERCASE: dict[tuple[str, bool], _Encoder] = {}


def _encode_changed(data: bytes, enc: _Encoder) -> str:
    """``_encode_bytes`` without the "nothing to do" test (the caller knows better)."""
    if enc.pad is None or len(data) <= _SHORT_ENCODE:
        # Short inputs: one str.translate beats the cells' fixed cost (measured
        # crossover ~40 bytes). Also the path for custom sets with no byte to pad with.
        return data.decode("latin-1").translate(enc.table)
    if len(data) > _BLOCK:
        return "".join(
            [_encode_changed(data[i : i + _BLOCK], enc) for i in range(0, len(data), _BLOCK)]
        )
    cells = bytearray(3 * len(data))
    cells[0::3] = data.translate(enc.first)
    cells[1::3] = data.translate(enc.high)
    cells[2::3] = data.translate(enc.low)
    # latin-1: the spec's isomorphic decode (also right for a custom set that leaves
    # bytes >= 0x80 unencoded).
    return cells.translate(None, enc.pad).decode("latin-1")


def to_scalar_value_string(value: str, surrogates: Surrogates = "strict") -> str:
    """Infra "convert to a scalar value string": lone surrogates -> U+FFFD (``replace``),
    or ``NotScalarValueError`` naming the first one's position (``strict``)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        if surrogates == "replace":
            return surrogates_to_fffd(value)
        raise NotScalarValueError(
            f"value has a lone surrogate U+{ord(value[exc.start]):04X} at index {exc.start}; "
            "it is not a scalar value string (pass surrogates='replace' for U+FFFD)"
        ) from None
    return value


def _check_surrogates(surrogates: str) -> None:
    if surrogates not in ("strict", "replace"):
        raise PctfuzzError(f"surrogates must be 'strict' or 'replace', not {surrogates!r}")


@dataclass(frozen=True)
class _Call:
    """What ``percent_encode`` needs from its set, spaceAsPlus and encoding arguments."""

    tables: _Encoder
    is_utf8: bool
    #: ASCII text encodes to the same bytes (UTF-8 and every WHATWG encoder but
    #: ISO-2022-JP, whose encoder rejects ESC, SO and SI); False for a bad label.
    ascii_as_is: bool
    #: The encoding; None for a bad label (an error for str values only).
    encoding: _encoding.Encoding | None = None
    #: For a legacy encoding, ``_inband_output`` of the set and spaceAsPlus; else None.
    inband: tuple[str, ...] | None = None


@functools.cache
def _ncr_outputs() -> tuple[str, ...]:
    """For each char U+0000-U+FFFF as an error of ``encoding.encode_inband``'s output,
    what WHATWG 1.3 step 5.3 writes for it, whatever the set: "%26%23", the decimal
    code point, "%3B" (the first 256 entries are never used). Built once, in C (``map``):
    this runs inside the atheris hook, where a Python step per entry costs 0.3 s."""
    outputs = list(map(_NCR_OUTPUT.format, range(0x10000)))
    low = range(0xDC80, 0xDD00)  # the stand-ins of U+0080-U+00FF
    outputs[low.start:low.stop] = [outputs[_encoding.inband_code_point(char)] for char in low]
    return tuple(outputs)


def _inband_output(encode_set: PercentEncodeSet, space_as_plus: bool) -> tuple[str, ...]:
    """``str.translate`` table for ``encoding.encode_inband``'s output: each byte
    (U+0000-U+00FF) as the set writes it, each error in the BMP as its encoded NCR.
    (A 64K-entry tuple, so ``translate`` never misses but on an astral error: a miss
    costs it an exception.)"""
    key = (encode_set, space_as_plus)
    table = _INBAND.get(key)
    if table is None:
        if len(_INBAND) >= _MAX_INBAND:
            # 512 KiB each: dropped with the calls that hold them, so that a program
            # going through many set specs keeps at most _MAX_INBAND of them.
            _INBAND.clear()
            _CALLS.clear()
        table = _INBAND[key] = _encoder(encode_set, space_as_plus).table + _ncr_outputs()[0x100:]
    return table


#: ``_inband_output``'s tables by (set, spaceAsPlus), for the legacy encodings.
_INBAND: dict[tuple[PercentEncodeSet, bool], tuple[str, ...]] = {}
_MAX_INBAND = 64

#: (encode_set, space_as_plus, encoding) as passed -> _Call, for set names and str
#: labels: the look-ups cost more than encoding a short input.
_CALLS: dict[tuple[object, object, object], _Call] = {}
#: Bounded (labels have many spellings), and above what a campaign uses: 30-odd sets
#: times three spaceAsPlus arguments times 13 encodings.
_MAX_CALLS = 2048

_ASCII = "".join(map(chr, range(0x80)))

#: WHATWG 1.3 step 5.3: an error is written "%26%23", its decimal code point, "%3B"
#: (the HTML numeric character reference "&#N;", itself percent-encoded), whatever the set.
_NCR_OUTPUT = "%26%23{}%3B"


@functools.cache
def _ascii_as_is(enc: _encoding.Encoding) -> bool:
    runs = list(_encoding.encode_runs(enc, _ASCII))
    chunks = [run for run in runs if isinstance(run, bytes)]
    return len(chunks) == len(runs) and b"".join(chunks) == _ASCII.encode()


def _resolve(
    encode_set: str | PercentEncodeSet, space_as_plus: bool | None, encoding: str
) -> _Call:
    """The slow path of ``percent_encode``'s argument look-up (raises on a bad set)."""
    pes = get_set(encode_set)
    plus = pes.space_as_plus if space_as_plus is None else bool(space_as_plus)
    try:
        enc = _encoding.lookup(encoding)
    except PctfuzzError:
        # An error only for str values (bytes ignore ``encoding``): the str path
        # looks the label up again and raises there.
        return _Call(_encoder(pes, plus), is_utf8=False, ascii_as_is=False)
    resolved = _Call(_encoder(pes, plus), enc.is_utf8, _ascii_as_is(enc), enc,
                     None if enc.is_utf8 else _inband_output(pes, plus))
    # Only keys whose equality means "same call": a set name or a set (frozen: the
    # models of ``accept.model`` encode with sets of their own on every input they
    # answer), None or a bool, a str label.
    if (
        type(encode_set) in (str, PercentEncodeSet)
        and (space_as_plus is None or type(space_as_plus) is bool)
        and type(encoding) is str
    ):
        if len(_CALLS) >= _MAX_CALLS:
            _CALLS.clear()
        _CALLS[encode_set, space_as_plus, encoding] = resolved
    return resolved


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
    try:
        call = _CALLS[encode_set, space_as_plus, encoding]
    except (KeyError, TypeError):  # not seen yet, or an unhashable (wrong) argument
        call = _resolve(encode_set, space_as_plus, encoding)
    enc_tables = call.tables

    if type(value) is str or isinstance(value, str):
        if surrogates != "strict":
            _check_surrogates(surrogates)
        if value.isascii() and call.ascii_as_is:
            data = value.encode("ascii")
            if not data.translate(None, enc_tables.keep):
                return value  # nothing to encode (a common input): it is the output
            return _encode_changed(data, enc_tables)
        if call.is_utf8:
            try:
                data = value.encode("utf-8")
            except UnicodeEncodeError:
                data = to_scalar_value_string(value, surrogates).encode("utf-8")
            if enc_tables.high_changes:
                return _encode_changed(data, enc_tables)
            return _encode_bytes(data, enc_tables)
        return _encode_legacy(to_scalar_value_string(value, surrogates), encoding, call)
    if isinstance(value, _BYTES_LIKE):
        return _encode_bytes(value if type(value) is bytes else bytes(value), enc_tables)
    raise InputTypeError(f"value must be str or bytes, not {type_name(value)}")


def _encode_legacy(value: str, encoding: str, call: _Call) -> str:
    """``percent_encode`` of a scalar value string with a legacy (not UTF-8) encoding."""
    enc = _encoding.lookup(encoding) if call.encoding is None else call.encoding
    inband = _encoding.encode_inband_unchecked(enc, value)  # (value: a scalar value string)
    assert inband is not None  # (every encoder but UTF-8's writes in band)
    # Every byte and every error in the BMP in one translate; the astral errors stay as
    # they are, and are left to write, all runs at once: as "&#N;", then with "&", "#",
    # ";" encoded (step 5.3).
    assert call.inband is not None  # (set by _resolve for every legacy encoding)
    encoded = inband.translate(call.inband)
    if encoded.isascii():
        return encoded
    pieces = _encoding.INBAND_ERRORS.split(encoded)
    if len(pieces) > 1:
        ncrs = _encoding.inband_ncrs("\x00".join(pieces[1::2]))
        pieces[1::2] = ncrs.replace("&#", "%26%23").replace(";", "%3B").split("\x00")
    return "".join(pieces)


#: Two hex digits -> the byte, for every case combination ("4a" and "4A").
_HEX_PAIRS: dict[bytes, bytes] = {
    bytes([a, b]): bytes([int(chr(a) + chr(b), 16)]) for a in _HEX_DIGITS for b in _HEX_DIGITS
}
#: Every valid "%HH".
_TRIPLET_SET = frozenset(b"%" + pair for pair in _HEX_PAIRS)

#: Up to this many "%", or this many bytes, a plain loop beats ``_decode_block``'s
#: fixed set-up cost.
_FEW_PERCENTS = 12
_SHORT = 96


def _decode_few(data: bytes) -> bytes:
    """Percent-decode by splitting on "%": one Python step per "%" (for short inputs)."""
    pieces = data.split(b"%")
    if len(pieces) == 1:
        return data
    out = [pieces[0]]
    append = out.append
    hex_pairs = _HEX_PAIRS
    for piece in pieces[1:]:
        # Each piece followed a "%": decode its first two bytes if they are hex.
        # (try/except: valid escapes are the common case, and cheaper than a test.)
        try:
            append(hex_pairs[piece[:2]])
        except KeyError:
            append(b"%")
            append(piece)
        else:
            append(piece[2:])
    return b"".join(out)


# bytes.translate tables that turn each byte into a lane value for ``_decode_block``.
_IS_PERCENT = bytes(b == 0x25 for b in range(0x100))
_IS_HEX = bytes(b in _HEX_DIGITS for b in range(0x100))
_HEX_VALUE = bytes(int(chr(b), 16) if b in _HEX_DIGITS else 0 for b in range(0x100))


def _lanes(data: bytes) -> int:
    """``data`` as one integer whose 8-bit lane ``i`` (bits 8i..8i+7) is ``data[i]``.
    Then ``x >> 8`` moves lane ``i + 1`` into lane ``i``, for all lanes at once."""
    return int.from_bytes(data, "little")


def _decode_block(data: bytes) -> bytes:
    """WHATWG 1.3 "percent-decode" of ``data``, in which no "%HH" is cut off at the end.

    A "%HH" starts at ``i`` iff ``data[i]`` is "%" and ``data[i+1]``, ``data[i+2]`` are
    hex digits; two such triplets never overlap (a hex digit is not "%"), so every
    triplet can be found independently, in parallel lanes:

    - ``starts`` has lane ``i`` = 1 where a triplet starts;
    - lane ``i`` of the output is the triplet's byte ``16*H + H'`` there, else ``data[i]``;
    - lanes ``i+1`` and ``i+2`` of a triplet are dropped: each output byte is written as
      one UTF-16LE code unit, 0x00XX to keep, 0x01XX to drop, and encoding that text to
      latin-1 with errors="ignore" removes exactly the code units above 0xFF.
    """
    size = len(data)
    is_hex = _lanes(data.translate(_IS_HEX))
    starts = _lanes(data.translate(_IS_PERCENT)) & (is_hex >> 8) & (is_hex >> 16)
    if not starts:
        return data
    value = _lanes(data.translate(_HEX_VALUE))
    decoded = ((value >> 8) << 4) | (value >> 16)  # lane i: 16 * hex(i+1) + hex(i+2)
    at_start = starts * 0xFF  # lane i: 0xFF where a triplet starts, else 0
    kept = (decoded & at_start) | (_lanes(data) & ~at_start)
    dropped = (starts << 8) | (starts << 16)  # lanes i+1 and i+2 of each triplet
    units = bytearray(2 * size)
    units[0::2] = kept.to_bytes(size, "little")
    units[1::2] = dropped.to_bytes(size, "little")
    return units.decode("utf-16-le").encode("latin-1", "ignore")


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
    elif isinstance(value, _BYTES_LIKE):
        data = value if type(value) is bytes else bytes(value)
    else:
        raise InputTypeError(f"value must be str or bytes, not {type_name(value)}")
    if 0x25 not in data:  # (an int: much faster than b"%" for short data)
        return data
    if len(data) <= _BLOCK:
        return _decode_chunk(data)
    if data.count(b"%") <= _FEW_PERCENTS:
        return _decode_few(data)
    # Cut into blocks, moving each cut forward past a "%HH" it would split.
    out: list[bytes] = []
    start = 0
    while start < len(data):
        end = start + _BLOCK
        if data[end - 2 : end + 1] in _TRIPLET_SET:
            end += 1
        elif data[end - 1 : end + 2] in _TRIPLET_SET:
            end += 2
        out.append(_decode_chunk(data[start:end]))
        start = end
    return b"".join(out)


def _decode_chunk(data: bytes) -> bytes:
    """Percent-decode at most about ``_BLOCK`` bytes, no "%HH" cut off at the end."""
    percents = data.count(b"%")
    # Each "%HH" takes three bytes, so more "%" than that means an invalid one, as
    # does a "%" in the last two bytes (a cut-off input): the escape path would then
    # waste its rewrite (costly with dense "%").
    if 3 * percents <= len(data) and 0x25 not in data[-2:]:
        decoded = _decode_escapes(data)
        if decoded is not None:
            return decoded
    if len(data) <= _SHORT or percents <= _FEW_PERCENTS:
        return _decode_few(data)
    return _decode_block(data)


def _decode_escapes(data: bytes) -> bytes | None:
    """Percent-decode ``data`` in C if every "%" in it starts a "%HH"; else None.

    Written with backslashes for "%" (and for the backslashes already there), a
    valid percent-encoded string is a valid Python bytes literal body using only
    ``\\xHH`` and ``\\\\``, which ``codecs.escape_decode`` decodes: ``\\x`` takes
    exactly two hex digits of either case, like "%HH". A "%" not followed by two
    hex digits becomes an invalid ``\\x`` escape, which raises ValueError: that input
    goes to the other decoders, which keep such a "%" (at most one wasted pass).
    """
    try:
        return _escape_decode(data.replace(b"\\", b"\\\\").replace(b"%", b"\\x"))[0]
    except ValueError:
        return None


def percent_decode_text(value: str | bytes) -> str:
    """Percent-decode, then Encoding 6 "UTF-8 decode without BOM": invalid sequences
    become U+FFFD (maximal subparts), and a leading BOM is kept as U+FEFF."""
    return percent_decode(value).decode("utf-8", "replace")
