"""Machine-readable results (JSON, SARIF, JUnit), ``pctfuzz report`` and ``pctfuzz export``.

The JSON output is validated against ``pctfuzz._internal.reports.RESULTS_SCHEMA`` and the SARIF
output against the published SARIF 2.1.0 JSON schema (vendored, unchanged, in
``src/pctfuzz/data``). One test runs a real 5-second campaign with two processes of
one target against a deliberately broken urllib adapter.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
import sys
import urllib.parse
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from campaigns import execs_at_least, finding_saved, pctfuzz_env, run_until
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks import differential, profile
from pctfuzz._internal.checks.strategies import (
    decode_cases,
    encode_cases,
    form_cases,
    form_parse_cases,
)
from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.oracles import get_impl
from pctfuzz._internal.oracles.urllib_parse import urllib_function
from pctfuzz._internal.reports import (
    RESULTS_SCHEMA,
    export_tests,
    findings_markdown,
    render_html,
    report_results,
    to_junit,
    to_sarif,
)
from pctfuzz._internal.reports.urllib_call import urllib_expression
from pctfuzz._internal.store import Finding, FindingStore, new_finding

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = Path(__file__).resolve().parents[1] / "support"
_UNQUOTE = urllib.parse.unquote
SARIF_SCHEMA = json.loads(
    (ROOT / "src" / "pctfuzz" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8")
)
HOSTILE = "<script>alert('x')</script>\"&]]>\x00\x1b[31m\ud800\u2028"


def validate_results(document: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(
        RESULTS_SCHEMA, format_checker=jsonschema.FormatChecker()
    ).validate(document)


def validate_sarif(log: dict[str, Any]) -> None:
    jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.FormatChecker()).validate(
        log
    )


def pctfuzz(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path)
    return subprocess.run([sys.executable, "-m", "pctfuzz", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def _divergence(case: Any, check: Any, impl: str = "urllib") -> Finding:
    """A real Divergence of the tilde-breaking adapter, recorded as found with ``impl``."""
    from broken_impls import TildeEncodingUrllib

    try:
        check(case, TildeEncodingUrllib())
    except Exception as exc:
        return new_finding(f"diff_{case.type.replace('-', '_')}", "divergence", exc, case=case,
                           impl=impl)
    raise AssertionError(f"{case!r} does not diverge")


@pytest.fixture
def store(tmp_path: Path) -> FindingStore:
    """A findings folder with a divergence, a hostile-text violation and a timeout."""
    store = FindingStore(tmp_path / "findings")
    store.record(_divergence(EncodeCase("a~b", "component"), differential.check_encode))
    hostile = new_finding("decode", "violation", None, case=DecodeCase(HOSTILE),
                          check="decode-robustness", expected=HOSTILE, actual=repr(HOSTILE),
                          evidence={"detail": HOSTILE})
    store.record(hostile)
    store.record(new_finding("encode", "timeout", None, raw_input=b"\x00\xff" + HOSTILE.encode(
        "utf-8", "surrogatepass")))
    return store


# ---------------------------------------------------------------- schema and renderers


def test_results_schema_is_a_valid_draft_2020_12_schema(
        capsys: pytest.CaptureFixture[str]) -> None:
    jsonschema.Draft202012Validator.check_schema(RESULTS_SCHEMA)
    assert main(["report", "--schema"]) == ExitCode.OK
    assert json.loads(capsys.readouterr().out) == RESULTS_SCHEMA
    jsonschema.Draft4Validator.check_schema(SARIF_SCHEMA)
    assert SARIF_SCHEMA["properties"]["version"]["enum"] == ["2.1.0"]


def test_report_document_sarif_and_junit_are_valid(store: FindingStore) -> None:
    findings = list(store.iter_findings())
    document = report_results(findings, findings_dir=store.root)
    validate_results(document)
    assert {f["kind"] for f in document["findings"]} == {"divergence", "violation", "timeout"}
    # a report's SARIF lists the findings whose status is new
    log = to_sarif(document)
    validate_sarif(log)
    results = log["runs"][0]["results"]
    assert len(results) == 3
    rules = {r["ruleId"] for r in results}
    assert rules == {"divergence/encode", "violation/decode-robustness", "timeout"}
    for result in results:
        finding = next(f for f in findings if f.id == result["fingerprints"]["pctfuzzFindingId/v1"])
        assert result["partialFingerprints"]["pctfuzzSignature/v1"] == finding.signature
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.endswith(finding.file_name)
    # the JSON text is valid UTF-8 (the lone surrogate was escaped)
    json.dumps(log, ensure_ascii=False).encode("utf-8")
    ET.fromstring(to_junit(document))


def test_sarif_schema_rejects_a_broken_log(store: FindingStore) -> None:
    """The vendored schema has teeth: a result without its message is invalid."""
    log = to_sarif(report_results(store.iter_findings(), findings_dir=store.root))
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        validate_sarif(log)
    log["version"] = "2.0.0"
    with pytest.raises(jsonschema.ValidationError):
        validate_sarif(log)


def test_html_escapes_hostile_text(store: FindingStore) -> None:
    findings = list(store.iter_findings())
    page = render_html(report_results(findings, findings_dir=store.root), findings)
    assert "<script>" not in page and "alert(&#x27;x&#x27;)" in page
    assert "\x00" not in page and "\x1b" not in page and "\\x1b[31m" in page
    page.encode("utf-8")  # no lone surrogate left
    assert page.count("<details>") == 3
    assert "Content-Security-Policy" in page


class _Page(HTMLParser):
    """A page's ``h2`` headings, and the text of each table row's cells, with where
    each begins in the page."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.headings: list[tuple[int, str]] = []
        self.rows: list[tuple[int, list[str]]] = []
        self._in: str | None = None
        self.feed(page)

    def _offset(self) -> int:
        line, column = self.getpos()
        return sum(len(x) for x in self.rawdata.splitlines(keepends=True)[:line - 1]) + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h2":
            self.headings.append((self._offset(), ""))
            self._in = "h2"
        elif tag == "tr":
            self.rows.append((self._offset(), []))
        elif tag in ("td", "th") and self.rows:
            self.rows[-1][1].append("")
            self._in = "cell"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h2", "td", "th"):
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "h2":
            at, text = self.headings[-1]
            self.headings[-1] = (at, text + data)
        elif self._in == "cell":
            self.rows[-1][1][-1] += data


