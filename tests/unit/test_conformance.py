"""Conformance: the seeds' worked examples and the WPT url/ tables in tests/support/vectors.py."""

from __future__ import annotations

import re

import pytest
from vectors import (
    JS_ENCODE_URI_COMPONENT_UNESCAPED,
    JS_ENCODE_URI_UNESCAPED,
    SEED_000_EXAMPLES,
    SEED_001_DATA_URI,
    SEED_001_DATA_URI_PREFIX,
    SEED_001_MIRROR_POLYGON_URI,
    SEED_001_QUERY_PREFIX,
    SEED_001_STYLE,
    SEED_001_SVG,
    SEED_001_VERTICES,
    SEED_002_DECODE,
    SEED_002_ENCODE,
    SPECIAL_SCHEMES,
    WPT_PARSE_THEN_SERIALIZE,
    WPT_PERCENT_ENCODING,
    WPT_SERIALIZE_PAIRS,
    WPT_SETTERS,
    WPT_URL_SEARCH_PARAMS,
    WPT_URLENCODED_PARSER,
    DecodeVector,
    EncodeVector,
    SerializeCase,
    SetterCase,
    UrlSearchParamsCase,
)

from pctfuzz._internal.form import form_urldecode, form_urlencode
from pctfuzz._internal.reference import percent_decode, percent_decode_text, percent_encode
from pctfuzz._internal.sets import get_set


def _encode(vector: EncodeVector) -> str:
    return percent_encode(
        vector.input,
        vector.set_name,
        encoding=vector.encoding,
        space_as_plus=vector.space_as_plus,
    )


# --- table sizes: a lost row fails loudly ------------------------------------------------


def test_table_sizes() -> None:
    assert len(SEED_002_ENCODE) + len(SEED_002_DECODE) == 5
    assert len(WPT_PERCENT_ENCODING) == 6
    assert sum(len(c.outputs) for c in WPT_PERCENT_ENCODING) == 14  # 6 utf-8 + 8 legacy
    assert len(WPT_URLENCODED_PARSER) == 35
    assert len(WPT_SERIALIZE_PAIRS) == 25
    assert len(WPT_PARSE_THEN_SERIALIZE) == 7
    assert len(WPT_URL_SEARCH_PARAMS) == 2
    counts = {a: sum(c.attribute == a for c in WPT_SETTERS) for a in ("search", "hash", "pathname")}
    assert counts == {"search": 9, "hash": 17, "pathname": 19}
    assert len(SEED_000_EXAMPLES) == 7


# --- seed 002: RFC 3986 card -------------------------------------------------------------


@pytest.mark.parametrize("vector", SEED_002_ENCODE, ids=lambda v: v.input)
def test_seed_002_encode(vector: EncodeVector) -> None:
    assert _encode(vector) == vector.expected


@pytest.mark.parametrize("vector", SEED_002_DECODE, ids=lambda v: v.input)
def test_seed_002_decode(vector: DecodeVector) -> None:
    assert percent_decode_text(vector.input) == vector.expected
    # "percent-decode ... -> 'é'": and back again (round trip).
    assert percent_encode(vector.expected, "rfc3986-unreserved") == vector.input


# --- WPT percent-encoding.json -----------------------------------------------------------

_PERCENT_ENCODING_COLUMNS = [
    pytest.param(case.input, label, expected, id=f"{label}-{case.input!a}")
    for case in WPT_PERCENT_ENCODING
    for label, expected in case.outputs
]


@pytest.mark.parametrize(("text", "label", "expected"), _PERCENT_ENCODING_COLUMNS)
def test_wpt_percent_encoding(text: str, label: str, expected: str) -> None:
    if label == "utf-8":
        # WPT checks this column as a.hash: UTF-8 percent-encode, fragment set.
        assert percent_encode(text, "fragment") == expected
    else:
        # a.search of a document in `label`: percent-encode after encoding, special-query.
        assert percent_encode(text, "special-query", encoding=label) == expected


# --- seed 000: URL Standard examples table (current wording) ----------------------------


