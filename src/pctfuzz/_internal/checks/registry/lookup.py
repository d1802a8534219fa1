"""The ordered built-in registry, its lookups, and the entries that apply to an adapter.

``DIVERGENCES`` puts every library's entries (one module each) in reconcile order:
by phase (entries replacing a refusal or a whole answer before entries rewriting text,
so yarl's dropped surrogates compose with its safe set), and within a phase in the
order the libraries and their modules list them. Only the order among entries of one
check and one adapter family matters (``pctfuzz._internal.accept.entry.reconcile`` skips the
others),
and each family's entries are in one module, or in ``urllib`` and ``urllib_legacy``
whose phase-0 encode and form entries are all in ``urllib_legacy``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from pctfuzz._internal.accept import (
    checked_entries,
    load_accept_file,
)
from pctfuzz._internal.accept import entry as _engine
from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.cases import Case
from pctfuzz._internal.checks.asked import UNASKED, Asked
from pctfuzz._internal.checks.registry import (
    ada,
    csharp,
    curl,
    elixir,
    engines,
    erlang,
    glib,
    go,
    haskell,
    java,
    lua,
    nim,
    node,
    perl,
    php,
    qt,
    r,
    ruby,
    tcl,
    urllib,
    urllib_legacy,
    yarl,
)
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.oracles.base import impl_name
from pctfuzz._internal.oracles.registry import IMPLS
from pctfuzz._internal.outcome import CHECKS, Outcome
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings

__all__ = [
    "DIVERGENCES",
    "accepted_entries",
    "divergences_for",
    "entries_for",
    "explain",
    "get_divergence",
    "reconcile",
]

#: Every accepted divergence, in reconcile order (module docstring).
DIVERGENCES: tuple[KnownDivergence, ...] = tuple(sorted(
    (*urllib.ENTRIES, *urllib_legacy.ENTRIES, *yarl.ENTRIES, *ada.ENTRIES, *node.ENTRIES,
     *go.ENTRIES, *java.ENTRIES, *php.ENTRIES, *ruby.ENTRIES, *perl.ENTRIES, *curl.ENTRIES,
     *tcl.ENTRIES, *r.ENTRIES, *lua.ENTRIES, *haskell.ENTRIES, *nim.ENTRIES, *qt.ENTRIES,
     *erlang.ENTRIES, *elixir.ENTRIES, *glib.ENTRIES, *csharp.ENTRIES, *engines.ENTRIES),
    key=lambda d: d.phase,
))

_BY_ID = {d.id: d for d in DIVERGENCES}
if len(_BY_ID) != len(DIVERGENCES):  # pragma: no cover - a registry typo
    raise RuntimeError("duplicate divergence ids")


def get_divergence(entry_id: str) -> KnownDivergence:
    """The entry with this id; ``PctfuzzError`` if there is none."""
    try:
        return _BY_ID[entry_id]
    except KeyError:
        raise UsageError(f"unknown divergence {entry_id!r}") from None


def divergences_for(
    impl: str | Iterable[str] | None = None, check: str | None = None
) -> list[KnownDivergence]:
    """Entries for these implementation names (all if None) and check (all if None),
    grouped by implementation and check (``DIVERGENCES`` keeps reconcile order)."""
    names = {impl} if isinstance(impl, str) else set(impl) if impl is not None else None
    order = {name: index for index, name in enumerate(IMPLS)}
    found = [
        d
        for d in DIVERGENCES
        if (names is None or d.impl in names) and (check is None or d.check == check)
    ]
    # Display order: by implementation, then check; registry order within those.
    return sorted(found, key=lambda d: (order.get(d.impl, len(order)), CHECKS.index(d.check)))


def reconcile(
    check: str, impl_names: Sequence[str], case: Case, expected: Outcome, actual: Outcome,
    *, extra: Sequence[KnownDivergence] = (), settings: RunSettings = DEFAULT_SETTINGS,
) -> tuple[tuple[str, ...], Outcome, Outcome]:
    """``pctfuzz._internal.accept.entry.reconcile`` over the built-in entries, then the ``extra``
    ones
    (a user adapter's and ``--accept``'s, ``accepted_entries``)."""
    return _engine.reconcile(check, impl_names, case, expected, actual,
                             entries_for(check, impl_names, extra, settings))


def explain(
    check: str, impl_names: Sequence[str], case: Case, expected: Outcome, actual: Outcome,
    *, extra: Sequence[KnownDivergence] = (), without: str | None = None,
    settings: RunSettings = DEFAULT_SETTINGS,
) -> tuple[str, ...] | None:
    """``pctfuzz._internal.accept.entry.explain`` over the built-in entries, then the ``extra`` ones
    (all but the entry whose id is ``without``)."""
    entries = entries_for(check, impl_names, extra, settings)
    if without is not None:
        entries = [e for e in entries if e.id != without]
    return _engine.explain(check, impl_names, case, expected, actual, entries)


#: (check, implementation names) -> the built-in entries for them, in reconcile order.
_FOR: dict[tuple[str, tuple[str, ...]], tuple[KnownDivergence, ...]] = {}


def entries_for(check: str, impl_names: Sequence[str],
                extra: Sequence[KnownDivergence] = (),
                settings: RunSettings = DEFAULT_SETTINGS) -> Sequence[KnownDivergence]:
    """``(*DIVERGENCES, *extra)`` without the built-in entries that the engine would
    skip (another check or implementation), in the same order: a differential check
    asks on every differing input, about one check and one adapter. None at all
    under ``--no-accepted`` (the run's ``settings.accepted``)."""
    if not settings.accepted:
        return ()
    key = (check, tuple(impl_names))
    own = _FOR.get(key)
    if own is None:
        if len(_FOR) >= 256:  # one key per adapter in practice; bounded all the same
            _FOR.clear()
        own = _FOR[key] = tuple(d for d in DIVERGENCES if d.check == check and d.impl in key[1])
    return (*own, *extra) if extra else own


#: Per adapter object and accept file (``checks.asked``'s policy).
_ADAPTERS: Asked[tuple[KnownDivergence, ...]] = Asked("accepted entries")


def accepted_entries(impl: object,
                     settings: RunSettings = DEFAULT_SETTINGS) -> tuple[KnownDivergence, ...]:
    """The user entries that apply to ``impl``: its ``divergences`` and those of the
    run's accept file (``settings.accept_file``), each with ``impl`` filled
    in (the
    adapter's name), in reconcile order. Cached per adapter object and file. None
    under ``--no-accepted`` (the run's ``settings.accepted``)."""
    if not settings.accepted:
        return ()
    accept = settings.accept_file
    cached = _ADAPTERS.get(impl, accept)
    if cached is not UNASKED:
        return cached
    name = impl_name(impl)
    own = checked_entries(getattr(impl, "divergences", None), f"{name}.divergences")
    extra = load_accept_file(accept) if accept else []
    entries = [e if e.impl else dataclasses.replace(e, impl=name) for e in (*own, *extra)]
    ordered = tuple(sorted(entries, key=lambda e: e.phase))
    return _ADAPTERS.put(impl, accept, ordered)
