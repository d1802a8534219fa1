"""How the decoders that models describe read their input: one function per way.

A decoder's answer differs from WHATWG URL 1.3's percent-decode in how it writes invalid
UTF-8 (``replacement``: ``utf8_decoded``), which escapes it reads (``%uXXXX``, a signed
``%+1``, some kept as they are), how it writes the text's own characters (each UTF-16
code unit below 256 as one byte), and how often it decodes (again, until nothing
changes, or a form's delimiters before it splits). ``accept.model`` composes them.
"""

from __future__ import annotations

import codecs
import re
from typing import Any

from pctfuzz._internal.accept.meaning import DELIMITERS
from pctfuzz._internal.errors import NotModelled
from pctfuzz._internal.reference import (
    percent_decode,
    percent_decode_text,
    to_scalar_value_string,
)
from pctfuzz._internal.spec import HEX_DIGIT, HEX_PAIR, PERCENT_ENCODED_RUN
from pctfuzz._internal.text import has_lone_surrogate

__all__ = [
    "ESCAPE_BYTES",
    "LATIN1",
    "PREDECODE_DELIMITERS",
    "REPLACEMENT_ERRORS",
    "U_ESCAPE",
    "decode_again",
    "decode_keeping",
    "decode_utf8_again",
    "decoded_meaning",
    "decoded_until_stable",
    "latin1_chars_escaped",
    "predecode",
    "raw_meaning",
    "u_escapes_as_utf8",
    "unsigned",
    "utf8_decoded",
    "utf8_pieces",
]

#: ``%HH`` in bytes.
ESCAPE_BYTES = re.compile(("%" + HEX_PAIR).encode())


# --- invalid UTF-8 in a decoded answer (``replacement``) -------------------------------------
def _per_byte(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeDecodeError)
    return "\ufffd" * (error.end - error.start), error.end


def _percent_kept(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeDecodeError)
    return "".join(f"%{b:02X}" for b in error.object[error.start:error.end]), error.end


#: Lead bytes whose second byte has a narrower range than 80-BF (Unicode 15.0 section
#: 3.9, Table 3-7): an overlong form, a surrogate, a code point above U+10FFFF.
_NARROW_SECOND = {0xE0: (0xA0, 0xBF), 0xED: (0x80, 0x9F), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}


def _dotnet(error: UnicodeError) -> tuple[str, int]:
    """One U+FFFD per maximal subpart, as "replace", but a lead byte and a continuation
    byte out of its narrower range (``E0 80``, ``ED A0``, ``F4 90``) are one: .NET
    Framework's ``UTF8Encoding``, which Mono 6.8 runs (measured on Mono's
    ``HttpUtility.UrlDecode`` and ``WebUtility.UrlDecode``: every sequence of up to two
    bytes of 31 telling ones, 1,920 of three and four, 20,000 random ones of up to eight:
    ``ED A0 80`` is two, the Encoding Standard's decoder writes three)."""
    assert isinstance(error, UnicodeDecodeError)
    data, start = error.object, error.start
    second = _NARROW_SECOND.get(data[start])
    if second and error.end == start + 1 and start + 1 < len(data) \
            and 0x80 <= data[start + 1] <= 0xBF:
        return "\ufffd", start + 2
    return "\ufffd", error.end


codecs.register_error("pctfuzz-per-byte", _per_byte)
codecs.register_error("pctfuzz-dotnet", _dotnet)
codecs.register_error("pctfuzz-percent-encoded", _percent_kept)
#: ``replacement`` mode -> the error handler that writes invalid UTF-8 so.
REPLACEMENT_ERRORS = {"per-byte": "pctfuzz-per-byte", "per-sequence": "replace",
                      "percent-encoded": "pctfuzz-percent-encoded", "dropped": "ignore",
                      "surrogateescape": "surrogateescape", "dotnet": "pctfuzz-dotnet"}


def utf8_decoded(data: bytes, mode: str) -> str:
    """``data`` decoded from UTF-8, its invalid UTF-8 written as the ``replacement``
    ``mode`` says; ``latin1``: the whole of it read as latin-1 where it is not UTF-8."""
    if mode == LATIN1:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data.decode("latin-1")
    return data.decode("utf-8", REPLACEMENT_ERRORS[mode])


#: The ``replacement`` mode of ``latin1_fallback``: no error handler (it reads the whole).
LATIN1 = "latin1"


# --- a decoder that reads an escape as a signed number (``signed_escapes``) ----------------
_SIGNED = re.compile(rf"%(?:\+({HEX_DIGIT})|-(0))")
_SIGNED_BYTES = re.compile(_SIGNED.pattern.encode("ascii"))


