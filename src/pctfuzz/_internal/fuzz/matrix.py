"""One campaign over many implementations at once (``pctfuzz matrix``; docs/peers.md).

Each input is asked of every implementation, and the reference's answer to a case is
computed once, however many implementations are asked it. The inputs are bytes of
the differential targets' byte formats (``pctfuzz._internal.formats``): the corpus's files
first, then mutations of them (a seeded loop: byte flips, insertions of URL
delimiters and UTF-8, deletions, splices). Each implementation reads the bytes as its
campaign would (``Target.case_from_bytes``: a ``diff_encode`` input picks the set from
the implementation's own sets), so every finding replays exactly as a ``pctfuzz fuzz``
finding does.

Why not atheris: libFuzzer runs one target against one implementation per process,
and its coverage is of the Python side only, which is the same code for every peer;
forty implementations would be forty campaigns that never share an input. This loop
asks each input of all of them, which is what a matrix compares.

For each implementation and column (the check, and for encode the set), a ``Cell``
counts the cases that agree, those that accepted differences explain (by entry id),
and those that are bugs, each recorded in the findings store as ``pctfuzz fuzz``
records it (minimized, deduplicated by signature). ``Confusion`` counts the inputs on
which two implementations asked the same case answer differently: a value against
another value or against an error; two errors (of any type) are two refusals, on which
a stack of both cannot disagree about the data.

Before the inputs, each implementation is asked which side it is on of each of the URL
Standard's dated set changes (``fuzz.follows``: ``^`` joining the path set...), so the
pages show who follows the standard's changes.

A peer that fails mid-run without an input to blame (it died or timed out once and a
fresh peer answered, or it could not be started again) makes its implementation
incomplete (``MatrixRun.incomplete``): an implementation whose peer is unavailable is
not asked again, and no finding blames the inputs it could not answer.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pctfuzz._internal.cases import Case, EncodeCase
from pctfuzz._internal.checks.differential import judge
from pctfuzz._internal.checks.profile import run_impl, scalar_values
from pctfuzz._internal.checks.registry.lookup import DIVERGENCES, accepted_entries
from pctfuzz._internal.fuzz.follows import Follows, sides
from pctfuzz._internal.fuzz.minimize import minimize_case, raw_input_for, same_failure
from pctfuzz._internal.fuzz.recorder import build_finding
from pctfuzz._internal.identity import signature_of
from pctfuzz._internal.operations import OPERATIONS
from pctfuzz._internal.oracles.base import Impl, impl_name, impl_version
from pctfuzz._internal.oracles.peer import PeerUnavailable
from pctfuzz._internal.outcome import Outcome, case_text, reference_outcome
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings
from pctfuzz._internal.targets import Bound, Target, get_target, modules_under_test
from pctfuzz._internal.text import one_line
from pctfuzz._internal.violations import Divergence

__all__ = ["CHECK_OF", "Cell", "Confusion", "MatrixRun", "run_matrix"]

#: The differential targets a matrix runs, and the check each one is.
CHECK_OF: Mapping[str, str] = {op.differential_target: op.name for op in OPERATIONS}

#: Bytes a mutation inserts: URL delimiters, escapes, and UTF-8 of several lengths.
_TOKENS = (b"%", b"%2", b"%25", b"%zz", b"%C3%A9", b"%FF", b"+", b" ", b"&", b"=", b";",
           b"?", b"#", b"/", b"\\", b"~", b"*", b"^", b"'", b"\x00", b"\t", b"\xc3\xa9",
           b"\xe2\x82\xac", b"\xf0\x9f\x92\xa9", b"\xff", b"[", b"]", b"@", b":", b"!")


@dataclass
class Cell:
    """One implementation on one column: how its answered cases came out."""

    agree: int = 0
    accepted: Counter[str] = field(default_factory=Counter)  # entry id -> cases
    bugs: Counter[str] = field(default_factory=Counter)  # finding id -> cases

    @property
    def answered(self) -> int:
        return self.agree + sum(self.accepted.values()) + sum(self.bugs.values())


@dataclass
class Confusion:
    """Two implementations that answered one case differently (the first such case)."""

    count: int
    case: str
    answers: tuple[str, str]


@dataclass
class MatrixRun:
    """What ``run_matrix`` found."""

    impls: list[str]
    versions: dict[str, str]
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)
    confusions: dict[tuple[str, str, str], Confusion] = field(default_factory=dict)
    findings: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> summary
    inputs: Counter[str] = field(default_factory=Counter)  # target -> inputs
    reference_answers: int = 0
    lost: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: accepted entry id -> (summary, citation): the registry's and the adapters' own,
    #: so the page can say what each accepted difference is.
    entries: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: implementation -> failures of its peer that no input was blamed for (a death or
    #: a timeout that a fresh peer then answered, lines nobody asked for:
    #: ``ProcessAdapter.peer_failures``)
    peer_failures: dict[str, list[str]] = field(default_factory=dict)
    #: implementation -> why it was no longer asked (its peer could not be restarted:
    #: ``PeerUnavailable``), from that input on
    gone: dict[str, str] = field(default_factory=dict)
    #: implementation -> change id -> its side of each of the URL Standard's dated set
    #: changes (``fuzz.follows``: asked once, before the inputs)
    changes: dict[str, dict[str, Follows]] = field(default_factory=dict)

    @property
    def incomplete(self) -> dict[str, list[str]]:
        """Implementation -> why its cells cover less than the run (a peer failed
        mid-run): never a green run."""
        out = {name: list(failures) for name, failures in self.peer_failures.items()
               if failures}
        for name, why in self.gone.items():
            out.setdefault(name, []).append(why)
        return {name: out[name] for name in self.impls if name in out}


def _column(check: str, case: Case) -> str:
    return f"encode {case.set_name}" if isinstance(case, EncodeCase) else check


def _mutate(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(5)
        pos = rng.randint(0, len(out))
        if choice == 0 and out:
            out[min(pos, len(out) - 1)] = rng.randrange(256)
        elif choice == 1:
            out[pos:pos] = rng.choice(_TOKENS)
        elif choice == 2 and len(out) > 2:
            del out[pos:pos + rng.randint(1, 4)]
        elif choice == 3 and pool:
            other = rng.choice(pool)
            out[pos:] = other[rng.randint(0, len(other)):]
        else:
            out[pos:pos] = bytes(rng.randrange(0x20, 0x7F) for _ in range(rng.randint(1, 3)))
    return bytes(out[:256])


def _seeds(corpus: Path | None, target: str) -> list[bytes]:
    seeds = [b"", b"\x00\x00a b", b"\x01a%20b+c", b"\x00\x00%zz%C3%A9&=;"]
    folder = corpus / target if corpus else None
    if folder is not None and folder.is_dir():
        for path in sorted(folder.iterdir())[:500]:
            if path.is_file() and path.stat().st_size <= 4096:
                seeds.append(path.read_bytes())
    return seeds


def _inputs(rng: random.Random, seeds: list[bytes]) -> Iterator[bytes]:
    yield from seeds
    pool = list(seeds)
    while True:
        child = _mutate(rng, rng.choice(pool), pool)
        if len(pool) < 2000:
            pool.append(child)
        else:
            pool[rng.randrange(len(pool))] = child
        yield child


def _describe(outcome: Outcome) -> str:
    return outcome.describe() if outcome.raised else repr(outcome.value)


class _Recorder:
    """Saves each new unexplained difference once per signature, minimized."""

    def __init__(self, run: MatrixRun, findings: Path,
                 settings: RunSettings = DEFAULT_SETTINGS) -> None:
        self.run, self.findings, self.settings = run, findings, settings
        self.by_signature: dict[str, str] = {}
        self._bound: dict[tuple[str, int], tuple[Impl, Bound]] = {}

    def bound(self, target: Target, impl: Impl) -> Bound:
        """``target`` bound to ``impl`` with the run's settings, once per pair."""
        key = (target.name, id(impl))
        kept = self._bound.get(key)
        if kept is None or kept[0] is not impl:
            kept = self._bound[key] = (impl, target.bind(impl, self.settings))
        return kept[1]

    def bug(self, target: Target, data: bytes, case: Case, impl: Impl) -> str | None:
        """The finding id of the difference on ``case`` (recorded if new); None if the
        check does not fail again (a flaky peer: noted as lost)."""
        from pctfuzz._internal.store import FindingStore, StoreError

        name = impl_name(impl)
        code = modules_under_test(impl, target.operation)
        bound = self.bound(target, impl)
        try:
            bound.check(case)
        except Exception as failed:
            first: BaseException = failed
        else:
            self.run.lost.append(f"{name}: {case_text(case)} did not fail again")
            return None
        signature = signature_of(target.name, first, case=case, subject=impl, impl=name,
                                 code_under_test=code, accepted=self.settings.accepted)
        known = self.by_signature.get(signature)
        if known is not None:
            return known
        keeps = same_failure(target, impl, name, signature, representable=True,
                             settings=self.settings)
        found = minimize_case(case, keeps, max_tries=400, max_seconds=2.0)
        small, error = found.case, first
        try:
            bound.check(small)
            small = case  # passed this time (a flaky implementation): keep the original
        except Exception as again:
            error = again
        raw = raw_input_for(target, small, impl, self.settings) if small is not case else data
        case = small
        finding = build_finding(target, name, case, raw, error,
                                minimized=found.complete and case is found.case,
                                signature=signature, impl=impl)
        try:
            stored, _new = FindingStore(self.findings).record(finding)
        except StoreError as err:
            self.run.lost.append(f"{name}: finding {signature}: {err}")
            return None
        self.by_signature[signature] = stored.id
        expected, actual = stored.expected, stored.actual
        if isinstance(error, Divergence) and error.impl_error is not None:
            # a crash record keeps no answers: say what the reference and the
            # implementation did (the page showed "None" and "None")
            expected = repr(error.expected) if expected is None else expected
            actual = f"raises {type(error.impl_error).__name__}: {error.impl_error}"
        self.run.findings[stored.id] = {
            "impl": name, "target": target.name, "kind": stored.kind, "case": case_text(case),
            "expected": expected, "actual": actual,
            "file": str(self.findings / stored.file_name),
        }
        return str(stored.id)


