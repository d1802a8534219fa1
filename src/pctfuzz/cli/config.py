"""The project's ``[tool.pctfuzz]`` settings and root (PEP 518 ``pyproject.toml``).

The project root is the nearest folder, from the current one upwards, whose
``pyproject.toml`` has a ``[tool.pctfuzz]`` table; without one it is the current
folder. ``corpus`` and ``findings`` are relative to the root, so a campaign started
in a subfolder uses the project's store instead of starting an empty one there.

```toml
[tool.pctfuzz]
impl = "mypkg.urls:MyAdapter"   # implementation under test (--impl)
targets = ["diff_encode"]       # default TARGET list
sets = ["path", "component"]    # percent-encode sets to fuzz
accept = ["accepted.toml"]      # accepted-difference files
corpus = "fuzz/corpus"          # --corpus, relative to the root
findings = "fuzz/findings"      # --findings, relative to the root
max-time = 120                  # --max-time, seconds
jobs = 2                        # --jobs
```

Command-line flags override these. An unknown key or a value of the wrong type is a
one-line error (``ConfigError``, exit 2).
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pctfuzz.errors import PctfuzzError

__all__ = ["KEYS", "ConfigError", "ProjectConfig", "find_pyproject", "load_config"]

#: Key -> what its value must be (the checks are in ``_check``).
KEYS: dict[str, str] = {
    "impl": "a string",
    "targets": "a list of strings",
    "sets": "a list of strings",
    "accept": "a list of strings",
    "corpus": "a string",
    "findings": "a string",
    "max-time": "a positive finite number",
    "jobs": "a positive integer",
}

#: Largest pyproject.toml read, in bytes (it is parsed whole).
MAX_BYTES = 1024 * 1024


class ConfigError(PctfuzzError, ValueError):
    """A ``[tool.pctfuzz]`` table that cannot be used."""


@dataclass(frozen=True)
class ProjectConfig:
    """The root and the checked ``[tool.pctfuzz]`` values (empty without a table)."""

    root: Path
    pyproject: Path | None = None
    values: dict[str, Any] = field(default_factory=dict)

    def path(self, key: str, default: str) -> Path:
        """``corpus``/``findings``: the configured folder or ``default``, under the root."""
        return self.root / str(self.values.get(key, default))


def _table(pyproject: Path) -> dict[str, Any] | None:
    """``[tool.pctfuzz]`` of ``pyproject``, or None when it has none."""
    try:
        with pyproject.open("rb") as file:
            text = file.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{pyproject}: cannot read: {exc.strerror or exc}") from None
    if len(text) > MAX_BYTES:
        raise ConfigError(f"{pyproject}: larger than {MAX_BYTES} bytes")
    try:
        document = tomllib.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{pyproject}: not valid TOML: {exc}") from None
    tool = document.get("tool")
    table = tool.get("pctfuzz") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.pctfuzz] must be a table")
    return table


def find_pyproject(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest ``pyproject.toml`` at or above ``start`` with ``[tool.pctfuzz]``."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            table = _table(candidate)
            if table is not None:
                return candidate, table
    return None


def _check(key: str, value: Any) -> bool:
    if key in ("impl", "corpus", "findings"):
        return isinstance(value, str) and bool(value)
    if key in ("targets", "sets", "accept"):
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if key == "max-time":
        return (isinstance(value, int | float) and not isinstance(value, bool)
                and math.isfinite(value) and value > 0)
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1  # jobs


def load_config(start: Path | None = None) -> ProjectConfig:
    """The project of ``start`` (default: the current folder), its values checked."""
    start = (start or Path.cwd()).absolute()
    found = find_pyproject(start)
    if found is None:
        return ProjectConfig(start)
    pyproject, table = found
    for key, value in table.items():
        if key not in KEYS:
            raise ConfigError(f"{pyproject}: [tool.pctfuzz] unknown key {key!r} "
                              f"(known: {', '.join(KEYS)})")
        if not _check(key, value):
            raise ConfigError(f"{pyproject}: [tool.pctfuzz] {key} must be {KEYS[key]}, "
                              f"not {value!r}")
    return ProjectConfig(pyproject.parent, pyproject, dict(table))
