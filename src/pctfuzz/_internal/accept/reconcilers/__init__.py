"""The ready-made reconcilers of user entries, and ``divergence()`` that builds one.

Each reconciler states one difference exactly (``pctfuzz._internal.accept.entry``: it takes that
difference out of the two outcomes and nothing more); ``pctfuzz.accept`` documents
them for users and loads them from ``--accept`` files by the names in ``RECONCILERS``.
They are also the catalogue that names a finding by what explains it
(``pctfuzz._internal.accept.rules``). A reconciler that is one field of the implementation's
model (``pctfuzz._internal.accept.model``: a set, a text rewrite, a structure, an input
transform) carries that ``Model`` and composes with the others; the rest are written
as code, in their phase. The models follow WHATWG URL 1.3 (percent-encode after
encoding), 5.1 and 5.2 (form parser and serializer) with the implementation's change
applied.

The rules are defined by family, one module each, over ``base`` (the ``Reconciler``
type, ``CATALOGUE`` and its ``@rule`` decorator): ``sets`` (an encoder's set),
``pairs`` (a form's pairs), ``encodings`` (latin-1 and legacy encodings),
``rewrites`` (of the whole answer), ``transforms`` (of the input and the structure)
and ``decoding`` (invalid UTF-8 and a decoder's other readings, then the last rules).
This package imports them in that order, the order the catalogue lists the rules in
(``make docs`` writes the docs' table in it), and re-exports what each family's
``__all__`` lists: the rest of pctfuzz imports them from here; a family module
imports ``base`` only. A new rule is its maker and its name in its family's
``__all__``: nothing here changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pctfuzz._internal.accept.entry import MODEL, REPLACE, REWRITE, KnownDivergence
from pctfuzz._internal.accept.reconcilers.base import (
    _CASE_TYPES,
    CATALOGUE,
    CatalogueEntry,
    Impact,
    Reconciler,
    modelled,
    rule,
)

# The rule families, in the catalogue's order (each @rule enters the catalogue as its
# module is imported), not sorted by name. Each family's ``__all__`` lists what it
# gives the rest of pctfuzz: a new rule is its maker and that name, in its module.
# isort: off
from pctfuzz._internal.accept.reconcilers import (
    sets,
    pairs,
    encodings,
    rewrites,
    transforms,
    decoding,
)
from pctfuzz._internal.accept.reconcilers.sets import *  # noqa: F403
from pctfuzz._internal.accept.reconcilers.pairs import *  # noqa: F403
from pctfuzz._internal.accept.reconcilers.encodings import *  # noqa: F403
from pctfuzz._internal.accept.reconcilers.rewrites import *  # noqa: F403
from pctfuzz._internal.accept.reconcilers.transforms import *  # noqa: F403
from pctfuzz._internal.accept.reconcilers.decoding import *  # noqa: F403

# isort: on
from pctfuzz._internal.cases import Case
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.outcome import CHECKS
from pctfuzz._internal.text import one_line

__all__ = [
    "CATALOGUE",
    "MODEL",
    "OPTIONAL_PARAMS",
    "RECONCILERS",
    "REPLACE",
    "REWRITE",
    "CatalogueEntry",
    "Impact",
    "Reconciler",
    "divergence",
    "modelled",
    "not_acceptable",
    "rule",
]
__all__ += sets.__all__
__all__ += pairs.__all__
__all__ += encodings.__all__
__all__ += rewrites.__all__
__all__ += transforms.__all__
__all__ += decoding.__all__


#: Ready-made reconcilers by the name a TOML entry gives, with their parameter; also
#: the catalogue of behaviours a finding is named by (``pctfuzz._internal.accept.rules``).
RECONCILERS: Mapping[str, tuple[Callable[..., Reconciler], str | None]] = {
    name: (entry.maker, entry.param) for name, entry in CATALOGUE.items()}
#: Reconcilers' optional TOML keys beside their parameter: their keyword parameters.
OPTIONAL_PARAMS: Mapping[str, tuple[str, ...]] = {
    name: entry.optional for name, entry in CATALOGUE.items() if entry.optional}


def not_acceptable(kind: str, target: str, behaviour: Mapping[str, Any] | None) -> str | None:
    """Why ``pctfuzz accept`` cannot write an entry for a finding of ``kind`` in
    ``target`` named by ``behaviour`` (its rule and parameters), in words that follow
    "finding ID"; None when it can: a difference of an implementation that a reconciler
    states, with that reconciler's parameters. (Whether the case can be pinned as an
    example is known only from the case.)"""
    if kind not in ("divergence", "crash") or not target.startswith("diff_"):
        return f"is a {kind} of {target}, not a difference of an implementation"
    if not behaviour:
        return "has no rule that explains it"
    rule, params = str(behaviour["rule"]), behaviour["params"]
    if rule not in RECONCILERS:
        return f"is explained by {one_line(rule, 60)!r}, which no accept-file reconciler states"
    param = RECONCILERS[rule][1]
    required = {param} if param else set()
    if not required <= set(params) <= required | set(OPTIONAL_PARAMS.get(rule, ())):
        return f"has parameters {sorted(params)} for {rule}, which takes {param or 'none'}"
    return None


# --- entries -------------------------------------------------------------------------------
def divergence(
    *,
    id: str,
    check: str,
    reconcile: Reconciler,
    citation: str,
    why: str,
    example: Case,
    impl: str = "",
    summary: str = "",
    applies: Callable[[Case], bool] | None = None,
) -> KnownDivergence:
    """An accepted difference for your adapter (``pctfuzz.accept``). ``impl`` defaults to
    the adapter that declares it (or is under test, for ``--accept``); ``applies``
    narrows the cases it applies to (default: every case of ``check``).
    ``PctfuzzError`` for an empty field, a check the reconciler cannot explain, or an
    example of another check."""
    for label, text in (("id", id), ("citation", citation), ("why", why)):
        if not isinstance(text, str) or not text.strip():
            raise UsageError(f"divergence {id!r}: {label} must be a non-empty string")
    if check not in CHECKS:
        raise UsageError(f"divergence {id!r}: unknown check {check!r} "
                           f"(one of {', '.join(CHECKS)})")
    if check not in reconcile.checks:
        raise UsageError(f"divergence {id!r}: {reconcile.name} explains "
                           f"{', '.join(sorted(reconcile.checks))}, not {check}")
    case_type = _CASE_TYPES[check]
    if not isinstance(example, case_type):
        raise UsageError(f"divergence {id!r}: the example of a {check} entry must be a "
                           f"{case_type.__name__}")
    return KnownDivergence(
        id=id, impl=impl, check=check,
        summary=summary or f"{reconcile.implementation} ({reconcile.name})",
        applies=applies or (lambda case: isinstance(case, case_type)),
        reconcile=reconcile.reconcile,
        reference=reconcile.reference, implementation=reconcile.implementation,
        citation=citation, why=why, example=example, phase=reconcile.phase,
        model=reconcile.model,
    )
