"""A form parser that reads HTML character references before it splits the query
(``html_unescaped``): both decoders, and one finding per such parser."""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from rule_findings import findings, one

from pctfuzz._internal.accept.html_refs import html_unescape
from pctfuzz._internal.cases import FormParseCase
from pctfuzz._internal.checks.differential import check_form_parse
from pctfuzz._internal.oracles.function import function_adapter


@pytest.mark.parametrize(("text", "decoded"), [
    # Mono 6.8.0.105's HttpUtility.ParseQueryString(text) read back as one text (its keys
    # and values, measured), so HttpEncoder.HtmlDecode's answer: names of HTML 4.01 and
    # numbers only when ended by ';', an unended number's digits dropped, above 65535
    # written back (wrapped as a 32-bit int), '&#0;' kept, any Unicode digit a digit.
    ("a=1&amp;b=2", "a=1&b=2"), ("x=&#61;y", "x==y"), ("&#0", "&#"), ("a=&#3;", "a=\x03"),
    ("x=&#65536;", "x=&#65536;"), ("x=&#0;", "x=&#0;"), ("x=&#x41;&y=&lt;", "x=A&y=<"),
    ("x=&#9000000009;", "x=&#410065417;"), ("x=&#\u0663;", "x=\u0633"),
    ("x=&bogus;&z", "x=&bogus;&z"), ("x=&#12a;", "x=&#12a;"), ("a&#x", "a&#"),
])
def test_mono_html_decode(text: str, decoded: str) -> None:
    assert html_unescape(text, "mono") == decoded


def test_html5_references_are_pythons() -> None:
    assert html_unescape("a&amp;b&#61;c&lt&#0", "html5") == "a&b=c<\ufffd"


def _unescaped_first(text: str) -> list[tuple[str, str]]:
    return parse_qsl(html.unescape(text), keep_blank_values=True)


UNESCAPED_FIRST = function_adapter("unescaped-first", form_parse=_unescaped_first)


def test_a_parser_that_reads_html_references_first_is_one_finding(tmp_path: Path) -> None:
    """Mono's ParseQueryString gave six findings of six classes for its HTML decode in a
    90 s campaign ('&#0' an extra pair, 'a&#0' a repeated name, '&#3;' a lost ';'...)."""
    cases = [FormParseCase(t) for t in ("a&amp;b", "x=&#61;", "&#0", "q=&lt;&gt;", "a=&#38;b=1")]
    one(findings(tmp_path, check_form_parse, UNESCAPED_FIRST, cases), "html_unescaped",
        {"mode": "html5"})
