"""Built-in adapters for shipped URL libraries (issue 16): requests, werkzeug, urllib3,
rfc3986, w3lib. For each: agreement with the reference outside its accepted
differences on Hypothesis cases, its pinned examples still diverge and are accepted,
and ``pctfuzz probe`` on the library function finds the set the adapter declares."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings

from pctfuzz._internal.cases import EncodeCase, FormParseCase
from pctfuzz._internal.checks import differential
from pctfuzz._internal.checks.probe import load_encoder, probe
from pctfuzz._internal.checks.registry import accepted_entries
from pctfuzz._internal.checks.registry.examples import check_entries
from pctfuzz._internal.checks.strategies import form_parse_cases
from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.oracles import get_impl
from pctfuzz._internal.setspec import canonical_spec
from pctfuzz._internal.violations import Divergence
from pctfuzz.testing import differential_tests, encode_cases_for

#: adapter name -> (library function as probed, label in the adapter's ``sets``)
PROBED: dict[str, list[tuple[str, str]]] = {
    "requests": [("requests.utils:requote_uri", "requote_uri")],
    "rfc3986": [("pctfuzz._internal.oracles.rfc3986:Rfc3986Adapter", "encode_component")],
    "urllib3": [("pctfuzz._internal.oracles.urllib3:Urllib3Adapter", "parse_url path")],
    "w3lib": [("w3lib.url:safe_url_string", "safe_url_string"),
              ("pctfuzz._internal.oracles.w3lib:W3libAdapter", "special-query"),
              ("pctfuzz._internal.oracles.w3lib:W3libAdapter", "userinfo")],
    "werkzeug": [("werkzeug.urls:iri_to_uri", "iri_to_uri")],
}
#: (adapter, question) whose agreement test draws its own cases, to avoid a real bug
#: (reported to the lead, below); the bug itself is pinned by its own test.
OWN_CASES = {("urllib3", "encode"), ("werkzeug", "form_parse"), ("rfc3986", "encode")}
QUESTIONS = ("encode", "decode", "form", "form_parse")


def _impl(name: str) -> Any:
    pytest.importorskip(name.split("-")[0])
    return get_impl(name)


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("name", sorted(PROBED))
def test_agrees_outside_its_registry(name: str, question: str) -> None:
    if (name, question) in OWN_CASES:
        pytest.skip("drawn by its own test below")
    (test,) = differential_tests(_impl(name), questions=[question]).values()
    settings(max_examples=100, deadline=None)(test)()


@pytest.mark.parametrize("name", sorted(PROBED))
def test_pinned_examples_diverge_and_are_accepted(name: str, capsys: Any) -> None:
    impl = _impl(name)
    results = check_entries(impl, accepted_entries(impl))
    assert results and all(r.ok for r in results), [r.line() for r in results]
    assert main(["divergences", "--impl", name, "--check"]) == ExitCode.OK


@pytest.mark.parametrize(("name", "target", "label"),
                         [(n, t, lab) for n, items in sorted(PROBED.items())
                          for t, lab in items])
def test_probe_finds_the_declared_set(name: str, target: str, label: str) -> None:
    impl = _impl(name)
    fn, _ = load_encoder(target, impl.sets[label] if target.startswith("pctfuzz.") else None)
    assert canonical_spec(probe(fn, target).spec) == canonical_spec(impl.sets[label])


# --- werkzeug: Request.args on a query string that is not UTF-8 -------------------------
def _utf8_text(case: FormParseCase) -> bool:
    text = case.text
    if isinstance(text, str):
        return True
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@settings(max_examples=100, deadline=None)
@given(form_parse_cases().filter(_utf8_text))
def test_werkzeug_args_agree_on_utf8_query_strings(case: FormParseCase) -> None:
    """Outside the raw non-UTF-8 bytes of the bug below, Request.args agrees."""
    differential.check_form_parse(case, _impl("werkzeug"))


@pytest.mark.xfail(raises=Divergence, strict=True,
                   reason="werkzeug bug: Request.args raises UnicodeDecodeError on a raw "
                          "non-UTF-8 byte in QUERY_STRING (WHATWG URL 5.1: U+FFFD)")
def test_werkzeug_args_on_raw_non_utf8_bytes() -> None:
    differential.check_form_parse(FormParseCase(b"a=\xff"), _impl("werkzeug"))


# --- urllib3: parse_url on a lone surrogate ------------------------------------------------
def _avoids_urllib3_bugs(case: EncodeCase) -> bool:
    """No lone surrogate, and no lowercase %hh in a value that is not all escapes."""
    value = case.value
    if not isinstance(value, str) or any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        return False
    escapes = re.findall(r"%[0-9A-Fa-f]{2}", value)
    return len(escapes) == value.count("%") or all(e == e.upper() for e in escapes)


@settings(max_examples=100, deadline=None)
@given(encode_cases_for(["rfc3986-query"]).filter(_avoids_urllib3_bugs))
def test_urllib3_path_agrees_outside_its_bugs(case: EncodeCase) -> None:
    """Outside the two bugs below, parse_url's path agrees."""
    differential.check_encode(case, _impl("urllib3"))