def unsigned(value: str | bytes) -> str | bytes:
    """Each ``%+H`` written ``%0H`` and ``%-0`` written ``%00``: what a decoder that
    hands an escape's two characters to ``Integer.parseInt(s, 16)`` (which takes a sign)
    reads. A negative value it refuses, as any other invalid escape."""
    if isinstance(value, bytes):
        return _SIGNED_BYTES.sub(lambda m: b"%0" + (m.group(1) or m.group(2)), value)
    return _SIGNED.sub(lambda m: "%0" + (m.group(1) or m.group(2)), value)


# --- a decoder that reads %uXXXX as a UTF-16 code unit (``percent_u``) ---------------------
#: ``%u`` and four hex digits: ECMA-262 B.2.1.2 ``unescape``'s escape of a code unit.
U_ESCAPE = re.compile(rf"%u({HEX_DIGIT}{{4}})")
_U_RUN = re.compile(rf"(?:%u{HEX_DIGIT}{{4}})+")


_FFFD = "%EF%BF%BD"


def _unit_escapes(unit: int) -> str:
    """One UTF-16 code unit written on its own as ``latin1_chars`` writes it (Mono's
    ``WriteCharBytes``): below 256 its one byte, a surrogate half U+FFFD, else its UTF-8."""
    if unit < 0x100:
        return f"%{unit:02X}"
    if 0xD800 <= unit <= 0xDFFF:
        return _FFFD
    return "".join(f"%{byte:02X}" for byte in chr(unit).encode("utf-8"))


def u_escapes_as_utf8(value: str | bytes, latin1: bool = False) -> str | bytes:
    """Each run of ``%uXXXX`` written as the UTF-8 escapes of its characters (a high and
    a low unit in a row are one character, a lone unit U+FFFD: a .NET string's UTF-16
    decoded), which percent-decode then reads as it reads any escape (a bytes input:
    its ASCII); ``latin1``: each unit on its own (``_unit_escapes``)."""
    if isinstance(value, bytes):
        return u_escapes_as_utf8(value.decode("latin-1"), latin1).encode(  # type: ignore[union-attr]
            "latin-1")

    def written(run: re.Match[str]) -> str:
        units = [int(m.group(1), 16) for m in U_ESCAPE.finditer(run.group())]
        if latin1:
            return "".join(map(_unit_escapes, units))
        text = b"".join(u.to_bytes(2, "little") for u in units).decode("utf-16-le", "replace")
        return "".join(f"%{byte:02X}" for byte in text.encode("utf-8"))

    return _U_RUN.sub(written, value)


# --- a decoder that writes a character below 256 as one byte (``latin1_chars``) -----------
#: What ``latin1_chars`` writes otherwise than UTF-8: U+0080-U+00FF, and an astral
#: character or lone surrogate (UTF-16 code units above 255 that are no character).
_NOT_UTF8_UNITS = re.compile("[\x80-\xff\ud800-\udfff\U00010000-\U0010ffff]")


def latin1_chars_escaped(value: str | bytes) -> str | bytes:
    """Each character of a str written as the escapes of its UTF-16 code units, each on
    its own (``_unit_escapes``: U+00E9 the byte E9, an astral character two U+FFFD),
    where that is not its UTF-8; a text with no ``%`` and no ``+`` is left as it is
    (Mono returns it undecoded)."""
    if isinstance(value, bytes) or ("%" not in value and "+" not in value):
        return value  # (a byte is one byte already)

    def units(match: re.Match[str]) -> str:
        code = ord(match.group())
        if code < 0x10000:
            return _unit_escapes(code)
        return _FFFD + _FFFD  # (a surrogate pair: two halves, each no character)

    return _NOT_UTF8_UNITS.sub(units, value)


# --- a decoder that decodes some escapes only (``kept_encoded``) ---------------------------

def decode_keeping(value: str | bytes, kept: frozenset[int], upper: bool = False) -> bytes:
    """WHATWG URL 1.3 percent-decode, but an escape of a byte in ``kept`` stays as it is
    (any hex case; uppercased when ``upper``): only whole ``%HH`` are kept, so the
    pieces between decode as the whole would."""
    # A str is UTF-8 encoded first, a lone surrogate as U+FFFD (as percent_decode does).
    data = value if isinstance(value, bytes) else \
        to_scalar_value_string(value, "replace").encode("utf-8")
    out: list[bytes] = []
    pos = 0
    for match in ESCAPE_BYTES.finditer(data):
        if int(match.group()[1:], 16) in kept:
            out += [percent_decode(data[pos:match.start()]),
                    match.group().upper() if upper else match.group()]
            pos = match.end()
    out.append(percent_decode(data[pos:]))
    return b"".join(out)


# --- decoding again ---------------------------------------------------------------------------
def decoded_until_stable(data: bytes) -> bytes:
    """``data`` percent-decoded again until that changes nothing (each pass shortens it,
    so the loop ends): a defence against double encoding that decodes ``%252541`` to
    ``A`` and ``%%341`` (``%41`` once) to ``A`` too."""
    while True:
        again = percent_decode(data)
        if again == data:
            return data
        data = again


