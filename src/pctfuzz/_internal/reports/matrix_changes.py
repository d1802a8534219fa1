"""The matrix's change columns: for each of the URL Standard's dated set changes
(``spec_changes.CHANGES``), which side each implementation is on (``fuzz.follows``),
as the terminal's lines, the pages' columns and section, and the JSON's entries; and
the facts of the changes as the table of docs/peers.md. The pages name a change's pull
request as text (``whatwg/url#846``), as they link nowhere but within themselves; the
JSON and the docs give its address.

A cell reads ``new`` (it encodes as the standard does now), ``old`` (as before the
change), ``other`` (neither: its answer is on hover or in the JSON) or ``n/a`` (no
function for that set, or it applies whatever set it is given). The answers are an
implementation's output: data, escaped in the HTML and held in code spans in the
Markdown, as ``reports.matrix`` holds every value.
"""

from __future__ import annotations

from typing import Any

from pctfuzz._internal.fuzz.follows import SIDES, Follows
from pctfuzz._internal.fuzz.matrix import MatrixRun
from pctfuzz._internal.reports.html import _h
from pctfuzz._internal.reports.markdown import code_span
from pctfuzz._internal.spec_changes import CHANGES, SetChange

__all__ = ["changes_json", "changes_lines", "changes_markdown_section", "changes_table",
           "html_cells", "html_headers", "html_section", "markdown_cells",
           "markdown_headers"]

_MEANING = {
    "new": "encodes as the standard does since the change",
    "old": "encodes as the standard did before it",
    "other": "neither (its answer is shown)",
    "n/a": "not asked: no function for that set, or it applies whatever set it is given",
}


def _heading(change: SetChange) -> str:
    return f"{change.label} ({change.merged[:4]})"


def _pr(change: SetChange) -> str:
    """``whatwg/url#846`` from the pull request's address."""
    owner_repo, _, number = change.pull.removeprefix("https://github.com/").partition("/pull/")
    return f"{owner_repo}#{number}"


def _side(run: MatrixRun, impl: str, change: SetChange) -> Follows:
    return run.changes.get(impl, {}).get(change.id, Follows("n/a", "not asked"))


def _by_side(run: MatrixRun, change: SetChange) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {side: [] for side in SIDES}
    for impl in run.impls:
        out[_side(run, impl, change).side].append(impl)
    return out


# --- terminal ---------------------------------------------------------------------------------
def changes_lines(run: MatrixRun) -> list[str]:
    """One line per change: the implementations on each side (``n/a`` counted only)."""
    lines = []
    for change in CHANGES:
        groups = _by_side(run, change)
        parts = [f"{side} {len(groups[side])} ({', '.join(groups[side])})"
                 for side in ("new", "old", "other") if groups[side]]
        parts.append(f"n/a {len(groups['n/a'])}")
        lines.append(f"{_heading(change)}, {_pr(change)}: " + "; ".join(parts))
    return lines


# --- JSON -------------------------------------------------------------------------------------
def changes_json(run: MatrixRun) -> list[dict[str, Any]]:
    """Each change's facts and every implementation's side and answer."""
    return [{"id": change.id, "set": change.set_name, "character": change.character,
             "added": change.added, "merged": change.merged, "pull": change.pull,
             "commit": change.commit, "probe": change.probe,
             "new": change.answer(), "old": change.answer(old=True),
             "implementations": {impl: {"side": f.side, "answer": f.answer}
                                 for impl in run.impls
                                 for f in (_side(run, impl, change),)}}
            for change in CHANGES]


# --- Markdown -----------------------------------------------------------------------------
def markdown_headers() -> list[str]:
    return [f"[{c.set_name} {code_span(c.character, table=True)} ({c.merged[:4]})]"
            f"(#change-{c.id})" for c in CHANGES]


def markdown_cells(run: MatrixRun, impl: str) -> list[str]:
    cells = []
    for change in CHANGES:
        found = _side(run, impl, change)
        cells.append(f"other: {code_span(found.answer, table=True)}" if found.side == "other"
                     else found.side)
    return cells


