"""The layer contract of ``src/pctfuzz`` and the checker that enforces it.

``docs/architecture.md`` draws these layers. A module may import modules of its own
layer or of any layer *below* it, never above, and no two modules may import each
other, directly or around a loop. Every import counts: top-level, inside a function
(lazy, for instrumentation or start-up time) and under ``TYPE_CHECKING``, because a
lazy upward import is still an upward dependency.

The checker reads the source with ``ast`` (nothing is imported), so it runs on any
copy of the tree: ``tests/unit/test_layers.py`` runs it on the real one, and on a copy
with an upward import added, to show that it fails.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

#: Highest layer first. A name matches a module and everything below it
#: (``pctfuzz._internal.fuzz`` matches ``pctfuzz._internal.fuzz.campaign``); ``pctfuzz`` and
#: ``pctfuzz._internal`` alone are those packages' ``__init__`` (the public library API; the
#: internals' docstring).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # The public line (docs/api.md): nothing under pctfuzz._internal imports these. With
    # it, the deprecated old paths (pctfuzz.cases, .sets, .targets, .oracles.process).
    ("public API", ("pctfuzz.__main__", "pctfuzz.accept", "pctfuzz.oracles", "pctfuzz.testing",
                    "pctfuzz.cases", "pctfuzz.sets", "pctfuzz.targets")),
    ("entry points", ("pctfuzz._internal.cli", "pctfuzz._internal.harness",
                      "pctfuzz._internal.pytest_plugin", "pctfuzz._internal.project")),
    ("reports", ("pctfuzz._internal.reports",)),
    ("fuzzing", ("pctfuzz._internal.fuzz",)),
    ("targets", ("pctfuzz._internal.targets",)),
    ("checks", ("pctfuzz._internal.checks",)),
    ("subjects", ("pctfuzz._internal.oracles",)),
    ("store", ("pctfuzz._internal.store",)),
    ("vocabulary", ("pctfuzz._internal.cases", "pctfuzz._internal.inputs",
                    "pctfuzz._internal.violations",
                    "pctfuzz._internal.identity",
                    "pctfuzz._internal.outcome", "pctfuzz._internal.operations",
                    "pctfuzz._internal.accept", "pctfuzz._internal.formats",
                    "pctfuzz._internal.grammar", "pctfuzz._internal.settings")),
    ("library", ("pctfuzz", "pctfuzz._internal.sets", "pctfuzz._internal.named_sets",
                 "pctfuzz._internal.setspec", "pctfuzz._internal.encoding",
                 "pctfuzz._internal.reference", "pctfuzz._internal.form",
                 "pctfuzz._internal.spec", "pctfuzz._internal.spec_changes")),
    ("base", ("pctfuzz._internal", "pctfuzz._internal.errors", "pctfuzz._internal.exits",
              "pctfuzz._internal.text", "pctfuzz._internal.deprecation",
              "pctfuzz._internal.scratch")),
)


def module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int:
    """Index into ``LAYERS`` (0 is the top); the longest matching name wins."""
    best, rank = -1, -1
    for index, (_name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            exact = prefix in ("pctfuzz", "pctfuzz._internal")
            if (module == prefix or (not exact and module.startswith(prefix + "."))) \
                    and len(prefix) > best:
                best, rank = len(prefix), index
    if rank < 0:
        raise LookupError(f"{module} is in no layer: add it to tests/support/layers.py LAYERS")
    return rank


def imports(path: Path, module: str, known: Mapping[str, Path]) -> Iterator[tuple[int, str]]:
    """(line, imported pctfuzz module) for every import statement of the file."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:  # "from pctfuzz._internal.cli import fuzz" imports a module
                sub = f"{target}.{alias.name}"
                yield node.lineno, sub if sub in known else target


def graph(src: Path) -> dict[str, dict[str, int]]:
    """module -> {imported pctfuzz module: first line} for the package under ``src``."""
    files = {module_name(p, src): p for p in sorted((src / "pctfuzz").rglob("*.py"))}
    edges: dict[str, dict[str, int]] = {}
    for module, path in files.items():
        out = edges.setdefault(module, {})
        for line, target in imports(path, module, files):
            if (target == "pctfuzz" or target.startswith("pctfuzz.")) and target != module:
                out.setdefault(target, line)
    return edges


def violations(src: Path) -> list[str]:
    """Every upward import and every import cycle, one readable line each."""
    edges = graph(src)
    for module in edges:
        layer_of(module)  # a module the contract forgot is an error, not a free pass
    found = []
    for module, targets in sorted(edges.items()):
        for target, line in sorted(targets.items()):
            if target not in edges:  # an attribute, not a module: its package was counted
                target = target.rpartition(".")[0]
            if layer_of(target) < layer_of(module):
                found.append(f"{module}:{line} imports {target}: "
                             f"{LAYERS[layer_of(module)][0]} may not import "
                             f"{LAYERS[layer_of(target)][0]}")
    found.extend(f"import cycle: {' -> '.join(cycle)}" for cycle in cycles(edges))
    return found


def cycles(edges: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """The import cycles between modules (a package's ``__init__`` importing its own
    submodules, for re-export, is not a cycle: a submodule never imports it back)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for target in edges.get(node, {}):
            if target not in edges:
                continue
            if state.get(target) == 1:
                found.append([*path[path.index(target):], target])
            elif target not in state:
                visit(target)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found
