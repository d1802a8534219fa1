"""Catalogue rules for the behaviours of the peers in other languages (docs/peers.md),
once their accepted entries are removed (``--no-accepted``): each behaviour, met on
several inputs, is ONE finding named by its rule, and one registry entry accepts it.
Before these rules a 90 s campaign gave 3 to 5 findings per behaviour (one per first
differing segment, or per refusal class the input happened to hold). The peer tests
skip where the peer's runtime is missing (``make peers``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from rule_findings import findings, one

from pctfuzz._internal.accept.reconcilers import (
    empty_pairs,
    names_mangled,
    pairs_order,
    plus_as_space,
    refuses,
    replacement,
)
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.differential import (
    check_decode,
    check_encode,
    check_form,
    check_form_parse,
)
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.form import form_urldecode
from pctfuzz._internal.oracles import Adapter
from pctfuzz._internal.oracles.base import Impl
from pctfuzz._internal.oracles.peer import PeerUnavailable
from pctfuzz._internal.oracles.registry import get_impl
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_decode
from pctfuzz._internal.violations import Divergence

# Every accepted difference ignored (``--no-accepted``), as a campaign names them:
# ``NO_ACCEPTED`` handed to each check (``findings`` does), the default where a test
# has the entries in force.


def _peer(name: str, probe: Callable[[Impl], object]) -> Impl:
    try:
        adapter = get_impl(name)
        probe(adapter)
    except PeerUnavailable as exc:
        pytest.skip(f"{name}: {exc} (make peers)")
    return adapter


def _parser(name: str) -> Impl:
    return _peer(name, lambda a: a.form_parse(FormParseCase("a=b")))


# --- pairs sorted by the names' bytes (Go's url.ParseQuery: a map) -------------------------
class SortsNameBytes(Adapter):
    """A form parser that sorts the pairs by each name's decoded bytes, as Go reads a
    map out (a planted twin of go-values, for machines without Go)."""

    name = "sorts-name-bytes"
    distribution = "hypothesis"

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        text = case.text
        data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
        keyed = [(percent_decode(s.partition(b"=")[0].replace(b"+", b" ")), pair)
                 for s in data.split(b"&") if s for pair in form_urldecode(s)]
        return [pair for _, pair in sorted(keyed, key=lambda k: k[0])]


#: Names that sort apart by bytes and by code points (80 < C3, U+FFFD > U+00C0), two
#: invalid names that both read U+FFFD, and plain ASCII ones.
_BYTE_ORDER_CASES = [FormParseCase(t) for t in (
    b"\xa0=a&\x80", b"\xc3\x80&\x80", "%C3%A9=1&%80=2", b"\xa0%0A&\x80a", "b=1&a=2&b=3",
    "z&%FF=x&y")]


@pytest.mark.parametrize("adapter", ["planted", "go-values"])
def test_names_sorted_by_their_bytes_are_one_rule(tmp_path: Path, adapter: str) -> None:
    """go-values: 9 of its 15 findings in 90 s were the byte order, each named by the
    first differing segment (seg=ascii, seg=pct-digits, seg=end, ...)."""
    impl = SortsNameBytes() if adapter == "planted" else _parser("go-values")
    one(findings(tmp_path, check_form_parse, impl, _BYTE_ORDER_CASES),
         "pairs_order", {"mode": "sorted-bytes"})


def test_a_sort_by_code_points_is_not_a_sort_by_bytes() -> None:
    model = pairs_order("sorted-bytes")
    case = FormParseCase("%C3%A9=1&%80=2")
    reference = Outcome(form_urldecode(case.text))
    by_bytes = model.reconcile(case, reference, reference)
    assert by_bytes is not None and by_bytes[0].value == [("\ufffd", "2"), ("\u00e9", "1")]
    sorted_pairs = pairs_order("sorted").reconcile(case, reference, reference)
    assert sorted_pairs is not None and sorted_pairs[0].value == [("\u00e9", "1"), ("\ufffd", "2")]


# --- refusals named by the class the implementation refuses alone --------------------------
def test_a_refusal_is_named_by_the_class_the_implementation_refuses(tmp_path: Path) -> None:
    """go-values refuses a '%' without two hex digits, not invalid UTF-8: '%' then a
    byte 80 holds both, and was named refuses(invalid-utf8), a second finding."""
    cases = [FormParseCase(t) for t in (b"%\x80", "a=%", "%zz&b", b"\xff%")]
    one(findings(tmp_path, check_form_parse, _parser("go-values"), cases, "crash"),
         "refuses", {"input": "invalid-percent", "raised": "EscapeError"})


def test_go_raw_query_refuses_control_characters_one_rule(tmp_path: Path) -> None:
    """go-url-query: url.Parse refuses a control character; an input without another
    refusal class was named by the exception type, one with a '%' refuses(invalid-percent)."""
    adapter = _peer("go-url-query", lambda a: a.encode(EncodeCase("a", "c0-control")))
    cases = [EncodeCase(v, "c0-control") for v in ("a\nb", "\x01", "%\x7f", "\x00%zz", "\t")]
    one(findings(tmp_path, check_encode, adapter, cases, "crash"),
         "refuses", {"input": "control-char", "raised": "Error"})


def test_ruby_refuses_non_ascii_one_rule(tmp_path: Path) -> None:
    """ruby-www-form: decode_www_form raises for a text that is not ASCII: three
    findings in 90 s (refuses invalid-percent, invalid-utf8, and the exception type)."""
    cases = [FormParseCase(t) for t in ("\x80%", b"\x80", "\x80", "\u00e9=1", b"a=\xc3\xa9")]
    one(findings(tmp_path, check_form_parse, _parser("ruby-www-form"), cases, "crash"),
         "refuses", {"input": "non-ascii", "raised": "ArgumentError"})


@pytest.mark.parametrize(("kind", "case", "holds"), [
    ("control-char", EncodeCase("a\x7f", "component"), True),
    ("control-char", FormParseCase(b"a\x1f"), True),
    ("control-char", EncodeCase("a b", "component"), False),
    ("non-ascii", FormParseCase("\u00e9"), True),
    ("non-ascii", FormParseCase(b"a\x80"), True),
    ("non-ascii", FormCase((("a", "~"),)), False),
])
def test_the_new_refusal_classes(kind: str, case: Case, holds: bool) -> None:
    error = Outcome(error=ValueError("no"))
    explained = refuses(kind).reconcile(case, Outcome("x"), error)
    assert (explained is not None) is holds


# --- an empty pair kept but the last (Ruby's decode_www_form: each_line("&")) ---------------
@pytest.mark.parametrize(("text", "pairs"), [
    ("&a", [("", ""), ("a", "")]), ("&a&", [("", ""), ("a", "")]), ("&", [("", "")]),
    ("", []), ("a&&", [("a", ""), ("", "")]), ("a", [("a", "")])])
def test_empty_pairs_kept_but_the_last(text: str, pairs: list[tuple[str, str]]) -> None:
    case = FormParseCase(text)
    reference = Outcome(form_urldecode(text))
    got = empty_pairs("kept-but-last").reconcile(case, reference, reference)
    assert got is not None and got[0].value == pairs


def test_ruby_empty_pairs_are_one_rule(tmp_path: Path) -> None:
    """ruby-www-form: 11 of its 14 findings in 90 s, one per segment after the extra
    pair; "&a" alone was empty_pairs(kept), "&a&" no rule."""
    cases = [FormParseCase(t) for t in ("&a", "&a&", "&", "&%00&", "&=%&", "&+&", "&=a&")]
    one(findings(tmp_path, check_form_parse, _parser("ruby-www-form"), cases),
         "empty_pairs", {"mode": "kept-but-last"})


# --- PHP variable names (parse_str) -----------------------------------------------------------
def test_php_variable_names_are_one_rule(tmp_path: Path) -> None:
    """php-http-query: 8 of its 9 findings in 90 s were parse_str's names (a '.' as '_',
    a leading space or '+' dropped, an empty name dropped, the text cut at NUL: each
    its own segment class, or removed/cut_at/empty_pairs)."""
    cases = [FormParseCase(t) for t in ("=&a", "=a", ".", "+a", " a", "a%00", b"a\x00",
                                        b" ", "a=1&a=2", "a b=1")]
    one(findings(tmp_path, check_form_parse, _parser("php-http-query"), cases),
         "names_mangled", {"style": "php"})


@pytest.mark.parametrize(("text", "pairs"), [
    ("a.b=1&a b=2& c=3", [("a_b", "2"), ("c", "3")]), ("=a&b", [("b", "")]),
    ("a%00b=1", [("a", "1")]), ("x=1\x00&y=2", [("x", "1")]), ("++a=%41", [("a", "A")])])
def test_php_variable_names(text: str, pairs: list[tuple[str, str]]) -> None:
    case = FormParseCase(text)
    reference = Outcome(form_urldecode(text))
    got = names_mangled("php").reconcile(case, reference, reference)
    assert got is not None and got[0].value == pairs


def test_names_mangled_takes_a_known_style() -> None:
    with pytest.raises(UsageError, match="names_mangled"):
        names_mangled("perl")


def test_a_parser_that_does_not_mangle_is_never_named_so(tmp_path: Path) -> None:
    """A plain parser whose one bug is to drop a leading space of a name: its finding is
    not the PHP rule (it answers the probe as the reference does)."""

    class DropsLeadingSpace(Adapter):
        name = "drops-leading-space"
        distribution = "hypothesis"

        def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
            return [(n.lstrip(" "), v) for n, v in form_urldecode(case.text)]

    records = findings(tmp_path, check_form_parse, DropsLeadingSpace(), [FormParseCase(" a")])
    assert records[0].behaviour is None or records[0].behaviour["rule"] != "names_mangled"


# --- with the entries in force, each is accepted -----------------------------------------------
@pytest.mark.parametrize(("impl", "text", "ids"), [
    ("go-values", b"\xa0=a&\x80", ("go-parsequery-sorted",)),
    ("go-values", "a=%", ("go-parsequery-malformed",)),
    ("go-values", "a;b", ("go-parsequery-semicolon",)),
    ("ruby-www-form", "&a&", ("ruby-decode-www-form-empty",)),
    ("php-http-query", "a.b=1&+c=2&=x", ("php-parse-str-variables",)),
])
def test_with_the_entries_in_force_each_is_accepted(impl: str, text: str | bytes,
                                                    ids: tuple[str, ...]) -> None:
    assert check_form_parse(FormParseCase(text), _parser(impl)) == ids


def test_go_values_queryescape_set_is_two_entries() -> None:
    """Values.Encode: '~' raw and '*' encoded are two rules, so two entries (one bundled
    both), composed with the sort."""
    adapter = _peer("go-values", lambda a: a.form_serialize(FormCase((("a", "b"),))))
    assert set(check_form(FormCase((("b", "~*"), ("a", "1"))), adapter) or ()) == {
        "go-values-encode-sorted", "go-values-encode-tilde", "go-values-encode-star"}


# --- '+' decoded as a space, composed with U+FFFD (Java's URLDecoder) -------------------------
def test_java_urldecoder_plus_and_text_are_one_rule_each(tmp_path: Path) -> None:
    """java-urlencoder: 7 of its 14 findings in 90 s were '+' as a space, alone or next
    to invalid UTF-8 (seg=plus, seg=pct-lower, seg=non-ascii, ...: no rule had '+' as a
    space). A case of both is named by the simpler, the text (two entries, two rules)."""
    adapter = _peer("java-urlencoder", lambda a: a.decode(DecodeCase("a")))
    plus = [DecodeCase(v) for v in ("+", "a+b", "%41+", "++%20", "+%C3%A9")]
    one(findings(tmp_path / "p", check_decode, adapter, plus), "plus_as_space", {})
    text = [DecodeCase(v) for v in ("%aa+", "%EF\x80+", "%A0+", "%EFa+", "%90+", "%aa")]
    one(findings(tmp_path / "t", check_decode, adapter, text),
         "replacement", {"mode": "per-sequence"})


def test_plus_as_space_composes_with_a_replacement_mode() -> None:
    """Both are model fields: '%FF+' answered U+FFFD and a space is explained by the two
    together (Java's URLDecoder), by neither alone."""
    from pctfuzz._internal.accept.entry import explain
    from pctfuzz._internal.accept.reconcilers import divergence
    from pctfuzz._internal.outcome import reference_outcome

    case = DecodeCase("%FF+")
    entries = [divergence(id=ident, check="decode", reconcile=rec, citation="c", why="w",
                          example=case, impl="x")
               for ident, rec in (("plus", plus_as_space()),
                                  ("text", replacement("per-sequence")))]
    expected, answer = reference_outcome("decode", case), Outcome("\ufffd ".encode())
    assert set(explain("decode", ("x",), case, expected, answer, entries) or ()) == {
        "plus", "text"}
    for entry in entries:
        assert explain("decode", ("x",), case, expected, answer, [entry]) is None


# --- a refusal of a class the implementation answers alone is no refusal of it ----------------
def test_perl_dies_for_a_wide_character_one_finding(tmp_path: Path) -> None:
    """perl-uri-escape: uri_escape dies for a character above U+00FF; with a '%' before it
    the crash was named refuses(invalid-percent), a second finding, though uri_escape
    escapes a '%' alone."""
    adapter = _peer("perl-uri-escape", lambda a: a.encode(EncodeCase("a", "rfc3986-unreserved")))
    cases = [EncodeCase(v, "rfc3986-unreserved") for v in ("\u0100", "%\u0100", "a%zz\u20ac")]
    records = findings(tmp_path, check_encode, adapter, cases, "crash")
    assert len(records) == 1 and records[0].behaviour is None, [r.signature for r in records]


# --- Perl's query_form: three rules, three entries --------------------------------------------
@pytest.mark.parametrize(("text", "pairs"), [
    ("&a=&&", [("", ""), ("a", "")]), ("a&&b=&", [("a", ""), ("", ""), ("b", "")]),
    ("&", []), ("=&", [("", "")])])
def test_empty_pairs_kept_but_trailing(text: str, pairs: list[tuple[str, str]]) -> None:
    case = FormParseCase(text)
    reference = Outcome(form_urldecode(text))
    got = empty_pairs("kept-but-trailing").reconcile(case, reference, reference)
    assert got is not None and got[0].value == pairs


def test_perl_query_form_is_three_rules(tmp_path: Path) -> None:
    """perl-uri-query: 19 findings in 90 s for one entry (16 the extra empty pair, split
    by the segment after it; "a" was empty_pairs(dropped))."""
    adapter = _parser("perl-uri-query")
    empty = [FormParseCase(t) for t in ("&=%&", "&\x80=&", "&=;", "=&&+&", "&%aa=&", "&=&")]
    one(findings(tmp_path / "e", check_form_parse, adapter, empty),
         "empty_pairs", {"mode": "kept-but-trailing"})
    one(findings(tmp_path / "n", check_form_parse, adapter,
                   [FormParseCase(t) for t in ("a", "a&b", "%41;b")]), "needs_equals", {})


def test_a_parser_that_drops_empty_values_is_not_named_needs_equals(tmp_path: Path) -> None:
    """'a' is answered [] by both; the implementation's answer to 'a=' tells them apart."""

    class DropsEmptyValues(Adapter):
        name = "drops-empty-values"
        distribution = "hypothesis"

        def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
            return [(n, v) for n, v in form_urldecode(case.text) if v]

    one(findings(tmp_path, check_form_parse, DropsEmptyValues(), [FormParseCase("a")]),
         "empty_pairs", {"mode": "dropped"})


# --- NFC after escaping (Java's URI: an escape's hex digit composes with a mark) --------------
def test_java_uri_nfc_across_an_escape_is_one_finding(tmp_path: Path) -> None:
    """java-uri: the bug 'NFC breaks an escape' (docs/in-the-wild.md) was 4 findings in
    90 s, one per ASCII character before the mark (unit=0x1A, 0x3E, 0x0E, 0x0A). Still a
    finding: no entry accepts it."""
    adapter = _peer("java-uri", lambda a: a.encode(EncodeCase("a", "rfc3986-pchar-/")))
    cases = [EncodeCase(v, s) for v, s in (("\x1a\u0340", "rfc3986-query-[]"),
                                            (">\u0300", "rfc3986-pchar+@"),
                                            ("\x0e\u0300", "rfc3986-query-[]"),
                                            ("\n\u0300", "rfc3986-query-[]"))]
    one(findings(tmp_path, check_encode, adapter, cases), "normalized_escaped", {"form": "NFC"})
    with pytest.raises(Divergence):
        check_encode(cases[0], adapter)


@pytest.mark.parametrize(("impl", "case", "ids"), [
    ("java-urlencoder", DecodeCase("%FF+"), ("java-urldecoder-string", "java-urldecoder-plus")),
    ("perl-uri-query", FormParseCase("a;&=&"), ("perl-uri-query-semicolon",
                                                "perl-uri-query-empty")),
    ("perl-uri-query", FormParseCase("a"), ("perl-uri-query-needs-equals",)),
    ("perl-uri-escape", EncodeCase("%\u00e9", "rfc3986-unreserved"), ("perl-uri-escape-latin1",)),
])
def test_the_split_entries_compose(impl: str, case: Case, ids: tuple[str, ...]) -> None:
    check = {DecodeCase: check_decode, FormParseCase: check_form_parse,
             EncodeCase: check_encode}[type(case)]
    adapter = _peer(impl, lambda a: None)
    assert set(check(case, adapter) or ()) == set(ids)


# --- '?' for an unencodable character (Java's String.getBytes) ------------------------------------
def test_java_urlencoder_question_mark_is_one_rule(tmp_path: Path) -> None:
    """java-urlencoder: '?' for a character its charset cannot encode was one finding per
    encoding, and one more for a lone surrogate (the reference refuses it)."""
    form = "application/x-www-form-urlencoded"
    adapter = _peer("java-urlencoder", lambda a: a.encode(EncodeCase("a", form)))
    cases = [EncodeCase(v, form, enc, True) for v, enc in (
        ("\x80", "windows-1252"), ("\x80", "Shift_JIS"), ("a\ud800", "UTF-8"),
        ("\u20ac\u0100", "windows-1252"))]
    one(findings(tmp_path, check_encode, adapter, cases), "unmappable_replaced", {})


def test_java_urldecoder_signed_escape_is_one_rule(tmp_path: Path) -> None:
    """java-urlencoder's %+1 (docs/in-the-wild.md): 4 findings in 90 s, one per segment
    before it (%aa, %A0, '+'); its '+' as a space and U+FFFD are rules of their own."""
    adapter = _peer("java-urlencoder", lambda a: a.decode(DecodeCase("a")))
    cases = [DecodeCase(v) for v in ("%+1", "x%-0", "+%+a", "x%-0+", "%+f+")]
    one(findings(tmp_path, check_decode, adapter, cases), "signed_escapes", {})


def test_node_querystring_escape_merging_a_surrogate_is_one_rule(tmp_path: Path) -> None:
    """querystring.escape takes the code unit after a lone surrogate as its low half
    (nodejs/node#62814): 1 finding in encode, 9 in form (one per character before it,
    '!', ')', ' '...) in a 90 s campaign."""
    adapter = _peer("node-querystring", lambda a: a.encode(EncodeCase("a", "component")))
    pairs = [FormCase(((n, v),)) for n, v in (("\ud800a", ""), ("!\ud800a", ""),
                                              ("", ")\udc00a"), (" \ud800b", "x"))]
    one(findings(tmp_path / "f", check_form, adapter, pairs),
         "lone_surrogates", {"mode": "merged"})
    values = [EncodeCase(v, "component") for v in ("\ud800a", "x\udbff\u00e9")]
    one(findings(tmp_path / "e", check_encode, adapter, values),
         "lone_surrogates", {"mode": "merged"})


def test_java_urlencoder_whole_characters_is_one_rule(tmp_path: Path) -> None:
    """URLEncoder writes every byte of a Shift_JIS character as %XY, the ASCII trail byte
    too ('Б' is 84 41: %84%41, not %84A): 6 findings in a 90 s campaign, one per trail
    byte ('A', 'P', 'R', 'V', 'Z', 'x'); with a lone surrogate's '?' beside it, 7."""
    adapter = _peer("java-urlencoder", lambda a: a.decode(DecodeCase("a")))
    form = "application/x-www-form-urlencoded"
    cases = [EncodeCase(v, form, "Shift_JIS", True) for v in ("\u0411", "\u041f", "\u0421",
                                                            "a\u0425b", "\u5800")]
    one(findings(tmp_path / "w", check_encode, adapter, cases), "whole_characters", {})
    mixed = [EncodeCase(v, form, "Shift_JIS", True) for v in ("\ud800", "\ud800\u0411")]
    one(findings(tmp_path / "m", check_encode, adapter, mixed), "unmappable_replaced", {})


# --- Mono's ParseQueryString: its entry a model, so its real bugs are named by rules --------
@pytest.mark.parametrize(("texts", "rule", "params"), [
    # HtmlDecode of the whole query first (dotnet/corefx#23582): six classes before.
    (("&#0", "a&#0", "a=&#0", "a&#00", "&#3;", "x&amp;y"), "html_unescaped", {"mode": "mono"}),
    # UrlDecode's low byte of a raw character beside a '%' or '+': five classes before.
    (("%\x80", "?\x80%", "%u00aa", "\x80\x80%0a", "%Ea\x80", "a=\U00010000%"), "latin1_chars",
     {}),
])
def test_mono_parse_query_strings_bugs_are_one_finding_each(
        tmp_path: Path, texts: tuple[str, ...], rule: str, params: dict[str, str]) -> None:
    """With its entries in force: the collection entry was code that no rule composed
    with (15 form-parse findings for three bugs in a 90 s campaign)."""
    from pctfuzz._internal.settings import DEFAULT_SETTINGS

    adapter = _peer("mono-httputility", lambda a: a.form_parse(FormParseCase("a=1")))
    cases = [FormParseCase(text) for text in texts]
    one(findings(tmp_path, check_form_parse, adapter, cases, settings=DEFAULT_SETTINGS), rule,
        params)


def test_a_parser_reading_references_its_own_way_is_not_named_after_another_decoder() -> None:
    """Erlang's dissect_query reads '&#N;' after percent-decoding and refuses '&#65'
    unended; the mono mode of html_unescaped answered its '&#3;' by chance, and named it
    (a half-true name beside the classes of the same behaviour)."""
    adapter = _peer("erlang-uri-string-query", lambda a: a.form_parse(FormParseCase("a=1")))
    with pytest.raises(Divergence) as raised:
        check_form_parse(FormParseCase("&#3;"), adapter)
    assert (raised.value.behaviour or {}).get("rule") != "html_unescaped"
