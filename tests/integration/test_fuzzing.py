"""The atheris driver's parts that run without libFuzzer: failure classification,
recording findings, and instrumenting the implementation under test (minimization
itself is tested in ``tests/unit/test_minimize.py``)."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.fuzz.recorder import Recorder
from pctfuzz._internal.identity import classify
from pctfuzz._internal.store import FindingStore
from pctfuzz._internal.targets import TARGETS
from pctfuzz._internal.violations import Divergence, Violation


def test_classify() -> None:
    violation = Violation("round-trip", None)
    assert classify(violation) == ("violation", "round-trip", violation)
    divergence = Divergence("encode", None, impl="urllib", expected="a", actual="b")
    assert classify(divergence)[:2] == ("divergence", "encode")
    boom = ValueError("boom")
    crashed = Divergence("encode", None, impl="urllib", impl_error=boom)
    assert classify(crashed) == ("crash", "encode", boom)
    key_error = KeyError("x")
    assert classify(key_error) == ("crash", None, key_error)


def test_recorder_saves_one_minimized_finding_per_signature(tmp_path: Path) -> None:
    from broken_impls import TildeEncodingUrllib

    target = TARGETS["diff_encode"]
    recorder = Recorder(target, TildeEncodingUrllib(), "broken_impls:TildeEncodingUrllib",
                        tmp_path / "findings", tmp_path / "corpus")
    inputs = [b"\x06\x00hello ~ world", b"\x06\x00~~~~", b"\x06\x00a~"]
    for data in inputs:
        try:
            target.run_bytes(data, recorder.impl)
        except Exception as exc:
            recorder.record(data, exc)
        else:
            pytest.fail(f"{data!r} should diverge")
    recorder.flush()

    findings = list(FindingStore(tmp_path / "findings").iter_findings())
    assert len(findings) == 1
    finding = findings[0]
    assert finding.kind == "divergence" and finding.hits == 3 and finding.minimized
    case = finding.rebuild_case()
    assert isinstance(case, EncodeCase) and case.value == "~"
    assert finding.impl == "broken_impls:TildeEncodingUrllib"
    # The original and the minimized input are both in the corpus, named by sha1.
    corpus = sorted(p.read_bytes() for p in (tmp_path / "corpus" / "diff_encode").iterdir())
    assert inputs[0] in corpus and base64.b64decode(finding.raw_input or "") in corpus


def test_harness_instruments_urllib_parse(tmp_path: Path) -> None:
    """atheris imports urllib.parse itself, so the driver must instrument it after the
    fact: its functions' code objects change."""
    script = (
        "import atheris, urllib.parse as up\n"
        "before = up.quote.__code__, up._Quoter.__missing__.__code__\n"
        "from pctfuzz._internal.fuzz.driver import instrument_modules\n"
        "n = instrument_modules(['urllib.parse'])\n"
        "after = up.quote.__code__, up._Quoter.__missing__.__code__\n"
        "print(n, before[0] is not after[0], before[1] is not after[1])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split()
    assert int(out[0]) > 20 and out[1:] == ["True", "True"]


def test_finding_file_is_plain_json(tmp_path: Path) -> None:
    target = TARGETS["encode"]
    from pctfuzz._internal.oracles.faults import FAULTS

    recorder = Recorder(target, FAULTS["lowercase-hex"], "lowercase-hex", tmp_path, None)
    data = b"\x06\x00\xc3\xa9"
    with pytest.raises(Violation) as info:
        target.run_bytes(data, recorder.impl)
    recorder.record(data, info.value)
    (path,) = tmp_path.glob("*.json")
    record = json.loads(path.read_text("ascii"))
    assert record["kind"] == "violation" and record["target"] == "encode"
    # Minimized and lowered: "é" becomes the simplest code point whose encoding in the
    # component set has a hex letter ("+", %2B).
    assert record["case"]["value"] == {"text": "+"} and record["minimized"]


def test_run_input_records_what_the_full_check_raises() -> None:
    # A codec that encodes the reversed input breaks round-trip (first in the full
    # check) and concatenation (turn 2 of the rotation, which skips round-trip): the
    # driver re-checks in full, so the finding's invariant never depends on the turn.
    from pctfuzz._internal.checks.invariants import Codec
    from pctfuzz._internal.formats import encode_to_bytes
    from pctfuzz._internal.fuzz.driver import run_input
    from pctfuzz._internal.reference import percent_decode, percent_encode

    def reversed_encode(value: str | bytes, set_name: str, *, encoding: str,
                        space_as_plus: bool) -> str:
        return percent_encode(value[::-1], set_name, encoding=encoding,
                              space_as_plus=space_as_plus)

    codec = Codec.build("reversed", reversed_encode, percent_decode)
    target = TARGETS["encode"]
    case = EncodeCase("ab", "component")
    with pytest.raises(Violation) as fast:
        target.check_fast(case, codec, 2)
    assert fast.value.check == "concatenation"
    with pytest.raises(Violation) as recorded:
        run_input(target.bind(codec), encode_to_bytes(case), 2)
    assert recorded.value.check == "round-trip"
    run_input(target.bind(None), encode_to_bytes(case), 2)  # the reference passes