@pytest.mark.xfail(raises=Divergence, strict=True,
                   reason="urllib3 bug: parse_url writes a lone surrogate as %ED%A0%80 "
                          "(surrogatepass), bytes that are not UTF-8 (WHATWG URL 1.3)")
def test_urllib3_path_of_a_lone_surrogate() -> None:
    differential.check_encode(EncodeCase("\ud800", "rfc3986-query"), _impl("urllib3"))


@pytest.mark.xfail(raises=Divergence, strict=True,
                   reason="urllib3 bug: in a path that is not all escapes, parse_url "
                          "uppercases %aa before encoding its %: the text %aa becomes %AA")
def test_urllib3_path_keeps_literal_lowercase_escapes() -> None:
    differential.check_encode(EncodeCase("%%aa", "rfc3986-query"), _impl("urllib3"))


# --- w3lib: safe_url_string per component ------------------------------------------------
#: (label, value, answer): a special scheme's query quotes "'"; the userinfo is unquoted
#: and quoted again (w3lib-userinfo-requoted); each agrees with the reference or an entry.
W3LIB_COMPONENTS = [
    ("special-query", "a b'\"<>`{}|/?%41%zz", "a%20b%27%22%3C%3E%60%7B%7D%7C/?%41%zz"),
    ("userinfo", "a b@;=!$&'()*+,%41%2f%zz", "a%20b%40%3B%3D!$&'()*+,A%2F%25zz"),
]


@pytest.mark.parametrize(("label", "value", "answer"), W3LIB_COMPONENTS)
def test_w3lib_answers_each_component(label: str, value: str, answer: str) -> None:
    impl = _impl("w3lib")
    case = EncodeCase(value, impl.sets[label])
    assert impl.encode(case) == answer
    differential.check_encode(case, impl)


# --- rfc3986: URIBuilder.add_credentials leaves "/" raw (docs/in-the-wild.md) -------------
def _avoids_rfc3986_bug(case: EncodeCase) -> bool:
    return not (case.set_name == "rfc3986-unreserved" and "/" in str(case.value))


@settings(max_examples=200, deadline=None)
@given(encode_cases_for(["encodeURI-[]", "rfc3986-unreserved"]).filter(_avoids_rfc3986_bug))
def test_rfc3986_encode_agrees_outside_its_bug(case: EncodeCase) -> None:
    differential.check_encode(case, _impl("rfc3986"))


def test_rfc3986_userinfo_is_add_credentials() -> None:
    impl = _impl("rfc3986")
    case = EncodeCase("a b:@%41~!", "rfc3986-unreserved")
    assert impl.encode(case) == "a%20b%3A%40%2541~%21"
    assert differential.check_encode(case, impl) == ()


@pytest.mark.xfail(strict=True, raises=Divergence,
                   reason="rfc3986 bug (docs/in-the-wild.md): add_credentials quotes with "
                   "urllib's default safe='/', so a '/' in a username ends the authority")
def test_rfc3986_userinfo_encodes_slash() -> None:
    differential.check_encode(EncodeCase("u/evil", "rfc3986-unreserved"), _impl("rfc3986"))