#: The delimiters ``decoded_before_split`` names on their own (``%`` is every other
#: escape); a form's pair and name separators and ``+`` (a space once parsed).
PREDECODE_DELIMITERS = frozenset(b"&+;=")


def predecode(text: Any, chars: frozenset[int]) -> Any:
    """``text`` as a parser that percent-decodes before it splits reads it: the escapes
    of the bytes of ``chars`` decoded (``unquote`` of the whole query, then a split
    that decodes each field again). With ``%`` in ``chars`` every escape is decoded but
    those of the delimiters not in ``chars``; without it, only the delimiters' own, as
    what decoding the others once more changes is a ``%`` made or decoded again."""
    if isinstance(text, str) and has_lone_surrogate(text):
        raise NotModelled("a lone surrogate decoded before the split")
    data = text.encode("utf-8") if isinstance(text, str) else text
    if 0x25 not in chars:  # each delimiter's escape its one ASCII byte (no new escape)
        data = ESCAPE_BYTES.sub(lambda m: bytes([int(m.group()[1:], 16)])
                                 if int(m.group()[1:], 16) in chars else m.group(), data)
        return data.decode("utf-8") if isinstance(text, str) else data
    out: list[bytes] = []
    pos = 0
    for match in ESCAPE_BYTES.finditer(data):  # the delimiters' escapes kept for the split
        if int(match.group()[1:], 16) in PREDECODE_DELIMITERS - chars:
            out += [percent_decode(data[pos:match.start()]), match.group()]
            pos = match.end()
    out.append(percent_decode(data[pos:]))
    # (urllib's unquote writes invalid UTF-8 as U+FFFD before the split, as the split's
    # own decoding would after it: the same text)
    joined = b"".join(out)
    return joined.decode("utf-8", "replace") if isinstance(text, str) else joined


def decode_again(text: str, plus: bool) -> str:
    return percent_decode_text(text.replace("+", " ") if plus else text)


# requoted("decode-utf8"): urllib's quote(unquote(s), safe), furl's path segments.
def decode_utf8_again(value: str, run: Any, decoded: frozenset[str] | None = None) -> str:
    """Each run of valid ``%HH`` percent-decoded and read as UTF-8 (U+FFFD for each
    invalid sequence, as ``urllib.parse.unquote``), then encoded again like the rest:
    an escape of a byte the set leaves raw becomes the byte, the others ``%HH`` (an
    escaped space stays ``%20``: ``quote`` never writes '+'). ``decoded``: only what
    it names (``decoded_meaning``) is decoded; the other escapes are data, as the
    reference reads them."""
    out: list[str] = []
    pos = 0
    for match in PERCENT_ENCODED_RUN.finditer(value):
        out.append(run(value[pos:match.start()]))
        for escapes, text, valid in utf8_pieces(match.group()):
            every = decoded is None or "all" in decoded
            out.append(run(text, False)
                       if every or decoded_meaning(text, valid, run) in (decoded or ())
                       else run(escapes))
        pos = match.end()
    out.append(run(value[pos:]))
    return "".join(out)


def utf8_pieces(escapes: str) -> list[tuple[str, str, bool]]:
    """A run of ``%HH`` as (its escapes, their text, valid) per UTF-8 character, and
    per stretch of bytes that is not UTF-8 (its text the U+FFFD of each maximal
    subpart, not valid)."""
    data = percent_decode(escapes)
    pieces: list[tuple[str, str, bool]] = []
    start = i = 0
    while i < len(data):
        size = next((n for n in (1, 2, 3, 4) if _one_character(data[i:i + n])), 0)
        if size:
            if start < i:  # (the bytes before it that were not UTF-8)
                pieces.append((escapes[3 * start:3 * i],
                               data[start:i].decode("utf-8", "replace"), False))
            pieces.append((escapes[3 * i:3 * (i + size)], data[i:i + size].decode("utf-8"),
                           True))
            i = start = i + size
        else:
            i += 1
    if start < len(data):
        pieces.append((escapes[3 * start:], data[start:].decode("utf-8", "replace"), False))
    return pieces


def _one_character(data: bytes) -> bool:
    try:
        return len(data.decode("utf-8")) == 1
    except UnicodeDecodeError:
        return False


def decoded_meaning(text: str, valid: bool, run: Any) -> str:
    """What decoding escapes to ``text`` means (``requoted``'s ``decoded``): "invalid"
    for bytes that are not UTF-8 (``valid`` False: their U+FFFD), "delimiters" for a
    delimiter that comes out raw (``run``: the encoder), else "harmless"."""
    if not valid:
        return "invalid"
    return raw_meaning(text) if run(text, False) == text else "harmless"


def raw_meaning(char: str) -> str:
    """What a decoded character left raw means: "delimiters" for one of
    ``accept.meaning.DELIMITERS``, else "harmless" (``requoted``'s ``decoded``)."""
    return "delimiters" if char in DELIMITERS else "harmless"
