"""Code under test that a campaign does not reach (issue 21, part 6): a module of the
adapter's ``modules_under_test`` with no line reached after thousands of executions,
or one that cannot be traced, is a warning in the status and the summary and a field
of ``fuzz --json``; the code a campaign does reach is not."""

from __future__ import annotations

import io
import json
import os
import re
import urllib.parse
from pathlib import Path

import jsonschema
import pytest
from campaigns import harness_said, run_until

from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.fuzz.stats import UNREACHED_AFTER, CampaignResult, ModuleReach, TargetStats
from pctfuzz._internal.fuzz.status import Board, PlainStatus
from pctfuzz._internal.fuzz.undertest import UnderTest
from pctfuzz._internal.reports import RESULTS_SCHEMA
from pctfuzz._internal.reports.results import fuzz_results

SUPPORT = Path(__file__).resolve().parents[1] / "support"


def _stats(executions: int) -> TargetStats:
    """What a harness reports after ``executions`` calls of urllib's quote, with
    json.decoder (never called) and _json (a C extension) declared under test."""
    under_test = UnderTest(["urllib.parse", "json.decoder", "_json"])
    for _ in range(executions):
        under_test.run(lambda: urllib.parse.quote("a~b c"))
    stats = TargetStats("diff_encode", execs=executions)
    for name, reached, lines in under_test.modules():
        stats.modules[name] = ModuleReach(reached, lines, under_test.executions)
    return stats


def test_unreached_and_untraceable_modules_are_named() -> None:
    stats = _stats(UNREACHED_AFTER)
    assert stats.modules["urllib.parse"].reached > 0
    assert set(stats.not_reached()) == {"json.decoder", "_json"}
    assert "0 of" in stats.not_reached()["json.decoder"]
    assert "cannot be traced" in stats.not_reached()["_json"]
    # Before the first thousands of executions, 0 lines is not yet a verdict.
    assert set(_stats(10).not_reached()) == {"_json"}


def test_compiled_code_beside_reached_code_is_a_note_not_a_warning() -> None:
    """A C extension cannot be traced: where the target's other code under test is
    reached (a wrapper calling it), that is a note; a Python module never reached is
    still a WARNING (a tuning trial's pycurl wrapper warned on every target)."""
    lines = _stats(UNREACHED_AFTER).reach_lines()
    assert [line.split(":")[0] for line in lines if "json.decoder" in line] == ["WARNING"]
    assert [line.split(":")[0] for line in lines if "_json" in line] == ["note"]
    alone = TargetStats("diff_encode", execs=UNREACHED_AFTER)
    alone.modules["_json"] = ModuleReach(0, 0, UNREACHED_AFTER)  # nothing else reached
    assert alone.reach_lines()[0].startswith("WARNING: diff_encode: ")


def test_warning_in_summary_status_and_json(tmp_path: Path) -> None:
    stats = _stats(UNREACHED_AFTER)
    summary = CampaignResult([stats], 10.0).summary()
    assert "WARNING: diff_encode: code under test not reached: json.decoder 0 of" in summary
    assert "urllib.parse" not in summary
    board = Board(["diff_encode"], 60, "urllib")
    out = io.StringIO()
    status = PlainStatus(board, out=out)
    status(stats)
    status(stats)
    assert out.getvalue().count("not reached: json.decoder") == 1  # said once
    assert any("not reached: json.decoder" in line for line in board.lines())
    document = fuzz_results(CampaignResult([stats], 10.0), settings={},
                            findings_dir=tmp_path, started="2026-01-01T00:00:00.000Z",
                            exit_code=0)
    jsonschema.Draft202012Validator(RESULTS_SCHEMA).validate(document)
    (row,) = document["targets"]
    assert {m["module"] for m in row["not_reached"]} == {"json.decoder", "_json"}


def _campaign(tmp_path: Path, impl: str) -> tuple[str, dict[str, object]]:
    tmp_path.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(SUPPORT), os.environ.get("PYTHONPATH")])))
    # -runs: each libFuzzer process runs this many executions, then says its last
    # counts. The campaign runs until one process has ended (the event: its last line,
    # EXECUTIONS, in its -v log under TMPDIR), then SIGINT; the budget is a safety cap.
    (tmpdir := tmp_path / "tmp").mkdir()
    run = run_until(["diff_decode", "--impl", impl, "--jobs", "1", "--corpus",
                     str(tmp_path / "c"), "--findings", str(tmp_path / "f"), "-v", "--json",
                     str(tmp_path / "r.json"), "--", f"-runs={UNREACHED_AFTER + 500}",
                     "-seed=1"],
                    harness_said(tmpdir, r"^pctfuzz: EXECUTIONS \d+"), cwd=tmp_path,
                    env=dict(env, TMPDIR=str(tmpdir)))
    assert run.returncode in (1, ExitCode.SIGINT), run.stdout + run.stderr
    return run.stdout + run.stderr, json.loads((tmp_path / "r.json").read_text())


