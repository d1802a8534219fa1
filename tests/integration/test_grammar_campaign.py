"""The grammar-aware mutator in a real harness process (issue 32): libFuzzer uses it
and the dictionary by default, ``--no-grammar`` (``PCTFUZZ_NO_GRAMMAR``) turns both
off, and a planted bug that needs structure (a parser that keeps the first 100
fields, as PHP's ``max_input_vars`` does with its limit) is found within a fixed number
of executions.
Runs count executions (``-runs``, ``-seed``), never seconds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pctfuzz._internal.fuzz.protocol import HarnessSettings

ADAPTER = '''\
"""urllib's form parser keeping the first 100 fields only, silently (PHP's
max_input_vars drops the rest of a request's fields with a warning in a log)."""
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter


class FirstHundred(UrllibAdapter):
    def form_parse(self, case):
        return super().form_parse(case)[:100]
'''


#: Executions of the grammar run. A mutation to more than 100 fields comes about once in
#: 600 calls of the hook (measured from this seed: one call in four is the grammar's,
#: one in twenty of those a size, half of those many fields, most counts above 100), so
#: 6000 runs miss it with a chance near e**-10, whatever the grammar's tables hold.
RUNS = 6000


def test_the_hand_off_carries_no_grammar() -> None:
    env = HarnessSettings(impl="urllib", grammar=False).to_env({})
    assert env["PCTFUZZ_NO_GRAMMAR"] == "1"
    assert not HarnessSettings.from_env(env).grammar
    assert HarnessSettings.from_env(HarnessSettings(impl="urllib").to_env(env)).grammar


def _harness(tmp_path: Path, *, grammar: bool, runs: int) -> subprocess.CompletedProcess[str]:
    (tmp_path / "first_hundred.py").write_text(ADAPTER)
    findings, corpus = tmp_path / "findings", tmp_path / "corpus"
    findings.mkdir(exist_ok=True)
    corpus.mkdir(exist_ok=True)
    (corpus / "seed").write_bytes(b"\x01a=b&c=d")
    settings = HarnessSettings(impl="first_hundred:FirstHundred", findings=str(findings),
                               root=str(tmp_path), grammar=grammar)
    env = {**settings.to_env(os.environ), "PYTHONUNBUFFERED": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pctfuzz._internal.harness", "diff_form_parse", str(corpus),
         f"-runs={runs}", "-seed=1", "-max_len=8192"],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_grammar_finds_a_field_limit_and_no_grammar_is_plain_libfuzzer(tmp_path: Path) -> None:
    (tmp_path / "g").mkdir()
    run = _harness(tmp_path / "g", grammar=True, runs=RUNS)
    assert "LLVMFuzzerCustomMutator" in run.stderr, run.stderr[-2000:]
    assert "Dictionary:" in run.stderr
    records = list((tmp_path / "g" / "findings").glob("*.json"))
    assert records, run.stderr[-3000:]
    record = records[0].read_text()
    assert "first_hundred" in record or "FirstHundred" in record

    (tmp_path / "p").mkdir()
    plain = _harness(tmp_path / "p", grammar=False, runs=200)
    assert "LLVMFuzzerCustomMutator" not in plain.stderr
    assert "Dictionary:" not in plain.stderr
    assert "Done 200 runs" in plain.stderr, plain.stderr[-2000:]
