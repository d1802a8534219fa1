"""The conformance matrix page (``reports.matrix``) and what ``fuzz.matrix`` gives it.

Looked at in headless Chromium (docs/peers.md): an adapter's own accepted entries read
"(the adapter own entry)" with no summary or citation, a peer's version repeated the
implementation's name, two implementations that both refused an input (two exception
types) filled the table of pairs that disagree, and a crash finding showed "None" as
both answers.
"""

from __future__ import annotations

from pathlib import Path

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.fuzz.matrix import MatrixRun, run_matrix
from pctfuzz._internal.fuzz.minimize import raw_input_for
from pctfuzz._internal.oracles import function_adapter, get_impl
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.reports.matrix import render_matrix_html, render_matrix_markdown
from pctfuzz._internal.targets import get_target

SET = "rfc3986-unreserved"
#: run_matrix asks its four built-in seeds first, then the corpus.
_BUILT_IN_SEEDS = 4


def _refusing(name: str, error: type[Exception]) -> object:
    """The reference's encoder, except that it raises ``error`` for a '!'."""

    def encode(value: str) -> str:
        if "!" in value:
            raise error("no '!'")
        return percent_encode(value, SET)

    return function_adapter(name, encode=encode, sets={"s": SET})


def _corpus(tmp_path: Path, impl: object, *values: str) -> Path:
    target = get_target("diff_encode")
    folder = tmp_path / "corpus" / "diff_encode"
    folder.mkdir(parents=True)
    for index, value in enumerate(values):
        data = raw_input_for(target, EncodeCase(value, SET, "UTF-8"), impl)
        assert data is not None
        (folder / str(index)).write_bytes(data)
    return tmp_path / "corpus"


def test_two_refusals_are_no_disagreement_but_a_refusal_and_an_answer_are(
        tmp_path: Path) -> None:
    a, b = _refusing("refuses-a", ValueError), _refusing("refuses-b", KeyError)
    answers = function_adapter("answers", encode=lambda v: percent_encode(v, SET),
                               sets={"s": SET})
    corpus = _corpus(tmp_path, a, "a!b")
    run = run_matrix({"refuses-a": a, "refuses-b": b, "answers": answers}, max_time=600,
                     max_inputs=_BUILT_IN_SEEDS + 1, findings=tmp_path / "f", corpus=corpus,
                     targets=("diff_encode",))
    pairs = {(x, y) for _, x, y in run.confusions}
    assert ("refuses-a", "refuses-b") not in pairs
    assert {("answers", "refuses-a"), ("answers", "refuses-b")} <= pairs
    # each refusal is a crash finding, which the page shows with both answers
    crash = next(f for f in run.findings.values() if f["impl"] == "refuses-a")
    assert crash["kind"] == "crash" and crash["actual"] == "raises ValueError: no '!'"
    assert crash["expected"] == repr("%21")  # minimized to "!"
    assert "raises ValueError: no &#x27;!&#x27;" in render_matrix_html(run, {})


def test_an_adapters_own_entry_is_named_with_its_summary_and_citation(tmp_path: Path) -> None:
    furl = get_impl("furl")
    corpus = _corpus(tmp_path, furl)  # empty: the seeds below are furl's own sets
    target = get_target("diff_encode")
    data = raw_input_for(target, EncodeCase("%41", "rfc3986-pchar-/", "UTF-8"), furl)
    assert data is not None
    (corpus / "diff_encode" / "path").write_bytes(data)
    run = run_matrix({"furl": furl}, max_time=600, max_inputs=_BUILT_IN_SEEDS + 1,
                     findings=tmp_path / "f", corpus=corpus, targets=("diff_encode",))
    assert sum(cell.accepted["furl-path-requoted"] for cell in run.cells.values()) >= 1
    page = render_matrix_html(run, {"furl": "Python"})
    assert "valid-encoded segments are requoted" in page  # the entry's summary
    assert "Path._segments_from_path" in page  # its citation
    assert "adapter own entry" not in page
    assert "valid-encoded segments are requoted" in render_matrix_markdown(run, {})


def test_the_version_column_drops_the_implementations_own_name() -> None:
    run = MatrixRun(["php-rawurlencode", "yarl-c"],
                    {"php-rawurlencode": "php-rawurlencode 8.2.36", "yarl-c": "yarl 1.25.1"})
    page = render_matrix_html(run, {})
    assert "<td>8.2.36</td>" in page and "<td>yarl 1.25.1</td>" in page
    assert "| ` php-rawurlencode ` |  | ` 8.2.36 ` |" in render_matrix_markdown(run, {})