@pytest.mark.slow
def test_campaign_warns_of_a_module_the_adapter_never_calls(tmp_path: Path) -> None:
    output, document = _campaign(tmp_path / "a", "unreached_impls:NeverCallsJsonDecoder")
    assert "code under test not reached: json.decoder 0 of" in output, output
    (row,) = document["targets"]  # type: ignore[misc]
    assert [m["module"] for m in row["not_reached"]] == ["json.decoder"], row
    # urllib alone: everything it declares is reached.
    output, document = _campaign(tmp_path / "b", "urllib")
    assert "not reached" not in output, output
    (row,) = document["targets"]  # type: ignore[misc]
    assert row["not_reached"] == [] and row["execs"] >= UNREACHED_AFTER, row


@pytest.mark.slow
def test_a_peers_library_is_no_module_the_campaign_could_not_trace(tmp_path: Path) -> None:
    """A peer's library runs in its own process: a campaign has no line of it to count
    and says nothing of it (every peer campaign warned that its adapter's Python module
    "cannot be traced")."""
    from pctfuzz._internal.errors import PeerUnavailable
    from pctfuzz._internal.oracles import get_impl

    try:
        get_impl("node")
    except PeerUnavailable as exc:
        pytest.skip(str(exc))
    output, document = _campaign(tmp_path / "a", "node")
    assert "not reached" not in output and "cannot be traced" not in output, output
    (row,) = document["targets"]  # type: ignore[misc]
    assert row["not_reached"] == [] and row["execs"] >= UNREACHED_AFTER, row


def test_a_target_without_a_turn_and_a_corpus_not_run_are_said_exactly(
        tmp_path: Path) -> None:
    """Issue 33, item 17: a target whose slot had no time left for its first turn is
    incomplete with the reason (not "its harness did not start, or ..."), and a target
    whose processes never ran their whole seed corpus is a warning with the count,
    in the summary and in ``--json`` (valid against the schema)."""
    import time

    from pctfuzz._internal.fuzz.campaign import _Job, _run_slot
    from pctfuzz._internal.fuzz.supervisor import Supervisor

    job = _Job(None, tmp_path / "corpus", tmp_path / "findings", "urllib", 5, 2048)
    supervisor = Supervisor(time.monotonic() + 1)  # less than a slice: no turn at all
    (encode, decode) = _run_slot(["encode", "decode"], 5.0, job, supervisor=supervisor,
                                 extra=(), progress=None)
    loading = TargetStats("diff_encode", execs=1234, corpus_inputs=50_000, corpus_run=1234)
    result = CampaignResult([encode, decode, loading], 1.0)
    summary = result.summary()
    for name in ("encode", "decode"):
        assert re.search(rf"INCOMPLETE: {name}: ran 0 executions: not reached: its slot had "
                         r"[01]\.\d s of --max-time left when its first turn came, less than "
                         r"a slice \(2 s\)", summary), summary
    assert ("WARNING: diff_encode: corpus not run in full: ran 1,234 of its 50,000 corpus "
            "inputs") in summary
    assert not loading.problems()  # a warning: the target fuzzed, nothing was lost
    loading.initial_cov = 10  # INITED: a process ran the whole corpus
    assert loading.corpus_not_run() is None
    loading.initial_cov = None
    document = fuzz_results(result, settings={}, findings_dir=tmp_path / "findings",
                            started="2026-01-01T00:00:00.000Z", exit_code=3)
    jsonschema.validate(document, RESULTS_SCHEMA)
    messages = [e["message"] for e in document["errors"]]
    assert any("corpus not run in full: ran 1,234 of its 50,000" in m for m in messages)
    assert any(m.startswith("INCOMPLETE: ran 0 executions: not reached: its slot had")
               for m in messages), messages


def test_a_warning_is_said_once_as_its_counts_grow() -> None:
    """A plain status line per refresh said "0 of N lines reached after M executions"
    again each time M grew (a user trial: 30 lines for one warning in 60 s)."""
    board = Board(["diff_encode"], 60, "urllib")
    out = io.StringIO()
    status = PlainStatus(board, out=out)
    for executions in (UNREACHED_AFTER, UNREACHED_AFTER * 2, UNREACHED_AFTER * 3):
        status(_stats(executions))
    assert out.getvalue().count("not reached: json.decoder") == 1


def test_a_package_with_compiled_modules_is_not_said_uncalled() -> None:
    """A package whose Python lines the adapter never reaches may be called through its
    compiled modules (a web framework's Cython request class): that is said, not
    "the adapter does not call it"."""
    markupsafe = pytest.importorskip("markupsafe")
    markupsafe.escape("<")  # (its C speedups are loaded with it)
    under_test = UnderTest(["markupsafe"])
    assert under_test.compiled["markupsafe"] >= 1
    (name, _reached, lines), = under_test.modules()
    why = ModuleReach(0, lines, UNREACHED_AFTER, under_test.compiled[name]).problem()
    assert why is not None and "compiled" in why and "does not call" not in why
    assert "does not call" in str(ModuleReach(0, lines, UNREACHED_AFTER).problem())
