"""Record and peer text in Markdown (``report --upstream``, ``matrix.md``): always code.

A finding's case, answers, versions and behaviour text, a peer's name and version
(its handshake) and an accept file's entries are data. Written bare, ``[c](javascript:
...)`` is a link, ``![i](https://...)`` loads an image and ``<img onerror=...>`` is raw
HTML wherever the Markdown is shown. Inside a code span none of that is markup, as long
as the span cannot end early: ``code_span`` fences it with more backticks than any run
inside, pads it with a space on each side (one is stripped from each side by the
renderer, so text that starts or ends with a backtick stays text), writes a newline
and every other control character as an escape (a newline ends a table row or list
item), and in a table cell escapes ``|`` (GFM splits a row on it even inside a code
span, and reads ``\\|`` back as ``|``).
"""

from __future__ import annotations

import re
from typing import Final

from pctfuzz._internal.text import one_line

__all__ = ["code_block", "code_span"]

_BACKTICKS: Final = re.compile(r"`+")


def _longest_run(text: str) -> int:
    return max((len(m) for m in _BACKTICKS.findall(text)), default=0)


def code_span(text: object, *, table: bool = False) -> str:
    """``text`` as one inline code span that nothing inside can close or break
    (module docstring); ``table``: it goes in a table cell. Empty text is nothing (a
    span cannot be empty)."""
    visible = one_line(str(text))
    if not visible:
        return ""
    if table:
        visible = visible.replace("|", "\\|")
    if not visible.strip(" "):
        return f"`{visible}`"  # only spaces: a renderer strips none of them
    fence = "`" * (_longest_run(visible) + 1)
    return f"{fence} {visible} {fence}"


def code_block(text: str, lang: str = "") -> str:
    """``text`` in a fenced code block no line inside can close (its fence is longer
    than any backtick run in it)."""
    fence = "`" * max(3, _longest_run(text) + 1)
    return f"{fence}{lang}\n{text}\n{fence}"
