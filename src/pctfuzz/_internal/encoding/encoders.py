"""Encode or fail (Encoding Standard §6.1), as the URL Standard's percent-encode loop
runs it (§1.3): ``encode_pieces`` yields byte chunks and runs of the code points an
encoder cannot encode; ``encode_runs``, the same with each such code point on its own."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator

from pctfuzz._internal.encoding.differences import _overrides
from pctfuzz._internal.encoding.labels import _ENCODINGS, Encoding
from pctfuzz._internal.encoding.tables import _charmap, _charmap_ncr, _table
from pctfuzz._internal.errors import (
    InputTypeError,
    NotScalarValueError,
    UnknownEncodingError,
    type_name,
)
from pctfuzz._internal.text import LONE_SURROGATE

# --- encode or fail (Encoding Standard §6.1) ------------------------------------------

_Encode = Callable[[str], bytes]


def _table_pieces(text: str, name: str) -> Iterator[bytes | str]:
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
        yield match.group()
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
_GB18030_FIXED_SPLIT = re.compile(f"({_GB18030_FIXED.pattern})")


def _gb18030_pieces(text: str) -> Iterator[bytes | str]:
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
        yield match.group() if fixed is None else fixed
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
    """Runs of one kind of code point for ``_iso_2022_jp_pieces``: ASCII but SO, SI and
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


def _iso_2022_jp_pieces(text: str) -> Iterator[bytes | str]:
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
            yield "\ufffd" * len(shifts)
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
            yield errors
    if state != _ASCII:
        yield _ESC_ASCII




def encode_pieces(encoding: Encoding, text: str) -> Iterator[bytes | str]:
    """Encode ``text`` with one encoder instance, as the URL Standard's loop over
    "encode or fail" does (Encoding Standard §6.1, URL Standard §1.3).

    Yields, in order, non-empty byte chunks and, for each run of code points the
    encoder cannot encode, those code points as a str (U+FFFD for ISO-2022-JP's SO, SI
    and ESC). How bytes are split into chunks, and errors into runs, is not
    significant: a run is one item where a code point each cost the reference a step
    each (the fuzzer's ISO-2022-JP inputs are full of errors). ``text`` must be a
    scalar value string; a lone surrogate raises NotScalarValueError.
    """
    _check_arguments(encoding, text)
    if not text:
        return iter(())
    if encoding.is_utf8:
        return iter((text.encode("utf-8"),))
    if encoding.name == "ISO-2022-JP":
        return _iso_2022_jp_pieces(text)
    if encoding.name == "gb18030":
        return _gb18030_pieces(text)
    return _table_pieces(text, encoding.name)


def encode_runs(encoding: Encoding, text: str) -> Iterator[bytes | int]:
    """``encode_pieces`` with each code point the encoder cannot encode an int of its
    own: non-empty byte chunks and error code points, in order. Raises at once, as
    ``encode_pieces`` does."""
    return _each_error(encode_pieces(encoding, text))


def _each_error(pieces: Iterator[bytes | str]) -> Iterator[bytes | int]:
    for piece in pieces:
        if isinstance(piece, str):
            yield from map(ord, piece)
        else:
            yield piece


def _check_arguments(encoding: Encoding, text: str) -> None:
    """The errors of the encoders' functions: an encoding ``lookup`` did not give, a
    text that is not a scalar value string."""
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
    if encoding.name in _NOT_TABLES:
        inband = encode_inband(encoding, text)
        if inband is not None:  # gb18030, ISO-2022-JP without the Roman state
            return inband_ncr_bytes(inband)
        return b"".join([run if isinstance(run, bytes) else b"&#%d;" % run for run in runs])
    return _charmap_ncr(_table(encoding.name), text)


# --- the encoders' output as one str, errors in band ------------------------------------

#: ``encode_inband``'s stand-ins for the code points U+0080-U+00FF an encoder cannot
#: encode: U+DC80-U+DCFF, lone surrogates, which a scalar value string never holds. So
#: each char of its output up to U+00FF is a byte, and each other char is an error.
_LOW_ERROR_OFFSET = 0xDC00
_LOW_ERRORS_BACK = {_LOW_ERROR_OFFSET + cp: cp for cp in range(0x80, 0x100)}
_LOW_STAND_INS = re.compile("[\\udc80-\\udcff]")

