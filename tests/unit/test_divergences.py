"""The divergence registry (``pctfuzz._internal.checks.registry``), tested in both directions:

- every entry's pinned example still diverges today, and the entry accepts it, so an
  upstream change (a fix in urllib.parse, yarl or ada) makes a test fail and gets noticed;
- entries are narrow: an implementation with a *different* bug on the same kind of input
  is still reported (fake adapters below add one bug to a real one).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote, unquote_to_bytes

import pytest
from broken_impls import LosesLastChar

from pctfuzz._internal.accept.entry import explain as engine_explain
from pctfuzz._internal.cases import (
    Case,
    DecodeCase,
    EncodeCase,
    FormCase,
    FormParseCase,
    case_from_json,
)
from pctfuzz._internal.checks.differential import (
    check_decode,
    check_encode,
    check_form,
    check_form_parse,
)
from pctfuzz._internal.checks.registry import (
    CHECKS,
    DIVERGENCES,
    KnownDivergence,
    Outcome,
    case_text,
    divergences_for,
    explain,
    get_divergence,
    reference_outcome,
)
from pctfuzz._internal.checks.registry import ada as ada_entries
from pctfuzz._internal.checks.registry import csharp as csharp_entries
from pctfuzz._internal.checks.registry import curl as curl_entries
from pctfuzz._internal.checks.registry import elixir as elixir_entries
from pctfuzz._internal.checks.registry import engines as engine_entries
from pctfuzz._internal.checks.registry import erlang as erlang_entries
from pctfuzz._internal.checks.registry import glib as glib_entries
from pctfuzz._internal.checks.registry import go as go_entries
from pctfuzz._internal.checks.registry import haskell as haskell_entries
from pctfuzz._internal.checks.registry import java as java_entries
from pctfuzz._internal.checks.registry import lua as lua_entries
from pctfuzz._internal.checks.registry import nim as nim_entries
from pctfuzz._internal.checks.registry import node as node_entries
from pctfuzz._internal.checks.registry import perl as perl_entries
from pctfuzz._internal.checks.registry import php as php_entries
from pctfuzz._internal.checks.registry import qt as qt_entries
from pctfuzz._internal.checks.registry import r as r_entries
from pctfuzz._internal.checks.registry import ruby as ruby_entries
from pctfuzz._internal.checks.registry import tcl as tcl_entries
from pctfuzz._internal.checks.registry import urllib as urllib_entries
from pctfuzz._internal.checks.registry import urllib_legacy as urllib_legacy_entries
from pctfuzz._internal.checks.registry import yarl as yarl_entries
from pctfuzz._internal.checks.registry.examples import example_outcomes
from pctfuzz._internal.checks.registry.render import render_markdown
from pctfuzz._internal.cli import main
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.oracles import IMPLS, get_impl, registry_names
from pctfuzz._internal.oracles.peer import PeerUnavailable
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter, UrllibUnquoteAdapter
from pctfuzz._internal.oracles.yarl_quoting import YarlAdapter
from pctfuzz._internal.sets import FORM
from pctfuzz._internal.violations import Divergence

IDS = [entry.id for entry in DIVERGENCES]


@pytest.fixture(params=DIVERGENCES, ids=IDS)
def entry(request: pytest.FixtureRequest) -> KnownDivergence:
    result: KnownDivergence = request.param
    try:
        get_impl(result.impl)
    except PeerUnavailable as exc:  # a peer whose runtime or build is missing here
        pytest.skip(f"{exc} (make peers)")
    return result


# --- every entry, pinned -------------------------------------------------------------------
def test_pinned_example_still_diverges_and_is_accepted(entry: KnownDivergence) -> None:
    expected, actual = example_outcomes(entry)
    impl = get_impl(entry.impl)
    if not entry.active():
        # Fixed upstream in this version: the divergence must really be gone.
        assert expected.same(actual), f"{entry.id} is inactive but still diverges"
        return
    assert not expected.same(actual), (
        f"{entry.id}: the divergence disappeared ({expected.describe()}); "
        "did the implementation change? update or remove the entry"
    )
    assert entry.applies(entry.example)
    accepted = explain(entry.check, registry_names(impl), entry.example, expected, actual)
    assert accepted is not None and entry.id in accepted
    # And the shared differential check accepts it with this entry.
    checks: dict[str, Callable[..., tuple[str, ...] | None]] = {
        "encode": check_encode,
        "decode": check_decode,
        "form": check_form,
        "form-parse": check_form_parse,
    }
    result = checks[entry.check](entry.example, impl)
    assert result is not None and entry.id in result


def test_entry_is_complete(entry: KnownDivergence) -> None:
    assert entry.impl in IMPLS
    assert entry.check in CHECKS
    for text in (entry.summary, entry.reference, entry.implementation, entry.citation, entry.why):
        assert text.strip()
    assert entry.id.startswith(entry.impl.split("-")[0] + "-")
    # The example is a real, replayable case.
    assert case_from_json(entry.example.to_json()) == entry.example
    assert type(entry.example).type == {
        "encode": "encode",
        "decode": "decode",
        "form": "form",
        "form-parse": "form-parse",
    }[entry.check]


def test_ids_are_unique_and_found() -> None:
    assert len(set(IDS)) == len(IDS)
    assert get_divergence(IDS[0]) is DIVERGENCES[0]
    with pytest.raises(PctfuzzError, match="unknown divergence"):
        get_divergence("nope")


def test_filters() -> None:
    assert {d.impl for d in divergences_for("yarl")} == {"yarl"}
    assert {d.check for d in divergences_for(check="decode")} == {"decode"}
    both = divergences_for(["urllib", "urllib-unquote"], "form")
    assert {d.impl for d in both} == {"urllib", "urllib-unquote"}
    assert len(divergences_for()) == len(DIVERGENCES)


def test_parse_qsl_bytes_entry_follows_the_python_version() -> None:
    entry = get_divergence("urllib-parse-qsl-bytes-ascii-only")
    import sys

    v = sys.version_info
    assert entry.active() == (v < (3, 11, 9) or (3, 12) <= v < (3, 12, 3))


# --- narrowness: a different bug on the same input is still reported ----------------------
class TildeAndLowercase(UrllibAdapter):
    """urllib, but hex digits in lowercase."""

    name = "urllib-lowercase"
    registry_names = ("urllib-lowercase", "urllib")

    def encode(self, case: EncodeCase) -> str:
        return re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), super().encode(case))


class WrongSafeForLegacy(UrllibAdapter):
    """urllib with safe='' whatever the set (wrong for special-query)."""

    name = "urllib-wrong-safe"
    registry_names = ("urllib-wrong-safe", "urllib")

    def encode(self, case: EncodeCase) -> str:
        assert isinstance(case.value, str)
        return quote(case.value, safe="", encoding="windows-1252", errors="xmlcharrefreplace")


class SurrogateAndMore(UrllibAdapter):
    """parse_qsl, plus a stray extra surrogate / a wrong value."""

    name = "urllib-extra"
    registry_names = ("urllib-extra", "urllib")

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        pairs = super().form_parse(case)
        return [(n + "\udfff", v) for n, v in pairs]


class RaisesOtherError(UrllibAdapter):
    name = "urllib-typeerror"
    registry_names = ("urllib-typeerror", "urllib")

    def encode(self, case: EncodeCase) -> str:
        raise TypeError("boom")

    def decode(self, case: DecodeCase) -> bytes:
        if isinstance(case.value, str) and any(0xD800 <= ord(c) < 0xE000 for c in case.value):
            raise TypeError("boom")
        return unquote_to_bytes(case.value)


class YarlAmpersand(YarlAdapter):
    """yarl's query API, but with & left unencoded too."""

    name = "yarl-amp"
    registry_names = ("yarl-amp", "yarl")

    def form_serialize(self, case: FormCase) -> str:
        return super().form_serialize(case).replace("%26", "&")


