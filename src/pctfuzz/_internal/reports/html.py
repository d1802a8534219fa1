"""The single-file HTML report (``pctfuzz report --html``) of a results document.

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
from pctfuzz._internal.store import Finding

__all__ = ["render_html"]

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
td.n{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font:12px/1.3 ui-monospace,monospace;white-space:pre-wrap;word-break:break-all}
.new{color:#b00;font-weight:bold}.fixed{color:#070}.known-divergence{color:#555}
details{margin:.2em 0;max-width:60em}
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


def render_html(document: Mapping[str, Any], findings: Sequence[Finding] = ()) -> str:
    """A single-file HTML report of a results document (``report_results``); with the
    ``store.Finding`` records, each finding shows its case and traceback too."""
    records = {f.id: f for f in findings}
    parts = [
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<meta http-equiv=\"Content-Security-Policy\" "
        "content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        "<meta name=\"viewport\" content=\"width=device-width\">",
        f"<title>pctfuzz report</title><style>{_CSS}</style></head><body>",
        "<h1>pctfuzz report</h1>",
        f"<p>Generated {_h(document['started'])} by pctfuzz {_h(document['pctfuzz_version'])} "
        f"({_h(document['python'])}). Findings: <code>"
        f"{_h(document['settings'].get('findings', ''))}</code>",
    ]
    if document["settings"].get("campaign"):
        parts.append(f"; campaign: <code>{_h(document['settings']['campaign'])}</code>")
    summary = document["summary"]
    parts.append(f".</p><p>{summary['findings']} finding(s) in {summary['targets']} target(s); "
                 f"{sum(1 for f in document['findings'] if f['status'] == 'new')} with status "
                 f"new.</p>")

    parts.append("<h2>Targets</h2>")
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
    parts.append(_table(head, rows, set(range(1, len(head)))))

    parts.append("<h2>Findings</h2>")
    if not document["findings"]:
        parts.append("<p>No findings.</p>")
    rows = []
    for f in document["findings"]:
        # The behaviour (the rule that names the finding) first: what a reader triages.
        headline = (f"[{f.get('impact', '-')}] "
                    + (f"behaviour: {f['behaviour']['text']}" if f.get("behaviour")
                       else f["summary"]))
        detail = [f"<details><summary>{_h(headline)}</summary><dl>",
                  f"<dt>difference</dt><dd>{_h(f['summary'])}</dd>",
                  f"<dt>signature</dt><dd><code>{_h(f['signature'])}</code></dd>",
                  *([f"<dt>behaviour</dt><dd>{_h(f['behaviour']['text'])}</dd>"]
                    if f.get("behaviour") else []),
                  f"<dt>file</dt><dd><code>{_h(f['path'] or '')}</code></dd>",
                  f"<dt>implementation</dt><dd>{_h(f['impl'] or 'reference')}"
                  f"{' ' + _h(f['version']) if f.get('version') else ''}</dd>",
                  f"<dt>case</dt><dd><code>{_h(f.get('case', ''))}</code></dd>",
                  f"<dt>reproduce</dt><dd><code>{_h(f.get('reproduce', ''))}</code></dd>",
                  *([f"<dt>note</dt><dd>{_h(f['note'])}</dd>"] if f.get("note") else []),
                  f"<dt>expected</dt><dd><pre>{_h(f['expected'])}</pre></dd>",
                  f"<dt>actual</dt><dd><pre>{_h(f['actual'])}</pre></dd>"
                  if not f.get("raised") else
                  f"<dt>raised</dt><dd><pre>{_h(f['raised'])}</pre></dd>",
                  f"<dt>last seen</dt><dd>{_h(f['last_seen'])}</dd>"]
        record = records.get(f["id"])
        if record is not None:
            case = json.dumps(record.case, indent=1, ensure_ascii=True, sort_keys=True)
            detail.append(f"<dt>case</dt><dd><pre>{_h(case)}</pre></dd>")
            if record.raw_input is not None:
                detail.append(f"<dt>raw input (base64)</dt><dd><code>{_h(record.raw_input)}"
                              "</code></dd>")
            if record.traceback:
                detail.append(f"<dt>traceback</dt><dd><pre>{_h(record.traceback)}</pre></dd>")
        detail.append("</dl></details>")
        rows.append([_h(f["target"]), _h(f["kind"]), _h(f["check"] or ""),
                     _h(f["impl"] or "reference"),
                     f'<span class="{_h(f["status"])}">{_h(f["status"])}</span>', _h(f["hits"]),
                     _h(f["first_seen"]), f"<code>{_h(f['id'])}</code>" + "".join(detail)])
    if rows:
        parts.append(_table(["target", "kind", "check", "implementation", "status", "hits",
                             "first seen", "finding"], rows, {5}))
    if document["errors"]:
        parts.append("<h2>Skipped files</h2><ul>")
        parts += [f"<li><code>{_h(e['path'] or '')}</code>: {_h(e['message'])}</li>"
                  for e in document["errors"]]
        parts.append("</ul>")
    parts.append("</body></html>\n")
    return "".join(parts)

