"""``pctfuzz report --upstream``: the issue body, and the adapters' library-only
reproductions (``Adapter.reproduction``), which are printed only when running them gives
exactly the adapter's answer."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks import differential
from pctfuzz._internal.checks.profile import run_impl
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.fuzz.seeds import seed_cases
from pctfuzz._internal.oracles import IMPLS, get_impl, library_call
from pctfuzz._internal.reports.export import export_tests
from pctfuzz._internal.reports.upstream import _checked_source, upstream_report
from pctfuzz._internal.store import Finding, FindingStore, new_finding
from pctfuzz._internal.targets import get_target

SUPPORT = Path(__file__).resolve().parents[1] / "support"
_QUESTIONS = {"diff_encode": "encode", "diff_decode": "decode", "diff_form": "form",
              "diff_form_parse": "form-parse"}
#: Built-in adapters whose reproduction must cover at least one question: all but the
#: JavaScript peers, ada's setters and the adapters built on closures.
_WRITES_ONE = ("urllib", "urllib-unquote", "yarl", "requests", "werkzeug", "urllib3",
               "rfc3986", "w3lib", "django", "tornado", "boltons", "starlette", "furl")


def _adapter(name: str) -> Any:
    try:
        return get_impl(name)
    except PctfuzzError as exc:
        pytest.skip(f"{name}: {exc}")


@pytest.mark.parametrize("name", [n for n in IMPLS if n not in ("node", "node-querystring",
                                                                 "whatwg-url")])
def test_a_reproduction_gives_exactly_the_adapters_answer(name: str) -> None:
    adapter = _adapter(name)
    written = 0
    for target, check in _QUESTIONS.items():
        tgt = get_target(target)
        for count, case in enumerate(seed_cases(tgt.case_type.type)):
            if count >= 60:
                break
            with contextlib.suppress(Exception):
                case = tgt.case_from_bytes(tgt.to_bytes(case), adapter)
            answer = run_impl(check, case, adapter)
            source = adapter.reproduction(check, case)
            if answer is None or source is None:
                continue
            assert _checked_source(source, answer) == source, (check, case, source)
            written += 1
    if name in _WRITES_ONE:
        assert written, f"{name} wrote no reproduction"


def test_library_call_writes_values_as_literals_only() -> None:
    source = library_call(("urllib.parse",), "urllib.parse.quote(value)", value="a'\n\")")
    assert source is not None
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    assert namespace["actual"] == "a%27%0A%22%29"
    assert library_call((), "repr(value)", value=object()) is None  # no literal
    assert library_call((), "value", **{"not a name": 1}) is None


def _finding(case: EncodeCase, impl: str) -> Finding:
    adapter = get_impl(impl)
    with pytest.raises(Exception) as caught:
        differential.check_encode(case, adapter)
    return new_finding("diff_encode", "divergence", caught.value, case=case, impl=impl)


@pytest.fixture
def on_path() -> Any:
    sys.path.insert(0, str(SUPPORT))
    yield
    sys.path.remove(str(SUPPORT))


def test_upstream_report_of_a_function_adapter_has_a_library_only_script(
        tmp_path: Path, on_path: None) -> None:
    finding = _finding(EncodeCase("a#b", "query-value", "utf-8", True),
                       "broken_impls:HASH_RAW")
    text = upstream_report(finding, get_impl("broken_impls:HASH_RAW"), path="f.json",
                           impl="broken_impls:HASH_RAW")
    assert text.startswith("# ` hash-raw `: ` encode('a#b'")
    assert "'a%23b'" in text and "'a#b'" in text
    assert "URL Standard 1.3" in text and "Percent-Encoding Guide" in text
    script = re.search(r"```python\n(import broken_impls.*?)```", text, re.S)
    assert script is not None, text
    path = tmp_path / "repro.py"
    path.write_text(script[1])
    env = dict(os.environ, PYTHONPATH=str(SUPPORT))
    run = subprocess.run([sys.executable, str(path)], env=env, capture_output=True,
                         text=True, timeout=600, check=False)
    assert run.returncode == 1 and "AssertionError" in run.stderr, run.stderr
    assert run.stdout == "'a#b'\n"


def test_a_script_that_does_not_give_the_adapters_answer_is_not_printed(
        on_path: None) -> None:
    # TildeEncodingUrllib inherits urllib's reproduction, which calls urllib.parse
    # alone and so gives urllib's answer: the report falls back to the replay command.
    finding = _finding(EncodeCase("a~b", "component"), "broken_impls:TildeEncodingUrllib")
    text = upstream_report(finding, get_impl("broken_impls:TildeEncodingUrllib"),
                           path="findings/x.json", impl="broken_impls:TildeEncodingUrllib")
    assert "With the library alone" not in text
    assert "pctfuzz replay findings/x.json --impl broken_impls:TildeEncodingUrllib" in text


def _outside_fences(text: str) -> list[str]:
    """The Markdown lines outside code blocks (a block ends at a fence of its length)."""
    outside, fence = [], ""
    for line in text.splitlines():
        found = re.match(r"(`{3,})", line)
        if fence:
            if found and line.strip() == fence:
                fence = ""
        elif found:
            fence = found[1]
        else:
            outside.append(line)
    return outside


def test_hostile_values_stay_inside_their_fences(on_path: None) -> None:
    value = "```\n# Title\n<script>`````"
    finding = _finding(EncodeCase(value + "#", "query-value", "utf-8", True),
                       "broken_impls:HASH_RAW")
    text = upstream_report(finding, get_impl("broken_impls:HASH_RAW"), path="f.json",
                           impl="broken_impls:HASH_RAW")
    title, *outside = _outside_fences(text)
    assert re.fullmatch(r"# ` hash-raw `: (`{6}) .*<script>.* \1 gives .*", title), title
    assert [line for line in outside if "Title" in line or "<script>" in line] == []
    assert "\\n# Title" in text  # the value, escaped, on one line


def test_export_runs_a_user_adapter_only_when_the_user_names_it(
        tmp_path: Path, on_path: None) -> None:
    finding = _finding(EncodeCase("a#b", "query-value", "utf-8", True),
                       "broken_impls:HASH_RAW")
    with pytest.raises(PctfuzzError, match="pass --impl"):
        export_tests([(finding, "f.json")])
    source = export_tests([(finding, "f.json")], trusted=["broken_impls:HASH_RAW"])
    assert "impl='broken_impls:HASH_RAW')" in source
    path = tmp_path / "test_exported.py"
    path.write_text(source)
    env = dict(os.environ, PYTHONPATH=str(SUPPORT))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(path)], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=600, check=False)
    assert run.returncode == 1 and "1 failed" in run.stdout, run.stdout + run.stderr


def test_report_upstream_command(tmp_path: Path) -> None:
    sys.path.insert(0, str(SUPPORT))
    try:
        finding = _finding(EncodeCase("a#b", "query-value", "utf-8", True),
                           "broken_impls:HASH_RAW")
    finally:
        sys.path.remove(str(SUPPORT))
    store = FindingStore(tmp_path / "findings")
    store.record(finding)
    env = dict(os.environ, PYTHONPATH=str(SUPPORT))
    base = [sys.executable, "-m", "pctfuzz", "report", "--findings", str(store.root),
            "--upstream", finding.id]
    refused = subprocess.run(base, env=env, capture_output=True, text=True, timeout=600,
                             check=False)
    assert refused.returncode == 2 and "pass --impl" in refused.stderr
    out = tmp_path / "issue.md"
    done = subprocess.run([*base, "--impl", "broken_impls:HASH_RAW", "-o", str(out)],
                          env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert "## Reproduction" in out.read_text()


def test_a_finding_that_no_longer_reproduces_is_titled_with_its_recorded_answers(
        on_path: None) -> None:
    """Reported against a version that now gives the expected answer, the title and
    "Actual" are the record's answers (not today's equal ones), and say it is gone."""
    finding = _finding(EncodeCase("a~b", "component"), "broken_impls:TildeEncodingUrllib")
    assert finding.actual == "'a%7Eb'"
    text = upstream_report(finding, get_impl("urllib"), path="f.json", impl="")
    title = text.splitlines()[0]
    assert "gave ` 'a%7Eb' ` where the URL Standard gives ` 'a~b' `" in title, title
    assert "no longer reproduces" in title, title
    actual = text.split("## Actual", 1)[1].split("##", 1)[0]
    assert "'a%7Eb'" in actual and "no longer reproduces here" in actual, actual
