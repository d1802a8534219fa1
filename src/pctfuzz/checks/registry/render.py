"""The registry as the Markdown table of ``docs/divergences.md`` (``make docs``,
``pctfuzz divergences --markdown``), optionally with both answers on each pinned
example (which runs the implementations)."""

from __future__ import annotations

from collections.abc import Iterable

from pctfuzz.checks.registry.examples import example_outcomes
from pctfuzz.checks.registry.lookup import divergences_for
from pctfuzz.outcome import case_text

__all__ = ["render_markdown"]


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(impl: str | Iterable[str] | None = None, *, outcomes: bool = False) -> str:
    """The registry as a Markdown table (entries for ``impl`` names only, if given). With
    ``outcomes``, each row also shows both answers on the pinned example (this runs
    the implementations, so they must be installed)."""
    rows = divergences_for(impl)
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
