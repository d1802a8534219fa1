"""Machine-readable results (JSON, SARIF 2.1.0, JUnit XML), the findings report (text
and a single-file HTML page), and the export of findings as a standalone pytest file.

One results document (``RESULTS_SCHEMA``, a JSON Schema) describes a ``pctfuzz
fuzz``, ``pctfuzz replay`` or ``pctfuzz report`` run; SARIF and JUnit are rendered from
it, so the three formats always agree:

- ``--json``: the document itself;
- ``--sarif``: one SARIF result per *new* finding of a campaign, or per input that
  reproduces on replay; the finding file is the artifact location, ``ruleId`` is
  ``<kind>/<check>``, the signature is the ``partialFingerprints`` entry
  ``pctfuzzSignature/v1`` and the finding id the ``fingerprints`` entry
  ``pctfuzzFindingId/v1`` (so code scanning tracks one bug as one alert);
- ``--junit``: one testcase per target (a failure lists its new findings) and, for
  replay, one per replayed input (a failure when it reproduces, an error when it is
  unusable).

Everything a finding carries is untrusted text (cases come from a fuzzer): the HTML
report escapes every value, XML drops characters XML cannot hold, lone surrogates are
written as ``\\udXXX`` escapes, and exported tests hold values as ``repr`` literals and
comments as ``ascii()`` text.
"""

from __future__ import annotations

import contextlib
import html
import json
import math
import os
import platform
import pprint
import re
import shlex
import sys
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from pctfuzz import __version__
from pctfuzz.errors import PctfuzzError
from pctfuzz.identity import TARGET_NAME
from pctfuzz.text import one_line

__all__ = [
    "RESULTS_FORMAT",
    "RESULTS_SCHEMA",
    "RESULTS_SCHEMA_VERSION",
    "SARIF_SCHEMA_URI",
    "check_destinations",
    "export_tests",
    "finding_entry",
    "findings_table",
    "fuzz_results",
    "load_campaign",
    "render_html",
    "replay_results",
    "report_results",
    "to_junit",
    "to_sarif",
    "write_output",
]

