"""What every ready-made reconciler is built from: the ``Reconciler`` type, the rule
catalogue that ``@rule`` fills, and the helpers the rule families share.

A reconciler states one difference exactly (``pctfuzz._internal.accept.entry``: it takes
that difference out of the two outcomes and nothing more). One that is a field of the
implementation's model (``pctfuzz._internal.accept.model``, after WHATWG URL 1.3, 5.1
and 5.2) carries that ``Model`` and composes with the others (``modelled``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pctfuzz._internal.accept.entry import MODEL
from pctfuzz._internal.accept.meaning import IMPACTS
from pctfuzz._internal.accept.model import Model, NotModelled, render
from pctfuzz._internal.cases import Case
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.operations import OPERATIONS, Operation
from pctfuzz._internal.outcome import Outcome, Reconcile

__all__ = ["CATALOGUE", "CatalogueEntry", "Impact", "Reconciler", "modelled", "rule"]

_CASE_TYPES: Mapping[str, type] = {op.name: op.case_type for op in OPERATIONS}
_Pair = tuple[Outcome, Outcome] | None
_CHECK_OF: Mapping[type, str] = {case_type: check for check, case_type in _CASE_TYPES.items()}


@dataclass(frozen=True)
class Reconciler:
    """A ready-made exact statement of one difference (``pctfuzz.accept`` lists them)."""

    name: str
    checks: frozenset[str]
    reconcile: Reconcile
    reference: str
    implementation: str
    phase: int = MODEL
    #: The difference as one field of the composed model (``pctfuzz._internal.accept.model``).
    model: Model | None = None


#: A rule's impact: one of ``accept.meaning.IMPACTS``, or a function of a finding's
#: parameters that answers one (a delimiter left raw splits a field, a letter does not).
Impact = str | Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class CatalogueEntry:
    """One entry of the rule catalogue: a ready-made reconciler's maker, which is also
    a rule a finding can be named by. Its name, parameter and optional keys are the
    maker's signature; what it accepts is the maker's docstring (``pctfuzz.accept``,
    docs/adapters.md and docs/api.md show it: ``accept.catalogue_text``); ``checks``
    are the operations it applies to; ``impact`` is what a finding it names
    means (``accept.impact``: refined there by the parameters of a few rules)."""

    name: str
    maker: Callable[..., Reconciler]
    #: The parameter without a default (None when it has none): a TOML entry's key.
    param: str | None
    #: The keyword parameters: a TOML entry's optional keys.
    optional: tuple[str, ...]
    #: The operations whose checks it applies to (some only with some parameters).
    checks: tuple[Operation, ...]
    #: What a finding it names means (``accept.meaning.IMPACTS``), or the function of its
    #: parameters that says it (its docstring is what the docs show).
    impact: Impact


#: The catalogue, in the order the rules are defined: every maker decorated ``@rule``.
#: Filled once, as the rule modules are imported (the package imports them in that
#: order); nothing adds to it later.
CATALOGUE: dict[str, CatalogueEntry] = {}

_Maker = TypeVar("_Maker", bound=Callable[..., Reconciler])


def rule(checks: tuple[Operation, ...], impact: Impact) -> Callable[[_Maker], _Maker]:
    """Enter the decorated maker in ``CATALOGUE``: adding a rule is this decorator on its
    maker (with its docstring and impact) and its name in its family's ``__all__``, its
    model field (``accept.model``) if it has one, and where a finding may be named by it
    (``accept.candidates``); ``make docs`` writes the docs and ``pctfuzz.accept``."""
    assert callable(impact) or impact in IMPACTS, impact

    def enter(maker: _Maker) -> _Maker:
        params = inspect.signature(maker).parameters.values()
        required = [p.name for p in params if p.default is inspect.Parameter.empty]
        assert len(required) <= 1, f"{maker.__name__}: one parameter without a default"
        assert maker.__doc__, f"{maker.__name__}: its docstring is what it accepts"
        CATALOGUE[maker.__name__] = CatalogueEntry(
            maker.__name__, maker, required[0] if required else None,
            tuple(p.name for p in params if p.default is not inspect.Parameter.empty),
            checks, impact)
        return maker

    return enter


def modelled(model: Model) -> Reconcile:
    """``model`` alone as a ``Reconcile`` (``KnownDivergence.matches``; the engine
    composes the models of all applicable entries instead)."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        try:
            return Outcome(render(model, _CHECK_OF[type(case)], case)), actual
        except NotModelled:
            return None

    return reconcile


def _declared(name: str, checks: set[str], model: Model, reference: str,
              implementation: str) -> Reconciler:
    return Reconciler(name, frozenset(checks), modelled(model), reference, implementation,
                      MODEL, model)


def _chars(chars: str) -> frozenset[int]:
    """A rule's characters (one or more ASCII) as code points."""
    if not isinstance(chars, str) or not chars or not chars.isascii():  # TOML: chars = 5
        raise UsageError(f"characters {chars!r}: give one or more ASCII characters")
    return frozenset(map(ord, chars))
