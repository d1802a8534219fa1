"""The atheris driver: runs one target's shared check under libFuzzer.

``harness/fuzz_<target>.py`` imports this module (inside ``atheris.instrument_imports``
for an invariant target, ``Target.hooks_imports``) and calls ``main(target)``. Two
modes, chosen by the environment:

- **crash mode** (default; exactly what OSS-Fuzz expects): a failed check raises out of
  ``TestOneInput``; libFuzzer stops and writes the input as ``crash-<sha1>``.
- **record mode** (``PCTFUZZ_FINDINGS=<dir>``, used by ``pctfuzz fuzz``): a failure is
  minimized, saved as a finding (deduplicated by signature) and its input added to
  ``PCTFUZZ_CORPUS/<target>``; fuzzing goes on. A differential target keeps the
  question it asks its implementation beyond libFuzzer's input in the breadcrumb the
  campaign names (``PCTFUZZ_BREADCRUMB``, ``checks.breadcrumb``), for a process that
  dies in one to be recorded with it.

Each execution runs the rotated check (``run_input``: the cheap invariants and one
costly one, ``invariants.ROTATING``, picked by the input's CRC-32); a failure is checked
again in full, and only the full check's exception is raised or recorded. Minimization
and replay run the full check.

What the harness is told (``protocol.HarnessSettings``: ``PCTFUZZ_IMPL``, the
implementation under test of ``diff_*`` targets, default ``urllib``; ``PCTFUZZ_FAULT``,
one of the deliberately wrong codecs of ``pctfuzz._internal.oracles.faults`` for an invariant
target; the store, the accept file, the sets) comes as ``main``'s ``settings``, read
from the environment by the harness's entry point (``pctfuzz._internal.harness``), or here when an
OSS-Fuzz script calls ``main`` directly.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
import signal
import sys
import time
import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pctfuzz._internal.checks.breadcrumb import Breadcrumb
from pctfuzz._internal.checks.known import NamingBudget
from pctfuzz._internal.errors import Deferred, PctfuzzError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.formats import AnswerDomain
from pctfuzz._internal.fuzz.protocol import (
    HarnessSettings,
    answered_line,
    executions_line,
    lost_line,
    module_line,
    say,
    under_test_line,
    warning_line,
)
from pctfuzz._internal.fuzz.recorder import Recorder
from pctfuzz._internal.fuzz.undertest import UnderTest, loaded_modules
from pctfuzz._internal.targets import Bound, BoundDifferential, Target, get_target

__all__ = ["instrument_modules", "main", "minimize_seconds", "run_input"]


def instrument_modules(names: Iterable[str]) -> int:
    """Instrument every function and method defined in already-imported modules: each
    named one and its submodules already imported (a library named by its package).

    Returns how many code objects were patched. Functions wrapped by ``lru_cache`` are
    reached through ``__wrapped__``.
    """
    import atheris

    count = 0
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        for loaded in loaded_modules([name]):
            module = sys.modules.get(loaded)
            for obj in list(vars(module).values()) if module is not None else ():
                for func in _functions_of(obj, loaded):
                    atheris.instrument_func(func)
                    count += 1
    return count


def _functions_of(obj: Any, module_name: str) -> Iterable[types.FunctionType]:
    try:
        obj = getattr(obj, "__wrapped__", obj)
    except Exception:  # a lazy attribute that imports on access (six.moves: dbm.gnu
        return  # without _gdbm) is no function of this module: the harness ran 0 inputs
    if isinstance(obj, types.FunctionType) and obj.__module__ == module_name:
        yield obj
    elif inspect.isclass(obj) and obj.__module__ == module_name:
        for member in vars(obj).values():
            try:
                member = getattr(member, "__func__", member)
                member = getattr(member, "__wrapped__", member)
            except Exception:  # (as above: a lazy attribute)
                continue
            if isinstance(member, types.FunctionType):
                yield member


#: ctypes callbacks registered with ``__cxa_atexit``; kept alive until the process ends.
_EXIT_HOOKS: list[Any] = []


def _flush_at_exit(recorder: Recorder) -> bool:
    """Make ``recorder.flush()`` run when libFuzzer ends the process normally.

    ``atheris.Fuzz()`` never returns: at ``-max_total_time`` or ``-runs`` libFuzzer
    calls C ``exit()``, which runs neither Python ``finally`` blocks nor ``atexit``
    handlers, so the hits counted since the last flush used to be lost at the end of
    every run (the ``finally`` in ``main`` never ran). C ``exit()`` does run handlers
    registered with ``__cxa_atexit`` (what C's ``atexit`` compiles to; glibc exports no
    ``atexit`` symbol), and it runs them on the fuzzing thread, which holds the GIL
    inside ``Fuzz()``, so a ctypes callback can flush there. libFuzzer's ``_Exit``
    after a timeout/OOM/deadly signal and a kill -9 skip it: see ``Recorder``.
    Returns whether the hook is installed (False where ``__cxa_atexit`` is missing).
    """
    import ctypes

    def hook(_arg: Any) -> None:
        try:
            _say_last_words()
            recorder.flush()
        except BaseException as exc:  # never raise into C; say what was lost
            say(lost_line("HITS at exit", f"{type(exc).__name__}: {exc}"))
        _Count.say_final()

    try:
        register = ctypes.CDLL(None).__cxa_atexit
    except (AttributeError, OSError):
        return False
    callback = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(hook)
    _EXIT_HOOKS.append(callback)
    return bool(register(callback, None, None) == 0)


class _Stop:
    """A SIGTERM that arrives while an input runs waits for the input's end.

    Python runs a signal handler at the next bytecode of the main thread, which is
    libFuzzer's: in the middle of an input, between the implementation's failure and
    the recorder counting it as a hit. Stopping there loses that hit; so the handler
    only asks, and ``test_one_input`` stops once the input is recorded."""

    in_input = False
    requested = False


def _flush_on_sigterm(recorder: Recorder) -> None:
    """On SIGTERM (the campaign's deadline or stop; it starts libFuzzer with
    ``-handle_term=0`` so the signal reaches Python), write the hits counted in memory,
    then end the process at once: hit counts stay exact when a campaign stops its
    processes. Within an input, the stop waits for its end (``_Stop``)."""

    def stop(signum: int, frame: object) -> None:
        if _Stop.in_input:
            _Stop.requested = True
            return
        _stop_now(recorder)

    signal.signal(signal.SIGTERM, stop)


#: What a record-mode process says last, when it ends normally or on SIGTERM (its
#: running counts: a process of less than a second would never say them otherwise).
_LAST_WORDS: list[Callable[[], None]] = []


def _say_last_words() -> None:
    for words in _LAST_WORDS:
        with contextlib.suppress(Exception):
            words()


def _stop_now(recorder: Recorder) -> None:
    try:
        _say_last_words()
        recorder.flush()
    finally:
        _Count.say_final()
        sys.stderr.flush()
        os._exit(ExitCode.OK)


class _Count:
    """The harness's own counts of this process (record mode): inputs run (``asked``)
    and answered by the implementation. The executions are said as the process ends
    (``say_final``), so the campaign's figures never rest on status lines alone:
    libFuzzer prints none until the seed corpus is loaded, and a slice stopped before
    that (a loaded machine, a large corpus) used to read as "ran 0 executions"."""

    asked = 0
    answered = 0

    @classmethod
    def say_final(cls) -> None:
        say(executions_line(cls.asked))


def run_input(bound: Bound, data: bytes, turn: int | None = None) -> tuple[str, ...] | None:
    """What the atheris driver runs on one input: ``bound.run`` (the target bound once
    to its subject, ``Target.bind``). For an invariant target, the rotated check at
    ``turn`` (default: the input's CRC-32), a failure checked again in full and the
    full check's exception raised (``BoundInvariant.run``); for a differential target,
    its check. Returns what the check returns."""
    return bound.run(data, turn)


#: libFuzzer's default per-input ``-timeout``, in seconds.
_LIBFUZZER_TIMEOUT = 1200


def minimize_seconds(argv: list[str]) -> float:
    """The wall-clock safety net of a minimization (``fuzz.minimize``; tries are its
    real bound): half of libFuzzer's per-input ``-timeout``, which counts the
    minimization as part of the input that failed, so a long one must not be reported
    as a timeout of that input. At most ``minimize.DEFAULT_SECONDS``."""
    from pctfuzz._internal.fuzz.minimize import DEFAULT_SECONDS

    timeout = float(_LIBFUZZER_TIMEOUT)
    for arg in argv:
        if arg.startswith("-timeout="):
            with contextlib.suppress(ValueError):  # libFuzzer refuses it anyway
                timeout = float(arg.removeprefix("-timeout="))
    return min(DEFAULT_SECONDS, max(0.5, timeout / 2))


def _breadcrumb(bound: Bound, settings: HarnessSettings) -> Breadcrumb | None:
    """The armed breadcrumb of a record-mode differential harness that the campaign
    gave one (``HarnessSettings.breadcrumb``), with the adapter's answer domain; None
    otherwise, or when the file cannot be made (said in a warning line: a crash in a
    question is then recorded with libFuzzer's input, as not seen to crash itself).
    An invariant target's checks ask its codec only: pctfuzz's own code."""
    if not isinstance(bound, BoundDifferential) or not settings.breadcrumb:
        return None
    try:
        domain = AnswerDomain.of(bound.subject, bound.settings.declared_sets)
        return Breadcrumb(Path(settings.breadcrumb), domain).arm()
    except (OSError, ValueError) as exc:
        say(warning_line(f"no breadcrumb {settings.breadcrumb}: {exc}"))
        return None


def main(target_name: str, argv: list[str] | None = None,
         settings: HarnessSettings | None = None) -> None:
    """Run ``target_name`` under atheris with libFuzzer flags from ``argv``, as
    ``settings`` say (default: as the environment hands them over)."""
    import atheris

    argv = list(sys.argv if argv is None else argv)
    target = get_target(target_name)
    settings, bound = _bind(target, settings)
    # atheris itself imports urllib.parse, so instrument_imports alone never sees the
    # code under test: it is instrumented after the fact, and with it the reference a
    # differential target compares it with (its harness imports pctfuzz unhooked).
    instrument_modules(bound.instrumented_modules)
    if settings.answer_only:  # (a timeout confirmed: the implementation alone)
        atheris.Setup(argv, bound.answer)
        atheris.Fuzz()
        return
    recorder = (
        Recorder(target, bound.subject, _impl_name(target, settings),
                 Path(settings.findings),
                 Path(settings.corpus) if settings.corpus else None,
                 minimize_seconds=minimize_seconds(argv), bound=bound)
        if settings.findings
        else None
    )
    one_input = _OneInput(bound, recorder, settings)
    hooks = _grammar_hooks(target, bound) if settings.grammar else {}
    atheris.Setup(argv, one_input, **hooks)
    if recorder is not None and one_input.differential:
        _LAST_WORDS.append(one_input.say_counts)
    if recorder is not None:
        _flush_at_exit(recorder)
        _flush_on_sigterm(recorder)
    try:
        atheris.Fuzz()
    finally:  # only if Fuzz() returns or raises (not libFuzzer's exit(): see above)
        if recorder is not None:
            recorder.flush()


def _impl_name(target: Target, settings: HarnessSettings) -> str | None:
    """What the target is bound to: a differential target's implementation (default
    urllib); an invariant target's fault, one of the deliberately wrong codecs of
    ``oracles.faults`` (to measure time-to-first-finding), or none: the reference."""
    return settings.impl or "urllib" if target.differential else settings.fault


def _bind(target: Target, settings: HarnessSettings | None) -> tuple[HarnessSettings, Bound]:
    """The hand-off (an OSS-Fuzz script's is the environment) and ``target`` bound to
    its subject, once: ``resolve_subject`` refuses a mismatch in one line, and no input
    resolves it again. A problem of either is one line and exit 2."""
    try:
        if settings is None:
            settings = HarnessSettings.from_env(os.environ)
        settings.activate()
        return settings, target.bind(_impl_name(target, settings), settings.run_settings)
    except (ValueError, PctfuzzError) as exc:
        print(f"pctfuzz harness: error: {exc}", file=sys.stderr)
        sys.exit(ExitCode.USAGE)


class _OneInput:
    """libFuzzer's ``TestOneInput`` of a harness: the bound check of one input, and in
    record mode (``recorder``) its failure recorded, the time naming takes bounded
    (``checks.known.NamingBudget``: at most half of the campaign), the question in hand
    kept in the breadcrumb (``checks.breadcrumb``; the input's own case is not written)
    and the counts said about once a second."""

    def __init__(self, bound: Bound, recorder: Recorder | None,
                 settings: HarnessSettings) -> None:
        self.bound, self.recorder = bound, recorder
        self.differential = isinstance(bound, BoundDifferential)
        # The lines of the code under test reached, for the campaign's status (none
        # for a library in a peer process: no line of it here to count).
        self.under_test = UnderTest(bound.code_under_test) \
            if self.differential and getattr(bound.subject, "in_process", True) else None
        self.budget = NamingBudget()
        if isinstance(bound, BoundDifferential) and recorder is not None:
            bound.known.budget = self.budget
        self.crumb = _breadcrumb(bound, settings) if recorder is not None else None
        self.last_said = time.monotonic()

    def __call__(self, data: bytes) -> None:
        if self.recorder is None:
            self.bound.run(data)
            return
        _Count.asked += 1
        _Stop.in_input = True
        if self.crumb is not None:
            self.crumb.primary = True  # its first question is libFuzzer's input
        try:
            with self.budget.one_input():
                self._check(data, self.recorder)
        finally:
            _Stop.in_input = False
        if _Stop.requested:
            _stop_now(self.recorder)
        if self.differential and time.monotonic() - self.last_said > 1.0:
            self.say_counts()
            self.last_said = time.monotonic()

    def _check(self, data: bytes, recorder: Recorder) -> None:
        try:
            if self.under_test is None:
                _Count.answered += self.bound.run(data) is not None
            else:
                _Count.answered += self.under_test.run(lambda: self.bound.run(data)) \
                    is not None
        except Deferred:
            _Count.answered += 1  # a difference, left unnamed: naming had its share
        except Exception as exc:
            _Count.answered += 1  # a failure is an answer
            if self.crumb is not None:
                self.crumb.primary = False  # (whether or not the check asked it)
            recorder.record(data, exc)

    def say_counts(self) -> None:
        """How many cases the implementation answered (not Unsupported): a campaign on
        an adapter that hides behind Unsupported must show it; and what of the code
        under test it reached, per module (one never reached is a warning)."""
        say(answered_line(_Count.answered, _Count.asked, self.budget.deferred))
        under_test = self.under_test
        if under_test is not None:
            say(under_test_line(under_test.count, under_test.total))
            for module, reached, lines in under_test.modules():
                say(module_line(module, reached, lines, under_test.executions,
                                under_test.compiled.get(module, 0)))


def _grammar_hooks(target: Target, bound: Bound) -> dict[str, Any]:
    """libFuzzer's custom mutator and crossover: the grammar-aware mutator, beside
    libFuzzer's own (``fuzz.mutator``)."""
    import atheris

    from pctfuzz._internal.fuzz.mutator import GrammarMutator, libfuzzer_mutator

    grammar = GrammarMutator(target.operation, bound.case_from_bytes)
    # atheris.Mutate is looked up on each call: Setup replaces the module's stub,
    # which refuses to run before Fuzz(), with libFuzzer's.
    return {"custom_mutator": libfuzzer_mutator(
                grammar, lambda data, size: atheris.Mutate(data, size)),
            "custom_crossover": grammar.crossover}
