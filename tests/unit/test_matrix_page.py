"""The conformance matrix page (``reports.matrix``) and what ``fuzz.matrix`` gives it.

Looked at in headless Chromium (docs/peers.md): an adapter's own accepted entries read
"(the adapter own entry)" with no summary or citation, a peer's version repeated the
implementation's name, two implementations that both refused an input (two exception
types) filled the table of pairs that disagree, and a crash finding showed "None" as
both answers.
"""

from __future__ import annotations

import html
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.fuzz.matrix import Cell, MatrixRun, run_matrix
from pctfuzz._internal.fuzz.minimize import raw_input_for
from pctfuzz._internal.oracles import function_adapter, get_impl
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.reports.matrix import (
    matrix_counts,
    render_matrix_html,
    render_matrix_markdown,
)
from pctfuzz._internal.targets import get_target

SUPPORT = Path(__file__).resolve().parents[1] / "support"
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
    # neither has a bug: matrix.md shows their rows only when asked for every row
    assert "| ` php-rawurlencode ` |  | ` 8.2.36 ` |" in render_matrix_markdown(
        run, {}, all_rows=True)


_BUG = "0123456789abcdef"


def _one_failing_row() -> MatrixRun:
    """Three implementations: one agrees, one differs only as accepted, one has a bug
    in encode (and agrees on decode)."""
    run = MatrixRun(["agrees", "accepts", "fails"], {})
    run.cells[("agrees", "encode s")] = Cell(5)
    run.cells[("accepts", "decode")] = Cell(1, Counter({"entry-a": 2}))
    run.cells[("fails", "encode s")] = Cell(3, Counter(), Counter({_BUG: 2}))
    run.cells[("fails", "encode t")] = Cell(4)
    run.cells[("fails", "decode")] = Cell(2)
    run.findings[_BUG] = {"impl": "fails", "target": "diff_encode", "kind": "divergence",
                          "case": "encode('~', set='s')", "expected": "'~'",
                          "actual": "'%7E'", "file": "f.json"}
    run.inputs["diff_encode"] = 9
    return run


def _table_rows(page: str) -> list[str]:
    """The implementations of the page's first table of rows (``<tr><th>NAME``),
    before anything folded."""
    unfolded = page.split("<details>")[0]
    return re.findall(r"<tr><th>([^<]*)</th><td>", unfolded)


def test_the_pages_lead_with_the_findings_and_show_only_the_failing_rows() -> None:
    """Issue 34 (web-platform-tests interop#805: issues hide in a sea of passing
    tests): the findings come first, then only the rows with a bug; the others are
    folded (matrix.html) or named (matrix.md), and ``all_rows`` shows every row, those
    with a bug first."""
    run = _one_failing_row()
    page = render_matrix_html(run, {})
    assert page.index(_BUG) < page.index("<th>fails</th>")  # the finding before the table
    assert _table_rows(page) == ["fails"]
    folded = page.split("<details>", 1)[1]
    assert "<th>agrees</th>" in folded and "<th>accepts</th>" in folded
    assert _table_rows(render_matrix_html(run, {}, all_rows=True)) == [
        "fails", "agrees", "accepts"]

    text = render_matrix_markdown(run, {})
    assert _markdown_rows(text) == ["fails"], text
    assert text.index(_BUG) < text.index("| ` fails ` |")
    assert "` agrees `, ` accepts `" in text and "--all-rows" in text
    assert _markdown_rows(render_matrix_markdown(run, {}, all_rows=True)) == [
        "fails", "agrees", "accepts"]


def _markdown_rows(text: str) -> list[str]:
    """The implementations of matrix.md's first table (before encode by set)."""
    return re.findall(r"^\| ` (\w+) ` \|", text.split("## Encode by set")[0], re.MULTILINE)


def test_the_counts_are_of_implementation_by_operation_cells() -> None:
    counts = matrix_counts(_one_failing_row())
    assert (counts.agree, counts.accepted, counts.bug) == (2, 1, 1)  # fails: encode, decode
    assert (counts.implementations, counts.failing, counts.findings) == (3, 1, 1)


@pytest.fixture
def on_path() -> Iterator[None]:
    sys.path.insert(0, str(SUPPORT))
    yield
    sys.path.remove(str(SUPPORT))


def _first_paragraph(page: str) -> str:
    """The text of the first paragraph after the page's title."""
    found = re.search(r"</h1>\s*<p[^>]*>(.*?)</p>", page, re.DOTALL)
    assert found is not None, page[:500]
    return html.unescape(re.sub(r"<[^>]+>", "", found[1])).strip()


def test_the_terminal_prints_the_counts_the_pages_show(
        tmp_path: Path, on_path: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 34: the page said "35 agree, 58 accepted, 9 with bugs" where the terminal
    said "189 cells (12 with bugs)"; both now count the same cells in the same words."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "m"
    code = main(["matrix", "--impl", "urllib", "--impl", "broken_impls:HASH_RAW",
                 "--target", "diff_encode", "--max-inputs", "40", "--out", str(out)])
    assert code == ExitCode.FOUND  # HASH_RAW leaves '#' raw
    printed = capsys.readouterr().out
    page = (out / "matrix.html").read_text(encoding="utf-8")
    lead = _first_paragraph(page)
    assert lead.rstrip(".") in printed, (lead, printed)
    assert "1 of 2 implementations with bugs" in lead
    main_table = page.split("<details>")[0]  # the encode-by-set table is folded below
    assert main_table.count('<td class="bug">') == 1 and "1 with bugs" in lead
    markdown = (out / "matrix.md").read_text(encoding="utf-8")
    assert markdown.split("\n\n")[1] == lead