@pytest.mark.parametrize("vector", SEED_000_EXAMPLES, ids=lambda v: f"{v.encoding}-{v.set_name}")
def test_seed_000_examples(vector: EncodeVector) -> None:
    assert _encode(vector) == vector.expected


def test_seed_000_form_set_with_and_without_plus() -> None:
    text = "1+1 \u2261 2%20\u203d"
    # spaceAsPlus false with the same set: only the spaces differ.
    assert percent_encode(text, "form", encoding="shift_jis") == (
        "1%2B1%20%81%DF%202%2520%26%238253%3B"
    )


# --- seed 001: data URI and query-value recipes ------------------------------------------


def test_seed_001_svg_data_uri() -> None:
    assert SEED_001_DATA_URI_PREFIX + percent_encode(SEED_001_SVG, "data-uri") == (
        SEED_001_DATA_URI
    )


def test_seed_001_data_uri_is_encode_uri_then_hash() -> None:
    # `encodeURI(rectSVG).replaceAll('#', '%23')`
    encoded = percent_encode(SEED_001_SVG, "encodeURI").replace("#", "%23")
    assert SEED_001_DATA_URI_PREFIX + encoded == SEED_001_DATA_URI


def test_seed_001_mirror_polygon_uri() -> None:
    # `?v=${encodeQueryValue(vertices)}&i=${encodeQueryValue(style)}&h=6`
    query = (
        "?v="
        + percent_encode(SEED_001_VERTICES, "query-value")
        + "&i="
        + percent_encode(SEED_001_STYLE, "query-value")
        + "&h=6"
    )
    assert SEED_001_QUERY_PREFIX + query == SEED_001_MIRROR_POLYGON_URI


def test_seed_001_encode_query_value_recipe() -> None:
    # encodeQueryValue: encodeURI, then # & + -> %23 %26 %2B and %20 -> "+".
    # The regex runs on encodeURI output, where "%20" can only come from a space.
    replacements = {"#": "%23", "&": "%26", "+": "%2B", "%20": "+"}
    for value in (SEED_001_VERTICES, SEED_001_STYLE, "a b&c+d#e%20f"):
        recipe = re.sub(
            r"[#&+]|%20", lambda m: replacements[m.group()], percent_encode(value, "encodeURI")
        )
        assert percent_encode(value, "query-value") == recipe


def test_seed_001_js_facts() -> None:
    # encodeURIComponent leaves exactly uriUnescaped; encodeURI adds uriReserved and "#".
    assert get_set("encodeURIComponent").printable_safe == "".join(
        sorted(JS_ENCODE_URI_COMPONENT_UNESCAPED)
    )
    assert get_set("encodeURI").printable_safe == "".join(sorted(JS_ENCODE_URI_UNESCAPED))
    # URL Standard note: the component set "gives identical results to encodeURIComponent".
    sample = "a b!'()*-._~;/?:@&=+$,#[]%\u00e9\U0001f4a9\x00"
    assert percent_encode(sample, "component") == percent_encode(sample, "encodeURIComponent")
    assert percent_encode(sample, "encodeURIComponent") == (
        "a%20b!'()*-._~%3B%2F%3F%3A%40%26%3D%2B%24%2C%23%5B%5D%25%C3%A9%F0%9F%92%A9%00"
    )
    assert percent_encode(sample, "encodeURI") == (
        "a%20b!'()*-._~;/?:@&=+$,#%5B%5D%25%C3%A9%F0%9F%92%A9%00"
    )


# --- WPT urlencoded-parser ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    WPT_URLENCODED_PARSER,
    ids=lambda x: ascii(x) if isinstance(x, str) else "",
)
def test_wpt_urlencoded_parser(text: str, expected: tuple[tuple[str, str], ...]) -> None:
    # The whole list: same pairs, same order, same count.
    assert form_urldecode(text) == list(expected)
    # new URLSearchParams(string) parses the UTF-8 bytes of the string: same answer.
    assert form_urldecode(text.encode("utf-8")) == list(expected)


