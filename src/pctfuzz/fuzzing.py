"""The atheris driver: runs one target's shared check under libFuzzer.

``harness/fuzz_<target>.py`` imports this module inside ``atheris.instrument_imports``
and calls ``main(target)``. Two modes, chosen by the environment:

- **crash mode** (default; exactly what OSS-Fuzz expects): a failed check raises out of
  ``TestOneInput``; libFuzzer stops and writes the input as ``crash-<sha1>``.
- **record mode** (``PCTFUZZ_FINDINGS=<dir>``, used by ``pctfuzz fuzz``): a failure is
  minimized, saved as a finding (deduplicated by signature) and its input added to
  ``PCTFUZZ_CORPUS/<target>``; fuzzing goes on.

``PCTFUZZ_IMPL`` names the implementation under test for ``diff_*`` targets
(default ``urllib``); ``PCTFUZZ_FAULT`` runs an invariant target against one of the
deliberately wrong codecs of ``pctfuzz.faults`` (benchmarks and demonstrations).
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import time
import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .cases import Case
from .targets import Target, get_target
from .violations import Divergence, Violation

__all__ = ["Recorder", "classify", "instrument_modules", "main", "minimize", "modules_under_test"]

def modules_under_test(impl: Any) -> tuple[str, ...]:
    """The Python modules holding the code of the implementation under test: the
    adapter's ``modules_under_test``, else the adapter's own module. atheris itself
    imports urllib.parse, so ``instrument_imports`` alone never sees it: these modules
    are instrumented after the fact."""
    declared: tuple[str, ...] = tuple(getattr(impl, "modules_under_test", ()) or ())
    return declared or (type(impl).__module__,)


def classify(exc: BaseException) -> tuple[str, str | None, BaseException]:
    """(kind, check name, exception whose traceback locates the bug) for a failure.

    A ``Divergence`` whose implementation *raised* is a crash of the implementation
    under test, located at the implementation's exception; any exception that is not a
    ``Violation`` is a crash of the reference or the check itself.
    """
    if isinstance(exc, Divergence) and exc.impl_error is not None:
        return "crash", exc.check, exc.impl_error
    if isinstance(exc, Violation):
        return exc.kind, exc.check, exc
    return "crash", None, exc


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
    """Record mode: turns failures into stored, deduplicated, minimized findings."""

    #: How often in-memory hit counts are written back to the findings folder.
    FLUSH_SECONDS = 5.0

    def __init__(self, target: Target, impl: Any, impl_name: str | None,
                 findings_dir: Path, corpus_dir: Path | None) -> None:
        from .store import Corpus, FindingStore

        self.target = target
        self.impl = impl
        self.impl_name = impl_name
        self.impl_modules = modules_under_test(impl) if target.differential else ()
        self.findings = FindingStore(findings_dir)
        self.corpus = Corpus(corpus_dir) if corpus_dir is not None else None
        self.pending: dict[str, int] = {}  # signature -> hits not yet written
        self.ids: dict[str, str] = {}  # signature -> finding id
        self.last_flush = time.monotonic()

    def signature(self, exc: BaseException) -> str:
        from .store import signature_for

        kind, check, located = classify(exc)
        return signature_for(self.target.name, kind, located, check,
                             impl=self.impl_name, impl_modules=self.impl_modules)

    def _fails_same(self, signature: str) -> Callable[[bytes], bool]:
        def still_fails(candidate: bytes) -> bool:
            try:
                self.target.run_bytes(candidate, self.impl)
            except Exception as exc:
                return self.signature(exc) == signature
            return False

        return still_fails

    def record(self, data: bytes, exc: Exception) -> None:
        signature = self.signature(exc)
        if signature in self.ids:
            self.pending[signature] = self.pending.get(signature, 0) + 1
            if time.monotonic() - self.last_flush > self.FLUSH_SECONDS:
                self.flush()
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
            case = self.target.from_bytes(small)
        finding = build_finding(self.target, self.impl_name, case, small, small_exc,
                                minimized=small != data, impl_modules=self.impl_modules)
        stored, is_new = self.findings.record(finding)
        self.ids[signature] = stored.id
        if self.corpus is not None:
            self.corpus.add(self.target.name, data)
            self.corpus.add(self.target.name, small)
        word = "NEW" if is_new else "KNOWN"
        print(f"pctfuzz: {word} FINDING {stored.kind} {stored.id} {signature}",
              file=sys.stderr, flush=True)

    def flush(self) -> None:
        for signature, hits in self.pending.items():
            if hits:
                self.findings.add_hits(self.ids[signature], hits)
        self.pending.clear()
        self.last_flush = time.monotonic()


def build_finding(target: Target, impl_name: str | None, case: Case, raw: bytes | None,
                  exc: BaseException, *, minimized: bool,
                  impl_modules: tuple[str, ...] = ()) -> Any:
    """A ``store.Finding`` for a failure of ``target`` on ``case``."""
    from .store import new_finding

    kind, check, located = classify(exc)
    return new_finding(
        target=target.name,
        kind=kind,
        check=check,
        exc=located,
        case=case,
        raw_input=raw,
        evidence=exc.evidence() if isinstance(exc, Violation) else {"error": repr(exc)},
        impl=impl_name,
        impl_modules=impl_modules,
        minimized=minimized,
    )


def main(target_name: str, argv: list[str] | None = None) -> None:
    """Run ``target_name`` under atheris with libFuzzer flags from ``argv``."""
    import atheris

    from .oracles import get_impl

    argv = list(sys.argv if argv is None else argv)
    target = get_target(target_name)
    impl: Any = None
    impl_name: str | None = None
    if not target.differential and os.environ.get("PCTFUZZ_FAULT"):
        # A deliberately wrong codec (pctfuzz.faults), to measure time-to-first-finding.
        from .faults import FAULTS

        impl_name = os.environ["PCTFUZZ_FAULT"]
        impl = FAULTS[impl_name]
    elif target.differential:
        impl_name = os.environ.get("PCTFUZZ_IMPL", "urllib")
        impl = get_impl(impl_name)
        instrument_modules(modules_under_test(impl))
    findings_dir = os.environ.get("PCTFUZZ_FINDINGS")
    corpus_dir = os.environ.get("PCTFUZZ_CORPUS")
    recorder = (
        Recorder(target, impl, impl_name, Path(findings_dir),
                 Path(corpus_dir) if corpus_dir else None)
        if findings_dir
        else None
    )
    run_bytes = target.run_bytes

    def test_one_input(data: bytes) -> None:
        if recorder is None:
            run_bytes(data, impl)
            return
        try:
            run_bytes(data, impl)
        except Exception as exc:
            recorder.record(data, exc)

    atheris.Setup(argv, test_one_input)
    try:
        atheris.Fuzz()
    finally:
        if recorder is not None:
            recorder.flush()
