"""Coverage of the code under test alone, apart from pctfuzz's own.

libFuzzer's ``cov:`` counts every instrumented edge: the reference, the checks and
the adapter as well as the library under test. ``UnderTest`` counts the lines of the
library's own files (the adapter's ``modules_under_test``) that executions reach, out
of the lines inside their functions (what fuzzing can reach; module-level code runs
at import).

It uses a ``sys.settrace`` line tracer, which costs a Python call per traced line, so
not on every execution: the first ``FULL`` executions (libFuzzer's replay of the
corpus at start-up) and then one in ``EVERY``. The figure is therefore a lower bound
that converges as the run goes on. (Swapping ``atheris._trace_branch`` for a
recording wrapper would count branches, but any assignment to that attribute stops
libFuzzer's coverage feedback: measured, atheris 2.3.)
"""

from __future__ import annotations

import dis
import inspect
import itertools
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["EVERY", "FULL", "UnderTest", "function_lines", "loaded_modules"]

T = TypeVar("T")

#: Executions traced in full at start-up (the corpus replay), then one in EVERY.
FULL = 4000
EVERY = 32

# Compiled at run time, not imported: this module is instrumented when the harness
# imports pctfuzz inside atheris's hook, and instrumented tracers would add libFuzzer
# features on sampled executions only, so inputs would look new for no reason.
_TRACERS = """
def global_tracer(frame, event, arg):
    if frame.f_code.co_filename in files:
        return local_tracer
    return None

def local_tracer(frame, event, arg):
    if event == "line":
        reached.add((frame.f_code.co_filename, frame.f_lineno))
    return local_tracer
"""


def _nested(code: types.CodeType) -> Iterator[types.CodeType]:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from _nested(const)


#: What a function may run before its first line (no line event of its own).
_PROLOGUE = frozenset({"RESUME", "MAKE_CELL", "COPY_FREE_VARS", "RETURN_GENERATOR", "POP_TOP",
                       "CACHE", "NOP"})


def function_lines(path: Path) -> set[int]:
    """The lines of ``path`` that hold code inside a function or method body: what a
    line tracer can see during fuzzing (class bodies and module code run at import)."""
    try:
        module = compile(path.read_bytes(), str(path), "exec")
    except (OSError, SyntaxError, ValueError):
        return set()
    lines: set[int] = set()
    for code in _nested(module):
        if not code.co_flags & inspect.CO_OPTIMIZED:  # a class body
            continue
        body = itertools.dropwhile(lambda i: i.opname in _PROLOGUE,
                                   dis.get_instructions(code))
        lines.update(i.positions.lineno for i in body
                     if i.positions is not None and i.positions.lineno is not None)
    return lines


def loaded_modules(names: Iterable[str]) -> list[str]:
    """Each of ``names`` and its submodules already imported: a library named by its
    package (``FunctionAdapter``'s ``libraries_of``) is all of its loaded modules."""
    loaded = list(sys.modules)
    return list(dict.fromkeys(m for name in names for m in (name, *loaded)
                              if m == name or m.startswith(name + ".")))


class UnderTest:
    """Lines of the modules ``names`` (and their loaded submodules) reached by the
    sampled executions."""

    def __init__(self, names: Iterable[str]) -> None:
        files = {}
        #: module -> its traced files: its own and its loaded submodules' (none: none)
        self.paths: dict[str, list[str]] = {}
        #: module -> how many of it and its loaded submodules are compiled (no lines)
        self.compiled: dict[str, int] = {}
        for name in names:
            self.paths[name] = []
            self.compiled[name] = 0
            for loaded in loaded_modules([name]):
                path = getattr(sys.modules.get(loaded), "__file__", None)
                if path and path.endswith(".py"):
                    files[path] = function_lines(Path(path))
                    self.paths[name].append(path)
                elif path and path.endswith(tuple(EXTENSION_SUFFIXES)):
                    self.compiled[name] += 1  # a C or Cython extension has no lines to trace
        self.files = files
        self.total = sum(map(len, files.values()))
        self.reached: set[tuple[str, int]] = set()
        self.executions = 0
        scope: dict[str, Any] = {"files": frozenset(files), "reached": self.reached}
        exec(compile(_TRACERS, "<pctfuzz._internal.fuzz.undertest>", "exec"), scope)
        self._tracer = scope["global_tracer"] if files else None

    @property
    def count(self) -> int:
        """Lines reached, of the ``total`` lines inside functions."""
        return sum(line in self.files[path] for path, line in self.reached)

    def modules(self) -> list[tuple[str, int, int]]:
        """(module, lines reached, lines inside its functions) per module under test, a
        package's loaded submodules counted with it; 0 lines for one that cannot be
        traced (not imported, or no Python source)."""
        out = []
        for name, paths in self.paths.items():
            reached = sum(where in paths and line in self.files[where]
                          for where, line in self.reached)
            out.append((name, reached, sum(len(self.files[path]) for path in paths)))
        return out

    def run(self, call: Callable[[], T]) -> T:
        """``call()``, traced if this execution is sampled (see the module docstring)."""
        self.executions += 1
        if (self._tracer is None or (self.executions > FULL and self.executions % EVERY)
                or sys.gettrace() is not None):  # never replace a debugger's tracer
            return call()
        sys.settrace(self._tracer)
        try:
            return call()
        finally:
            sys.settrace(None)