def changes_markdown_section(run: MatrixRun) -> list[str]:
    """The section under the table: each change's facts, then who is on which side."""
    lines = ["## The standard's changes", "",
             "Each implementation encodes the probe with the changed set through its "
             "adapter: " + "; ".join(f"`{s}` {m}" for s, m in _MEANING.items()) + ".", ""]
    for change in CHANGES:
        groups = _by_side(run, change)
        sides_text = [f"**{side}**: {', '.join(code_span(i) for i in groups[side])}"
                      for side in ("new", "old", "other") if groups[side]]
        lines.append(f'- <a id="change-{change.id}"></a>{_fact(change)}. '
                     + "; ".join([*sides_text, f"**n/a**: {len(groups['n/a'])}"]))
    return lines


def _fact(change: SetChange) -> str:
    others = ", ".join("space" if c == " " else code_span(c) for c in change.added[1:])
    return (f"{code_span(change.character)}{f' (with {others})' if others else ''} joined "
            f"the {change.set_name} percent-encode set "
            f"on {change.merged} ({_pr(change)}), probe "
            f"{code_span(change.probe)} (new side {code_span(change.answer())}, old side "
            f"{code_span(change.answer(old=True))})")


def changes_table() -> str:
    """The facts of ``CHANGES`` as the Markdown table of docs/peers.md."""
    rows = ["| set | character | added | merged | pull request | probe: new / old | tracked in |",
            "|---|---|---|---|---|---|---|"]
    for change in CHANGES:
        tracked = ", ".join(f"[{_link_text(url)}]({url})" for url in change.tracking)
        added = " ".join(code_span(c, table=True) if c != " " else "space"
                         for c in change.added)
        rows.append(f"| {change.set_name} | {code_span(change.character, table=True)} | "
                    f"{added} | {change.merged} | [{_pr(change)}]({change.pull}) | "
                    f"{code_span(change.answer(), table=True)} / "
                    f"{code_span(change.answer(old=True), table=True)} | {tracked} |")
    return "\n".join(rows) + "\n"


def _link_text(url: str) -> str:
    """``servo/rust-url#1140`` for a GitHub issue, ``WebKit bug 289083`` for WebKit's."""
    if url.startswith("https://github.com/"):
        owner_repo, _, number = url.removeprefix("https://github.com/").partition("/issues/")
        return f"{owner_repo}#{number}"
    return f"WebKit bug {url.rpartition('=')[2]}"


# --- HTML ---------------------------------------------------------------------------------
def html_headers() -> str:
    return "".join(f"<th><a href='#change-{c.id}'>{_h(_heading(c))}</a></th>" for c in CHANGES)


def html_cells(run: MatrixRun, impl: str) -> str:
    cells = []
    for change in CHANGES:
        found = _side(run, impl, change)
        css = {"new": "agree", "old": "accepted", "other": "bug"}.get(found.side, "none")
        cells.append(f"<td class='{css}' title='{_h(found.answer)}'>{_h(found.side)}</td>")
    return "".join(cells)


def html_section(run: MatrixRun) -> str:
    rows = ["<h2 id='changes'>The standard's changes</h2><p>Each implementation encodes the "
            "probe with the changed set through its adapter: "
            + "; ".join(f"<b>{_h(s)}</b> {_h(m)}" for s, m in _MEANING.items())
            + ".</p><table><tr><th>change</th>"
            + "".join(f"<th>{side}</th>" for side in SIDES) + "</tr>"]
    for change in CHANGES:
        groups = _by_side(run, change)
        rows.append(
            f"<tr id='change-{change.id}'><td><code>{_h(change.character)}</code> joined the "
            f"{_h(change.set_name)} set on {_h(change.merged)} ({_h(_pr(change))}); probe "
            f"<code>{_h(change.probe)}</code>: new "
            f"<code>{_h(change.answer())}</code>, old <code>{_h(change.answer(old=True))}"
            "</code></td>"
            + "".join(f"<td>{', '.join(_h(i) for i in groups[side])}</td>"
                      if side != "n/a" else f"<td class='n'>{len(groups[side])}</td>"
                      for side in SIDES) + "</tr>")
    rows.append("</table>")
    return "\n".join(rows)
