"""``--accept`` files: the TOML, Python file or module that holds a user's entries
(``pctfuzz.accept`` describes the format), read safely, each entry checked as it loads.

- ``read_accept_file``: a regular file only (after symlinks: a symlink to
  ``/dev/zero`` or a FIFO named ``x.toml`` is refused, never read or waited on), at
  most ``MAX_ACCEPT_BYTES``, opened with ``O_NONBLOCK`` and checked again on the
  descriptor.
- ``parse_toml``: TOML text to a table; nesting too deep for the parser is one line.
  An empty file, or one of comments only, holds no entries (and is no error).
- ``check_parameter``: a reconciler's parameter is a string (``types``: or a list of
  strings), so ``chars = 5`` is one line, not an internal error.
- ``check_example``: the example's fields have the types its check takes, and its set
  and encoding exist, so a wrong example is refused when the file loads, not only by
  ``divergences --check``.

Every failure of a file is a ``UsageError``: one line, exit 2.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import stat
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.accept.reconcilers import OPTIONAL_PARAMS, RECONCILERS, divergence
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.errors import PctfuzzError, UsageError
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.sets import get_set

__all__ = ["ACCEPT_ENV", "MAX_ACCEPT_BYTES",
           "check_example", "check_parameter", "checked_entries", "load_accept_file",
           "parse_toml", "read_accept_file"]

#: The environment variable that hands the ``--accept`` file to a harness process
#: (``pctfuzz._internal.fuzz.protocol.HarnessSettings``); nothing else reads it.
ACCEPT_ENV = "PCTFUZZ_ACCEPT"

# --- reading a file safely, checking an entry as it loads ---------------------------------
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
    non-negative integer, ``types`` and ``text`` (``written_as``: one per character) a
    str or a list of str, any other a str."""
    if param == "n":
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return
        raise UsageError(f"{where}: {reconciler}: bad 'n': must be a non-negative integer, "
                         f"not {value!r}")
    if isinstance(value, str):
        return
    listed = param in ("types", "text")
    if listed and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return
    wanted = "a string or a list of strings" if listed else "a string"
    raise UsageError(f"{where}: {reconciler}: bad {param!r}: must be {wanted}, "
                     f"not {type(value).__name__}")


