"""The conformance matrix as JSON (``pctfuzz matrix`` writes ``matrix.json`` beside the
pages): the same counts, cells and findings as ``reports.matrix`` renders, and each
implementation's side of the URL Standard's dated set changes
(``reports.matrix_changes``), for a script to read instead of a page."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict

from pctfuzz._internal.fuzz.matrix import MatrixRun
from pctfuzz._internal.reports.matrix import OPERATIONS, matrix_counts, operation_cells
from pctfuzz._internal.reports.matrix_changes import changes_json

__all__ = ["render_matrix_json"]


def render_matrix_json(run: MatrixRun, languages: Mapping[str, str]) -> str:
    """One JSON document: counts, implementations (language, version, a status per
    operation, incomplete), findings, the standard's changes."""
    cells = operation_cells(run)
    rows = []
    for impl in run.impls:
        statuses = {}
        for op in OPERATIONS:
            cell = cells.get((impl, op))
            if cell is not None and cell.answered:
                statuses[op] = {"agree": cell.agree, "accepted": dict(cell.accepted),
                                "bugs": dict(cell.bugs)}
        rows.append({"name": impl, "language": languages.get(impl, ""),
                     "version": run.versions.get(impl, ""), "operations": statuses,
                     "incomplete": run.incomplete.get(impl, [])})
    document = {
        "counts": asdict(matrix_counts(run)),
        "inputs": dict(run.inputs),
        "seconds": round(run.seconds, 1),
        "implementations": rows,
        "findings": run.findings,
        "changes": changes_json(run),
        "lost": run.lost,
    }
    return json.dumps(document, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
