"""Built-in adapters for hyperlink and boltons.urlutils (issue 16).

For each: Hypothesis finds it in agreement with the reference outside its accepted
differences, its pinned examples still diverge and are accepted, and ``pctfuzz probe``
on the library's own function gives the set spec the adapter declares. The real bugs
(docs/in-the-wild.md) are kept out of the agreement tests and pinned by strict xfail
tests, which fail the day they are fixed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pctfuzz._internal.cases import DecodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks import differential, profile, strategies
from pctfuzz._internal.checks.probe import probe
from pctfuzz._internal.checks.registry import accepted_entries
from pctfuzz._internal.checks.registry.examples import check_entries
from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.oracles import get_impl, impl_version
from pctfuzz._internal.oracles.boltons import readable_route
from pctfuzz._internal.reference import percent_decode
from pctfuzz._internal.setspec import canonical_spec
from pctfuzz.testing import differential_tests

LIBS = ("hyperlink", "boltons")
QUESTIONS = ("encode", "decode", "form", "form_parse")
#: (adapter, question) whose agreement test draws its own cases below, to keep out a
#: real bug; the bug itself is pinned by an xfail test.
OWN_CASES = {("hyperlink", "decode"), ("boltons", "form")}


def _impl(name: str) -> Any:
    pytest.importorskip(name)
    return get_impl(name)


@pytest.mark.parametrize("name", LIBS)
def test_adapter_records_its_library_version(name: str) -> None:
    version = impl_version(_impl(name))
    assert version.startswith(f"{name} ") and "not installed" not in version


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("name", LIBS)
def test_agrees_outside_its_registry(name: str, question: str) -> None:
    if (name, question) in OWN_CASES:
        pytest.skip("drawn by its own test below")
    (test,) = differential_tests(_impl(name), questions=[question]).values()
    settings(max_examples=150, deadline=None)(test)()


@pytest.mark.parametrize("name", LIBS)
def test_pinned_examples_diverge_and_are_accepted(name: str) -> None:
    impl = _impl(name)
    results = check_entries(impl, accepted_entries(impl))
    assert len(results) >= 4 and all(r.ok for r in results), [r.line() for r in results]
    assert main(["divergences", "--impl", name, "--check"]) == ExitCode.OK


def _probes() -> list[tuple[str, str, Callable[[str], str]]]:
    from boltons import urlutils
    from hyperlink import URL, DecodedURL

    return [
        ("hyperlink", "DecodedURL",
         lambda v: DecodedURL().replace(query=[("a", v)]).to_text()[3:]),
        ("hyperlink", "to_uri path",
         lambda v: URL(scheme="http", path=("a", v)).to_uri().path[-1]),
        ("hyperlink", "to_uri fragment", lambda v: URL(fragment=v).to_uri().fragment),
        # the query value has the fragment's set (its & and # are refused instead)
        ("hyperlink", "to_uri fragment", lambda v: URL(query=[("a", v)]).to_uri().query[0][1]),
        *[("boltons", label, getattr(urlutils, label)) for label in (
            "quote_path_part", "quote_query_part", "quote_fragment_part", "quote_userinfo_part")],
    ]


@pytest.mark.parametrize("index", range(8))
def test_probe_finds_the_declared_set(index: int) -> None:
    pytest.importorskip("hyperlink")
    pytest.importorskip("boltons")
    name, label, fn = _probes()[index]
    report = probe(fn)
    assert canonical_spec(report.spec) == canonical_spec(get_impl(name).sets[label])
    assert report.normalization == "NFC"


# --- hyperlink: a newline in the fragment ------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(strategies.decode_cases().filter(
    lambda case: isinstance(case.value, str) and "\n" not in case.value))
def test_hyperlink_decodes_like_the_reference_without_newlines(case: DecodeCase) -> None:
    differential.check_decode(case, _impl("hyperlink"))


@pytest.mark.parametrize("value", ["a\nb", "ab\n"])  # odd lengths: DecodedURL.from_text
@pytest.mark.xfail(raises=differential.Divergence, strict=True,
                   reason="hyperlink bug: URL.from_text's fragment is '.*' without DOTALL: "
                          "'#a\\nb' raises URLParseError and '#a\\n' drops the newline")
def test_hyperlink_fragment_with_a_newline(value: str) -> None:
    differential.check_decode(DecodeCase(value), _impl("hyperlink"))


def test_hyperlink_decode_routes() -> None:
    """Odd lengths: DecodedURL, strict UTF-8 (the entry accepts its UnicodeDecodeError);
    even lengths: to_iri, which keeps %23 %5B %5D %25 and text that is not UTF-8."""
    impl = _impl("hyperlink")
    with pytest.raises(UnicodeDecodeError):
        impl.decode(DecodeCase("a%FF%"))
    differential.check_decode(DecodeCase("a%FF%"), impl)
    differential.check_form_parse(FormParseCase("a=%FF&b"), impl)
    assert impl.decode(DecodeCase("%C3%A9+")) == "é+".encode()
    assert impl.decode(DecodeCase("%23%41%5b%2F")) == b"%23A%5b/"
    assert impl.decode(DecodeCase("%FF%41")) == b"%FF%41"
    assert impl.decode(DecodeCase("a\n")) == b"a\n"  # URL(fragment=...) parses nothing


# --- boltons: QueryParamDict.to_text() leaves % raw ----------------------------------------
def _no_readable_percent(case: FormCase) -> bool:
    return not (readable_route(case) and any("%" in t for p in case.pairs for t in p))


_READABLE_TEXT = st.text(alphabet="aZ9*-._&=+#[]", max_size=6)


@settings(max_examples=150, deadline=None)
@given(st.one_of(strategies.form_cases(), st.lists(
    st.tuples(_READABLE_TEXT, _READABLE_TEXT), min_size=1, max_size=3).map(
    lambda pairs: FormCase(tuple(pairs)))).filter(_no_readable_percent))
def test_boltons_form_agrees_outside_its_bug(case: FormCase) -> None:
    """Both routes: to_text(full_quote=True) and, on its alphabet, to_text()."""
    differential.check_form(case, _impl("boltons"))


@pytest.mark.xfail(raises=differential.Divergence, strict=True,
                   reason="boltons bug: QueryParamDict.to_text() (full_quote=False) writes "
                          "'%' raw, so from_text(to_text()) turns the value '%41' into 'A'")
def test_boltons_readable_query_keeps_percent_raw() -> None:
    differential.check_form(FormCase((("a", "%41"),)), _impl("boltons"))


def test_boltons_url_to_text_round_trip_changes_data() -> None:
    """The same bug through the URL type: every part loses its %25 (in-the-wild.md)."""
    urlutils = pytest.importorskip("boltons.urlutils")
    url = urlutils.URL("http://h/p%2541?a=%2541#f%2541")
    assert url.to_text() == "http://h/p%41?a=%41#f%41"
    assert urlutils.URL(url.to_text()).path_parts != url.path_parts


@settings(max_examples=100, deadline=None)
@given(st.one_of(strategies.scalar_text(), strategies.binary_values()))
def test_boltons_unquote_to_bytes_is_exact(value: str | bytes) -> None:
    """Odd-length str and bytes go to unquote_to_bytes, which needs no entry at all."""
    impl = _impl("boltons")
    if isinstance(value, str) and len(value) % 2 == 0:
        value += "x"
    outcome = profile.run_impl("decode", DecodeCase(value), impl)
    assert outcome is not None and not outcome.raised
    assert outcome.value == percent_decode(value)


# --- tornado: arguments grouped by the name's bytes ----------------------------------------
_FIELDS = [b"\xdc", b"\xff", b"%FF", b"%C3%BC", b"\xc3\xbc", b"j", b"j=1", b"+=%2B", b""]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_FIELDS), max_size=6).map(b"&".join))
def test_tornado_groups_by_name_bytes(text: bytes) -> None:
    """Names that are not UTF-8 each decode to U+FFFD but are distinct dict keys (the
    grouping the 90 s campaign found; the entry models it exactly)."""
    differential.check_form_parse(FormParseCase(text), _impl("tornado"))


def test_tornado_keeps_two_invalid_names_apart() -> None:
    pairs = _impl("tornado").form_parse(FormParseCase(b"\xdc&j&\xff&j"))
    assert pairs == [("\ufffd", ""), ("j", ""), ("j", ""), ("\ufffd", "")]