_TEXT: Final = (str,)
#: check -> field -> (required, the types it may hold).
_FIELDS: Final[dict[str, dict[str, tuple[bool, tuple[type, ...]]]]] = {
    ENCODE.name: {"value": (True, _TEXT), "set": (False, _TEXT), "encoding": (False, _TEXT),
               "space_as_plus": (False, (bool,))},
    DECODE.name: {"value": (True, _TEXT)},
    FORM_SERIALIZE.name: {"pairs": (True, (list,)), "encoding": (False, _TEXT)},
    FORM_PARSE.name: {"text": (True, _TEXT)},
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
    if check == FORM_SERIALIZE.name and not all(
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


# --- --accept files ------------------------------------------------------------------------
def _example(check: str, data: object, where: str) -> Case:
    if not isinstance(data, dict):
        raise UsageError(f"{where}: example must be a table")
    try:
        if check == ENCODE.name:
            return EncodeCase(data["value"], data.get("set", "component"),
                              data.get("encoding", "utf-8"), bool(data.get("space_as_plus")))
        if check == DECODE.name:
            return DecodeCase(data["value"])
        if check == FORM_SERIALIZE.name:
            return FormCase(tuple((str(n), str(v)) for n, v in data["pairs"]),
                            data.get("encoding", "utf-8"))
        return FormParseCase(data["text"])
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"{where}: bad example for {check}: {type(exc).__name__}: {exc}") \
            from None


def _toml_entries(path: Path) -> list[KnownDivergence]:
    where = f"--accept {path}"
    document = parse_toml(read_accept_file(path, where), where)
    if not document:
        return []  # empty, or comments only: no entries yet (``pctfuzz accept`` adds them)
    tables = document.get("divergence")
    if not isinstance(tables, list):
        raise UsageError(f"--accept {path}: expected [[divergence]] tables")
    entries = []
    for index, table in enumerate(tables):
        where = f"--accept {path}, divergence {index + 1}"
        if not isinstance(table, dict):
            raise UsageError(f"{where}: not a table")
        name = str(table.get("reconciler"))
        if name not in RECONCILERS:
            raise UsageError(f"{where}: reconciler {name!r} is not one of "
                               f"{', '.join(RECONCILERS)}")
        factory, param = RECONCILERS[name]
        if param and param not in table:
            raise UsageError(f"{where}: {name} needs {param!r}")
        if param:
            check_parameter(name, param, table[param], where)  # chars = 5, types = 5
        options = {key: table[key] for key in OPTIONAL_PARAMS.get(name, ()) if key in table}
        for key, value in options.items():
            check_parameter(name, key, value, where)  # part = 5
        try:
            # (the options with or without a parameter: decoded_twice's part was left
            # out, so an entry for names only accepted the values' twice-decoding too)
            reconciler = factory(table[param], **options) if param else factory(**options)
        except PctfuzzError as exc:  # a parameter of the right type but a bad value
            raise UsageError(f"{where}: {name}: {exc}") from None
        check = str(table.get("check", ""))
        check_example(check, table.get("example"), where)
        try:
            entries.append(divergence(
                id=table.get("id", ""), check=check, reconcile=reconciler,
                citation=table.get("citation", ""), why=table.get("why", ""),
                example=_example(check, table.get("example"), where),
                impl=str(table.get("impl", "")), summary=str(table.get("summary", "")),
            ))
        except PctfuzzError as exc:
            raise UsageError(f"{where}: {exc}") from None
    return entries


def _module_entries(spec: str) -> list[KnownDivergence]:
    try:
        if spec.endswith(".py"):
            path = Path(spec)
            source = read_accept_file(path, f"--accept {spec}")  # a regular file only
            module_spec = importlib.util.spec_from_file_location(
                f"pctfuzz_accept_{path.stem}", path)
            if module_spec is None or module_spec.loader is None:
                raise UsageError(f"--accept {spec}: no such Python file")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[module_spec.name] = module
            # The user's own code, from the bytes read above (never a FIFO or a device).
            exec(compile(source, str(path), "exec"), module.__dict__)
        else:
            module = importlib.import_module(spec)
    except PctfuzzError:
        raise
    except SystemExit as exc:  # the file's own exit is not pctfuzz's exit code
        raise UsageError(f"--accept {spec}: cannot load: it raised SystemExit({exc.code!r})") \
            from None
    except Exception as exc:
        raise UsageError(f"--accept {spec}: cannot load: {type(exc).__name__}: {exc}") \
            from None
    return checked_entries(getattr(module, "divergences", None), f"--accept {spec}")


def checked_entries(entries: object, where: str) -> list[KnownDivergence]:
    """``entries`` (an adapter's or a module's ``divergences``) as a list of entries;
    ``PctfuzzError`` naming ``where`` if it is not a sequence of ``KnownDivergence``."""
    if entries is None:
        return []
    if isinstance(entries, str | bytes) or not isinstance(entries, Iterable):
        raise UsageError(f"{where}: divergences must be a sequence of entries")
    listed = list(entries)
    for entry in listed:
        if not isinstance(entry, KnownDivergence):
            raise UsageError(f"{where}: {entry!r} is not a divergence "
                               "(build entries with pctfuzz.accept.divergence)")
    return listed


_FILES: dict[str, list[KnownDivergence]] = {}


def load_accept_file(spec: str) -> list[KnownDivergence]:
    """The entries of an ``--accept`` file (module docstring), loaded once per path.
    ``PctfuzzError`` with one line for a file that cannot be read or a bad entry."""
    if spec not in _FILES:
        is_file = spec.endswith((".toml", ".py")) or os.sep in spec
        if spec.endswith(".toml"):
            _FILES[spec] = _toml_entries(Path(spec))
        elif is_file and not spec.endswith(".py"):
            raise UsageError(f"--accept {spec}: give a .toml file, a .py file or a module")
        else:
            _FILES[spec] = _module_entries(spec)
    return _FILES[spec]
