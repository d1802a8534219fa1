"""The public line (docs/api.md): four modules and the command are the API.

Each public module's ``__all__`` is exactly the list docs/api.md gives for it, every
name is exported from one public module only, and every other module of the package
lives under ``pctfuzz._internal``, so a new module is private unless it is added here
on purpose.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "pctfuzz"
PUBLIC = ("pctfuzz", "pctfuzz.oracles", "pctfuzz.accept", "pctfuzz.testing")
#: The old import paths, deprecated until pctfuzz 0.2 (docs/api.md, "Old import paths"):
DEPRECATED = ("pctfuzz.cases", "pctfuzz.sets", "pctfuzz.targets", "pctfuzz.oracles.process")
#: The package's top level: the public modules, the old paths, the internals, and data.
TOP_LEVEL = {"__init__.py", "__main__.py", "oracles", "accept.py", "testing.py",
             "cases.py", "sets.py", "targets.py", "_internal", "data", "peers", "py.typed"}


def documented() -> dict[str, list[str]]:
    """``{module: [name, ...]}`` from docs/api.md's ``## `module`: ...`` sections."""
    names: dict[str, list[str]] = {}
    current = None
    for line in (ROOT / "docs" / "api.md").read_text().splitlines():
        heading = re.match(r"## `([\w.]+)`", line)
        if heading:
            current = heading.group(1)
            names[current] = []
            continue
        item = re.match(r"- `(\w+)`: ", line)
        if item and current is not None:
            names[current].append(item.group(1))
    return names


@pytest.mark.parametrize("module", PUBLIC)
def test_each_public_module_exports_what_the_docs_list(module: str) -> None:
    exported = importlib.import_module(module).__all__
    assert sorted(exported) == sorted(documented()[module])


@pytest.mark.parametrize("module", PUBLIC)
def test_every_public_name_resolves(module: str) -> None:
    loaded = importlib.import_module(module)
    for name in loaded.__all__:
        assert getattr(loaded, name, None) is not None, f"{module}.{name}"


def test_each_public_name_is_exported_from_one_place() -> None:
    seen: dict[str, str] = {}
    for module in PUBLIC:
        for name in importlib.import_module(module).__all__:
            assert name not in seen, f"{name} is exported by {seen.get(name)} and {module}"
            seen[name] = module


def test_everything_else_is_internal() -> None:
    top = {entry.name for entry in PACKAGE.iterdir() if entry.name != "__pycache__"}
    assert top == TOP_LEVEL, f"unexpected at the top of the package: {top ^ TOP_LEVEL}"


def test_the_docs_list_only_public_modules() -> None:
    assert set(documented()) == set(PUBLIC)
