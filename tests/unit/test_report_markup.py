"""Record and peer text never renders as markup (issue 33, item 9).

``report --upstream`` and ``matrix.md`` wrote a record's behaviour text, a peer's
version (its handshake) and a matrix's cases bare: a link, an image and raw HTML
rendered. Each page is rendered here as a Markdown viewer renders it (markdown-it,
which ``rich`` brings, with GFM tables) and the data must stay inside code elements,
whole. The HTML report and ``matrix.html`` escape the same data.
"""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks import differential
from pctfuzz._internal.fuzz.matrix import Cell, Confusion, MatrixRun
from pctfuzz._internal.oracles import get_impl
from pctfuzz._internal.reports import findings_markdown, render_html, report_results
from pctfuzz._internal.reports.markdown import code_span
from pctfuzz._internal.reports.matrix import render_matrix_html, render_matrix_markdown
from pctfuzz._internal.reports.upstream import upstream_report
from pctfuzz._internal.store import FindingStore, new_finding
from pctfuzz._internal.text import one_line

SUPPORT = Path(__file__).resolve().parents[1] / "support"
#: A link, an image, raw HTML, a backtick run, a table pipe and a newline.
HOSTILE = ("[c](javascript:alert(1)) ![i](https://evil.example/i.png) "
           "<img src=x onerror=alert(1)> ``x` | y\n| z")
#: What of HOSTILE may never appear outside a code element.
_MARKERS = ("javascript", "evil.example", "onerror", "<img")
_ID = "0123456789abcdef"


