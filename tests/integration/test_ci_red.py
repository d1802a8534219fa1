"""An open bug keeps CI red, a fix is verified, and ``pctfuzz accept`` ends a finding in
one command: real campaigns on a user's project (``user_project``), run from a
subfolder with the project's ``[tool.pctfuzz]`` and no flags but the run's own.

Each campaign meets the planted bug on its first execution (a seed in the corpus), so
what the tests wait for is an event (the harness ran), not an amount of wall time."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from campaigns import CAP
from user_project import IMPL, fix_bug, make_project, pctfuzz, records, seed

pytestmark = pytest.mark.slow

_RUN = ("fuzz", "--jobs", "1", "-q")


def _campaign(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pctfuzz fuzz`` to its normal end (its end-of-campaign replay is what these
    tests are about), with a budget that grows until the harness ran: a run whose only
    problem is targets with 0 executions (a loaded machine gave the harness no time to
    start) is repeated with twice the budget, up to ``CAP`` (issue 23.16)."""
    budget = 4
    while True:
        run = pctfuzz(cwd, *args[:1], "--max-time", str(budget), *args[1:])
        problems = [line for line in run.stdout.splitlines() if line.startswith("INCOMPLETE")]
        starved = run.returncode == 3 and problems and all(
            ": ran 0 executions " in line for line in problems)
        if not starved or budget >= CAP:
            return run
        budget *= 2


def _sarif_ids(path: Path) -> list[str]:
    log = json.loads(path.read_text())
    return [r["fingerprints"]["pctfuzzFindingId/v1"] for r in log["runs"][0]["results"]]


def _junit_failures(path: Path) -> int:
    return int(ET.parse(path).getroot().get("failures", "-1"))


def test_an_open_bug_fails_every_campaign_until_a_replay_verifies_its_fix(
        tmp_path: Path) -> None:
    root = tmp_path / "proj"
    cwd = make_project(root)
    seed(root)
    out = tmp_path / "out"
    out.mkdir()

    first = _campaign(cwd, *_RUN, "--sarif", str(out / "1.sarif"))
    assert first.returncode == 1, first.stdout + first.stderr
    (record,) = records(root)
    ident = str(record["id"])
    assert record["impl"] == IMPL and record["status"] == "new"
    assert _sarif_ids(out / "1.sarif") == [ident]

    # The bug is still there: the finding is not new, and still the run is red, with
    # the same fingerprint in SARIF (code scanning keeps the alert open), a JUnit
    # failure and the replay in --json.
    second = _campaign(cwd, *_RUN, "--sarif", str(out / "2.sarif"), "--junit",
                     str(out / "2.xml"), "--json", str(out / "2.json"))
    assert second.returncode == 1, second.stdout + second.stderr
    assert _sarif_ids(out / "2.sarif") == [ident]
    assert _junit_failures(out / "2.xml") == 1
    document = json.loads((out / "2.json").read_text())
    assert document["summary"]["new_findings"] == 0
    (entry,) = [f for f in document["findings"] if f["id"] == ident]
    assert entry["reproduces"] is True and entry["new"] is False
    assert [(r["finding_id"], r["outcome"]) for r in document["replays"]] == [
        (ident, "reproduces")]
    assert f"still failing: 1 ({ident})" in second.stdout

    # --fail-on new: today's rule, green without a new finding.
    lenient = _campaign(cwd, *_RUN, "--fail-on", "new")
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr

    fix_bug(root)
    third = _campaign(cwd, *_RUN, "--sarif", str(out / "3.sarif"), "--junit",
                    str(out / "3.xml"))
    assert third.returncode == 0, third.stdout + third.stderr
    assert _sarif_ids(out / "3.sarif") == []
    assert _junit_failures(out / "3.xml") == 0
    (record,) = records(root)
    assert record["status"] == "fixed", record
    fixed_in = record["fixed_in"]
    assert isinstance(fixed_in, dict) and fixed_in["date"] >= record["last_seen"]
    assert "myurls" in fixed_in["version"]
    # A fixed finding is not replayed again: the next run is green and says so.
    fourth = _campaign(cwd, *_RUN)
    assert fourth.returncode == 0 and "open findings replayed: 0" in fourth.stdout


