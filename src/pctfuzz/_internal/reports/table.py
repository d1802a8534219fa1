"""The findings table ``pctfuzz report`` prints: one aligned row per finding, every
cell one printable line (``pctfuzz._internal.text.one_line``), since records are untrusted;
and the same findings in Markdown (``report --markdown``, a CI job summary)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeVar

from pctfuzz._internal.accept.meaning import IMPACTS
from pctfuzz._internal.reports.markdown import code_span
from pctfuzz._internal.store import OPEN_STATUSES, TRIAGED_STATUSES
from pctfuzz._internal.text import one_line

__all__ = ["GROUPS", "finding_groups", "findings_markdown", "findings_table"]

E = TypeVar("E", bound=Mapping[str, Any])


def findings_table(entries: Sequence[Mapping[str, Any]]) -> str:
    """The findings as an aligned text table (id, target, kind, status, hits,
    implementation and version, case, expected, actual), every cell on one printable
    line; under each finding, its file and the command that replays it."""
    head = ("id", "target", "kind", "status", "hits", "impl", "case", "expected", "actual")
    rows = [
        tuple(one_line(str(cell), 60) for cell in (
            e["id"], e["target"], e["kind"], e["status"], e["hits"],
            (f"{e['impl']} {e['version']}" if e.get("version") else e["impl"]) or "reference",
            e.get("case", ""), e["expected"] or "",
            f"raised {e['raised']}" if e.get("raised") else e["actual"] or ""))
        for e in entries
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths, strict=True)).rstrip(),
             "  ".join("-" * w for w in widths)]
    for entry, row in zip(entries, rows, strict=True):
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        lines.append(f"    signature: {one_line(entry['signature'], 300)}")
        lines.append(f"    impact: {entry.get('impact', '-')}")
        if entry.get("behaviour"):
            lines.append(f"    behaviour: {one_line(entry['behaviour']['text'], 300)}")
        lines.append(f"    reproduce: {one_line(entry.get('reproduce', ''), 400)}")
        if entry.get("note"):
            lines.append(f"    note: {one_line(entry['note'], 400)}")
    return "\n".join(lines)



#: The groups a report shows the findings in, in this order: what to fix first.
GROUPS: Final = (
    ("open", "Open findings", OPEN_STATUSES),
    ("triaged", "Accepted and triaged", TRIAGED_STATUSES),
    ("fixed", "Fixed", frozenset({"fixed"})),
)


def _severity(entry: Mapping[str, Any]) -> int:
    """Where the entry's impact stands in ``IMPACTS`` (splits-field first)."""
    impact = entry.get("impact")
    return IMPACTS.index(impact) if impact in IMPACTS else len(IMPACTS)


def finding_groups(entries: Sequence[E]) -> list[tuple[str, str, list[E]]]:
    """(key, title, entries) of each of ``GROUPS``, in order (open, accepted and
    triaged, fixed), each group by impact (``accept.impact.IMPACTS``: a field split
    first, a cosmetic difference last), then in the order given: ``report --markdown``
    and the HTML report lead with the same findings."""
    return [(key, title, sorted((e for e in entries if e["status"] in statuses),
                                key=_severity))
            for key, title, statuses in GROUPS]


def findings_markdown(entries: Sequence[Mapping[str, Any]], where: str) -> str:
    """The findings as a GitHub-flavoured Markdown table for a CI job summary: the open
    ones first (what to fix; ``finding_groups``), each value in a code span
    (``reports.markdown``: a finding's text is untrusted), then each open finding's
    replay command, and the command that accepts it if it is intended. ``where`` names
    the findings folder."""
    groups = finding_groups(entries)
    ordered = [e for _key, _title, group in groups for e in group]
    opened = groups[0][2]
    lines = [f"## pctfuzz: {len(opened)} open finding(s), {len(entries)} in all",
             "", f"Findings folder: {code_span(where)}"]
    if not entries:
        return "\n".join(lines) + "\n"
    lines += ["", "| id | status | impact | behaviour | case | expected | actual |",
              "|---|---|---|---|---|---|---|"]
    for e in ordered:
        behaviour = (e.get("behaviour") or {}).get("text", "")
        actual = f"raised {e['raised']}" if e.get("raised") else e["actual"] or ""
        cells = (e["id"], e["status"], e.get("impact", ""), behaviour, e.get("case", ""),
                 e["expected"] or "", actual)
        lines.append("| " + " | ".join(code_span(one_line(str(c), 120), table=True)
                                       for c in cells) + " |")
    if opened:
        lines += ["", "Replay an open finding (or accept it, if it is intended):", ""]
        for e in opened:
            accept = f"; {code_span(one_line(e['accept'], 400))}" if e.get("accept") else ""
            lines.append(f"- {code_span(one_line(e.get('reproduce', ''), 400))}{accept}")
    return "\n".join(lines) + "\n"