class UnquoteDropsSurrogates(UrllibUnquoteAdapter):
    name = "urllib-unquote-drop"
    registry_names = ("urllib-unquote-drop", "urllib-unquote", "urllib")

    def decode(self, case: DecodeCase) -> bytes:
        value = case.value
        if isinstance(value, str):
            value = "".join(c for c in value if not 0xD800 <= ord(c) < 0xE000)
        return super().decode(DecodeCase(value))


@pytest.mark.parametrize(
    ("impl", "check", "case"),
    [
        (TildeAndLowercase(), check_encode, EncodeCase("~\x7f", FORM.name)),
        (TildeAndLowercase(), check_encode, EncodeCase("é~", FORM.name)),
        (LosesLastChar(), check_encode, EncodeCase("a~", FORM.name)),
        (LosesLastChar(), check_form, FormCase((("~", "~a"),))),
        (LosesLastChar(), check_encode, EncodeCase("\u0100a", "special-query", "windows-1252")),
        (WrongSafeForLegacy(), check_encode, EncodeCase("\u0100/", "special-query", "latin1")),
        (SurrogateAndMore(), check_form_parse, FormParseCase("\ud800=1")),
        (RaisesOtherError(), check_encode, EncodeCase("\ud800", "component")),
        (RaisesOtherError(), check_decode, DecodeCase("\ud800")),
        (YarlAmpersand(), check_form, FormCase((("/&", "?"),))),
        (UnquoteDropsSurrogates(), check_decode, DecodeCase("\ud800%41")),
    ],
    ids=lambda value: getattr(value, "name", None) or type(value).__name__,
)
def test_entries_do_not_mask_other_bugs(impl: object, check: object, case: object) -> None:
    with pytest.raises(Divergence):
        check(case, impl)  # type: ignore[operator]


def test_two_entries_explain_one_case_together() -> None:
    # urlencode(quote_via=quote): space as %20 AND ~ unencoded, in one value.
    assert check_form(FormCase((("a b~", ""),)), "urllib-unquote") == (
        "urllib-urlencode-tilde",
        "urllib-urlencode-quote-via-quote",
    )
    # yarl drops the surrogate AND leaves / unencoded.
    assert check_form(FormCase((("/\ud800", ""),)), "yarl") == (
        "yarl-query-drops-lone-surrogates",
        "yarl-query-part-safe",
    )
    # Python's codec for GBK (no €) AND urllib's ~, in the form set.
    assert check_encode(EncodeCase("€~", FORM.name, "GBK"), "urllib") == (
        "urllib-quote-python-codec",
        "urllib-quote-tilde",
    )


