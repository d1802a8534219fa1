"""The single-file HTML report (``pctfuzz report --html``) of a results document.

It leads with what to fix: the open findings first, one card each (the behaviour and
its impact, the minimal input with the expected and actual answers side by side, the
commands that replay it or accept it if it is intended), then the accepted and
triaged findings, the fixed ones, and last the statistics. A finding's record is
folded under it, without the traceback: its frames are pctfuzz's own (the check that
compared the answers) and say nothing a reader can act on; the record file keeps it.

The page loads nothing (a Content-Security-Policy of ``default-src 'none'`` with inline
style only) and every value is escaped, control characters and lone surrogates made
visible, because every field of a finding is untrusted text.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pctfuzz._internal.reports.results import clean
from pctfuzz._internal.reports.table import finding_groups
from pctfuzz._internal.store import Finding

__all__ = ["render_html"]

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em 2em;color:#222;max-width:80em}
h1{margin:.2em 0}h2{margin:1.2em 0 .4em;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:0 0 .3em}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
td.n{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font:12px/1.3 ui-monospace,monospace;white-space:pre-wrap;word-break:break-all}
pre{margin:0}
.lead{font-size:15px}.lead strong{color:#b00}.lead strong.none{color:#060}
nav a{margin-right:1em}
.finding{border:1px solid #ccc;border-left:5px solid #b00;padding:.5em .8em;margin:.8em 0}
.meta{color:#555;margin:.2em 0}
table.sbs{width:100%;table-layout:fixed}table.sbs td{background:#fafafa}
.cmd{margin:.3em 0}.cmd code{background:#f3f3f3;padding:1px 4px}
.impact{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;color:#fff;
background:#777}
.impact-splits-field,.impact-loses-data{background:#b00}.impact-changes-data{background:#c60}
.impact-crash{background:#717}
.new{color:#b00;font-weight:bold}.fixed{color:#070}.known-divergence{color:#555}
details{margin:.2em 0}
"""


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _h(value: Any) -> str:
    """Text for HTML: escaped, control characters and lone surrogates made visible."""
    text = _CONTROL.sub(lambda m: ascii(m[0])[1:-1], clean(str(value)))
    return html.escape(text, quote=True)