def run_matrix(
    impls: Mapping[str, Impl],
    *,
    max_time: float,
    findings: Path,
    corpus: Path | None = None,
    targets: Sequence[str] = tuple(CHECK_OF),
    seed: int = 0,
    max_inputs: int | None = None,
    progress: Callable[[MatrixRun], None] | None = None,
    settings: RunSettings = DEFAULT_SETTINGS,
) -> MatrixRun:
    """Ask every input of every implementation until ``max_time`` seconds (or
    ``max_inputs`` inputs per target) have passed (module docstring), with the run's
    ``settings`` (``Project.run_settings``)."""
    start = time.monotonic()
    run = MatrixRun(list(impls), {n: impl_version(i) for n, i in impls.items()})
    for entry in (*DIVERGENCES,
                  *(e for i in impls.values() for e in accepted_entries(i, settings))):
        run.entries.setdefault(entry.id, (entry.summary, entry.citation))
    run.changes = sides(impls)
    recorder = _Recorder(run, findings, settings)
    rng = random.Random(seed)
    streams = {t: _inputs(rng, _seeds(corpus, t)) for t in targets}
    chosen = [get_target(t) for t in targets]
    last_progress = start
    while True:
        now = time.monotonic()
        if now - start >= max_time:
            break
        if max_inputs is not None and all(run.inputs[t] >= max_inputs for t in targets):
            break
        for target in chosen:
            if max_inputs is not None and run.inputs[target.name] >= max_inputs:
                continue
            _one_input(run, recorder, target, next(streams[target.name]), impls)
        if progress is not None and now - last_progress >= 1.0:
            last_progress = now
            progress(run)
    run.seconds = time.monotonic() - start
    for name, impl in impls.items():
        # A peer's failures that no input was blamed for (said once each).
        failures = list(dict.fromkeys(getattr(impl, "peer_failures", None) or []))
        if failures:
            run.peer_failures[name] = failures[:20]
    return run


