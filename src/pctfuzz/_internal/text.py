"""Untrusted text made safe for one line of a terminal or a log.

Finding records, file names and exception messages come from fuzzers and bug reports:
printed raw, an ESC starts a terminal escape sequence, a newline forges a second
output line, and a bidi control (U+202E) reorders what the reader sees. ``one_line``
is the one place that turns such text into a single printable line; every message,
table cell and verdict pctfuzz prints about a record goes through it. ``ascii_line``
is its stricter sibling for generated Python source, where a comment must be ASCII.

The lone-surrogate helpers live here too: a Python ``str`` may hold surrogate code
points (U+D800-U+DFFF), which a scalar value string (WHATWG Infra 4.6) may not, and
every check, model and adapter asks the same questions about them.

``first_difference`` is where two answers part, asked by the checks and by a
finding's class alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = [
    "LONE_SURROGATE",
    "ascii_line",
    "count_lone_surrogates",
    "first_difference",
    "fresh_letter",
    "has_lone_surrogate",
    "is_surrogate",
    "is_valid_utf8",
    "one_line",
    "strip_lone_surrogates",
    "surrogates_to_fffd",
]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    if char.isprintable():
        return char
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` as one printable line, at most ``limit`` characters ("..." marks a cut).

    Printable text is returned as is. Otherwise every character ``str.isprintable``
    rejects (C0/C1 controls, ESC, line and paragraph separators, bidi and other format
    controls, lone surrogates, unassigned code points) is written as a Python escape
    (``\\n``, ``\\x1b``, ``\\u202e``), and so is the backslash, so the escapes cannot
    be confused with the text. The result is valid UTF-8.
    """
    if not text.isprintable():
        text = "".join(map(_escape, text))
    if limit is not None and len(text) > limit:
        return text[: max(0, limit - 3)] + "..."
    return text


def ascii_line(text: str) -> str:
    """``text`` as one line of printable ASCII: ``ascii()`` escapes without the quotes
    (``'a\\nb\\u202e'``), for comments of generated source that no record may end."""
    return ascii(text)[1:-1]


#: A surrogate code point in a ``str`` (always lone there: a UTF-16 pair is one code
#: point). The one pattern every module uses: a regex scans in C, where a loop over the
#: characters runs Python per character.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def is_surrogate(char: str) -> bool:
    """``char`` is a surrogate code point (Infra 4.6). In a ``str`` a surrogate is
    always lone: a UTF-16 pair is one code point there."""
    return 0xD800 <= ord(char) <= 0xDFFF


def has_lone_surrogate(text: str) -> bool:
    """``text`` is not a scalar value string."""
    if text.isascii():
        return False
    try:  # (a C pass that stops at the first surrogate, twice as fast as the search)
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def count_lone_surrogates(text: str) -> int:
    return len(LONE_SURROGATE.findall(text))


def strip_lone_surrogates(text: str) -> str:
    """``text`` without its lone surrogates (``str.encode(errors="ignore")``)."""
    return LONE_SURROGATE.sub("", text)


def merge_surrogates(text: str) -> str:
    """``text`` as a decoder of UTF-16 that takes any code unit after a surrogate as its
    low half reads it: each surrogate code unit but a last one and the next code unit
    are the code point U+10000 + (the surrogate's low 10 bits << 10 | the next unit's
    low 10 bits). A valid pair reads as itself; ``"\\ud800a"`` is U+10061. (Node's
    ``querystring.escape``, ``encodeStr``: it never checks the second unit.)"""
    units: list[int] = []
    for char in text:
        code = ord(char)
        units += [0xD800 | (code - 0x10000) >> 10, 0xDC00 | (code - 0x10000) & 0x3FF] \
            if code > 0xFFFF else [code]
    out: list[str] = []
    i = 0
    while i < len(units):
        unit = units[i]
        if 0xD800 <= unit <= 0xDFFF and i + 1 < len(units):
            out.append(chr(0x10000 + (((unit & 0x3FF) << 10) | (units[i + 1] & 0x3FF))))
            i += 2
        else:
            out.append(chr(unit))
            i += 1
    return "".join(out)


def surrogates_to_fffd(text: str) -> str:
    """Infra "convert to a scalar value string": each lone surrogate becomes U+FFFD
    (WebIDL USVString)."""
    return LONE_SURROGATE.sub("\ufffd", text)


def is_valid_utf8(data: bytes) -> bool:
    """``data`` is UTF-8 (Encoding Standard 4.1: no U+FFFD when decoded)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def first_difference(a: Sequence[Any], b: Sequence[Any]) -> int:
    """The first index where ``a`` and ``b`` differ; the shorter one's length when one
    is a prefix of the other (equal: their length). Two sequences of one type are
    compared by bisection on prefixes, each prefix compared in C: a campaign asks this
    of long answers on every input a finding explains."""
    if type(a) is not type(b) or not isinstance(a, str | bytes | list | tuple):
        return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                    min(len(a), len(b)))
    low, high = 0, min(len(a), len(b))  # a[:low] == b[:low]
    if a[:high] == b[:high]:
        return high
    while high - low > 1:  # a[:high] != b[:high]
        middle = (low + high) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle
    return low


def fresh_letter(*texts: str) -> str | None:
    """A plain letter none of ``texts`` holds, or None: a filler or a name that repeats
    nothing of an input (a variant built around it changes no character it had)."""
    return next((c for c in "qzxjkvwy" if all(c not in t for t in texts)), None)
