"""Targets: the byte formats are total and lossless, and every target's check runs
the shared invariant or differential check."""

from __future__ import annotations

import contextlib
import dataclasses
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pctfuzz._internal.cases import EncodeCase, FormCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.fuzz.seeds import seed_cases
from pctfuzz._internal.oracles.faults import FAULTS
from pctfuzz._internal.targets import FUZZ_ENCODINGS, FUZZ_SETS, TARGETS, get_target
from pctfuzz._internal.violations import Divergence, Violation


def _normalized(case: object) -> object:
    """Cases as the byte format keeps them: canonical encoding names."""
    if isinstance(case, EncodeCase | FormCase):
        return dataclasses.replace(case, encoding=lookup(case.encoding).name)
    return case


def test_target_names_are_oss_fuzz_safe_and_paired() -> None:
    names = list(TARGETS)
    assert names == ["encode", "decode", "form", "form_parse",
                     "diff_encode", "diff_decode", "diff_form", "diff_form_parse"]
    assert all(TARGETS[f"diff_{n}"].differential for n in names[:4])
    assert not any(TARGETS[n].differential for n in names[:4])


def test_unknown_target_names_the_known_ones() -> None:
    with pytest.raises(PctfuzzError, match=r"'nope'.*encode, decode"):
        get_target("nope")


@pytest.mark.parametrize("name", list(TARGETS))
@given(data=st.binary(max_size=64))
def test_every_byte_string_is_a_case(name: str, data: bytes) -> None:
    target = TARGETS[name]
    case = target.from_bytes(data)
    assert isinstance(case, target.case_type)
    # The case has a byte form, and that form decodes to the same case.
    assert target.from_bytes(target.to_bytes(case)) == case


@pytest.mark.parametrize("name", ["encode", "decode", "form", "form_parse"])
def test_seed_cases_survive_the_byte_format(name: str) -> None:
    target = TARGETS[name]
    for case in seed_cases(target.case_type.type):
        assert target.from_bytes(target.to_bytes(case)) == _normalized(case)


def test_encode_format_is_stable() -> None:
    """Pinned bytes: committed corpus files and findings depend on this layout."""
    target = TARGETS["encode"]
    assert target.from_bytes(b"") == EncodeCase("", "c0-control", "UTF-8", False)
    assert target.from_bytes(b"\x06\x00a b") == EncodeCase("a b", "component", "UTF-8")
    assert target.from_bytes(b"\x47\x00a b") == EncodeCase(
        "a b", "application/x-www-form-urlencoded", "UTF-8", True)
    assert target.from_bytes(b"\x86\x00\xff") == EncodeCase(b"\xff", "component", "UTF-8")
    shift_jis = 0x80 + (1 - 0x80) % len(FUZZ_ENCODINGS)
    assert target.from_bytes(bytes([3, shift_jis]) + "¥".encode()) == EncodeCase(
        "¥", "special-query", "Shift_JIS")
    assert FUZZ_SETS[6] == "component" and FUZZ_ENCODINGS[1] == "Shift_JIS"


def test_form_format_is_length_prefixed() -> None:
    target = TARGETS["form"]
    assert target.from_bytes(b"\x00\x01a\x03b c\x01=") == FormCase(
        (("a", "b c"), ("=", "")), "UTF-8")
    with pytest.raises(PctfuzzError, match="255"):
        target.to_bytes(FormCase((("x" * 300, ""),)))


@pytest.mark.parametrize("name", list(TARGETS))
def test_every_seed_passes_its_check(name: str) -> None:
    target = TARGETS[name]
    for case in seed_cases(target.case_type.type):
        target.check(case, None)


def test_invariant_target_catches_a_fault() -> None:
    """An invariant target given a wrong codec reports a Violation."""
    case = EncodeCase("a~b", "component")
    TARGETS["encode"].check(case)  # the reference is fine
    with pytest.raises(Violation):
        TARGETS["encode"].check(case, FAULTS["tilde-encoded"])