def test_html_report_leads_with_what_to_fix(store: FindingStore) -> None:
    """Issue 34: the page opens with the open findings (behaviour, impact, minimal input,
    expected and actual side by side, the commands that replay or accept it), then the
    accepted and triaged ones, the fixed ones, and the statistics last; it shows no
    traceback of pctfuzz's own, and lists the findings in the order ``report
    --markdown`` does."""
    by_kind = {f.kind: f for f in store.iter_findings()}
    divergence = by_kind["divergence"]
    assert "Traceback (most recent call last)" in divergence.traceback  # the record has one
    store.update_status(by_kind["violation"].id, "known-divergence")
    store.update_status(by_kind["timeout"].id, "fixed")
    findings = list(store.iter_findings())
    document = report_results(findings, findings_dir=store.root)
    page = render_html(document, findings)
    parsed = _Page(page)

    titles = [text for _at, text in parsed.headings]
    assert [t.split(" (")[0] for t in titles] == [
        "Open findings", "Accepted and triaged", "Fixed", "Statistics"], titles
    starts = [at for at, _text in parsed.headings]
    assert page.find(divergence.id) < starts[1]  # the open one, in the first section
    assert starts[1] < page.find(by_kind["violation"].id) < starts[2]
    assert starts[2] < page.find(by_kind["timeout"].id) < starts[3]
    assert "<strong>1 open finding" in page[:starts[0]]  # (in red: something to fix)
    store.update_status(divergence.id, "fixed")
    findings = list(store.iter_findings())
    nothing = render_html(report_results(findings, findings_dir=store.root), findings)
    assert "<strong class=none>0 open finding" in nothing  # (not red)

    entry = next(e for e in document["findings"] if e["id"] == divergence.id)
    assert entry["behaviour"]["text"] == "percent-encodes '~'"
    opened = page[starts[0]:starts[1]]
    for text in (entry["behaviour"]["text"], entry["impact"], entry["reproduce"],
                 f"pctfuzz accept {divergence.id} --findings {store.root}"):
        assert html.escape(text) in opened, text
    # the minimal input, the expected and the actual answers: one row, side by side
    assert [cells for at, cells in parsed.rows if at < starts[1]] == [
        ["minimal input", "expected", "actual"],
        ["encode('a~b', set='component')", "'a~b'", "'a%7Eb'"]]
    assert "known-divergence" in page[starts[3]:]  # the statistics' columns, last

    assert "Traceback" not in page and "_internal" not in page
    # the same order as report --markdown
    ids = [e["id"] for e in document["findings"]]
    markdown = findings_markdown(document["findings"], "findings")
    assert sorted(ids, key=page.find) == sorted(ids, key=markdown.find)


