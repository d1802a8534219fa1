"""The rule catalogue's text, written from ``reconcilers.CATALOGUE``: one home per rule.

A rule is its maker in its family's module of ``accept/reconcilers/``: its name,
parameters and optional keys are the maker's signature, what it accepts is its
docstring, where it applies and what it means are its ``@rule(checks, impact)``.
Everything else that lists the rules is written from there by ``make docs``
(``python -m pctfuzz._internal.accept.catalogue_text``), between marker lines:

- docs/adapters.md, the table of reconcilers (``rules-table``);
- docs/api.md, the rules in ``pctfuzz.accept``'s list of names (``rules-list``);
- ``pctfuzz.accept``, the names it imports and exports (``rules-import``,
  ``rules-all``).

``tests/unit/test_docs.py`` fails when one of them is not what this module writes.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from pathlib import Path

from pctfuzz._internal.accept.impact import rule_impact_text
from pctfuzz._internal.accept.reconcilers import CATALOGUE, CatalogueEntry
from pctfuzz._internal.operations import OPERATIONS

__all__ = ["FILES", "regions", "rewrite", "stale"]

_WHY = "make docs writes it from the rule catalogue"


def _doc(entry: CatalogueEntry) -> str:
    """The maker's docstring as one line of Markdown (``code`` in single backticks)."""
    text = " ".join(inspect.getdoc(entry.maker).split())  # type: ignore[union-attr]
    return text.replace("``", "`")


def _call(entry: CatalogueEntry) -> str:
    """``name(param[, optional...])``, as a TOML entry gives its keys."""
    keys = ([entry.param] if entry.param else []) + [f"{key}=" for key in entry.optional]
    return f"{entry.name}({', '.join(keys)})"


def _first_sentence(text: str) -> str:
    """Up to the first full stop that ends a sentence (outside parentheses)."""
    depth = 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "." and depth == 0 and text[i + 1:i + 2] in (" ", ""):
            return text[:i + 1]
    return text


def rules_table() -> str:
    """docs/adapters.md: a row per rule."""
    rows = ["| reconciler (TOML name and keys) | checks | impact | the implementation… |",
            "|---|---|---|---|"]
    for entry in CATALOGUE.values():
        checks = ("any" if set(entry.checks) == set(OPERATIONS)
                  else ", ".join(op.name for op in entry.checks))
        cell = _doc(entry).replace("|", "\\|")  # (a | would end the cell)
        impact = rule_impact_text(entry.name)
        rows.append(f"| `{_call(entry)}` | {checks} | {impact} | {cell} |")
    return "\n".join(rows) + "\n"


def rules_list() -> str:
    """docs/api.md: a line per rule, its docstring's first sentence."""
    return "".join(f"- `{name}`: {_first_sentence(_doc(entry))}\n"
                   for name, entry in sorted(CATALOGUE.items()))


def rules_import() -> str:
    """The import of every maker, for ``pctfuzz.accept`` (a blank line after it, as
    ruff's isort wants before the closing marker)."""
    names = "".join(f"    {name},\n" for name in sorted(CATALOGUE))
    return f"from pctfuzz._internal.accept.reconcilers import (\n{names})\n\n"


def rules_all() -> str:
    """The makers' names added to ``pctfuzz.accept.__all__``."""
    names = "".join(f'    "{name}",\n' for name in sorted(CATALOGUE))
    return f"__all__ += [\n{names}]\n"


_MD = ("<!-- {region}: " + _WHY + " -->\n", "<!-- /{region} -->\n")
_PY = ("# {region}: " + _WHY + "\n", "# /{region}\n")

#: Each file written from the catalogue (relative to the repository's root), its
#: regions, what each holds, and its marker lines.
FILES: dict[str, tuple[tuple[str, Callable[[], str], tuple[str, str]], ...]] = {
    "docs/adapters.md": (("rules-table", rules_table, _MD),),
    "docs/api.md": (("rules-list", rules_list, _MD),),
    "src/pctfuzz/accept.py": (("rules-import", rules_import, _PY),
                              ("rules-all", rules_all, _PY)),
}


def regions(path: str, text: str) -> str:
    """``text`` (the file ``path``) with each of its regions written anew. A missing
    marker is an error: the file would silently fall out of step."""
    for region, body, (start, end) in FILES[path]:
        start, end = start.format(region=region), end.format(region=region)
        if text.count(start) != 1 or text.count(end) != 1 or text.index(end) < text.index(start):
            raise ValueError(f"{path}: no single region {region!r} ({start.strip()!r})")
        before, rest = text.split(start)
        text = before + start + body() + end + rest.split(end)[1]
    return text


def stale(root: Path) -> list[str]:
    """The files under ``root`` whose regions are not what the catalogue writes."""
    return [path for path in FILES
            if regions(path, (root / path).read_text("utf-8"))
            != (root / path).read_text("utf-8")]


def rewrite(root: Path) -> list[str]:
    """Write every region under ``root``; the files that changed."""
    changed = stale(root)
    for path in changed:
        file = root / path
        file.write_text(regions(path, file.read_text("utf-8")), "utf-8")
    return changed


if __name__ == "__main__":  # make docs
    for written in rewrite(Path(sys.argv[1] if len(sys.argv) > 1 else ".")):
        print(f"wrote {written}")