def test_differential_target_reports_a_broken_impl() -> None:
    from broken_impls import TildeEncodingUrllib

    case = EncodeCase("a~b", "component")
    TARGETS["diff_encode"].check(case, None)  # urllib agrees with the reference here
    with pytest.raises(Divergence) as info:
        TARGETS["diff_encode"].check(case, TildeEncodingUrllib())
    assert (info.value.expected, info.value.actual) == ("a~b", "a%7Eb")


# --- the atheris driver's rotation (Target.check_fast) ------------------------------------
#: Faults with hidden state fail or pass depending on the calls before: no rotation
#: can agree with the full check on them call for call.
_STATELESS_FAULTS = [name for name in FAULTS if name != "alternating-hex-case"]
_INVARIANT_TARGETS = [name for name, t in TARGETS.items() if not t.differential]


def _failure(run: object) -> str | None:
    """The invariant ``run()`` violates (or the exception a faulty codec raised through
    it, which the driver records as a crash), or None if it passes."""
    try:
        run()  # type: ignore[operator]
    except Violation as exc:
        return exc.check
    except Exception as exc:  # e.g. the decode-raises fault inside encode's round trip
        return f"raised {type(exc).__name__}"
    return None


# 70 (target, fault) pairs: the pairs are the sweep, so 25 derandomized cases each
# (100 each took about 160 s on two cores).
@pytest.mark.parametrize("fault", _STATELESS_FAULTS)
@pytest.mark.parametrize("name", _INVARIANT_TARGETS)
@settings(max_examples=25)
@given(data=st.data())
def test_rotation_fails_exactly_where_the_full_check_fails(
    name: str, fault: str, data: st.DataObject
) -> None:
    # Over its turns the rotation runs every invariant of the full check: a case fails
    # some turn iff it fails the full check, and the full check's invariant is among
    # the turns' (the driver records the full check's: Recorder signatures never
    # depend on the turn).
    target = get_target(name)
    case = data.draw(target.strategy())
    codec = FAULTS[fault]
    full = _failure(lambda: target.check(case, codec))
    turns = {_failure(lambda t=t: target.check_fast(case, codec, t))
             for t in range(target.turns())}
    if full is None:
        assert turns == {None}
    else:
        assert full in turns


@pytest.mark.parametrize("name", _INVARIANT_TARGETS)
@given(data=st.data())
def test_rotation_passes_on_the_reference(name: str, data: st.DataObject) -> None:
    target = get_target(name)
    case = data.draw(target.strategy())
    for turn in range(target.turns()):
        target.check_fast(case, None, turn)


_PARTS = {
    "encode": ("_alphabet", "_length", "_round_trip", "_unreserved", "_concatenation",
               "_monotonicity", "_determinism"),
    "form": ("_form_serializer", "_form_round_trip"),
    "form_parse": ("_parse", "_reparse"),
    "decode": ("check_decode_robustness",),
}
_RUN_EVERY_PART = {
    "encode": EncodeCase("a b~\"<%", "path", "windows-1252", True),
    "form": FormCase((("a b", "c~"),)),
    "form_parse": get_target("form_parse").from_bytes(b"\x01a=b&c+d"),
    "decode": get_target("decode").from_bytes(b"\x01%41%zz"),
}


@pytest.mark.parametrize("name", _INVARIANT_TARGETS)
def test_every_invariant_runs_within_the_turns(name: str, monkeypatch: pytest.MonkeyPatch
                                               ) -> None:
    target = get_target(name)
    # The parts are looked up in the module of the target's aggregate check.
    home = sys.modules[target.checker.__module__]
    ran: list[str] = []
    for part in _PARTS[name]:
        real = getattr(home, part)
        monkeypatch.setattr(home, part,
                            lambda *a, _r=real, _p=part, **k: (ran.append(_p), _r(*a, **k))[1])
    case = _RUN_EVERY_PART[name]
    target.check(case)
    assert set(ran) == set(_PARTS[name])  # the case exercises every part of the check
    ran.clear()
    for turn in range(target.turns()):
        target.check_fast(case, None, turn)
    assert set(ran) == set(_PARTS[name])
    ran.clear()
    target.check_fast(case, None, 0)
    assert name == "decode" or set(ran) < set(_PARTS[name])  # one turn runs less


