"""HTML character references read in a URL's query: what ``html_unescaped`` models.

A form parser that HTML-decodes the query before it splits it reads ``&amp;`` as a
separator and ``&#61;`` as an ``=`` (dotnet/corefx#23582: Mono's ``ParseQueryString``).
Two decoders are known: the HTML Standard's (13.2.5.72, "character reference state", as
Python's ``html.unescape`` implements it) and Mono's ``HttpEncoder.HtmlDecode``, whose
state machine keeps or drops what it cannot read in its own way.
"""

from __future__ import annotations

import html
import html.entities
import string
import unicodedata

__all__ = ["HTML_MODES", "html_unescape"]

#: ``html_unescaped``'s modes: the HTML Standard's references, and Mono's decoder.
HTML_MODES = ("html5", "mono")


def html_unescape(text: str, mode: str) -> str:
    """``text`` with its character references read as ``mode`` reads them."""
    if mode == "html5":
        return html.unescape(text)
    return _mono_html_decode(text)


def _int32(number: int) -> int:
    """``number`` as C#'s unchecked ``int`` arithmetic leaves it (wrapped at 2**31)."""
    return (number + 2**31) % 2**32 - 2**31


def _is_digit(char: str) -> bool:
    """.NET's ``Char.IsDigit`` of one UTF-16 code unit: a decimal digit of the BMP (an
    astral one is two surrogate units there, neither a digit)."""
    return ord(char) < 0x10000 and unicodedata.category(char) == "Nd"


def _mono_html_decode(text: str) -> str:
    """Mono 6.8's ``HttpEncoder.HtmlDecode`` (mcs/class/System.Web/System.Web.Util/
    HttpEncoder.cs, the NET_4_0 build), step for step: HTML 4.01's named references
    (``html.entities.name2codepoint`` holds the same 252) and ``&#N;``/``&#xH;`` read
    only when ended by ``;``; a number's digits are kept apart from its ``&#`` and
    dropped when the text ends first (``&#0`` is ``&#``), a number above 65535 written
    back in decimal, ``&#0;`` kept as written, the number wrapped as a 32-bit int."""
    if "&" not in text:
        return text
    out: list[str] = []
    entity: list[str] = []  # what was read since the last '&'
    raw: list[str] = []  # Mono's rawEntity: not cleared where entity is
    state = number = 0  # 0 text, 1 after '&', 2 a name, 3 after '&#'
    is_hex = trailing = False
    for char in text:
        if state == 0:
            if char == "&":
                entity.append(char)
                raw.append(char)
                state = 1
            else:
                out.append(char)
            continue
        if char == "&":
            state = 1
            if trailing:
                entity.append(str(number))
                trailing = False
            out.append("".join(entity))
            entity = ["&"]
            continue
        if state == 1:
            if char == ";":
                state = 0
                out += ["".join(entity), char]
                entity = []
            else:
                number, is_hex = 0, False
                state = 3 if char == "#" else 2
                entity.append(char)
                raw.append(char)
        elif state == 2:
            entity.append(char)
            if char == ";":
                key = "".join(entity)
                code = html.entities.name2codepoint.get(key[1:-1]) if len(key) > 1 else None
                out.append(key if code is None else chr(code))
                state = 0
                entity, raw = [], []
        elif char == ";":
            if number == 0:
                out.append("".join(raw) + ";")
            elif number > 65535:
                out.append(f"&#{number};")
            else:
                out.append(chr(number & 0xFFFF))  # ((char) number: a negative one too)
            state = 0
            entity, raw = [], []
            trailing = False
        elif is_hex and char in string.hexdigits:
            number = _int32(number * 16 + int(char, 16))
            trailing = True
            raw.append(char)
        elif _is_digit(char):
            number = _int32(number * 10 + ord(char) - ord("0"))
            trailing = True
            raw.append(char)
        elif number == 0 and char in "xX":
            is_hex = True
            raw.append(char)
        else:
            state = 2
            if trailing:
                entity.append(str(number))
                trailing = False
            entity.append(char)
    if entity:
        out.append("".join(entity))
    elif trailing:
        out.append(str(number))
    return "".join(out)
