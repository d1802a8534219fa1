"""SARIF 2.1.0 from a results document: one result per new finding of a campaign and
per open finding that its final replay saw fail again, or per input that reproduces on
replay.

The finding file is the artifact location, ``ruleId`` is ``<kind>/<check>``, the
signature is the ``partialFingerprints`` entry ``pctfuzzSignature/v1`` and the finding
id the ``fingerprints`` entry ``pctfuzzFindingId/v1``, so code scanning tracks one bug
as one alert (SARIF 2.1.0 section 3.27.16 and 3.27.17).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from pctfuzz._internal.reports.results import clean, deep_clean, rule_id

__all__ = ["SARIF_SCHEMA_URI", "to_sarif"]

SARIF_SCHEMA_URI: Final = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)


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
        # New findings, and open ones its final replay saw fail again: an alert that
        # vanished from the upload would be closed by code scanning as if fixed.
        return [f for f in document["findings"]
                if f["new"] is True or f.get("reproduces") is True]
    return [f for f in document["findings"] if f["status"] == "new"]


def to_sarif(document: Mapping[str, Any]) -> dict[str, Any]:
    """A SARIF 2.1.0 log for a results document (see the module docstring)."""
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
    log: dict[str, Any] = deep_clean({
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

