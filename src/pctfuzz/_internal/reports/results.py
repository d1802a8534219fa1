"""The results document (``schema.RESULTS_SCHEMA``): what one ``pctfuzz fuzz``,
``replay`` or ``report`` run found, built once and shared by every format (JSON,
SARIF, JUnit, the table, the HTML page), so the formats always agree.

Every string taken from a record goes through ``clean``: lone surrogates become
``\\udXXX`` text, so each format can write the document as valid UTF-8.
"""

from __future__ import annotations

import json
import math
import os
import platform
import shlex
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pctfuzz import __version__
from pctfuzz._internal.accept import not_acceptable
from pctfuzz._internal.accept.impact import impact_of
from pctfuzz._internal.accept.meaning import BLOCKING
from pctfuzz._internal.checks.registry import case_text
from pctfuzz._internal.errors import PctfuzzError, UsageError
from pctfuzz._internal.fuzz.campaign import CampaignResult
from pctfuzz._internal.fuzz.replay import Verdict, is_builtin_impl
from pctfuzz._internal.reports.schema import RESULTS_FORMAT, RESULTS_SCHEMA_VERSION
from pctfuzz._internal.store import Finding, FindingStore, StoreError, load_finding
from pctfuzz._internal.targets import get_target
from pctfuzz._internal.text import LONE_SURROGATE, one_line

__all__ = [
    "accept_command",
    "clean",
    "deep_clean",
    "finding_check",
    "finding_entry",
    "fuzz_results",
    "load_campaign",
    "replay_results",
    "report_results",
    "reproduce_command",
    "rule_id",
]



def clean(text: str) -> str:
    """``text`` with lone surrogates written as ``\\udXXX`` (valid UTF-8 everywhere)."""
    return LONE_SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def deep_clean(value: Any) -> Any:
    """``clean`` applied to every string (keys too) of a JSON-like value."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(str(k)): deep_clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [deep_clean(v) for v in value]
    return value


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _python() -> str:
    return f"{platform.python_implementation()} {platform.python_version()}"


def finding_check(finding: Finding) -> str | None:
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


def raised_text(finding: Finding) -> str | None:
    """What a crash raised, ``Type: message``, from its evidence (None if unknown)."""
    evidence = finding.evidence if isinstance(finding.evidence, dict) else {}
    for key in ("impl_error", "exception", "error"):
        if isinstance(evidence.get(key), str) and evidence[key]:
            return str(evidence[key])
    return None


def _summary_line(finding: Finding, check: str | None) -> str:
    what = f"{finding.kind} in {finding.target}" + (f" ({check})" if check else "")
    raised = raised_text(finding) if finding.kind == "crash" else None
    if raised is not None:
        # A crash prints what was raised, never "expected ..., got None".
        what += f": raised {raised}"
    elif finding.expected is not None or finding.actual is not None:
        what += f": expected {finding.expected}, got {finding.actual}"
    elif isinstance(finding.evidence, dict) and finding.evidence:
        detail = finding.evidence.get("exception") or finding.evidence.get("error")
        if detail:
            what += f": {detail}"
    return clean(one_line(what, 500))


def _version(finding: Finding) -> str | None:
    """The recorded version of the finding's implementation, if one is known; "version
    unknown" for one recorded as ``unknown: <why>`` (the record keeps why: each row of
    a report said "cpath is in no installed distribution (declare distribution=)")."""
    version = finding.versions.get(finding.impl) if finding.impl else None
    if version and version.startswith("unknown:"):
        return "version unknown"
    return clean(version) if version and version != "unknown" else None


def _case_text(finding: Finding) -> str:
    """The finding's case as a short call (``encode('~', set='path')``), or its raw
    input's length when the record has no case."""
    try:
        return case_text(finding.rebuild_case())
    except PctfuzzError:
        raw = finding.raw_bytes()
        return f"raw input of {len(raw)} bytes" if raw is not None else "-"


def reproduce_command(finding: Finding, path: Path | str | None) -> str:
    """The command that replays ``finding``: ``pctfuzz replay FILE``, with ``--impl``
    when the record names an implementation that is not built in (replay never loads
    what a record names: the user says it)."""
    where = os.fspath(path) if path is not None else f"findings/{finding.file_name}"
    return f"pctfuzz replay {shlex.quote(where)}{_impl_option(finding)}"


def _impl_option(finding: Finding) -> str:
    """`` --impl NAME`` when the record names an implementation that is not built in
    (a command never loads what a record names: the user says it), else nothing."""
    try:
        builtin = is_builtin_impl(get_target(finding.target), finding.impl)
    except PctfuzzError:
        builtin = True
    return f" --impl {shlex.quote(finding.impl)}" if finding.impl and not builtin else ""


def accept_command(finding: Finding, path: Path | str | None) -> str | None:
    """The command that accepts ``finding``'s behaviour (``pctfuzz accept``) if it is
    intended: the findings folder of ``path``, ``--impl`` as ``reproduce_command`` adds
    it, and ``--accept-impact`` when the impact is one that the command accepts only
    when told to; None when no rule that an accept file can state explains it."""
    if not_acceptable(finding.kind, finding.target, finding.behaviour) is not None:
        return None
    command = f"pctfuzz accept {finding.id}"
    if path is not None:
        command += f" --findings {shlex.quote(os.fspath(Path(path).parent))}"
    command += _impl_option(finding)
    if finding_impact(finding) in BLOCKING:
        command += " --accept-impact"
    return command


def finding_impact(finding: Finding) -> str:
    """What the finding's difference means to the component (``accept.impact``)."""
    parts = finding.signature.split("|")
    behaviour = finding.behaviour if isinstance(finding.behaviour, dict) else None
    return impact_of(finding.kind, parts[3] if len(parts) > 3 else "", behaviour)