def test_replay_open_fails_while_the_bug_is_there_and_marks_the_fix(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    cwd = make_project(root)
    seed(root)
    assert _campaign(cwd, *_RUN).returncode == 1
    assert len(records(root)) == 1

    # No argument at all: the open findings, as --open (a newcomer's first replay).
    still = pctfuzz(cwd, "replay")
    assert still.returncode == 1, still.stdout + still.stderr
    assert ": reproduces" in still.stdout
    fix_bug(root)
    fixed = pctfuzz(cwd, "replay", "--open")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "no longer reproduces" in fixed.stdout
    assert records(root)[0]["status"] == "fixed"
    # A triaged finding is not replayed: nothing open is left.
    again = pctfuzz(cwd, "replay", "--open")
    assert again.returncode == 0 and "open findings replayed: 0" in again.stdout


def _explain(root: Path, rule: str | None, params: dict[str, str]) -> str:
    """Give the one record the rule that explains it (``behaviour``: a reconciler name
    and its TOML parameters), as a campaign records it; None: no rule explains it."""
    (path,) = (root / "fuzz" / "findings").glob("*.json")
    data = json.loads(path.read_text())
    data["behaviour"] = rule and {"rule": rule, "params": params, "text": "'#' left raw"}
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return str(data["id"])


def test_accept_writes_an_entry_that_the_next_campaign_accepts(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    cwd = make_project(root)
    seed(root)
    assert _campaign(cwd, *_RUN).returncode == 1
    ident = _explain(root, "left_raw", {"chars": "#"})
    # The project names its accept file; `pctfuzz accept` creates it.
    with (root / "pyproject.toml").open("a") as file:
        file.write('accept = ["fuzz/accept.toml"]\n')

    # '#' raw splits a query: accepted only when said to be intended.
    blocked = pctfuzz(cwd, "accept", ident)
    assert blocked.returncode == 2 and "--accept-impact" in blocked.stderr, blocked.stderr
    assert not (root / "fuzz" / "accept.toml").exists()
    accepted = pctfuzz(cwd, "accept", ident, "--why", "our links keep '#' raw",
                       "--citation", "myurls docs", "--accept-impact")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "splits-field" in accepted.stdout
    text = (root / "fuzz" / "accept.toml").read_text()
    assert 'reconciler = "left_raw"' in text and 'chars = "#"' in text
    assert 'value = "a#b"' in text or 'value = "#"' in text
    assert records(root)[0]["status"] == "known-divergence"

    # The file loads and its pinned example diverges and is accepted.
    check = pctfuzz(root, "divergences", "--check", "--accept", "fuzz/accept.toml",
                    "--impl", IMPL, pythonpath=root)
    assert check.returncode == 0, check.stdout + check.stderr
    assert f"left-raw-{ident} (query_value, encode): ok" in check.stdout

    # The next campaign meets the behaviour on its first input and accepts it.
    after = _campaign(cwd, *_RUN)
    assert after.returncode == 0, after.stdout + after.stderr
    assert "0 new finding(s)" in after.stdout
    assert len(records(root)) == 1

    # Once is enough: the same id again is refused, and the file is unchanged.
    again = pctfuzz(cwd, "accept", ident)
    assert again.returncode == 2 and "accepted already" in again.stderr
    assert (root / "fuzz" / "accept.toml").read_text() == text


def test_accept_keeps_the_users_text_and_refuses_a_finding_without_a_rule(
        tmp_path: Path) -> None:
    root = tmp_path / "proj"
    cwd = make_project(root)
    seed(root)
    assert _campaign(cwd, *_RUN).returncode == 1
    (record,) = records(root)
    accept = root / "fuzz" / "mine.toml"
    mine = ("# my notes, kept as they are\r\n[[divergence]]\r\nid = \"tilde\"\r\n"
            "check = \"encode\"\r\nreconciler = \"encoded\"\r\nchars = \"~\"\r\n"
            "citation = \"c\"\r\nwhy = \"w\"\r\nexample = { value = \"~\", set = \"query-value\","
            " space_as_plus = true }")  # no final newline
    accept.write_bytes(mine.encode())

    _explain(root, None, {})  # a divergence no rule of the catalogue explains
    refused = pctfuzz(cwd, "accept", str(record["id"]), "--accept", str(accept))
    assert refused.returncode == 2
    (line,) = refused.stderr.splitlines()
    assert "has no rule that explains it" in line and "by hand" in line
    assert accept.read_bytes() == mine.encode()
    assert records(root)[0]["status"] == "new"

    ident = _explain(root, "left_raw", {"chars": "#"})
    done = pctfuzz(cwd, "accept", ident, "--accept", str(accept), "--accept-impact")
    assert done.returncode == 0, done.stdout + done.stderr
    written = accept.read_bytes()
    assert written.startswith(mine.encode()) and written.count(b"[[divergence]]") == 2

    # A rule that does not explain the case is refused before anything is written.
    fix_bug(root)
    (root / "fuzz" / "findings").joinpath("x").write_text("")  # a stray file: ignored
    assert pctfuzz(cwd, "triage", ident, "--status", "new").returncode == 0
    accept.write_bytes(mine.encode())
    wrong = pctfuzz(cwd, "accept", ident, "--accept", str(accept), "--accept-impact")
    assert wrong.returncode == 2 and "not written" in wrong.stderr, wrong.stderr
    assert accept.read_bytes() == mine.encode()