class _Rendered(HTMLParser):
    """The tags of a rendered page, and its text inside and outside code elements."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.depth = 0
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.code: list[str] = []
        self.outside: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.depth += tag == "code"
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self.depth -= tag == "code"

    def handle_data(self, data: str) -> None:
        (self.code if self.depth else self.outside).append(data)


def _check_markdown(text: str, *, copies: int) -> None:
    """``text`` rendered: no image, no raw HTML of the data, links to anchors only, no
    marker outside code, and HOSTILE whole (escaped to one line) in ``copies`` code
    elements at least."""
    page = _Rendered(MarkdownIt("commonmark").enable("table").render(text))
    allowed = {"h1", "h2", "p", "ul", "li", "strong", "code", "pre", "table", "thead",
               "tbody", "tr", "th", "td", "a"}
    assert [t for t, _ in page.tags if t not in allowed] == [], text
    for tag, attrs in page.tags:
        if tag == "a":  # matrix.md's own anchors and links to them
            assert set(attrs) <= {"id", "href"} and (attrs.get("href") or "#")[0] == "#", attrs
    outside = "".join(page.outside)
    assert [m for m in _MARKERS if m in outside] == [], outside
    assert sum(one_line(HOSTILE) in c for c in page.code) >= copies, page.code


@pytest.mark.parametrize("text", ["a", "`", "``a`", " a ", "a|b", "a\\|b", "x\ny", "` `", " "])
def test_a_code_span_holds_its_text_whole(text: str) -> None:
    for table in (False, True):
        span = code_span(text, table=table)
        markdown = f"| h |\n|---|\n| {span} |\n" if table else span
        page = _Rendered(MarkdownIt("commonmark").enable("table").render(markdown))
        assert page.code == [one_line(text)], markdown
    assert code_span("") == ""  # nothing to show, and no stray backticks


def _hostile_run() -> MatrixRun:
    """A matrix whose every text field is HOSTILE (a peer's name and version, a case,
    answers, an accept file's entry, a record's file name)."""
    run = MatrixRun([HOSTILE, "urllib"], {HOSTILE: HOSTILE, "urllib": HOSTILE})
    run.cells[(HOSTILE, "encode " + HOSTILE)] = Cell(1, Counter({HOSTILE: 2}), Counter({_ID: 1}))
    run.cells[(HOSTILE, "decode")] = Cell(0, Counter({HOSTILE: 1}), Counter())
    run.confusions[("encode " + HOSTILE, HOSTILE, "urllib")] = Confusion(3, HOSTILE,
                                                                         (HOSTILE, HOSTILE))
    run.findings[_ID] = {"impl": HOSTILE, "target": "diff_encode", "kind": "divergence",
                         "case": HOSTILE, "expected": HOSTILE, "actual": HOSTILE,
                         "file": HOSTILE}
    run.entries[HOSTILE] = (HOSTILE, HOSTILE)
    run.lost.append(HOSTILE)
    run.inputs["diff_encode"] = 1
    return run


def test_matrix_markdown_keeps_record_and_peer_text_in_code_spans() -> None:
    text = render_matrix_markdown(_hostile_run(), {HOSTILE: HOSTILE, "urllib": "Python"})
    # impl x4 (rows, pair, finding), language, version x2, set, cell links, case,
    # answers, entry id/summary/citation, finding case/expected/actual/file, lost
    _check_markdown(text, copies=20)


def test_matrix_html_escapes_record_and_peer_text() -> None:
    page = render_matrix_html(_hostile_run(), {HOSTILE: HOSTILE, "urllib": "Python"})
    assert "<img" not in page and "javascript:" not in page.replace(
        "[c](javascript:", "")  # only as text, never an href
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


class _HostilePeer:
    """HASH_RAW as a peer whose handshake names it, and its version, HOSTILE."""

    name = HOSTILE
    version = HOSTILE

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._inner, attr)


@pytest.fixture
def on_path() -> Iterator[None]:
    sys.path.insert(0, str(SUPPORT))
    yield
    sys.path.remove(str(SUPPORT))


def _hostile_finding(impl: str) -> Any:
    case = EncodeCase(HOSTILE + "#", "query-value", "utf-8", True)
    with pytest.raises(Exception) as caught:
        differential.check_encode(case, get_impl(impl))
    finding = new_finding("diff_encode", "divergence", caught.value, case=case, impl=impl)
    # a record holds one printable line (the store's schema): HOSTILE escaped
    line = one_line(HOSTILE)
    return dataclasses.replace(finding, versions={impl: line}, note=line,
                               behaviour={"rule": "left_raw", "params": {"chars": "#"},
                                          "text": line})


def test_upstream_report_keeps_record_and_peer_text_in_code(on_path: None) -> None:
    name = "broken_impls:HASH_RAW"
    finding = _hostile_finding(name)
    text = upstream_report(finding, _HostilePeer(get_impl(name)), path="f.json", impl=name)
    # the name in the title, the behaviour, the library's version, the recorded one
    _check_markdown(text, copies=4)


def test_html_report_escapes_record_text(tmp_path: Path, on_path: None) -> None:
    store = FindingStore(tmp_path / "findings")
    stored, _ = store.record(_hostile_finding("broken_impls:HASH_RAW"))
    document = report_results([stored], findings_dir=store.root,
                              settings={"findings": str(store.root)})
    page = render_html(document, [stored])
    assert "<img" not in page and "<script" not in page
    assert page.count("&lt;img src=x onerror=alert(1)&gt;") >= 3  # note, behaviour, case


def test_markdown_report_keeps_record_text_in_code_and_leads_with_open_findings(
        tmp_path: Path, on_path: None) -> None:
    """``report --markdown`` (a CI job summary, issue 34): record text stays in code
    spans; open findings come first, with their replay commands."""
    store = FindingStore(tmp_path / "findings")
    stored, _ = store.record(_hostile_finding("broken_impls:HASH_RAW"))
    document = report_results([stored], findings_dir=store.root,
                              settings={"findings": str(store.root)})
    fixed = {**document["findings"][0], "id": "f" * 16, "status": "fixed"}
    text = findings_markdown([fixed, *document["findings"]], "fuzz/findings")
    _check_markdown(text, copies=2)  # behaviour, case
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert stored.id in rows[0] and "f" * 16 in rows[1], rows
    assert text.startswith("## pctfuzz: 1 open finding(s), 2 in all")
    assert f"divergence-diff_encode-{stored.id}.json" in text.split("Replay")[1]
    assert "f" * 16 not in text.split("Replay")[1]