# --- WPT urlsearchparams-stringifier -----------------------------------------------------


@pytest.mark.parametrize("case", WPT_SERIALIZE_PAIRS, ids=lambda c: c.expected)
def test_wpt_stringifier_serialize_pairs(case: SerializeCase) -> None:
    assert form_urlencode(case.pairs) == case.expected


@pytest.mark.parametrize(("test", "text", "expected"), WPT_PARSE_THEN_SERIALIZE)
def test_wpt_stringifier_parse_then_serialize(test: str, text: str, expected: str) -> None:
    assert form_urlencode(form_urldecode(text)) == expected


@pytest.mark.parametrize("case", WPT_URL_SEARCH_PARAMS, ids=lambda c: c.test)
def test_wpt_stringifier_url_search_params(case: UrlSearchParamsCase) -> None:
    # The query as the URL parser stores it is the special-query percent-encode of the
    # text after "?" ("http" is special); the carried-over href must agree with it.
    if case.query is not None:
        assert case.url == case.href_before_query + "?" + percent_encode(
            case.query, "special-query"
        )
    else:
        assert case.url == case.href_before_query
    params = form_urldecode(case.query) if case.query is not None else []
    href = case.url
    for step in case.steps:
        if step.append is not None:
            params.append(step.append)
            # URLSearchParams "update steps": the URL's query becomes the serialization.
            href = case.href_before_query + "?" + form_urlencode(params)
        if step.expect_params is not None:
            assert form_urlencode(params) == step.expect_params
        if step.expect_url_href is not None:
            assert href == step.expect_url_href


# --- WPT setters_tests.json: search, hash, pathname ---------------------------------------


def _scheme_is_special(href: str) -> bool:
    return href.split(":", 1)[0].lower() in SPECIAL_SCHEMES


def _remove_tab_newline(value: str) -> str:
    # URL Standard 4.4: the basic URL parser removes all ASCII tab or newline first.
    return value.replace("\t", "").replace("\n", "").replace("\r", "")


def setter_getter(case: SetterCase) -> str:
    """The attribute's getter after the setter ran, for the admitted cases (vectors.py)."""
    special = _scheme_is_special(case.href)
    value = case.new_value
    if case.attribute == "search":
        # "Let input be the given value with a single leading U+003F (?) removed, if any";
        # query state: special-query set if the URL is special, else the query set.
        value = _remove_tab_newline(value.removeprefix("?"))
        query = percent_encode(value, "special-query" if special else "query")
        return "?" + query if query else ""
    if case.attribute == "hash":
        # Leading "#" removed; fragment state: the fragment set.
        fragment = percent_encode(_remove_tab_newline(value.removeprefix("#")), "fragment")
        return "#" + fragment if fragment else ""
    assert case.attribute == "pathname"
    # Path start state consumes one leading "/" (or "\" for special URLs); path state
    # encodes each segment with the path set and joins them with "/" ("\" is a
    # delimiter, i.e. "/", only for special URLs; neither is in the path set).
    value = _remove_tab_newline(value)
    if special:
        value = value.replace("\\", "/")
    return "/" + percent_encode(value.removeprefix("/"), "path")


@pytest.mark.parametrize(
    "case",
    WPT_SETTERS,
    ids=lambda c: f"{c.attribute}-{c.href}-{c.new_value!a}",
)
def test_wpt_setters(case: SetterCase) -> None:
    assert setter_getter(case) == case.expected


def test_wpt_setters_cover_both_scheme_kinds() -> None:
    for attribute in ("search", "hash", "pathname"):
        kinds = {_scheme_is_special(c.href) for c in WPT_SETTERS if c.attribute == attribute}
        assert kinds == {True, False}, attribute


# --- percent-decoding what the tables encoded ---------------------------------------------


def test_utf8_columns_round_trip() -> None:
    for case in WPT_PERCENT_ENCODING:
        for label, expected in case.outputs:
            if label == "utf-8":
                assert percent_decode(expected) == case.input.encode("utf-8")
