"""``pctfuzz fuzz --driver hypothesis``: a quick campaign without libFuzzer.

The same targets, the same strategies (``target.strategy()``) and the same checks
(``target.check``) as the Hypothesis tests, run in this process for ``max_time``
seconds, the targets taking turns in slices (the differential ones first). A failure
is shrunk by Hypothesis, then made 1-minimal for its signature (``fuzz.minimize``:
Hypothesis's shrinker keeps "a failure", not the same one, and stops short of
1-minimal), then saved through the findings store with the signature the
atheris driver and replay compute (``identity.signature_of``, the adapter's
``modules_under_test``), so ``pctfuzz replay`` reproduces it and a libFuzzer campaign
that finds the same bug adds hits to the same record. A signature saved once is not
hunted again in this run: the search goes on for other bugs.

A case of ``diff_encode`` is asked as a libFuzzer campaign would ask it: through its
byte form, within what the adapter answers (``formats.AnswerDomain``, ``--set``).
Each example has the per-input ``timeout`` (SIGALRM); a slower one is a ``timeout``
finding. SIGINT/SIGTERM/SIGHUP stop the run between two examples, as for libFuzzer
(``supervisor.stop_on_signals``); the result and the summary are the same
``CampaignResult``.
"""

from __future__ import annotations

import contextlib
import signal
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis.configuration import set_hypothesis_home_dir

from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.fuzz.minimize import minimize_case, raw_input_for, same_failure
from pctfuzz._internal.fuzz.recorder import build_finding
from pctfuzz._internal.fuzz.schedule import order_targets
from pctfuzz._internal.fuzz.stats import CampaignResult, ModuleReach, TargetStats
from pctfuzz._internal.fuzz.supervisor import Supervisor, stop_on_signals
from pctfuzz._internal.fuzz.undertest import UnderTest
from pctfuzz._internal.identity import signature_of
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings
from pctfuzz._internal.targets import TARGETS, BoundDifferential, Target, get_target

__all__ = ["SHRINK_GRACE", "run_hypothesis"]

#: Seconds a shrink may go on past its slice (or the deadline) before it is cut short
#: and the smallest failing case seen so far is saved.
SHRINK_GRACE = 2.0
#: The shortest slice of one target.
MIN_SLICE = 3.0
#: Seconds between two progress reports.
_PROGRESS_SECONDS = 0.5


class _Stop(BaseException):
    """The slice, the budget or a signal ends the run. A BaseException: Hypothesis
    lets it through at once instead of shrinking it as a failure."""


class _Timeout(BaseException):
    """An example ran longer than the per-input timeout (see ``_alarm``)."""


class _Alarms:
    """One SIGALRM timer for two limits: the running example's ``timeout``
    (``_Timeout``) and the slice's backstop (``_Stop``), which ends the slice even when
    Hypothesis spends it without calling the test body (filtered draws)."""

    def __init__(self) -> None:
        self.example_end: float | None = None
        self.backstop: float | None = None

    def ring(self, signum: int, frame: FrameType | None) -> None:
        if self.example_end is not None and time.monotonic() >= self.example_end - 0.001:
            raise _Timeout
        raise _Stop

    def arm(self) -> None:
        ends = [e for e in (self.example_end, self.backstop) if e is not None]
        left = max(0.001, min(ends) - time.monotonic()) if ends else 0.0
        signal.setitimer(signal.ITIMER_REAL, left)

    @contextlib.contextmanager
    def example(self, timeout: float) -> Iterator[None]:
        self.example_end = time.monotonic() + timeout
        self.arm()
        try:
            yield
        finally:
            self.example_end = None
            self.arm()

    @contextlib.contextmanager
    def without_backstop(self) -> Iterator[None]:
        """No slice backstop (a minimization runs to its own bound), each example still
        under its ``timeout``."""
        backstop, self.backstop = self.backstop, None
        self.arm()
        try:
            yield
        finally:
            # A backstop that passed meanwhile stays off: it would ring at once, in the
            # middle of saving; the slice's loop sees its end by itself.
            if backstop is not None and backstop > time.monotonic():
                self.backstop = backstop
            self.arm()

    @contextlib.contextmanager
    def slice(self, backstop: float) -> Iterator[None]:
        previous = signal.signal(signal.SIGALRM, self.ring)
        self.backstop = backstop
        self.arm()
        try:
            yield
        finally:
            self.backstop = None
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


