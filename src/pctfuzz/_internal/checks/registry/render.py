"""The registry as the Markdown table of ``docs/divergences.md`` (``make docs``,
``pctfuzz divergences --markdown``), optionally with both answers on each pinned
example (which runs the implementations)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from pctfuzz._internal.accept import checked_entries
from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.checks.registry.examples import example_outcomes
from pctfuzz._internal.checks.registry.lookup import divergences_for
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.oracles.registry import IMPLS, get_impl
from pctfuzz._internal.outcome import case_text
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings

__all__ = ["adapter_entries", "docs_text", "render_adapter_markdown", "render_markdown"]


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(impl: str | Iterable[str] | None = None, *, outcomes: bool = False) -> str:
    """The registry as a Markdown table (entries for ``impl`` names only, if given). With
    ``outcomes``, each row also shows both answers on the pinned example (this runs
    the implementations, so they must be installed)."""
    return _table(divergences_for(impl), outcomes=outcomes)


def adapter_entries(settings: RunSettings = DEFAULT_SETTINGS) -> list[KnownDivergence]:
    """The accepted differences the built-in adapters declare themselves (their
    ``divergences``, the user's API: requests, werkzeug, hyperlink, ...), in ``IMPLS``
    order. An adapter that cannot be made here (a missing extra, no ``node``) is left
    out; make test installs every extra, and the Node peers declare none."""
    if settings.accept_file:  # the table is of the built-in adapters only
        raise PctfuzzError("--markdown renders the built-in adapters' entries: "
                           "give no --accept file")
    found: list[KnownDivergence] = []
    for name in IMPLS:
        try:
            impl = get_impl(name)
        except PctfuzzError:
            continue
        own = checked_entries(getattr(impl, "divergences", None), f"{name}.divergences")
        found += [e if e.impl else dataclasses.replace(e, impl=name) for e in own]
        close = getattr(impl, "close", None)
        if callable(close):
            close()
    return found


def render_adapter_markdown(settings: RunSettings = DEFAULT_SETTINGS) -> str:
    """``adapter_entries`` as a Markdown table, like ``render_markdown``'s."""
    return _table(adapter_entries(settings), outcomes=False)


#: The heading of docs/divergences.md's second table.
ADAPTERS_HEADING = "## Declared by the built-in adapters"


def docs_text(head: str) -> str:
    """docs/divergences.md: its hand-written ``head``, the registry, then the entries the
    built-in adapters declare (``make docs`` writes it; tests/unit/test_docs.py checks)."""
    return (head + render_markdown() + f"\n{ADAPTERS_HEADING}\n\n"
            "Entries an adapter carries itself (`divergences`, as your own adapter would); "
            "`pctfuzz divergences --impl NAME` lists both kinds.\n\n"
            + render_adapter_markdown())


def _table(rows: Iterable[KnownDivergence], *, outcomes: bool) -> str:
    header = [
        "id",
        "impl",
        "check",
        "what differs",
        "example",
        "reference",
        "implementation",
        "citation",
        "why accepted",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for entry in rows:
        if outcomes:
            expected, actual = example_outcomes(entry)
            ref, got = expected.describe(), actual.describe()
        else:
            ref, got = entry.reference, entry.implementation
        status = "" if entry.active() else " (inactive here: fixed upstream)"
        cells = [
            f"`{entry.id}`",
            entry.impl,
            entry.check,
            entry.summary + status,
            f"`{case_text(entry.example)}`",
            ref,
            got,
            entry.citation,
            entry.why,
        ]
        lines.append("| " + " | ".join(_md(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"
