"""The ``[tool.pctfuzz]`` table written into a pyproject.toml's text: appended whole
(``pctfuzz init``) or given one key (``pctfuzz accept`` adds ``accept``).

The user's text is kept byte for byte; the new lines are appended, or inserted right
under the table's header. Each result is parsed back and must be the old document plus
exactly what was meant: a file this cannot edit that way (the table written as dotted
keys or inline, a header inside a multi-line string) is refused with one line saying
what to add by hand, never damaged.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Mapping
from typing import Any

from pctfuzz._internal.errors import UsageError

__all__ = ["ACCEPT_FILE", "table_text", "toml_string", "with_key", "with_table"]

#: The accept file ``pctfuzz init`` and ``pctfuzz accept`` name when the project has none.
ACCEPT_FILE = "pctfuzz-accept.toml"

#: A ``[tool.pctfuzz]`` header line (TOML allows blanks around the dots and a comment).
_HEADER = re.compile(
    r"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*pctfuzz[ \t]*\][ \t]*(#[^\r\n]*)?(?=\r?\n|\Z)", re.M)


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string, in ASCII (TOML 1.0 "Basic strings": ``\\uXXXX``
    and ``\\UXXXXXXXX`` escapes); ``UsageError`` for a lone surrogate, which no TOML
    string can hold."""
    out = ['"']
    for char in text:
        code = ord(char)
        if 0xD800 <= code <= 0xDFFF:
            raise UsageError("the example holds a lone surrogate, which a TOML file cannot "
                             "hold")
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(f"\\U{code:08X}")
    out.append('"')
    return "".join(out)


def table_text(values: Mapping[str, str], comments: Mapping[str, str] = {}) -> str:
    """``[tool.pctfuzz]`` with ``values`` (strings), each with its comment if any."""
    lines = ["[tool.pctfuzz]"]
    for key, value in values.items():
        line = f"{key} = {toml_string(value)}"
        if key in comments:
            line = f"{line:<36}  # {comments[key]}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _document(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{where}: not valid TOML ({exc})") from None


def _checked(new: str, where: str, change: str, by_hand: str,
             expected: dict[str, Any]) -> str:
    """``new`` if it parses to ``expected``; else the one line of what to do by hand."""
    try:
        document = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        document = None
    if document != expected:
        raise UsageError(f"{where}: cannot {change} in this file's layout; add {by_hand} "
                         "by hand")
    return new


def with_table(text: str, table: str, where: str) -> str:
    """``text`` (a pyproject.toml without ``[tool.pctfuzz]``) with ``table`` (from
    ``table_text``) appended after a blank line."""
    old = _document(text, where)
    expected = copy.deepcopy(old)
    tool = expected.setdefault("tool", {})
    if not isinstance(tool, dict) or "pctfuzz" in tool:
        raise UsageError(f"{where}: already has tool.pctfuzz")
    tool["pctfuzz"] = tomllib.loads(table)["tool"]["pctfuzz"]
    head = text if not text or text.endswith("\n") else text + "\n"
    new = head + ("\n" if head.strip() else "") + table
    return _checked(new, where, "append [tool.pctfuzz]", "the table", expected)


def with_key(text: str, key: str, value: str, where: str) -> str:
    """``text`` with ``key = "value"`` added to its ``[tool.pctfuzz]`` table, on the
    line under the table's header."""
    old = _document(text, where)
    tool = old.get("tool")
    table = tool.get("pctfuzz") if isinstance(tool, dict) else None
    line = f"{key} = {toml_string(value)}"
    if not isinstance(table, dict) or key in table:
        raise UsageError(f"{where}: [tool.pctfuzz] is missing or has {key} already")
    expected = copy.deepcopy(old)
    expected["tool"]["pctfuzz"][key] = value
    headers = list(_HEADER.finditer(text))
    if len(headers) != 1:
        raise UsageError(f"{where}: cannot find the [tool.pctfuzz] header line; add "
                         f"`{line}` to the table by hand")
    end = headers[0].end()
    newline = "\r\n" if text[end:end + 2] == "\r\n" else "\n"
    new = text[:end] + newline + line + (text[end:] if text[end:] else newline)
    return _checked(new, where, f"add {key} to [tool.pctfuzz]", f"`{line}`", expected)
