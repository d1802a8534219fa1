"""The rendered divergence registry in docs/ matches the registry in the code."""

from __future__ import annotations

from pathlib import Path

from pctfuzz.checks.registry.render import (
    ADAPTERS_HEADING,
    adapter_entries,
    docs_text,
    render_markdown,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "divergences.md"


def test_rendered_registry_is_current() -> None:
    text = DOC.read_text("utf-8")
    assert render_markdown() in text, "docs/divergences.md is stale: run `make docs`"


def test_the_adapters_own_entries_are_rendered_too() -> None:
    """requests, werkzeug, hyperlink, ... declare entries on the adapter (the user's
    API); docs/divergences.md shows them after the registry, every one of them."""
    text = DOC.read_text("utf-8")
    entries = adapter_entries()
    assert {e.impl for e in entries} >= {"requests", "werkzeug", "hyperlink", "boltons"}
    head = text.split("| id |")[0]
    assert text == docs_text(head), "docs/divergences.md is stale: run `make docs`"
    for entry in entries:
        assert f"`{entry.id}`" in text.split(ADAPTERS_HEADING)[1]
