"""Issue 12 item 5: the default ``urllib`` adapter tests all of urllib.parse, each case
picking its function (``pctfuzz._internal.oracles.urllib_parse.urllib_function``), so a bug in
``unquote`` or ``unquote_plus`` is found by the default campaign."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest
from campaigns import run_until

from pctfuzz._internal.cases import DecodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.differential import check_decode, check_form, check_form_parse
from pctfuzz._internal.oracles import get_impl
from pctfuzz._internal.oracles.urllib_parse import urllib_function
from pctfuzz._internal.violations import Divergence

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = Path(__file__).resolve().parents[1] / "support"


def test_each_function_has_cases() -> None:
    assert urllib_function("decode", DecodeCase("%41")) == "unquote_to_bytes"
    assert urllib_function("decode", DecodeCase("%41a")) == "unquote"
    assert urllib_function("decode", DecodeCase(b"%4")) == "unquote"
    assert urllib_function("form", FormCase((("a", "b"),))) == "quote_plus"
    assert urllib_function("form", FormCase((("a", "b"), ("c", "d")))) == "quote"
    assert urllib_function("form-parse", FormParseCase("a=b")) == "parse_qsl"
    assert urllib_function("form-parse", FormParseCase("a=bc")) == "unquote_plus"
    assert urllib_function("form-parse", FormParseCase(b"a=bc")) == "parse_qsl"


def test_default_adapter_calls_the_function_the_case_picks() -> None:
    impl = get_impl("urllib")
    # unquote (even length) returns text: U+FFFD for invalid UTF-8, accepted exactly.
    assert impl.decode(DecodeCase("%FFa")) == "\ufffda".encode()
    assert impl.decode(DecodeCase("%FF")) == b"\xff"
    assert check_decode(DecodeCase("%FFa")) == ("urllib-unquote-text",)
    assert check_decode(DecodeCase("%FF")) == ()
    assert impl.form_serialize(FormCase((("a b", ""), ("c", "")))) == "a%20b=&c="
    assert check_form(FormCase((("a b", ""), ("c", "")))) == ("urllib-urlencode-quote-space",)
    # quote_plus cases are not rewritten: a %20 there would be a finding.
    assert check_form(FormCase((("a b", ""),))) == ()


@pytest.mark.parametrize(
    ("fault", "check", "case"),
    [
        ("unquote-ignore", check_decode, DecodeCase("%FFa")),
        ("unquote-plus-keeps-plus", check_form_parse, FormParseCase("a=b+")),
    ],
)
def test_injected_fault_is_a_divergence(monkeypatch: pytest.MonkeyPatch, fault: str,
                                        check: object, case: object) -> None:
    if fault == "unquote-ignore":
        monkeypatch.setattr(urllib.parse.unquote, "__defaults__", ("utf-8", "ignore"))
    else:
        original = urllib.parse.unquote
        monkeypatch.setattr(urllib.parse, "unquote_plus",
                            lambda s, encoding="utf-8", errors="replace": original(s))
    assert callable(check)
    with pytest.raises(Divergence):
        check(case, "urllib")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fault", "target"),
    [("unquote-ignore", "diff_decode"), ("unquote-plus-keeps-plus", "diff_form_parse")],
)
def test_default_campaign_finds_an_injected_fault(tmp_path: Path, fault: str,
                                                  target: str) -> None:
    """``pctfuzz fuzz diff_decode diff_form_parse`` on the default adapter, with
    urllib.parse patched in the children: the fault is found."""
    env = dict(os.environ, PCTFUZZ_TEST_URLLIB_FAULT=fault,
               PYTHONPATH=os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")]))
    findings = tmp_path / "findings"
    # Until the fault's finding is saved (an event), then SIGINT (issue 23.16).
    run = run_until(["diff_decode", "diff_form_parse", "--impl", "faulty_urllib:PatchedUrllib",
                     "--corpus", str(tmp_path / "corpus"), "--findings", str(findings)],
                    lambda _out: any(findings.glob(f"divergence-{target}-*.json")),
                    cwd=ROOT, env=env)
    assert run.returncode == 1, run.stdout + run.stderr
    records = [json.loads(p.read_text()) for p in findings.glob("*.json")]
    assert any(r["target"] == target and r["kind"] == "divergence" for r in records), records
    python = ".".join(map(str, sys.version_info[:3]))
    assert {r["versions"][r["impl"]] for r in records} == {f"stdlib (Python {python})"}
    # The same inputs agree with the unpatched module: the fault is what was found.
    clean = subprocess.run(
        [sys.executable, "-m", "pctfuzz", "replay", "--impl", "urllib", str(findings)],
        cwd=ROOT, env=dict(env, PCTFUZZ_TEST_URLLIB_FAULT=""), capture_output=True,
        text=True, timeout=300, check=False)
    assert clean.returncode == 0, clean.stdout + clean.stderr
