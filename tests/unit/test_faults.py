"""The invariants have teeth: each one catches a deliberately wrong codec.

Three layers:

1. ``TRIGGERS``: for each (fault, invariant) pair that matters, one concrete input on
   which the invariant reports that fault;
2. a Hypothesis search (``find``) per pair, from the public strategies, which must find
   a counterexample on its own;
3. a table test over a fixed corpus: every invariant catches at least one fault, every
   fault is caught by at least one invariant, and the reference passes everything.
"""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.invariants import INVARIANTS, REFERENCE, Codec
from pctfuzz._internal.checks.strategies import (
    decode_cases,
    encode_cases,
    form_cases,
    form_parse_cases,
)
from pctfuzz._internal.oracles.faults import FAULTS
from pctfuzz._internal.sets import SETS
from pctfuzz._internal.violations import Violation

#: (fault, invariant, a case on which the invariant reports the fault)
TRIGGERS: list[tuple[str, str, Any]] = [
    # % must be in the set: otherwise "%c3" in the output may be raw input
    ("lowercase-hex", "output-alphabet", EncodeCase("\u00e9", "component")),  # %c3%a9
    ("tilde-encoded", "unreserved-idempotence", EncodeCase("~", "path")),
    ("tilde-encoded", "output-alphabet", EncodeCase("~", "component")),  # %7E, ~ not in set
    ("fragment-lt-raw", "output-alphabet", EncodeCase("<", "fragment")),
    ("path-dquote-raw", "monotonicity", EncodeCase('"', "path")),  # query encodes it
    ("path-dquote-raw", "output-alphabet", EncodeCase('"', "path")),
    ("percent-raw", "round-trip", EncodeCase("%41", "component")),  # decodes to "A"
    ("percent-raw", "output-alphabet", EncodeCase("%zz", "component")),
    ("plus-ignored", "output-alphabet", EncodeCase(" ", "form", "utf-8", True)),  # %20
    ("plus-raw", "round-trip", EncodeCase("+", "form", "utf-8", True)),  # reads as space
    ("plus-raw", "form-round-trip", FormCase((("a+b", ""),))),
    ("requote", "concatenation", EncodeCase("%41", "component")),  # "%25" + "41"
    ("requote", "round-trip", EncodeCase("%41", "component")),
    ("strip", "length-bound", EncodeCase(" a ", "c0-control")),  # shorter than 3 bytes
    ("strip", "concatenation", EncodeCase("a b", "c0-control")),  # "a" + "b" vs "a b"
    ("double-encoded", "length-bound", EncodeCase("\u00e9", "component")),  # 10 > 3 x 2
    ("double-encoded", "round-trip", EncodeCase(" ", "component")),  # %2520
    ("alternating-hex-case", "determinism", EncodeCase("\u00e9", "path")),
    ("surrogatepass", "input-domain", EncodeCase("\ud800", "path")),
    ("decode-short-escape", "decode-robustness", DecodeCase("%2")),
    ("decode-uppercase-only", "decode-robustness", DecodeCase("%c3%a9")),
    ("decode-uppercase-only", "unreserved-idempotence", EncodeCase("~", "path")),  # %7e
    ("decode-raises", "decode-robustness", DecodeCase("%zz")),
    ("form-plus-kept", "form-round-trip", FormCase((("a b", ""),))),
    ("form-space-as-%20", "form-serializer", FormCase((("a b", ""),))),
    ("form-surrogateescape", "form-parse", FormParseCase(b"a=\xff")),
]


def test_triggers_cover_every_fault_and_invariant() -> None:
    assert {fault for fault, _, _ in TRIGGERS} == set(FAULTS)
    assert {invariant for _, invariant, _ in TRIGGERS} == set(INVARIANTS)


def reports(invariant: str, codec: Codec, case: Any) -> bool:
    """Does ``invariant`` report a violation of its own for ``case`` under ``codec``?"""
    try:
        INVARIANTS[invariant].check(case, codec)
    except Violation as exc:
        return exc.check == invariant
    except Exception:  # a crash of the faulty codec is not this invariant's finding
        return False
    return False


@pytest.mark.parametrize(("fault", "invariant", "case"), TRIGGERS)
def test_trigger(fault: str, invariant: str, case: Any) -> None:
    with pytest.raises(Violation) as info:
        INVARIANTS[invariant].check(case, FAULTS[fault])
    assert info.value.check == invariant
    # ... and the same case passes with the reference.
    INVARIANTS[invariant].check(case, REFERENCE)


