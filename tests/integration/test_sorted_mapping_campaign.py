"""Issue 31 end to end: a form parser that answers a sorted mapping is one finding per
behaviour. ``behaviour_impls.SortedMapping`` (hold-out 15's nested-key parser, planted)
strips names and values, drops a pair whose name is then empty, decodes values twice
and answers a mapping sorted by name. Before the sorted mapping and the dropped empty
names were modes of their own, every variant of the trim beside another pair came back
reordered: 9 findings for the four in a 45 s campaign, one per field and kind of
character trimmed. Seeds show each behaviour, so the test waits for a finding of each
of the four rules (an event), not for a number of seconds."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from campaigns import run_until

from pctfuzz._internal.cases import FormParseCase
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.targets import get_target

SUPPORT = Path(__file__).resolve().parents[1] / "support"
IMPL = "behaviour_impls:SortedMapping"

pytestmark = pytest.mark.slow

SEEDS = [FormParseCase(t) for t in ("b=1&a=2&b=3", "a=%2541", "=1&c=2", "a= x &b=1")]
RULES = ("pairs_order", "trimmed", "empty_pairs", "decoded_twice")


def _rules(findings: Path) -> Counter[str | None]:
    records = [json.loads(p.read_text()) for p in sorted(findings.glob("*.json"))]
    return Counter((r.get("behaviour") or {}).get("rule") for r in records)


def _each_rule_saved(findings: Path) -> Callable[[str], bool]:
    """The event: a finding of each of ``RULES`` saved."""
    return lambda _output: all(_rules(findings)[rule] for rule in RULES)


def test_a_sorted_mapping_parser_is_one_finding_per_behaviour(tmp_path: Path) -> None:
    corpus, findings = tmp_path / "corpus", tmp_path / "findings"
    folder = corpus / "diff_form_parse"
    folder.mkdir(parents=True)
    for index, case in enumerate(SEEDS):
        (folder / f"seed-{index}").write_bytes(get_target("diff_form_parse").to_bytes(case))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SUPPORT),
                                                       os.environ.get("PYTHONPATH", "")]))
    env.pop("PCTFUZZ_ACCEPT", None)
    run = run_until(["diff_form_parse", "--impl", IMPL, "--jobs", "1", "--corpus", str(corpus),
                     "--findings", str(findings), "-q"], _each_rule_saved(findings),
                    cwd=tmp_path, env=env)
    assert run.returncode == ExitCode.FOUND, run.stdout + run.stderr
    assert _rules(findings) - Counter({None: 99}) == Counter(RULES), _rules(findings)
    # Stopped by SIGINT, the campaign still does its end's merge (one check per new
    # finding): a class met before the order was known (the decoding beside a sorted
    # answer, 1 run in 3) is named by its rule and merged (``migrate.merge_into_named``).
    assert _rules(findings) == Counter(RULES), (_rules(findings), run.stdout)
