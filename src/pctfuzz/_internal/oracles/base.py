"""The adapter contract: ``Impl`` (what the checks call), ``Adapter`` (a base whose
questions are all ``Unsupported``), and what a finding records about an adapter
(its name, its registry names, its version). ``pctfuzz._internal.oracles`` documents it."""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib.metadata
import platform
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.errors import Unsupported as Unsupported  # the contract names it here too
from pctfuzz._internal.operations import OPERATIONS

#: The adapter methods, one per operation (``operations.Operation.method``).
METHODS: tuple[str, ...] = tuple(op.method for op in OPERATIONS)


@runtime_checkable
class Impl(Protocol):
    """What ``get_impl`` returns and the differential checks call."""

    name: str

    def encode(self, case: EncodeCase) -> str: ...

    def decode(self, case: DecodeCase) -> bytes: ...

    def form_serialize(self, case: FormCase) -> str: ...

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]: ...


class Adapter:
    """Convenience base: every question is ``Unsupported`` until a subclass answers it."""

    name: str = "adapter"
    #: Names whose divergence-registry entries apply to this adapter (``name`` first).
    registry_names: tuple[str, ...] = ()
    #: Python modules of the library under test, for coverage instrumentation.
    modules_under_test: tuple[str, ...] = ()
    #: Whether the library runs in this process, so that a campaign can count the lines
    #: of ``modules_under_test`` it reaches (False: a peer process's, ``ProcessAdapter``).
    in_process: bool = True

    def encode(self, case: EncodeCase) -> str:
        raise Unsupported(f"{self.name} does not percent-encode")

    def decode(self, case: DecodeCase) -> bytes:
        raise Unsupported(f"{self.name} does not percent-decode")

    def form_serialize(self, case: FormCase) -> str:
        raise Unsupported(f"{self.name} does not serialize forms")

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        raise Unsupported(f"{self.name} does not parse forms")

    def reproduction(self, check: str, case: Case) -> str | None:
        """Python source that computes this adapter's answer to ``case`` (``check``:
        encode, decode, form, form-parse) with the library alone, binding it to
        ``actual``, for a bug report upstream (``pctfuzz report --upstream``); None
        when it cannot be written. Optional: an adapter without it gets the replay
        command. Write it with ``library_call``, so that values of the case become
        literals and nothing else; the report checks that the source gives the
        adapter's own answer before it prints it."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def _literal(value: object) -> str | None:
    """``repr(value)`` if it reads back as an equal literal (str, bytes, numbers, bools,
    None, and lists and tuples of them), else None: a value never becomes code."""
    text = repr(value)
    try:
        same = ast.literal_eval(text) == value and type(ast.literal_eval(text)) is type(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    return text if same else None


def library_call(imports: Sequence[str], expression: str, **values: Any) -> str | None:
    """``import`` lines, one assignment per value (a literal, ``_literal``), then
    ``actual = expression``: the source of ``Adapter.reproduction``. ``expression`` is
    the adapter's own code, naming the values; None if a value has no literal."""
    lines = [f"import {module}" for module in imports]
    for name, value in values.items():
        text = _literal(value)
        if text is None or not name.isidentifier():
            return None
        lines.append(f"{name} = {text}")
    lines.append(f"actual = {expression}")
    return "\n".join(lines) + "\n"


def impl_name(impl: object) -> str:
    """The name findings and divergences use for ``impl``."""
    name = getattr(impl, "name", None)
    return name if isinstance(name, str) and name else type(impl).__name__


def registry_names(impl: object) -> tuple[str, ...]:
    """Names under which divergence-registry entries apply to ``impl``."""
    names = getattr(impl, "registry_names", None)
    own = impl_name(impl)
    if isinstance(names, tuple) and all(isinstance(n, str) for n in names) and names:
        return names if own in names else (own, *names)
    return (own,)


@functools.lru_cache(maxsize=1)
def _distributions() -> Mapping[str, list[str]]:
    return importlib.metadata.packages_distributions()


def _distribution_version(dist: str) -> str:
    try:
        return f"{dist} {importlib.metadata.version(dist)}"
    except importlib.metadata.PackageNotFoundError:
        return f"{dist} (not installed)"


def impl_version(impl: object) -> str:
    """What a finding records as the version of the code under test (module
    docstring, ``distribution``): ``"yarl 1.9.4"``, ``"stdlib (Python 3.11.7)"``, a
    peer's reported version, or ``"unknown: ..."`` naming the module that no installed
    distribution holds."""
    with contextlib.suppress(Exception):  # a peer that cannot start has no version
        reported = getattr(impl, "version", None)
        if isinstance(reported, str) and reported:
            name = impl_name(impl)
            return reported if reported.startswith(name) else f"{name} {reported}"
    declared = getattr(impl, "distribution", None)
    if isinstance(declared, str) and declared:
        return _distribution_version(declared)
    modules = tuple(getattr(impl, "modules_under_test", ()) or ()) or (type(impl).__module__,)
    for index, module in enumerate(modules):
        top = module.partition(".")[0]
        if top in sys.stdlib_module_names:
            if index:  # (a standard module a wrapper calls: the wrapper is what changes)
                continue
            return f"stdlib (Python {platform.python_version()})"
        dists = _distributions().get(top)
        if dists:
            return _distribution_version(dists[0])
    return f"unknown: {modules[0]} is in no installed distribution (declare distribution=)"
