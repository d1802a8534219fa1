"""Rewrite finding records of an older signature format, and re-minimize every record
to a 1-minimal case (``pctfuzz migrate``).

A signature's format is versioned (``identity.SIGNATURE_VERSION``, stored in each
record as ``signature_version``). A record of an older format keeps its triage: the
case is replayed, and when it still fails with the same target, kind and check (or, a
violation, now named by a catalogue rule under its operation's check), the record is
rewritten under the current signature -- a new id and file name -- with
its status, first/last seen and hits carried over, the old id kept in
``previous_ids`` (``replay``, ``triage``, ``accept`` still resolve it), and the old file
is removed. Two old records that name one behaviour now merge into one, their hits
summed. A
record whose case no longer fails that way is left as it is and reported. Stop
findings (timeout, oom, a crash that stopped the process) need no replay: their
signature has no class.

Then every record (migrated or current) that has a case and still fails with its own
signature is minimized again (``fuzz.minimize``: 1-minimal for that signature, each
unit lowered to the simplest). The signature, hence the id, file name, status, note,
hits, first/last seen and any other field, stays; the case, its raw input and what the
check says of it (expected, actual, evidence, traceback, ``minimized``) are replaced,
under the record's lock. A record whose case now fails with another signature, or
passes, is not touched (reported as ``kept``): its id would change, which is a triage
decision (replay it). Stop findings (timeout, oom, a crash that stopped the process)
keep their input.

Like replay, migration never runs code a record names: a record naming an
implementation that is not built in is migrated only against ``--impl``. With
``impl`` given, a record of another implementation is left alone (``skipped``):
replayed against ``impl`` it would be merged into ``impl``'s finding.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pctfuzz._internal.accept.impact import impact_of
from pctfuzz._internal.errors import PctfuzzError, UsageError
from pctfuzz._internal.fuzz.minimize import minimize_case, raw_input_for
from pctfuzz._internal.fuzz.recorder import Recorder, build_finding
from pctfuzz._internal.fuzz.replay import (
    DEFAULT_TIMEOUT,
    ReplayStopped,
    StopOnSignals,
    bound_for,
    run_case,
)
from pctfuzz._internal.identity import (
    RAISED_AFTER,
    RESOURCE_STOPS,
    SIGNATURE_VERSION,
    finding_id,
    made_without_accepted,
    stop_signature,
)
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings
from pctfuzz._internal.store import Finding, FindingStore, StoreError
from pctfuzz._internal.targets import BoundDifferential, Target, get_target
from pctfuzz._internal.text import one_line
from pctfuzz._internal.violations import Divergence

__all__ = ["Migration", "merge_into_named", "migrate_findings"]


@dataclass(frozen=True)
class Migration:
    """What happened to one record: ``migrated`` (``new_path`` holds it now),
    ``minimized`` (its case is smaller now; ``why`` says how), ``current`` (nothing to
    do), ``kept`` (``why`` it could not be migrated or minimized; ``failed``: it could
    not be rewritten) or ``skipped`` (a record of another implementation than
    ``impl``)."""

    path: Path
    outcome: str
    why: str = ""
    new_path: Path | None = None
    failed: bool = False

    def line(self) -> str:
        if self.outcome == "migrated" and self.new_path == self.path:
            return f"{self.path.name}: migrated to signature format {SIGNATURE_VERSION}, " \
                "same id" + (f" ({self.why})" if self.why else "")
        if self.outcome == "migrated" and self.new_path is not None:
            return f"{self.path.name}: migrated to {self.new_path.name}" + (
                f" ({self.why})" if self.why else "")
        return f"{self.path.name}: {self.outcome}" + (f" ({self.why})" if self.why else "")


def _new_signature(finding: Finding, impl: str | None, cache: dict[Any, Any],
                   settings: RunSettings) -> str:
    target = get_target(finding.target)
    name = impl or finding.impl
    if finding.kind in RESOURCE_STOPS or finding.native_crash:
        return stop_signature(target.name, finding.kind, name, accepted=settings.accepted)
    bound = bound_for(target, name, cache, recorded=impl is None, settings=settings)
    run = run_case(bound, finding.rebuild_case(), DEFAULT_TIMEOUT, impl_name=name)
    if run.signature is None:
        raise UsageError("its case no longer fails; replay it, then triage it as fixed")
    new, old = run.signature.split("|"), finding.signature.split("|")
    # Format 4 names a codec's violation by its rule under the operation's check,
    # whichever invariant saw it: the same failure, newly named.
    renamed = finding.kind == "violation" and new[3].startswith("rule=")
    if new[:2] != old[:2] or (new[2] != old[2] and not renamed):
        raise UsageError(f"its case now fails differently ({run.signature})")
    return run.signature


def _minimized(store: FindingStore, finding: Finding, impl: str | None,
               cache: dict[Any, Any], settings: RunSettings) -> str:
    """Re-minimize ``finding``'s case (module docstring); returns what changed ("" if
    it was 1-minimal and simplest already). ``UsageError`` when it cannot be done."""
    if finding.kind in RESOURCE_STOPS or finding.native_crash or finding.case is None:
        return ""
    target = get_target(finding.target)
    name = impl or finding.impl
    bound = bound_for(target, name, cache, recorded=impl is None, settings=settings)
    subject = bound.subject
    case = finding.rebuild_case()
    run = run_case(bound, case, DEFAULT_TIMEOUT, impl_name=name)
    if run.signature != finding.signature:
        raise UsageError("its case " + (f"now fails differently ({run.signature})"
                                        if run.signature else "no longer fails")
                         + "; not minimized (replay it)")
    representable = raw_input_for(target, case, subject, settings) is not None

    def keeps(candidate: Any) -> bool:
        if representable and raw_input_for(target, candidate, subject, settings) is None:
            return False
        return run_case(bound, candidate, DEFAULT_TIMEOUT,
                        impl_name=name).signature == finding.signature

    found = minimize_case(case, keeps)
    try:
        bound.check(found.case)
    except Exception as exc:
        fresh = build_finding(target, finding.impl, found.case,
                              raw_input_for(target, found.case, subject, settings), exc,
                              minimized=found.complete, signature=finding.signature,
                              impl=subject if target.differential else None,
                              code_under_test=bound.code_under_test)
    else:
        raise UsageError("its minimized case passed when checked again (flaky)")
    if (found.case, found.complete, fresh.behaviour) == (case, finding.minimized,
                                                         finding.behaviour):
        return ""

    def renew(current: Finding) -> Finding:
        return dataclasses.replace(
            current, case=fresh.case, raw_input=fresh.raw_input, expected=fresh.expected,
            actual=fresh.actual, evidence=fresh.evidence, traceback=fresh.traceback,
            minimized=fresh.minimized, behaviour=fresh.behaviour)

    store.update(finding.id, renew)
    size = (f"{_units(case)} -> {_units(found.case)} units" if found.case != case
            else "already 1-minimal; record refreshed")
    return size if found.complete else f"{size}; stopped at the try bound, run it again"


def _units(case: Any) -> int:
    """Code points (or bytes) and pairs of a case, for the report line."""
    if hasattr(case, "pairs"):
        return len(case.pairs) + sum(len(n) + len(v) for n, v in case.pairs)
    return len(getattr(case, "text", getattr(case, "value", "")))


def migrate_findings(folder: Path, *, impl: str | None = None, reidentify: bool = False,
                     settings: RunSettings = DEFAULT_SETTINGS) -> Iterator[Migration]:
    """Migrate every record of ``folder`` to the current signature format, then
    re-minimize it (module docstring). ``reidentify``: a current-format record whose
    case now fails with another signature of the same target, kind and check (pctfuzz's
    identity changed, e.g. a rule explains it now) is rewritten under it too."""
    store = FindingStore(folder)
    cache: dict[Any, Any] = {}
    # Two migrations of one store run one after the other; the second reads what the
    # first left. A store that cannot be written fails here (StoreError), before any work.
    with store.exclusive():
        for finding in list(store.iter_findings()):
            if impl is not None and finding.impl is not None and finding.impl != impl:
                yield Migration(store.path_for(finding), "skipped",
                                f"a record of {one_line(finding.impl)}, not of --impl "
                                f"{one_line(impl)}")
                continue
            # A --no-accepted finding is replayed as it was made (pctfuzz._internal.identity).
            made = dataclasses.replace(
                settings, accepted=not made_without_accepted(finding.signature))
            yield from _migrate_one(store, finding, impl, reidentify, cache, made)


def _migrate_one(store: FindingStore, finding: Finding, impl: str | None, reidentify: bool,
                 cache: dict[Any, Any], settings: RunSettings) -> Iterator[Migration]:
    path = store.path_for(finding)
    migrated = False
    if finding.signature_version < SIGNATURE_VERSION or (
            reidentify and finding.kind not in RESOURCE_STOPS
            and not finding.native_crash):
        try:
            signature = _new_signature(finding, impl, cache, settings)
        except (PctfuzzError, OSError) as exc:
            yield Migration(path, "kept", str(exc))
            return
    else:
        signature = finding.signature
    if signature == finding.signature and finding.signature_version < SIGNATURE_VERSION:
        # The same signature in the new format: the same record, its version moved.
        try:
            finding = store.update(finding.id, lambda current: dataclasses.replace(
                current, signature_version=SIGNATURE_VERSION))
        except (StoreError, OSError) as exc:
            yield Migration(path, "kept", f"cannot be rewritten: {exc}", failed=True)
            return
        migrated = True
    elif signature != finding.signature:
        ident = finding_id(signature)
        # The old id stays findable (replay, triage, accept resolve it).
        previous = [i for i in dict.fromkeys((*(finding.previous_ids or ()), finding.id))
                    if i != ident]
        renewed = dataclasses.replace(finding, signature=signature, id=ident,
                                      signature_version=SIGNATURE_VERSION,
                                      previous_ids=previous or None)
        try:
            # If a record of the new signature exists (two old ones are one bug now),
            # record() adds the hits to it and keeps its triage status -- unless it
            # lists this old id already: a migration killed before the unlink below
            # (or another one) absorbed it, and its hits are in.
            finding, _ = store.record(renewed, absorbs=finding.id)
            with contextlib.suppress(FileNotFoundError):  # another migration's unlink
                os.unlink(path)
        except (StoreError, OSError) as exc:
            yield Migration(path, "kept", f"cannot be rewritten: {exc}", failed=True)
            return
        migrated = True
    failed = False
    try:
        change = _minimized(store, finding, impl, cache, settings)
    except StoreError as exc:  # the case is smaller, the store cannot take it
        change, problem, failed = "", f"cannot be rewritten: {exc}", True
    except (PctfuzzError, OSError) as exc:
        change, problem = "", str(exc)
    else:
        problem = ""
    if migrated:
        why = (change and f"minimized: {change}") or (problem and f"not minimized: {problem}")
        yield Migration(path, "migrated", why, new_path=store.path_for(finding), failed=failed)
    elif problem:
        yield Migration(path, "kept", problem, failed=failed)
    else:
        yield Migration(path, "minimized" if change else "current", change)


def merge_into_named(folder: Path, impl: str, ids: Sequence[str],
                     settings: RunSettings = DEFAULT_SETTINGS,
                     stop: StopOnSignals | None = None) -> list[tuple[str, str, bool]]:
    """Merge each of ``ids`` (a campaign's new divergences) into the finding a rule names
    whose hit its case is: the check of its case, with the store's open findings of its
    target and implementation known but itself (``fuzz.recorder.Recorder`` seeds them),
    is that finding's exact prediction (``checks.known``). So is a finding of a narrower
    rule named first: pip's link cleaning, which decodes every escape as UTF-8 (U+FFFD
    for '%aa') before it quotes, was ``requoted(decode-unreserved)`` on ``%30`` beside
    ``requoted(decode-utf8)``. Which finding a campaign meets first decides what is known
    when an input is named: a TAB alone that urlsplit removes, met before the removal
    was named, was a finding of its own class beside ``removed('\\t\\n\\r')``. Only an
    untriaged record (status ``new``) of ``impl`` is merged, as ``pctfuzz migrate``
    merges two records (``FindingStore.record``: hits summed, its id kept in
    ``previous_ids``). So is a rule's finding whose case, its rule forgotten, is a
    class finding's hit (met first, with nothing known, it was named by a rule of its
    own; the behaviour's class, met after it, takes its case). A crash named by the
    statement that raised it, met before the cut
    whose end it refuses was known, is renamed ``raised=any;after(...)``
    (``checks.differential``), and the next ones merge into it. So is a divergence no
    rule named when it was met, which a rule names now that the findings met after it
    are known (and holds on its variants with them in force): a parser's decoding bug
    met beside its sorted answer, before the sorting was known, was a class whose fast
    path then took every later hit of the decoding, never named. A stop signal
    (``stop``) ends it between two findings or in a check, never in a record's write.
    Returns (merged id, id merged into, whether that id is the finding renamed) for
    each."""
    merging = _Merging(FindingStore(folder), impl, settings)
    # An implementation that crashed a process natively may crash this one at any
    # question a check asks (the set probe's character that killed a harness): its
    # findings are left as the campaign made them, as migrate leaves such crashes.
    if any(f.native_crash and f.impl == impl for f in merging.store.iter_findings([])):
        return merging.merged
    for ident in dict.fromkeys(ids):
        if stop is not None and stop.signum is not None:
            break
        try:
            merging.merge(ident, stop)
        except ReplayStopped:
            break
    return merging.merged


@dataclass
class _Merge:
    """One new finding ``merge_into_named`` may merge: its record, target, the
    signature's parts and, for a crash named by its statement, that statement."""

    finding: Finding
    target: Target
    parts: list[str]
    site: str | None

    @property
    def check(self) -> str:
        return str(self.finding.evidence.get("check", ""))


