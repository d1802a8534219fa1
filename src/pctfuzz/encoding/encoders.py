"""Encode or fail (Encoding Standard §6.1), as the URL Standard's percent-encode loop
runs it (§1.3): ``encode_runs`` yields byte chunks and the code points an encoder cannot
encode."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator

from pctfuzz.encoding.differences import _overrides
from pctfuzz.encoding.labels import _ENCODINGS, Encoding
from pctfuzz.encoding.tables import _charmap, _charmap_ncr, _table
from pctfuzz.errors import InputTypeError, NotScalarValueError, UnknownEncodingError, type_name
from pctfuzz.text import LONE_SURROGATE

# --- encode or fail (Encoding Standard §6.1) ------------------------------------------

_Encode = Callable[[str], bytes]


def _table_runs(text: str, name: str) -> Iterator[bytes | int]:
    """A stateless table-driven encoder: unencodable code points are errors.

    The errors are found by one regex scan (``_unencodable``), so the codec runs only
    on encodable stretches and never raises: a text full of errors (U+FFFD from
    invalid UTF-8, the fuzzer's usual input) costs no exception per error.
    """
    encode = _table_encoder(name)
    pos = 0
    for match in _unencodable(name).finditer(text):
        if match.start() > pos:
            yield encode(text[pos : match.start()])
        yield from map(ord, match.group())
        pos = match.end()
    if pos < len(text):
        yield encode(text[pos:])


def _class_of(code_points: Iterable[int]) -> str:
    """A regex character class body of ``code_points``, as ranges (short to compile)."""
    ranges: list[list[int]] = []
    for cp in sorted(code_points):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return "".join(re.escape(chr(low)) if low == high
                   else f"{re.escape(chr(low))}-{re.escape(chr(high))}" for low, high in ranges)


@functools.cache
def _unencodable(name: str) -> re.Pattern[str]:
    """Runs of code points that the table of ``name`` has no bytes for."""
    return re.compile(f"[^{_class_of(_table(name))}]+")


_GB18030_FIXED = re.compile(
    "[" + "".join(chr(cp) for cp in _overrides("gb18030")) + "]"
)


def _gb18030_runs(text: str) -> Iterator[bytes | int]:
    """gb18030 encoder (§10.2.2): Python's codec between the corrected code points.

    The codec encodes every scalar value (gb18030 covers all of Unicode), so only the
    :data:`DIFFERENCES` corrections can produce an error (U+E5E5).
    """
    fixes = _overrides("gb18030")
    pos = 0
    for match in _GB18030_FIXED.finditer(text):
        if match.start() > pos:
            yield text[pos : match.start()].encode("gb18030")
        fixed = fixes[ord(match.group())]
        yield ord(match.group()) if fixed is None else fixed
        pos = match.end()
    if pos < len(text):
        yield text[pos:].encode("gb18030")


@functools.cache
def _table_encoder(name: str) -> _Encode:
    return functools.partial(_charmap, _table(name))


_ESC_ASCII = b"\x1b(B"
_ESC_ROMAN = b"\x1b(J"
_ESC_JIS0208 = b"\x1b$B"
_ASCII, _ROMAN, _JIS0208 = range(3)


@functools.cache
def _iso_2022_jp_run_kinds() -> re.Pattern[str]:
    """Runs of one kind of code point for ``_iso_2022_jp_runs``: ASCII but SO, SI and
    ESC; those three; Roman (¥, ‾); what the jis0208 state encodes; the rest, which
    is an error in every state (built from the table on first use)."""
    jis = _class_of(set(_table("ISO-2022-JP")) - {0xA5, 0x203E} - set(range(0x80)))
    return re.compile(
        r"(?P<ascii>[\x00-\x0d\x10-\x1a\x1c-\x7f]+)"
        r"|(?P<shifts>[\x0e\x0f\x1b]+)"
        r"|(?P<roman>[\u00a5\u203e]+)"
        f"|(?P<jis0208>[{jis}]+)"
        f"|(?P<errors>[^\\x00-\\x7f\\u00a5\\u203e{jis}]+)"
    )


_NOT_ROMAN = re.compile(r"[\\~]")
_ROMAN_BYTES = str.maketrans({0xA5: "\\", 0x203E: "~"})


def _iso_2022_jp_runs(text: str) -> Iterator[bytes | int]:
    """ISO-2022-JP encoder (§12.2.2) with its state kept across errors.

    Works a run of one kind of code point at a time; escape sequences are written only
    when the state changes, and the end-of-queue return to ASCII happens once.
    """
    encode = _table_encoder("ISO-2022-JP")
    state = _ASCII
    # findall gives each run as a tuple with only its kind's group non-empty: tested by
    # truth value (a branch), not by comparing group names (costly when instrumented).
    for ascii, shifts, roman, jis0208, errors in _iso_2022_jp_run_kinds().findall(text):
        if ascii:
            if state == _ROMAN:
                # Roman writes ASCII as is, except 0x5C and 0x7E, which mean ¥ and ‾.
                cut = _NOT_ROMAN.search(ascii)
                if cut is None:
                    yield ascii.encode("ascii")
                    continue
                if cut.start():
                    yield ascii[: cut.start()].encode("ascii")
                ascii = ascii[cut.start() :]
            # (An escape sequence and the run are one chunk: fewer chunks to join.)
            escape = b"" if state == _ASCII else _ESC_ASCII
            state = _ASCII
            yield escape + ascii.encode("ascii")
        elif shifts:
            # From jis0208 these are ASCII code points, so step 6 returns to ASCII first;
            # then step 3 makes each an error reported as U+FFFD, not as the code point
            # ("to prevent attacks"), leaving an ASCII or Roman state as it is.
            if state == _JIS0208:
                yield _ESC_ASCII
                state = _ASCII
            yield from (0xFFFD,) * len(shifts)
        elif roman:
            escape = b"" if state == _ROMAN else _ESC_ROMAN
            state = _ROMAN
            yield escape + roman.translate(_ROMAN_BYTES).encode("ascii")
        elif jis0208:
            escape = b"" if state == _JIS0208 else _ESC_JIS0208
            state = _JIS0208
            yield escape + encode(jis0208)
        else:
            # Step 11: leave jis0208 before an error, so the caller's "&#...;" is ASCII.
            if state == _JIS0208:
                yield _ESC_ASCII
                state = _ASCII
            yield from map(ord, errors)
    if state != _ASCII:
        yield _ESC_ASCII




def encode_runs(encoding: Encoding, text: str) -> Iterator[bytes | int]:
    """Encode ``text`` with one encoder instance, as the URL Standard's loop over
    "encode or fail" does (Encoding Standard §6.1, URL Standard §1.3).

    Yields, in order, non-empty byte chunks and, for each code point the encoder cannot
    encode, that code point as an int (U+FFFD for ISO-2022-JP's SO, SI and ESC). How
    bytes are split into chunks is not significant. ``text`` must be a scalar value
    string; a lone surrogate raises NotScalarValueError.
    """
    if not isinstance(encoding, Encoding):
        raise InputTypeError(f"encoding must be an Encoding, not {type_name(encoding)}")
    if not isinstance(text, str):
        raise InputTypeError(f"text must be str, not {type_name(text)}")
    known = _ENCODINGS.get(encoding.name)
    if known is not encoding and known != encoding:  # (identity first: lookup's object)
        raise UnknownEncodingError(f"no encoder for {encoding!r}; use lookup()")
    surrogate = LONE_SURROGATE.search(text)
    if surrogate is not None:
        raise NotScalarValueError(
            f"lone surrogate U+{ord(surrogate.group()):04X} at index {surrogate.start()}"
        )
    if not text:
        return iter(())
    if encoding.is_utf8:
        return iter((text.encode("utf-8"),))
    if encoding.name == "ISO-2022-JP":
        return _iso_2022_jp_runs(text)
    if encoding.name == "gb18030":
        return _gb18030_runs(text)
    return _table_runs(text, encoding.name)


#: Encodings whose encoder is a table and nothing else (stateless, no corrections
#: around Python's codec): ``encode_ncr`` runs them in one C call.
_NOT_TABLES = frozenset({"UTF-8", "ISO-2022-JP", "gb18030"})


def encode_ncr(encoding: Encoding, text: str) -> bytes:
    """The bytes of ``encode_runs`` with each code point the encoder cannot encode
    written as ``&#N;`` (decimal): what "percent-encode after encoding" percent-encodes
    for a set that contains ``&``, ``#`` and ``;`` (URL Standard §1.3). Raises as
    ``encode_runs`` does.

    A table encoder runs as one ``codecs.charmap_encode`` with errors
    "xmlcharrefreplace", which writes exactly ``&#N;`` (its ASCII is in every table).
    """
    runs = encode_runs(encoding, text)  # (the argument checks, and the other encoders)
    if encoding.name == "ISO-2022-JP" and _ISO_2022_JP_AT_ONCE.search(text) is None:
        return _iso_2022_jp_ncr(text)
    if encoding.name in _NOT_TABLES:
        return b"".join([run if isinstance(run, bytes) else b"&#%d;" % run for run in runs])
    return _charmap_ncr(_table(encoding.name), text)


#: Stand-ins for the two escape sequences in ``_iso_2022_jp_ncr``: private-use code
#: points, errors for ISO-2022-JP, so a text holding one takes the run loop.
_TO_JIS0208, _TO_ASCII = "\ue000", "\ue001"
#: What ``_iso_2022_jp_ncr`` cannot take: Roman (¥, ‾) and the stand-ins.
_ISO_2022_JP_AT_ONCE = re.compile("[\u00a5\u203e\ue000\ue001]")


#: ``encode_ncr_marked``'s bytes for the "&", "#" and ";" of an NCR.
NCR_MARKS = {0x26: 0x80, 0x23: 0x82, 0x3B: 0x81}
_NOT_MARKED = re.compile("[&#;\u00a5\u203e\ue000\ue001]")


def encode_ncr_marked(encoding: Encoding, text: str) -> bytes | None:
    """``encode_ncr`` with the "&", "#" and ";" of each NCR written as the bytes of
    ``NCR_MARKS`` (0x80, 0x82, 0x81), for ISO-2022-JP, whose output is otherwise 7-bit:
    so a percent-encoder can write NCRs as ``%26%23N%3B`` whatever the set (URL 1.3)
    in one pass. None when this cannot be done: another encoding, or a text with
    "&", "#", ";", ¥, ‾ (the Roman state) or the stand-ins of ``_iso_2022_jp_ncr``."""
    encode_runs(encoding, text)  # (the argument checks)
    if encoding.name != "ISO-2022-JP" or _NOT_MARKED.search(text) is not None:
        return None
    return _iso_2022_jp_ncr(text, marked=True)


@functools.cache
def _iso_2022_jp_ncr_parts(marked: bool) -> tuple[re.Pattern[str], dict[int, bytes]]:
    """(runs of what the jis0208 state encodes, the table of ``_iso_2022_jp_ncr``)."""
    jis = {cp: out for cp, out in _table("ISO-2022-JP").items()
           if cp >= 0x80 and cp not in (0xA5, 0x203E)}
    assert ord(_TO_JIS0208) not in jis and ord(_TO_ASCII) not in jis
    table = {cp: bytes([cp]) for cp in range(0x80)}
    if marked:  # (the text has no "&", "#" or ";": these code points are NCRs')
        table.update({cp: bytes([mark]) for cp, mark in NCR_MARKS.items()})
    table.update({cp: table[0x26] + table[0x23] + b"65533" + table[0x3B]
                  for cp in b"\x0e\x0f\x1b"})
    table.update(jis)
    table[ord(_TO_JIS0208)], table[ord(_TO_ASCII)] = _ESC_JIS0208, _ESC_ASCII
    return re.compile(f"([{_class_of(jis)}]+)"), table


def _iso_2022_jp_ncr(text: str, *, marked: bool = False) -> bytes:
    """``encode_ncr`` for ISO-2022-JP and a text without ¥, ‾ (so without the Roman
    state) or the stand-ins, in C: the encoder (§12.2.2) is then in the jis0208 state
    exactly within each maximal run of jis0208 code points, and in the ASCII state
    elsewhere. So "ESC $ B" goes before each such run and "ESC ( B" after it (before
    the next ASCII, SO/SI/ESC or error, or at the end), and one ``charmap_encode``
    writes the rest: ASCII as is, SO, SI and ESC as U+FFFD's NCR, an error as its NCR
    (``marked``: with the NCR's "&#;" as ``NCR_MARKS``' bytes, ``encode_ncr_marked``).
    """
    runs, table = _iso_2022_jp_ncr_parts(marked)
    pieces = runs.split(text)  # other, jis0208, other, ..., other
    count = len(pieces) // 2
    escaped = [_TO_ASCII] * (4 * count + 1)
    escaped[0::4] = pieces[0::2]
    escaped[1::4] = [_TO_JIS0208] * count
    escaped[2::4] = pieces[1::2]
    return _charmap_ncr(table, "".join(escaped))


_NCR_PUNCTUATION = frozenset(b"&#;")


@functools.cache
def ncr_punctuation_is_ascii(encoding: Encoding) -> bool:
    """In this encoder's output, the bytes of "&", "#" and ";" come from those three
    code points only (then, in ``encode_ncr``'s bytes of a text without them, each such
    byte is part of an NCR). Read off the table: true for every table encoder, whose
    multi-byte sequences and upper-half bytes are all 0x40 or above; False for
    ISO-2022-JP (its jis0208 bytes are 0x21-0x7E), gb18030 and UTF-8."""
    if encoding.name in _NOT_TABLES:
        return False
    table = _table(encoding.name)
    return all(
        table.get(byte) == bytes([byte]) for byte in _NCR_PUNCTUATION
    ) and not any(
        _NCR_PUNCTUATION.intersection(out) for cp, out in table.items()
        if cp not in _NCR_PUNCTUATION
    )
