"""The rendered divergence registry in docs/ matches the registry in the code."""

from __future__ import annotations

from pathlib import Path

from pctfuzz.checks.registry.render import render_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "divergences.md"


def test_rendered_registry_is_current() -> None:
    text = DOC.read_text("utf-8")
    assert render_markdown() in text, "docs/divergences.md is stale: run `make docs`"
