"""Built-in adapters for httpx, tornado, Django, starlette and furl (issue 16).

For each: Hypothesis finds it in agreement with the reference outside its registry,
its pinned examples still diverge and are accepted, and ``pctfuzz probe`` on the
library's own function gives the set spec the adapter declares.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pctfuzz._internal import cli
from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks import strategies
from pctfuzz._internal.checks.differential import (
    check_decode,
    check_encode,
    check_form,
    check_form_parse,
)
from pctfuzz._internal.checks.probe import probe
from pctfuzz._internal.oracles import get_impl, impl_version
from pctfuzz._internal.sets import get_set

LIBS = ("httpx", "tornado", "django", "starlette", "furl")
#: Which of the four questions each adapter answers.
ANSWERS = {
    "httpx": ("encode", "form", "form-parse"),
    "tornado": ("encode", "decode", "form-parse"),
    "django": ("encode", "form", "form-parse"),
    "starlette": ("encode", "form", "form-parse"),
    "furl": ("encode", "form", "form-parse"),
}


@pytest.mark.parametrize("name", LIBS)
def test_adapter_records_its_library_version(name: str) -> None:
    version = impl_version(get_impl(name))
    assert version.lower().startswith(name) and "not installed" not in version


#: Characters of a real bug (docs/in-the-wild.md), pinned by their own test below.
BUG_CHARS = {"httpx": "^'"}


@pytest.mark.parametrize("name", LIBS)
def test_agrees_on_every_declared_set(name: str) -> None:
    """UTF-8 scalar text (these APIs take text; a lone surrogate is refused by both
    sides) and bytes where the API takes them, each declared set and space convention."""
    impl = get_impl(name)
    sets = dict(impl.sets)  # type: ignore[attr-defined]
    spaces = tuple(impl.spaces) if hasattr(impl, "spaces") else (False, True)

    values: st.SearchStrategy[str | bytes] = strategies.scalar_text()
    if "bytes" in impl.value_types:  # type: ignore[attr-defined]
        values = st.one_of(values, strategies.binary_values())
    bug = BUG_CHARS.get(name, "")
    values = values.filter(lambda v: not isinstance(v, str) or not any(c in v for c in bug))

    @settings(max_examples=100)
    @given(st.sampled_from(sorted(sets.values())), values, st.sampled_from(spaces))
    def run(spec: str, value: str | bytes, plus: bool) -> None:
        check_encode(EncodeCase(value, get_set(spec).name, "UTF-8", plus), impl)

    run()


@pytest.mark.parametrize("name", [n for n in LIBS if "form" in ANSWERS[n]])
def test_form_serialization_agrees(name: str) -> None:
    impl = get_impl(name)

    @settings(max_examples=100)
    @given(strategies.form_cases())
    def run(case: FormCase) -> None:
        check_form(case, impl)

    run()


def _form_texts(name: str) -> st.SearchStrategy[str | bytes]:
    """Scalar text, and bytes: a str holding a lone surrogate is kept as is by every one
    of these parsers (urllib's parse_qsl underneath) where the reference writes U+FFFD,
    which only a Python caller can produce, so it is left out. starlette's bytes are
    ASCII: it decodes non-ASCII bytes as latin-1 (a bug, see the report)."""
    binary = strategies.binary_values()
    if name == "starlette":
        binary = binary.filter(bytes.isascii)
    return st.one_of(strategies.scalar_text(), binary)


@pytest.mark.parametrize("name", [n for n in LIBS if "form-parse" in ANSWERS[n]])
def test_form_parsing_agrees(name: str) -> None:
    impl = get_impl(name)

    @settings(max_examples=100)
    @given(_form_texts(name))
    def run(text: str | bytes) -> None:
        check_form_parse(FormParseCase(text), impl)

    run()


def test_tornado_decoding_agrees() -> None:
    impl = get_impl("tornado")

    """Scalar text and bytes: url_unescape(encoding=None) encodes a str as UTF-8, so a
    lone surrogate raises where the reference writes U+FFFD; left out (Python-only)."""

    @settings(max_examples=100)
    @given(st.one_of(strategies.scalar_text(), strategies.binary_values()))
    def run(value: str | bytes) -> None:
        check_decode(DecodeCase(value), impl)

    run()


@pytest.mark.parametrize("name", LIBS)
def test_pinned_examples_diverge_and_are_accepted(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["divergences", "--impl", name, "--check"]) == 0
    out = capsys.readouterr().out
    assert "every pinned example diverges and is accepted" in out


def _probes() -> list[tuple[str, str, Callable[[str], str]]]:
    import furl
    import httpx
    import starlette.datastructures
    import tornado.escape

    from pctfuzz._internal.oracles import django as django_adapter

    encoding, _, _ = django_adapter._configured()
    return [
        ("httpx", "query-value", lambda v: str(httpx.QueryParams([("", v)]))[1:]),
        ("tornado", "query", tornado.escape.url_escape),
        ("tornado", "path", lambda v: tornado.escape.url_escape(v, plus=False)),
        ("django", "iri", encoding.iri_to_uri),
        ("django", "path", encoding.escape_uri_path),
        ("starlette", "query-value",
         lambda v: str(starlette.datastructures.QueryParams([("", v)]))[1:]),
        ("furl", "query-value", lambda v: str(furl.Query().set([("a", v)]))[2:]),
        ("furl", "userinfo",
         lambda v: furl.furl("http://h/").set(username=v).netloc.rpartition("@")[0]),
        ("furl", "path-segment", lambda v: str(furl.furl("http://h/").set(path=[v]).path)[1:]),
        ("furl", "path", lambda v: str(furl.furl("http://h/").set(path="/" + v).path)[1:]),
        ("furl", "fragment", lambda v: str(furl.furl("http://h/").set(fragment=v).fragment)),
    ]


@pytest.mark.parametrize("index", range(7))
def test_probe_finds_the_declared_set(index: int) -> None:
    name, label, fn = _probes()[index]
    declared = get_impl(name).sets[label]  # type: ignore[attr-defined]
    assert probe(fn).spec == declared


#: httpx.URL per component (label, value, answer): its _urlparse.py quotes each with
#: the URL Standard set its comments name.
HTTPX_COMPONENTS = [
    ("path", "a b\"<>`{}|/%41\u00e9", "a%20b%22%3C%3E%60%7B%7D|/%41%C3%A9"),
    ("path", "a/./b/../c", "a/c"),  # dot segments removed (httpx-url-path-dot-segments)
    ("path", "/.", ""),  # ... as normalize_path does: no '/' kept after a last '.' (a
    ("path", "a/b/..", "a"),  # 90 s campaign's finding, where RFC 3986 5.2.4 keeps one)
    ("query", "a b\"<>`{}|?/", "a%20b%22%3C%3E`{}|?/"),
    ("fragment", "a b\"<>`#?", "a%20b%22%3C%3E%60#?"),
    ("userinfo", "a:b@c/d^", "a%3Ab%40c%2Fd%5E"),
]


@pytest.mark.parametrize(("label", "value", "answer"), HTTPX_COMPONENTS)
def test_httpx_answers_each_component(label: str, value: str, answer: str) -> None:
    impl = get_impl("httpx")
    spec = impl.sets[label]  # type: ignore[attr-defined]
    assert impl.encode(EncodeCase(value, get_set(spec).name)) == answer
    check_encode(EncodeCase(value, get_set(spec).name), impl)  # agrees, or accepted


@pytest.mark.xfail(strict=True, reason="httpx bug (docs/in-the-wild.md): its path set "
                   "predates whatwg/url#846 (^) and its query set is not special-query (')")
@pytest.mark.parametrize(("label", "value", "standard"),
                         [("path", "a^b", "a%5Eb"), ("query", "a'b", "a%27b")])
def test_httpx_sets_follow_the_url_standard(label: str, value: str, standard: str) -> None:
    impl = get_impl("httpx")
    assert impl.encode(EncodeCase(value, get_set(impl.sets[label]).name)) == standard  # type: ignore[attr-defined]


#: furl per component (label, value, answer): each quoted with its own safe characters;
#: a path or fragment string's valid-encoded segments requoted (furl-path-requoted).
FURL_COMPONENTS = [
    ("path-segment", "a/b %41:@;=?#", "a%2Fb%20%2541:@;=%3F%23"),
    ("path", "a/b %41/%41%2f%e9/../", "a/b%20%2541/A%2F%EF%BF%BD/../"),
    ("fragment", "a/%3f/?b %41/%41", "a/?/?b%20%2541/A"),
    ("userinfo", "a b:@/%41", "a%20b%3A%40%2F%2541"),
]


@pytest.mark.parametrize(("label", "value", "answer"), FURL_COMPONENTS)
def test_furl_answers_each_component(label: str, value: str, answer: str) -> None:
    impl = get_impl("furl")
    case = EncodeCase(value, get_set(impl.sets[label]).name)  # type: ignore[attr-defined]
    assert impl.encode(case) == answer
    check_encode(case, impl)  # agrees, or accepted


def test_furl_path_entry_accepts_furls_requoting_only() -> None:
    """The entry states furl's requoting per segment: an encoder that also decodes the
    %2F inside a segment (requoting the whole path at once) is still a finding."""
    from pctfuzz._internal.oracles import furl as furl_adapter
    from pctfuzz._internal.violations import Divergence

    class WholePath(furl_adapter.FurlAdapter):
        def encode(self, case: EncodeCase) -> str:
            return super().encode(case).replace("%2F", "/")

    case = EncodeCase("%41%2F", "rfc3986-pchar-/")
    assert check_encode(case, get_impl("furl")) == ("furl-path-requoted",)
    with pytest.raises(Divergence):
        check_encode(case, WholePath())
