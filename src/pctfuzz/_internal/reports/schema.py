"""The results document's JSON Schema (draft 2020-12), ``results-1``: what ``--json``
writes and ``pctfuzz report --schema`` prints. It is the contract of ``results``, from
which SARIF, JUnit, the table and the HTML page are rendered."""

from __future__ import annotations

from typing import Any, Final

from pctfuzz._internal.accept.meaning import IMPACTS
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.identity import TARGET_NAME

__all__ = ["RESULTS_FORMAT", "RESULTS_SCHEMA", "RESULTS_SCHEMA_VERSION"]

RESULTS_FORMAT: Final = "pctfuzz-results"
RESULTS_SCHEMA_VERSION: Final = 1
_TARGET_PATTERN: Final = f"^{TARGET_NAME}$"
_ID_PATTERN: Final = "^[0-9a-f]{16}$"

_COUNT: Final = {"type": "integer", "minimum": 0}
_STR_OR_NULL: Final = {"type": ["string", "null"]}
_IDS: Final = {"type": "array", "items": {"type": "string", "pattern": _ID_PATTERN}}

#: The JSON Schema (draft 2020-12) of ``--json`` output, ``results-1``.
RESULTS_SCHEMA: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "urn:pctfuzz:results:1",
    "title": "pctfuzz results",
    "description": (
        "What one `pctfuzz fuzz`, `pctfuzz replay` or `pctfuzz report` run did: per-target "
        "statistics, the findings it saw, the inputs it replayed and the files it could not "
        "use. Written by --json; SARIF and JUnit output are rendered from it."
    ),
    "type": "object",
    "additionalProperties": False,
    "required": [
        "format", "schema_version", "command", "pctfuzz_version", "python", "started",
        "seconds", "exit_code", "settings", "targets", "findings", "replays", "errors",
        "summary",
    ],
    "properties": {
        "format": {"const": RESULTS_FORMAT},
        "schema_version": {"const": RESULTS_SCHEMA_VERSION},
        "command": {"enum": ["fuzz", "replay", "report"]},
        "pctfuzz_version": {"type": "string"},
        "python": {"type": "string", "description": "implementation and version"},
        "started": {"type": "string", "format": "date-time"},
        "seconds": {"type": "number", "minimum": 0, "description": "wall-clock duration"},
        "exit_code": {"enum": [code.value for code in ExitCode],
                      "description": "the command's exit code (docs/guide.md, Exit codes)"},
        "settings": {
            "type": "object",
            "description": "the options the run used (fuzz: targets, max_time, jobs, impl, "
            "corpus, findings, timeout, rss_limit_mb, replay_time; replay: paths, target, "
            "impl, timeout, and with --open findings and max_time when given; report: "
            "findings, campaign)",
            "properties": {
                "targets": {"type": "array", "items": {"type": "string"}},
                "paths": {"type": "array", "items": {"type": "string"}},
                "max_time": {"type": "number"},
                "replay_time": {"type": "number"},
                "jobs": {"type": "integer", "minimum": 1},
                "impl": _STR_OR_NULL,
                "target": _STR_OR_NULL,
                "corpus": {"type": "string"},
                "findings": {"type": "string"},
                "campaign": _STR_OR_NULL,
                "timeout": {"type": "number"},
                "rss_limit_mb": {"type": "integer"},
                "fail_on": {"enum": ["new", "open", "never"]},
            },
        },
        "targets": {"type": "array", "items": {"$ref": "#/$defs/target"}},
        "findings": {"type": "array", "items": {"$ref": "#/$defs/finding"}},
        "replays": {"type": "array", "items": {"$ref": "#/$defs/replay"}},
        "errors": {"type": "array", "items": {"$ref": "#/$defs/error"}},
        "summary": {
            "type": "object",
            "additionalProperties": False,
            "required": ["targets", "findings", "new_findings", "known_findings", "replayed",
                         "reproduced", "errors"],
            "properties": {
                "targets": _COUNT,
                "findings": _COUNT,
                "new_findings": _COUNT,
                "known_findings": _COUNT,
                "replayed": _COUNT,
                "reproduced": _COUNT,
                "errors": _COUNT,
                "execs": {**_COUNT, "description": "fuzz: executions of every target"},
                "impl_execs": {**_COUNT, "description": "fuzz: executions of the "
                               "differential targets, on the implementation under test"},
            },
        },
    },
    "allOf": [
        {
            "if": {"properties": {"command": {"const": "fuzz"}}},
            "then": {"properties": {"targets": {"items": {"required": [
                "workers", "seconds", "execs", "exec_per_s", "initial_cov", "cov", "ft",
                "corpus_units", "restarts", "not_reached",
            ]}}}},
        },
        {
            "if": {"properties": {"command": {"const": "replay"}}},
            "then": {"properties": {"targets": {"items": {"required": ["replayed",
                                                                       "reproduced"]}}}},
        },
    ],
    "$defs": {
        "target": {
            "type": "object",
            "description": "one target: campaign statistics (fuzz), replay counts (replay), "
            "finding counts (report)",
            "additionalProperties": False,
            "required": ["target", "new_findings", "known_findings", "errors"],
            "properties": {
                "target": {"type": "string", "pattern": _TARGET_PATTERN},
                "workers": {"type": "integer", "minimum": 1,
                            "description": "libFuzzer processes run at once"},
                "seconds": {"type": "number", "minimum": 0},
                "execs": _COUNT,
                "exec_per_s": _COUNT,
                "initial_cov": {"type": ["integer", "null"], "minimum": 0,
                                "description": "libFuzzer cov: once the corpus was loaded"},
                "cov": _COUNT,
                "ft": _COUNT,
                "corpus_units": _COUNT,
                "restarts": _COUNT,
                "new_findings": {**_IDS, "description": "ids first recorded by this run"},
                "known_findings": {**_IDS, "description": "ids already in the store"},
                "errors": {"type": "array", "items": {"type": "string"}},
                "asked": {**_COUNT, "description": "differential: cases asked"},
                "answered": {**_COUNT, "description": "differential: cases the "
                             "implementation answered (not Unsupported)"},
                "deferred": {**_COUNT, "description": "differential: diverging inputs "
                             "left unnamed, as naming had its share (half) of the time"},
                "not_reached": {
                    "type": "array",
                    "description": "fuzz, differential targets: the modules under test "
                    "(the adapter's modules_under_test) the campaign did not reach: no line "
                    "after thousands of executions, or no Python source to trace (lines 0)",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["module", "lines", "reached", "executions", "why"],
                        "properties": {
                            "module": {"type": "string"},
                            "lines": {**_COUNT, "description": "lines inside its functions"},
                            "reached": _COUNT,
                            "executions": _COUNT,
                            "why": {"type": "string"},
                        },
                    },
                },
                "problems": {"type": "array", "items": {"type": "string"},
                             "description": "why this target's run is incomplete (fuzz): "
                             "a finding or hits lost, or no execution at all"},
                "replayed": _COUNT,
                "reproduced": _COUNT,
                "findings": _COUNT,
                "hits": _COUNT,
                "kinds": {"type": "object", "additionalProperties": _COUNT},
                "statuses": {"type": "object", "additionalProperties": _COUNT},
            },
        },
        "finding": {
            "type": "object",
            "description": "a finding record (docs/fuzzing.md), without its case and traceback",
            "additionalProperties": False,
            "required": ["id", "target", "kind", "check", "signature", "status", "new", "hits",
                         "first_seen", "last_seen", "impl", "path", "expected", "actual",
                         "minimized", "summary"],
            "properties": {
                "id": {"type": "string", "pattern": _ID_PATTERN},
                "target": {"type": "string", "pattern": _TARGET_PATTERN},
                "kind": {"enum": ["crash", "violation", "divergence", "timeout", "oom"]},
                "check": {**_STR_OR_NULL, "description": "violated invariant or compared "
                          "operation; null for timeout/oom"},
                "signature": {"type": "string", "minLength": 1},
                "status": {"enum": ["new", "known-divergence", "false-positive",
                                    "adapter-bug", "wont-fix", "fixed"]},
                "new": {"type": ["boolean", "null"],
                        "description": "first recorded by this run (null: not a campaign)"},
                "reproduces": {"type": ["boolean", "null"],
                               "description": "replayed (replay, or a campaign's replay "
                               "of the open findings): it still fails"},
                "hits": {"type": "integer", "minimum": 1},
                "first_seen": {"type": "string", "format": "date-time"},
                "last_seen": {"type": "string", "format": "date-time"},
                "impl": _STR_OR_NULL,
                "path": {**_STR_OR_NULL, "description": "the finding's JSON file"},
                "expected": _STR_OR_NULL,
                "actual": _STR_OR_NULL,
                "minimized": {"type": "boolean"},
                "summary": {"type": "string", "description": "one line for humans"},
                "case": {"type": "string", "description": "the case as a short call"},
                "version": {**_STR_OR_NULL, "description": "the implementation's version"},
                "note": {**_STR_OR_NULL, "description": "the triager's note"},
                "raised": {**_STR_OR_NULL, "description": "a crash: the exception raised, "
                           "Type: message"},
                "impact": {"enum": list(IMPACTS), "description": "what the difference "
                           "means to the component (accept.impact): splits-field, "
                           "loses-data, changes-data, crash or cosmetic"},
                "behaviour": {
                    "type": ["object", "null"],
                    "description": "the rule that explains the divergence (the reconciler "
                                   "an accept entry names, its parameters, in words)",
                    "additionalProperties": False,
                    "required": ["rule", "params", "text"],
                    "properties": {"rule": {"type": "string"}, "params": {"type": "object"},
                                   "text": {"type": "string"}},
                },
                "fixed_in": {"type": ["object", "null"], "description": "the version and "
                             "date at which a replay verified the fix",
                             "properties": {"version": {"type": "string"},
                                            "date": {"type": "string"}}},
                "reproduce": {"type": "string", "description": "the command that replays it"},
                "accept": {**_STR_OR_NULL, "description": "the command that accepts its "
                           "behaviour if it is intended (pctfuzz accept); null when no rule "
                           "an accept file can state explains it"},
            },
        },
        "replay": {
            "type": "object",
            "additionalProperties": False,
            "required": ["path", "target", "reproduces", "evidence", "finding_id", "status"],
            "properties": {
                "path": {"type": "string"},
                "target": {"type": "string", "pattern": _TARGET_PATTERN},
                "reproduces": {"type": "boolean"},
                "evidence": {"type": "string"},
                "finding_id": {"type": ["string", "null"], "pattern": _ID_PATTERN},
                "status": _STR_OR_NULL,
                "outcome": {"enum": ["reproduces", "fails differently", "accepted",
                                     "unsupported", "no longer reproduces"]},
            },
        },
        "error": {
            "type": "object",
            "additionalProperties": False,
            "required": ["path", "target", "message"],
            "properties": {
                "path": _STR_OR_NULL,
                "target": _STR_OR_NULL,
                "message": {"type": "string"},
            },
        },
    },
}  # fmt: skip
