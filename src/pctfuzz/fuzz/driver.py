"""The atheris driver: runs one target's shared check under libFuzzer.

``harness/fuzz_<target>.py`` imports this module inside ``atheris.instrument_imports``
and calls ``main(target)``. Two modes, chosen by the environment:

- **crash mode** (default; exactly what OSS-Fuzz expects): a failed check raises out of
  ``TestOneInput``; libFuzzer stops and writes the input as ``crash-<sha1>``.
- **record mode** (``PCTFUZZ_FINDINGS=<dir>``, used by ``pctfuzz fuzz``): a failure is
  minimized, saved as a finding (deduplicated by signature) and its input added to
  ``PCTFUZZ_CORPUS/<target>``; fuzzing goes on.

Each execution runs the rotated check (``run_input``: the cheap invariants and one
costly one, ``invariants.ROTATING``, picked by the input's CRC-32); a failure is checked
again in full, and only the full check's exception is raised or recorded. Minimization
and replay run the full check.

``PCTFUZZ_IMPL`` names the implementation under test for ``diff_*`` targets
(default ``urllib``); ``PCTFUZZ_FAULT`` runs an invariant target against one of the
deliberately wrong codecs of ``pctfuzz.oracles.faults`` (benchmarks and demonstrations).
"""

from __future__ import annotations

import importlib
import inspect
import os
import signal
import sys
import time
import types
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pctfuzz.cases import Case
from pctfuzz.errors import PctfuzzError
from pctfuzz.fuzz.protocol import (
    answered_line,
    finding_line,
    lost_line,
    say,
    under_test_line,
    warning_line,
)
from pctfuzz.fuzz.undertest import UnderTest
from pctfuzz.identity import classify, signature_of
from pctfuzz.targets import Target, get_target, modules_under_test, resolve_subject
from pctfuzz.violations import Violation

if TYPE_CHECKING:
    from pctfuzz.oracles.codec import Subject

# modules_under_test is re-exported: it moved to pctfuzz.targets, beside the subjects.
__all__ = ["Recorder", "instrument_modules", "main", "minimize", "modules_under_test",
           "run_input"]


def instrument_modules(names: Iterable[str]) -> int:
    """Instrument every function and method defined in already-imported modules.

    Returns how many code objects were patched. Functions wrapped by ``lru_cache`` are
    reached through ``__wrapped__``.
    """
    import atheris

    count = 0
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for obj in list(vars(module).values()):
            for func in _functions_of(obj, module.__name__):
                atheris.instrument_func(func)
                count += 1
    return count


def _functions_of(obj: Any, module_name: str) -> Iterable[types.FunctionType]:
    obj = getattr(obj, "__wrapped__", obj)
    if isinstance(obj, types.FunctionType) and obj.__module__ == module_name:
        yield obj
    elif inspect.isclass(obj) and obj.__module__ == module_name:
        for member in vars(obj).values():
            member = getattr(member, "__func__", member)
            member = getattr(member, "__wrapped__", member)
            if isinstance(member, types.FunctionType):
                yield member


