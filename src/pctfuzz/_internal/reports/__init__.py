"""What pctfuzz tells about a run: machine-readable results (JSON, SARIF 2.1.0, JUnit
XML), the findings report (text table and a single-file HTML page), and the export of
findings as a standalone pytest file or as Hypothesis ``@example`` decorators.

One results document (``RESULTS_SCHEMA``, a JSON Schema) describes a ``pctfuzz
fuzz``, ``pctfuzz replay`` or ``pctfuzz report`` run; every other format is rendered
from it, so they always agree. One module per job:

- ``schema``: the document's JSON Schema (``results-1``);
- ``results``: the document itself, built from a campaign, a replay or the store;
- ``output``: writing any of them (atomic files, stdout) and the JSON text;
- ``sarif``, ``junit``, ``table`` (text and Markdown), ``html``: the other renderings of
  the document;
- ``export`` (a pytest file) and ``examples`` (Hypothesis ``@example`` decorators);
- ``failure``: a failed check as the text a user's own test shows (``pctfuzz.testing``).

Everything a finding carries is untrusted text (cases come from a fuzzer): the HTML
report escapes every value, XML drops characters XML cannot hold, lone surrogates are
written as ``\\udXXX`` escapes, and exported tests hold values as ``repr`` literals and
comments as ``ascii()`` text.
"""

from __future__ import annotations

from pctfuzz._internal.reports.examples import export_examples
from pctfuzz._internal.reports.export import export_tests
from pctfuzz._internal.reports.html import render_html
from pctfuzz._internal.reports.junit import to_junit
from pctfuzz._internal.reports.output import check_destinations, to_json_text, write_output
from pctfuzz._internal.reports.results import (
    clean,
    finding_check,
    finding_entry,
    fuzz_results,
    load_campaign,
    replay_results,
    report_results,
    reproduce_command,
    rule_id,
)
from pctfuzz._internal.reports.sarif import SARIF_SCHEMA_URI, to_sarif
from pctfuzz._internal.reports.schema import RESULTS_FORMAT, RESULTS_SCHEMA, RESULTS_SCHEMA_VERSION
from pctfuzz._internal.reports.table import findings_markdown, findings_table

__all__ = [
    "RESULTS_FORMAT",
    "RESULTS_SCHEMA",
    "RESULTS_SCHEMA_VERSION",
    "SARIF_SCHEMA_URI",
    "check_destinations",
    "clean",
    "export_examples",
    "export_tests",
    "finding_check",
    "finding_entry",
    "findings_markdown",
    "findings_table",
    "fuzz_results",
    "load_campaign",
    "render_html",
    "replay_results",
    "report_results",
    "reproduce_command",
    "rule_id",
    "to_json_text",
    "to_junit",
    "to_sarif",
    "write_output",
]
