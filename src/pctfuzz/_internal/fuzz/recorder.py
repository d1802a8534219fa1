"""Record mode of the atheris driver: each failure minimized to a 1-minimal case of
the same signature (``fuzz.minimize``), saved as a finding (deduplicated by
signature), its hits counted and flushed, its input added to the corpus
(``Recorder``); ``build_finding`` is the record both drivers save.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pctfuzz._internal.accept.rule import rule_from
from pctfuzz._internal.cases import Case
from pctfuzz._internal.checks.known import KnownFindings
from pctfuzz._internal.fuzz.minimize import (
    DEFAULT_SECONDS,
    minimize_case,
    raw_input_for,
    same_failure,
)
from pctfuzz._internal.fuzz.protocol import (
    finding_line,
    lost_hits,
    lost_line,
    say,
    warning_line,
)
from pctfuzz._internal.identity import classify, make_signature, refusal_site, signature_of
from pctfuzz._internal.settings import DEFAULT_SETTINGS
from pctfuzz._internal.targets import Bound, BoundDifferential, Target
from pctfuzz._internal.violations import Divergence, Violation

__all__ = ["Recorder", "build_finding", "record_case"]

#: At most this many findings from one input that keeps showing a failure none of its
#: findings explains (each round minimizes it with the findings before known).
_MAX_ROUNDS = 3


@dataclass(frozen=True)
class _Minimal:
    """A failure minimized (``Recorder._minimized``): its case and raw input, what it
    raised there, whether the minimizer finished, and the class it was known by while
    minimized (an unnamed divergence's: ``(check, difference)``), if any."""

    case: Case
    data: bytes | None
    exc: Exception
    complete: bool
    provisional: tuple[str, str] | None


class Recorder:
    """Record mode: turns failures into stored, deduplicated, minimized findings.

    The first failure of each signature in a process is minimized (a 1-minimal case of
    that signature, ``fuzz.minimize``; within ``minimize_seconds`` for all the rounds
    of one input, which the driver keeps below libFuzzer's per-input ``-timeout``; for
    a divergence no rule names, a
    smaller case that shows another failure no finding has yet keeps it too), named
    again on its minimal case (where a class widens that a long input's does not),
    and written at once; then its input is checked again with it known, and a failure
    none of the findings explains is recorded too (``_MAX_ROUNDS``)
    (``FindingStore.record``). Later hits of it are counted in memory and added to the
    record (``FindingStore.add_hits``) on the first hit at least ``flush_seconds`` after
    the last flush, and when libFuzzer ends the process normally (``-max_total_time``,
    ``-runs``: see ``_flush_at_exit``). So what a kill -9 -- or libFuzzer's own
    ``_Exit`` after a timeout, an RSS-limit stop or a deadly signal -- can lose is, per
    process and signature, the hits counted since its last flush: hits that all came
    within one ``flush_seconds`` window. Findings themselves are never lost once
    written. ``flush_seconds`` is ``PCTFUZZ_FLUSH_SECONDS`` (default 1).

    A finding or hits that cannot be saved (full disk, read-only folder, a hostile lock
    file, an unreadable record) are reported on stderr as one ``pctfuzz: LOST ...``
    line (``fuzz_protocol``), which makes the campaign end incomplete, and fuzzing goes
    on: a store error is never raised out of ``TestOneInput``, where libFuzzer would
    report it as a crash of the target. An input that cannot be added to the corpus
    is a ``pctfuzz: WARNING: CANNOT SAVE INPUT ...`` line. A corrupt record moved aside
    by the store is reported the same way (``pctfuzz: WARNING: <file>: <why>; moved to
    <name>``).
    """

    #: Default seconds between writes of in-memory hit counts (``PCTFUZZ_FLUSH_SECONDS``).
    FLUSH_SECONDS = 1.0

    def __init__(self, target: Target, impl: Any, impl_name: str | None,
                 findings_dir: Path, corpus_dir: Path | None, *,
                 minimize_seconds: float = DEFAULT_SECONDS,
                 bound: Bound | None = None) -> None:
        from pctfuzz._internal.store import Corpus, FindingStore

        self.target = target
        self.impl = impl
        self.impl_name = impl_name
        self.impl_modules = target.code_under_test(impl)
        self.findings = FindingStore(findings_dir)
        self.corpus = Corpus(corpus_dir) if corpus_dir is not None else None
        self.pending: dict[str, int] = {}  # signature -> hits not yet written
        self.ids: dict[str, str] = {}  # signature -> finding id
        self.unsaved: set[str] = set()  # signatures whose record could not be written
        self._signatures: dict[tuple[str, str], str] = {}  # (check, class) -> signature
        self.flush_seconds = _env_seconds("PCTFUZZ_FLUSH_SECONDS", self.FLUSH_SECONDS)
        self.last_flush = time.monotonic()
        self.minimize_seconds = minimize_seconds
        #: When the minimizations of the input being recorded must end: every round of
        #: one input shares ``minimize_seconds`` (libFuzzer counts them all as that
        #: input's time: three rounds of half its timeout each were a timeout finding).
        self._deadline = 0.0
        # The bound target's check (its known findings: ``checks.known``) names and
        # minimizes a failure as the campaign's own inputs are named.
        self.bound = bound
        self.known = bound.known if isinstance(bound, BoundDifferential) else None
        #: The run's settings (the bound target's; none bound: a one-off's defaults).
        self.settings = bound.settings if bound is not None else DEFAULT_SETTINGS
        #: Signatures of the store's open findings, known before their first hit here;
        #: that hit says "known finding" once, as a recorded one does.
        self.seeded: set[str] = set()
        if self.known is not None:
            self._seed(self.known)

    def _seed(self, known: KnownFindings) -> None:
        """Know the store's findings of this target and implementation that a rule names
        (and whose signature it still gives), but fixed ones (whose return reopens them,
        ``FindingStore.record``): their hits take the fast path."""
        try:
            records = list(self.findings.iter_findings([]))
        except Exception:  # an unreadable store is reported when a finding is written
            return
        for record in records:
            if record.target != self.target.name or record.impl != self.impl_name \
                    or record.status == "fixed":
                continue
            check = str(record.evidence.get("check", ""))
            if not record.behaviour:
                self._seed_unexplained(known, record, check)
                continue
            try:
                case = record.rebuild_case()
                klass = rule_from(str(record.behaviour["rule"]),
                                  dict(record.behaviour["params"])).klass()
            except Exception:
                continue
            if make_signature(self.target.name, record.kind, check, klass,
                              self.impl_name, accepted=self.settings.accepted) != record.signature:
                continue  # another accepted mode, or named otherwise today
            if known.add(check, record.behaviour, case):
                self.ids[record.signature] = record.id
                self.seeded.add(record.signature)
        for record in records:
            if record.kind == "crash" and record.target == self.target.name \
                    and record.impl == self.impl_name and record.status != "fixed":
                self._seed_refusal(known, record)

    def _seed_refusal(self, known: KnownFindings, record: Any) -> None:
        """Know a store's refusal by the statement that raised it, read from its record
        (``raised_at``; an unnamed one's signature holds it too: ``raised=<type>@<where>``,
        ``identity.crash_class``). Read, not asked again: a campaign calls the
        implementation on its own inputs only, so each call is a counted hit or pass."""
        parts = record.signature.split("|")
        if len(parts) < 4:
            return
        site = record.evidence.get("raised_at")
        if not isinstance(site, str) and not record.behaviour \
                and parts[3].startswith("raised="):
            site = parts[3].removeprefix("raised=")
        if not isinstance(site, str) or site.endswith(("@-", "@pctfuzz")):
            return  # not located: ``refusal_site`` knows no statement
        known.add_refusal_site(str(record.evidence.get("check", "")), site, parts[3],
                               record.behaviour or None)
        self.ids[record.signature] = record.id
        self.seeded.add(record.signature)

    def _seed_unexplained(self, known: KnownFindings, record: Any, check: str) -> None:
        """Know a store's divergence that no rule names by its class, when its signature
        is still the one its class gives."""
        parts = record.signature.split("|")
        if record.kind != "divergence" or len(parts) < 4 or make_signature(
                self.target.name, record.kind, check, parts[3],
                self.impl_name, accepted=self.settings.accepted) != record.signature:
            return
        known.add_unexplained(check, parts[3])
        self.ids[record.signature] = record.id
        self.seeded.add(record.signature)

    def signature(self, exc: BaseException, data: bytes) -> str:
        """The signature of ``exc``, raised on input ``data`` (``pctfuzz._internal.identity``)."""
        if isinstance(exc, Divergence) and exc.impl_error is None:
            # A divergence's signature is its check and class: the same for every hit
            key = (exc.check, exc.difference)
            known = self._signatures.get(key)
            if known is None:
                known = self._signatures[key] = signature_of(
                    self.target.name, exc, impl=self.impl_name,
                    code_under_test=self.impl_modules, accepted=self.settings.accepted)
            return known
        case = None
        if not isinstance(exc, Divergence):  # (a divergence carries its class)
            try:
                case = self._case_from_bytes(data)
            except Exception:
                case = None
        return signature_of(self.target.name, exc, case=case, subject=self.impl,
                            impl=self.impl_name, code_under_test=self.impl_modules,
                            accepted=self.settings.accepted)

    def check(self, case: Case) -> Any:
        """The check a failure is minimized and named with: the bound target's."""
        if self.bound is not None:
            return self.bound.check(case)
        return self.target.check(case, self.impl)

    def _case_from_bytes(self, data: bytes) -> Case:
        """The case of ``data``, as the bound target builds it (its answer domain)."""
        if self.bound is not None:
            return self.bound.case_from_bytes(data)
        return self.target.case_from_bytes(data, self.impl)

    def record(self, data: bytes, exc: Exception, rounds: int = 0) -> None:
        """Record ``exc``, raised on ``data``: a hit of a finding this process knows, or
        a new finding, minimized and named on its minimal input. ``rounds``: how many
        findings this input has already given (``_MAX_ROUNDS``)."""
        signature = self.signature(exc, data)
        if signature in self.ids:
            self._hit(signature)
            return
        if signature in self.unsaved:  # reported once; do not minimize it on every hit
            return
        original = self._case_from_bytes(data)
        minimal = self._minimized(original, data, exc, signature, rounds)
        case, small, small_exc = minimal.case, minimal.data, minimal.exc
        finding = build_finding(
            self.target, self.impl_name, case, small, small_exc,
            minimized=minimal.complete,
            signature=signature_of(self.target.name, small_exc, case=case, subject=self.impl,
                                   impl=self.impl_name, code_under_test=self.impl_modules,
                                   accepted=self.settings.accepted),
            impl=self.impl, code_under_test=self.impl_modules)
        stored_new = self._store(finding, signature)
        if stored_new is None:
            return
        stored, is_new = stored_new
        # Said as soon as it is stored: what follows checks the long input again (a
        # naming, seconds on a loaded machine), and a process the campaign kills there
        # (``supervisor.KILL_AFTER`` past its stop) left a finding on disk the campaign
        # never heard of, so never merged (``migrate.merge_into_named``) nor counted.
        say(finding_line(is_new, stored.kind, stored.id, stored.signature))
        self._learn(small_exc, exc, case, stored.signature, stored.id)
        # The long input's class is the finding's (its next hits are the finding's) when
        # the finding explains it. It may not: the minimizer may have kept a smaller
        # input of another new failure (``same_failure``'s ``unknown``: a name's raw '!'
        # beside its raw '%' became left_raw('!'), and every '%' then counted as its
        # hit), and an input of two behaviours is named by its first (``checks``). Then
        # the long input gives another finding, with this one known.
        self.ids.setdefault(stored.signature, stored.id)
        owner, unexplained = stored.id, None
        if rounds + 1 < _MAX_ROUNDS and isinstance(small_exc, Violation) \
                and (is_new or not rounds):  # (a later round's known one: its hit)
            hit, unexplained = self._owner(original, data)
            owner = hit or stored.id
        if unexplained is None:
            self.ids[signature] = owner
            if minimal.provisional is not None and self.known is not None:
                self.known.add_unexplained(*minimal.provisional)
        self._save_inputs(stored.id, data, small)
        if unexplained is not None:
            self.record(data, unexplained, rounds + 1)

    def _hit(self, signature: str) -> None:
        """One more hit of a finding this process knows, flushed now and then."""
        if signature in self.seeded:  # a store's finding, first hit in this process
            self.seeded.discard(signature)
            say(finding_line(False, signature.split("|")[1], self.ids[signature], signature))
        self.pending[signature] = self.pending.get(signature, 0) + 1
        if time.monotonic() - self.last_flush > self.flush_seconds:
            self.flush()

    def _minimized(self, original: Case, data: bytes, exc: Exception, signature: str,
                   rounds: int) -> _Minimal:
        """The failure of ``original`` minimized (within the input's share of
        ``minimize_seconds``) and checked again on its minimal case."""
        provisional = None
        if self.known is not None and isinstance(exc, Divergence) and not exc.behaviour \
                and exc.impl_error is None:
            # Known while it is minimized: each smaller input the minimizer tries is
            # then classed, not named by every catalogue rule again.
            provisional = (exc.check, exc.difference)
            self.known.add_unexplained(*provisional)
        # A smaller input that shows another failure no finding has yet keeps it too:
        # a behaviour mixed with known ones shrinks to what is new in it. Not for an
        # input's later rounds: there the failure the findings did not explain is kept
        # as it is, and where its minimal input is named as a finding already made, it
        # is that finding's hit (a class that a long input's context shapes otherwise,
        # not a behaviour of its own).
        keeps = same_failure(self.target, self.impl, self.impl_name, signature,
                             representable=True, check=self.check,
                             unknown=None if provisional is None or rounds
                             else self._unknown, settings=self.settings)
        if not rounds:
            self._deadline = time.monotonic() + self.minimize_seconds
        # A rule's finding is minimized and checked again with every class hit named, as
        # the hit it came from was (``KnownFindings.naming_every_hit``).
        naming = self.known.naming_every_hit() if self.known is not None and isinstance(
            exc, Divergence) and exc.behaviour else contextlib.nullcontext()
        with naming:
            found = minimize_case(original, keeps,
                                  max_seconds=max(0.0, self._deadline - time.monotonic()))
            case, small_exc = found.case, exc
            small: bytes | None = raw_input_for(self.target, case, self.impl, self.settings)
            if provisional is not None and self.known is not None:
                # The finding is named on its minimal input (DDSET: the generalized
                # minimal input is the behaviour), not on the long one, where a class may
                # not widen (a long input's B lowercased is unit=0x42; the minimal "B",
                # unit=upper).
                self.known.forget_unexplained(*provisional)
            try:
                self.check(case)
                case, small = original, data  # it passed this time (a flaky implementation)
            except Exception as again:
                # Raised while the original failure is being handled: keep its traceback
                # free of that unrelated context.
                again.__suppress_context__ = True
                small_exc = again
        return _Minimal(case, small, small_exc, found.complete and case is found.case,
                        provisional)

    def _store(self, finding: Any, signature: str) -> tuple[Any, bool] | None:
        """``finding`` recorded in the store: (the stored record, whether it is new);
        None when it could not be saved (said as LOST, and not tried again)."""
        from pctfuzz._internal.store import StoreError

        try:
            stored, is_new = self.findings.record(finding)
        except StoreError as err:
            self.unsaved.add(signature)
            say(lost_line(f"FINDING {signature}", err))
            return None
        finally:  # e.g. an unreadable record of this id that had to be moved aside
            for problem in self.findings.problems:
                _warn(str(problem))
            self.findings.problems.clear()
        for fixed, reopened in self.findings.reopened:
            _warn(f"finding {fixed} was fixed and is back in another form: reopened as "
                  f"{reopened}")
        self.findings.reopened.clear()
        return stored, is_new

    def _learn(self, small_exc: Exception, exc: Exception, case: Case, stored_signature: str,
               stored_id: str) -> None:
        """The stored finding known as it is named: its later hits take the fast path."""
        if self.known is None or not isinstance(small_exc, Violation):
            return
        if small_exc.behaviour:
            self.known.add(small_exc.check, small_exc.behaviour, case)
        elif isinstance(small_exc, Divergence) and small_exc.impl_error is None:
            self.known.add_unexplained(small_exc.check, small_exc.difference)
        if isinstance(small_exc, Divergence) and small_exc.impl_error is not None:
            # and a refusal by the statement that raised it, on either input
            for error in (small_exc.impl_error, getattr(exc, "impl_error", None)):
                if error is not None:
                    self.known.add_refusal(small_exc.check, error,
                                           small_exc.difference, small_exc.behaviour)
        self.ids[stored_signature] = stored_id

    def _save_inputs(self, stored_id: str, data: bytes, small: bytes | None) -> None:
        """The input and its minimal form kept in the corpus."""
        from pctfuzz._internal.store import StoreError

        if self.corpus is None:
            return
        try:
            self.corpus.add(self.target.name, data)
            if small is not None:
                self.corpus.add(self.target.name, small)
        except StoreError as err:
            _warn(f"CANNOT SAVE INPUT of {stored_id}: {err}")

    def _owner(self, case: Case, data: bytes) -> tuple[str | None, Exception | None]:
        """The id of the finding that ``case`` (of input ``data``) is a hit of, now, and
        None; or (None, what it raises) when it is a hit of none. A case that passes
        now (a flaky implementation) is nobody's new failure: (None, None)."""
        try:
            self.check(case)
        except Exception as exc:
            ident = self.ids.get(self.signature(exc, data))
            return (ident, None) if ident is not None else (None, exc)
        return None, None

    def _unknown(self, signature: str) -> bool:
        """No finding of this process or its store has ``signature``."""
        return signature not in self.ids and signature not in self.unsaved

    def flush(self) -> None:
        from pctfuzz._internal.store import StoreError

        for signature, hits in self.pending.items():
            if hits:
                try:
                    self.findings.add_hits(self.ids[signature], hits)
                except StoreError as exc:
                    say(lost_line(lost_hits(hits, self.ids[signature]), exc))
        self.pending.clear()
        self.last_flush = time.monotonic()


def record_case(target: Target, impl: Any, impl_name: str, findings_dir: Path,
                case: Case) -> dict[str, str]:
    """Record the failure of ``case`` in ``findings_dir`` exactly as a campaign records
    it (the bound check, then this recorder: minimized, named on its minimal input);
    signature -> finding id. ``AssertionError`` when the case passes. For tests and
    benchmarks that need a real finding in a store."""
    bound = target.bind(impl)
    recorder = Recorder(target, impl, impl_name, findings_dir, None, bound=bound)
    data = raw_input_for(target, case, impl)
    assert data is not None, f"{case} has no raw input"
    try:
        bound.check(case)
    except Violation as found:
        recorder.record(data, found)
    else:
        raise AssertionError(f"{impl_name} passes {case}")
    recorder.flush()
    return dict(recorder.ids)


def _warn(message: str) -> None:
    say(warning_line(message))


def _env_seconds(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value >= 0 else default


def build_finding(target: Target, impl_name: str | None, case: Case, raw: bytes | None,
                  exc: BaseException, *, minimized: bool, signature: str,
                  impl: Any = None, code_under_test: Sequence[str] = ()) -> Any:
    """A ``store.Finding`` for a failure of ``target`` on ``case``; ``impl``, the code
    under test, gives the version the finding records (``oracles.impl_version``), and
    its modules (``code_under_test``) the statement that refused (``raised_at``)."""
    from pctfuzz._internal.oracles.base import impl_version
    from pctfuzz._internal.store import collect_versions, new_finding

    kind, check, located = classify(exc)
    evidence = exc.evidence() if isinstance(exc, Violation) else {"error": repr(exc)}
    if isinstance(exc, Divergence) and exc.impl_error is not None and code_under_test:
        # The statement that refused (``identity.refusal_site``), so a later campaign
        # knows this refusal by it without asking the implementation again.
        site = refusal_site(exc.impl_error, code_under_test)
        if site is not None:
            evidence["raised_at"] = site
    return new_finding(
        target=target.name,
        kind=kind,
        exc=located,
        signature=signature,
        case=case,
        raw_input=raw,
        check=check,
        evidence=evidence,
        impl=impl_name,
        minimized=minimized,
        versions=collect_versions(impl_name, None if impl is None else impl_version(impl)),
        behaviour=exc.behaviour if isinstance(exc, Violation) else None,
    )