class _Hunt:
    """One target's examples: runs its check, keeps each new failure's smallest case."""

    def __init__(self, target: Target, impl: Any, impl_name: str | None, findings: Path,
                 timeout: float, progress: Callable[[TargetStats], None] | None,
                 settings: RunSettings = DEFAULT_SETTINGS) -> None:
        self.target, self.impl, self.impl_name = target, impl, impl_name
        self.settings = settings
        self.bound = target.bind(impl, settings)  # resolved once, never per example
        self.code = self.bound.code_under_test
        self.findings, self.timeout, self.progress = findings, timeout, progress
        self.stats = TargetStats(target.name)
        self.saved: set[str] = set()  # signatures recorded by this run
        self.failing: dict[str, tuple[Any, BaseException]] = {}  # not yet saved
        self.under_test = UnderTest(self.code) if self.code else None
        self.last_progress = 0.0
        self.end = 0.0
        self.alarms = _Alarms()

    def ask(self, case: Any) -> Any:
        """The case as a campaign asks it (see the module docstring)."""
        if isinstance(self.bound, BoundDifferential):
            with contextlib.suppress(Exception):  # no byte form: asked as it is
                return self.bound.case_from_bytes(self.target.to_bytes(case))
        return case

    def example(self, drawn: Any) -> None:
        """Hypothesis's test body: raises a failure whose signature is not saved yet."""
        now = time.monotonic()
        if now >= self.end + (SHRINK_GRACE if self.failing else 0):
            raise _Stop
        case = self.ask(drawn)
        differential = self.target.differential  # the answered rate is theirs only
        self.stats.asked += differential
        self.stats.execs += 1
        try:
            with self.alarms.example(self.timeout):
                answer = (self.check(case) if self.under_test is None
                          else self.under_test.run(lambda: self.check(case)))
            self.stats.answered += differential and answer is not None
        except _Timeout:
            self.stats.answered += differential  # a failure is an answer
            self.save_stop(case)
            return
        except Exception as exc:
            self.stats.answered += differential
            signature = signature_of(self.target.name, exc, case=case, subject=self.impl,
                                     impl=self.impl_name, code_under_test=self.code,
                                     accepted=self.settings.accepted)
            if signature in self.saved:
                return
            self.failing[signature] = (case, exc)  # the last one is the smallest
            raise
        finally:
            self.report(now)

    def check(self, case: Any) -> tuple[str, ...] | None:
        return self.bound.check(case)

    def report(self, now: float, *, force: bool = False) -> None:
        due = force or now - self.last_progress >= _PROGRESS_SECONDS
        if self.under_test is not None:
            self.stats.under_test = self.under_test.count
            self.stats.under_test_total = self.under_test.total
            if due or not self.stats.modules:  # per module: as often as progress
                for name, reached, lines in self.under_test.modules():
                    self.stats.modules[name] = ModuleReach(
                        reached, lines, self.under_test.executions,
                        self.under_test.compiled.get(name, 0))
        if due:
            self.last_progress = now
            if self.progress:
                self.progress(self.stats)

    def save(self) -> None:
        """Record every failure kept since the last save."""
        with self.alarms.without_backstop():  # a slice's end never cuts a save short
            self._save_failing()
        self.report(time.monotonic(), force=True)

    def _save_failing(self) -> None:
        from pctfuzz._internal.store import FindingStore, StoreError

        for signature, (shrunk, exc) in list(self.failing.items()):
            del self.failing[signature]
            self.saved.add(signature)
            case, exc, complete = self.minimize(shrunk, exc, signature)
            # named on its minimal input, as the atheris driver's recorder names it
            named = signature_of(self.target.name, exc, case=case, subject=self.impl,
                                 impl=self.impl_name, code_under_test=self.code,
                                 accepted=self.settings.accepted)
            self.saved.add(named)
            finding = build_finding(self.target, self.impl_name, case, self._raw(case), exc,
                                    minimized=complete, signature=named, impl=self.impl,
                                    code_under_test=self.code)
            try:
                stored, is_new = FindingStore(self.findings).record(finding)
            except StoreError as err:
                self.stats.lost.append(f"FINDING {signature}: {err}")
                continue
            self._count(stored.id, is_new)

    def minimize(self, case: Any, exc: BaseException,
                 signature: str) -> tuple[Any, BaseException, bool]:
        """``case`` made 1-minimal for ``signature`` (``fuzz.minimize``), with what its
        check raises now and whether it is 1-minimal; each try under the per-input
        timeout (one that times out does not keep the failure)."""

        def guard(call: Callable[[], Any]) -> Any:
            try:
                with self.alarms.example(self.timeout):
                    return call()
            except (_Timeout, _Stop):
                return None

        keeps = same_failure(self.target, self.impl, self.impl_name, signature, guard=guard,
                             representable=self._raw(case) is not None,
                             settings=self.settings)
        with self.alarms.without_backstop():
            # Tries bound it; the clock only as a safety net, within the shrink's grace.
            grace = max(SHRINK_GRACE, self.end + SHRINK_GRACE - time.monotonic())
            found = minimize_case(case, keeps, max_seconds=grace)
            try:
                guard(lambda: self.check(found.case))
            except Exception as again:
                return found.case, again, found.complete
        return case, exc, False  # it passed this time: keep Hypothesis's case

    def save_stop(self, case: Any) -> None:
        from pctfuzz._internal.identity import stop_signature
        from pctfuzz._internal.store import FindingStore, StoreError, new_stop_finding

        signature = stop_signature(self.target.name, "timeout", self.impl_name,
                                   accepted=self.settings.accepted)
        raw = self._raw(case)
        if signature in self.saved or raw is None:
            return
        self.saved.add(signature)
        finding = new_stop_finding(target=self.target, kind="timeout", raw_input=raw,
                                   impl=self.impl_name if self.target.differential else None,
                                   accepted=self.settings.accepted)
        try:
            stored, is_new = FindingStore(self.findings).record(finding)
        except StoreError as err:
            self.stats.lost.append(f"timeout finding {finding.id}: {err}")
            return
        self._count(stored.id, is_new)

    def _raw(self, case: Any) -> bytes | None:
        return raw_input_for(self.target, case, self.impl, self.settings)

    def _count(self, ident: str, is_new: bool) -> None:
        bucket = self.stats.new_findings if is_new else self.stats.known_findings
        if ident not in self.stats.new_findings and ident not in bucket:
            bucket.append(ident)

    def warm_up(self, until: float) -> None:
        """Draw one case, checking nothing, before any slice: a strategy's first draw
        builds Hypothesis's tables (its Unicode character map: seconds on a loaded
        machine) without calling the test, so no example could end a slice on time.
        Bounded by ``until``."""

        @settings(max_examples=1, database=None, deadline=None, verbosity=Verbosity.quiet,
                  suppress_health_check=list(HealthCheck), phases=(Phase.generate,))
        @given(self.target.strategy())
        def draw(drawn: Any) -> None:
            pass

        with self.alarms.slice(until), contextlib.suppress(_Stop):
            draw()

    def run_slice(self, seconds: float, supervisor: Supervisor) -> None:
        """Examples for ``seconds`` (or until the campaign stops), runs after runs:
        each failure ends a Hypothesis run, is saved, and the next run goes on."""
        started = time.monotonic()
        self.end = min(started + seconds, started + max(0.0, supervisor.remaining()))

        @settings(max_examples=10**9, database=None, deadline=None, derandomize=False,
                  verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck),
                  phases=(Phase.generate, Phase.shrink), report_multiple_bugs=False,
                  print_blob=False)
        @given(self.target.strategy())
        def test(drawn: Any) -> None:
            if supervisor.remaining() <= 0 and not self.failing:
                raise _Stop
            self.example(drawn)

        with self.alarms.slice(self.end + SHRINK_GRACE + 1):
            while time.monotonic() < self.end and supervisor.remaining() > 0:
                try:
                    test()
                except _Stop:
                    break
                except Exception as exc:  # a failure (saved below) or Hypothesis's own
                    if not self.failing:
                        self.stats.errors.append(
                            f"hypothesis: {type(exc).__name__}: {exc}"[:300])
                        break
                finally:
                    self.save()
        self.stats.seconds += time.monotonic() - started
        if self.stats.seconds > 0:
            self.stats.exec_per_s = int(self.stats.execs / self.stats.seconds)
        self.report(time.monotonic(), force=True)


