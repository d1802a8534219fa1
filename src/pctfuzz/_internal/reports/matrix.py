"""The conformance matrix of ``pctfuzz matrix`` (``fuzz.matrix.MatrixRun``), as
Markdown and as one HTML page.

Both lead with what to fix: the counts (``matrix_counts``, the same that the terminal
prints, in the same words: ``counts_text``), then the findings, then the rows of the
implementations with a bug somewhere. The others (they agree, or differ only as
accepted) are named in ``matrix.md`` and folded below the table in ``matrix.html``;
``all_rows`` (``pctfuzz matrix --all-rows``) puts every row in the table.

Rows are implementations (with language and version), columns the operations (encode
over every set the implementation was asked; a second table breaks encode down by
set), then one per dated change of the standard's sets (``reports.matrix_changes``:
``new``, ``old``, ``other`` or ``n/a``, asked of the implementation). A cell reads ``agree`` (every
answered case equals the reference's), ``accepted N`` (differences that registry
entries explain, each entry linked to its row in the accepted-differences table) or
``bugs N`` (each linked to its finding: the minimized case, both answers, the record's
file). A second table lists the pairs of implementations that answered one case
differently: the confusion of a stack that uses both on one input.

The cases are fuzzer output, the names and versions of peers their handshake's, the
accepted entries an accept file's: data. The Markdown holds every such value in a code
span (``reports.markdown``), never as Markdown; the HTML loads nothing (``default-src
'none'``, inline style) and escapes every value, as ``reports.html`` does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pctfuzz._internal.fuzz.matrix import Cell, Confusion, MatrixRun
from pctfuzz._internal.operations import OPERATIONS as _OPERATIONS
from pctfuzz._internal.reports import matrix_changes
from pctfuzz._internal.reports.html import _h
from pctfuzz._internal.reports.markdown import code_span
from pctfuzz._internal.spec_changes import CHANGES

__all__ = ["OPERATIONS", "MatrixCounts", "counts_text", "failing_impls", "matrix_counts",
           "operation_cells", "render_matrix_html", "render_matrix_markdown"]

#: The matrix's columns, in order.
OPERATIONS = tuple(op.name for op in _OPERATIONS)


def _version(run: MatrixRun, impl: str) -> str:
    """The version without the implementation's own name before it (a peer reports
    ``php-rawurlencode 8.2.36``); a distribution of another name stays (``yarl 1.25.1``
    for yarl-c)."""
    version = run.versions.get(impl, "")
    return version[len(impl) + 1:] if version.startswith(impl + " ") else version


def _entry_text(run: MatrixRun, ident: str) -> tuple[str, str]:
    """(summary, citation) of an accepted entry (the registry's or an adapter's own)."""
    return run.entries.get(ident, ("(an entry this run did not load)", ""))


def _merged(cells: Iterable[Cell]) -> Cell:
    out = Cell(0, Counter(), Counter())
    for cell in cells:
        out.agree += cell.agree
        out.accepted.update(cell.accepted)
        out.bugs.update(cell.bugs)
    return out


def operation_cells(run: MatrixRun) -> dict[tuple[str, str], Cell]:
    """(implementation, operation) -> its cells merged (encode: over every set)."""
    merged: dict[tuple[str, str], list[Cell]] = {}
    for (impl, column), cell in run.cells.items():
        merged.setdefault((impl, column.split(" ")[0]), []).append(cell)
    return {key: _merged(cells) for key, cells in merged.items()}


def _encode_rows(run: MatrixRun) -> list[tuple[str, str, Cell]]:
    return sorted(((impl, col.partition(" ")[2], cell) for (impl, col), cell in run.cells.items()
                   if col.startswith("encode ")),
                  key=lambda r: (run.impls.index(r[0]) if r[0] in run.impls else 0, r[1]))


def _status(cell: Cell | None) -> str:
    if cell is None or cell.answered == 0:
        return "none"
    if cell.bugs:
        return "bug"
    return "accepted" if cell.accepted else "agree"


@dataclass(frozen=True)
class MatrixCounts:
    """What a matrix run found, counted once for the terminal and both pages."""

    implementations: int
    inputs: int
    #: implementation-by-operation cells (encode over every set), by status
    agree: int
    accepted: int
    bug: int
    #: the implementations with a bug in some cell (``failing_impls``)
    failing: int
    findings: int
    pairs: int


def failing_impls(run: MatrixRun) -> list[str]:
    """The implementations with a bug in some cell, in the run's order: the rows a
    page shows by default."""
    failing = {impl for (impl, _column), cell in run.cells.items() if cell.bugs}
    return [impl for impl in run.impls if impl in failing]


def matrix_counts(run: MatrixRun) -> MatrixCounts:
    """The counts ``pctfuzz matrix`` prints and both pages show (``counts_text``)."""
    statuses = Counter(_status(cell) for cell in operation_cells(run).values())
    return MatrixCounts(
        implementations=len(run.impls), inputs=sum(run.inputs.values()),
        agree=statuses["agree"], accepted=statuses["accepted"], bug=statuses["bug"],
        failing=len(failing_impls(run)), findings=len(run.findings),
        pairs=len(run.confusions))


def counts_text(counts: MatrixCounts) -> str:
    """The counts in one sentence: the terminal's line and the pages' summary."""
    cells = counts.agree + counts.accepted + counts.bug
    return (f"{counts.failing} of {counts.implementations} implementations with bugs "
            f"({counts.inputs} inputs); {cells} implementation-by-operation cells: "
            f"{counts.bug} with bugs, {counts.accepted} with accepted differences only, "
            f"{counts.agree} agree; {counts.findings} finding(s); {counts.pairs} "
            "disagreeing pair(s)")


def _rows(run: MatrixRun, all_rows: bool) -> tuple[list[str], list[str]]:
    """(shown, hidden) implementations: those with a bug first, then those whose peer
    failed mid-run; the others shown only with ``all_rows``."""
    failing = failing_impls(run)
    failing += [impl for impl in run.impls if impl in run.incomplete and impl not in failing]
    rest = [impl for impl in run.impls if impl not in failing]
    return (failing + rest, []) if all_rows else (failing, rest)


#: Disagreeing pairs shown before the rest is folded away (most inputs first).
_SHOWN = 40


def _ranked(run: MatrixRun) -> list[tuple[tuple[str, str, str], Confusion]]:
    return sorted(run.confusions.items(), key=lambda kv: (-kv[1].count, kv[0]))


def _anchor(kind: str, ident: str) -> str:
    return f"{kind}-" + "".join(c if c.isalnum() or c == "-" else "_" for c in ident)


# --- Markdown -------------------------------------------------------------------------------
def _md(text: object) -> str:
    """A value in a table cell (module docstring)."""
    return code_span(text, table=True)


def _md_cell(cell: Cell | None) -> str:
    status = _status(cell)
    if cell is None or status == "none":
        return ""
    parts = [f"{cell.agree} agree"] if cell.agree else []
    if cell.accepted:
        links = ", ".join(f"[{_md(i)}](#{_anchor('entry', i)})" for i in sorted(cell.accepted))
        parts.append(f"accepted {sum(cell.accepted.values())} ({links})")
    if cell.bugs:
        links = ", ".join(f"[{_md(i)}](#{_anchor('finding', i)})" for i in sorted(cell.bugs))
        parts.append(f"**bugs {sum(cell.bugs.values())}** ({links})")
    return "; ".join(parts)


def _findings_order(run: MatrixRun) -> list[tuple[str, dict[str, object]]]:
    """The findings by row (the run's order of implementations), then by id."""
    order = {impl: index for index, impl in enumerate(run.impls)}
    return sorted(run.findings.items(),
                  key=lambda kv: (order.get(str(kv[1]["impl"]), len(order)), kv[0]))


def _inputs_text(run: MatrixRun) -> str:
    return (f"Inputs by target: {', '.join(f'{t} {n}' for t, n in sorted(run.inputs.items()))}"
            f", in {run.seconds:.0f} s; the reference answered {run.reference_answers} cases, "
            "once each.")


def render_matrix_markdown(run: MatrixRun, languages: Mapping[str, str], *,
                           all_rows: bool = False) -> str:
    """The matrix as Markdown (module docstring): the findings first, then the rows of
    the implementations with a bug (``all_rows``: every implementation's)."""
    cells = operation_cells(run)
    shown, hidden = _rows(run, all_rows)
    lines = [
        "# Conformance matrix",
        "",
        f"{counts_text(matrix_counts(run))}.",
        "",
        _inputs_text(run),
        "",
        "## Findings",
        "",
    ]
    for ident, f in _findings_order(run):
        lines.append(f'- <a id="{_anchor("finding", ident)}"></a>{code_span(ident)} '
                     f"{code_span(f['impl'])} {code_span(f['kind'])}: {code_span(f['case'])} "
                     f"expected {code_span(f['expected'])}, got {code_span(f['actual'])} "
                     f"({code_span(f['file'])})")
    if not run.findings:
        lines.append("None: no implementation has a bug.")
    incomplete = run.incomplete
    if incomplete:
        lines[2] += (f" **Incomplete: {len(incomplete)} implementation(s) whose peer failed "
                     "mid-run** (see [Incomplete](#incomplete)).")
    lines += ["", "## Implementations" if all_rows else "## Implementations with bugs", "",
              "| implementation | language | version | "
              + " | ".join([*OPERATIONS, *matrix_changes.markdown_headers()]) + " |",
              "|---|---|---|" + "---|" * (len(OPERATIONS) + len(CHANGES))]
    for impl in shown:
        row = [_md_cell(cells.get((impl, op))) for op in OPERATIONS]
        row += matrix_changes.markdown_cells(run, impl)
        mark = " **incomplete**" if impl in incomplete else ""
        lines.append(f"| {_md(impl)}{mark} | {_md(languages.get(impl, ''))} | "
                     f"{_md(_version(run, impl))} | " + " | ".join(row) + " |")
    if hidden:
        lines += ["", f"{len(hidden)} implementations with no bug (they agree, or differ "
                  f"only as accepted) are not shown: {', '.join(code_span(i) for i in hidden)}"
                  ". `pctfuzz matrix --all-rows` shows every row."]
    lines += ["", *matrix_changes.changes_markdown_section(run)]
    lines += ["", "## Encode by set", "", "| implementation | set | cases |", "|---|---|---|"]
    for impl, set_name, cell in _encode_rows(run):
        if impl in shown:
            lines.append(f"| {_md(impl)} | {_md(set_name)} | {_md_cell(cell)} |")
    lines += ["", "## Implementations that disagree with each other", ""]
    if run.confusions:
        lines += ["| operation | implementations | inputs | first case | answers |",
                  "|---|---|---|---|---|"]
        ranked = _ranked(run)
        for (col, a, b), conf in ranked[:_SHOWN]:
            lines.append(f"| {_md(col)} | {_md(a)} / {_md(b)} | {conf.count} | "
                         f"{_md(conf.case)} | {_md(conf.answers[0])} / "
                         f"{_md(conf.answers[1])} |")
        if len(ranked) > _SHOWN:
            lines.append(f"\n{len(ranked) - _SHOWN} more pairs (matrix.html lists them all).")
    else:
        lines.append("None: every pair asked the same case answered the same.")
    used = sorted({i for cell in run.cells.values() for i in cell.accepted})
    lines += ["", "## Accepted differences", ""]
    for ident in used:
        summary, citation = _entry_text(run, ident)
        lines.append(f'- <a id="{_anchor("entry", ident)}"></a>{code_span(ident)}: '
                     f"{code_span(summary)}" + (f" Cited: {code_span(citation)}"
                                                if citation else ""))
    if incomplete:
        lines += ["", '<a id="incomplete"></a>', "## Incomplete", "",
                  "Each implementation whose peer failed mid-run: its cells count only "
                  "what it answered.", ""]
        lines += [f"- {code_span(impl)}: peer failed: {code_span(why)}"
                  for impl, reasons in incomplete.items() for why in reasons[:10]]
    if run.lost:
        lines += ["", "## Lost", ""] + [f"- {code_span(x)}" for x in run.lost[:50]]
    return "\n".join(lines) + "\n"


# --- HTML -----------------------------------------------------------------------------------
_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f0f0f0;font-size:12px}
td.agree{background:#dff3df}td.accepted{background:#fff3cc}td.bug{background:#f8d0d0}
td.none{background:#fafafa;color:#aaa}
code{font:12px/1.3 ui-monospace,monospace;word-break:break-all}
.legend span{padding:2px 8px;margin-right:6px;border:1px solid #ccc}
thead th{position:sticky;top:0}
td.n{text-align:right}td.nowrap,code.id{white-space:nowrap;word-break:normal}
.total{font-weight:600}.links{font-size:12px;color:#555}
.lead{font-size:15px;font-weight:600}
.incomplete{color:#a00;font-weight:600}
"""


def _html_cell(cell: Cell | None) -> str:
    status = _status(cell)
    if cell is None or status == "none":
        return '<td class="none">-</td>'
    parts = [f"{cell.agree} agree"] if cell.agree else []
    for kind, label, counted in (("entry", "accepted", cell.accepted),
                                 ("finding", "bugs", cell.bugs)):
        if counted:
            # the total, then one link per entry or finding: its cases, its id on hover
            links = " · ".join(f'<a href="#{_anchor(kind, i)}" title="{_h(i)}">{n}</a>'
                               for i, n in sorted(counted.items()))
            parts.append(f"<span class='total'>{label} {sum(counted.values())}</span> "
                         f"<span class='links'>({links})</span>")
    return f'<td class="{status}">' + "<br>".join(parts) + "</td>"


def _html_rows(run: MatrixRun, impls: Iterable[str], languages: Mapping[str, str],
               cells: Mapping[tuple[str, str], Cell]) -> str:
    """The matrix table with one row per implementation of ``impls``."""
    out = ["<table><thead><tr><th>implementation</th><th>language</th><th>version</th>"
           + "".join(f"<th>{op}</th>" for op in OPERATIONS) + matrix_changes.html_headers()
           + "</tr></thead>"]
    for impl in impls:
        mark = ("<br><span class='incomplete'>incomplete</span>" if impl in run.incomplete
                else "")
        out.append(f"<tr><th>{_h(impl)}{mark}</th><td>{_h(languages.get(impl, ''))}</td>"
                   f"<td>{_h(_version(run, impl))}</td>"
                   + "".join(_html_cell(cells.get((impl, op))) for op in OPERATIONS)
                   + matrix_changes.html_cells(run, impl) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def render_matrix_html(run: MatrixRun, languages: Mapping[str, str], *,
                       all_rows: bool = False) -> str:
    """The matrix as one HTML page (module docstring): the findings first, then the
    rows of the implementations with a bug, the others folded below them
    (``all_rows``: every row in the table)."""
    cells = operation_cells(run)
    shown, hidden = _rows(run, all_rows)
    out = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        "<meta http-equiv='Content-Security-Policy' "
        "content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>pctfuzz conformance matrix</title><style>{_CSS}</style></head><body>",
        "<h1>Conformance matrix</h1>",
        f"<p class='lead'>{_h(counts_text(matrix_counts(run)))}.</p>",
        f"<p>{_h(_inputs_text(run))}</p>",
    ]
    if run.incomplete:
        out.append(f"<p class='incomplete'>Incomplete: {len(run.incomplete)} "
                   "implementation(s) whose peer failed mid-run (<a href='#incomplete'>why</a>);"
                   " their cells count only what they answered.</p>")
    out.append(f"<h2 id='findings'>Findings ({len(run.findings)})</h2>")
    if run.findings:
        out.append("<table><tr><th>finding</th><th>implementation</th>"
                   "<th>case (minimized)</th><th>expected</th><th>actual</th><th>record</th>"
                   "</tr>")
        for ident, f in _findings_order(run):
            out.append(f"<tr id='{_anchor('finding', ident)}'><td><code class='id'>{_h(ident)}"
                       f"</code><br>"
                       f"{_h(f['kind'])}</td><td>{_h(f['impl'])}</td>"
                       f"<td><code>{_h(f['case'])}</code></td>"
                       f"<td><code>{_h(f['expected'])}</code></td>"
                       f"<td><code>{_h(f['actual'])}</code></td>"
                       f"<td><code>{_h(f['file'])}</code></td></tr>")
        out.append("</table>")
    else:
        out.append("<p>None: no implementation has a bug.</p>")
    out += [
        f"<h2 id='matrix'>{'Implementations' if all_rows else 'Implementations with bugs'} "
        f"({len(shown)} of {len(run.impls)})</h2>",
        "<p class='legend'><span class='agree' style='background:#dff3df'>agree</span>"
        "<span style='background:#fff3cc'>accepted differences (linked)</span>"
        "<span style='background:#f8d0d0'>bugs (linked to findings)</span>"
        "<span style='background:#fafafa'>- not asked</span></p>",
        _html_rows(run, shown, languages, cells),
    ]
    if hidden:
        out.append(f"<details><summary>{len(hidden)} implementations with no bug (they "
                   "agree, or differ only as accepted); <code>pctfuzz matrix --all-rows</code> "
                   "puts every row in the table above</summary>"
                   + _html_rows(run, hidden, languages, cells) + "</details>")
    out.append(matrix_changes.html_section(run))
    out.append("<details><summary>Encode by set</summary><table><tr>"
               "<th>implementation</th><th>set</th><th>cases</th></tr>")
    for impl, set_name, cell in _encode_rows(run):
        out.append(f"<tr><td>{_h(impl)}</td><td><code>{_h(set_name)}</code></td>"
                   f"{_html_cell(cell)}</tr>")
    out.append("</table></details><h2>Implementations that disagree with each other</h2>")
    if run.confusions:
        out.append("<table><tr><th>operation</th><th>implementations</th><th>inputs</th>"
                   "<th>first case</th><th>answers</th></tr>")
        for rank, ((col, a, b), conf) in enumerate(_ranked(run)):
            if rank == _SHOWN:
                out.append("</table><details><summary>more pairs</summary><table>")
            out.append(f"<tr><td class='nowrap'>{_h(col)}</td>"
                       f"<td class='nowrap'>{_h(a)}<br>{_h(b)}</td>"
                       f"<td class='n'>{conf.count}</td><td><code>{_h(conf.case)}</code></td>"
                       f"<td><code>{_h(conf.answers[0])}</code><br>"
                       f"<code>{_h(conf.answers[1])}</code></td></tr>")
        out.append("</table>" + ("</details>" if len(run.confusions) > _SHOWN else ""))
    else:
        out.append("<p>None: every pair asked the same case answered the same.</p>")
    out.append("<h2>Accepted differences</h2><table><tr><th>entry</th><th>summary</th>"
               "<th>citation</th></tr>")
    for ident in sorted({i for cell in run.cells.values() for i in cell.accepted}):
        summary, citation = _entry_text(run, ident)
        out.append(f"<tr id='{_anchor('entry', ident)}'><td><code class='id'>{_h(ident)}"
                   f"</code></td><td>{_h(summary)}</td><td>{_h(citation)}</td></tr>")
    out.append("</table>")
    if run.incomplete:
        out.append("<h2 id='incomplete'>Incomplete</h2><ul>" + "".join(
            f"<li><code>{_h(impl)}</code>: peer failed: <code>{_h(why)}</code></li>"
            for impl, reasons in run.incomplete.items() for why in reasons[:10]) + "</ul>")
    if run.lost:
        out.append("<h2>Lost</h2><ul>" + "".join(f"<li>{_h(x)}</li>" for x in run.lost[:50])
                   + "</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
