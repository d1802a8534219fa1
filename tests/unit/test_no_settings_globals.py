"""No module-level mutable settings (issue 35, item 1): what a run has in force (the
accept file, ``--no-accepted``, the declared sets) is a value handed down
(``settings.RunSettings``, carried by the bound target), never a module's list or
dict that a setter writes and a check reads deep down.

The test reads every module of ``src/pctfuzz`` with ``ast`` and finds each module-level
name bound to a mutable container (a list, dict or set display or call, a weak
collection) that a function of the module mutates (an item or slice assigned, a
mutating method called), and each module-level name a function rebinds (``global``),
whatever it holds. Each one found must be in
``ALLOWED``, a pure cache of a pure function or process state that is no setting, with
its reason; anything else fails the suite. ``test_it_fails_on_a_setter`` shows it
failing on a copy of the tree with a setter added."""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "pctfuzz"

_MUTATORS = frozenset({"append", "extend", "insert", "clear", "update", "add", "discard",
                       "remove", "pop", "popitem", "setdefault", "__setitem__"})
_CONTAINERS = frozenset({"list", "dict", "set", "WeakSet", "WeakKeyDictionary",
                         "WeakValueDictionary", "OrderedDict", "defaultdict"})

#: module:name -> why a function may mutate it: caches of pure functions (keyed by
#: their whole input, bounded), process state that is no setting, registries filled
#: at import.
ALLOWED: dict[str, str] = {
    "_internal/reference.py:_LOWERCASE": "cache: a pure encoder per (set, flag)",
    "_internal/reference.py:_INBAND": "cache: a pure table per (set, flag), bounded",
    "_internal/reference.py:_CALLS": "cache: a pure call plan per argument types, bounded",
    "_internal/checks/registry/lookup.py:_FOR": "cache: the built-in entries per "
    "(check, names), a pure filter of a constant; bounded",
    "_internal/checks/registry/urllib_legacy.py:_LAST_LEGACY": "cache: one entry of a "
    "pure function of its key",
    "_internal/checks/registry/urllib_legacy.py:_LAST_MODEL": "cache: one entry of a "
    "pure function of its key",
    "_internal/checks/registry/urllib_legacy.py:_KINDS": "cache: pure per codec name",
    "_internal/oracles/urllib_parse.py:_CODECS": "cache: pure per encoding label",
    "_internal/accept/reconcilers/base.py:CATALOGUE": "registry filled at import: each @rule maker "
    "enters the catalogue as it is defined, never later",
    "_internal/oracles/peer.py:_REMOTE_TYPES": "cache: one exception class per remote "
    "type name (pure)",
    "_internal/oracles/peer.py:_live": "process state: the live peers, closed at exit",
    "_internal/fuzz/driver.py:_EXIT_HOOKS": "process state: the atheris process's exit "
    "hooks, no setting",
    "_internal/fuzz/driver.py:_LAST_WORDS": "process state: what the harness says as it "
    "dies, no setting",
    "_internal/fuzz/staging.py:_SKIPPED": "process state: warnings said once",
    "_internal/fuzz/staging.py:_UNSAVED": "process state: warnings said once",
    "_internal/accept/files.py:_FILES": "cache: an accept file's entries, loaded and "
    "checked once per path (the path is the key, not a setting)",
    "_internal/oracles/peer.py:_starter": "process state: the one thread that starts "
    "peers, per pid (issue 23), no setting",
    "_internal/checks/breadcrumb.py:_HEADS": "cache: a question's JSON before its value, "
    "a pure function of its key; bounded",
}


def _is_container(value: ast.expr | None) -> bool:
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp,
                          ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in _CONTAINERS
    return False


def _module_containers(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and _is_container(node.value):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and _is_container(node.value):
            names.add(node.target.id)
    return names


def _mutated_in_functions(tree: ast.Module, names: set[str]) -> Iterator[str]:
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.Global):  # whatever it holds
                yield from node.names
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = [node.target] if not isinstance(node, ast.Delete) \
                    else list(node.targets)
            for target in targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                        and target.value.id in names:
                    yield target.value.id
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in _MUTATORS and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id in names:
                yield node.func.value.id


def mutable_globals(src: Path) -> set[str]:
    """``module path:name`` of every module-level container a function mutates, and of
    every module-level name a function rebinds."""
    found: set[str] = set()
    for path in sorted(src.rglob("*.py")):
        if "node_modules" in path.parts or "build" in path.parts:
            continue
        tree = ast.parse(path.read_text(), str(path))
        names = _module_containers(tree)
        found.update(f"{path.relative_to(src).as_posix()}:{n}"
                     for n in _mutated_in_functions(tree, names))
    return found


def test_no_module_level_mutable_settings() -> None:
    unexpected = mutable_globals(SRC) - set(ALLOWED)
    assert not unexpected, (
        f"module-level mutable state a function writes: {sorted(unexpected)}; a setting "
        "of the run is handed down (settings.RunSettings, the bound target), a pure cache "
        "goes in ALLOWED with its reason")


def test_every_allowed_one_is_still_there() -> None:
    """An entry of ``ALLOWED`` whose global went is removed from it too."""
    assert set(ALLOWED) <= mutable_globals(SRC)


def test_it_fails_on_a_setter(tmp_path: Path) -> None:
    copy = tmp_path / "pctfuzz"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("node_modules", "build",
                                                             "__pycache__"))
    with (copy / "_internal" / "formats.py").open("a") as module:
        module.write("\n_DECLARED: list[object] = [{}]\n\n\ndef declare_sets(sets):\n"
                     "    _DECLARED[0] = dict(sets or {})\n")
    assert mutable_globals(copy) - set(ALLOWED) == {"_internal/formats.py:_DECLARED"}
