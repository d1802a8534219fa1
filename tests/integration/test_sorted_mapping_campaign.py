"""Issue 31 end to end: a form parser that answers a sorted mapping is one finding per
behaviour. ``behaviour_impls.SortedMapping`` (hold-out 15's nested-key parser, planted)
strips names and values, drops a pair whose name is then empty, decodes values twice
and answers a mapping sorted by name. Before the sorted mapping and the dropped empty
names were modes of their own, every variant of the trim beside another pair came back
reordered: 9 findings for the four in a 45 s campaign, one per field and kind of
character trimmed. Seeds show each behaviour, so the test waits for the four findings
(an event), not for a number of seconds."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from campaigns import finding_saved, run_until

from pctfuzz._internal.cases import FormParseCase
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.targets import get_target

SUPPORT = Path(__file__).resolve().parents[1] / "support"

pytestmark = pytest.mark.slow

SEEDS = [FormParseCase(t) for t in ("b=1&a=2&b=3", "a=%2541", "=1&c=2", "a= x &b=1")]


def test_a_sorted_mapping_parser_is_one_finding_per_behaviour(tmp_path: Path) -> None:
    corpus, findings = tmp_path / "corpus", tmp_path / "findings"
    folder = corpus / "diff_form_parse"
    folder.mkdir(parents=True)
    for index, case in enumerate(SEEDS):
        (folder / f"seed-{index}").write_bytes(get_target("diff_form_parse").to_bytes(case))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT),
                                                       os.environ.get("PYTHONPATH", "")]))
    env.pop("PCTFUZZ_ACCEPT", None)
    run = run_until(["diff_form_parse", "--impl", "behaviour_impls:SortedMapping",
                     "--jobs", "1", "--corpus", str(corpus), "--findings", str(findings),
                     "-q"], finding_saved(findings, 4), cwd=tmp_path, env=env)
    assert run.returncode == ExitCode.FOUND, run.stdout + run.stderr
    records = [json.loads(p.read_text()) for p in sorted(findings.glob("*.json"))]
    rules = Counter((r.get("behaviour") or {}).get("rule") for r in records)
    assert rules == Counter({"pairs_order": 1, "trimmed": 1, "empty_pairs": 1,
                             "decoded_twice": 1}), [r["signature"] for r in records]
