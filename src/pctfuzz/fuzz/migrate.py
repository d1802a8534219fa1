"""Rewrite finding records whose signature is of an older format (``pctfuzz migrate``).

A signature's format is versioned (``identity.SIGNATURE_VERSION``, stored in each
record as ``signature_version``). A record of an older format keeps its triage: the
case is replayed, and when it still fails with the same target, kind and check, the
record is rewritten under the current signature -- a new id and file name -- with
its status, first/last seen and hits carried over, and the old file is removed. A
record whose case no longer fails that way is left as it is and reported. Stop
findings (timeout, oom) need no replay: their signature has no class.

Like replay, migration never runs code a record names: a record naming an
implementation that is not built in is migrated only against ``--impl``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pctfuzz.errors import PctfuzzError, UsageError
from pctfuzz.fuzz.replay import DEFAULT_TIMEOUT, _impl_for, run_case
from pctfuzz.identity import SIGNATURE_VERSION, finding_id, stop_signature
from pctfuzz.store import Finding, FindingStore, StoreError
from pctfuzz.targets import get_target

__all__ = ["Migration", "migrate_findings"]


@dataclass(frozen=True)
class Migration:
    """What happened to one record: ``migrated`` (``new_path`` holds it now),
    ``current`` (nothing to do) or ``kept`` (``why`` it could not be migrated)."""

    path: Path
    outcome: str
    why: str = ""
    new_path: Path | None = None

    def line(self) -> str:
        if self.outcome == "migrated" and self.new_path is not None:
            return f"{self.path.name}: migrated to {self.new_path.name}"
        return f"{self.path.name}: {self.outcome}" + (f" ({self.why})" if self.why else "")


def _new_signature(finding: Finding, impl: str | None, cache: dict[Any, Any]) -> str:
    target = get_target(finding.target)
    name = impl or finding.impl
    if finding.kind in ("timeout", "oom"):
        return stop_signature(target.name, finding.kind, name)
    runner = _impl_for(target, name, cache, recorded=impl is None)
    run = run_case(target, finding.rebuild_case(), runner, DEFAULT_TIMEOUT, impl_name=name)
    if run.signature is None:
        raise UsageError("its case no longer fails; replay it, then triage it as fixed")
    if run.signature.split("|")[:3] != finding.signature.split("|")[:3]:
        raise UsageError(f"its case now fails differently ({run.signature})")
    return run.signature


def migrate_findings(folder: Path, *, impl: str | None = None) -> Iterator[Migration]:
    """Migrate every record of ``folder`` to the current signature format."""
    store = FindingStore(folder)
    cache: dict[Any, Any] = {}
    for finding in list(store.iter_findings()):
        path = store.path_for(finding)
        if finding.signature_version >= SIGNATURE_VERSION:
            yield Migration(path, "current")
            continue
        try:
            signature = _new_signature(finding, impl, cache)
        except (PctfuzzError, OSError) as exc:
            yield Migration(path, "kept", str(exc))
            continue
        renewed = dataclasses.replace(finding, signature=signature, id=finding_id(signature),
                                      signature_version=SIGNATURE_VERSION)
        try:
            # If a record of the new signature exists (two old ones are one bug now),
            # record() adds the hits to it and keeps its triage status.
            stored, _ = store.record(renewed)
            os.unlink(path)
        except (StoreError, OSError) as exc:
            yield Migration(path, "kept", f"cannot be rewritten: {exc}")
            continue
        yield Migration(path, "migrated", new_path=store.path_for(stored))