@contextlib.contextmanager
def _private_hypothesis_home() -> Iterator[None]:
    """Hypothesis keeps caches (its character tables) in ``.hypothesis/`` of the current
    folder; a campaign writes only into the folders it was given, so they go into a
    temporary folder of its own, removed at the end."""
    with tempfile.TemporaryDirectory(prefix="pctfuzz-hypothesis-") as home:
        set_hypothesis_home_dir(home)
        try:
            yield
        finally:
            set_hypothesis_home_dir(None)  # back to Hypothesis' default


def run_hypothesis(
    targets: Sequence[str] = (),
    *,
    max_time: float = 60,
    impl: str = "urllib",
    findings: Path = Path("findings"),
    timeout: float = 5,
    progress: Callable[[TargetStats], None] | None = None,
    settings: RunSettings = DEFAULT_SETTINGS,
) -> CampaignResult:
    """Run ``targets`` (default: all) under Hypothesis for ``max_time`` seconds, with
    the run's ``settings`` (``Project.run_settings``)."""
    from pctfuzz._internal.oracles.registry import get_impl
    from pctfuzz._internal.store import FindingStore

    names = order_targets(list(targets) or list(TARGETS))
    if not max_time > 0:  # also NaN
        raise PctfuzzError(f"--max-time must be positive, not {max_time}")
    chosen = [get_target(n) for n in names]
    subject = get_impl(impl) if any(t.differential for t in chosen) else None
    store = FindingStore(findings)
    store.ensure_root()
    hunts = [_Hunt(t, subject if t.differential else None, impl if t.differential else None,
                   findings, timeout, progress, settings) for t in chosen]
    started = time.monotonic()
    supervisor = Supervisor(started + max_time)
    # Slices: every target gets a turn early, about two turns each in the budget, and
    # at least MIN_SLICE (each slice starts a Hypothesis engine: a few tenths of a
    # second) unless the budget is shorter than that for each target.
    share = max_time / len(hunts)
    slice_len = min(30.0, max(min(MIN_SLICE, share), share / 2))
    waiting = list(hunts)  # until each has had a turn, it gets an equal share of what is left
    with stop_on_signals(supervisor), _private_hypothesis_home():
        for hunt in hunts:  # within the budget, in plain sight: the board says "waiting"
            hunt.warm_up(supervisor.deadline)
        while supervisor.remaining() > 0:
            for hunt in hunts:
                left = supervisor.remaining()
                if left <= 0:
                    break
                share = left / len(waiting) if hunt in waiting else left
                if hunt in waiting:
                    waiting.remove(hunt)
                hunt.run_slice(min(slice_len, share), supervisor)
    # A peer that failed with no input to blame (``ProcessAdapter.peer_failures``):
    # said once each, and the run is incomplete, as a libFuzzer campaign's would be.
    failures = list(dict.fromkeys(getattr(subject, "peer_failures", None) or []))
    differential = [h for h in hunts if h.target.differential]
    if failures and differential:
        differential[0].stats.peer_failures.extend(failures[:20])
    return CampaignResult([h.stats for h in hunts], time.monotonic() - started,
                          supervisor.stop_signal)
