"""Catalogue rules for behaviours the built-in adapters show once their accepted entries
are removed (``--no-accepted``): each behaviour, met on several inputs, is ONE finding
named by its rule (before these rules: one finding per first-differing unit or segment,
e.g. werkzeug's invalid UTF-8 kept gave five ``seg=pct-*`` findings in 20 s)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, unquote_to_bytes

import pytest
from behaviour_impls import CutAtHash, TrimsC0Space
from rule_findings import NO_ACCEPTED, findings, one

from pctfuzz._internal.accept import load_accept_file
from pctfuzz._internal.accept.reconcilers import Reconciler, cut_at, divergence
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.differential import (
    check_decode,
    check_encode,
    check_form,
    check_form_parse,
)
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.oracles.base import Impl
from pctfuzz._internal.oracles.function import function_adapter
from pctfuzz._internal.oracles.peer import PeerUnavailable
from pctfuzz._internal.oracles.registry import get_impl
from pctfuzz._internal.oracles.requests import REQUOTE_SET
from pctfuzz._internal.settings import DEFAULT_SETTINGS
from pctfuzz._internal.store import FindingStore, new_finding
from pctfuzz._internal.violations import Divergence

# Every accepted difference ignored (``--no-accepted``), as a campaign names them:
# ``NO_ACCEPTED`` handed to each check (``findings`` does), the default where a test
# has the entries in force.









def test_werkzeug_keeps_invalid_utf8_percent_encoded(tmp_path: Path) -> None:
    cases = [FormParseCase(t) for t in ("%A0", "%aa", "=%A0", "%80", "a=%FF&b=%C3")]
    one(findings(tmp_path, check_form_parse, "werkzeug", cases),
         "replacement", {"mode": "percent-encoded"})


def test_requests_requote_fallback_encodes_percent(tmp_path: Path) -> None:
    cases = [EncodeCase(v, REQUOTE_SET) for v in ("%zz", "a%zz%41", "%zzb%2F", "%g0%")]
    one(findings(tmp_path, check_encode, "requests", cases), "encoded", {"chars": "%"})


def test_urllib_writes_an_unencodable_code_point_as_an_ncr(tmp_path: Path) -> None:
    cases = [EncodeCase(v, s, "windows-1252") for v, s in (
        ("\u0100", "special-query"), ("a\u0101", "path"), ("\u4e00b", "query"))]
    one(findings(tmp_path, check_encode, "urllib", cases), "ncr_unescaped", {})


def test_urllib_encodes_with_pythons_codec(tmp_path: Path) -> None:
    cases = [EncodeCase("\u0081", "component", "windows-1252"),
             EncodeCase("\u0081\u0100", "special-query", "windows-1252"),
             EncodeCase("\ud800", "special-query", "windows-1252"),
             EncodeCase("\u00a5a", "special-query", "ISO-2022-JP")]
    one(findings(tmp_path, check_encode, "urllib", cases), "python_codec", {})
    forms = [FormCase((("\u20ac", ""),), "GBK"), FormCase((("\ud800", "x"),), "windows-1252")]
    one(findings(tmp_path / "form", check_form, "urllib", forms), "python_codec", {})


@pytest.mark.parametrize("case", [FormParseCase("a=%FF"), EncodeCase("%zz", REQUOTE_SET),
                                  EncodeCase("\u0100", "special-query", "windows-1252")])
def test_with_the_entries_in_force_each_is_accepted(case: Case) -> None:
    impl = {FormParseCase: "werkzeug"}.get(type(case)) or (
        "requests" if isinstance(case, EncodeCase) and case.set_name == REQUOTE_SET
        else "urllib")
    check = check_form_parse if isinstance(case, FormParseCase) else check_encode
    assert check(case, get_impl(impl))  # type: ignore[arg-type]


def test_a_refusal_a_rule_names_is_one_crash_finding_whichever_path_raised(
        tmp_path: Path) -> None:
    """urllib's parse_qsl raises on invalid UTF-8 from two places (UnicodeEncodeError in
    _encode_result for an escape, UnicodeDecodeError in _decode_args for a raw byte)."""
    adapter = get_impl("urllib")
    store = FindingStore(tmp_path / "findings")
    for text in (b"%aa", b"\x80", b"a=%FF"):
        case = FormParseCase(text)
        with pytest.raises(Divergence) as caught:
            check_form_parse(case, adapter, settings=NO_ACCEPTED)
        store.record(new_finding("diff_form_parse", "crash", caught.value, case=case,
                                 accepted=False))
    (record,) = store.iter_findings()
    assert record.signature.split("|")[:4] == [
        "diff_form_parse", "crash", "form-parse",
        "rule=refuses(input=invalid-utf8,raised=ValueError)"]
    assert record.hits == 3


def test_boltons_leaves_percent_raw_in_names_and_values(tmp_path: Path) -> None:
    """The committed boltons findings were nine (one per first differing unit)."""
    cases = [FormCase(pairs) for pairs in (
        (("%", ""),), (("", "%"),), (("%25", ""),), (("", "%aa"),), (("%252", "x"),))]
    one(findings(tmp_path, check_form, "boltons", cases,
                 settings=DEFAULT_SETTINGS), "left_raw", {"chars": "%"})


def test_a_pair_order_is_named_by_the_implementations_own_order(tmp_path: Path) -> None:
    """httpx groups its pairs (a multi-dict); on pairs already sorted by name both
    orders explain a case: before, those were a second finding, pairs_order(sorted)."""
    cases = [FormParseCase(t) for t in ("a=1&b=2&a=3", "b=1&c=2&b=3", "a=1&b=2&c=3&a=4")]
    one(findings(tmp_path, check_form_parse, "httpx", cases), "pairs_order",
         {"mode": "grouped"})


def test_pythons_codec_composes_with_the_set(tmp_path: Path) -> None:
    """urlencode with ISO-2022-JP: Python's codec writes U+000E raw (the WHATWG encoder:
    an NCR) and quote_plus leaves ~ raw; before python_codec was a model, each such
    case was a first-difference finding (eight in one 90 s campaign)."""
    cases = [FormCase(((n, v),), "ISO-2022-JP") for n, v in (
        ("~\x0e", ""), ("a", "~\x1b\u00e9"), ("~", "\u0100"), ("~x", "\x0f"))]
    one(findings(tmp_path, check_form, "urllib", cases), "left_raw", {"chars": "~"})


def test_three_behaviours_in_one_case_are_named_by_the_simplest(tmp_path: Path) -> None:
    """httpx's form body: pairs grouped by name, ~ raw, * encoded; a case with % and +
    adds four candidates (space_as, left_raw/encoded of %), which pushed pairs_order out
    of the combined ones: four first-difference findings in one 90 s campaign."""
    cases = [FormCase((("", ""), (n, ""), ("", v))) for n, v in (
        ("\x00", "%+~"), ("`", "%+~%"), ("\x01+*%", ""))]
    records = findings(tmp_path, check_form, "httpx", cases)
    assert all(r.behaviour is not None for r in records), [r.signature for r in records]
    assert {r.behaviour["rule"] for r in records} <= {"left_raw", "encoded", "other_set"}


def test_normalization_is_combined_with_the_set_and_space(tmp_path: Path) -> None:
    """boltons' form serializer: NFC (U+2000 -> U+2002), space as %20, its own set;
    normalization came after the answer rewrites, out of the combined candidates."""
    cases = [FormCase(pairs) for pairs in (
        (("\u2000 ", ""),), ((" \u2000", ""),), (("", "\u2000 "),), ((", \u2000", ""),))]
    records = findings(tmp_path, check_form, "boltons", cases)
    assert all(r.behaviour is not None for r in records), [r.signature for r in records]


def test_a_lone_surrogate_as_an_ncr_with_the_sets_own_characters(tmp_path: Path) -> None:
    """urlencode with ISO-2022-JP: U+D800 becomes &#55296; and ~ stays raw; the reference
    refuses, so only python_codec was tried, alone: a value-for-non-scalar finding."""
    cases = [FormCase(((n, ""),), "ISO-2022-JP") for n in ("\ud800~", "~\ud800", "\ud800")]
    one(findings(tmp_path, check_form, "urllib", cases), "python_codec", {})


def test_a_requoting_is_named_by_the_implementations_own_mode(tmp_path: Path) -> None:
    """yarl's requoting decodes an escape of a character its set leaves raw and
    uppercases the others (decode-safe); a case several modes explain (``%2A``: upper
    too) was named by the first mode listed: four findings in one 90 s campaign."""
    cases = [EncodeCase(v, s) for v, s in (("%2a", "data-uri"), ("%41", "query"),
                                           ("%2A", "data-uri"), ("a%41%2f", "rfc3986-query"))]
    one(findings(tmp_path, check_encode, "yarl-requote", cases), "requoted",
         {"mode": "decode-safe", "decoded": "harmless"})


def test_a_cut_at_a_hash_is_one_rule_not_one_truncation_per_position(tmp_path: Path) -> None:
    """An encoder that ends its input at '#': before cut_at, each position of the '#'
    was its own finding, truncated(n=1), truncated(n=2), ..."""
    cases = [EncodeCase(v, "component") for v in (
        "a#b", "ab#c", "abc#", "xyz?q#r#s", "abcdef#gh", "a b#c")]
    one(findings(tmp_path, check_encode, CutAtHash(), cases), "cut_at", {"chars": "#"})


def test_a_parser_that_drops_names_alone_is_asked_where_it_cuts() -> None:
    """A form parser's cut is asked with pairs that have values: one that drops a
    name alone answered no pairs for 'abcd' and 'ab' alike, so its cut at '#' was never
    asked and each place of the '#' was a finding of its own (a tuning parser, sanic's
    query: '#=a' and '=a#', two findings in both 60 s campaigns)."""
    from urllib.parse import parse_qsl

    from pctfuzz._internal.checks.own_chars import own_chars

    adapter = function_adapter("cuts-hash", form_parse=lambda t: parse_qsl(t.split("#")[0]))
    assert own_chars("cut_at", "form-parse", FormParseCase("=a#"), adapter) == "#"
    keeps = function_adapter("no-cut", form_parse=lambda t: parse_qsl(t))
    assert own_chars("cut_at", "form-parse", FormParseCase("=a#"), keeps) == ""


def _go_url_query() -> Impl:
    try:
        adapter = get_impl("go-url-query")
        adapter.encode(EncodeCase("a", "c0-control"))
    except PeerUnavailable as exc:
        pytest.skip(f"go-url-query: {exc} (make peers)")
    return adapter


def test_go_raw_query_ends_at_a_hash_one_finding(tmp_path: Path) -> None:
    """Go's url.Parse("http://h/?" + v).RawQuery (issue 25: 14 findings, most of them
    truncated(n) for each position of the '#')."""
    adapter = _go_url_query()
    cases = [EncodeCase(v, "c0-control") for v in ("a#b", "ab#c", "a b#", "?x#y", "abcde#f#")]
    one(findings(tmp_path, check_encode, adapter, cases), "cut_at", {"chars": "#"})


@pytest.mark.parametrize(("value", "ids"), [
    ("a#b#c", ("go-url-query-hash",)),
    ("\u00e9#b", ("go-url-query-hash", "go-url-query-non-ascii")),
    ("a#%zz", ("go-url-query-fragment-escape",)),
])
def test_go_raw_query_entries_compose_with_the_cut(value: str, ids: tuple[str, ...]) -> None:
    """The registry's '#' entry is cut_at('#'), a model: the non-ASCII entry applies
    after it, and a malformed escape after the '#' is its own refusal entry."""
    assert check_encode(EncodeCase(value, "c0-control"), _go_url_query()) == ids


def test_a_cut_at_entry_accepts_the_cut_and_nothing_else() -> None:
    entry = divergence(id="cut", check="encode", reconcile=cut_at("#"), citation="RFC 3986 3.4",
                       why="a fragment", example=EncodeCase("a#b", "component"))
    adapter = CutAtHash()
    adapter.divergences = (entry,)  # type: ignore[attr-defined]
    assert check_encode(EncodeCase("a b#c?d", "component"), adapter) == ("cut",)
    assert check_encode(EncodeCase("a b?c", "component"), adapter) == ()


@pytest.mark.parametrize("chars", ["x", "", "5"])
def test_cut_at_takes_only_url_delimiters(chars: str) -> None:
    with pytest.raises(UsageError):
        cut_at(chars)


def test_a_cut_at_toml_entry_is_checked_as_it_loads(tmp_path: Path) -> None:
    table = ('[[divergence]]\nid = "c"\ncheck = "encode"\nreconciler = "cut_at"\n'
             'citation = "RFC 3986 3.4"\nwhy = "fragment"\n'
             'example = { value = "a#b", set = "component" }\n')
    good = tmp_path / "good.toml"
    good.write_text(table + 'chars = "#"\n')
    (entry,) = load_accept_file(str(good))
    assert entry.model is not None and entry.model.cut == "#"
    for bad in ("chars = 5", 'chars = "~"'):
        path = tmp_path / "bad.toml"
        path.write_text(table + bad + "\n")
        with pytest.raises(UsageError, match="cut_at"):
            load_accept_file(str(path))


def _plus_and_raw_nul_cut(text: str) -> bytes:
    """A bytes decoder (no replacement: the reference's answer is bytes too) that reads
    '+' as a space and whose input ends at a raw NUL (its length from ``strlen``)."""
    return unquote_to_bytes(text.split("\x00")[0].replace("+", " "))


def test_a_bytes_decoder_with_no_replacement_is_not_guessed_eight_modes(tmp_path: Path) -> None:
    """Asked, its replacement mode is none ("") and no mode is guessed: the eight
    guesses pushed ``plus_as_space`` out of the rules combined with ``cut_at``, and
    each case of both was a finding of its own answer (``answered(text=...)``): 6
    findings for these 2 behaviours (a newcomer's trial of the catalogue found it)."""
    adapter = function_adapter("plus-raw-nul", decode=_plus_and_raw_nul_cut)
    cases = [DecodeCase(v) for v in ("a+b", "a\x00b", "a+b\x00c", "x+%41\x00y+z", "+\x00+",
                                     "q+r+s\x00t")]
    assert sorted(r.behaviour["rule"] for r in findings(tmp_path, check_decode, adapter, cases)) \
        == ["cut_at", "plus_as_space"]


_C0_SPACE = "".join(map(chr, range(0x21)))


def _rstripped_query(text: str) -> list[tuple[str, str]]:
    """A form parser that drops the C0 controls and spaces trailing its query (an
    ``rstrip``, the end of WHATWG URL 4.4 step 1's trim) and nothing at its start."""
    return parse_qsl(text.rstrip(_C0_SPACE), keep_blank_values=True)


def _removes_and_rstrips(text: str) -> list[tuple[str, str]]:
    """The same, after removing TAB, LF and CR anywhere (WHATWG URL 4.4 step 3)."""
    return _rstripped_query(text.replace("\t", "").replace("\n", "").replace("\r", ""))


def test_a_trim_at_the_end_only_is_one_rule_not_a_class_per_character(tmp_path: Path) -> None:
    """``trimmed(part="end")``, asked of the parser (``own_chars("trimmed-end")``):
    before it, no rule named a trim of the end alone, and its cases were four classes,
    by character (a space, a control) and by field (a lone name, a value)."""
    adapter = function_adapter("rstrip-parser", form_parse=_rstripped_query)
    cases = [FormParseCase(v) for v in ("a=b ", "a=b\x01", "a=b&c=d\x1f ", "x= \t", "k=v&\x00",
                                        " \x03", "a=%41 ")]
    one(findings(tmp_path, check_form_parse, adapter, cases), "trimmed",
        {"chars": _C0_SPACE, "part": "end"})


def test_a_removal_inside_and_a_trim_at_the_end_are_two_findings(tmp_path: Path) -> None:
    """A removal of TAB, LF and CR anywhere beside the end's trim: each its rule, the
    removal's case named so though a trailing LF is trimmed too (a blind triage found
    the removal's finding renamed as a class of the trim, a real bug without its own)."""
    adapter = function_adapter("removes-and-rstrips", form_parse=_removes_and_rstrips)
    cases = [FormParseCase(v) for v in ("a=b\x01", "a\tb=c", "x=y\n", "a=b ", "k=v\r\x02",
                                        "q\nr=s t ")]
    named = {(r.behaviour["rule"], r.behaviour["params"].get("part"))
             for r in findings(tmp_path, check_form_parse, adapter, cases)}
    assert named == {("removed", None), ("trimmed", "end")}


def _path_resolving_dots(escaped: bool, past_root: bool) -> Any:
    """A path encoder that removes TAB, LF and CR, resolves the dot segments (their
    ``%2e`` spellings too when ``escaped``: a URL parser's path state; below a root of
    its own when ``past_root``: ``/../q`` as ``q``) and encodes with the path set."""
    from pctfuzz import percent_encode
    from pctfuzz._internal.accept.model import resolved_dots

    def encode(text: str) -> str:
        text = text.replace("\t", "").replace("\n", "").replace("\r", "")
        if past_root:
            return percent_encode(resolved_dots("/" + text, escaped=escaped)[1:], "path")
        return percent_encode(resolved_dots(text, escaped=escaped), "path")
    return function_adapter(f"dots-{escaped}-{past_root}", encode=encode,
                            sets={"path": "path"})


@pytest.mark.parametrize(("escaped", "past_root"), [(True, False), (False, False), (True, True)])
def test_a_path_resolving_its_dot_segments_is_one_rule(tmp_path: Path, escaped: bool,
                                                       past_root: bool) -> None:
    """``dot_segments``, asked of the encoder (``own_chars("dot_segments")``): a raw
    dot segment and an escaped one were a class each (``unit=0x2E``, ``pct-triplet``:
    hold-out 21), and a TAB removed from ``.\t`` made a dot segment of it, a third
    (the removal and the resolution together). An encoder resolving below a root of its
    own drops the empty first segment too (``/../q`` as ``q``): that case was a class
    of the '/' beside the rule (hold-out 21, a blind triage)."""
    cases = [EncodeCase(v, "path") for v in ("a/./b", "x/y/../z", "a/.\t/b", "/../q", ".",
                                             *(("a/%2e/b", "a/%2E%2e/b", "b/%2e%2E")
                                               if escaped else ()))]
    params = {"escaped": True} if escaped else {}
    one(findings(tmp_path, check_encode, _path_resolving_dots(escaped, past_root), cases),
        "dot_segments", {**params, **({"past_root": True} if past_root else {})})


def test_dot_segments_are_resolved_as_rfc_3986_resolves_them() -> None:
    """RFC 3986 5.2.4's examples, and 5.4.2's abnormal ones within a path: ``..``
    never climbs above the root; a dot segment last leaves a '/'."""
    from pctfuzz._internal.accept.model import resolved_dots

    for path, want in (("/a/b/c/./../../g", "/a/g"), ("mid/content=5/../6", "mid/6"),
                       ("/../g", "/g"), ("/./g", "/g"), ("/b/c/.", "/b/c/"),
                       ("/b/c/..", "/b/"), ("/b/c/g.", "/b/c/g."), ("/b/c/..g", "/b/c/..g"),
                       ("/b/%2e/g", "/b/%2e/g")):
        assert resolved_dots(path, escaped=False) == want, path
    assert resolved_dots("/b/%2E/g/%2e%2E", escaped=True) == "/b/"
    assert resolved_dots("/../g", escaped=False, past_root=True) == "g"
    # two entries of the rule together: the wider of each parameter
    from pctfuzz._internal.accept.model import Model

    assert Model(dots="raw").merge(Model(dots="escaped")).dots == "escaped"
    assert Model(dots="raw past-root").merge(Model(dots="escaped")).dots == "escaped past-root"
    assert Model(dots="raw").merge(Model()).dots == "raw"
    # URL Standard 4.1's single-dot and double-dot URL path segments, the escaped mode's
    from pctfuzz._internal.spec import is_double_dot_segment, is_single_dot_segment

    assert [s for s in (".", "%2e", "%2E", "..", ".%2E", "%2e.", "%2E%2e", "...", "%2e%2e%2e",
                        ".%2", "%252e") if is_single_dot_segment(s)] == [".", "%2e", "%2E"]
    assert [s for s in (".", "%2e", "..", ".%2E", "%2e.", "%2E%2e", "...", "%2e%2e%2e")
            if is_double_dot_segment(s)] == ["..", ".%2E", "%2e.", "%2E%2e"]
def _c_string_unquote(text: str) -> bytes:
    """A decoder whose answer is a C string (libevent's ``evhttp_decode_uri`` returns a
    NUL-terminated ``char *``): what follows a decoded NUL is lost."""
    return unquote_to_bytes(text).split(b"\x00")[0]


def test_a_decoder_ending_at_a_decoded_nul_is_one_rule(tmp_path: Path) -> None:
    """Before ``nul_terminated``, one finding named cut_at(chars=NUL), as the ``%00`` is
    written raw before a case is named (``locate.as_unescaped``), and the entry it
    made accepted none of its cases: ``cut_at`` cuts the input as given."""
    adapter = function_adapter("c-string-unquote", decode=_c_string_unquote)
    cases = [DecodeCase(v) for v in ("a%00b", "ab%00c", "%00xyz", "x%41%00%42", "abcd%00e%00")]
    one(findings(tmp_path, check_decode, adapter, cases), "nul_terminated", {})


def _raw_nul_cut_unquote(text: str) -> bytes:
    """A decoder whose input is a C string (``curl_easy_unescape(h, s, 0, &n)``: its
    length from ``strlen``) but whose answer has its length: ``%00`` decoded whole."""
    return unquote_to_bytes(text.split("\x00")[0])


def test_a_decoder_cutting_its_input_at_a_raw_nul_is_still_cut_at(tmp_path: Path) -> None:
    """Asked (``own_chars("nul_terminated")``): both rules explain a raw NUL's case."""
    adapter = function_adapter("raw-nul-cut", decode=_raw_nul_cut_unquote)
    cases = [DecodeCase(v) for v in ("a\x00b", "ab\x00c%41", "\x00x%00y")]
    one(findings(tmp_path, check_decode, adapter, cases), "cut_at", {"chars": "\x00"})


def _c_string_unquote_plus(text: str) -> str:
    return unquote_plus(text).split("\x00")[0]


def test_a_decoded_nul_composes_with_plus_and_replacement(tmp_path: Path) -> None:
    """A rewrite of the answer, after the model: '+' as a space and U+FFFD before the
    NUL are findings of their own, and a case with all three a hit of each."""
    adapter = function_adapter("c-string-unquote-plus", decode=_c_string_unquote_plus)
    cases = [DecodeCase(v) for v in ("a+b", "%e9", "a%00b", "a+b%00c", "x%41+%e9%00", "%e9%00")]
    assert sorted(r.behaviour["rule"] for r in findings(tmp_path, check_decode, adapter, cases)) \
        == ["nul_terminated", "plus_as_space", "replacement"]


def test_a_nul_terminated_entry_accepts_the_cut_and_nothing_else() -> None:
    from pctfuzz._internal.accept.reconcilers import nul_terminated

    adapter = function_adapter("c-string-unquote", decode=_c_string_unquote)
    adapter.divergences = (divergence(  # type: ignore[attr-defined]
        id="c-string", check="decode", reconcile=nul_terminated(), why="a C string",
        citation="libevent http.c evhttp_decode_uri", example=DecodeCase("a%00b")),)
    assert check_decode(DecodeCase("a%00b%00c"), adapter) == ("c-string",)
    assert check_decode(DecodeCase("a%01b"), adapter) == ()
    with pytest.raises(Divergence):  # a cut elsewhere is no C string's end
        check_decode(DecodeCase("a%00b"), function_adapter(
            "cuts-one-late", decode=lambda t: unquote_to_bytes(t)[:2]))


def test_a_decoder_that_decodes_nothing_is_one_rule(tmp_path: Path) -> None:
    """Every escape kept, a non-ASCII byte's too (asked where every ASCII one is kept):
    ``kept_encoded`` of all 256 bytes. Before, the ASCII escapes were ``kept_encoded``,
    an invalid UTF-8 escape ``replacement(undecoded)`` and a valid UTF-8 one a class: 3
    findings for a wrapper that forgot to unquote (a user trial on ``email.utils``,
    whose ``collapse_rfc2231_value`` expects a value unquoted already)."""
    adapter = function_adapter("decodes-nothing", decode=lambda text: text)
    cases = [DecodeCase(v) for v in ("%26", "%aa", "%F0%aa%aa%aa", "%C3%A9", "a%41b", "%E2%82%AC")]
    one(findings(tmp_path, check_decode, adapter, cases), "kept_encoded",
        {"chars": "".join(map(chr, range(0x100)))})


def test_hyperlinks_lost_newline_is_one_finding_not_removed_everywhere(tmp_path: Path) -> None:
    """hyperlink's from_text drops a last LF (its pattern's '$' matches before it) and
    keeps a TAB or CR: named removed(chars=\\t\\n\\r) on "\\n" and removed(chars=\\n) on
    "a\\t\\n" before the implementation was asked which characters it drops. It drops no
    other LF (the case padded after keeps it), so "removes every LF" is no true name:
    one finding by its difference: the LF (``unit=0x0A``) cut short."""
    cases = [DecodeCase(v) for v in ("\n", "a\t\n", "a\r\n", " \t\n", "%41\t\n")]
    (record,) = findings(tmp_path, check_decode, "hyperlink", cases)
    assert record.behaviour is None
    assert record.signature.split("|")[3] == "unit=0x0A;diff=missing-output"


def test_a_trim_of_c0_and_space_is_one_rule(tmp_path: Path) -> None:
    """Before: " a" was removed(whitespace), "\\ta\\n" removed(\\t\\n\\r), "\\x01a"
    trimmed(C0 and space): three findings for one strip."""
    cases = [EncodeCase(v, "component") for v in (" a", "\ta\n", "\x01a ", "a\x00", "\x1fab c ")]
    one(findings(tmp_path, check_encode, TrimsC0Space(), cases), "trimmed",
         {"chars": "".join(map(chr, range(0x21)))})


def test_a_decoder_stripping_what_it_decoded_is_one_rule(tmp_path: Path) -> None:
    """``unquote(s).strip()`` (a header or form field's value): named by the input's trim
    on " ", it left ``%20`` and ``a%0A`` one finding each (``seg=pct-digits``,
    ``seg=pct-letters``) and an escaped U+00A0 a third. One rule strips the decoded
    text, with every character ``str.strip()`` strips."""
    from urllib.parse import unquote

    from pctfuzz.oracles import function_adapter

    stripping = function_adapter("test-unquote-strip", decode=lambda t: unquote(t).strip())
    cases = [DecodeCase(v) for v in (" ", "%20", "a%0A", "%C2%A0a", "\ta%20", "%E3%80%80")]
    one(findings(tmp_path, check_decode, stripping, cases), "trimmed",
        {"chars": "".join(c for c in map(chr, range(0x3001)) if c.isspace()),
         "part": "decoded"})


def _clean_link_path(path: str) -> str:
    """pip's link cleaning (``pip._internal.models.link._clean_url_path``, 24.x): the
    path split at ``@`` and ``%2F``, each part ``quote(unquote(part))``, the ``%2F``
    uppercased between them."""
    import re
    from urllib.parse import quote, unquote

    parts = re.split("(@|%2F)", path, flags=re.IGNORECASE)
    return "".join(quote(unquote(part)) if i % 2 == 0 else part.upper()
                   for i, part in enumerate(parts))


def test_a_requoting_that_keeps_some_escapes_is_one_rule(tmp_path: Path) -> None:
    """pip keeps ``%2F`` and ``%40`` where it requotes every other escape through
    UTF-8: named requoted(decode-utf8) on ``%ea``, each input holding a kept escape was
    a first-difference finding of its shape (``unit=0x2F;diff=encoded``,
    ``unit=pct-triplet;diff=left-raw``, ``unit=end;diff=extra-output``, ``unit=0x40``)."""
    from pctfuzz.oracles import function_adapter

    cleaning = function_adapter("test-clean-link-path", encode=_clean_link_path,
                                sets={"quote": "path"})
    cases = [EncodeCase(v, "path") for v in ("%ea", "%aa%2F", "%2F%aa", "%2f%EF", "%aa%40")]
    one(findings(tmp_path, check_encode, cleaning, cases), "requoted",
        {"mode": "decode-utf8", "kept": "/@"})


def _reserved_expansion(value: str) -> str:
    """uritemplate 4.2's ``{+var}`` (``Operator._only_quote_unquoted_characters``): the
    reserved characters raw, and a value holding an escape taken as encoded already."""
    from urllib.parse import quote, unquote

    return quote(value, ":/?#[]@!$&'()*+,;=") if unquote(value) == value else value


def _percent_means_encoded(value: str) -> str:
    from urllib.parse import quote

    return value if "%" in value else quote(value, safe="")


@pytest.mark.parametrize(("encode", "when", "cases"), [
    (_reserved_expansion, "escape", ("%41", "<%41", "a b%2F", "%E9#", " %0a\x01")),
    (_percent_means_encoded, "percent", ("%41", "<%zz", "a b%", "%E9#")),
])
def test_an_input_with_an_escape_taken_as_encoded_is_one_rule(
        tmp_path: Path, encode: Any, when: str, cases: tuple[str, ...]) -> None:
    """An encoder that writes an input holding an escape back as it is was named
    ``requoted(keep)`` on ``%41`` alone, and a finding per character before the escape
    (``unit=0x3C;diff=left-raw``, ...) on the rest: its behaviour is one, encoding
    turned off by one escape (its delimiters pass raw too), asked of it (``<%41``)."""
    adapter = function_adapter(f"test-taken-{when}", encode=encode, sets={"c": "component"})
    one(findings(tmp_path, check_encode, adapter, [EncodeCase(v, "component") for v in cases]),
        "taken_as_encoded", {"when": when})


def _quote_via_quote(pairs: Any) -> str:
    from urllib.parse import quote, urlencode

    return urlencode(list(pairs), quote_via=quote)


def test_rfc3986_encoding_for_a_forms_is_one_rule_with_its_space(tmp_path: Path) -> None:
    """``urlencode(pairs, quote_via=quote)``, RFC 3986's percent-encoding for the
    form's, was two findings: ``other_set(raw=~,encoded=*)`` and, on the inputs whose
    only difference is a space, ``space_as("%20")``. The set's way with a space is
    asked of the serializer (a space alone in a name and in a value), and it is one
    rule."""
    adapter = function_adapter("test-quote-via-quote", form_serialize=_quote_via_quote)
    cases = [FormCase(p) for p in ((("a b", "1"),), (("~", ""),), (("x", "*"),),
                                   (("a", "x y~*"),), ((" ", " "),))]
    one(findings(tmp_path, check_form, adapter, cases), "other_set",
        {"raw": "~", "encoded": "*", "space": "%20"})


def _via_dict(pairs: Any) -> str:
    from urllib.parse import urlencode

    return urlencode(dict(pairs))


def _into_dict(text: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    return list(dict(parse_qsl(text, keep_blank_values=True)).items())


def _first_wins(text: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    kept: dict[str, str] = {}
    for name, value in parse_qsl(text, keep_blank_values=True):
        kept.setdefault(name, value)
    return list(kept.items())


def test_one_pair_per_name_as_a_mapping_keeps_them_is_one_rule(tmp_path: Path) -> None:
    """A serializer given a dict keeps a repeated name's last value where the name
    first came: a finding per shape of what the repeat hid before (``field=pair;
    unit=repeated-name`` with ``missing-pair``, ``missing-output``, ``changed``, two of
    them mixed with a raw ``&``: hold-out 13). The mode is asked of it, as the others."""
    cases = [FormCase(p) for p in ((("a", "1"), ("a", "2")), (("b", "1"), ("a", ""), ("b", "x y")),
                                   (("", ""), ("", "")), (("&", "1"), ("&", "2")))]
    one(findings(tmp_path, check_form, function_adapter("test-via-dict", form_serialize=_via_dict),
                 cases), "pairs_order", {"mode": "last-per-name"})


def _into_sorted_dict(text: str) -> list[tuple[str, str]]:
    return sorted(_into_dict(text))


def _trimmed_into_sorted_dict(text: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    return sorted(dict((n.strip(), v.strip()) for n, v in parse_qsl(text, keep_blank_values=True)
                       if n.strip()).items())


@pytest.mark.parametrize(("parse", "mode"), [(_into_dict, "last-per-name"),
                                             (_first_wins, "first-per-name"),
                                             (_into_sorted_dict, "sorted-last-per-name")])
def test_a_parser_answering_a_mapping_is_one_rule(tmp_path: Path, parse: Any, mode: str) -> None:
    cases = [FormParseCase(t) for t in ("a=1&a=2", "b=1&a=2&b=3", "=&=", "a&a", "a=%26&a=1")]
    one(findings(tmp_path, check_form_parse, function_adapter(f"test-{mode}", form_parse=parse),
                 cases), "pairs_order", {"mode": mode})


def _nested_into_dict(text: str) -> list[tuple[str, str]]:
    """A parser answering a mapping in which ``a[b]`` is the key ``b`` of a mapping
    under ``a`` (PHP's and qs's nesting), flattened back to pairs: a plain ``a`` and a
    nested ``a[b]`` share one slot, and the later takes it."""
    import re
    from urllib.parse import parse_qsl

    slots: dict[str, Any] = {}
    for name, value in parse_qsl(text, keep_blank_values=True):
        nested = re.fullmatch(r"([^\[\]]*)\[([^\[\]]+)\]", name)
        if nested:
            base, key = nested.groups()
            if not isinstance(slots.get(base), dict):
                slots[base] = {}
            slots[base][key] = value
        else:
            slots[name] = value
    return [pair for base, slot in slots.items() for pair in (
        [(f"{base}[{key}]", v) for key, v in slot.items()] if isinstance(slot, dict)
        else [(base, slot)])]


def test_two_names_sharing_a_slot_are_one_class_not_one_per_unit(tmp_path: Path) -> None:
    """The later of a nested name and a plain one takes their slot: each pair alone is
    read right, together one is missing (``field=pair;unit=earlier-pair``). Before, the
    class was a unit of whichever name ended the shortest differing prefix (a letter,
    a non-ASCII character, an escape's digit), each alone read right: a misnamed
    finding per unit (a blind triage of hold-out 21 found 4-5 a run so)."""
    adapter = function_adapter("nested-dict", form_parse=_nested_into_dict)
    cases = [FormParseCase(t) for t in ("b[x]=1&b=%E9", "c=3&\u00e9[y]=%41&\u00e9=2",
                                        "k%zz[y]=z&k%zz=%E9", "n%32[w]=1&n%32=q")]
    records = findings(tmp_path, check_form_parse, adapter, cases)
    assert [r.signature.split("|")[3] for r in records] == [
        "field=pair;unit=earlier-pair;diff=missing-pair"]


def test_a_trim_beside_a_sorted_mapping_is_named_by_its_own_rule() -> None:
    """A parser that strips each name and value, drops a pair whose name is then empty,
    and answers a mapping sorted by name (hold-out 15): once the sorted mapping is a
    finding, the trim and the dropped names are named by their own rules beside it, and
    a name of spaces is both at once. Before the sorted mapping was a mode of its own,
    the trim's every variant beside another pair came back reordered, and each trimmed
    character and field was a finding of its own shape
    (``field=name;unit=control;diff=changed``, ...)."""
    from pctfuzz._internal.targets import get_target

    adapter = function_adapter("test-sorted-trim", form_parse=_trimmed_into_sorted_dict)
    bound = get_target("diff_form_parse").bind(adapter)

    def named(text: str) -> dict[str, Any]:
        with pytest.raises(Divergence) as caught:
            bound.check(FormParseCase(text))
        assert caught.value.behaviour is not None, caught.value.difference
        return caught.value.behaviour

    order = named("b=1&a=2&b=3")
    assert order["params"] == {"mode": "sorted-last-per-name"}
    bound.known.add("form-parse", order, FormParseCase("b=1&a=2&b=3"))
    for text in ("a\t=a", "a=%C2%85", "c=%0A&b=1"):
        assert named(text)["rule"] == "trimmed", text
    bound.known.add("form-parse", named("a\t=a"), FormParseCase("a\t=a"))
    dropped = named("=a&b=1")
    assert (dropped["rule"], dropped["params"]) == ("empty_pairs", {"mode": "names-dropped"})
    bound.known.add("form-parse", dropped, FormParseCase("=a&b=1"))
    assert named("%20=a&%C2%85=b&c=1")["rule"] in ("trimmed", "empty_pairs")


def _non_ascii_raw(text: str) -> str:
    from urllib.parse import quote

    return "".join(c if not c.isascii() else quote(c, safe="") for c in text)


def test_an_encoder_leaving_every_non_ascii_character_raw_is_one_rule(tmp_path: Path) -> None:
    """An IRI-style encoder writes each character above U+007F as itself: one rule for
    every such character (asked of it for each UTF-8 length), not a class finding."""
    cases = [EncodeCase(v, "component") for v in ("\u00e9", "a\u4e2db", "\U0001f600", "\x85")]
    one(findings(tmp_path, check_encode, function_adapter("test-iri", encode=_non_ascii_raw,
                                                          sets={"c": "component"}), cases),
        "left_raw", {"chars": "", "non_ascii": True})


def _spaces_out_of_names(text: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    return [(n.replace(" ", ""), v.strip(" ")) for n, v in parse_qsl(text, keep_blank_values=True)]


def test_a_rule_of_names_and_values_is_tried_in_a_value_too() -> None:
    """A parser that removes spaces from names and trims values (hold-out 15) is no
    parser removing every space, though a space in a name alone, and a value's leading
    space moved to the name, say so: the rule's characters are tried in a value as well
    (``generalize.holds_on_variants``)."""
    adapter = function_adapter("test-name-spaces", form_parse=_spaces_out_of_names)
    with pytest.raises(Divergence) as caught:
        check_form_parse(FormParseCase("a= a"), adapter, settings=NO_ACCEPTED)
    behaviour = caught.value.behaviour or {}
    assert (behaviour.get("rule"), behaviour.get("params", {}).get("part")) != ("removed", None)


def test_a_requoter_is_not_taken_as_encoding_nothing() -> None:
    """requests' ``requote_uri`` keeps an escape but encodes a ``<`` beside it: no
    ``taken_as_encoded``."""
    with pytest.raises(Divergence) as info:
        check_encode(EncodeCase("<%41", REQUOTE_SET), get_impl("requests"),
                     settings=NO_ACCEPTED)
    assert "taken_as_encoded" not in info.value.difference


def test_urllib3_uppercasing_escapes_that_are_data_is_one_rule(tmp_path: Path) -> None:
    """urllib3 uppercases each ``%hh`` before it finds the path is not all escapes and
    encodes every ``%`` as data (a real bug, docs/in-the-wild.md): one finding per hex
    letter a-f before (``unit=0x61;diff=changed``, ...), one rule of its own now."""
    cases = [EncodeCase(v, "rfc3986-query") for v in ("%%aa", "%%0e", "%%fa", "a%%cd x%", "%b0%",
                                                      "%%Ae", "%%dA")]
    one(findings(tmp_path, check_encode, "urllib3", cases), "escapes_uppercased", {})


def test_urllib3_requoting_is_named_by_its_mode_not_by_percent_left_raw(tmp_path: Path) -> None:
    """An all-escapes path is requoted(upper): ``%00`` (kept as is, which left_raw("%")
    explains too) was a second finding, ``left_raw(chars=%)``."""
    cases = [EncodeCase(v, "rfc3986-query") for v in ("%00", "%aa", "%41%2f", "a%7E")]
    one(findings(tmp_path, check_encode, "urllib3", cases), "requoted", {"mode": "upper"})


def test_hyperlinks_kept_escapes_are_one_rule_with_its_own_characters(tmp_path: Path) -> None:
    """hyperlink's to_iri (even lengths) keeps the escapes of # % [ ] encoded: before,
    one first-difference finding per kind of segment after the escape (seg=ascii,
    seg=plus, seg=pct-upper, seg=non-ascii, seg=end, ...: eight in one 90 s campaign).
    The characters are hyperlink's own, whichever of them a case holds."""
    cases = [DecodeCase(v) for v in ("%25a", "a%25+a", "%25\x80", "aaa%25", "%25%00",
                                     "%23%C3%A9x", "a%5b", "%5D%5B%41x")]
    one(findings(tmp_path, check_decode, "hyperlink", cases), "kept_encoded",
         {"chars": "#%[]"})


def test_hyperlinks_undecoded_invalid_utf8_is_one_rule(tmp_path: Path) -> None:
    """to_iri gives the text back undecoded when the bytes are not UTF-8: before, named
    replacement(percent-encoded) where that explained it (``a%A0``) and a
    first-difference finding elsewhere (``%aaa``, ``a%00a%aa``, ``%25%aa``)."""
    cases = [DecodeCase(v) for v in ("a%A0", "%aaa", "a%00a%aa", "%25%aa", "%0Aa%aaa")]
    one(findings(tmp_path, check_decode, "hyperlink", cases), "replacement",
         {"mode": "undecoded"})


def test_a_decoder_that_decodes_every_escape_has_no_kept_characters(tmp_path: Path) -> None:
    """The characters of kept_encoded come from the implementation: boltons' decoder
    keeps none, so its invalid UTF-8 (one U+FFFD per sequence) is named as before."""
    cases = [DecodeCase(v) for v in ("%25%A0", "%23%FF", "%5B%C3", "a%5D%80x")]
    one(findings(tmp_path, check_decode, "boltons", cases), "replacement",
         {"mode": "per-sequence"})


def test_a_crash_is_named_a_refusal_only_when_the_implementation_refuses_that_input(
        tmp_path: Path) -> None:
    """hyperlink's newline bug raises URLParseError for "#\\n%a" and "#\\naa"; it answers
    "#%a". The first was named refuses(input=invalid-percent), a second finding for the
    bug (and an accept entry that would have hidden it): the kinds of refusal are now
    asked of the implementation."""
    adapter = get_impl("hyperlink")
    store = FindingStore(tmp_path / "findings")
    for text in ("\n%a", "\naa", "a\n%"):
        case = DecodeCase(text)
        with pytest.raises(Divergence) as caught:
            check_decode(case, adapter, settings=NO_ACCEPTED)
        store.record(new_finding("diff_decode", "crash", caught.value, case=case, accepted=False))
    (record,) = store.iter_findings()
    assert record.behaviour is None and "URLParseError" in record.signature


def _needs_equals(text: str) -> list[tuple[str, str]]:
    """querystring-parser: each sequence must hold one '=' (else it raises), and the
    pairs are decoded with ``unquote_plus`` (invalid UTF-8 as U+FFFD)."""
    pairs = []
    for sequence in text.split("&"):
        if sequence.count("=") != 1:
            raise ValueError("malformed query string")
        name, value = sequence.split("=")
        pairs.append((unquote_plus(name), unquote_plus(value)))
    return pairs


NEEDS_EQUALS = function_adapter("needs-equals", form_parse=_needs_equals)


@pytest.mark.parametrize("text", ["%aa", "%FF&", "%"])
def test_a_refusal_of_its_probes_for_another_reason_names_no_kind(text: str) -> None:
    """A parser that refuses every sequence without '=' refuses the probes ``%FF`` and
    ``%zz`` too, though it decodes ``k=%FF``: its crash on ``%aa`` was named
    ``refuses(input=invalid-utf8)``, and on ``%``, an invalid percent (hold-out 12).
    A probe counts only when the same text without its kind is answered."""
    with pytest.raises(Divergence) as caught:
        check_form_parse(FormParseCase(text), NEEDS_EQUALS, settings=NO_ACCEPTED)
    assert caught.value.impl_error is not None and caught.value.behaviour is None


_FURL_EQUALS = [FormCase(pairs) for pairs in (
    (("", "="),), (("", "=="),), (("", "a=b"),), (("x", "1"), ("", "=")), (("", "= ="),),
    (("", "="), ("a", "=")))]


def test_furls_equals_raw_in_values_is_one_rule_of_that_part(tmp_path: Path) -> None:
    """furl writes ``=`` raw in a value after an empty name, never in a name nor after
    a name: no rule of the whole set named it (the probe asks names), so each case was
    a first-difference finding (five in one 90 s campaign, with ~ or * beside the =);
    ``part = "values"`` alone left (("", "="), ("a", "=")) unexplained (the next one)."""
    one(findings(tmp_path, check_form, "furl", _FURL_EQUALS), "left_raw",
         {"chars": "=", "part": "empty-name-values"})


def test_a_part_rule_is_accepted_in_one_command_and_only_for_its_part(tmp_path: Path) -> None:
    """``pctfuzz accept`` writes ``part`` beside ``chars``; the entry loads, accepts the
    finding's case, and not ``=`` raw in a name."""
    from pctfuzz._internal.accept.entry import explain
    from pctfuzz._internal.cli.accept import _table
    from pctfuzz._internal.outcome import Outcome, reference_outcome

    (record,) = findings(tmp_path, check_form, "furl", _FURL_EQUALS[:1])
    accept = tmp_path / "accept.toml"
    accept.write_text(_table(record, accept, "furl keeps = raw", "furl.py Query.encode").table)
    assert 'part = "empty-name-values"' in accept.read_text()
    (entry,) = load_accept_file(str(accept))
    entry = type(entry)(**{**entry.__dict__, "impl": "furl"})

    def explained(case: FormCase, actual: str) -> tuple[str, ...] | None:
        return explain("form", ("furl",), case, reference_outcome("form", case),
                       Outcome(actual), [entry])

    assert explained(FormCase((("", "a=b"), ("c", "="))), "=a=b&c=%3D")
    assert explained(FormCase((("c", "="),)), "c==") is None
    assert explained(FormCase((("=", ""),)), "==") is None


@pytest.mark.parametrize("bad", ['part = "keys"', "part = 5"])
def test_a_part_toml_key_is_checked_as_it_loads(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[[divergence]]\nid = "p"\ncheck = "form"\nreconciler = "left_raw"\n'
                    'chars = "="\ncitation = "c"\nwhy = "w"\n'
                    f'example = {{ pairs = [["", "="]] }}\n{bad}\n')
    with pytest.raises(UsageError, match="left_raw"):
        load_accept_file(str(path))


def test_urllib3_encodes_a_lone_surrogates_surrogatepass_bytes_one_rule(tmp_path: Path) -> None:
    """urllib3 writes U+D800 as %ED%A0%80 (a real bug, docs/in-the-wild.md): the
    reference refuses, so no rule was tried (``unit=lone-surrogate;diff=
    value-for-non-scalar``); with its escapes bug in the same case, still one rule."""
    cases = [EncodeCase(v, "rfc3986-query") for v in ("\ud800", "a\udfff b", "\ud800%%aa",
                                                      "\udbff\udbff", "%.%dA\ud800")]
    one(findings(tmp_path, check_encode, "urllib3", cases), "lone_surrogates",
         {"mode": "surrogatepass"})


def test_a_behaviour_beside_a_lone_surrogate_is_named_as_without_it(tmp_path: Path) -> None:
    """An encoder that keeps existing escapes and writes a lone surrogate as U+FFFD
    (mdurl, met in a user trial): the U+FFFD is agreement by the non-scalar policy, so
    a case with both is the escapes' finding. It was a second finding (the reference
    refuses the case, so only the refusal's rules were tried: ``left_raw(chars=%)``)."""
    import re
    from urllib.parse import quote

    from pctfuzz._internal.text import surrogates_to_fffd
    from pctfuzz.oracles import function_adapter

    def encode(value: str) -> str:
        parts = re.split("(%[0-9A-Fa-f]{2})", surrogates_to_fffd(value))
        return "".join(p if i % 2 else quote(p, safe="") for i, p in enumerate(parts))

    adapter = function_adapter("keeps", encode, sets={"v": "rfc3986-unreserved"})
    cases = [EncodeCase(v, "rfc3986-unreserved")
             for v in ("%aa", "%aa\ud800", "\udfff%2f x", "a\ud800%41")]
    one(findings(tmp_path, check_encode, adapter, cases), "requoted", {"mode": "keep"})


def test_yarl_drops_lone_surrogates_one_rule(tmp_path: Path) -> None:
    cases = [EncodeCase(v, "rfc3986-query") for v in ("\ud800", "a\udfff b", "\ud800~x")]
    one(findings(tmp_path, check_encode, "yarl", cases), "lone_surrogates",
         {"mode": "dropped"})


@pytest.mark.parametrize(("mode", "answer", "accepted"), [
    ("dropped", "a%20", True), ("dropped", "a%ED%A0%80%20", False),
    ("surrogatepass", "a%ED%A0%80%20", True), ("surrogatepass", "a%20", False),
    ("replaced", "a%EF%BF%BD%20", True), ("replaced", "a%20", False)])
def test_a_lone_surrogates_entry_accepts_its_mode_only(mode: str, answer: str,
                                                       accepted: bool) -> None:
    from pctfuzz._internal.accept.entry import explain
    from pctfuzz._internal.accept.reconcilers import lone_surrogates
    from pctfuzz._internal.outcome import Outcome, reference_outcome

    case = EncodeCase("a\ud800 ", "component")
    entry = divergence(id="s", check="encode", reconcile=lone_surrogates(mode), citation="c",
                       why="w", example=case, impl="x")
    got = explain("encode", ("x",), case, reference_outcome("encode", case), Outcome(answer),
                  [entry])
    assert (got == ("s",)) is accepted


def test_tornados_grouping_by_the_names_bytes_is_one_rule(tmp_path: Path) -> None:
    """tornado's parse_qs_bytes is a dict keyed by the name's bytes: two names that are
    not UTF-8 stay apart though both decode to U+FFFD. Its own order was not asked (a
    str case is Unsupported): pairs_order(sorted) and (grouped), and a first-difference
    finding per segment kind of the names that grouped(text) put together (six in one
    90 s campaign)."""
    cases = [FormParseCase(t) for t in (b"\x80&B\x7f%&%&\xa0&B\x7f%", b"\x80&B&\xa0&B",
                                        b"\x00&a&\x00", b"B%&0&B%", b"%80=1&%A0=2&%80=3")]
    one(findings(tmp_path, check_form_parse, "tornado", cases), "pairs_order",
         {"mode": "grouped-bytes"})


def test_starlettes_latin1_bytes_is_one_rule(tmp_path: Path) -> None:
    """starlette's QueryParams(bytes) reads the bytes as latin-1 first (a real bug,
    docs/in-the-wild.md): a lone 0x80 was named latin1_fallback, valid UTF-8 in a name
    and in a value were two first-difference findings."""
    cases = [FormParseCase(t) for t in (b"\x80", b"=\xc3\x80", b"\xc3\x80", b"a=%C3\xa9&\xff=1")]
    one(findings(tmp_path, check_form_parse, "starlette", cases), "latin1_bytes", {})


class _Latin1Reader:
    """A decoder and a form parser given ``encoding="latin-1"`` (urllib's ``unquote``
    and ``parse_qsl``): every escaped byte is read as latin-1, valid UTF-8 too."""

    name = "latin1-reader"

    def decode(self, case: DecodeCase) -> bytes:
        from urllib.parse import unquote

        value = case.value.decode("latin-1") if isinstance(case.value, bytes) else case.value
        return unquote(value, encoding="latin-1").encode("utf-8", "surrogatepass")

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        from urllib.parse import parse_qsl

        text = case.text.decode("latin-1") if isinstance(case.text, bytes) else case.text
        return parse_qsl(text, keep_blank_values=True, encoding="latin-1")


@pytest.mark.parametrize("check, case_type", [(check_decode, DecodeCase),
                                              (check_form_parse, FormParseCase)])
def test_a_latin1_reader_is_one_rule_named_for_every_escape(tmp_path: Path, check,
                                                            case_type) -> None:
    """A latin-1 reader was named latin1_fallback ("latin-1 for a value that is not
    UTF-8") on its first input, a byte that is not UTF-8, and its valid UTF-8 escapes
    were another, unnamed finding. Its scope is asked of it (``%C3%A9`` as ``Ã©``)."""
    texts = ("%E9", "%C3%A9", "a%FFb", "%E2%82%AC", "%C3", "x=%C3%A9&%F0%9F%98%80=1",
             "+%c3%a9")
    one(findings(tmp_path, check, _Latin1Reader(), [case_type(t) for t in texts]),
        "latin1_fallback", {"scope": "always"})


def test_latin1_fallback_scopes_model_what_they_say() -> None:
    from pctfuzz._internal.accept.reconcilers import latin1_fallback
    from pctfuzz._internal.outcome import Outcome

    case = FormParseCase("a=%C3%A9%E9&%41+b")
    reference = Outcome([("a", "\u00e9\ufffd"), ("A b", "")])
    always = latin1_fallback("always").reconcile(case, reference, Outcome([]))
    fallback = latin1_fallback().reconcile(case, reference, Outcome([]))
    assert always is not None and fallback is not None
    assert always[0].value == [("a", "\u00c3\u00a9\u00e9"), ("A b", "")]
    assert fallback[0].value == [("a", "\u00c3\u00a9\u00e9"), ("A b", "")]  # not UTF-8
    case = DecodeCase("%C3%A9-\u00e9")
    got = latin1_fallback("always").reconcile(case, Outcome(b""), Outcome(b""))
    assert got is not None and got[0].value == "\u00c3\u00a9-\u00e9".encode()
    with pytest.raises(UsageError):
        latin1_fallback("sometimes")


def test_a_parser_that_refuses_raw_invalid_utf8_only_is_named_a_refusal(tmp_path: Path) -> None:
    """werkzeug raises for a raw 0x80 and keeps %FF percent-encoded: the refusal kinds
    asked of it hold raw bytes too."""
    adapter = get_impl("werkzeug")
    store = FindingStore(tmp_path / "findings")
    for text in (b"\x80", b"a=\xff", b"\xc3"):
        case = FormParseCase(text)
        with pytest.raises(Divergence) as caught:
            check_form_parse(case, adapter, settings=NO_ACCEPTED)
        store.record(new_finding("diff_form_parse", "crash", caught.value, case=case,
                                 accepted=False))
    (record,) = store.iter_findings()
    assert record.behaviour == {
        "rule": "refuses", "params": {"input": "invalid-utf8", "raised": "ValueError"},
        "text": "refuses an input with invalid UTF-8 (ValueError)"}


def test_newlines_written_crlf_as_html_forms_do_is_one_rule(tmp_path: Path) -> None:
    """A serializer writing every newline (CR, LF, CR LF) as CR LF, as HTML's form
    submission normalizes them: '\n' alone was written_as('\n', '%0D%0A') and every
    input with a CR before an LF a class of its own (a planted serializer: 13-18
    findings in 30 s). One that writes a lone LF as CR LF but keeps a CR LF's CR is
    not named so (Tcl's formatQuery: '\r\n' as '%0D%0D%0A')."""
    import re

    from pctfuzz._internal.form import form_urlencode

    newline = re.compile("\r\n|\r|\n")
    html = function_adapter("crlf", form_serialize=lambda pairs: form_urlencode(
        (newline.sub("\r\n", n), newline.sub("\r\n", v)) for n, v in pairs))
    cases = [FormCase(p) for p in ((("a", "x\ny"),), (("\r\r\n", ""),), (("", "\r\n\n"),),
                                   (("\r%\r\n", ""),))]
    one(findings(tmp_path, check_form, html, cases), "newlines_normalized", {})
    lf_only = function_adapter("lf-only", form_serialize=lambda pairs: form_urlencode(
        (n.replace("\n", "\r\n"), v.replace("\n", "\r\n")) for n, v in pairs))
    with pytest.raises(Divergence) as info:
        check_form(FormCase((("a\nb", ""),)), lf_only)
    assert info.value.behaviour is None or \
        info.value.behaviour["rule"] != "newlines_normalized", info.value.behaviour


class _CurlError(Exception):
    """libcurl's refusal, as pycurl raises it (``pycurl.error``)."""


def _curl_decode(text: str) -> bytes:
    """pycurl's query decoding: a NUL refused by pycurl (``ValueError``), then every
    byte below 0x20 once decoded, raw or escaped, by libcurl (``REJECT_CTRL``); DEL is
    data."""
    if "\x00" in text:
        raise ValueError("embedded null byte")
    decoded = unquote_to_bytes(text)
    if any(byte < 0x20 for byte in decoded):
        raise _CurlError("URL decode error, most likely because of rubbish in the input")
    return decoded


def test_a_refusal_is_one_finding_per_family_of_what_was_raised(tmp_path: Path) -> None:
    """A tuning decoder (pycurl's): its NUL refusal and libcurl's refusal of every
    control were one finding, "refuses an input with control char", which DEL is not
    refused for, and '%0a' a finding of its own. Now: a C0 control raw or escaped is one
    finding of libcurl's refusal, a NUL one of pycurl's."""
    adapter = function_adapter("curlish", decode=_curl_decode)
    cases = [DecodeCase(t) for t in ("%0a", "\t", "a%1Fb", "\x01x", "\x00", "a\x00")]
    records = sorted(findings(tmp_path, check_decode, adapter, cases, "crash"),
                     key=lambda r: -r.hits)
    assert [r.hits for r in records] == [4, 2], [r.signature for r in records]
    assert records[0].behaviour["params"] == {"input": "c0-control",
                                              "raised": "test_rules_catalogue._CurlError"}
    # the NUL's ValueError is no refusal of every control: its own, by where it rose
    assert records[1].behaviour is None
    assert records[1].signature.split("|")[3].startswith("raised=ValueError@")
    assert check_decode(DecodeCase("a\x7fb"), adapter) == ()


def _node(name: str) -> Impl:
    try:
        adapter = get_impl(name)
        adapter.decode(DecodeCase("a"))
    except PeerUnavailable as exc:
        pytest.skip(f"{name}: {exc} (needs Node.js)")
    return adapter


@pytest.mark.parametrize("name", ["node", "node-querystring"])
def test_nodes_low_byte_fallback_is_one_rule(tmp_path: Path, name: str) -> None:
    """Node falls back to querystring.unescapeBuffer when decodeURIComponent throws, and
    keeps only the low byte of each non-ASCII character (a real bug, docs/in-the-wild.md):
    a first-difference finding per name and value, and for the decoder per segment
    kind, plus replacement(per-sequence) where both answer alike (``%FF``).
    querystring.parse also decodes a value after a name with two escapes (its scan's
    state is shared), and URLSearchParams reads a lone surrogate as U+FFFD first (a
    USVString): 2 findings named by no rule each in a 90 s campaign."""
    adapter = _node(name)
    cases = [FormParseCase(t) for t in (
        "\x80%aa", "=\x80%aa", "%FF\u00e9", "a+b=%FF+\u00e9", "\x80%&\x80%aa", "%\x80=\x80%aa",
        "=\x80%+aa", "%aa%aa\x80=\x80%",
        *(["%aa\ud800\x80", "=%aa\ud800\x80"] if name == "node" else
          # (a lone surrogate decodeURIComponent keeps, beside an escape; the low byte of
          # U+D83F is '?', which lone_surrogates(question-mark) explains too)
          ["%aa%aa=\x80%", "%aa\x80&\ud800%0a", "=\x80%aa&\ud800%0a", "\ud83f%aa"]))]
    one(findings(tmp_path, check_form_parse, adapter, cases), "replacement",
         {"mode": "low-byte" if name == "node" else "low-byte-shared-scan"})
    if name == "node-querystring":
        decodes = [DecodeCase(v) for v in ("%FF", "%FF\u00e9", "a%C3\u00e9", "%E2%82x\u4e00",
                                           "%\ud83f")]
        one(findings(tmp_path / "decode", check_decode, adapter, decodes), "replacement",
             {"mode": "low-byte"})


class _DropsInvalidUtf8:
    """A decoder that drops invalid UTF-8 (``bytes.decode(errors="ignore")``)."""

    name = "drops-invalid-utf8"

    def decode(self, case: DecodeCase) -> bytes:
        from pctfuzz import percent_decode

        value = case.value if isinstance(case.value, bytes) else case.value.encode()
        return percent_decode(value).decode("utf-8", "ignore").encode("utf-8")


def test_a_decoder_that_drops_invalid_utf8_is_one_rule(tmp_path: Path) -> None:
    cases = [DecodeCase(v) for v in ("%FF", "a%C3", "%80%80b", "%e2%82", b"%A0z")]
    one(findings(tmp_path, check_decode, _DropsInvalidUtf8(), cases),  # type: ignore[arg-type]
         "replacement", {"mode": "dropped"})


def test_dropped_is_named_over_urllibs_accepted_replacement(tmp_path: Path) -> None:
    """With urllib's entries in force (its unquote writes U+FFFD, an accepted REPLACE
    entry), unquote(errors="ignore") is still the one rule: the rule's answer is
    computed from the case, not from the entry's."""
    from urllib.parse import unquote

    from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter

    class UnquoteIgnore(UrllibAdapter):
        name = "urllib+unquote-ignore"

        def decode(self, case: DecodeCase) -> bytes:
            assert isinstance(case.value, str)
            return unquote(case.value, errors="ignore").encode("utf-8")

    cases = [DecodeCase(v) for v in ("%A0aaa", "%aa", "b%FF%FEcd", "%C3")]
    one(findings(tmp_path, check_decode, UnquoteIgnore(), cases, settings=DEFAULT_SETTINGS),
         "replacement", {"mode": "dropped"})


class _PlusKept:
    """A form parser built on percent-decode alone: ``+`` stays ``+``."""

    name = "plus-kept"

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        from urllib.parse import unquote

        assert isinstance(case.text, str)
        return [(unquote(n), unquote(v)) for n, _, v in
                (s.partition("=") for s in case.text.split("&") if s)]


def test_a_parser_that_keeps_plus_is_one_rule(tmp_path: Path) -> None:
    cases = [FormParseCase(t) for t in ("+", "a=+", "a+b=c&d=e+f", "++=%20+", "x&+")]
    one(findings(tmp_path, check_form_parse, _PlusKept(), cases),  # type: ignore[arg-type]
         "plus_kept", {})


def test_quote_of_unquote_is_named_decode_utf8(tmp_path: Path) -> None:
    """``quote(unquote(s))`` (furl's path segments) decodes every escape as UTF-8 and
    encodes again: ``%E9`` becomes U+FFFD, where decode-safe keeps it. The mode asked of
    the implementation tells them apart (it was named decode-safe, which does not
    explain ``%E9``: a second finding). What its decoding does is split by what it
    means: the escapes of plain characters decoded, and invalid UTF-8 replaced (data
    lost), are two findings (one rule was both: accepting it accepted data loss)."""
    from urllib.parse import quote, unquote

    from pctfuzz.oracles import function_adapter

    adapter = function_adapter("requotes", lambda s: quote(unquote(s), safe=""),
                               sets={"v": "rfc3986-unreserved"})
    cases = [EncodeCase(v, "rfc3986-unreserved") for v in ("%41b", "%2fx", "a%E9", "%7E%41",
                                                          "%80x", "%C3%A9")]
    records = findings(tmp_path, check_encode, adapter, cases)
    named = {r.behaviour["params"].get("decoded"): (r.hits, r.behaviour["params"]["mode"])
             for r in records}
    assert named == {"harmless": (4, "decode-utf8"), "invalid": (2, "decode-utf8")}, named


def test_the_delimiters_a_requoting_lets_out_are_a_finding_of_their_own(tmp_path: Path) -> None:
    """``quote(unquote(s))`` with the query's delimiters raw: an escaped '&' or '=' comes
    out raw (the value read back as two fields), one finding of the delimiters beside
    the harmless requoting and the data it loses, each with its impact (issue 31)."""
    from urllib.parse import quote, unquote

    from pctfuzz._internal.accept.impact import impact_of
    from pctfuzz.oracles import function_adapter

    adapter = function_adapter("requotes-query", lambda s: quote(unquote(s), safe="&=/+"),
                               sets={"q": "query"})
    cases = [EncodeCase(v, "query") for v in ("%41", "a%42c", "%26", "x%26y", "%3D", "%E9")]
    records = findings(tmp_path, check_encode, adapter, cases)
    named = {r.behaviour["params"].get("decoded", "plain"): (r.hits, impact_of(
        r.kind, r.signature.split("|")[3], r.behaviour)) for r in records}
    # (its own mode cannot be asked, as its set is not the query's: the plain escapes
    # are named by the narrowest mode that explains them, decode-unreserved)
    assert named == {"plain": (2, "changes-data"), "delimiters": (3, "splits-field"),
                     "invalid": (1, "loses-data")}, named


def _normalize_rfc3986(text: str) -> str:
    """RFC 3986 6.2.2 on a query: an escape of an unreserved character decoded (6.2.2.2),
    the others' hex uppercased (6.2.2.1), what a query may not hold encoded."""
    import re
    from urllib.parse import quote

    def escape(triplet: str) -> str:
        char = chr(int(triplet[1:], 16))
        return char if char.isascii() and (char.isalnum() or char in "-._~") \
            else triplet.upper()

    parts = re.split("(%[0-9A-Fa-f]{2})", text)
    return "".join(escape(p) if i % 2 else quote(p, safe="!$&'()*+,;=:@/?~")
                   for i, p in enumerate(parts))


def test_rfc3986_normalization_is_one_requoted_mode(tmp_path: Path) -> None:
    """An encoder that normalizes escapes as RFC 3986 6.2.2 does (unreserved decoded,
    the rest uppercased) was named decode-safe (its probes could not tell it from yarl's),
    and each escape of a reserved character that the set leaves raw and the encoder
    keeps (%2C, %3D, %3A, %21, %40, %2F, %24, %26) was one more finding: 11 findings for
    one behaviour in a 60 s campaign of a tuning adapter. It is the mode ``normalize``."""
    from pctfuzz._internal.checks import profile
    from pctfuzz.oracles import function_adapter

    adapter = function_adapter("normalizes", _normalize_rfc3986, sets={"q": "rfc3986-query"})
    assert profile.requote_mode(EncodeCase("a", "rfc3986-query"), adapter) == "normalize"
    cases = [EncodeCase(v, "rfc3986-query") for v in
             ("%2C", "%3d", "%aa%41", "%7e%2F?", "a%E9 %26", "%21%40%24")]
    one(findings(tmp_path, check_encode, adapter, cases), "requoted", {"mode": "normalize"})


class _MdurlLikeDecoder:
    """mdurl.decode's shape (met in a user trial): the escapes of some reserved
    characters kept, in uppercase, the rest decoded with U+FFFD per invalid byte."""

    name = "mdurl-like"

    def decode(self, case: DecodeCase) -> bytes:
        import re

        def one(match: re.Match[str]) -> str:
            return match.group().upper() if match.group()[1:].upper() in ("2F", "3F") \
                else match.group()

        assert isinstance(case.value, str)
        parts = re.split("(%(?:2[fF]|3[fF]))", case.value)
        out = b"".join(p.upper().encode() if i % 2 else percent_decode_bytes(p)
                       for i, p in enumerate(parts))
        return out.decode("utf-8", "pctfuzz-per-byte").encode("utf-8")


def percent_decode_bytes(text: str) -> bytes:
    from pctfuzz import percent_decode

    return percent_decode(text)


def test_kept_escapes_in_uppercase_beside_per_byte_replacement_are_two_rules(
        tmp_path: Path) -> None:
    """Before kept_encoded(hex=upper) and replacement as a model field: '%2f' answered
    '%2F', and '%A0%2F' (both behaviours in one case), were first-difference findings;
    a 40 s campaign on mdurl gave 9 findings for 3 behaviours."""
    import pctfuzz._internal.accept.model  # noqa: F401  (registers the error handlers)

    cases = [DecodeCase(v) for v in ("%2f", "a%3F", "%A0%2f", "%2F%aa", "x%3f%2F%ff", "%aa")]
    records = findings(tmp_path, check_decode, _MdurlLikeDecoder(), cases)  # type: ignore[arg-type]
    assert sorted(r.signature.split("|")[3] for r in records) == [
        "rule=kept_encoded(chars=/?,hex=upper)", "rule=replacement(mode=per-byte)"]


def test_a_kept_encoded_toml_entry_takes_hex(tmp_path: Path) -> None:
    path = tmp_path / "accept.toml"
    path.write_text('[[divergence]]\nid = "k"\nimpl = "x"\ncheck = "decode"\n'
                    'reconciler = "kept_encoded"\nchars = "/"\nhex = "upper"\n'
                    'citation = "c"\nwhy = "w"\nexample = { value = "%2f" }\n')
    (entry,) = load_accept_file(str(path))
    assert "in uppercase" in entry.summary
    bad = tmp_path / "bad.toml"
    bad.write_text(path.read_text().replace('hex = "upper"', 'hex = "lower"'))
    with pytest.raises(UsageError, match="hex must be"):
        load_accept_file(str(bad))


def test_a_toml_entry_of_a_rule_without_parameter_keeps_its_options(tmp_path: Path) -> None:
    """``part`` of a rule that has no parameter (``decoded_twice``, ``plus_kept``) was
    dropped: an entry for names only accepted the values' behaviour too."""
    for rule, summary in (("decoded_twice", "percent-decodes twice in each name"),
                          ("plus_kept", "keeps + as + in each name")):
        path = tmp_path / f"{rule}.toml"
        path.write_text('[[divergence]]\nid = "t"\nimpl = "x"\ncheck = "form-parse"\n'
                        f'reconciler = "{rule}"\npart = "names"\n'
                        'citation = "c"\nwhy = "w"\nexample = { text = "%2541+" }\n')
        (entry,) = load_accept_file(str(path))
        assert entry.summary.startswith(summary), entry.summary


def test_a_decoded_twice_toml_entry_takes_plus(tmp_path: Path) -> None:
    """``plus = "space"``: the second decoding reads '+' as a space (``unquote_plus``
    after ``unquote``); form-parse only, where a '+' is a space at all."""
    path = tmp_path / "accept.toml"
    path.write_text('[[divergence]]\nid = "t"\nimpl = "x"\ncheck = "form-parse"\n'
                    'reconciler = "decoded_twice"\npart = "names"\nplus = "space"\n'
                    'citation = "c"\nwhy = "w"\nexample = { text = "%2b" }\n')
    (entry,) = load_accept_file(str(path))
    assert entry.summary.startswith(
        "percent-decodes twice in each name, '+' as a space the second time")
    bad = tmp_path / "bad.toml"
    for old, new, message in (('plus = "space"', 'plus = "kept"', "plus must be"),
                              ('check = "form-parse"', 'check = "decode"',
                               "form-parse, not decode")):
        text = path.read_text().replace(old, new)
        bad.write_text(text.replace('{ text = "%2b" }', '{ value = "%2b" }')
                       if "decode" in new else text)
        with pytest.raises(UsageError, match=message):
            load_accept_file(str(bad))


def test_pythons_strip_is_one_trim_rule_with_unicode_whitespace(tmp_path: Path) -> None:
    """An adapter that calls ``value.strip()`` (a user trial planted it in front of
    mdurl) trims U+0085, U+00A0, U+3000... too: the probe asked C0 and space only, so
    each input ending in NEL was a first-difference finding (14 findings in 30 s)."""
    from urllib.parse import quote

    from pctfuzz.oracles import function_adapter

    adapter = function_adapter("strips", lambda v: quote(v.strip(), safe=""),
                               sets={"v": "rfc3986-unreserved"})
    cases = [EncodeCase(v, "rfc3986-unreserved")
             for v in (" a", "a\x85", "\u3000b\t", "\xa0%aa\u2028", "c\x1f")]
    (record,) = findings(tmp_path, check_encode, adapter, cases)
    assert record.behaviour["rule"] == "trimmed"
    assert {"\x85", "\xa0", "\u3000", "\u2028", " ", "\x1f"} <= set(
        record.behaviour["params"]["chars"])


def test_a_trim_combines_with_rules_ranked_before_it(tmp_path: Path) -> None:
    """A user's ``value.strip()`` before an encoder that keeps escapes (mdurl's
    shape): a case holding both, and a third candidate or more between them, was a
    first-difference finding (the trim ranked past the combined candidates); 3 extra
    findings in 600 random mixes."""
    import re
    from urllib.parse import quote

    from pctfuzz.oracles import function_adapter

    escape = re.compile(r"(%[0-9A-Fa-f]{2})")

    def encode(value: str) -> str:
        parts = escape.split(value.strip())
        return "".join(p if i % 2 else quote(p, safe="!#$&'()*+,-./:;=?@_~")
                       for i, p in enumerate(parts))

    adapter = function_adapter("strips-keeps", encode, sets={"v": "encodeURI"})
    cases = [EncodeCase(v, "encodeURI") for v in ("%41", " a", "+%2f \u3000\t", "%2f#'\u3000")]
    records = findings(tmp_path, check_encode, adapter, cases)
    assert sorted(r.behaviour["rule"] for r in records) == ["requoted", "trimmed"]


class _JavaLikeDecoder:
    """java.net.URLDecoder.decode before JDK-8353453 (met in a campaign): '+' is a
    space, an escape's two characters go to Integer.parseInt(s, 16), which takes a sign
    (a negative value is refused), and the bytes are read as UTF-8 with U+FFFD."""

    name = "java-like"

    def decode(self, case: DecodeCase) -> bytes:
        assert isinstance(case.value, str)
        text, out, i = case.value, bytearray(), 0
        while i < len(text):
            if text[i] == "%":
                byte = int(text[i + 1:i + 3], 16)  # ValueError: a refusal
                if byte < 0 or len(text[i + 1:i + 3]) < 2:
                    raise ValueError("negative value")
                out.append(byte)
                i += 3
            else:
                out += b" " if text[i] == "+" else text[i].encode()
                i += 1
        return out.decode("utf-8", "replace").encode("utf-8")


def test_a_signed_escape_is_one_rule_whatever_comes_before_it(tmp_path: Path) -> None:
    """Java's '%+1' (the byte 01) and '%-0' (NUL): 4 first-difference findings in a 90 s
    campaign, one per segment before the escape (%aa, %A0, '+'). A case that shows two
    behaviours is a hit of the simpler one's finding."""
    cases = [DecodeCase(v) for v in ("%+1", "x%-0", "%e9", "%+1%e9", "+%+a", "x%-0+",
                                     "%A0%+a+")]
    records = findings(tmp_path, check_decode, _JavaLikeDecoder(), cases)  # type: ignore[arg-type]
    assert sorted(r.behaviour["rule"] for r in records) == ["replacement", "signed_escapes"]


def test_signed_escapes_composes_with_plus_and_replacement() -> None:
    from pctfuzz._internal.accept.model import Model, render

    model = Model(signed_escapes=True, plus_as_space=True, replacement="per-sequence")
    assert render(model, "decode", DecodeCase("%+1+%-0%e9")) == b"\x01 \x00\xef\xbf\xbd"
    assert render(Model(signed_escapes=True), "decode", DecodeCase(b"%+f%-1")) == b"\x0f%-1"


class _DotNetLikeDecoder:
    """HttpUtility.UrlDecode without its low-byte bug, written from Mono's source: '+'
    is a space, '%uXXXX' a UTF-16 code unit (a high and a low unit in a row one
    character), '%HH' a byte, and the bytes are read as UTF-8 with U+FFFD."""

    name = "dotnet-like"

    def decode(self, case: DecodeCase) -> bytes:
        assert isinstance(case.value, str)
        text, out, units, i = case.value, bytearray(), bytearray(), 0
        while i <= len(text):
            unit = text[i + 2:i + 6]
            if text[i:i + 2] == "%u" and len(unit) == 4 and all(
                    c in "0123456789abcdefABCDEF" for c in unit):
                units += int(unit, 16).to_bytes(2, "little")
                i += 6
                continue
            out += units.decode("utf-16-le", "replace").encode("utf-8")
            units.clear()
            if i == len(text):
                break
            hex_pair = text[i + 1:i + 3]
            if text[i] == "%" and len(hex_pair) == 2 and all(
                    c in "0123456789abcdefABCDEF" for c in hex_pair):
                out.append(int(hex_pair, 16))
                i += 3
            else:
                out += b" " if text[i] == "+" else text[i].encode()
                i += 1
        return out.decode("utf-8", "replace").encode("utf-8")


def test_a_u_escape_is_one_rule_beside_plus_and_replacement(tmp_path: Path) -> None:
    """.NET's '%u0041' ('A'): Mono's built-in entry was code that did not compose with
    the catalogue's rules; ``percent_u`` is a model field, so a case with '+', a '%u'
    pair and invalid UTF-8 is a hit of the findings of each behaviour."""
    cases = [DecodeCase(v) for v in ("%u0041", "a+b", "%e9", "%u0041+", "+%uD83D%uDE00%e9",
                                     "%uDC00x", "%u002B+%u00e9")]
    records = findings(tmp_path, check_decode, _DotNetLikeDecoder(), cases)  # type: ignore[arg-type]
    assert sorted(r.behaviour["rule"] for r in records) == [
        "percent_u", "plus_as_space", "replacement"]


def test_percent_u_composes_with_plus_and_replacement() -> None:
    from pctfuzz._internal.accept.model import Model, render

    model = Model(percent_u=True, plus_as_space=True, replacement="per-sequence")
    assert render(model, "decode", DecodeCase("%u0041+%u002B%uD83D%uDE00%uDC00%e9")) == (
        "A +\U0001F600\ufffd\ufffd".encode())
    assert render(Model(percent_u=True), "decode", DecodeCase("%U0041%u004")) == b"%U0041%u004"


@pytest.mark.parametrize(("text", "merged"), [
    ("\ud800a", "\U00010061"), ("\udc00\udc00", "\U00010000"), ("\U0001F4A9", "\U0001F4A9"),
    ("a\ud800", "a\ud800"), ("\ud83d\ud83d\ude00", "\U0001f43d\ude00")])
def test_merge_surrogates_takes_the_next_code_unit(text: str, merged: str) -> None:
    """Node's encodeStr: any surrogate code unit is a pair's lead, the next unit's low 10
    bits its trail (a last one is left: Node throws URIError)."""
    from pctfuzz._internal.text import merge_surrogates

    assert merge_surrogates(text) == merged


def test_werkzeug_grouped_pairs_with_kept_escapes_are_two_rules(tmp_path: Path) -> None:
    """werkzeug's form parser groups pairs by name (a MultiDict) and keeps invalid UTF-8
    percent-encoded; a case of both, with ``percent-encoded`` the tenth candidate, was a
    first-difference finding per segment kind: 13 findings in a 90 s campaign, 10 named
    by no rule. The parser's own mode, asked of it, is the only one tried now."""
    texts = ["%aa", "9&a&9", "9&+%aa&9", "9&%%aa&9", "%A0&9&a&9", "%&%aa&%", "=+%90&9&a&9",
             "\x10&\x80%aa&\x10", "9&=&9&+%aa",
             # (';' is no separator here: it made an "empty sequence" and four modes of
             # empty_pairs pushed percent-encoded out of the combined rules again)
             "%&+&%&;%aa", " &;%aa&+", "10\ufffd&\u0685&10\ufffd&;%C3+"]
    records = findings(tmp_path, check_form_parse, "werkzeug", [FormParseCase(t) for t in texts])
    assert sorted((r.behaviour["rule"], r.behaviour["params"]) for r in records) == [
        ("pairs_order", {"mode": "grouped"}), ("replacement", {"mode": "percent-encoded"})]


def test_a_parser_grouping_kept_lone_surrogates_apart_is_one_rule(tmp_path: Path) -> None:
    """Django's QueryDict groups pairs by name and keeps a lone surrogate, so ``\\ud800``
    and ``%aa`` are two names though the non-scalar policy compares both as U+FFFD:
    3 first-difference findings in a 90 s campaign beside ``pairs_order(grouped)``."""
    texts = ["|&a&|", "a&%&%aa&0&a&\ud800", "a&%A0&a&0&\ud800", "%|&a&%|&%aa&0&\ud800"]
    one(findings(tmp_path, check_form_parse, "django", [FormParseCase(t) for t in texts]),
        "pairs_order", {"mode": "grouped"})


def test_a_normalization_combines_with_the_set_whatever_its_rank(tmp_path: Path) -> None:
    """hyperlink's form serializer leaves '~' raw, encodes '*' and writes a space as
    %20 (another standard's set: one finding) and writes NFC (U+FB2C decomposes): a
    name of both was a first-difference finding (normalized ranked ninth, behind three
    pair orders a one-pair case cannot show)."""
    cases = [FormCase(((n, ""),)) for n in ("~", "~\ufb2c", "%~\ufb2c", "a~\ufb2c=")]
    one(findings(tmp_path, check_form, "hyperlink", cases), "other_set",
        {"raw": "~", "encoded": "*", "space": "%20"})


def test_a_bytes_decoders_replacement_mode_is_asked_as_bytes(tmp_path: Path) -> None:
    """As bytes, ``%FF\\xe9`` is U+FFFD twice per sequence too: urllib's bytes decoder
    was taken for Node's low-byte fallback, the only mode then tried, and ``b"a\\x80"``
    was a first-difference finding."""
    cases = [DecodeCase(v) for v in (b"a\x80", b"\xe9%41", b"x\xc3\xa9\xff")]
    one(findings(tmp_path, check_decode, "urllib", cases), "replacement",
        {"mode": "per-sequence"})


def test_an_escape_left_by_a_dropped_surrogate_is_requoted_by_the_same_rules(
        tmp_path: Path) -> None:
    """yarl's requoting quoter drops a lone surrogate first, so ``%5\\ud8004`` holds
    the escape ``%54`` (``T``): the requote rules were not tried (the input itself holds
    no escape) and each such case was a first-difference finding."""
    cases = [EncodeCase(v, "c0-control") for v in ("%7a", "%5\ud8004", "\ud800%a\ud800a",
                                                   "aaaa%5\ud800a")]
    # (and its bare '%' as %25 beside them: the other lone_surrogates modes pushed
    # encoded('%') out of the combined rules; the mode is asked of it now)
    cases += [EncodeCase(v, "fragment") for v in ("%", "+QQQ%A3\ud800%", "g{2+%20=%%\ud800")]
    records = findings(tmp_path, check_encode, "yarl-requote", cases)
    assert {r.behaviour["rule"] for r in records} <= {"requoted", "lone_surrogates", "encoded"}


def test_a_space_beside_a_lone_surrogate_the_reference_refuses(tmp_path: Path) -> None:
    """urllib's urlencode(quote_via=quote) (the adapter calls it for some cases) in
    KOI8-R: the lone surrogate as an NCR (Python's codec) and the space as %20, where the
    reference refuses the surrogate: the space rules were not tried then, and the case
    was a first-difference finding of a 90 s campaign."""
    case = FormCase((("", ""), ("\ud800 ", "")), "KOI8-R")
    assert get_impl("urllib").form_serialize(case) == "=&%26%2355296%3B%20="
    one(findings(tmp_path, check_form, "urllib", [case]), "python_codec", {})


def test_a_parser_reading_a_lone_surrogate_as_a_question_mark(tmp_path: Path) -> None:
    """``text.encode("utf-8", "replace")`` before parsing (the planted form-plus-kept
    codec): each lone surrogate is '?'; beside its '+' kept, each mix was a
    first-difference finding (plus_kept ranked thirteenth, behind four empty_pairs modes
    a text without an empty sequence cannot show)."""
    from pctfuzz._internal.oracles.codec import as_adapter
    from pctfuzz._internal.oracles.faults import FAULTS

    adapter = as_adapter(FAULTS["form-plus-kept"])
    surrogates = [FormParseCase(t) for t in ("\ud800", " \ud800", "a=\udc00")]
    one(findings(tmp_path / "s", check_form_parse, adapter, surrogates),
        "lone_surrogates", {"mode": "question-mark"})
    mixes = [FormParseCase(t) for t in ("+", "+&\ud800 ", "\ud800 +=b")]
    records = findings(tmp_path / "m", check_form_parse, adapter, mixes)
    assert all(r.behaviour for r in records)  # (a mix is a hit of the simpler one)
    assert {r.behaviour["rule"] for r in records} <= {"plus_kept", "lone_surrogates"}


def test_an_added_suffix_names_a_case_only_when_no_rule_explains_it(tmp_path: Path) -> None:
    """yarl's requoting quoter keeps '%00' and writes a bare '%' as %25: '%00%' answered
    '%00%25' was named "adds '25' after the answer" (a guess from the case alone, tried
    before the combined rules), a finding of its own."""
    cases = [EncodeCase(v, "c0-control") for v in ("%7a", "%", "%00%")]
    records = findings(tmp_path, check_encode, "yarl-requote", cases)
    assert {r.behaviour["rule"] for r in records} <= {"requoted", "encoded"}


def test_furls_path_requoted_segment_by_segment_is_one_rule(tmp_path: Path) -> None:
    """furl requotes each '/'-separated segment that is valid encoded on its own (a
    decoded '/' as %2F) and encodes any other as data: 13 findings in a 90 s campaign,
    named by five requote modes, escapes_uppercased, left_raw('%') or no rule."""
    cases = [EncodeCase(v, s) for v in ("%2f", "%aa%2F", "%5a%2F", "%aa /%25", "%/%2fa",
                                        "%/%00/ %aa", "%41/ %41")
             for s in ("rfc3986-pchar-/", "rfc3986-query")]
    one(findings(tmp_path, check_encode, "furl", cases), "requoted",
        {"mode": "decode-utf8", "scope": "segments"})


def test_a_requoted_toml_entry_takes_a_scope(tmp_path: Path) -> None:
    path = tmp_path / "accept.toml"
    path.write_text('[[divergence]]\nid = "s"\nimpl = "x"\ncheck = "encode"\n'
                    'reconciler = "requoted"\nmode = "decode-utf8"\nscope = "segments"\n'
                    'citation = "c"\nwhy = "w"\nexample = { value = "%41/ %41" }\n')
    (entry,) = load_accept_file(str(path))
    assert "in each valid segment" in entry.summary
    bad = tmp_path / "bad.toml"
    bad.write_text(path.read_text().replace('"segments"', '"all"'))
    with pytest.raises(UsageError, match="scope must be"):
        load_accept_file(str(bad))


def test_a_requoters_mode_is_asked_whatever_the_first_cases_encoding() -> None:
    """The mode is kept per set; asked in the first case's encoding, a furl case in
    Shift_JIS (which the adapter does not take) made it None for every case of the set,
    and a 15 s campaign named furl's requoting by five modes. (yarl-requote takes the
    query-value set with spaceAsPlus only: the case's is kept.)"""
    from pctfuzz._internal.checks import profile

    profile._REQUOTES.clear()
    furl = get_impl("furl")
    first = EncodeCase("a", "rfc3986-pchar-/", "Shift_JIS", True)
    assert profile.requote_mode(first, furl) == "decode-utf8 segments"
    assert profile.requote_mode(EncodeCase("%7a\n", "rfc3986-pchar-/", "utf-8", True),
                                furl) == "decode-utf8 segments"
    yarl = get_impl("yarl-requote")
    assert profile.requote_mode(EncodeCase("%aa", "query-value", "utf-8", True),
                                yarl) == "decode-safe"


def test_an_encoder_that_leaves_the_equals_sign_raw_is_named_so(tmp_path: Path) -> None:
    """The probe of an encoder's set took the last '=' off each answer, as it must for a
    form serializer's pair ``(c, '')``: an encoder's raw '=' read as nothing, so it was
    never ``left_raw(chars==)`` but a first-difference finding, ``unit=0x3D``."""
    from urllib.parse import quote

    from pctfuzz.oracles import function_adapter

    adapter = function_adapter("equals-raw", lambda s: quote(s, safe="="),
                               sets={"v": "rfc3986-unreserved"})
    cases = [EncodeCase(v, "rfc3986-unreserved") for v in ("=", "a=b", "==%41", "\u00e9=")]
    one(findings(tmp_path, check_encode, adapter, cases), "left_raw", {"chars": "="})


def _pairs_with_equals(text: str) -> list[tuple[str, str]]:
    from urllib.parse import unquote_plus

    return [(unquote_plus(n), unquote_plus(v)) for n, _, v in
            (part.partition("=") for part in text.split("&") if "=" in part)]


def test_a_parser_dropping_each_sequence_without_equals_is_one_rule(tmp_path: Path) -> None:
    """A parser that skips what is not ``name=value`` was named by the text-wide rule on
    ``a`` alone, by ``empty_pairs(dropped)`` on ``x=1&a`` (which ``x=&a`` refutes) and
    by the kind of the dropped name elsewhere: 8 findings in a 60 s campaign of a tuning
    parser. Its scope is asked of it (``a&b=1``: the second pair only)."""
    from pctfuzz.oracles import function_adapter

    adapter = function_adapter("needs-equals-each", form_parse=_pairs_with_equals)
    cases = [FormParseCase(t) for t in ("a", "=&a", "a&=", "x=1&a", "=& ", "=&#", "a&=a")]
    one(findings(tmp_path, check_form_parse, adapter, cases), "needs_equals",
        {"scope": "sequence"})
    from pctfuzz._internal.accept.reconcilers import needs_equals

    with pytest.raises(UsageError, match="scope must be"):
        needs_equals("pair")


def _skip_empty_values(pairs: tuple[tuple[str, str], ...]) -> str:
    from urllib.parse import quote

    return "&".join(f"{quote(n, safe='')}={quote(v, safe='')}" for n, v in pairs if v)


def test_a_serializer_dropping_empty_pairs_is_named_by_its_set_too(tmp_path: Path) -> None:
    """The set probe asked each character as the pair (c, ''), which this serializer
    drops: it saw no set, and each name's '*' or '~' was located on the value's first
    character that revealed it (14 findings for 4 behaviours in a tuning serializer's
    60 s campaign). Asked as (c, '1'), and a name's difference located on the name."""
    from pctfuzz.oracles import function_adapter

    adapter = function_adapter("skips-empty", form_serialize=_skip_empty_values)
    cases = [FormCase(p) for p in (
        (("", ""),), (("*", "a"),), (("*", "+"),), (("~", "a"),), (("", "*"),),
        ((" ", "a"),), (("x*", "!"),), (("~", "&"),))]
    records = findings(tmp_path, check_form, adapter, cases)
    # ('*' encoded and '~' raw: another standard's set, one finding of both directions)
    assert sorted(r.behaviour["rule"] for r in records if r.behaviour) == [
        "empty_pairs", "other_set", "space_as"], [r.signature for r in records]
    assert len(records) == 3


def test_a_dropped_sequence_without_equals_is_not_an_empty_value_dropped(
        tmp_path: Path) -> None:
    """``a=a&a``: ``empty_pairs(dropped)`` explains it too, and named it in a campaign
    (where it was met before ``a``); with the '=' written (``a=a&a=``) the parser keeps
    the pair, so the variants refute it."""
    from pctfuzz._internal.accept.rule import rule_from
    from pctfuzz._internal.checks import differential
    from pctfuzz.oracles import function_adapter

    adapter = function_adapter("needs-equals-each", form_parse=_pairs_with_equals)
    case = FormParseCase("a=a&a")
    assert not differential._holds_on_variants(
        "form-parse", case, adapter, rule_from("empty_pairs", {"mode": "dropped"}),
        "strict", [])
    assert differential._holds_on_variants(
        "form-parse", case, adapter, rule_from("needs_equals", {"scope": "sequence"}),
        "strict", [])


@pytest.mark.parametrize(("name", "value", "options"), [
    ("needs_equals", None, {"scope": "sequence"}),
    ("trimmed", " ", {"part": "fields"}),
    ("left_raw", "~", {"part": "names"}),
    ("kept_encoded", "A", {"hex": "upper"}),
    ("requoted", "keep", {"scope": "segments"}),
    ("requoted", "decode-utf8", {"kept": "/@"}),
    ("trimmed", " ", {"part": "decoded"}),
])
def test_a_rule_read_back_from_its_record_is_the_rule_found(
        name: str, value: str | None, options: dict[str, str]) -> None:
    """A finding's behaviour (``{"rule", "params"}``) is how a later campaign knows it
    (``checks.known``): read back, a rule without a parameter lost its optional key
    (``needs_equals(scope=sequence)`` came back as ``scope=text``, so each input of the
    known finding was named anew, as another finding)."""
    from pctfuzz._internal.accept.reconcilers import RECONCILERS
    from pctfuzz._internal.accept.rule import rule_from

    factory, param = RECONCILERS[name]
    made = factory(value, **options) if param else factory(**options)
    params = {**({param: value} if param else {}), **options}
    assert rule_from(name, params).reconciler.model == made.model


def test_a_rules_name_and_parameters_are_its_makers_signature() -> None:
    """The catalogue is the makers alone: each one's name, its parameter (the one
    without a default) and its optional keys (the keyword ones) are read off it, so a
    new optional key (``requoted``'s ``kept``) is one change, not three."""
    from pctfuzz._internal.accept.reconcilers import OPTIONAL_PARAMS, RECONCILERS, requoted

    assert RECONCILERS["requoted"] == (requoted, "mode")
    assert RECONCILERS["lowercase_hex"][1] is None
    assert OPTIONAL_PARAMS["requoted"] == ("scope", "kept", "decoded")
    assert OPTIONAL_PARAMS["trimmed"] == ("part",) and "cut_at" not in OPTIONAL_PARAMS


def test_lowercase_hex_models_a_kept_escape_that_lowercasing_leaves_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CI's three-planted-bugs campaign met '<%aa' in the path set (which keeps '%')
    once lowercase_hex was a known finding: urllib with its own escapes in lowercase
    answers '%3c%aa'. The lowercase model refused any input with a raw '%', so the
    known finding did not cover it and it was named requoted(keep), a fourth finding
    for one behaviour. An input whose escapes lowercasing leaves alone has one answer
    whichever way the encoder treats them; one with '%AA' is the encoder's own escapes
    lowercased and the input's kept."""
    from broken_impls import PlantedBugsUrllib

    from pctfuzz._internal.accept.model import Model, NotModelled, render

    lower = Model(lowercase_hex=True)
    assert render(lower, "encode", EncodeCase("<%aa", "path")) == "%3c%aa"
    assert render(lower, "encode", EncodeCase("a%41<%zz", "query")) == "a%41%3c%zz"
    # an input's escape with uppercase hex is kept as it is: lowercase hex is the
    # encoder's own escapes ('\n%aA' in the c0-control set was named requoted(keep))
    assert render(lower, "encode", EncodeCase("<%AA\n%aA", "path")) == "%3c%AA%0a%aA"
    with pytest.raises(NotModelled):
        render(lower, "encode", EncodeCase(b"<%AA", "path"))
    monkeypatch.setenv("PCTFUZZ_TEST_BUGS", "hex")
    cases = [EncodeCase(v, s) for v, s in (("+", "component"), ("<%aa", "path"),
                                           ("a%41<", "query"), ("%zz^", "path"),
                                           ("\n%aA", "c0-control"), ("<%AA", "path"))]
    one(findings(tmp_path, check_encode, PlantedBugsUrllib(), cases), "lowercase_hex", {})


def _wsgi_path(text: str) -> str:
    """gunicorn's ``unquote_to_wsgi_str``: a path decoded to a WSGI native string, each
    byte of the answer as latin-1 (PEP 3333), a raw character's UTF-8 bytes too."""
    from urllib.parse import unquote_to_bytes

    return unquote_to_bytes(text).decode("latin-1")


@pytest.mark.parametrize("value", ["%aa", "\u00e9", "%C3%A9", "a%FF\u00e9", "\x80"])
def test_an_answer_read_as_latin1_is_one_rule_raw_or_escaped(value: str) -> None:
    """A user trial on gunicorn: '%aa' was latin1_fallback(scope=always), a raw '\\x80'
    (its UTF-8 bytes read as latin-1) a second, unnamed finding of the same behaviour."""
    from pctfuzz.oracles import function_adapter

    adapter = function_adapter("wsgi-path", decode=_wsgi_path)
    with pytest.raises(Divergence) as raised:
        check_decode(DecodeCase(value), adapter, settings=NO_ACCEPTED)
    assert raised.value.difference == "rule=latin1_fallback(scope=answer)"


class _LeadingStripDecoder:
    """A decoder behind Python's ``urlsplit``, which strips leading C0 control or space
    only (bpo-43882; Werkzeug's ``uri_to_iri``, httplib2): one behaviour, which was two
    findings (a C0 control and the space are two units) and no rule."""

    name = "leading-strip"

    def decode(self, case: DecodeCase) -> bytes:
        from urllib.parse import unquote_to_bytes

        assert isinstance(case.value, str)
        return unquote_to_bytes(case.value.lstrip("".join(map(chr, range(0x21)))))


def test_a_strip_at_the_start_only_is_one_rule(tmp_path: Path) -> None:
    cases = [DecodeCase(v) for v in ("\x00a", " a", "\x1f\x01%41", "  x ", "\ta\t", " ")]
    records = findings(tmp_path, check_decode, _LeadingStripDecoder(), cases)  # type: ignore[arg-type]
    assert [(r.behaviour["rule"], r.behaviour["params"]) for r in records] == [
        ("trimmed", {"chars": "".join(map(chr, range(0x21))), "part": "start"})]


def test_a_trim_at_the_start_keeps_the_end() -> None:
    from pctfuzz._internal.accept.model import Model, render

    model = Model(trim_start=" \t")
    assert render(model, "decode", DecodeCase(" \ta%20 \t")) == b"a  \t"
    assert render(model, "encode", EncodeCase(" a ", "component")) == "a%20"


class _MonoLikeDecoder:
    """Mono's HttpUtility.UrlDecode, written from its source: a text with no '%' and no
    '+' is returned as it is; else '+' is a space, '%HH' a byte, '%uXXXX' a UTF-16 code
    unit, and every character (a code unit too) below 256 is written as that one byte
    (``WriteCharBytes``: the low-byte bug), others as their UTF-8; then UTF-8 with
    U+FFFD."""

    name = "mono-like"

    def decode(self, case: DecodeCase) -> bytes:
        assert isinstance(case.value, str)
        text = case.value
        if "%" not in text and "+" not in text:
            return text.encode("utf-8", "surrogatepass")
        out, i, hexdigits = bytearray(), 0, "0123456789abcdefABCDEF"
        data = text.encode("utf-16-le", "surrogatepass")  # (.NET's chars: UTF-16 units)
        text = "".join(chr(int.from_bytes(data[j:j + 2], "little"))
                       for j in range(0, len(data), 2))

        def write(char: str) -> None:
            unit = ord(char)
            out.extend(bytes([unit]) if unit < 0x100 else b"\xef\xbf\xbd"
                       if 0xD800 <= unit <= 0xDFFF else char.encode("utf-8"))

        while i < len(text):
            unit, pair = text[i + 2:i + 6], text[i + 1:i + 3]
            if text[i:i + 2] == "%u" and len(unit) == 4 and all(c in hexdigits for c in unit):
                write(chr(int(unit, 16)))
                i += 6
            elif text[i] == "%" and len(pair) == 2 and all(c in hexdigits for c in pair):
                out.append(int(pair, 16))
                i += 3
            else:
                write(" " if text[i] == "+" else text[i])
                i += 1
        return out.decode("utf-8", "replace").encode("utf-8")


def _accepted(rule: Reconciler, example: str) -> Any:
    return divergence(id=f"mono-like-{rule.name}", check="decode", reconcile=rule,
                      citation="Mono's HttpUtility.UrlDecode", why="intended", impl="mono-like",
                      example=DecodeCase(example))


def test_a_character_written_as_its_low_byte_is_one_rule_beside_plus_and_u(
        tmp_path: Path) -> None:
    """Mono's low-byte bug beside its accepted '+', '%u' and replacement: 5 findings of
    a 90 s campaign on the peer (one per shape: a '+', an escape, a '%u' before a raw
    U+0080...), now ``latin1_chars`` once; an astral character and a '%u' pair are two
    U+FFFD."""
    from pctfuzz._internal.accept.reconcilers import percent_u, plus_as_space, replacement

    adapter = _MonoLikeDecoder()
    adapter.divergences = [  # type: ignore[attr-defined]
        _accepted(plus_as_space(), "a+b"), _accepted(percent_u(), "%u0041"),
        _accepted(replacement("per-sequence"), "%e9")]
    cases = [DecodeCase(v) for v in ("+\u00e9", "%\x80", "%0a\x80", "%uaaaa\x80", "%F0\x80",
                                     "x+%u00e9", "+\U0001F600", "%uD83D%uDE00")]
    records = findings(tmp_path, check_decode, adapter, cases,  # type: ignore[arg-type]
                       settings=DEFAULT_SETTINGS)
    one(records, "latin1_chars", {})