RESULTS_FORMAT: Final = "pctfuzz-results"
RESULTS_SCHEMA_VERSION: Final = 1
SARIF_SCHEMA_URI: Final = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
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
        "exit_code": {"enum": [0, 1, 2, 3, 4, 129, 130, 143],
                      "description": "the command's exit code (see pctfuzz --help)"},
        "settings": {
            "type": "object",
            "description": "the options the run used (fuzz: targets, max_time, jobs, impl, "
            "corpus, findings, timeout, rss_limit_mb; replay: paths, target, impl, timeout; "
            "report: findings, campaign)",
            "properties": {
                "targets": {"type": "array", "items": {"type": "string"}},
                "paths": {"type": "array", "items": {"type": "string"}},
                "max_time": {"type": "number"},
                "jobs": {"type": "integer", "minimum": 1},
                "impl": _STR_OR_NULL,
                "target": _STR_OR_NULL,
                "corpus": {"type": "string"},
                "findings": {"type": "string"},
                "campaign": _STR_OR_NULL,
                "timeout": {"type": "number"},
                "rss_limit_mb": {"type": "integer"},
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
            },
        },
    },
    "allOf": [
        {
            "if": {"properties": {"command": {"const": "fuzz"}}},
            "then": {"properties": {"targets": {"items": {"required": [
                "workers", "seconds", "execs", "exec_per_s", "initial_cov", "cov", "ft",
                "corpus_units", "restarts",
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
            "description": "a finding record (see store.py), without its case and traceback",
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
                "status": {"enum": ["new", "known-divergence", "fixed"]},
                "new": {"type": ["boolean", "null"],
                        "description": "first recorded by this run (null: not a campaign)"},
                "reproduces": {"type": ["boolean", "null"],
                               "description": "replay only: it still fails"},
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
                "reproduce": {"type": "string", "description": "the command that replays it"},
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


# ------------------------------------------------------------------------- text safety

_SURROGATE = re.compile("[\ud800-\udfff]")
_XML_BAD = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def clean(text: str) -> str:
    """``text`` with lone surrogates written as ``\\udXXX`` (valid UTF-8 everywhere)."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def _deep_clean(value: Any) -> Any:
    """``clean`` applied to every string (keys too) of a JSON-like value."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(str(k)): _deep_clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_deep_clean(v) for v in value]
    return value


def _xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 cannot hold written as an escape."""
    return _XML_BAD.sub(lambda m: ascii(m[0])[1:-1], text)


def _one_line(text: str, limit: int = 300) -> str:
    return one_line(text, limit)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _python() -> str:
    return f"{platform.python_implementation()} {platform.python_version()}"


# ------------------------------------------------------------------- results document


def finding_check(finding: Any) -> str | None:
    """The invariant or operation a finding is about (``check`` of its evidence, else
    the third field of its signature); None for timeout/oom records."""
    check = finding.evidence.get("check") if isinstance(finding.evidence, dict) else None
    if isinstance(check, str) and check:
        return check
    parts = finding.signature.split("|")
    return parts[2] if len(parts) > 2 and parts[2] != "-" else None


def rule_id(kind: str, check: str | None) -> str:
    """SARIF ``ruleId``: ``<kind>/<check>``, or just the kind."""
    return f"{kind}/{check}" if check else kind


def _summary_line(finding: Any, check: str | None) -> str:
    what = f"{finding.kind} in {finding.target}" + (f" ({check})" if check else "")
    if finding.expected is not None or finding.actual is not None:
        what += f": expected {finding.expected}, got {finding.actual}"
    elif isinstance(finding.evidence, dict) and finding.evidence:
        detail = finding.evidence.get("exception") or finding.evidence.get("error")
        if detail:
            what += f": {detail}"
    return clean(_one_line(what, 500))


def _version(finding: Any) -> str | None:
    """The recorded version of the finding's implementation, if one is known."""
    version = finding.versions.get(finding.impl) if finding.impl else None
    return clean(version) if version and version != "unknown" else None


def _case_text(finding: Any) -> str:
    """The finding's case as a short call (``encode('~', set='path')``), or its raw
    input's length when the record has no case."""
    from pctfuzz.checks.registry import case_text

    try:
        return case_text(finding.rebuild_case())
    except PctfuzzError:
        raw = finding.raw_bytes()
        return f"raw input of {len(raw)} bytes" if raw is not None else "-"


def reproduce_command(finding: Any, path: Path | str | None) -> str:
    """The command that replays ``finding``: ``pctfuzz replay FILE``, with ``--impl``
    when the record names an implementation that is not built in (replay never loads
    what a record names: the user says it)."""
    from pctfuzz.fuzz.replay import is_builtin_impl
    from pctfuzz.targets import get_target

    where = os.fspath(path) if path is not None else f"findings/{finding.file_name}"
    command = f"pctfuzz replay {shlex.quote(where)}"
    try:
        builtin = is_builtin_impl(get_target(finding.target), finding.impl)
    except PctfuzzError:
        builtin = True
    if finding.impl and not builtin:
        command += f" --impl {shlex.quote(finding.impl)}"
    return command


def finding_entry(finding: Any, path: Path | str | None, *, new: bool | None = None,
                  reproduces: bool | None = None) -> dict[str, Any]:
    """One ``findings`` item for a ``store.Finding``."""
    check = finding_check(finding)
    entry: dict[str, Any] = {
        "id": finding.id,
        "target": finding.target,
        "kind": finding.kind,
        "check": clean(check) if check is not None else None,
        "signature": clean(finding.signature),
        "status": finding.status,
        "new": new,
        "hits": finding.hits,
        "first_seen": finding.first_seen,
        "last_seen": finding.last_seen,
        "impl": clean(finding.impl) if finding.impl is not None else None,
        "path": None if path is None else os.fspath(path),
        "expected": clean(finding.expected) if finding.expected is not None else None,
        "actual": clean(finding.actual) if finding.actual is not None else None,
        "minimized": finding.minimized,
        "summary": _summary_line(finding, check),
        "case": clean(one_line(_case_text(finding), 300)),
        "version": _version(finding),
        "note": clean(finding.note) if finding.note is not None else None,
        "reproduce": clean(reproduce_command(finding, path)),
    }
    if reproduces is not None:
        entry["reproduces"] = reproduces
    return entry


def _document(command: str, *, settings: Mapping[str, Any], started: str, seconds: float,
              exit_code: int, targets: list[dict[str, Any]], findings: list[dict[str, Any]],
              replays: list[dict[str, Any]], errors: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "format": RESULTS_FORMAT,
        "schema_version": RESULTS_SCHEMA_VERSION,
        "command": command,
        "pctfuzz_version": __version__,
        "python": _python(),
        "started": started,
        "seconds": round(max(0.0, seconds), 3),
        "exit_code": exit_code,
        "settings": dict(settings),
        "targets": targets,
        "findings": findings,
        "replays": replays,
        "errors": errors,
        "summary": {
            "targets": len(targets),
            "findings": len(findings),
            "new_findings": sum(1 for f in findings if f["new"] is True),
            "known_findings": sum(1 for f in findings if f["new"] is False),
            "replayed": len(replays),
            "reproduced": sum(1 for r in replays if r["reproduces"]),
            "errors": len(errors),
        },
    }


def _error(message: str, path: str | None = None, target: str | None = None) -> dict[str, Any]:
    return {"path": path, "target": target, "message": clean(_one_line(message, 1000))}


def fuzz_results(result: Any, *, settings: Mapping[str, Any], findings_dir: Path,
                 started: str, exit_code: int) -> dict[str, Any]:
    """The results document of a campaign (``campaign.CampaignResult``)."""
    from pctfuzz.store import FindingStore, StoreError

    store = FindingStore(findings_dir)
    targets: list[dict[str, Any]] = []
    findings: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for stats in result.stats:
        targets.append({
            "target": stats.target,
            "workers": stats.workers,
            "seconds": round(stats.seconds, 3),
            "execs": stats.execs,
            "exec_per_s": stats.exec_per_s,
            "initial_cov": stats.initial_cov,
            "cov": stats.cov,
            "ft": stats.ft,
            "corpus_units": stats.corpus_units,
            "restarts": stats.restarts,
            "new_findings": list(stats.new_findings),
            "known_findings": list(stats.known_findings),
            "errors": [clean(e) for e in stats.errors],
            "asked": stats.asked,
            "answered": stats.answered,
            "problems": [clean(p) for p in
                         stats.problems(stopped=result.stopped_by is not None)],
        })
        for ident, new in [*((i, True) for i in stats.new_findings),
                           *((i, False) for i in stats.known_findings)]:
            try:
                finding = store.get(ident)
            except StoreError as exc:
                errors.append(_error(f"finding {ident}: {exc}", target=stats.target))
                continue
            findings.append(finding_entry(finding, findings_dir / finding.file_name, new=new))
        errors += [_error(e, target=stats.target) for e in stats.errors]
        errors += [_error(f"INCOMPLETE: {p}", target=stats.target)
                   for p in stats.problems(stopped=result.stopped_by is not None)]
    return _document("fuzz", settings=settings, started=started, seconds=result.seconds,
                     exit_code=exit_code, targets=targets, findings=findings, replays=[],
                     errors=errors)


def replay_results(items: Sequence[Any], *, settings: Mapping[str, Any], started: str,
                   seconds: float, exit_code: int) -> dict[str, Any]:
    """The results document of a replay: ``items`` are ``replay.Verdict`` objects and
    ``(path, message)`` pairs for unusable inputs, as ``replay_paths`` yields them."""
    from pctfuzz.fuzz.replay import Verdict
    from pctfuzz.store import StoreError, load_finding

    per_target: dict[str, dict[str, Any]] = {}
    findings: list[dict[str, Any]] = []
    replays: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, Verdict):
            path, message = item
            errors.append(_error(str(message), path=clean(os.fspath(path))))
            continue
        row = per_target.setdefault(item.target, {
            "target": item.target, "replayed": 0, "reproduced": 0, "new_findings": [],
            "known_findings": [], "errors": []})
        row["replayed"] += 1
        row["reproduced"] += int(item.reproduces)
        replays.append({
            "path": clean(os.fspath(item.path)),
            "target": item.target,
            "reproduces": item.reproduces,
            "evidence": clean(item.evidence),
            "finding_id": item.finding_id,
            "status": item.status,
        })
        if item.finding_id is not None:
            try:
                finding = load_finding(item.path)
            except StoreError as exc:
                errors.append(_error(str(exc), path=clean(os.fspath(item.path))))
                continue
            findings.append(finding_entry(finding, clean(os.fspath(item.path)),
                                          reproduces=item.reproduces))
    return _document("replay", settings=settings, started=started, seconds=seconds,
                     exit_code=exit_code, targets=list(per_target.values()), findings=findings,
                     replays=replays, errors=errors)


def report_results(findings: Iterable[Any], *, findings_dir: Path,
                   problems: Iterable[Any] = (), campaign: Mapping[str, Any] | None = None,
                   settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The results document of ``pctfuzz report``: every finding in the store, with
    per-target counts (and a campaign's statistics merged in when given)."""
    entries = [finding_entry(f, findings_dir / f.file_name) for f in findings]
    entries.sort(key=lambda e: (e["target"], e["kind"], e["first_seen"], e["id"]))
    per_target: dict[str, dict[str, Any]] = {}
    stats = {t["target"]: t for t in (campaign or {}).get("targets", [])
             if isinstance(t, dict) and isinstance(t.get("target"), str)}
    for name in sorted({e["target"] for e in entries} | set(stats)):
        mine = [e for e in entries if e["target"] == name]
        row: dict[str, Any] = {
            "target": name,
            "findings": len(mine),
            "hits": sum(e["hits"] for e in mine),
            "kinds": dict(sorted(Counter(e["kind"] for e in mine).items())),
            "statuses": dict(sorted(Counter(e["status"] for e in mine).items())),
            "new_findings": [], "known_findings": [], "errors": [],
        }
        for key in ("workers", "seconds", "execs", "exec_per_s", "initial_cov", "cov", "ft",
                    "corpus_units", "restarts", "new_findings", "known_findings"):
            if key in stats.get(name, {}):
                row[key] = stats[name][key]
        per_target[name] = row
    errors = [_error(p.message, path=clean(os.fspath(p.path))) for p in problems]
    return _document("report", settings=settings or {"findings": os.fspath(findings_dir)},
                     started=_now(), seconds=0.0, exit_code=0,
                     targets=list(per_target.values()), findings=entries, replays=[],
                     errors=errors)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is not a finite number")
    return value


def load_campaign(path: Path) -> dict[str, Any]:
    """A results document written by ``pctfuzz fuzz --json``; ``PctfuzzError`` (one
    line) if the file is missing, too big, not JSON or not such a document."""
    try:
        if path.stat().st_size > 64 << 20:
            raise PctfuzzError(f"{path}: campaign file over 64 MiB")
        # Strict JSON: NaN, Infinity and 1e999 would make the report unwritable later.
        data = json.loads(path.read_text(encoding="utf-8"), parse_constant=_no_constant,
                          parse_float=_finite_float)
    except OSError as exc:
        raise PctfuzzError(f"{path}: cannot read campaign file: {exc.strerror}") from None
    except RecursionError:
        raise PctfuzzError(f"{path}: campaign file is not JSON: nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise PctfuzzError(f"{path}: campaign file is not JSON: {_one_line(str(exc))}") from None
    if not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT:
        raise PctfuzzError(f"{path}: not a pctfuzz results file (format {RESULTS_FORMAT!r})")
    if data.get("schema_version") != RESULTS_SCHEMA_VERSION:
        raise PctfuzzError(f"{path}: unsupported results schema_version "
                           f"{_one_line(repr(data.get('schema_version')), 40)}")
    targets = data.get("targets")
    if not isinstance(targets, list) or not all(isinstance(t, dict) for t in targets):
        raise PctfuzzError(f"{path}: 'targets' must be a list of objects")
    return data


# ---------------------------------------------------------------------------- output


def check_destinations(*dests: str | None) -> None:
    """Fail early (``PctfuzzError``) on an output that cannot be written: at most one
    ``-`` (stdout), and every file's folder must exist."""
    given = [d for d in dests if d is not None]
    if sum(d == "-" for d in given) > 1:
        raise PctfuzzError("only one of --json/--sarif/--junit/--html can be '-' (stdout)")
    for dest in given:
        if dest == "-":
            continue
        path = Path(dest)
        if path.is_dir():
            raise PctfuzzError(f"{dest}: is a directory")
        parent = path.parent if str(path.parent) else Path(".")
        if not parent.is_dir():
            raise PctfuzzError(f"{dest}: folder {parent} does not exist")
        if not os.access(parent, os.W_OK):
            raise PctfuzzError(f"{dest}: folder {parent} is not writable")


def write_output(dest: str, text: str) -> None:
    """Write ``text`` (UTF-8) to ``dest`` atomically, or to stdout for ``-``.

    The temporary file is made by ``tempfile.mkstemp`` in the destination folder:
    a random name, created with ``O_EXCL``, so a symlink planted at a temporary name
    is never followed (creation fails on it instead, and another name is tried). It is
    fsynced and renamed over ``dest``; a symlink at ``dest`` itself is replaced, not
    followed. A reader sees the old file or the new one, never part of one."""
    if dest == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    path = Path(dest)
    data = text.encode("utf-8", "backslashreplace")
    folder = path.parent if str(path.parent) else Path(".")
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "wb") as handle:
            mask = os.umask(0)
            os.umask(mask)
            os.fchmod(handle.fileno(), 0o666 & ~mask)  # mkstemp makes 0600
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise PctfuzzError(f"{one_line(dest)}: cannot be written: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def to_json_text(document: Mapping[str, Any]) -> str:
    """JSON text (UTF-8 safe: lone surrogates are written as ``\\udXXX`` text)."""
    return json.dumps(_deep_clean(document), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


# ----------------------------------------------------------------------------- SARIF


def _artifact_location(path: str) -> dict[str, Any]:
    candidate = Path(path)
    if candidate.is_absolute():
        with contextlib.suppress(ValueError):
            candidate = candidate.relative_to(Path.cwd())
    if candidate.is_absolute():
        return {"uri": candidate.as_uri()}
    return {"uri": urllib.parse.quote(candidate.as_posix(), safe="/"), "uriBaseId": "%SRCROOT%"}


def _sarif_items(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    """(finding entry or raw replay) for each SARIF result."""
    if document["command"] == "replay":
        by_path = {f["path"]: f for f in document["findings"]}
        items = []
        for replay in document["replays"]:
            if not replay["reproduces"]:
                continue
            finding = by_path.get(replay["path"])
            if finding is not None:
                items.append({**finding, "summary": f"reproduces: {finding['summary']}"})
            else:
                items.append({"raw": True, **replay})
        return items
    if document["command"] == "fuzz":
        return [f for f in document["findings"] if f["new"] is True]
    return [f for f in document["findings"] if f["status"] == "new"]


def to_sarif(document: Mapping[str, Any]) -> dict[str, Any]:
    """A SARIF 2.1.0 log for a results document (see the module docstring)."""
    import hashlib

    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    for item in _sarif_items(document):
        if item.get("raw"):
            rid = f"replay/{item['target']}"
            text = f"input reproduces in {item['target']}: {item['evidence']}"
            fingerprint = item["path"]
            ident = hashlib.sha256(f"{item['target']}|{item['path']}".encode()).hexdigest()[:16]
            props: dict[str, Any] = {"target": item["target"]}
            description = f"A raw input of target {item['target']} fails its check"
        else:
            rid = rule_id(item["kind"], item["check"])
            text = item["summary"]
            fingerprint = item["signature"]
            ident = item["id"]
            props = {k: item[k] for k in ("target", "kind", "status", "hits", "impl",
                                          "first_seen", "id")}
            description = (f"{item['kind']} of {item['check']}" if item["check"]
                           else f"{item['kind']} (libFuzzer stopped on the input)")
        if rid not in rules:
            rules[rid] = {
                "id": rid,
                "name": re.sub(r"[^A-Za-z0-9]+", "_", rid).strip("_") or "finding",
                "shortDescription": {"text": clean(description)},
                "defaultConfiguration": {"level": "error"},
            }
        results.append({
            "ruleId": rid,
            "ruleIndex": list(rules).index(rid),
            "level": "error",
            "kind": "fail",
            "message": {"text": clean(text) or rid},
            "locations": [{"physicalLocation": {
                "artifactLocation": _artifact_location(item["path"]),
                "region": {"startLine": 1},
            }}],
            "partialFingerprints": {"pctfuzzSignature/v1": clean(fingerprint)},
            "fingerprints": {"pctfuzzFindingId/v1": ident},
            "properties": props,
        })
    invocation: dict[str, Any] = {
        # 2 usage, 3 incomplete (a finding lost, a target that never ran), 4 internal
        "executionSuccessful": document["exit_code"] not in (2, 3, 4),
        "exitCode": document["exit_code"],
        "startTimeUtc": document["started"],
    }
    if document["errors"]:
        invocation["toolExecutionNotifications"] = [
            {"level": "error" if e["message"].startswith("INCOMPLETE") else "warning",
             "message": {"text": e["message"] or "error"},
             **({"locations": [{"physicalLocation": {
                 "artifactLocation": _artifact_location(e["path"])}}]} if e["path"] else {})}
            for e in document["errors"]
        ]
    log: dict[str, Any] = _deep_clean({
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "pctfuzz",
                "version": document["pctfuzz_version"],
                "semanticVersion": document["pctfuzz_version"],
                "rules": list(rules.values()),
            }},
            "invocations": [invocation],
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
            "results": results,
            "properties": {"command": document["command"], "summary": document["summary"]},
        }],
    })
    return log


# ----------------------------------------------------------------------------- JUnit


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: Any) -> ET.Element:
    node = ET.SubElement(parent, tag, {k: _xml_text(str(v)) for k, v in attrs.items()})
    if text is not None:
        node.text = _xml_text(text)
    return node


def to_junit(document: Mapping[str, Any]) -> str:
    """JUnit XML: a testcase per target, and per replayed input (see module docstring)."""
    command = document["command"]
    by_id = {f["id"]: f for f in document["findings"]}
    root = ET.Element("testsuites", {"name": f"pctfuzz {command}"})
    suite = _el(root, "testsuite", name=f"pctfuzz.{command}", timestamp=document["started"],
                time=f"{document['seconds']:.3f}")
    tests = failures = errors = 0
    for target in document["targets"]:
        tests += 1
        case = _el(suite, "testcase", classname=f"pctfuzz.{command}", name=target["target"],
                   time=f"{target.get('seconds', 0):.3f}")
        if command == "fuzz":
            new = [by_id[i] for i in target["new_findings"] if i in by_id]
            out = (f"processes={target['workers']} execs={target['execs']} "
                   f"exec/s={target['exec_per_s']} cov={target['cov']} ft={target['ft']} "
                   f"corpus={target['corpus_units']} new={len(target['new_findings'])} "
                   f"known={len(target['known_findings'])}")
            if target["new_findings"]:
                failures += 1
                lines = [f"{f['id']} {f['path']}: {f['summary']}" for f in new]
                _el(case, "failure", "\n".join(lines) or " ".join(target["new_findings"]),
                    message=f"{len(target['new_findings'])} new finding(s) in "
                    f"{target['target']}", type="new-finding")
        else:
            out = f"replayed={target.get('replayed', 0)} reproduced={target.get('reproduced', 0)}"
        _el(case, "system-out", out)
        if target.get("problems"):
            errors += 1
            _el(case, "error", "\n".join(target["problems"]),
                message=_one_line("; ".join(target["problems"]), 200), type="incomplete")
        if target["errors"]:
            _el(case, "system-err", "\n".join(target["errors"]))
    findings_by_path = {f["path"]: f for f in document["findings"]}
    for replay in document["replays"]:
        tests += 1
        name = replay["finding_id"] or Path(replay["path"]).name
        case = _el(suite, "testcase", classname=f"pctfuzz.fuzz.replay.{replay['target']}",
                   name=name, file=replay["path"])
        if replay["reproduces"]:
            failures += 1
            finding = findings_by_path.get(replay["path"])
            kind = finding["kind"] if finding else "reproduction"
            _el(case, "failure", replay["evidence"], type=kind,
                message=f"reproduces: {_one_line(replay['evidence'], 200)}")
    for error in document["errors"]:
        if command == "fuzz" and error["target"] is not None:
            continue  # already in its target's system-err
        tests += 1
        errors += 1
        case = _el(suite, "testcase", classname=f"pctfuzz.{command}",
                   name=error["path"] or "error")
        _el(case, "error", error["message"], message=_one_line(error["message"], 200),
            type="unusable-input")
    for node in (suite, root):
        node.set("tests", str(tests))
        node.set("failures", str(failures))
        node.set("errors", str(errors))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


# ---------------------------------------------------------------------- text and HTML


def findings_table(entries: Sequence[Mapping[str, Any]]) -> str:
    """The findings as an aligned text table (id, target, kind, status, hits,
    implementation and version, case, expected, actual), every cell on one printable
    line; under each finding, its file and the command that replays it."""
    head = ("id", "target", "kind", "status", "hits", "impl", "case", "expected", "actual")
    rows = [
        tuple(one_line(str(cell), 60) for cell in (
            e["id"], e["target"], e["kind"], e["status"], e["hits"],
            (f"{e['impl']} {e['version']}" if e.get("version") else e["impl"]) or "reference",
            e.get("case", ""), e["expected"] or "", e["actual"] or ""))
        for e in entries
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths, strict=True)).rstrip(),
             "  ".join("-" * w for w in widths)]
    for entry, row in zip(entries, rows, strict=True):
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        lines.append(f"    signature: {one_line(entry['signature'], 300)}")
        lines.append(f"    reproduce: {one_line(entry.get('reproduce', ''), 400)}")
        if entry.get("note"):
            lines.append(f"    note: {one_line(entry['note'], 400)}")
    return "\n".join(lines)


_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
td.n{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font:12px/1.3 ui-monospace,monospace;white-space:pre-wrap;word-break:break-all}
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


def render_html(document: Mapping[str, Any], findings: Sequence[Any] = ()) -> str:
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
        detail = [f"<details><summary>{_h(f['summary'])}</summary><dl>",
                  f"<dt>signature</dt><dd><code>{_h(f['signature'])}</code></dd>",
                  f"<dt>file</dt><dd><code>{_h(f['path'] or '')}</code></dd>",
                  f"<dt>implementation</dt><dd>{_h(f['impl'] or 'reference')}"
                  f"{' ' + _h(f['version']) if f.get('version') else ''}</dd>",
                  f"<dt>case</dt><dd><code>{_h(f.get('case', ''))}</code></dd>",
                  f"<dt>reproduce</dt><dd><code>{_h(f.get('reproduce', ''))}</code></dd>",
                  *([f"<dt>note</dt><dd>{_h(f['note'])}</dd>"] if f.get("note") else []),
                  f"<dt>expected</dt><dd><pre>{_h(f['expected'])}</pre></dd>",
                  f"<dt>actual</dt><dd><pre>{_h(f['actual'])}</pre></dd>",
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


# -------------------------------------------------------------------------- export

_EXPORT_HEADER = '''"""Regression tests exported by `pctfuzz export` (pctfuzz {version}, {date}).

Each test fails while its finding reproduces and passes once it is fixed. They read
no findings store: values are inlined. Tests of differential findings against
urllib.parse call urllib.parse directly and compare with the reference's answer,
computed at export time; the others need pctfuzz installed.
"""

from __future__ import annotations
'''

_TIMEOUT_HELPER = '''

def _within(seconds: float, func: Any) -> None:
    """Run ``func``; fail if it runs longer than ``seconds`` (a timeout finding)."""
    import signal

    def alarm(signum: int, frame: Any) -> None:
        raise AssertionError(f"ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        func()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
'''


def _lit(value: Any) -> str:
    """``value`` as a Python literal, wrapped for the body of a test function."""
    text = repr(value)
    if len(text) <= 64:
        return text
    return pprint.pformat(value, width=80, sort_dicts=False).replace("\n", "\n        ")


def _comment(text: str) -> str:
    return ascii(text)[1:-1]


def _func_name(finding: Any, used: set[str]) -> str:
    # The loader validated kind, target and id; an identifier is still made sure of.
    base = re.sub(r"\W", "_", f"test_{finding.kind}_{finding.target}_{finding.id}", flags=re.ASCII)
    name, n = base, 1
    while name in used:
        n += 1
        name = f"{base}_{n}"
    used.add(name)
    return name


def _urllib_call(check: str, case: Any) -> tuple[list[str], str] | None:
    """(statements, expression) calling urllib.parse the way the ``urllib`` adapter
    does for ``case``; None if the case has no such direct call."""
    from pctfuzz.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
    from pctfuzz.oracles.base import Unsupported
    from pctfuzz.oracles.urllib_parse import python_codec
    from pctfuzz.sets import FORM, get_set

    qsl = 'keep_blank_values=True, encoding="utf-8", errors="replace", separator="&"'
    try:
        if check == "encode" and isinstance(case, EncodeCase):
            safe = get_set(case.set_name).printable_safe
            if isinstance(case.value, bytes):
                func = "quote_plus" if case.space_as_plus else "quote_from_bytes"
                return [f"value = {_lit(case.value)}"], f"urllib.parse.{func}(value, safe={safe!r})"
            encoding, errors = python_codec(case.encoding)
            func = "quote_plus" if case.space_as_plus else "quote"
            return ([f"value = {_lit(case.value)}"],
                    f"urllib.parse.{func}(value, safe={safe!r}, encoding={encoding!r}, "
                    f"errors={errors!r})")
        if check == "decode" and isinstance(case, DecodeCase):
            return [f"value = {_lit(case.value)}"], "urllib.parse.unquote_to_bytes(value)"
        if check == "form" and isinstance(case, FormCase):
            encoding, errors = python_codec(case.encoding)
            return ([f"pairs = {_lit(list(case.pairs))}"],
                    f"urllib.parse.urlencode(pairs, safe={FORM.printable_safe!r}, "
                    f"encoding={encoding!r}, errors={errors!r}, "
                    "quote_via=urllib.parse.quote_plus)")
        if check == "form-parse" and isinstance(case, FormParseCase):
            if isinstance(case.text, bytes):
                return ([f"text = {_lit(case.text)}"],
                        f"[(n.decode('utf-8', 'replace'), v.decode('utf-8', 'replace')) "
                        f"for n, v in urllib.parse.parse_qsl(text, {qsl})]")
            return [f"text = {_lit(case.text)}"], f"urllib.parse.parse_qsl(text, {qsl})"
    except Unsupported:
        return None
    return None


def _registry_applies(impl: str, check: str, case: Any) -> bool:
    """Some active divergence-registry entry of ``impl`` for ``check`` covers ``case``."""
    from pctfuzz.checks.registry import divergences_for
    from pctfuzz.oracles.base import registry_names
    from pctfuzz.oracles.registry import get_impl

    for entry in divergences_for(registry_names(get_impl(impl)), check):
        try:
            if entry.active() and entry.applies(case):
                return True
        except Exception:
            return True
    return False


def _direct_test(finding: Any) -> list[str] | None:
    """Body of a test that calls urllib.parse without pctfuzz, when possible."""
    from pctfuzz.checks.registry import reference_outcome
    from pctfuzz.targets import get_target

    if finding.case is None or finding.impl not in ("urllib", "urllib-unquote"):
        return None
    target = get_target(finding.target)
    if not target.differential or finding.kind in ("timeout", "oom"):
        return None
    case = finding.rebuild_case()
    check = str(finding.case.get("type"))
    if finding.impl == "urllib-unquote" and check != "encode":
        return None  # its decoders re-encode surrogates: not a one-line call
    if _registry_applies(finding.impl, check, case):
        # An accepted difference touches this case: plain equality with the reference
        # would keep failing after a fix, so compare through pctfuzz's check instead.
        return None
    call = _urllib_call(check, case)
    if call is None:
        return None
    expected = reference_outcome(check, case)
    if expected.raised:
        return None  # the reference refuses the case: compare through pctfuzz instead
    statements, expression = call
    return [
        *statements,
        f"expected = {_lit(expected.value)}  # the reference's answer",
        f"actual = {expression}",
        "assert actual == expected",
    ]


def _pctfuzz_test(finding: Any) -> list[str]:
    """Body of a test that runs the target's shared check (pctfuzz, no store)."""
    from pctfuzz.oracles.faults import FAULTS
    from pctfuzz.targets import get_target

    target = get_target(finding.target)
    lines = [f"target = get_target({finding.target!r})"]
    if finding.case is None and finding.raw_input is None:
        raise PctfuzzError(f"finding {finding.id} has neither a case nor a raw input")
    if finding.case is not None:
        lines.append(f"case = case_from_json({_lit(finding.case)})")
    else:
        lines.append(f"case = target.from_bytes(base64.b64decode({finding.raw_input!r}))")
    if target.differential:
        lines.append(f"impl = get_impl({(finding.impl or 'urllib')!r})")
    elif finding.impl in FAULTS:
        lines.append(f"impl = FAULTS[{finding.impl!r}]  # a deliberately wrong codec")
    else:
        lines.append("impl = None  # the reference")
    if finding.kind == "timeout":
        lines.append("_within(5.0, lambda: target.check(case, impl))")
    else:
        lines.append("target.check(case, impl)")
    return lines


#: case type -> the name of its list in an ``export_examples`` module
_EXAMPLE_LISTS = {"encode": "ENCODE_EXAMPLES", "decode": "DECODE_EXAMPLES",
                  "form": "FORM_EXAMPLES", "form-parse": "FORM_PARSE_EXAMPLES"}


def _case_call(case: Any) -> str:
    """A case as a constructor call of literals only (every field through ``repr``)."""
    from pctfuzz.cases import EncodeCase, FormCase

    if isinstance(case, EncodeCase):
        return (f"EncodeCase({case.value!r}, {case.set_name!r}, {case.encoding!r}, "
                f"{case.space_as_plus!r})")
    if isinstance(case, FormCase):
        return f"FormCase({tuple(case.pairs)!r}, {case.encoding!r})"
    field = case.text if case.type == "form-parse" else case.value
    return f"{type(case).__name__}({field!r})"


def export_examples(findings: Sequence[tuple[Any, str]]) -> str:
    """A module of Hypothesis ``@example`` decorators, one per finding with a case,
    grouped by case type, for a test whose argument is ``case``::

        from pctfuzz_examples import ENCODE_EXAMPLES, with_examples
        @with_examples(ENCODE_EXAMPLES)
        @given(case=encode_cases())
        def test_encode(case): ...

    Every value reaches the source as a literal (``repr``) and every comment as ASCII
    on one line, so no record can add code."""
    if not findings:
        raise PctfuzzError("no findings to export")
    groups: dict[str, list[str]] = {name: [] for name in _EXAMPLE_LISTS.values()}
    for finding, _source in findings:
        try:
            case = finding.rebuild_case()
        except PctfuzzError:
            continue  # a stop finding without a case: replay its raw input instead
        groups[_EXAMPLE_LISTS[case.type]].append(
            f"    example(case={_case_call(case)}),  # {_comment(finding.id)} "
            f"{_comment(finding.signature)[:120]}")
    lines = [
        '"""Hypothesis @example decorators exported from pctfuzz findings',
        "(`pctfuzz export --hypothesis`): decorate a @given test whose argument is `case`.",
        '"""',
        "",
        "from hypothesis import example",
        "",
        "from pctfuzz.cases import DecodeCase, EncodeCase, FormCase, FormParseCase",
        "",
        "",
        "def with_examples(examples):",
        '    """Decorate a test with each of ``examples``."""',
        "",
        "    def decorate(test):",
        "        for each in reversed(examples):",
        "            test = each(test)",
        "        return test",
        "",
        "    return decorate",
        "",
    ]
    for name, items in groups.items():
        lines += ["", f"{name} = [", *items, "]"]
    return "\n".join(lines) + "\n"


def export_tests(findings: Sequence[tuple[Any, str]]) -> str:
    """A standalone pytest module reproducing ``findings`` (``(Finding, source path)``
    pairs): one test per finding, failing while it reproduces."""
    from pctfuzz.oracles.faults import FAULTS
    from pctfuzz.targets import get_target

    if not findings:
        raise PctfuzzError("no findings to export")
    used: set[str] = set()
    bodies: list[str] = []
    needs: set[str] = set()
    from pctfuzz.fuzz.replay import is_builtin_impl

    for finding, source in findings:
        if not is_builtin_impl(get_target(finding.target), finding.impl):
            # The test would import it: a record never chooses code that runs.
            raise PctfuzzError(f"{one_line(source)}: names implementation "
                               f"{one_line(str(finding.impl), 100)!r}, which is not built in; "
                               "not exported")
        body = _direct_test(finding)
        if body is not None:
            needs.add("urllib")
        else:
            body = _pctfuzz_test(finding)
            needs.add("pctfuzz")
            if finding.case is None:
                needs.add("base64")
            if get_target(finding.target).differential:
                needs.add("get_impl")
            elif finding.impl in FAULTS:
                needs.add("faults")
            if finding.kind == "timeout":
                needs.add("timeout")
        check = finding_check(finding)
        # Comments hold record text through ``_comment`` only (ASCII, no newline), so
        # no value of a record can end a comment and become source.
        doc = [
            _comment(f"# {finding.kind} in {finding.target}" + (f" ({check})" if check else "")
                     + (f" against {finding.impl}" if finding.impl else "")),
            f"# signature: {_comment(finding.signature)}",
            _comment(f"# finding: {source} (status {finding.status}, {finding.hits} hit(s), "
                     f"first seen {finding.first_seen})"),
        ]
        if finding.expected is not None or finding.actual is not None:
            doc.append(f"# recorded: expected {_comment(str(finding.expected))[:300]}, "
                       f"actual {_comment(str(finding.actual))[:300]}")
        name = _func_name(finding, used)
        bodies.append("\n\n" + "\n".join(doc) + f"\ndef {name}() -> None:\n"
                      + "".join(f"    {line}\n" for line in body))
    imports = []
    if "timeout" in needs:
        imports.append("from typing import Any")
    if "base64" in needs:
        imports.append("import base64")
    if "urllib" in needs:
        imports.append("import urllib.parse")
    pkg = []
    if "pctfuzz" in needs:
        pkg += ["from pctfuzz.cases import case_from_json",
                "from pctfuzz.targets import get_target"]
    if "get_impl" in needs:
        pkg.append("from pctfuzz.oracles import get_impl")
    if "faults" in needs:
        pkg.append("from pctfuzz.oracles.faults import FAULTS")
    date = datetime.now(UTC).strftime("%Y-%m-%d")
    source = _EXPORT_HEADER.format(version=__version__, date=date)
    if imports:
        source += "\n" + "\n".join(sorted(imports)) + "\n"
    if pkg:
        source += "\n" + "\n".join(sorted(pkg)) + "\n"
    if "timeout" in needs:
        source += _TIMEOUT_HELPER
    source += "".join(bodies)
    compile(source, "<pctfuzz export>", "exec")  # never write a file that does not parse
    return source

