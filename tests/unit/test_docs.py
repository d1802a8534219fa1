"""The rendered divergence registry in docs/ matches the registry in the code."""

from __future__ import annotations

from pathlib import Path

from pctfuzz._internal.checks.registry.render import (
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


def test_cli_reference_is_current() -> None:
    """docs/cli.md is every command's ``--help`` (tests/support/cli_doc.py renders it)."""
    import cli_doc

    assert cli_doc.DOC.read_text("utf-8") == cli_doc.render(), \
        "docs/cli.md is stale: run `make docs`"


def test_cli_reference_names_every_command() -> None:
    from pctfuzz._internal.cli.main import build_parser

    text = (DOC.parent / "cli.md").read_text("utf-8")
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for name in commands:
        assert f"## `pctfuzz {name}`" in text


def test_exit_codes_are_one_enum_with_the_documented_values() -> None:
    """Exit codes: ``ExitCode`` in the code, docs/guide.md's table in the docs (the
    other places point at these two, and ``pctfuzz --help`` is rendered from the enum)."""
    import re

    from pctfuzz._internal.cli.main import build_parser
    from pctfuzz._internal.exits import ExitCode

    values = {code.name: code.value for code in ExitCode}
    assert values == {"OK": 0, "FOUND": 1, "USAGE": 2, "INCOMPLETE": 3, "INTERNAL": 4,
                      "SIGHUP": 129, "SIGINT": 130, "SIGTERM": 143}
    guide = (DOC.parent / "guide.md").read_text("utf-8")
    table = guide[guide.index("**Exit codes**"):].split("\n\n")[1]
    documented = {int(n) for row in table.splitlines()[2:]
                  for n in re.findall(r"\d+", row.split("|")[1])}
    assert documented == set(values.values())
    assert " ".join(build_parser().format_help().split()).endswith(
        "129/130/143 stopped by SIGHUP/SIGINT/SIGTERM.")


def test_the_docs_name_the_public_line_only() -> None:
    """Issue 35.6: no doc names the internal package; a contributor's module is named
    by its path inside it (docs/architecture.md), a user's by its public module."""
    root = DOC.parents[1]
    for path in [root / "README.md", *sorted(DOC.parent.glob("*.md"))]:
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            assert "_internal" not in line, f"{path.name}:{number}: {line}"


def test_what_lists_the_rules_is_written_from_the_catalogue() -> None:
    """docs/adapters.md's table of reconcilers, docs/api.md's list of them and the names
    the accept modules export are what ``make docs`` writes from ``CATALOGUE`` (a rule
    missing from ``pctfuzz.accept`` shipped once; ``cut_at`` had no row)."""
    from pctfuzz._internal.accept.catalogue_text import stale

    assert stale(DOC.parents[1]) == [], "run make docs"


def test_each_rule_of_the_catalogue_is_described_and_has_an_impact() -> None:
    """Every ``@rule`` applies to some check and has an impact a finding can carry, a
    word or a function of its parameters that answers one and says which (its
    docstring, its row, ``rule`` asserts)."""
    from pctfuzz._internal.accept.impact import rule_impact_text
    from pctfuzz._internal.accept.meaning import IMPACTS
    from pctfuzz._internal.accept.reconcilers import CATALOGUE

    for name, entry in CATALOGUE.items():
        if callable(entry.impact):
            assert entry.impact({}) in IMPACTS, name
        else:
            assert entry.impact in IMPACTS, name
        assert entry.checks, name
        assert any(impact in rule_impact_text(name) for impact in IMPACTS), name


def test_each_rule_is_given_by_the_package_from_its_familys_list() -> None:
    """A maker is re-exported from its family's ``__all__`` (the package lists no rule
    by hand: a new rule touches its family module only, not the package as well)."""
    from pctfuzz._internal.accept import reconcilers

    for name, entry in reconcilers.CATALOGUE.items():
        family = __import__(entry.maker.__module__, fromlist=["__all__"])
        assert entry.maker.__name__ in family.__all__, name
        assert getattr(reconcilers, entry.maker.__name__) is entry.maker, name