def _one_input(run: MatrixRun, recorder: _Recorder, target: Target, data: bytes,
               impls: Mapping[str, Impl]) -> None:
    check = CHECK_OF[target.name]
    run.inputs[target.name] += 1
    references: dict[tuple[Case, str], Outcome] = {}
    answered: dict[Case, list[tuple[str, Outcome]]] = {}
    for name, impl in impls.items():
        if name in run.gone:
            continue  # its peer is gone: every question would be PeerUnavailable
        try:
            case = recorder.bound(target, impl).case_from_bytes(data)
        except Exception as exc:  # an input this format cannot read: not the impl's fault
            run.lost.append(f"{target.name}: input unreadable: {exc}")
            continue
        actual = run_impl(check, case, impl)
        if actual is None:
            continue  # Unsupported
        if isinstance(actual.error, PeerUnavailable):
            # Its peer failed and cannot be started again: no input's fault, and no
            # answer to compare from here on. The implementation is incomplete.
            asked = sum(run.inputs.values())
            run.gone[name] = one_line(f"peer unavailable after {asked} input(s), not "
                                      f"asked again: {actual.error}", 500)
            continue
        surrogates = scalar_values(impl)
        key = (case, surrogates)
        expected = references.get(key)
        if expected is None:  # once per case, whatever the number of implementations
            expected = references[key] = reference_outcome(check, case, surrogates=surrogates)
            run.reference_answers += 1
        answered.setdefault(case, []).append((name, actual))
        cell = run.cells.setdefault((name, _column(check, case)), Cell())
        ids = judge(check, case, impl, expected, actual, settings=recorder.settings)
        if ids == ():
            cell.agree += 1
            continue
        if ids is not None:
            for ident in ids:
                cell.accepted[ident] += 1
            continue
        finding = recorder.bug(target, data, case, impl)
        if finding is not None:
            cell.bugs[finding] += 1
    for case, outcomes in answered.items():
        for i, (a, out_a) in enumerate(outcomes):
            for b, out_b in outcomes[i + 1:]:
                if out_a.same(out_b) or (out_a.raised and out_b.raised):
                    continue  # the same answer, or two refusals (module docstring)
                key3 = (_column(check, case), min(a, b), max(a, b))
                seen = run.confusions.get(key3)
                if seen is None:
                    answers = (_describe(out_a), _describe(out_b)) if a < b else (
                        _describe(out_b), _describe(out_a))
                    run.confusions[key3] = Confusion(1, case_text(case), answers)
                else:
                    seen.count += 1
