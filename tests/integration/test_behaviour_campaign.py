"""Issue 21 end to end: one finding per behaviour, named by the rule that explains it.

A planted adapter with five behaviours (``behaviour_impls.FiveBehaviours``: ``~`` left
raw, ``*`` encoded, pairs sorted, output truncated at 100, decoded twice) is fuzzed by
a real campaign. Seeds that show each behaviour make the test independent of how fast
the machine is (each is met in the first executions); what it asserts is the count of
findings per behaviour, which fuzzing longer must not raise: five findings without an
accept file (before issue 21, 47 in 30 s), the two bugs only with the three intended
behaviours accepted, each finding carrying its rule as ``behaviour``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from campaigns import finding_saved, run_until

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.targets import get_target

SUPPORT = Path(__file__).resolve().parents[1] / "support"
FIVE = "behaviour_impls:FiveBehaviours"

pytestmark = pytest.mark.slow

ACCEPT = """
[[divergence]]
id = "five-tilde-raw"
check = "form"
reconciler = "left_raw"
chars = "~"
citation = "urllib.parse.quote_plus: '_.-~' are never quoted"
why = "RFC 3986 unreserved"
example = { pairs = [["~", ""]] }

[[divergence]]
id = "five-star-encoded"
check = "form"
reconciler = "encoded"
chars = "*"
citation = "urllib.parse.quote_plus(safe='')"
why = "RFC 3986 sub-delims are encoded"
example = { pairs = [["*", ""]] }

[[divergence]]
id = "five-sorted"
check = "form"
reconciler = "pairs_order"
mode = "sorted"
citation = "urlencode(sorted(pairs))"
why = "a stable query string"
example = { pairs = [["b", ""], ["a", ""]] }
"""

SEEDS = {
    "diff_encode": [EncodeCase("a" * 120, "component"), EncodeCase("é" * 40, "path")],
    "diff_decode": [DecodeCase("%2541"), DecodeCase("a%252F")],
    "diff_form": [FormCase((("b", "~*"), ("a", ""))), FormCase((("~", "1"),)),
                  FormCase((("*", "1"),)), FormCase((("b", "1"), ("a", "2")))],
}


def _seed(corpus: Path) -> None:
    for name, cases in SEEDS.items():
        folder = corpus / name
        folder.mkdir(parents=True)
        for index, case in enumerate(cases):
            (folder / f"seed-{index}").write_bytes(get_target(name).to_bytes(case))


def _campaign(tmp: Path, *extra: str, expect: int) -> tuple[subprocess.CompletedProcess[str],
                                                             list[dict[str, Any]]]:
    """The campaign until ``expect`` findings are saved (an event), then SIGINT: the
    budget is only a safety cap (issue 23.16). One job per target: with fewer, a slot
    rotates its targets in slices of a quarter of the cap (150 s), and the third target
    waited that long for its first turn."""
    corpus, findings = tmp / "corpus", tmp / "findings"
    _seed(corpus)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT),
                                                       os.environ.get("PYTHONPATH", "")]))
    env.pop("PCTFUZZ_ACCEPT", None)
    run = run_until([*SEEDS, "--impl", FIVE, "--jobs", "3", "--corpus", str(corpus),
                     "--findings", str(findings), "-q", *extra],
                    finding_saved(findings, expect), cwd=tmp, env=env)
    return run, [json.loads(p.read_text()) for p in sorted(findings.glob("*.json"))]


def _rules(records: list[dict[str, Any]]) -> Counter[str]:
    return Counter(r["signature"].split("|")[3] for r in records)


def test_five_behaviours_are_four_findings(tmp_path: Path) -> None:
    """``~`` raw and ``*`` encoded are quote_plus's set, another standard's: one finding
    of both directions (``other_set``)."""
    run, records = _campaign(tmp_path, expect=4)
    assert run.returncode == ExitCode.FOUND, run.stdout + run.stderr
    assert _rules(records) == Counter({
        "rule=other_set(raw=~,encoded=*)": 1,
        "rule=pairs_order(mode=sorted)": 1, "rule=truncated(n=100)": 1,
        "rule=decoded_twice()": 1,
    }), [r["signature"] for r in records]
    by_rule = {r["behaviour"]["rule"]: r for r in records}
    assert by_rule["truncated"]["behaviour"] == {
        "rule": "truncated", "params": {"n": 100}, "text": "output truncated at 100 characters"}
    # The campaign's summary line shows the behaviour in words.
    assert "behaviour: output truncated at 100 characters" in run.stdout + run.stderr


def test_three_accepted_behaviours_leave_the_two_bugs(tmp_path: Path) -> None:
    accept = tmp_path / "accept.toml"
    accept.write_text(ACCEPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT),
                                                       os.environ.get("PYTHONPATH", "")]))
    check = subprocess.run(
        [sys.executable, "-m", "pctfuzz", "divergences", "--impl", FIVE, "--accept",
         str(accept), "--check"], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=300, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    run, records = _campaign(tmp_path, "--accept", str(accept), expect=2)
    assert run.returncode == ExitCode.FOUND, run.stdout + run.stderr
    assert _rules(records) == Counter({"rule=truncated(n=100)": 1, "rule=decoded_twice()": 1})


def test_no_accepted_shows_every_behaviour_and_stays_apart(tmp_path: Path) -> None:
    """``--no-accepted`` ignores the accept file: the five behaviours (four findings:
    ``~`` raw and ``*`` encoded are one set), each marked ``accepted=none``; the next
    normal campaign on the same store neither closes nor accepts them (its open-finding
    replay is of its own findings) and adds the two bugs."""
    accept = tmp_path / "accept.toml"
    accept.write_text(ACCEPT)
    run, records = _campaign(tmp_path, "--accept", str(accept), "--no-accepted", expect=4)
    assert run.returncode == ExitCode.FOUND, run.stdout + run.stderr
    assert sum(_rules(records).values()) == 4 and len(_rules(records)) == 4, \
        [r["signature"] for r in records]
    assert all(r["signature"].endswith("|accepted=none") for r in records)
    marked = {r["id"] for r in records}
    # A second campaign in the same folders (the corpus now holds the findings' inputs).
    corpus, findings = tmp_path / "corpus", tmp_path / "findings"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT),
                                                       os.environ.get("PYTHONPATH", "")]))
    # Until the two bugs are saved beside the four (an event, not a budget).
    again = run_until([*SEEDS, "--impl", FIVE, "--jobs", "3", "--corpus", str(corpus),
                       "--findings", str(findings), "-q", "--accept", str(accept)],
                      finding_saved(findings, 6), cwd=tmp_path, env=env)
    assert again.returncode == ExitCode.FOUND, again.stdout + again.stderr
    after = [json.loads(p.read_text()) for p in sorted(findings.glob("*.json"))]
    assert all(r["status"] == "new" for r in after if r["id"] in marked)
    normal = [r for r in after if r["id"] not in marked]
    assert _rules(normal) == Counter({"rule=truncated(n=100)": 1, "rule=decoded_twice()": 1})