def test_entries_leave_agreeing_cases_alone() -> None:
    assert check_encode(EncodeCase("abc", FORM.name), "urllib") == ()
    expected = reference_outcome("encode", EncodeCase("abc", FORM.name))
    assert explain("encode", ("urllib",), EncodeCase("abc", FORM.name), expected, expected) is None


def test_outcome_comparison() -> None:
    assert Outcome("a").same(Outcome("a"))
    assert not Outcome("a").same(Outcome(b"a"))
    assert Outcome(error=ValueError("x")).same(Outcome(error=ValueError("y")))
    assert not Outcome(error=ValueError("x")).same(Outcome(error=UnicodeError("x")))
    assert not Outcome(None).same(Outcome(error=ValueError()))
    assert Outcome(error=KeyError("k")).describe().startswith("raises KeyError")


# --- rendering -----------------------------------------------------------------------------
def test_render_markdown_lists_every_entry() -> None:
    table = render_markdown()
    lines = table.splitlines()
    assert lines[0].startswith("| id | impl | check |")
    assert len(lines) == 2 + len(DIVERGENCES)
    for entry in DIVERGENCES:
        assert f"`{entry.id}`" in table
    only = render_markdown("ada")
    assert "`ada-search-params-invalid-utf8`" in only and "`urllib-quote-tilde`" not in only


def test_render_markdown_with_outcomes_shows_both_answers() -> None:
    table = render_markdown("urllib", outcomes=True)
    assert "'%7E'" in table and "'~'" in table


def test_case_text() -> None:
    assert case_text(EncodeCase("~", FORM.name)) == (
        "encode('~', set='application/x-www-form-urlencoded')"
    )
    assert case_text(EncodeCase("a", "path", "GBK", True)) == (
        "encode('a', set='path', encoding='GBK', space_as_plus=True)"
    )
    assert case_text(DecodeCase(b"%FF")) == "decode(b'%FF')"
    assert case_text(FormCase((("a", "b"),), "Big5")) == "form([('a', 'b')], encoding='Big5')"
    assert case_text(FormParseCase("\ud800")) == "form_parse('\\ud800')"