# --- Hypothesis finds the faults on its own --------------------------------------------

_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "decode-robustness": decode_cases(),
    "form-round-trip": form_cases(),
    "form-serializer": form_cases(),
    "form-parse": form_parse_cases(),
}
#: A search stops at its first find, so only a fault found late costs its budget: 6,000
#: since the encode strategy spends one draw in eight on long values and legacy runs
#: (``strategies.encode_cases``), which one-character faults rarely show on. Seeded
#: (``random=Random(0)`` below), not derandomized: a derandomized search seeds itself
#: from the test's digest, which holds its file's path, so a fresh clone elsewhere
#: drew another sequence and missed fragment-lt-raw within 6,000; 12,000 finds it
#: with seeds 0-3 (6-34 s with the shrink).
_SEARCH = settings(
    max_examples=12_000,
    database=None,
    derandomize=False,
    deadline=None,
    phases=[Phase.generate, Phase.shrink],
    suppress_health_check=list(HealthCheck),
)


def _search_pairs() -> list[tuple[str, str]]:
    """One search per fault and per invariant (the first trigger of each)."""
    seen_faults: set[str] = set()
    seen_invariants: set[str] = set()
    pairs = []
    for fault, invariant, _ in TRIGGERS:
        if fault not in seen_faults or invariant not in seen_invariants:
            pairs.append((fault, invariant))
            seen_faults.add(fault)
            seen_invariants.add(invariant)
    return pairs


@pytest.mark.parametrize(("fault", "invariant"), _search_pairs())
def test_hypothesis_finds(fault: str, invariant: str) -> None:
    codec = FAULTS[fault]
    strategy = _STRATEGIES.get(invariant, encode_cases(surrogates=invariant == "input-domain"))
    found = find(strategy, lambda case: reports(invariant, codec, case), settings=_SEARCH,
                 random=Random(0))
    assert reports(invariant, codec, found)
    assert not reports(invariant, REFERENCE, found)


# --- the table: every invariant catches a fault, every fault is caught ------------------

_VALUES: tuple[str | bytes, ...] = (
    "a~b", '<"\u00e9', "%41", "%zz", "%2", "%", "a b+c", " x\t", "a\ud800", b"%7e x",
)
_CORPUS: dict[type, list[Any]] = {
    EncodeCase: [
        EncodeCase(v, name, "utf-8", plus)
        for v in _VALUES
        for name in SETS
        for plus in (False, True)
    ],
    DecodeCase: [DecodeCase(v) for v in ("%2g", "%zz", "%7e", "%4", "abc%41")],
    FormCase: [FormCase((("a b", "c+d"),)), FormCase((("\u00e9", "x"),))],
    FormParseCase: [FormParseCase(b"a=\xff"), FormParseCase("a+b=c")],
}
_CASE_TYPE = {
    "decode-robustness": DecodeCase,
    "form-round-trip": FormCase,
    "form-serializer": FormCase,
    "form-parse": FormParseCase,
}


def catch_table() -> dict[str, set[str]]:
    """invariant -> the faults it reports somewhere in the corpus."""
    table: dict[str, set[str]] = {name: set() for name in INVARIANTS}
    for invariant in INVARIANTS:
        corpus = _CORPUS[_CASE_TYPE.get(invariant, EncodeCase)]
        for fault, codec in FAULTS.items():
            if any(reports(invariant, codec, case) for case in corpus):
                table[invariant].add(fault)
    return table


def test_every_invariant_catches_a_fault_and_every_fault_is_caught() -> None:
    table = catch_table()
    uncaught_by = [name for name, faults in table.items() if not faults]
    assert not uncaught_by, f"invariants that catch no fault: {uncaught_by}"
    caught = set().union(*table.values())
    assert set(FAULTS) - caught == set(), "faults no invariant catches"
    for fault, invariant, _ in TRIGGERS:
        assert fault in table[invariant], (fault, invariant)


def test_reference_passes_the_corpus() -> None:
    for invariant in INVARIANTS:
        for case in _CORPUS[_CASE_TYPE.get(invariant, EncodeCase)]:
            assert not reports(invariant, REFERENCE, case), (invariant, case)


def test_faults_registry() -> None:
    for name, codec in FAULTS.items():
        assert codec.name == name
        assert codec.description
