"""JavaScript's decoders as the engines run them, the models the Node.js and engine
rules and entries compare with (``replacement("low-byte")``, ``checks.registry.node``
and ``engines``): ECMA-262's Decode (``decodeURIComponent``, 19.2.6.5 and its
Decode abstract operation) and Node.js's ``querystring`` fallback, which deviates from
WHATWG URL 1.3's percent-decode on purpose.
"""

from __future__ import annotations

from pctfuzz._internal.spec import ASCII_HEX, PERCENT_ENCODED_BYTE
from pctfuzz._internal.text import surrogates_to_fffd

__all__ = ["decode_uri_component", "node_unescape", "querystring_scan", "unescape_buffer"]

_ESCAPE_TEXT = PERCENT_ENCODED_BYTE


def unescape_buffer(text: str) -> bytes:
    """Node.js ``querystring.unescapeBuffer`` (lib/querystring.js), a model of a decoder
    that deviates from WHATWG URL 1.3 "percent-decode a string" on purpose: each ``%HH``
    is its byte, as there, but each other UTF-16 code unit is its low byte (code unit &
    0xFF), not its UTF-8 bytes. ``+`` is a space only where the caller replaced it."""
    out = bytearray()
    pos = 0
    for match in _ESCAPE_TEXT.finditer(text):
        units = text[pos:match.start()].encode("utf-16-le", "surrogatepass")[::2]
        out += units + bytes([int(match.group()[1:], 16)])
        pos = match.end()
    out += text[pos:].encode("utf-16-le", "surrogatepass")[::2]
    return bytes(out)


def decode_uri_component(text: str) -> str | None:
    """ECMA-262 Decode(string, "") as decodeURIComponent runs it; None where it throws
    (a code unit that is no escape, a lone surrogate too, is copied as it is)."""
    out: list[str] = []
    k, n = 0, len(text)
    while k < n:
        c = text[k]
        if c != "%":
            out.append(c)
            k += 1
            continue
        if k + 3 > n or text[k + 1] not in ASCII_HEX or text[k + 2] not in ASCII_HEX:
            return None
        first = int(text[k + 1 : k + 3], 16)
        length = 1 if first < 0x80 else 2 if first >> 5 == 6 else 3 if first >> 4 == 14 else (
            4 if first >> 3 == 30 else 0
        )
        if length == 0:
            return None
        octets = [first]
        k += 3
        for _ in range(length - 1):
            if k + 3 > n or text[k] != "%":
                return None
            if text[k + 1] not in ASCII_HEX or text[k + 2] not in ASCII_HEX:
                return None
            octets.append(int(text[k + 1 : k + 3], 16))
            k += 3
        try:
            out.append(bytes(octets).decode("utf-8"))
        except UnicodeDecodeError:
            return None
    return "".join(out)


def node_unescape(text: str, form: bool = False, encoded: bool | None = None) -> str:
    """``decodeURIComponent(text)``, and when it throws (bytes that are not UTF-8, a
    ``%`` that starts no escape, a lone surrogate) ``unescapeBuffer(text).toString()``.
    ``form``: a name or value of ``querystring.parse`` or ``URLSearchParams``, decoded
    only when ``encoded`` (by default: it holds a valid escape once its ``+`` are
    skipped, as their scan skips them: ``"\x80%"`` is kept as it is, ``"\x80%+aa"`` is
    decoded); its ``+`` are spaces."""
    if form:
        if encoded is None:
            encoded = _ESCAPE_TEXT.search(text.replace("+", "")) is not None
        if not encoded:
            return surrogates_to_fffd(text.replace("+", " "))
        text = text.replace("+", " ")
    decoded = decode_uri_component(text)  # (a lone surrogate it keeps is U+FFFD in
    if decoded is not None:  # the answer, as UTF-8 and as the non-scalar policy read it)
        return surrogates_to_fffd(decoded)
    return unescape_buffer(text).decode("utf-8", "replace")


def querystring_scan(sequence: str) -> tuple[bool, bool]:
    """Whether ``querystring.parse`` decodes the name and the value of ``sequence``
    (Node's lib/querystring.js ``parse``: it looks for one valid ``%HH`` with a counter
    that a '+' of the value does not reset; once the name is marked, its characters
    fall through to the value's check, so a second escape in the name marks the value
    too)."""
    name_encoded = value_encoded = in_value = False
    count = 0
    for char in sequence:
        if not in_value:
            if char == "=":
                in_value, count = True, 0
                continue
            if not name_encoded:
                if char == "%":
                    count = 1
                    continue
                if count and char in ASCII_HEX:
                    count += 1
                    name_encoded = count == 3
                    continue
                count = 0
            if char == "+":
                continue
        if char != "+" and not value_encoded:
            if char == "%":
                count = 1
            elif count and char in ASCII_HEX:
                count += 1
                value_encoded = count == 3
            else:
                count = 0
    return name_encoded, value_encoded