def test_cli_divergences(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["divergences"]) == 0
    out = capsys.readouterr().out
    for entry in DIVERGENCES:
        assert entry.id in out

    assert main(["divergences", "--impl", "yarl-c", "-v"]) == 0
    out = capsys.readouterr().out
    assert "yarl-query-part-safe" in out and "citation:" in out and "urllib-" not in out

    assert main(["divergences", "--impl", "urllib-unquote", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| id |")
    assert "`urllib-urlencode-quote-via-quote`" in out and "`urllib-quote-tilde`" in out

    assert main(["divergences", "--impl", "nope"]) == 2
    assert "unknown implementation" in capsys.readouterr().err


# --- the registry's assembly (checks/registry/: one module per library) ---------------------
#: Each library module and the adapter family its entries are written for.
_FAMILIES = {
    urllib_entries: {"urllib", "urllib-unquote"},
    urllib_legacy_entries: {"urllib"},
    yarl_entries: {"yarl", "yarl-c", "yarl-requote"},
    ada_entries: {"ada"},
    node_entries: {"node", "node-querystring", "whatwg-url"},
    go_entries: {"go-queryescape", "go-pathescape", "go-values", "go-url-path",
               "go-url-query"},
    java_entries: {"java-urlencoder", "java-uri"},
    php_entries: {"php-urlencode", "php-http-query"},
    ruby_entries: {"ruby-www-form-component", "ruby-cgi", "ruby-www-form"},
    perl_entries: {"perl-uri-escape", "perl-uri-query"},
    curl_entries: {"curl-url"},
    engine_entries: {"bun", "bun-url", "deno", "deno-url"},
    tcl_entries: {"tcl-http"},
    r_entries: {"r-urlencode"},
    lua_entries: {"lua-socket-url"},
    haskell_entries: {"haskell-network-uri"},
    nim_entries: {"nim-uri", "nim-uri-plus"},
    qt_entries: {"qt-qurl", "qt-qurlquery"},
    erlang_entries: {"erlang-uri-string", "erlang-uri-string-query",
                     "erlang-uri-string-recompose"},
    elixir_entries: {"elixir-uri-www-form", "elixir-uri-query", "elixir-uri-query-rfc3986",
                     "elixir-uri-decode-query"},
    glib_entries: {"glib-uri-escape", "glib-uri-params", "glib-uri-parse-params"},
    csharp_entries: {"mono-uri", "mono-httputility", "mono-webutility"},
}


def test_every_library_module_is_in_the_registry_once() -> None:
    ids = [e.id for module in _FAMILIES for e in module.ENTRIES]
    assert sorted(ids) == sorted(IDS)


def test_each_library_module_holds_only_its_own_entries() -> None:
    for module, family in _FAMILIES.items():
        assert {e.impl for e in module.ENTRIES} <= family, module.__name__


def test_registry_order_is_by_phase_then_module_order() -> None:
    # Within a phase, an entry keeps its place in its module: reconcile order (and so
    # explain's ids) depends on it, e.g. urllib-unquote-text before the variant's model.
    for module in _FAMILIES:
        own = [e.id for e in module.ENTRIES]
        assert [i for i in IDS if i in own] == [
            e.id for e in sorted(module.ENTRIES, key=lambda e: e.phase)]
    assert [e.phase for e in DIVERGENCES] == sorted(e.phase for e in DIVERGENCES)


def test_user_entries_reconcile_with_the_same_engine() -> None:
    # pctfuzz._internal.accept.entry.explain takes any entries: the built-in registry is one list
    # of them.
    case = EncodeCase("~", FORM.name)
    expected, actual = reference_outcome("encode", case), Outcome("~")
    assert explain("encode", ("urllib",), case, expected, actual) == ("urllib-quote-tilde",)
    assert engine_explain("encode", ("urllib",), case, expected, actual, ()) is None
    assert engine_explain("encode", ("urllib",), case, expected, actual,
                          (get_divergence("urllib-quote-tilde"),)) == ("urllib-quote-tilde",)


# --- the Haskell and Nim entries hold their rule, not the bugs beside it -------------------
@pytest.mark.parametrize(
    ("impl", "check", "case", "expected", "actual", "accepted"),
    [
        # unEscapeString: one U+FFFD per ill-formed sequence as its decoder reads it ...
        ("haskell-network-uri", "decode", DecodeCase("%ED%A0%80%41"), b"\xed\xa0\x80A",
         "\ufffdA".encode(), True),
        # ... never one per byte, nor a dropped sequence, nor a raw byte.
        ("haskell-network-uri", "decode", DecodeCase("%ED%A0%80%41"), b"\xed\xa0\x80A",
         "\ufffd\ufffd\ufffdA".encode(), False),
        ("haskell-network-uri", "decode", DecodeCase("%FF%41"), b"\xffA", b"A", False),
        ("haskell-network-uri", "decode", DecodeCase("%C3%A9"), b"\xc3\xa9",
         "\ufffd".encode(), False),
        # U+FFFF as U+FFFD (network-uri#51), but no other valid character.
        ("haskell-network-uri", "decode", DecodeCase("%EF%BF%BF"), b"\xef\xbf\xbf",
         "\ufffd".encode(), True),
        ("haskell-network-uri", "decode", DecodeCase("%EF%BF%BD%EF%BF%BC"),
         "\ufffd\ufffc".encode(), "\ufffd\ufffd".encode(), False),
        # encodeQuery's omitted '=' of a named empty value, not the lost ("", "") pair.
        ("nim-uri", "form", FormCase((("a", "1"), ("b", ""))), "a=1&b=", "a=1&b", True),
        ("nim-uri", "form", FormCase((("", ""), ("a", "1"))), "=&a=1", "a=1", False),
        ("nim-uri", "form", FormCase((("a", ""), ("", ""))), "a=&=", "a&", False),
        ("nim-uri", "form", FormCase((("a", "1"), ("b", ""))), "a=1&b=", "a=1b", False),
        # decodeUrl(s)'s '+' as a space; decodeUrl(s, decodePlus = false) has no entry.
        ("nim-uri-plus", "decode", DecodeCase("a+b"), b"a+b", b"a b", True),
        ("nim-uri", "decode", DecodeCase("a+b"), b"a+b", b"a b", False),
    ],
)
def test_haskell_and_nim_entries_both_ways(
    impl: str, check: str, case: object, expected: object, actual: object, accepted: bool
) -> None:
    names = (impl,)
    result = explain(check, names, case, Outcome(expected), Outcome(actual))  # type: ignore[arg-type]
    assert (result is not None) is accepted, result


def test_haskell_nonchar_entry_leaves_a_raw_noncharacter_alone() -> None:
    # unEscapeString decodes escapes only: a raw U+FFFE of the input stays U+FFFE.
    case = DecodeCase("\ufffe%EF%BF%BF%FF")
    expected = Outcome("\ufffe\uffff".encode() + b"\xff")
    assert explain("decode", ("haskell-network-uri",), case, expected,
                   Outcome("\ufffe\ufffd\ufffd".encode())) is not None
    assert explain("decode", ("haskell-network-uri",), case, expected,
                   Outcome("\ufffd\ufffd\ufffd".encode())) is None
# --- the Qt entries hold Qt's documented behaviour, not the bug beside it ------------------
@pytest.mark.parametrize(
    ("impl", "check", "case", "actual", "accepted"),
    [
        # fromPercentEncoding reads any two characters after '%' as hex digits ...
        ("qt-qurl", "decode", DecodeCase("%G5"), b"u", True),
        ("qt-qurl", "decode", DecodeCase("%G5"), b"W", False),  # the model is exact
        ("qt-qurl", "decode", DecodeCase("%zz"), "\ufffd".encode(), True),  # FA, not UTF-8
        ("qt-qurl", "decode", DecodeCase("%zz"), b"", False),
        # ... and answers text: one U+FFFD per byte, a leading BOM dropped ...
        ("qt-qurl", "decode", DecodeCase("%E2%82"), "\ufffd\ufffd".encode(), True),
        ("qt-qurl", "decode", DecodeCase("%E2%82"), "\ufffd".encode(), False),
        ("qt-qurl", "decode", DecodeCase("%EF%BB%BFa"), b"a", True),
        ("qt-qurl", "decode", DecodeCase("a%EF%BB%BF"), b"a", False),  # at the start only
        ("qt-qurl", "decode", DecodeCase("%C3%A9"), "\ufffd\ufffd".encode(), False),
        # ... but toPercentEncoding's '?' for a lone surrogate is the bug, no entry.
        ("qt-qurl", "encode", EncodeCase("\ud800", "rfc3986-unreserved"), "%3F", False),
        # QUrlQuery of toPercentEncoding'd names and values: %20, '~' raw, '*' encoded ...
        ("qt-qurlquery", "form", FormCase((("a b", "~*"),)), "a%20b=~%2A", True),
        ("qt-qurlquery", "form", FormCase((("a b", "~*"),)), "a%20b=~*", False),
        ("qt-qurlquery", "form", FormCase((("+", ""),)), "+=", False),  # '+' is encoded
        ("qt-qurlquery", "form", FormCase((("\ud800", "x"),)), "%3F=x", False),
        # ... its parser keeps '+', empty pairs but after a final '&', U+FFFD per byte ...
        ("qt-qurlquery", "form-parse", FormParseCase("a+b=1&&c"),
         [("a+b", "1"), ("", ""), ("c", "")], True),
        ("qt-qurlquery", "form-parse", FormParseCase("a&"), [("a", ""), ("", "")], False),
        ("qt-qurlquery", "form-parse", FormParseCase("a=%E2%82"),
         [("a", "\ufffd\ufffd")], True),
        ("qt-qurlquery", "form-parse", FormParseCase("a=%E2%82"), [("a", "%E2%82")], False),
        # ... an escaped noncharacter one U+FFFD per byte, a raw one kept ...
        ("qt-qurlquery", "form-parse", FormParseCase("a=%EF%BF%BF"),
         [("a", "\ufffd" * 3)], True),
        ("qt-qurlquery", "form-parse", FormParseCase("a=%EF%BF%BF"), [("a", "\ufffd")], False),
        ("qt-qurlquery", "form-parse", FormParseCase("a=\uffff"), [("a", "\ufffd" * 3)],
         False),
        # ... and a field with a lone '%' as written (TolerantMode), that field only.
        ("qt-qurlquery", "form-parse", FormParseCase("%41%=%41"), [("%41%", "A")], True),
        ("qt-qurlquery", "form-parse", FormParseCase("%41%=%41"), [("%41%", "%41")], False),
    ],
)
def test_qt_entries_both_ways(impl: str, check: str, case: Case, actual: object,
                              accepted: bool) -> None:
    expected = reference_outcome(check, case)
    assert not expected.same(Outcome(actual))  # a difference to explain, or not
    result = explain(check, (impl,), case, expected, Outcome(actual))
    assert (result is not None) is accepted, result


# --- the BEAM peers' entries written as code, both ways (no peer needed) ------------------
def _remote(name: str) -> Outcome:
    from pctfuzz._internal.oracles.peer import remote_error_type

    return Outcome(error=remote_error_type(name)("{error,...}"))


def _dissect(text: str, actual: Outcome) -> tuple[str, ...] | None:
    case = FormParseCase(text)
    return explain("form-parse", ("erlang-uri-string-query",), case,
                   reference_outcome("form-parse", case), actual)


def test_erlang_dissect_query_ncr_entry_states_base10_decode() -> None:
    # A character reference in a decoded value is the character; a malformed one the
    # error tuple dissect_query/1 returns.
    assert _dissect("a=%26%2365%3B", Outcome([("a", "A")])) is not None
    assert _dissect("a=x%26%23%3Bz", Outcome([("a", "x\x00z")])) is not None
    assert _dissect("a=%26%23x", _remote("invalid_input")) is not None
    # Not accepted: another character, a crash (function_clause on '&#' at the end), and
    # a raw '&#' that does not separate pairs.
    assert _dissect("a=%26%2365%3B", Outcome([("a", "B")])) is None
    assert _dissect("a=%26%23", _remote("function_clause")) is None
    assert _dissect("a&#65;=1", Outcome([("aA", "1")])) is None


def _decode_query(text: str, actual: list[tuple[str, str]]) -> tuple[str, ...] | None:
    case = FormParseCase(text)
    return explain("form-parse", ("elixir-uri-decode-query",), case,
                   reference_outcome("form-parse", case), Outcome(actual))


def test_elixir_decode_query_map_entry_keeps_the_last_value_by_name_bytes() -> None:
    assert _decode_query("b=1&a=2&b=3", [("a", "2"), ("b", "3")]) is not None
    assert _decode_query("a=1&&b", [("", ""), ("a", "1"), ("b", "")]) is not None
    # Names that are one U+FFFD once decoded are three keys of the map, in byte order
    # (EF BF BD, FE, FF).
    assert _decode_query("%FE=1&%FF=2&\ufffd=3",
                         [("\ufffd", "3"), ("\ufffd", "1"), ("\ufffd", "2")]) is not None
    # Not accepted: the first value kept, a pair lost, the input order.
    assert _decode_query("b=1&a=2&b=3", [("a", "2"), ("b", "1")]) is None
    assert _decode_query("b=1&a=2", [("b", "1")]) is None
    assert _decode_query("b=1&a=2", [("b", "1"), ("a", "2")]) is None


# --- the GLib entries: each refusal is exactly GLib's, on exactly its inputs ----------------
def _glib_error(type_name: str, message: str) -> Outcome:
    from pctfuzz._internal.oracles.peer import remote_error_type

    return Outcome(error=remote_error_type(type_name)(message))


def _glib(impl: str, check: str, case: DecodeCase | FormParseCase,
          actual: Outcome) -> tuple[str, ...] | None:
    return explain(check, (impl,), case, reference_outcome(check, case), actual)


@pytest.mark.parametrize(("case", "actual", "accepted"), [
    # g_uri_unescape_string's NULL and g_uri_unescape_bytes' error for a malformed escape ...
    (DecodeCase("a%zz"), _glib_error("NULL", "g_uri_unescape_string returned NULL"), True),
    (DecodeCase(b"a%4"), _glib_error("G_URI_ERROR_FAILED", "Invalid %-encoding in URI"), True),
    # ... not for a well-formed one, nor another error, nor a wrong decode of it.
    (DecodeCase("a%41"), _glib_error("NULL", "g_uri_unescape_string returned NULL"), False),
    (DecodeCase("a%zz"), _glib_error("SIGSEGV", "died"), False),
    (DecodeCase("a%zz"), Outcome(b"a"), False),
    # %00: NULL from g_uri_unescape_string, never from g_uri_unescape_bytes (it decodes it).
    (DecodeCase("a%00"), _glib_error("NULL", "g_uri_unescape_string returned NULL"), True),
    (DecodeCase(b"a%00"), _glib_error("NULL", "g_uri_unescape_string returned NULL"), False),
    (DecodeCase("a%00"), Outcome(b"a"), False),
])
def test_glib_unescape_entries_both_ways(case: DecodeCase, actual: Outcome,
                                         accepted: bool) -> None:
    assert (_glib("glib-uri-escape", "decode", case, actual) is not None) is accepted


_MISSING = "Missing \u2018=\u2019 and parameter value"


@pytest.mark.parametrize(("text", "actual", "accepted"), [
    # Each refusal with its own message, where the iterator stops with it.
    ("a=1&b", _glib_error("G_URI_ERROR_FAILED", _MISSING), True),
    ("a=1&&b=2", _glib_error("G_URI_ERROR_FAILED", _MISSING), True),
    ("a=%zz&b", _glib_error("G_URI_ERROR_FAILED", "Invalid %-encoding in URI"), True),
    ("a=%FF", _glib_error("G_URI_ERROR_FAILED", "Non-UTF-8 characters in URI"), True),
    ("a=%00", _glib_error("G_URI_ERROR_FAILED", "Non-UTF-8 characters in URI"), True),
    # The name is decoded before the value; a malformed escape is found before the
    # UTF-8 check of its part.
    ("%FF=%zz", _glib_error("G_URI_ERROR_FAILED", "Non-UTF-8 characters in URI"), True),
    ("%FF%zz=1", _glib_error("G_URI_ERROR_FAILED", "Invalid %-encoding in URI"), True),
    # Not accepted: another message, an error where the text parses (a final '&' ends
    # the iteration), pairs dropped instead of the refusal.
    ("a=1&b", _glib_error("G_URI_ERROR_FAILED", "Invalid %-encoding in URI"), False),
    ("%FF=%zz", _glib_error("G_URI_ERROR_FAILED", "Invalid %-encoding in URI"), False),
    ("a=1&", _glib_error("G_URI_ERROR_FAILED", _MISSING), False),
    ("a=1&b", Outcome([("a", "1")]), False),
])
def test_glib_params_entries_both_ways(text: str, actual: Outcome, accepted: bool) -> None:
    assert (_glib("glib-uri-params", "form-parse", FormParseCase(text), actual)
            is not None) is accepted


# --- the Mono entries hold their rule, not the bugs beside it -------------------------------
def _mono(impl: str, check: str, case: EncodeCase | DecodeCase | FormParseCase,
          actual: Outcome) -> tuple[str, ...] | None:
    return explain(check, (impl,), case, reference_outcome(check, case), actual)


_BAD_SEQUENCE = "Invalid URI: There is an invalid sequence in the string."


@pytest.mark.parametrize(("impl", "check", "case", "actual", "accepted"), [
    # EscapeDataString: a high surrogate at the end throws, a lone low one is U+FFFD ...
    ("mono-uri", "encode", EncodeCase("a\ud800", "rfc3986-unreserved"),
     _glib_error("UriFormatException", _BAD_SEQUENCE), True),
    ("mono-uri", "encode", EncodeCase("a\udc80b", "rfc3986-unreserved"),
     Outcome("a%EF%BF%BDb"), True),
    # ... never the surrogate's own bytes, nor a low one taking the next unit with it, nor
    # a dropped one.
    ("mono-uri", "encode", EncodeCase("a\ud800", "rfc3986-unreserved"), Outcome("a%ED%A0%80"),
     False),
    ("mono-uri", "encode", EncodeCase("a\udc80b", "rfc3986-unreserved"),
     Outcome("a%EF%BF%BD%62"), False),
    ("mono-uri", "encode", EncodeCase("a\udc80b", "rfc3986-unreserved"), Outcome("ab"), False),
    # UnescapeDataString: invalid UTF-8 stays escaped, uppercase; valid bytes are decoded.
    ("mono-uri", "decode", DecodeCase("%C3%A9%e9"), Outcome("\u00e9%E9".encode()), True),
    ("mono-uri", "decode", DecodeCase("%C3%A9%e9"), Outcome("\u00e9\ufffd".encode()), False),
    ("mono-uri", "decode", DecodeCase("%C3%A9%e9"), Outcome(b"%C3%A9%E9"), False),
    # HttpUtility.UrlEncode's lowercase hex, not another set.
    ("mono-httputility", "encode", EncodeCase("a/\u00e9", "component+'~", "UTF-8", True),
     Outcome("a%2f%c3%a9"), True),
    ("mono-httputility", "encode", EncodeCase("a/\u00e9", "component+'~", "UTF-8", True),
     Outcome("a/%c3%a9"), False),
    ("mono-webutility", "encode", EncodeCase("a/\u00e9", "component+'~", "UTF-8", True),
     Outcome("a%2f%c3%a9"), False),
    # UrlDecode: '+' a space, invalid UTF-8 one to n U+FFFD per invalid run of n bytes.
    ("mono-webutility", "decode", DecodeCase("a+%ED%A0%80b"), Outcome("a \ufffd\ufffdb".encode()),
     True),
    ("mono-webutility", "decode", DecodeCase("%FF%41"), Outcome("\ufffdA".encode()), True),
    ("mono-webutility", "decode", DecodeCase("%FF%41"), Outcome(b"A"), False),
    ("mono-webutility", "decode", DecodeCase("%FF%41"), Outcome("\ufffd\ufffdA".encode()), False),
    ("mono-webutility", "decode", DecodeCase("%C3%A9"), Outcome("\ufffd".encode()), False),
    ("mono-webutility", "decode", DecodeCase("%u0041"), Outcome(b"A"), False),
    # HttpUtility.UrlDecode's %uXXXX, a surrogate pair as its character ...
    ("mono-httputility", "decode", DecodeCase("%u0041+%uD83D%uDE00"),
     Outcome("A \U0001f600".encode()), True),
    ("mono-httputility", "decode", DecodeCase("%u00e9"), Outcome("\u00e9".encode()), True),
    # ... not Mono's low byte of U+00E9 (a real bug), nor a lost raw character.
    ("mono-httputility", "decode", DecodeCase("%u00e9"), Outcome("\ufffd".encode()), False),
    ("mono-httputility", "decode", DecodeCase("%uD83D%uDE00"),
     Outcome("\ufffd\ufffd".encode()), False),
    ("mono-httputility", "decode", DecodeCase("\u00e9+"), Outcome("\ufffd ".encode()), False),
])
def test_mono_entries_both_ways(impl: str, check: str, case: EncodeCase | DecodeCase,
                                actual: Outcome, accepted: bool) -> None:
    assert (_mono(impl, check, case, actual) is not None) is accepted


@pytest.mark.parametrize(("text", "pairs", "accepted"), [
    # A NameValueCollection: grouped by key without case, a sequence without '=' (an empty
    # one, the one after a final '&') a value of the null key, answered with the name ''.
    ("a=1&b&A=2&&=3&", [("a", "1"), ("a", "2"), ("", "b"), ("", ""), ("", ""), ("", "3")],
     True),
    ("?x=%u0041+%FF", [("x", "A \ufffd")], True),
    ("a=1&a%00=2&B=3&b\u200c=4", [("a", "1"), ("a", "2"), ("B", "3"), ("B", "4")], True),
    ("%01=1&=2", [("\x01", "1"), ("\x01", "2")], False),  # U+0001 is not ignorable
    ("?a", [("", "a")], True),
    # Not: the pairs in input order, a value lost, the HTML-decoded query
    # (dotnet/corefx#23582), a second '?' stripped (#23574), a raw é lost.
    ("a=1&b=2&A=3", [("a", "1"), ("b", "2"), ("a", "3")], False),
    ("a=1&A=2", [("a", "2")], False),
    ("a=1&b=2", [("a", "1"), ("a", "2")], False),
    ("a=&amp;b=2", [("a", ""), ("b", "2")], False),
    ("??a=1", [("a", "1")], False),
    ("a=\u00e9+", [("a", "\ufffd ")], False),
])
def test_mono_parse_query_string_entry_both_ways(text: str, pairs: list[tuple[str, str]],
                                                 accepted: bool) -> None:
    result = _mono("mono-httputility", "form-parse", FormParseCase(text), Outcome(pairs))
    assert (result is not None) is accepted


@pytest.mark.parametrize(("data", "text"), [
    # Mono 6.8.0.105's UTF-8 decoder (HttpUtility.UrlDecode and WebUtility.UrlDecode of each
    # byte's escape, measured): per maximal subpart, but a lead byte and a continuation
    # byte out of its range are one.
    (b"\xed\xa0\x80", "\ufffd\ufffd"), (b"\xe0\x80A", "\ufffdA"), (b"\xc0\xaf", "\ufffd\ufffd"),
    (b"\xf0\x9f\x98", "\ufffd"), (b"\xf4\x90\x80\x80", "\ufffd\ufffd\ufffd"),
    (b"\xe0\x80\xc2\x80", "\ufffd\x80"), (b"\xe0\xa0A", "\ufffdA"), (b"\xed\x9f\x80", "\ud7c0"),
])
def test_dotnet_replacement_counts_invalid_utf8_as_mono_does(data: bytes, text: str) -> None:
    from pctfuzz._internal.accept.decoders import utf8_decoded

    assert utf8_decoded(data, "dotnet") == text


@pytest.mark.parametrize(("text", "plain", "with_the_bug"), [
    # Mono 6.8.0.105's answers: the entry's model answers each, and merged with the rule of
    # the real bug (latin1_chars: a raw 'é' beside a '+' is its byte E9) those of the bug.
    ("?a=1&b&A=2&", [("a", "1"), ("a", "2"), ("", "b"), ("", "")], None),
    ("a=%C3%A9&%ED%A0%80=x&%u0041=1&a",
     [("a", "\u00e9"), ("a", "1"), ("\ufffd\ufffd", "x"), ("", "a")], None),
    ("=1&&=2&b", [("", "1"), ("", "2"), ("", ""), ("", "b")], None),
    # The empty name is a key of its own; names that fold alike (a NUL ignored) are one.
    ("\x00=1&b=2&=3&\x00\x00=4", [("\x00", "1"), ("\x00", "4"), ("b", "2"), ("", "3")], None),
    ("?", [], None),
    ("a=\u00e9+&b=\u00e9", [("a", "\u00e9 "), ("b", "\u00e9")],
     [("a", "\ufffd "), ("b", "\u00e9")]),
    ("x=%F0%9F%98%80+%u00e9", [("x", "\U0001F600 \u00e9")], [("x", "\U0001F600 \ufffd")]),
])
def test_mono_parse_query_string_is_a_model_that_composes(
        text: str, plain: list[tuple[str, str]],
        with_the_bug: list[tuple[str, str]] | None) -> None:
    """The entry was code that recomputed the answer from the text, so no rule found beside
    it composed with it: a 90 s campaign gave 15 form-parse findings for three bugs."""
    from pctfuzz._internal.accept.model import Model, render
    from pctfuzz._internal.checks.registry.csharp import ENTRIES

    model = next(e.model for e in ENTRIES if e.id == "mono-httputility-parsequerystring-collection")
    assert model is not None
    case = FormParseCase(text)
    assert render(model, "form-parse", case) == plain
    assert render(model.merge(Model(latin1_chars=True)), "form-parse", case) == (
        with_the_bug or plain)


def test_mono_uri_entry_models_escape_strings_runs() -> None:
    """A run of non-ASCII units ending in a lone high surrogate takes the next unit, an
    ASCII one escaped too; alone or at the end it throws."""
    from pctfuzz._internal.checks.registry.csharp import escape_string

    assert escape_string("\x80\ud800a!", "encodeURI-[]") == "%C2%80%EF%BF%BD%61!"
    assert escape_string("\ud800\U0001f600", "rfc3986-unreserved") == "%EF%BF%BD%F0%9F%98%80"
    assert escape_string("\ud800a", "rfc3986-unreserved") is None
    assert escape_string("a\x80\ud800", "rfc3986-unreserved") is None
    assert _mono("mono-uri", "encode", EncodeCase("\x80\ud800#", "encodeURI-[]"),
                 Outcome("%C2%80%EF%BF%BD%23")) is not None
    assert _mono("mono-uri", "encode", EncodeCase("\x80\ud800#", "encodeURI-[]"),
                 Outcome("%C2%80%EF%BF%BD")) is None


@pytest.mark.parametrize(("text", "actual", "accepted"), [
    # g_uri_parse_params' hash table: the last value per name, sorted by the names' bytes.
    ("b=1&a=2&b=3", Outcome([("a", "2"), ("b", "3")]), True),
    ("%C3%A9=1&z=2", Outcome([("z", "2"), ("\u00e9", "1")]), True),
    # Not: the first value kept, a pair lost, the input order.
    ("b=1&a=2&b=3", Outcome([("a", "2"), ("b", "1")]), False),
    ("b=1&a=2", Outcome([("b", "1")]), False),
    ("b=1&a=2", Outcome([("b", "1"), ("a", "2")]), False),
])
def test_glib_parse_params_hash_table_entry_both_ways(text: str, actual: Outcome,
                                                      accepted: bool) -> None:
    case = FormParseCase(text)
    names = ("glib-uri-parse-params", "glib-uri-params")  # the adapter's registry names
    result = explain("form-parse", names, case, reference_outcome("form-parse", case), actual)
    assert (result is not None) is accepted


def test_glib_parse_params_inherits_the_iterators_refusals() -> None:
    case = FormParseCase("a=1&b")
    actual = _glib_error("G_URI_ERROR_FAILED", _MISSING)
    expected = reference_outcome("form-parse", case)
    assert explain("form-parse", ("glib-uri-parse-params",), case, expected, actual) is None
    assert explain("form-parse", ("glib-uri-parse-params", "glib-uri-params"), case, expected,
                   actual) == ("glib-uri-params-needs-equals",)