def _table(head: Sequence[str], rows: Iterable[Sequence[Any]], numeric: set[int]) -> str:
    out = ["<table><thead><tr>", *(f"<th>{_h(h)}</th>" for h in head), "</tr></thead><tbody>"]
    for row in rows:
        out.append("<tr>")
        for index, cell in enumerate(row):
            css = ' class="n"' if index in numeric else ""
            out.append(f"<td{css}>{cell}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _impact(entry: Mapping[str, Any]) -> str:
    impact = str(entry.get("impact", "-"))
    return f'<span class="impact impact-{_h(impact)}">{_h(impact)}</span>'


def _headline(entry: Mapping[str, Any]) -> str:
    """What the finding does: its behaviour (the rule that names it), else the summary."""
    return str(entry["behaviour"]["text"] if entry.get("behaviour") else entry["summary"])


def _answers(entry: Mapping[str, Any]) -> tuple[str, str]:
    """(expected, actual) as the page shows them: a crash's actual is what it raised,
    a finding without answers (a timeout) says what happened."""
    expected = entry["expected"] if entry["expected"] is not None else "-"
    if entry.get("raised"):
        return expected, f"raised {entry['raised']}"
    return expected, entry["actual"] if entry["actual"] is not None else entry["summary"]


def _implementation(entry: Mapping[str, Any]) -> str:
    return _h(entry["impl"] or "reference") + (
        f" {_h(entry['version'])}" if entry.get("version") else "")


def _record(entry: Mapping[str, Any], record: Finding | None) -> str:
    """The rest of the record, folded: the difference in one line, the signature, the
    file, the case as stored (no traceback: pctfuzz's own frames say nothing of the
    bug; the record file keeps it)."""
    parts = ["<details><summary>record</summary><dl>",
             f"<dt>difference</dt><dd>{_h(entry['summary'])}</dd>",
             f"<dt>signature</dt><dd><code>{_h(entry['signature'])}</code></dd>",
             f"<dt>file</dt><dd><code>{_h(entry['path'] or '')}</code></dd>",
             f"<dt>minimized</dt><dd>{'yes' if entry['minimized'] else 'no'}</dd>",
             f"<dt>last seen</dt><dd>{_h(entry['last_seen'])}</dd>"]
    if entry.get("fixed_in"):
        parts.append(f"<dt>fixed in</dt><dd>{_h(_fixed_in(entry))}</dd>")
    if record is not None:
        case = json.dumps(record.case, indent=1, ensure_ascii=True, sort_keys=True)
        parts.append(f"<dt>case</dt><dd><pre>{_h(case)}</pre></dd>")
        if record.raw_input is not None:
            parts.append(f"<dt>raw input (base64)</dt><dd><code>{_h(record.raw_input)}"
                         "</code></dd>")
    parts.append("</dl></details>")
    return "".join(parts)


def _fixed_in(entry: Mapping[str, Any]) -> str:
    fixed = entry.get("fixed_in") or {}
    return " ".join(str(fixed[k]) for k in ("version", "date") if fixed.get(k)) or "-"


def _open_finding(entry: Mapping[str, Any], record: Finding | None) -> str:
    """One open finding as a card: its behaviour and impact, the minimal input with the
    expected and actual answers side by side, and the commands that replay or accept it."""
    expected, actual = _answers(entry)
    check = f" ({_h(entry['check'])})" if entry.get("check") else ""
    parts = [
        f'<section class="finding" id="finding-{_h(entry["id"])}">',
        f"<h3>{_impact(entry)} {_h(_headline(entry))}</h3>",
        f'<p class="meta">{_h(entry["kind"])} in {_h(entry["target"])}{check} &middot; '
        f"{_implementation(entry)} &middot; {_h(entry['hits'])} hit(s) &middot; first seen "
        f"{_h(entry['first_seen'])} &middot; <code>{_h(entry['id'])}</code></p>",
        '<table class="sbs"><thead><tr><th>minimal input</th><th>expected</th>'
        "<th>actual</th></tr></thead><tbody><tr>"
        f"<td><code>{_h(entry.get('case', ''))}</code></td>"
        f"<td><pre>{_h(expected)}</pre></td><td><pre>{_h(actual)}</pre></td>"
        "</tr></tbody></table>",
        f'<p class="cmd">replay: <code>{_h(entry.get("reproduce", ""))}</code>',
    ]
    if entry.get("accept"):
        parts.append(f"<br>accept, if it is intended: <code>{_h(entry['accept'])}</code>")
    parts.append("</p>")
    if entry.get("note"):
        parts.append(f'<p class="meta">note: {_h(entry["note"])}</p>')
    parts += [_record(entry, record), "</section>"]
    return "".join(parts)


def _other_findings(entries: Sequence[Mapping[str, Any]], records: Mapping[str, Finding],
                    fixed: bool) -> str:
    """Accepted, triaged or fixed findings: one row each, the record folded."""
    rows = []
    for e in entries:
        expected, actual = _answers(e)
        last = _h(_fixed_in(e)) if fixed else _h(e.get("note") or "")
        rows.append([f'<span class="{_h(e["status"])}">{_h(e["status"])}</span>',
                     _impact(e), _h(_headline(e)), _implementation(e),
                     f"<code>{_h(e.get('case', ''))}</code>", f"<pre>{_h(expected)}</pre>",
                     f"<pre>{_h(actual)}</pre>", last,
                     f"<code>{_h(e['id'])}</code>{_record(e, records.get(e['id']))}"])
    return _table(["status", "impact", "behaviour", "implementation", "minimal input",
                   "expected", "actual", "fixed in" if fixed else "note", "finding"],
                  rows, set())


def _statistics(document: Mapping[str, Any]) -> str:
    """Per-target counts, and a campaign's statistics when the report has them."""
    kinds = sorted({k for t in document["targets"] for k in t.get("kinds", {})})
    has_campaign = any("execs" in t for t in document["targets"])
    head = ["target", "findings", "hits", "new", "known-divergence", "fixed", *kinds]
    if has_campaign:
        head += ["processes", "secs", "execs", "exec/s", "cov0", "cov", "ft", "corpus",
                 "campaign new", "campaign known"]
    rows = []
    for t in document["targets"]:
        statuses = t.get("statuses", {})
        row = [_h(t["target"]), t.get("findings", 0), t.get("hits", 0), statuses.get("new", 0),
               statuses.get("known-divergence", 0), statuses.get("fixed", 0),
               *(t.get("kinds", {}).get(k, 0) for k in kinds)]
        if has_campaign:
            row += [t.get("workers", ""), f"{t['seconds']:.0f}" if "seconds" in t else "",
                    t.get("execs", ""), t.get("exec_per_s", ""),
                    t.get("initial_cov") if t.get("initial_cov") is not None else "",
                    t.get("cov", ""), t.get("ft", ""), t.get("corpus_units", ""),
                    len(t["new_findings"]) if "execs" in t else "",
                    len(t["known_findings"]) if "execs" in t else ""]
        rows.append([_h(c) if i else c for i, c in enumerate(row)])
    return (_table(head, rows, set(range(1, len(head))))
            + f"<p>Generated {_h(document['started'])} by pctfuzz "
            f"{_h(document['pctfuzz_version'])} ({_h(document['python'])}).</p>")


def render_html(document: Mapping[str, Any], findings: Sequence[Finding] = ()) -> str:
    """A single-file HTML report of a results document (``report_results``) that leads
    with what to fix: the open findings (``table.finding_groups``, as ``report
    --markdown`` orders them), each with its behaviour, impact, minimal input, the
    expected and actual answers side by side and the commands that replay or accept it;
    then the accepted and triaged ones, the fixed ones, and the statistics. With the
    ``store.Finding`` records, each finding's folded record shows its stored case too."""
    records = {f.id: f for f in findings}
    groups = finding_groups(document["findings"])
    count = {key: len(group) for key, _title, group in groups}
    parts = [
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<meta http-equiv=\"Content-Security-Policy\" "
        "content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        "<meta name=\"viewport\" content=\"width=device-width\">",
        f"<title>pctfuzz report</title><style>{_CSS}</style></head><body>",
        "<h1>pctfuzz report</h1>",
        # (red only when there is something to fix)
        f'<p class="lead"><strong{"" if count["open"] else " class=none"}>'
        f'{count["open"]} open finding(s) to fix</strong>, '
        f'{count["triaged"]} accepted or triaged, {count["fixed"]} fixed; '
        f"{document['summary']['findings']} in {document['summary']['targets']} target(s). "
        f"Findings: <code>{_h(document['settings'].get('findings', ''))}</code>",
    ]
    if document["settings"].get("campaign"):
        parts.append(f"; campaign: <code>{_h(document['settings']['campaign'])}</code>")
    parts.append(".</p><nav>" + "".join(
        f'<a href="#{key}">{_h(title)} ({len(group)})</a>' for key, title, group in groups)
        + '<a href="#statistics">Statistics</a></nav>')
    for key, title, group in groups:
        parts.append(f'<h2 id="{key}">{_h(title)} ({len(group)})</h2>')
        if not group:
            parts.append("<p>None: nothing to fix.</p>" if key == "open" else "<p>None.</p>")
        elif key == "open":
            parts += [_open_finding(e, records.get(e["id"])) for e in group]
        else:
            parts.append(_other_findings(group, records, fixed=key == "fixed"))
    parts += ['<h2 id="statistics">Statistics</h2>', _statistics(document)]
    if document["errors"]:
        parts.append("<h2>Skipped files</h2><ul>")
        parts += [f"<li><code>{_h(e['path'] or '')}</code>: {_h(e['message'])}</li>"
                  for e in document["errors"]]
        parts.append("</ul>")
    parts.append("</body></html>\n")
    return "".join(parts)