#: In ``encode_inband``'s output: one run of errors, as a capturing group, so ``split``
#: alternates bytes and errors.
INBAND_ERRORS = re.compile("([^\\x00-\\xff]+)")


def inband_code_point(char: int) -> int:
    """The code point an error char (above U+00FF) of ``encode_inband``'s output stands for."""
    return char - _LOW_ERROR_OFFSET if 0xDC80 <= char <= 0xDCFF else char


def inband_ncrs(errors: str) -> str:
    """``errors`` (runs of ``INBAND_ERRORS``, maybe with ASCII between them) with each
    error written as its HTML numeric character reference ``&#N;`` (decimal, as URL
    Standard 1.3 step 5.3 writes N): all at once, by the ASCII codec's
    "xmlcharrefreplace" (C), after the stand-ins are read back."""
    if _LOW_STAND_INS.search(errors) is not None:
        errors = errors.translate(_LOW_ERRORS_BACK)
    return errors.encode("ascii", "xmlcharrefreplace").decode("ascii")


def encode_inband(encoding: Encoding, text: str) -> str | None:
    """The bytes of ``encode_runs`` as a str of one char per byte (U+0000-U+00FF), with
    each code point the encoder cannot encode left in place, as itself or, for
    U+0080-U+00FF, as a lone surrogate (``inband_code_point``); ISO-2022-JP's SO, SI and
    ESC as U+FFFD (Encoding 12.2.2 reports them so). A percent-encoder then writes every
    byte and error with one ``str.translate``, and no Python step per run (URL Standard
    1.3). Raises as ``encode_runs`` does.

    None for UTF-8 (no errors; it has its own path).
    """
    _check_arguments(encoding, text)
    return encode_inband_unchecked(encoding, text)


def encode_inband_unchecked(encoding: Encoding, text: str) -> str | None:
    """``encode_inband`` without its argument checks, for a caller that made them: an
    ``Encoding`` from ``lookup`` and a scalar value string (``percent_encode``, on every
    legacy call: the checks, a regex scan among them, cost it a fifth of the call)."""
    # (A dict, not comparisons of names: each comparison costs a call once instrumented.)
    special = _INBAND_SPECIAL.get(encoding.name)
    if special is not None:
        return special(text)
    return text.translate(_inband_table(encoding.name))


def _gb18030_inband(text: str) -> str:
    """``encode_inband`` for gb18030 (§10.2.2): Python's codec, which has bytes for every
    scalar value, between the corrected code points of ``DIFFERENCES``."""
    pieces = _GB18030_FIXED_SPLIT.split(text)  # codec's, corrected, codec's, ...
    if len(pieces) > 1:
        fixed = _gb18030_inband_fixes()
        pieces[1::2] = [fixed[char] for char in pieces[1::2]]
    pieces[0::2] = [piece.encode("gb18030").decode("latin-1") for piece in pieces[0::2]]
    return "".join(pieces)


@functools.cache
def _gb18030_inband_fixes() -> dict[str, str]:
    """Each corrected code point -> its bytes as latin-1 chars, or itself for an error."""
    return {chr(cp): char if out is None else out.decode("latin-1")
            for cp, out in _overrides("gb18030").items() for char in [chr(cp)]}


def inband_ncr_bytes(inband: str) -> bytes:
    """``encode_inband``'s output as the bytes of ``encode_ncr`` (each error as "&#N;")."""
    pieces = INBAND_ERRORS.split(inband)
    if len(pieces) > 1:
        pieces[1::2] = inband_ncrs("\x00".join(pieces[1::2])).split("\x00")
    return "".join(pieces).encode("latin-1")


def _low_errors(table: dict[int, str]) -> dict[int, str]:
    """``table`` with each unencodable U+0080-U+00FF mapped to its stand-in, and U+FFFD,
    if unencodable, to itself: the commonest error (from invalid UTF-8), and a code
    point ``translate`` does not find costs it an exception."""
    for cp in range(0x80, 0x100):
        table.setdefault(cp, chr(_LOW_ERROR_OFFSET + cp))
    table.setdefault(0xFFFD, "\ufffd")
    return table


