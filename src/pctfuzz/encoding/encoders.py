"""Encode or fail (Encoding Standard §6.1), as the URL Standard's percent-encode loop
runs it (§1.3): ``encode_runs`` yields byte chunks and the code points an encoder cannot
encode."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from pctfuzz.encoding.differences import _overrides
from pctfuzz.encoding.labels import _ENCODINGS, Encoding
from pctfuzz.encoding.tables import _charmap, _table
from pctfuzz.errors import InputTypeError, NotScalarValueError, UnknownEncodingError, type_name

# --- encode or fail (Encoding Standard §6.1) ------------------------------------------

_Encode = Callable[[str], bytes]


def _split_encodable(text: str, encode: _Encode) -> Iterator[bytes | str]:
    """Yield ``encode`` of each encodable stretch of ``text``, and each stretch it rejects.

    ``encode`` must be stateless and raise UnicodeEncodeError with positions into its
    argument. The whole text is tried first; after an error the window restarts small
    and doubles, so work stays linear whether errors are rare or dense.
    """
    pos, end, window = 0, len(text), len(text)
    while pos < end:
        chunk = text[pos : pos + window]
        try:
            out = encode(chunk)
        except UnicodeEncodeError as exc:
            if exc.start:
                yield encode(chunk[: exc.start])
            yield chunk[exc.start : exc.end]
            pos += exc.end
            window = 64
        else:
            yield out
            pos += len(chunk)
            window *= 2


def _table_runs(text: str, encode: _Encode) -> Iterator[bytes | int]:
    """A stateless table-driven encoder: unencodable code points are errors."""
    for piece in _split_encodable(text, encode):
        if isinstance(piece, bytes):
            yield piece
        else:
            yield from map(ord, piece)


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
_ISO_2022_JP_RUNS = re.compile(
    r"(?P<ascii>[\x00-\x0d\x10-\x1a\x1c-\x7f]+)"
    r"|(?P<shift>[\x0e\x0f\x1b])"
    r"|(?P<roman>[\u00a5\u203e]+)"
    r"|(?P<other>[^\x00-\x7f\u00a5\u203e]+)"
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
    for match in _ISO_2022_JP_RUNS.finditer(text):
        run = match.group()
        if match.lastgroup == "ascii":
            if state == _ROMAN:
                # Roman writes ASCII as is, except 0x5C and 0x7E, which mean ¥ and ‾.
                cut = _NOT_ROMAN.search(run)
                if cut is None:
                    yield run.encode("ascii")
                    continue
                if cut.start():
                    yield run[: cut.start()].encode("ascii")
                run = run[cut.start() :]
            if state != _ASCII:
                yield _ESC_ASCII
                state = _ASCII
            yield run.encode("ascii")
        elif match.lastgroup == "shift":
            # From jis0208 these are ASCII code points, so step 6 returns to ASCII first;
            # then step 3 makes them an error reported as U+FFFD, not as the code point
            # ("to prevent attacks"), leaving an ASCII or Roman state as it is.
            if state == _JIS0208:
                yield _ESC_ASCII
                state = _ASCII
            yield 0xFFFD
        elif match.lastgroup == "roman":
            if state != _ROMAN:
                yield _ESC_ROMAN
                state = _ROMAN
            yield run.translate(_ROMAN_BYTES).encode("ascii")
        else:
            for piece in _split_encodable(run, encode):
                if isinstance(piece, bytes):
                    if state != _JIS0208:
                        yield _ESC_JIS0208
                        state = _JIS0208
                    yield piece
                    continue
                # Step 11: leave jis0208 before an error, so the caller's "&#...;" is ASCII.
                if state == _JIS0208:
                    yield _ESC_ASCII
                    state = _ASCII
                yield from map(ord, piece)
    if state != _ASCII:
        yield _ESC_ASCII


_SURROGATE = re.compile(r"[\ud800-\udfff]")


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
    if _ENCODINGS.get(encoding.name) != encoding:
        raise UnknownEncodingError(f"no encoder for {encoding!r}; use lookup()")
    surrogate = _SURROGATE.search(text)
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
    return _table_runs(text, _table_encoder(encoding.name))
