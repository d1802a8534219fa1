"""Reading an ``--accept`` file safely, and checking an entry's example when it loads.

- ``read_accept_file``: a regular file only (after symlinks: a symlink to
  ``/dev/zero`` or a FIFO named ``x.toml`` is refused, never read or waited on), at
  most ``MAX_ACCEPT_BYTES``, opened with ``O_NONBLOCK`` and checked again on the
  descriptor.
- ``parse_toml``: TOML text to a table; nesting too deep for the parser is one line.
- ``check_parameter``: a reconciler's parameter is a string (``types``: or a list of
  strings), so ``chars = 5`` is one line, not an internal error.
- ``check_example``: the example's fields have the types its check takes, and its set
  and encoding exist, so a wrong example is refused when the file loads, not only by
  ``divergences --check``.

Every failure is a ``UsageError``: one line, exit 2.
"""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path
from typing import Any, Final

from pctfuzz.encoding import lookup
from pctfuzz.errors import PctfuzzError, UsageError
from pctfuzz.sets import get_set

__all__ = ["MAX_ACCEPT_BYTES", "check_example", "check_parameter", "parse_toml",
           "read_accept_file"]

#: An accept file is a few entries; anything larger is not one.
MAX_ACCEPT_BYTES: Final = 1 << 20


def read_accept_file(path: Path, where: str) -> bytes:
    """The bytes of the regular file ``path`` (module docstring); ``where`` names it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UsageError(f"{where}: cannot be read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"{where}: is not a regular file")
        if info.st_size > MAX_ACCEPT_BYTES:
            raise UsageError(f"{where}: is {info.st_size} bytes, over the "
                             f"{MAX_ACCEPT_BYTES}-byte limit")
        chunks, size = [], 0
        while size <= MAX_ACCEPT_BYTES:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise UsageError(f"{where}: cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if size > MAX_ACCEPT_BYTES:
        raise UsageError(f"{where}: grew past the {MAX_ACCEPT_BYTES}-byte limit while read")
    return b"".join(chunks)


def parse_toml(data: bytes, where: str) -> dict[str, Any]:
    """The TOML document in ``data``; ``UsageError`` for anything else, including
    nesting deeper than the parser's recursion (``RecursionError``)."""
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{where}: {exc}") from None
    except RecursionError:
        raise UsageError(f"{where}: nested too deeply") from None


def check_parameter(reconciler: str, param: str, value: object, where: str) -> None:
    """``UsageError`` unless ``value`` has its parameter's type: ``n`` (``truncated``) a
    non-negative integer, ``types`` a str or a list of str, any other a str."""
    if param == "n":
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return
        raise UsageError(f"{where}: {reconciler}: bad 'n': must be a non-negative integer, "
                         f"not {value!r}")
    if isinstance(value, str):
        return
    if param == "types" and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return
    wanted = "a string or a list of strings" if param == "types" else "a string"
    raise UsageError(f"{where}: {reconciler}: bad {param!r}: must be {wanted}, "
                     f"not {type(value).__name__}")


_TEXT: Final = (str,)
#: check -> field -> (required, the types it may hold).
_FIELDS: Final[dict[str, dict[str, tuple[bool, tuple[type, ...]]]]] = {
    "encode": {"value": (True, _TEXT), "set": (False, _TEXT), "encoding": (False, _TEXT),
               "space_as_plus": (False, (bool,))},
    "decode": {"value": (True, _TEXT)},
    "form": {"pairs": (True, (list,)), "encoding": (False, _TEXT)},
    "form-parse": {"text": (True, _TEXT)},
}


def check_example(check: str, data: object, where: str) -> None:
    """``UsageError`` unless ``data`` is an example table for ``check`` (module
    docstring): known keys of the right types, a known set and encoding."""
    if not isinstance(data, dict):
        raise UsageError(f"{where}: example must be a table")
    fields = _FIELDS.get(check)
    if fields is None:
        return  # an unknown check is refused by the entry itself, with its own line
    for key in data:
        if key not in fields:
            raise UsageError(f"{where}: bad example for {check}: no field {key!r} "
                             f"(fields: {', '.join(fields)})")
    for key, (required, types) in fields.items():
        if key not in data:
            if required:
                raise UsageError(f"{where}: bad example for {check}: needs {key!r}")
            continue
        if not isinstance(data[key], types):
            wanted = " or ".join(t.__name__ for t in types)
            raise UsageError(f"{where}: bad example for {check}: {key} must be {wanted}, "
                             f"not {type(data[key]).__name__}")
    if check == "form" and not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
            for p in data["pairs"]):
        raise UsageError(f"{where}: bad example for form: pairs must be [[name, value], ...] "
                         "of strings")
    _check_names(data, where)


def _check_names(data: dict[str, Any], where: str) -> None:
    try:
        if "set" in data:
            get_set(data["set"])
        if "encoding" in data:
            lookup(data["encoding"])
    except (PctfuzzError, LookupError, ValueError) as exc:
        raise UsageError(f"{where}: bad example: {exc}") from None