# ------------------------------------------------------------------------ real campaign


@pytest.mark.slow  # a real campaign
def test_campaign_with_two_processes_writes_json_sarif_junit(tmp_path: Path) -> None:
    """One target, --jobs 2: two libFuzzer processes share the corpus; the divergence
    they both hit is stored once and reported once, in all three formats."""
    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus" / "diff_encode", corpus / "diff_encode")
    findings = tmp_path / "findings"
    out = {ext: tmp_path / f"results.{ext}" for ext in ("json", "sarif", "xml")}
    # Until the divergence is saved and a status line counts executions (events),
    # then SIGINT: never a time budget.
    saved, counted = finding_saved(findings), execs_at_least(1000, "diff_encode")
    run = run_until(["diff_encode", "--jobs", "2",
                     "--impl", "broken_impls:TildeEncodingUrllib", "--corpus", str(corpus),
                     "--findings", str(findings), "--json", str(out["json"]),
                     "--sarif", str(out["sarif"]), "--junit", str(out["xml"])],
                    lambda output: saved(output) and counted(output), cwd=tmp_path,
                    env=pctfuzz_env(SUPPORT))
    assert run.returncode == ExitCode.FOUND, run.stdout + run.stderr
    assert "processes per target: diff_encode=2" in run.stdout

    document = json.loads(out["json"].read_text())
    validate_results(document)
    (stats,) = document["targets"]
    assert stats["target"] == "diff_encode" and stats["workers"] == 2
    assert stats["execs"] > 0 and stats["exec_per_s"] > 0
    records = list(findings.glob("*.json"))
    assert len(stats["new_findings"]) == len(records) >= 1
    assert not set(stats["new_findings"]) & set(stats["known_findings"])
    tilde = [f for f in document["findings"] if "%7E" in (f["actual"] or "")]
    assert tilde and tilde[0]["new"] is True and tilde[0]["kind"] == "divergence"
    assert document["exit_code"] == 1 and document["summary"]["new_findings"] == len(records)

    log = json.loads(out["sarif"].read_text())
    validate_sarif(log)
    results = log["runs"][0]["results"]
    assert len(results) == len(records)
    located = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert located == {f"findings/{p.name}" for p in records}
    assert all(r["ruleId"].startswith(("divergence/", "crash/")) for r in results)

    suite = ET.parse(out["xml"]).getroot().find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["diff_encode"]
    assert cases[0].find("failure") is not None and suite.get("failures") == "1"

    # Replaying the finding: reproduces with the broken adapter, not with urllib. A
    # record's own import path is never imported: the user names the adapter.
    path = findings / tilde[0]["path"].rsplit("/", 1)[-1]
    replay_json = tmp_path / "replay.json"
    again = pctfuzz("replay", str(path), "--impl", "broken_impls:TildeEncodingUrllib",
                    "--json", str(replay_json), "--junit", "-",
                    "--sarif", str(tmp_path / "replay.sarif"), cwd=tmp_path)
    assert again.returncode == ExitCode.FOUND, again.stderr
    junit = ET.fromstring(again.stdout)  # --junit - : XML alone on stdout
    replayed = [c for c in junit.iter("testcase") if c.get("classname", "").startswith(
        "pctfuzz.replay.")]
    assert len(replayed) == 1 and replayed[0].find("failure") is not None
    replay_doc = json.loads(replay_json.read_text())
    validate_results(replay_doc)
    assert replay_doc["summary"]["reproduced"] == 1
    assert replay_doc["findings"][0]["reproduces"] is True
    replay_log = json.loads((tmp_path / "replay.sarif").read_text())
    validate_sarif(replay_log)
    assert len(replay_log["runs"][0]["results"]) == 1

    fixed = pctfuzz("replay", "--impl", "urllib", str(path), "--json", "-", cwd=tmp_path)
    assert fixed.returncode == ExitCode.OK
    fixed_doc = json.loads(fixed.stdout)
    validate_results(fixed_doc)
    assert fixed_doc["summary"]["reproduced"] == 0
    assert to_sarif(fixed_doc)["runs"][0]["results"] == []

    # The campaign file feeds the HTML report.
    html_path = tmp_path / "report.html"
    report = pctfuzz("report", "--findings", str(findings), "--campaign", str(out["json"]),
                     "--html", str(html_path), cwd=tmp_path)
    assert report.returncode == ExitCode.OK, report.stderr
    assert "diff_encode" in report.stdout and "divergence" in report.stdout
    page = html_path.read_text()
    assert "exec/s" in page and str(stats["execs"]) in page