def minimize(
    data: bytes,
    still_fails: Callable[[bytes], bool],
    *,
    max_seconds: float = 3.0,
    max_tries: int = 4000,
) -> bytes:
    """Shortest input found (greedy chunk removal, then byte simplification) for which
    ``still_fails`` holds. Bounded in time and tries; returns ``data`` if nothing helps."""
    deadline = time.monotonic() + max_seconds
    tries = 0
    best = data
    chunk = max(1, len(best) // 2)
    while chunk >= 1:
        start = 0
        while start < len(best):
            if tries >= max_tries or time.monotonic() > deadline:
                return best
            candidate = best[:start] + best[start + chunk :]
            tries += 1
            if still_fails(candidate):
                best = candidate
            else:
                start += chunk
        chunk //= 2
    # Simplify the remaining bytes towards "a" so the stored case is easy to read.
    for index in range(len(best)):
        if tries >= max_tries or time.monotonic() > deadline:
            break
        if best[index] == 0x61:
            continue
        candidate = best[:index] + b"a" + best[index + 1 :]
        tries += 1
        if still_fails(candidate):
            best = candidate
    return best


class Recorder:
    """Record mode: turns failures into stored, deduplicated, minimized findings.

    The first failure of each signature in a process is minimized and written at once
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
                 findings_dir: Path, corpus_dir: Path | None) -> None:
        from pctfuzz.store import Corpus, FindingStore

        self.target = target
        self.impl = impl
        self.impl_name = impl_name
        self.impl_modules = target.code_under_test(impl)
        self.findings = FindingStore(findings_dir)
        self.corpus = Corpus(corpus_dir) if corpus_dir is not None else None
        self.pending: dict[str, int] = {}  # signature -> hits not yet written
        self.ids: dict[str, str] = {}  # signature -> finding id
        self.unsaved: set[str] = set()  # signatures whose record could not be written
        self.flush_seconds = _env_seconds("PCTFUZZ_FLUSH_SECONDS", self.FLUSH_SECONDS)
        self.last_flush = time.monotonic()

    def signature(self, exc: BaseException, data: bytes) -> str:
        """The signature of ``exc``, raised on input ``data`` (``pctfuzz.identity``)."""
        try:
            case = self.target.case_from_bytes(data, self.impl)
        except Exception:
            case = None
        return signature_of(self.target.name, exc, case=case, subject=self.impl,
                            impl=self.impl_name, code_under_test=self.impl_modules)

    def _fails_same(self, signature: str) -> Callable[[bytes], bool]:
        def still_fails(candidate: bytes) -> bool:
            try:
                self.target.run_bytes(candidate, self.impl)
            except Exception as exc:
                return self.signature(exc, candidate) == signature
            return False

        return still_fails

    def record(self, data: bytes, exc: Exception) -> None:
        signature = self.signature(exc, data)
        if signature in self.ids:
            self.pending[signature] = self.pending.get(signature, 0) + 1
            if time.monotonic() - self.last_flush > self.flush_seconds:
                self.flush()
            return
        if signature in self.unsaved:  # reported once; do not minimize it on every hit
            return
        small = minimize(data, self._fails_same(signature))
        small_exc: BaseException = exc
        try:
            case = self.target.run_bytes(small, self.impl)
        except Exception as again:
            # Raised while the original failure is being handled: keep its traceback
            # free of that unrelated context.
            again.__suppress_context__ = True
            small_exc = again
            case = self.target.case_from_bytes(small, self.impl)
        finding = build_finding(self.target, self.impl_name, case, small, small_exc,
                                minimized=small != data,
                                signature=self.signature(small_exc, small), impl=self.impl)
        from pctfuzz.store import StoreError

        try:
            stored, is_new = self.findings.record(finding)
        except StoreError as err:
            self.unsaved.add(signature)
            say(lost_line(f"FINDING {signature}", err))
            return
        finally:  # e.g. an unreadable record of this id that had to be moved aside
            for problem in self.findings.problems:
                _warn(str(problem))
            self.findings.problems.clear()
        self.ids[signature] = stored.id
        if self.corpus is not None:
            try:
                self.corpus.add(self.target.name, data)
                self.corpus.add(self.target.name, small)
            except StoreError as err:
                _warn(f"CANNOT SAVE INPUT of {stored.id}: {err}")
        say(finding_line(is_new, stored.kind, stored.id, signature))

    def flush(self) -> None:
        from pctfuzz.store import StoreError

        for signature, hits in self.pending.items():
            if hits:
                try:
                    self.findings.add_hits(self.ids[signature], hits)
                except StoreError as exc:
                    say(lost_line(f"{hits} HIT(S) of {self.ids[signature]}", exc))
        self.pending.clear()
        self.last_flush = time.monotonic()


def _warn(message: str) -> None:
    say(warning_line(message))


def _env_seconds(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value >= 0 else default


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
            recorder.flush()
        except BaseException as exc:  # never raise into C; say what was lost
            say(lost_line("HITS at exit", f"{type(exc).__name__}: {exc}"))

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


def _stop_now(recorder: Recorder) -> None:
    try:
        recorder.flush()
    finally:
        sys.stderr.flush()
        os._exit(0)


def build_finding(target: Target, impl_name: str | None, case: Case, raw: bytes | None,
                  exc: BaseException, *, minimized: bool, signature: str,
                  impl: Any = None) -> Any:
    """A ``store.Finding`` for a failure of ``target`` on ``case``; ``impl``, the code
    under test, gives the version the finding records (``oracles.impl_version``)."""
    from pctfuzz.oracles.base import impl_version
    from pctfuzz.store import collect_versions, new_finding

    kind, check, located = classify(exc)
    return new_finding(
        target=target.name,
        kind=kind,
        exc=located,
        signature=signature,
        case=case,
        raw_input=raw,
        check=check,
        evidence=exc.evidence() if isinstance(exc, Violation) else {"error": repr(exc)},
        impl=impl_name,
        minimized=minimized,
        versions=collect_versions(impl_name, None if impl is None else impl_version(impl)),
    )


def run_input(target: Target, impl: Any, data: bytes,
              turn: int | None = None) -> tuple[str, ...] | None:
    """What the atheris driver runs on one input: ``target.check_fast`` at ``turn``
    (one costly invariant per execution), by default the input's CRC-32: the same input
    always takes the same turn, so libFuzzer sees deterministic coverage (a turn taken
    from the execution count made it keep duplicate inputs). A failure is checked again
    in full (``target.run_bytes``) and the full check's exception is raised: what is
    recorded or written as a crash is what a replay computes. The fast check's exception
    stands only if the full check passes (a codec with hidden state). A target with one
    turn (differential, decode) has nothing to rotate: its full check runs once."""
    if target.turns() == 1:
        return target.check(target.case_from_bytes(data, impl), impl)
    try:
        target.check_fast(target.from_bytes(data), impl,
                          zlib.crc32(data) if turn is None else turn)
    except Exception as fast:
        try:
            target.run_bytes(data, impl)
        except Exception as exc:
            raise exc from None
        raise fast from None
    return ()


def main(target_name: str, argv: list[str] | None = None) -> None:
    """Run ``target_name`` under atheris with libFuzzer flags from ``argv``."""
    import atheris

    argv = list(sys.argv if argv is None else argv)
    target = get_target(target_name)
    # PCTFUZZ_IMPL names a differential target's adapter; PCTFUZZ_FAULT, one of the
    # deliberately wrong codecs of pctfuzz.oracles.faults for an invariant target (to
    # measure time-to-first-finding). resolve_subject refuses a mismatch in one line.
    impl_name = (os.environ.get("PCTFUZZ_IMPL") or "urllib" if target.differential
                 else os.environ.get("PCTFUZZ_FAULT") or None)
    try:
        impl: Subject = resolve_subject(target, impl_name)
    except PctfuzzError as exc:
        print(f"pctfuzz.harness: error: {exc}", file=sys.stderr)
        sys.exit(2)
    # atheris itself imports urllib.parse, so instrument_imports alone never sees the
    # code under test: it is instrumented after the fact.
    instrument_modules(target.code_under_test(impl))
    # The lines of the code under test reached, for the campaign's status.
    under_test = UnderTest(target.code_under_test(impl)) if target.differential else None
    findings_dir = os.environ.get("PCTFUZZ_FINDINGS")
    corpus_dir = os.environ.get("PCTFUZZ_CORPUS")
    recorder = (
        Recorder(target, impl, impl_name, Path(findings_dir),
                 Path(corpus_dir) if corpus_dir else None)
        if findings_dir
        else None
    )

    answered = asked = 0
    last_said = time.monotonic()

    def test_one_input(data: bytes) -> None:
        nonlocal answered, asked, last_said
        if recorder is None:
            run_input(target, impl, data)
            return
        asked += 1
        _Stop.in_input = True
        try:
            if under_test is None:
                answered += run_input(target, impl, data) is not None
            else:
                answered += under_test.run(lambda: run_input(target, impl, data)) is not None
        except Exception as exc:
            answered += 1  # a failure is an answer
            recorder.record(data, exc)
        finally:
            _Stop.in_input = False
        if _Stop.requested:
            _stop_now(recorder)
        if target.differential and time.monotonic() - last_said > 1.0:
            # How many cases the implementation answered (not Unsupported): a campaign
            # on an adapter that hides behind Unsupported must show it.
            say(answered_line(answered, asked))
            if under_test is not None:
                say(under_test_line(under_test.count, under_test.total))
            last_said = time.monotonic()

    atheris.Setup(argv, test_one_input)
    if recorder is not None:
        _flush_at_exit(recorder)
        _flush_on_sigterm(recorder)
    try:
        atheris.Fuzz()
    finally:  # only if Fuzz() returns or raises (not libFuzzer's exit(): see above)
        if recorder is not None:
            recorder.flush()