# --- the subject under test (resolve_subject) --------------------------------------------
def test_each_target_resolves_its_own_kind_of_subject() -> None:
    from pctfuzz._internal.checks.invariants import REFERENCE
    from pctfuzz._internal.oracles import get_impl
    from pctfuzz._internal.targets import resolve_subject

    encode, diff = get_target("encode"), get_target("diff_encode")
    assert resolve_subject(encode, None) is REFERENCE
    assert resolve_subject(encode, "reference") is REFERENCE
    assert resolve_subject(encode, "tilde-encoded") is FAULTS["tilde-encoded"]
    assert resolve_subject(diff, None).name == "urllib"
    adapter = get_impl("urllib")
    assert resolve_subject(diff, adapter) is adapter


def test_a_subject_of_the_wrong_kind_is_refused_in_one_line() -> None:
    """Refused before any call: an adapter given to an invariant target used to crash
    on the check's first call (and ``pctfuzz coverage`` hid it)."""
    from pctfuzz._internal.oracles import get_impl

    case = EncodeCase("a", "component")
    refusals = [
        (get_target("encode"), get_impl("urllib"), r"^target encode checks the invariants "
         r"of a codec .*'urllib' is an implementation adapter: use diff_encode$"),
        (get_target("encode"), "urllib", r"^target encode checks the reference or a fault "
         r"codec; 'urllib' is neither \(faults: "),
        (get_target("diff_encode"), FAULTS["tilde-encoded"], r"^target diff_encode compares "
         r"an implementation adapter with the reference; 'tilde-encoded' is a codec"),
    ]
    for target, subject, message in refusals:
        with pytest.raises(PctfuzzError, match=message) as info:
            target.check(case, subject)  # type: ignore[arg-type]
        assert "\n" not in str(info.value)


def test_targets_hold_their_check_and_strategy_as_objects() -> None:
    from pctfuzz._internal.checks import differential, invariants, strategies

    assert get_target("encode").checker is invariants.check_encode
    assert get_target("diff_form_parse").checker is differential.check_form_parse
    assert get_target("form").cases is strategies.form_cases
    assert get_target("form").rotation is invariants.ROTATING[invariants.check_form]
    assert not hasattr(get_target("diff_decode"), "rotation")  # a differential target


def test_two_kinds_of_target_each_built_from_its_operation() -> None:
    from pctfuzz._internal.operations import OPERATIONS
    from pctfuzz._internal.targets import DifferentialTarget, InvariantTarget

    for op in OPERATIONS:
        invariant, differential = (get_target(name) for name in op.targets)
        assert isinstance(invariant, InvariantTarget) and not invariant.differential
        assert isinstance(differential, DifferentialTarget) and differential.differential
        assert invariant.operation is differential.operation is op
        assert invariant.case_type is op.case_type


@pytest.mark.parametrize("name", list(TARGETS))
def test_a_bound_target_never_resolves_its_subject_per_input(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The atheris driver binds once (``Target.bind``) and runs ``bound.run`` per input:
    no input goes back to the resolver or re-reads the adapter's answer domain."""
    import random

    from pctfuzz._internal import targets
    from pctfuzz._internal.fuzz.driver import run_input

    target = get_target(name)
    bound = target.bind("urllib" if target.differential else None)
    bound.run(b"\x00warm")  # the answer domain is read on the first input
    resolved: list[object] = []
    for spy in ("resolve_subject", "_codec", "_impl"):
        real = getattr(targets, spy)
        monkeypatch.setattr(targets, spy,
                            lambda *a, _r=real, **k: (resolved.append(a), _r(*a, **k))[1])
    real_of = targets.AnswerDomain.of
    monkeypatch.setattr(targets.AnswerDomain, "of", staticmethod(
        lambda *a, **k: (resolved.append(a), real_of(*a, **k))[1]))
    rng = random.Random(7)
    for _ in range(300):
        data = rng.randbytes(rng.randrange(40))
        with contextlib.suppress(Exception):  # a finding is an input like any other
            run_input(bound, data)
    assert resolved == []
    # ... while the unbound convenience resolves on each call, as it says.
    with contextlib.suppress(Exception):
        target.run_bytes(b"\x00a", "urllib" if target.differential else None)
    assert resolved
