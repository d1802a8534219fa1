"""``pctfuzz matrix`` judges an answer exactly as the differential check does.

A decoder asked a lone surrogate may answer as for U+FFFD or keep it (the non-scalar
policy, checks/differential.py): the check counts that as agreement. The matrix used
to compare the outcomes itself, called the case a bug, re-ran the check to record it,
saw it pass, and ended the run "incomplete" (exit 3) with
``decode('\\ud800') did not fail again`` for urllib, yarl and tornado.
"""

from __future__ import annotations

from pathlib import Path

from pctfuzz._internal.cases import DecodeCase
from pctfuzz._internal.fuzz.matrix import run_matrix
from pctfuzz._internal.fuzz.minimize import raw_input_for
from pctfuzz._internal.oracles import get_impl
from pctfuzz._internal.targets import get_target


def test_a_lone_surrogate_the_policy_accepts_is_agreement_in_the_matrix(tmp_path: Path) -> None:
    impl = get_impl("urllib")
    target = get_target("diff_decode")
    data = raw_input_for(target, DecodeCase("\ud800"), impl)
    assert data is not None and target.case_from_bytes(data, impl) == DecodeCase("\ud800")
    corpus = tmp_path / "corpus"
    (corpus / "diff_decode").mkdir(parents=True)
    (corpus / "diff_decode" / "surrogate").write_bytes(data)
    run = run_matrix({"urllib": impl}, max_time=600, max_inputs=5, findings=tmp_path / "f",
                     corpus=corpus, targets=("diff_decode",))
    assert run.lost == []
    assert run.findings == {}
    assert sum(cell.agree for cell in run.cells.values()) == 5