@functools.cache
def _inband_table(name: str) -> dict[int, str]:
    """``str.translate`` table of a table encoder for ``encode_inband``: code point ->
    its bytes as latin-1 chars (or a stand-in, ``_low_errors``); the other unencodable
    code points are absent (``translate`` leaves them as they are)."""
    table = {cp: out.decode("latin-1") for cp, out in _table(name).items()}
    assert all(table[cp] == chr(cp) for cp in range(0x80))  # ASCII as is: a fact
    return _low_errors(table)


#: Stand-ins for ISO-2022-JP's three escape sequences in ``_iso_2022_jp_inband``: lone
#: surrogates, never in a scalar value string.
_TO_JIS0208, _TO_ROMAN, _TO_ASCII = "\ud800", "\ud802", "\ud801"


@functools.cache
def _iso_2022_jp_inband_parts() -> tuple[re.Pattern[str], dict[int, str]]:
    """(the jis0208 runs and Roman stretches of ``_iso_2022_jp_inband``, its table)."""
    jis = {cp: out.decode("latin-1") for cp, out in _table("ISO-2022-JP").items()
           if cp >= 0x80 and cp not in (0xA5, 0x203E)}
    table = {cp: chr(cp) for cp in range(0x80)}
    # SO, SI and ESC are errors reported as U+FFFD (Encoding 12.2.2 step 3).
    table.update({cp: "\ufffd" for cp in b"\x0e\x0f\x1b"})
    table.update(jis)
    # (a Roman stretch is the only place they come: 0x5C and 0x7E there, step 3)
    table[0xA5], table[0x203E] = "\\", "~"
    table.update({ord(_TO_JIS0208): "\x1b$B", ord(_TO_ROMAN): "\x1b(J",
                  ord(_TO_ASCII): "\x1b(B"})
    jis_class = _class_of(jis)
    return (re.compile(f"([{jis_class}]+)|([\u00a5\u203e][^\\\\~{jis_class}]*)"),
            _low_errors(table))


def _iso_2022_jp_inband(text: str) -> str:
    """``encode_inband`` for ISO-2022-JP (Encoding 12.2.2), whose state follows from
    the kinds of code point alone: the jis0208 state is exactly each maximal run of
    what it encodes; the Roman state starts at U+00A5 or U+203E and lasts until a
    backslash, a tilde or a jis0208 code point (ASCII but those two, SO/SI/ESC and
    errors leave it as it is, steps 1, 3, 8); the ASCII state is the rest. So an escape
    sequence goes before each jis0208 run ("ESC $ B") and Roman stretch ("ESC ( J"),
    "ESC ( B" after one that the ASCII state follows or that ends the text, and one
    ``str.translate`` writes the rest: no Python step per run (the fuzzer's inputs
    switch state tens of times)."""
    runs, table = _iso_2022_jp_inband_parts()
    parts = runs.split(text)  # ascii, jis0208 or None, Roman or None, ascii, ...
    count = len(parts) // 3
    if not count:
        return text.translate(table)
    # (the ASCII state after a run when what follows is not another run, or at the end)
    closers = [_TO_ASCII if ascii else "" for ascii in parts[3:-1:3]] + [_TO_ASCII]
    escaped = [""] * (4 * count + 1)
    escaped[0::4] = parts[0::3]
    escaped[1::4] = [_TO_JIS0208 if jis is not None else _TO_ROMAN for jis in parts[1::3]]
    escaped[2::4] = [jis if jis is not None else roman
                     for jis, roman in zip(parts[1::3], parts[2::3], strict=True)]
    escaped[3::4] = closers
    return "".join(escaped).translate(table)


#: ``encode_inband`` for the encoders that are not one table.
_INBAND_SPECIAL: dict[str, Callable[[str], str | None]] = {
    "UTF-8": lambda text: None,
    "ISO-2022-JP": _iso_2022_jp_inband,
    "gb18030": _gb18030_inband,
}