def test_replay_unusable_input_is_a_junit_error(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "nope.json"
    bad.write_text("{not json")
    out = tmp_path / "r.xml"
    assert main(["replay", str(bad), "--junit", str(out), "--json", str(tmp_path / "r.json")]
                ) == ExitCode.USAGE
    suite = ET.parse(out).getroot()
    assert suite.get("errors") == "1"
    document = json.loads((tmp_path / "r.json").read_text())
    validate_results(document)
    assert document["errors"][0]["path"] == str(bad)


# ------------------------------------------------------------------------------ usage


@pytest.mark.parametrize("argv", [
    ["fuzz", "decode", "--json", "-", "--sarif", "-"],
    ["fuzz", "decode", "--json", "/nonexistent-folder/x.json"],
    ["fuzz", "decode", "--jobs", "0"],
    ["replay", "findings", "--junit", "/nonexistent-folder/x.xml"],
    ["report", "--findings", "/nonexistent-folder"],
    ["export", "/nonexistent-folder/x.json"],
    ["export", "0123456789abcdef", "--findings", "/nonexistent-folder"],
])
def test_bad_usage_exits_2_with_one_line(argv: list[str],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # refused by argparse itself (--jobs 0)
        code = exc.code
    assert code == ExitCode.USAGE
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "error" in err


def test_report_table_json_and_bad_campaign(store: FindingStore, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (store.root / "garbage.json").write_text("[]")
    assert main(["report", "--findings", str(store.root), "--json", "-"]) == ExitCode.OK
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    validate_results(document)
    assert document["summary"]["findings"] == 3 and len(document["errors"]) == 1
    assert "target" in captured.err and "signature" in captured.err
    assert "\x1b" not in captured.err  # control characters never reach the terminal

    bad = tmp_path / "campaign.json"
    for text in ("not json", '{"format": "other"}', json.dumps({
            "format": "pctfuzz-results", "schema_version": 1, "targets": "x"})):
        bad.write_text(text)
        assert main(["report", "--findings", str(store.root), "--campaign", str(bad)]) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1


# ----------------------------------------------------------------------------- export


def _run_pytest(folder: Path, test_file: Path, *, with_pctfuzz: bool = True
                ) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if with_pctfuzz:
        env["PYTHONPATH"] = os.pathsep.join([str(SUPPORT), env.get("PYTHONPATH", "")])
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
            "no:randomly", str(test_file)]
    if not with_pctfuzz:
        # -S skips the site module, so the editable install's .pth is never read and
        # pctfuzz is not importable; pytest is found through PYTHONPATH.
        import _pytest
        import pluggy

        paths = {str(Path(m.__file__).resolve().parent.parent) for m in (_pytest, pluggy)}
        env["PYTHONPATH"] = os.pathsep.join(sorted(paths))
        # pctfuzz's own pytest plugin is registered in that site-packages' metadata
        # although the module is not importable here: a machine without pctfuzz
        # has neither.
        args = [sys.executable, "-S", *args[1:3], "-p", "no:pctfuzz", *args[3:]]
    return subprocess.run(args, cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_export_urllib_divergence_calls_urllib_directly(tmp_path: Path) -> None:
    """A divergence recorded against urllib exports as a test calling urllib.parse with
    the reference's answer inlined: it passes on the real urllib (nothing to fix) and
    fails once urllib.parse.quote encodes '~' (the bug reproduces)."""
    finding = _divergence(EncodeCase("a~b c", "component"), differential.check_encode)
    # Odd length: the urllib adapter calls unquote_to_bytes for it (urllib_function).
    decode = new_finding("diff_decode", "divergence", None, case=DecodeCase(b"%41%zz%"),
                         check="decode", impl="urllib")
    source = export_tests([(finding, "findings/x.json"), (decode, "findings/y.json")])
    assert "import pctfuzz" not in source and "from pctfuzz" not in source
    assert "urllib.parse.quote(" in source and "unquote_to_bytes" in source
    test_file = tmp_path / "test_exported.py"
    test_file.write_text(source)

    passing = _run_pytest(tmp_path, test_file, with_pctfuzz=False)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "2 passed" in passing.stdout

    (tmp_path / "conftest.py").write_text(
        "import urllib.parse\n"
        "_quote = urllib.parse.quote\n"
        "urllib.parse.quote = lambda *a, **k: _quote(*a, **k).replace('~', '%7E')\n")
    failing = _run_pytest(tmp_path, test_file, with_pctfuzz=False)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "1 failed, 1 passed" in failing.stdout


def test_export_calls_the_function_the_adapter_picked(tmp_path: Path) -> None:
    """The exported test calls what the urllib adapter called for the case: unquote for
    an even-length decode case, unquote_plus on each name and value for an even-length
    form text (``urllib_function``), not a copy of the mapping. It passes on the real
    urllib and fails once urllib.parse.unquote_plus drops '+' handling."""
    cases = [DecodeCase("%41%C3%A9%"), FormParseCase("a=b+c&&d%2")]
    assert [urllib_function(c.type, c) for c in cases] == ["unquote", "unquote_plus"]
    findings = [(new_finding(f"diff_{c.type.replace('-', '_')}", "divergence", None, case=c,
                             check=c.type, impl="urllib"), f"findings/{n}.json")
                for n, c in enumerate(cases)]
    source = export_tests(findings)
    assert "import pctfuzz" not in source and "from pctfuzz" not in source
    assert "urllib.parse.unquote(value)" in source and "unquote_to_bytes" not in source
    assert "urllib.parse.unquote_plus(n)" in source and "parse_qsl" not in source
    assert urllib.parse.unquote is _UNQUOTE  # the recording left urllib.parse as it was
    test_file = tmp_path / "test_exported.py"
    test_file.write_text(source)

    passing = _run_pytest(tmp_path, test_file, with_pctfuzz=False)
    assert passing.returncode == 0 and "2 passed" in passing.stdout, passing.stdout

    (tmp_path / "conftest.py").write_text(
        "import urllib.parse\n"
        "urllib.parse.unquote_plus = urllib.parse.unquote\n")
    failing = _run_pytest(tmp_path, test_file, with_pctfuzz=False)
    assert failing.returncode == 1 and "1 failed, 1 passed" in failing.stdout, failing.stdout


@pytest.mark.parametrize("impl", ["urllib", "urllib-unquote"])
@given(case=st.one_of(encode_cases(), decode_cases(), form_cases(), form_parse_cases()))
@settings(max_examples=150, deadline=None)
def test_written_urllib_call_gives_the_adapters_answer(impl: str, case: Case) -> None:
    """Whenever the export writes a urllib.parse call for a case, that source, run with
    nothing but urllib, gives exactly the adapter's answer (the adapter, not a copy of
    its mapping, decides what is called); and urllib.parse is left as it was."""
    adapter = get_impl(impl)
    written = urllib_expression(adapter, case.type, case, "value")
    assert urllib.parse.unquote is _UNQUOTE
    outcome = profile.run_impl(case.type, case, adapter)
    if written is None:
        return
    assert outcome is not None and not outcome.raised
    name, value, expression = written
    answer = eval(expression, {"urllib": urllib}, {name: value})
    assert type(answer) is type(outcome.value) and answer == outcome.value


def test_export_command_for_invariant_and_registry_covered_findings(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A fault codec's finding (invariants) and a urllib form finding that a registry
    entry covers (urllib leaves '~' alone) go through pctfuzz's check, without the
    store: the first fails while it reproduces, the second passes (explained)."""
    from pctfuzz._internal.oracles.faults import FAULTS
    from pctfuzz._internal.targets import get_target

    store = FindingStore(tmp_path / "findings")
    fault = next(name for name in FAULTS if "tilde" in name)
    tilde_case = EncodeCase("~", "component")
    with pytest.raises(Exception) as caught:
        get_target("encode").check(tilde_case, FAULTS[fault])
    stored, _ = store.record(new_finding("encode", "violation", caught.value, case=tilde_case,
                                         impl=fault))
    form = new_finding("diff_form", "divergence", None, case=FormCase((("a b", "~é"),)),
                       check="form", impl="urllib")
    store.record(form)
    out = tmp_path / "test_regressions.py"
    assert main(["export", stored.id, str(store.root / form.file_name), "--findings",
                 str(store.root), "-o", str(out)]) == ExitCode.OK
    source = out.read_text()
    assert "from pctfuzz.testing import check_case" in source  # the public API only
    assert "_internal" not in source
    # The file goes into a repository or upstream: no absolute path of this machine
    assert str(tmp_path) not in source and f"# finding: {form.file_name} (" in source
    assert f"impl={fault!r})" in source
    assert "impl='urllib')" in source
    assert "urllib.parse.urlencode" not in source
    assert "FindingStore" not in source and "load_finding" not in source
    shutil.rmtree(store.root)  # no store needed
    run = _run_pytest(tmp_path, out)
    assert run.returncode == 1 and "1 failed, 1 passed" in run.stdout, run.stdout + run.stderr

    # Against the reference the invariant finding no longer reproduces.
    out.write_text(source.replace(f", impl={fault!r})", ")"))
    run = _run_pytest(tmp_path, out)
    assert run.returncode == 0 and "2 passed" in run.stdout, run.stdout + run.stderr


def test_export_hostile_finding_is_valid_python(store: FindingStore) -> None:
    findings = [(f, str(store.root / f.file_name)) for f in store.iter_findings()]
    source = export_tests(findings)
    compile(source, "exported", "exec")
    assert "\x00" not in source and "\x1b" not in source and "\u2028" not in source


def test_triage_sets_status_and_note_and_report_shows_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    findings = tmp_path / "findings"
    shutil.copytree(Path(__file__).resolve().parents[2] / "findings", findings)
    ident = "e4733e1f42f0cacb"
    assert main(["triage", ident, "--status", "known-divergence", "--note", "planted fault",
                 "--findings", str(findings)]) == ExitCode.OK
    record = next(findings.glob(f"*{ident}.json"))
    data = json.loads(record.read_text())
    assert data["status"] == "known-divergence" and data["note"] == "planted fault"
    capsys.readouterr()
    assert main(["report", "--findings", str(findings)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "note: planted fault" in out
    assert f"reproduce: pctfuzz replay {record}" in out
    assert "encode('/', set='rfc3986-pchar'" in out  # the case, not only its signature
    assert main(["triage", "0000000000000000", "--status", "fixed",
                 "--findings", str(findings)]) == 2
    assert main(["triage", ident, "--status", "fixed", "--note", "two\nlines",
                 "--findings", str(findings)]) == 2


def test_export_hypothesis_examples_are_literals_that_run(tmp_path: Path) -> None:
    """``export --hypothesis`` writes @example decorators; a case value holding Python
    source stays a string literal."""
    import ast

    hostile = 'x"); import os; os.system("touch pwned'
    store = FindingStore(tmp_path / "findings")
    stored, _ = store.record(new_finding("encode", "violation", None,
                                         case=EncodeCase(hostile, "path")))
    out = tmp_path / "pctfuzz_examples.py"
    assert main(["export", "--hypothesis", str(store.root), "-o", str(out)]) == ExitCode.OK
    source = out.read_text()
    assert "_internal" not in source and str(tmp_path) not in source  # public imports only
    tree = ast.parse(source)
    names = {n.targets[0].id for n in tree.body if isinstance(n, ast.Assign)}  # type: ignore[attr-defined]
    assert names == {"ENCODE_EXAMPLES", "DECODE_EXAMPLES", "FORM_EXAMPLES",
                     "FORM_PARSE_EXAMPLES"}
    namespace: dict[str, object] = {}
    exec(compile(tree, str(out), "exec"), namespace)  # imports hypothesis and pctfuzz only
    assert len(namespace["ENCODE_EXAMPLES"]) == 1  # type: ignore[arg-type]
    assert not (tmp_path / "pwned").exists() and stored.id in source
    seen: list[object] = []

    @namespace["with_examples"](namespace["ENCODE_EXAMPLES"])  # type: ignore[operator,misc]
    @given(case=st.none())
    @settings(database=None, phases=[Phase.explicit])
    def test(case: object) -> None:
        seen.append(case)

    test()
    assert seen == [EncodeCase(hostile, "path")]
