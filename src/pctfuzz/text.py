"""Untrusted text made safe for one line of a terminal or a log.

Finding records, file names and exception messages come from fuzzers and bug reports:
printed raw, an ESC starts a terminal escape sequence, a newline forges a second
output line, and a bidi control (U+202E) reorders what the reader sees. ``one_line``
is the one place that turns such text into a single printable line; every message,
table cell and verdict pctfuzz prints about a record goes through it. ``ascii_line``
is its stricter sibling for generated Python source, where a comment must be ASCII.
"""

from __future__ import annotations

__all__ = ["ascii_line", "one_line"]

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