def finding_entry(finding: Finding, path: Path | str | None, *, new: bool | None = None,
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
        "raised": clean(one_line(raised_text(finding) or "", 300)) or None
        if finding.kind == "crash" else None,
        "case": clean(one_line(_case_text(finding), 300)),
        "version": _version(finding),
        "note": clean(finding.note) if finding.note is not None else None,
        "impact": finding_impact(finding),
        "behaviour": None if finding.behaviour is None else {
            "rule": clean(str(finding.behaviour["rule"])),
            "params": deep_clean(finding.behaviour["params"]),
            "text": clean(str(finding.behaviour["text"])),
        },
        "fixed_in": deep_clean(finding.fixed_in) if finding.fixed_in else None,
        "reproduce": clean(reproduce_command(finding, path)),
        "accept": None if (accept := accept_command(finding, path)) is None else clean(accept),
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
    return {"path": path, "target": target, "message": clean(one_line(message, 1000))}


def fuzz_results(result: CampaignResult, *, settings: Mapping[str, Any], findings_dir: Path,
                 started: str, exit_code: int,
                 verified: Sequence[Verdict] = (),
                 errors: Sequence[str] = ()) -> dict[str, Any]:
    """The results document of a campaign (``campaign.CampaignResult``); ``verified``:
    the replay of the open findings at its end (``replay.replay_open``), as
    ``replays``, each finding with ``reproduces`` (SARIF and JUnit report those that
    still fail, with the same fingerprints as when they were new); ``errors``: the
    command's own (a replay stopped by a signal)."""
    store = FindingStore(findings_dir)
    targets: list[dict[str, Any]] = []
    findings: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = [_error(e) for e in errors]
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
            "deferred": stats.deferred,
            "not_reached": [
                {"module": clean(name), "lines": reach.total, "reached": reach.reached,
                 "executions": reach.executions, "why": clean(why)}
                for name, reach in stats.modules.items()
                if (why := reach.problem()) is not None],
            "problems": [clean(p) for p in
                         stats.problems(stopped=result.stopped_by is not None)],
        })
        for ident, new in [*((i, True) for i in stats.new_findings),
                           *((i, False) for i in stats.known_findings)]:
            try:
                finding = store.get(ident)
            except StoreError as exc:
                items.append(_error(f"finding {ident}: {exc}", target=stats.target))
                continue
            findings.append(finding_entry(finding, findings_dir / finding.file_name, new=new))
        items += [_error(e, target=stats.target) for e in stats.errors]
        if (corpus := stats.corpus_not_run()) is not None:
            items.append(_error(f"WARNING: corpus not run in full: {corpus}",
                                target=stats.target))
        items += [_error(f"INCOMPLETE: {p}", target=stats.target)
                  for p in stats.problems(stopped=result.stopped_by is not None)]
    by_id = {f["id"]: f for f in findings}
    replays = []
    for verdict in verified:
        replays.append(_replay_item(verdict))
        try:
            finding = load_finding(verdict.path)
        except StoreError as exc:
            items.append(_error(str(exc), path=clean(os.fspath(verdict.path))))
            continue
        entry = finding_entry(finding, findings_dir / finding.file_name,
                              new=by_id[finding.id]["new"] if finding.id in by_id else False,
                              reproduces=verdict.reproduces)
        if finding.id in by_id:
            by_id[finding.id].update(entry)
        else:
            findings.append(entry)
    document = _document("fuzz", settings=settings, started=started, seconds=result.seconds,
                         exit_code=exit_code, targets=targets, findings=findings,
                         replays=replays, errors=items)
    # The share of the campaign spent on the implementation under test (issue 22.3).
    on_impl, total = result.implementation_share
    document["summary"].update(execs=total, impl_execs=on_impl)
    return document


def _replay_item(verdict: Verdict) -> dict[str, Any]:
    return {
        "path": clean(os.fspath(verdict.path)),
        "target": verdict.target,
        "reproduces": verdict.reproduces,
        "evidence": clean(verdict.evidence),
        "finding_id": verdict.finding_id,
        "status": verdict.status,
        "outcome": verdict.outcome,
    }


def replay_results(items: Sequence[Any], *, settings: Mapping[str, Any], started: str,
                   seconds: float, exit_code: int) -> dict[str, Any]:
    """The results document of a replay: ``items`` are ``replay.Verdict`` objects and
    ``(path, message)`` pairs for unusable inputs, as ``replay_paths`` yields them."""
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
        replays.append(_replay_item(item))
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


def report_results(findings: Iterable[Finding], *, findings_dir: Path,
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
            raise UsageError(f"{path}: campaign file over 64 MiB")
        # Strict JSON: NaN, Infinity and 1e999 would make the report unwritable later.
        data = json.loads(path.read_text(encoding="utf-8"), parse_constant=_no_constant,
                          parse_float=_finite_float)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read campaign file: {exc.strerror}") from None
    except RecursionError:
        raise UsageError(f"{path}: campaign file is not JSON: nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path}: campaign file is not JSON: "
                           f"{one_line(str(exc), 300)}") from None
    if not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT:
        raise UsageError(f"{path}: not a pctfuzz results file (format {RESULTS_FORMAT!r})")
    if data.get("schema_version") != RESULTS_SCHEMA_VERSION:
        raise UsageError(f"{path}: unsupported results schema_version "
                           f"{one_line(repr(data.get('schema_version')), 40)}")
    targets = data.get("targets")
    if not isinstance(targets, list) or not all(isinstance(t, dict) for t in targets):
        raise UsageError(f"{path}: 'targets' must be a list of objects")
    return data

