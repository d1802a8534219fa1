"""The conformance matrix of ``pctfuzz matrix`` (``fuzz.matrix.MatrixRun``), as
Markdown and as one HTML page.

Rows are implementations (with language and version), columns the operations (encode
over every set the implementation was asked; a second table breaks encode down by
set). A cell reads ``agree`` (every
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

from pctfuzz._internal.fuzz.matrix import Cell, Confusion, MatrixRun
from pctfuzz._internal.operations import OPERATIONS as _OPERATIONS
from pctfuzz._internal.reports.html import _h
from pctfuzz._internal.reports.markdown import code_span

__all__ = ["OPERATIONS", "operation_cells", "render_matrix_html", "render_matrix_markdown"]

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


def _summary(run: MatrixRun) -> dict[str, int]:
    counts = {"agree": 0, "accepted": 0, "bug": 0}
    for cell in operation_cells(run).values():
        status = _status(cell)
        if status in counts:
            counts[status] += 1
    return counts


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


def render_matrix_markdown(run: MatrixRun, languages: Mapping[str, str]) -> str:
    """The matrix as Markdown (module docstring)."""
    cells = operation_cells(run)
    counts = _summary(run)
    lines = [
        "# Conformance matrix",
        "",
        f"{len(run.impls)} implementations, {sum(run.inputs.values())} inputs "
        f"({', '.join(f'{t} {n}' for t, n in sorted(run.inputs.items()))}) in "
        f"{run.seconds:.0f} s; the reference answered {run.reference_answers} cases once each. "
        f"Implementation-by-operation cells: {counts['agree']} agree, {counts['accepted']} with "
        f"accepted differences only, {counts['bug']} with bugs.",
        "",
        "| implementation | language | version | " + " | ".join(OPERATIONS) + " |",
        "|---|---|---|" + "---|" * len(OPERATIONS),
    ]
    incomplete = run.incomplete
    if incomplete:
        lines[2] += (f" **Incomplete: {len(incomplete)} implementation(s) whose peer failed "
                     "mid-run** (see [Incomplete](#incomplete)).")
    for impl in run.impls:
        row = [_md_cell(cells.get((impl, op))) for op in OPERATIONS]
        mark = " **incomplete**" if impl in incomplete else ""
        lines.append(f"| {_md(impl)}{mark} | {_md(languages.get(impl, ''))} | "
                     f"{_md(_version(run, impl))} | " + " | ".join(row) + " |")
    lines += ["", "## Encode by set", "", "| implementation | set | cases |", "|---|---|---|"]
    for impl, set_name, cell in _encode_rows(run):
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
    lines += ["", "## Findings", ""]
    for ident, f in sorted(run.findings.items()):
        lines.append(f'- <a id="{_anchor("finding", ident)}"></a>{code_span(ident)} '
                     f"{code_span(f['impl'])} {code_span(f['kind'])}: {code_span(f['case'])} "
                     f"expected {code_span(f['expected'])}, got {code_span(f['actual'])} "
                     f"({code_span(f['file'])})")
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


def render_matrix_html(run: MatrixRun, languages: Mapping[str, str]) -> str:
    """The matrix as one HTML page (module docstring)."""
    cells = operation_cells(run)
    counts = _summary(run)
    out = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        "<meta http-equiv='Content-Security-Policy' "
        "content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>pctfuzz conformance matrix</title><style>{_CSS}</style></head><body>",
        "<h1>Conformance matrix</h1>",
        f"<p>{len(run.impls)} implementations, {sum(run.inputs.values())} inputs in "
        f"{run.seconds:.0f} s; the reference answered {run.reference_answers} cases, once "
        f"each. Implementation-by-operation cells: {counts['agree']} agree, "
        f"{counts['accepted']} with accepted differences only, {counts['bug']} with bugs.</p>",
        "<p class='legend'><span class='agree' style='background:#dff3df'>agree</span>"
        "<span style='background:#fff3cc'>accepted differences (linked)</span>"
        "<span style='background:#f8d0d0'>bugs (linked to findings)</span>"
        "<span style='background:#fafafa'>- not asked</span></p>",
        "<table><thead><tr><th>implementation</th><th>language</th><th>version</th>"
        + "".join(f"<th>{op}</th>" for op in OPERATIONS) + "</tr></thead>",
    ]
    incomplete = run.incomplete
    if incomplete:
        out.append(f"<p class='incomplete'>Incomplete: {len(incomplete)} implementation(s) "
                   "whose peer failed mid-run (<a href='#incomplete'>why</a>); their cells "
                   "count only what they answered.</p>")
    for impl in run.impls:
        mark = ("<br><span class='incomplete'>incomplete</span>" if impl in incomplete
                else "")
        out.append(f"<tr><th>{_h(impl)}{mark}</th><td>{_h(languages.get(impl, ''))}</td>"
                   f"<td>{_h(_version(run, impl))}</td>"
                   + "".join(_html_cell(cells.get((impl, op))) for op in OPERATIONS) + "</tr>")
    out.append("</table><details><summary>Encode by set</summary><table><tr>"
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
    out.append("</table><h2>Findings</h2><table><tr><th>finding</th><th>implementation</th>"
               "<th>case (minimized)</th><th>expected</th><th>actual</th><th>record</th></tr>")
    for ident, f in sorted(run.findings.items()):
        out.append(f"<tr id='{_anchor('finding', ident)}'><td><code class='id'>{_h(ident)}"
                   f"</code><br>"
                   f"{_h(f['kind'])}</td><td>{_h(f['impl'])}</td>"
                   f"<td><code>{_h(f['case'])}</code></td><td><code>{_h(f['expected'])}</code>"
                   f"</td><td><code>{_h(f['actual'])}</code></td>"
                   f"<td><code>{_h(f['file'])}</code></td></tr>")
    out.append("</table>")
    if incomplete:
        out.append("<h2 id='incomplete'>Incomplete</h2><ul>" + "".join(
            f"<li><code>{_h(impl)}</code>: peer failed: <code>{_h(why)}</code></li>"
            for impl, reasons in incomplete.items() for why in reasons[:10]) + "</ul>")
    if run.lost:
        out.append("<h2>Lost</h2><ul>" + "".join(f"<li>{_h(x)}</li>" for x in run.lost[:50])
                   + "</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


