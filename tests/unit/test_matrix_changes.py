"""The matrix's columns for the URL Standard's dated set changes: the facts' one home
(``spec_changes``), the probe that asks each implementation (``fuzz.follows``), and the
terminal line, pages and JSON that show the answer (``reports.matrix_changes``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from change_impls import CARET_ENCODED, CARET_RAW

from pctfuzz._internal.cli import main
from pctfuzz._internal.fuzz.follows import Follows, follows
from pctfuzz._internal.fuzz.matrix import run_matrix
from pctfuzz._internal.oracles import function_adapter, get_impl
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.reports.matrix import render_matrix_html, render_matrix_markdown
from pctfuzz._internal.reports.matrix_changes import changes_table
from pctfuzz._internal.spec_changes import CHANGES, SetChange

DOCS = Path(__file__).resolve().parents[2] / "docs"
CARET = next(c for c in CHANGES if c.id == "path-caret")


# --- the facts ---------------------------------------------------------------------------
@pytest.mark.parametrize("change", CHANGES, ids=[c.id for c in CHANGES])
def test_each_change_is_in_the_reference_set_and_not_in_the_old_one(change: SetChange) -> None:
    added = {ord(c) for c in change.added}
    assert added <= change.new.members
    assert change.old.members == change.new.members - added
    assert change.answer() != change.answer(old=True)  # the probe tells the sides apart
    assert re.fullmatch(r"https://github\.com/whatwg/url/pull/\d+", change.pull)
    assert re.fullmatch(r"[0-9a-f]{40}", change.commit)


def test_the_changes_are_in_date_order_with_the_two_the_matrix_must_show() -> None:
    assert [c.merged for c in CHANGES] == sorted(c.merged for c in CHANGES)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d", c.merged) for c in CHANGES)
    by_id = {c.id: c for c in CHANGES}
    assert by_id["path-caret"].pull.endswith("/846") and by_id["path-caret"].character == "^"
    assert by_id["special-query-apostrophe"].character == "'"


def test_docs_peers_holds_the_changes_table() -> None:
    """docs/peers.md renders the same table (make docs writes it)."""
    assert changes_table() in (DOCS / "peers.md").read_text(encoding="utf-8")


# --- the probe ---------------------------------------------------------------------------
def test_an_implementation_on_each_side_of_a_change() -> None:
    assert follows(CARET_ENCODED, CARET).side == "new"
    assert follows(CARET_RAW, CARET) == Follows("old", "a^b")


def test_neither_side_is_other_with_the_answer_and_an_error_is_other_too() -> None:
    upper = function_adapter("x", encode=lambda v: percent_encode(v, "path").lower(),
                             sets={"p": "path"})
    assert (follows(upper, CARET).side, follows(upper, CARET).answer) == ("other", "a%5eb")

    def refuse(value: str) -> str:
        raise KeyError(value)

    raising = function_adapter("y", encode=refuse, sets={"p": "path"})
    found = follows(raising, CARET)
    assert found.side == "other" and found.answer.startswith("raises KeyError")


def test_no_function_for_the_set_or_the_set_as_an_argument_is_not_applicable() -> None:
    other_set = function_adapter("z", encode=lambda v: percent_encode(v, "query"),
                                 sets={"q": "query"})
    assert follows(other_set, CARET).side == "n/a"
    # urllib.parse.quote gets the set as its safe characters: pctfuzz's set, not urllib's
    found = follows(get_impl("urllib"), CARET)
    assert (found.side, found.answer) == ("n/a", "applies the set it is given")


# --- the matrix's outputs ----------------------------------------------------------------
def test_the_matrix_shows_each_side_in_its_pages(tmp_path: Path) -> None:
    impls = {"caret-encoded": CARET_ENCODED, "caret-raw": CARET_RAW}
    run = run_matrix(impls, max_time=600, max_inputs=4, findings=tmp_path,
                     targets=("diff_encode",))
    assert run.changes["caret-encoded"]["path-caret"].side == "new"
    assert run.changes["caret-raw"]["path-caret"].side == "old"
    markdown = render_matrix_markdown(run, {}, all_rows=True)
    header = next(line for line in markdown.splitlines() if line.startswith("| implementation"))
    assert "[path ` ^ ` (2025)](#change-path-caret)" in header
    rows = {line.split(" | ")[0]: line for line in markdown.splitlines()  # the main table's
            if line.startswith("| ` caret") and line.count(" | ") > 8}
    assert rows["| ` caret-encoded `"].endswith("| new |")
    assert rows["| ` caret-raw `"].endswith("| old |")
    assert "**new**: ` caret-encoded `; **old**: ` caret-raw `" in markdown
    page = render_matrix_html(run, {}, all_rows=True)
    assert "<a href='#change-path-caret'>path ^ (2025)</a>" in page
    assert "<td class='accepted' title='a^b'>old</td>" in page
    assert "<td class='agree' title='a%5Eb'>new</td>" in page


def test_the_command_prints_a_line_per_change_and_writes_the_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m"
    main(["matrix", "--impl", "change_impls:CARET_ENCODED", "--impl", "change_impls:CARET_RAW",
          "--target", "diff_encode", "--max-inputs", "4", "--out", str(out)])
    printed = capsys.readouterr().out
    assert ("path ^ (2025), whatwg/url#846: new 1 (change_impls:CARET_ENCODED); old 1 "
            "(change_impls:CARET_RAW); n/a 0") in printed
    document = json.loads((out / "matrix.json").read_text(encoding="utf-8"))
    caret = next(c for c in document["changes"] if c["id"] == "path-caret")
    assert (caret["merged"], caret["new"], caret["old"]) == ("2025-03-05", "a%5Eb", "a^b")
    assert caret["implementations"]["change_impls:CARET_RAW"] == {"side": "old",
                                                                  "answer": "a^b"}
    assert {row["name"] for row in document["implementations"]} == {
        "change_impls:CARET_ENCODED", "change_impls:CARET_RAW"}