class _Merging:
    """``merge_into_named``'s state: the store, one bound implementation per target
    (``bound_for``'s cache) and its recorder, which knows the store's findings as a
    campaign knows them (``fuzz.recorder.Recorder`` seeds them), and what was merged."""

    def __init__(self, store: FindingStore, impl: str, settings: RunSettings) -> None:
        self.store, self.impl, self.settings = store, impl, settings
        self.cache: dict[Any, Any] = {}
        self.recorders: dict[str, Recorder] = {}
        self.merged: list[tuple[str, str, bool]] = []

    def _candidate(self, ident: str) -> _Merge | None:
        """``ident``'s record if it may be merged: an untriaged divergence of this
        implementation with a case, or such a crash named by its statement."""
        try:
            finding = self.store.get(ident)
            target = get_target(finding.target)
        except PctfuzzError:
            return None
        parts = finding.signature.split("|")
        # (a crash by its statement: it may be what a cut named later lets through)
        site = parts[3].removeprefix("raised=") if len(parts) > 3 and finding.kind == "crash" \
            and not finding.behaviour and "@" in parts[3] else None
        if (finding.kind != "divergence" and site is None) or finding.status != "new" \
                or finding.impl != self.impl or finding.case is None or len(parts) < 4:
            return None
        return _Merge(finding, target, parts, site)

    def merge(self, ident: str, stop: StopOnSignals | None) -> None:
        """Check ``ident``'s case with the findings known but itself, and merge or
        rename it as the check names it (``merge_into_named``); else it is known again
        as it was, for the next ones."""
        merge = self._candidate(ident)
        if merge is None:
            return
        finding, site, check = merge.finding, merge.site, merge.check
        try:  # (an implementation that cannot be bound, a case that cannot be read: kept)
            bound = bound_for(merge.target, self.impl, self.cache, settings=self.settings)
            if not isinstance(bound, BoundDifferential):
                return
            recorder = self.recorders.get(merge.target.name)
            if recorder is None:  # (the store's findings known, as a campaign knows them)
                recorder = self.recorders[merge.target.name] = Recorder(
                    merge.target, bound.subject, self.impl, self.store.root, None, bound=bound)
            case = finding.rebuild_case()
        except (PctfuzzError, OSError):
            return
        if site is not None:
            bound.known.forget_refusal_site(check, site)
        elif finding.behaviour:  # (a narrower rule named first: decode-unreserved on %30)
            bound.known.forget(check, finding.behaviour)
        else:
            bound.known.forget_unexplained(check, merge.parts[3])
        try:
            if stop is not None:
                stop.run(functools.partial(bound.check, case))
            else:
                bound.check(case)
        except ReplayStopped:
            raise
        except Divergence as exc:
            if self._merged(merge, exc, recorder, bound, case):
                return
        except Exception:  # (a failure of another kind: the record stands)
            pass
        if site is not None:
            bound.known.add_refusal_site(check, site, merge.parts[3], None)
        elif finding.behaviour:
            bound.known.add(check, finding.behaviour, case)
        else:
            bound.known.add_unexplained(check, merge.parts[3])

    def _merged(self, merge: _Merge, exc: Divergence, recorder: Recorder,
                bound: BoundDifferential, case: Any) -> bool:
        """Whether the finding, checked again as ``exc``, is done with: renamed by the
        rule that names it now, merged into the finding whose hit it is, or left as a
        finding of its own that is no longer known as it was (True); False when it is
        known again as it was."""
        store, finding, site = self.store, merge.finding, merge.site
        signature = recorder.signature(exc, b"")
        after = site is not None and exc.difference.startswith(RAISED_AFTER)
        # (a rule's finding whose case is now a class finding's hit merges into it:
        # met first, before that class was known, it split the behaviour in two)
        into = recorder.ids.get(signature) if exc.behaviour or after or finding.behaviour \
            else None
        if (after or (exc.behaviour and site is None)) and into is None:
            # (the first of them: named so, it takes the rest)
            into = finding_id(signature)
            if signature != finding.signature and _recorded_as(
                    store, finding, signature, exc.behaviour):
                recorder.ids[signature] = into
                if exc.behaviour:  # (its rule's hits are now this finding's)
                    bound.known.add(merge.check, exc.behaviour, case)
                self.merged.append((finding.id, into, True))
                return True
            into = None
        if into is not None and into != finding.id and finding.behaviour \
                and not exc.behaviour and not _same_impact(finding, store.get(into)):
            # (a rule's finding a broader class takes, of another impact: a real bug
            # under a harmless behaviour's class, hidden there; a blind diagnosis of
            # hold-out 19 found a form parser's bug merged so)
            into = None
        if into is not None and into != finding.id:
            if _recorded_as(store, finding, store.get(into).signature, exc.behaviour):
                self.merged.append((finding.id, into, False))
            return True  # (not written: it stands as it was, a finding of its own)
        return False


def _same_impact(one: Finding, other: Finding) -> bool:
    """The two findings have one impact (``accept.impact``): a merge never puts a
    finding that loses data or splits a field under one that does not."""
    def impact(finding: Finding) -> str:
        parts = finding.signature.split("|")
        return impact_of(finding.kind, parts[3] if len(parts) > 3 else "", finding.behaviour)

    return impact(one) == impact(other)


def _recorded_as(store: FindingStore, finding: Finding, signature: str,
                 behaviour: dict[str, Any] | None) -> bool:
    """``finding`` recorded again under ``signature`` (``behaviour`` its rule), merged
    into the record there if there is one (``FindingStore.record``: hits summed), its
    old id in ``previous_ids`` and its own record removed; False when it cannot be
    written (then it stands as it was)."""
    renewed = dataclasses.replace(finding, signature=signature, id=finding_id(signature),
                                  behaviour=behaviour, previous_ids=[
                                      *(finding.previous_ids or ()), finding.id])
    try:
        store.record(renewed, absorbs=finding.id)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(store.root / finding.file_name)
    except (StoreError, OSError):
        return False
    return True
