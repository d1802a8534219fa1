"""Findings that generalize (``checks.differential``, ``accept.rules``, ``accept.impact``):
a delimiter is never one finding with harmless characters, an accepted harmless entry
never absorbs a delimiter, an unexplained unit widens to its group only when variants
say so, and a rule names a finding only if it holds on variants of its case."""

from __future__ import annotations

import re
import string
import unicodedata
from pathlib import Path
from urllib.parse import parse_qsl, quote, quote_plus

import impact_impls
import pytest

from pctfuzz import percent_decode, percent_encode
from pctfuzz._internal.accept import load_accept_file
from pctfuzz._internal.accept.impact import impact_of
from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.differential import (
    check_decode,
    check_encode,
    check_form,
    check_form_parse,
)
from pctfuzz._internal.cli.main import main
from pctfuzz._internal.form import form_urldecode, form_urlencode
from pctfuzz._internal.violations import Divergence
from pctfuzz.oracles import function_adapter


def _class(adapter: object, value: str, set_name: str = "component",
           plus: bool = False) -> str:
    with pytest.raises(Divergence) as info:
        check_encode(EncodeCase(value, set_name, space_as_plus=plus), adapter)  # type: ignore[arg-type]
    return info.value.difference


def test_a_raw_plus_beside_a_raw_tilde_is_two_findings() -> None:
    """The harmless raw ``~`` and encoded ``*`` are urllib's other set, one finding
    (``other_set``); the raw ``+`` is one of its own."""
    adapter = impact_impls.plus_raw
    assert _class(adapter, "~", "form", True) == "rule=other_set(raw=~,encoded=*)"
    assert _class(adapter, "*", "form", True) == "rule=other_set(raw=~,encoded=*)"
    assert _class(adapter, "+", "form", True) == "rule=left_raw(chars=+)"
    # Both in one input: named by the delimiter, the most telling part.
    assert _class(adapter, "a~+", "form", True) == "rule=left_raw(chars=+)"


def _lt_raw_tilde_encoded(text: str) -> str:
    """Two unrelated bugs: '<' left raw, '~' encoded."""
    return quote(text, safe="<").replace("~", "%7E")


def test_two_unrelated_set_bugs_are_no_other_standards_set() -> None:
    """``other_set`` names both directions only when they make a set of the catalogue
    (``pctfuzz sets``): a '<' left raw beside a '~' encoded is two findings (a campaign
    that knew the '~' one named the '<' ``other_set(raw=<,encoded=~)``)."""
    adapter = function_adapter("lt-tilde", encode=_lt_raw_tilde_encoded,
                               sets={"c": "component"})
    assert _class(adapter, "<") == "rule=left_raw(chars=<)"
    assert _class(adapter, "~").startswith("rule=encoded(chars=")


def test_an_entry_accepting_tilde_does_not_absorb_plus(tmp_path: Path) -> None:
    accept = tmp_path / "accept.toml"
    accept.write_text('[[divergence]]\nid = "tilde"\ncheck = "encode"\n'
                      'reconciler = "left_raw"\nchars = "~"\ncitation = "c"\nwhy = "w"\n'
                      'example = { value = "~", set = "form", space_as_plus = true }\n')

    class WithTilde:  # the adapter with the entry as its own divergences
        def __getattr__(self, name: str) -> object:
            return getattr(impact_impls.plus_raw, name)
        divergences = load_accept_file(str(accept))

    adapter = WithTilde()
    assert check_encode(EncodeCase("~", "form", space_as_plus=True), adapter) == ("tilde",)
    with pytest.raises(Divergence) as info:
        check_encode(EncodeCase("a~+", "form", space_as_plus=True), adapter)
    assert info.value.difference == "rule=left_raw(chars=+)"


def test_an_escaped_delimiter_is_apart_from_harmless_characters_escaped() -> None:
    """An encodeURI that also escapes ``!$'`` (harmless) and ``;`` (a path parameter's
    start: ``a%3Bb`` says another thing): two findings, as in the raw direction (hold-out
    11's link encoder was one ``encoded(!$';)``)."""
    adapter = function_adapter("test-uri-escaping-more",
                               encode=lambda t: quote(t, safe=",/?:@&=+-_.~*()#"),
                               sets={"uri": "encodeURI"})
    assert _class(adapter, "a!", "encodeURI") == _class(adapter, "'", "encodeURI") \
        == "rule=encoded(chars=!$')"
    assert _class(adapter, "a;b", "encodeURI") == "rule=encoded(chars=;)"


def test_controls_written_alike_are_one_rule_of_exactly_them() -> None:
    """Every C0 control written '^', DEL encoded: one ``written_as`` of the C0 controls,
    never of DEL (each asked alone); was the class ``unit=c0``."""
    adapter = impact_impls.caret_controls
    c0 = "".join(map(chr, range(0x20)))
    assert _class(adapter, "a\x01") == _class(adapter, "\x1f") \
        == f"rule=written_as(chars={c0},text=^)"


def test_a_rule_that_fails_on_variants_does_not_name_a_finding() -> None:
    # 'a' -> 'aa' reads as "adds 'a' before the answer"; 'b' -> 'bb' does not. Every
    # letter and digit doubled is one rule (its text says the character, ``{c}``).
    adapter = impact_impls.doubled
    alnum = string.digits + string.ascii_uppercase + string.ascii_lowercase
    assert _class(adapter, "a") == _class(adapter, "Z9") \
        == f"rule=written_as(chars={alnum},text={{c}}{{c}})"


def test_impact() -> None:
    plus = {"rule": "left_raw", "params": {"chars": "+"}}
    tilde = {"rule": "left_raw", "params": {"chars": "~"}}
    assert impact_of("divergence", "", plus) == "splits-field"
    assert impact_of("divergence", "", tilde) == "cosmetic"
    # '=' raw in a form's value: a parser splits a pair at its first '=' (URL 5.1)
    for part, impact in (("values", "cosmetic"), ("names", "splits-field"),
                         (None, "splits-field")):
        equals = {"rule": "left_raw", "params": {"chars": "=", "part": part}}
        assert impact_of("divergence", "", equals) == impact, part
    assert impact_of("divergence", "", {"rule": "truncated", "params": {"n": 3}}) \
        == "loses-data"
    assert impact_of("crash", "raised=KeyError@m:f", None) == "crash"
    assert impact_of("divergence", "unit=0x26;diff=left-raw", None) == "splits-field"
    assert impact_of("divergence", "unit=*;diff=hex-case", None) == "cosmetic"
    # U+FFFD for an escape of invalid UTF-8, quoted again: data lost, not data changed
    # (issue 31: accepting "an existing %HH is an escape" accepted data loss)
    assert impact_of("divergence", "", {"rule": "requoted",
                                         "params": {"mode": "decode-utf8"}}) == "loses-data"
    assert impact_of("divergence", "", {"rule": "requoted",
                                         "params": {"mode": "decode-unreserved"}}) \
        == "changes-data"


def test_accept_takes_several_ids_and_asks_before_accepting_a_delimiter(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "findings"
    tilde, plus = impact_impls.record_plus_raw(store, "~"), impact_impls.record_plus_raw(store, "+")
    assert tilde != plus
    accept = tmp_path / "accept.toml"
    code = main(["accept", plus, tilde, "--accept", str(accept), "--findings", str(store),
                 "--impl", "impact_impls:plus_raw"])
    out = capsys.readouterr()
    assert code == 2  # the '+' one is refused, the '~' one is accepted all the same
    assert f"{tilde}: known-divergence" in out.out and "cosmetic" in out.out
    assert "--accept-impact" in out.err and plus in out.err
    assert 'raw = "~"' in accept.read_text() and 'chars = "+"' not in accept.read_text()
    code = main(["accept", plus, "--accept", str(accept), "--findings", str(store),
                 "--impl", "impact_impls:plus_raw", "--accept-impact"])
    assert code == 0, capsys.readouterr()
    assert 'chars = "+"' in accept.read_text()


def test_an_escape_in_either_hex_case_is_one_class() -> None:
    adapter = impact_impls.plus_escape_as_space
    classes = set()
    for value in ("%2B", "%2b", "a%2Bb", "x%2b"):
        with pytest.raises(Divergence) as info:
            check_decode(DecodeCase(value), adapter)
        classes.add(info.value.difference)
    # (the escape of a delimiter, '+', is a segment of its own in either case)
    assert classes == {"seg=pct-0x2B;diff=changed"}


def test_a_delimiter_escaped_is_apart_from_a_letter_and_from_itself_raw() -> None:
    """http.server's translate_path reads ``%2F`` as a path's ``/`` and removes ``%2e``
    as a dot segment (a traversal's bypass): both answered '' were one class,
    ``seg=pct-letters``, beside any letter's escape; each is its own, in either hex case,
    and neither is the raw character's (``/`` dropped at a path's start is harmless)."""
    import posixpath
    from urllib.parse import unquote

    def translate(value: str) -> str:
        return "/".join(w for w in posixpath.normpath(unquote("/" + value)).split("/")
                        if w and w not in (".", ".."))

    adapter = function_adapter("test-translate-path", decode=translate)
    assert {_decode_class(adapter, v) for v in ("%2e", "%2E", "%2e%2e")} \
        == {"seg=pct-0x2E;diff=missing-output"}
    assert {_decode_class(adapter, v) for v in ("%2f", "%2F")} \
        == {"seg=pct-0x2F;diff=missing-output"}
    assert _decode_class(adapter, "/") == "unit=0x2F;diff=missing-output"


def test_a_long_behaviour_text_fits_a_record() -> None:
    """A decoder that keeps every escape: its rule's text was longer than the record's
    300 characters, and the campaign lost the finding (exit 3)."""
    from pctfuzz._internal.accept.rule import rule_from
    from pctfuzz._internal.store.schema import behaviour_problem

    rule = rule_from("kept_encoded", {"chars": "".join(map(chr, range(0x80)))})
    assert behaviour_problem(rule.behaviour()) is None


def test_a_letter_however_written_is_one_class() -> None:
    """A parser that lowercases names was one finding per way the letter was written
    (raw, %41, %4a, ...): a form parser's unit is the character it decodes to, and
    an uppercase letter widens to ``upper`` (lowercase letters and digits agree)."""
    classes = set()
    # "%N", "%AD": the letter after a "%" is varied only as letters that keep the escape
    # valid or invalid as it was; "%AFaF" is widened on its shortest prefix, "%A"
    for text in ("A=b", "%41=b", "%4a=", "xB=1", "a=b&C", "%Na", "a%ADaD", "aa%AFaF"):
        with pytest.raises(Divergence) as info:
            check_form_parse(FormParseCase(text), impact_impls.names_lowercased)
        classes.add(info.value.difference)
    assert classes == {"field=name;unit=upper;diff=changed"}


def test_a_refusal_is_named_by_the_input_that_causes_it() -> None:
    """A parser that refuses a space and accepts a trailing '%': ' %' is no refusal of
    an invalid '%' (the name claimed what the parser does not do)."""
    from pctfuzz import form_urldecode
    from pctfuzz.oracles import function_adapter

    def parse(text: str) -> list[tuple[str, str]]:
        if " " in text or "%z" in text:
            raise ValueError("not in the alphabet")
        return form_urldecode(text)

    adapter = function_adapter("refuses-space", form_parse=parse)
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase(" %"), adapter)
    assert info.value.behaviour is None  # a crash, located where it raised
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase("a%z"), adapter)
    assert info.value.difference == "rule=refuses(input=invalid-percent,raised=ValueError)"


# --- a form serializer's difference, located and named by what it needs ------------------
_NEWLINES = re.compile("\r\n|\r|\n")


def _dict_serializer(pairs: list[tuple[str, str]]) -> str:
    return form_urlencode(dict(pairs).items())  # one pair per name: a dict


def _crlf_serializer(pairs: list[tuple[str, str]]) -> str:
    return form_urlencode((_NEWLINES.sub("\r\n", n), _NEWLINES.sub("\r\n", v))
                          for n, v in pairs)  # as HTML's form submission


def _bare_name_serializer(pairs: list[tuple[str, str]]) -> str:
    return "&".join(form_urlencode([(n, v)]).rstrip("=") if not v else form_urlencode([(n, v)])
                    for n, v in pairs)


def _semicolon_serializer(pairs: list[tuple[str, str]]) -> str:
    return form_urlencode(pairs).replace("&", ";")


def _dict_and_raw_equals(pairs: list[tuple[str, str]]) -> str:
    return "&".join(form_urlencode([(n, v)]).replace("%3D", "=")
                    for n, v in dict(pairs).items())


def _raw_percent_in_names(pairs: list[tuple[str, str]]) -> str:
    """A name's '%' left raw (quote_plus with '%' safe); a value's '!' left raw (quote
    with '!' safe): two behaviours, one per field."""
    return "&".join(quote_plus(name, safe="%") + "=" + quote(value, safe="~!*")
                    for name, value in pairs)


_FORMS = {name: function_adapter(f"test-{name}", form_serialize=fn) for name, fn in [
    ("dict", _dict_serializer), ("crlf", _crlf_serializer), ("bare", _bare_name_serializer),
    ("semicolon", _semicolon_serializer), ("dict-raw-equals", _dict_and_raw_equals),
    ("raw-percent-names", _raw_percent_in_names)]}


def _form_class(adapter: str, *pairs: tuple[str, str]) -> str:
    with pytest.raises(Divergence) as info:
        check_form(FormCase(pairs), _FORMS[adapter])
    return info.value.difference


@pytest.mark.parametrize("pairs", [
    (("a", ""), ("a", "")), (("a", "1"), ("a", "2")), (("a", "1"), ("b", "2"), ("a", "3")),
    (("", ""), ("", "")), (("%", "x"), ("%", "y")), (("é", "1"), ("b", "x"), ("é", "2")),
    # was empty_pairs(dropped): the empty pair alone refutes it
    (("", ""), ("", "a")),
    # a lone surrogate beside: held to the answer for U+FFFD, as the check holds it
    (("", "\ud800"), ("", "a")),
])
def test_one_pair_per_name_is_one_class_whatever_the_names(pairs: tuple[tuple[str, str]]) -> None:
    """Was one finding per first differing character (43 in a 60 s campaign), then one
    class (``field=pair;unit=repeated-name``); the mode asked of it names it now."""
    assert _form_class("dict", *pairs) == "rule=pairs_order(mode=last-per-name)"


@pytest.mark.parametrize("pairs", [
    (("\r-", ""),), (("", "\r-"),), (("a\rb", "c"),), (("a", "\r\x80"),), (("\n", ""),),
    (("", "x\ny"),),
])
def test_a_newline_written_as_crlf_is_named_by_the_newlines_in_either_field(
        pairs: tuple[tuple[str, str]]) -> None:
    """The character whose output grew is named, not the one after it (was 25
    findings); CR and LF, the two controls that grow, are one rule whichever shows (was
    a finding each), in names and values alike: HTML's newline normalization, asked
    of the serializer (it was ``written_as('\n\r', '%0D%0A')``, which a CR LF refutes)."""
    assert _form_class("crlf", *pairs) == "rule=newlines_normalized()"


@pytest.mark.parametrize("pairs", [(("%", ""),), (("!%aa", ""),), (("a!%", "x"),)])
def test_a_field_is_any_only_where_the_other_field_shows_the_same_difference_there(
        pairs: tuple[tuple[str, str]]) -> None:
    """A name's raw '%' is of names, whatever comes before it: moved to a value, '!%'
    differs by its '!' (left raw there), not by its '%'. Was ``field=any`` there, named
    by the '%' (a second finding of one behaviour in a tuning serializer's campaign);
    named by its rule of names since the '%' is asked of the serializer too."""
    assert _form_class("raw-percent-names", *pairs) == "rule=left_raw(chars=%,part=names)"


@pytest.mark.parametrize("pairs", [(("a", ""),), (("", ""),), (("b", ""), ("c", "1"))])
def test_a_bare_name_for_an_empty_value_is_one_class_and_no_dropped_pair(
        pairs: tuple[tuple[str, str]]) -> None:
    """``empty_pairs(dropped)`` explained ``("", "")`` (both write nothing) until a form's
    names were padded alone."""
    assert _form_class("bare", *pairs) == "field=pair;unit=empty-pair;diff=missing-output"


def test_another_separator_is_the_separator() -> None:
    assert _form_class("semicolon", ("a", "1"), ("b", "2")) == \
        "field=separator;unit=0x26;diff=changed"
    assert _form_class("semicolon", ("", ""), ("", "")) == \
        "field=separator;unit=0x26;diff=changed"


def test_a_raw_equals_in_a_name_is_not_the_repeated_name() -> None:
    """Two behaviours of one serializer stay two findings: the delimiter is its own."""
    repeated = _form_class("dict-raw-equals", ("a", "1"), ("a", "2"))
    raw = _form_class("dict-raw-equals", ("a=b", "1"))
    assert repeated == "rule=pairs_order(mode=last-per-name)"
    assert raw != repeated and "pairs_order" not in raw


def _values_stripped(text: str) -> list[tuple[str, str]]:
    return [(name, value.strip()) for name, value in form_urldecode(text)]


STRIPPED = function_adapter("test-values-stripped", form_parse=_values_stripped)


#: The controls str.strip strips, each checked: TAB to CR and 0x1C-0x1F (was
#: ``control-space``, true of TAB to CR but silent on the other four, each then a finding).
STRIP_SET = "set(0x09-0x0D,0x1C-0x1F)"


@pytest.mark.parametrize(("text", "unit"), [
    ("=+", "0x20"), ("a=+b+", "0x20"), ("a=%20b", "0x20"), ("= ", "0x20"), ("a=b+&c=d", "0x20"),
    ("a=b%09", STRIP_SET), ("=%0a", STRIP_SET), ("x=\x0bb", STRIP_SET), ("=\x1c", STRIP_SET),
    ("a=%1F", STRIP_SET),
    # an escape before it stays an escape in every variant; a LF ends no escape
    ("=%aa\x0b", STRIP_SET), ("=%aa\n", STRIP_SET),
])
def test_a_parser_stripping_values_is_named_by_the_character_however_written(
        text: str, unit: str) -> None:
    """A form parser's difference is located on the shortest prefix that differs and
    named by the character its last unit decodes to: a space as ``+``, ``%20`` or
    `` `` is one class (was one per way it was written: 5 findings in 60 s). A rule
    names it now, the same one for every input: ``trimmed(part=values)``, the
    parser's own characters (asked of it in a value) from the ends of each value
    (``part=fields`` explained each input too, and the case with names and values
    swapped refutes it); without the rule, the class."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase(text), STRIPPED)
    assert info.value.behaviour is not None
    assert (info.value.behaviour["rule"], info.value.behaviour["params"]) == (
        "trimmed", {"chars": _STRIPPED_CHARS, "part": "values"})
    from pctfuzz._internal.checks import differential

    with pytest.MonkeyPatch.context() as patch:  # and the class, where no rule names it
        patch.setattr(differential, "_explaining_rule", lambda *args, **kwargs: None)
        with pytest.raises(Divergence) as unnamed:
            check_form_parse(FormParseCase(text), STRIPPED)
    assert unnamed.value.difference == f"field=value;unit={unit};diff=missing-output"


#: What ``str.strip()`` strips, as the probe of a value finds it.
_STRIPPED_CHARS = "".join(c for c in map(chr, range(0x3001)) if c.isspace())


def _names_lowercased(text: str) -> list[tuple[str, str]]:
    return [(name.lower(), value) for name, value in form_urldecode(text)]


LOWERED = function_adapter("test-names-lowered", form_parse=_names_lowercased)


@pytest.mark.parametrize(("text", "unit"), [
    ("B=1", "upper"), ("%4A=1", "upper"), ("aB=c", "upper"),
    # the lowercase letters and digits are in the input, so only uppercase ones are
    # checked: never "alnum" or "letter" (was "alnum", then "letter")
    ("abcdefghijklmnopqrstuvwxyz0123456789B=1", "upper"),
    # every other uppercase letter is in the input, but the unit is located on its
    # last sequence alone, where they are not: checked there (was 0x42 on the input)
    ("a=ACDEFGHIJKLMNOPQRSTUVWXYZ&B", "upper"),
])
def test_a_unit_is_named_by_no_more_than_its_variants_checked(text: str, unit: str) -> None:
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase(text), LOWERED)
    assert info.value.difference == f"field=name;unit={unit};diff=changed"


def test_a_unit_set_names_exactly_its_members() -> None:
    from pctfuzz._internal.identity.units import covers, unit_members, unit_set

    name = unit_set("\x1f", "\t", "\n", "\x1c", "\r", "\x0b", "\x0c", "\x1d", "\x1e")
    assert name == "set(0x09-0x0D,0x1C-0x1F)"
    assert unit_members(name) == frozenset("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f")
    assert unit_set("~") == "set(0x7E)" and unit_members("set(0x7E)") == frozenset("~")
    assert unit_members("upper") == frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    assert unit_members("0x2B") == frozenset("+")
    assert unit_members("non-ascii") is None and unit_members("set(0x7G)") is None
    assert covers("seg=pct-letters;diff=changed", "seg=pct-lower;diff=changed")
    assert not covers("seg=pct-lower;diff=changed", "seg=pct-letters;diff=changed")
    assert not covers("unit=non-ascii;diff=changed", "unit=0x41;diff=changed")
    # a set never names a delimiter it does not hold: a raw '+' is no hit of a raw '~'
    assert not covers("unit=set(0x7E);diff=left-raw", "unit=0x2B;diff=left-raw")
    assert not covers("unit=printable;diff=left-raw", "unit=0x2B;diff=left-raw")


def _uppercase_escapes_only(value: str) -> bytes:
    """Decodes only escapes whose hex letters are uppercase (``%2f`` is kept)."""
    data = value.encode("utf-8", "surrogatepass")
    out, i = bytearray(), 0
    while i < len(data):
        digits = data[i + 1:i + 3]
        if data[i] == 0x25 and len(digits) == 2 and all(c in b"0123456789ABCDEF" for c in digits):
            out.append(int(digits, 16))
            i += 3
        else:
            out.append(data[i])
            i += 1
    return bytes(out)


UPPER_ONLY = function_adapter("test-upper-escapes-only", decode=_uppercase_escapes_only)


@pytest.mark.parametrize("value", ["%aa", "%ff", "%e9%aa", "%2a", "%2f"])
def test_a_rule_of_escapes_holds_for_their_hex_letters_in_either_case(value: str) -> None:
    """``%aa`` kept as is is what a decoder keeping non-UTF-8 escapes does too
    (``replacement(mode=undecoded)``), but that decoder keeps ``%AA`` as well; this one
    decodes it: the rule is refuted on the variant, and the class names the hex case
    (a delimiter's escape, ``%2f``, too: in uppercase it is decoded, so the behaviour is
    the hex case's, not the ``/``'s; one finding per delimiter before)."""
    with pytest.raises(Divergence) as info:
        check_decode(DecodeCase(value), UPPER_ONLY)
    assert info.value.behaviour is None
    assert info.value.difference == "seg=pct-lower;diff=not-decoded"


@pytest.mark.parametrize("value", ["k=v&" * 1300 + "k7%%5e%", "%ED%AC%A&" * 700 + "\x00e%5e"])
def test_a_decoders_difference_is_located_however_long_the_input(value: str) -> None:
    """The class is read off the few units where the answers part, not the input's first
    units: a lowercase escape after 5000 characters was ``seg=end`` or ``pct-invalid``,
    each a finding beside the escape's own."""
    with pytest.raises(Divergence) as info:
        check_decode(DecodeCase(value), UPPER_ONLY)
    assert info.value.difference == "seg=pct-lower;diff=not-decoded"


def test_a_form_parsers_difference_is_located_however_long_the_input() -> None:
    """Past 4096 characters no prefix was tried, and the pair was named by its segment
    (``seg=alnum-any``), a finding beside the letter's own."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase("a=b&" * 1100 + "B=1"), LOWERED)
    assert info.value.difference == "field=name;unit=upper;diff=changed"


def _one_digit_escapes(text: str) -> list[tuple[str, str]]:
    """A form parser whose decoder reads ``%`` and one hex digit as that byte (``%a`` is
    LF), as WebOb's does, and is the reference otherwise."""
    import re as _re
    from urllib.parse import parse_qsl

    pairs = []
    for name, value in parse_qsl(text, keep_blank_values=True):
        pairs.append(tuple(_re.sub("%([0-9A-Fa-f])(?![0-9A-Fa-f])",
                                   lambda m: chr(int(m.group(1), 16)), part)
                           for part in (name, value)))
    return pairs  # type: ignore[return-value]


def test_one_behaviour_in_a_name_and_a_value_and_at_any_length_is_one_class() -> None:
    """WebOb's one-digit escapes were five findings in a 60 s campaign: one per field,
    one per unit after it, and one "of size", whose plain input of escapes cut at its
    end (``%4``) showed the same bug."""
    from pctfuzz._internal.cases import FormParseCase
    from pctfuzz._internal.targets import get_target
    from pctfuzz._internal.violations import Divergence
    from pctfuzz.oracles import function_adapter

    adapter = function_adapter("test-one-digit", form_parse=_one_digit_escapes)
    classes = set()
    for text in ("%a", "=%a", "b=%a", "aaaaaaaaaaaaaa%a", "x=1&%c"):
        bound = get_target("diff_form_parse").bind(adapter)  # (no known findings)
        try:
            bound.check(FormParseCase(text))
        except Divergence as exc:
            classes.add(exc.difference)
    assert len(classes) == 1, classes
    (klass,) = classes
    assert klass == "field=any;unit=hex-digit;diff=changed"


def _last_value_per_name(text: str) -> list[tuple[str, str]]:
    return list(dict(form_urldecode(text)).items())


LAST_WINS = function_adapter("test-last-wins", form_parse=_last_value_per_name)


@pytest.mark.parametrize("text", [
    "k6&k6", "=&%26&%26", "a &a ", "\x17&\x17", "=&=", "b=1&a=2&b=3", "\ufffd&\ufffd",
    "%&%", "..%ef%b7%90/&..%ef%b7%90/",
])
def test_a_parser_keeping_one_pair_per_name_is_one_class_whatever_the_names(text: str) -> None:
    """A dict of the pairs: the name's kind named it (a letter, a digit, '%26', a space,
    a control, non-ASCII: 15 findings in a 60 s campaign of a tuning parser); the pair
    agrees once renamed, so the repeat is what differs, as for a serializer; the mode
    asked of it names it."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase(text), LAST_WINS)
    assert info.value.difference == "rule=pairs_order(mode=last-per-name)"


def test_a_stripped_repeated_name_is_still_the_strip() -> None:
    """A repeated name that differs for its own character stays named by it: renamed,
    the first 'a ' still differs."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase("a=1 &a=1 "), STRIPPED)
    assert "repeated-name" not in info.value.difference


def _fields_stripped(text: str) -> list[tuple[str, str]]:
    return [(name.strip(), value.strip()) for name, value in form_urldecode(text)]


FIELDS_STRIPPED = function_adapter("test-fields-stripped", form_parse=_fields_stripped)


@pytest.mark.parametrize("text", [" ", "= #", "a &", "a\u00a0", "%C2%a0", "= a", "\u00a0",
                                  "a=\t", "b=1&+a+=2"])
def test_a_parser_stripping_each_name_and_value_is_one_rule(text: str) -> None:
    """``str.strip()`` on each decoded name and value was 13 findings in a 60 s
    campaign of a tuning parser: the character, the field and what followed it named
    each, and ``trimmed`` (of the whole text) on a text of one name. The text beside
    another sequence tells the two ``trimmed`` apart."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase(text), FIELDS_STRIPPED)
    assert info.value.behaviour is not None
    assert info.value.behaviour["rule"] == "trimmed"
    assert info.value.behaviour["params"]["part"] == "fields"


NAMES_STRIPPED = function_adapter("test-names-stripped", form_parse=lambda text: [
    (name.strip(), value) for name, value in form_urldecode(text)])


def test_a_parser_stripping_names_only_is_no_parser_stripping_every_field() -> None:
    """Its own characters are asked as names, so ``trimmed(part=fields)`` is tried; only
    swapped (``1=a+``), where the name's spaces are a value's, which it keeps, is it
    refuted."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase("a+=1"), NAMES_STRIPPED)
    assert info.value.behaviour is None or \
        info.value.behaviour["params"].get("part") != "fields", info.value.behaviour


def _names_squeezed(text: str) -> list[tuple[str, str]]:
    """Hold-out 15's nested-key parser's fields: every space of a name removed, then
    each name and value stripped."""
    return [(n.replace(" ", "").strip(), v.strip())
            for n, v in parse_qsl(text, keep_blank_values=True)]


NAMES_SQUEEZED = function_adapter("names-squeezed", form_parse=_names_squeezed)


@pytest.mark.parametrize("text", ["a= ", "a=x ", "a=+x"])
def test_a_space_trimmed_in_values_and_removed_in_names_is_the_values_trim(text: str) -> None:
    """The space is no character this parser trims in both fields (names lose it inside
    too), so a value's trailing space was a class of its own beside the trim rule; each
    field's own characters name it ``trimmed(part=values)`` with the space."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase(text), NAMES_SQUEEZED)
    assert info.value.behaviour is not None, info.value.difference
    params = info.value.behaviour["params"]
    assert (info.value.behaviour["rule"], params["part"]) == ("trimmed", "values")
    assert " " in params["chars"] and "\t" in params["chars"]


def _swallowing_utf8(data: bytes) -> str:
    """A hand-rolled UTF-8 decoder with a real data-loss bug: a lead byte takes the next
    1-3 bytes whatever they are, and an invalid sequence is one U+FFFD (the byte after
    ``%C3`` is lost with it)."""
    out, i = [], 0
    while i < len(data):
        lead = data[i]
        size = 1 if lead < 0x80 else 2 if lead >> 5 == 6 else 3 if lead >> 4 == 14 else \
            4 if lead >> 3 == 30 else 1
        out.append(data[i:i + size].decode("utf-8", "replace")[:1] if size > 1 else
                   data[i:i + 1].decode("utf-8", "replace"))
        i += size
    return "".join(out)


SWALLOWING = function_adapter(
    "test-swallowing", decode=lambda text: _swallowing_utf8(percent_decode(text)),
    form_parse=lambda text: [(_swallowing_utf8(percent_decode(n.replace("+", " "))),
                              _swallowing_utf8(percent_decode(v.replace("+", " "))))
                             for n, _, v in (s.partition("=") for s in text.split("&") if s)])


def _decode_class(adapter: object, value: str) -> str:
    with pytest.raises(Divergence) as info:
        check_decode(DecodeCase(value), adapter)  # type: ignore[arg-type]
    return info.value.difference


@pytest.mark.parametrize("value", ["%C3a", "%EF ", "%C3/", "%C3%41", "xy%E2%82z", "%C0#",
                                   "%F0%9F\u00e9", "%e2%82\u00e9"])
def test_what_a_decoder_loses_after_invalid_utf8_is_one_class_whatever_it_lost(
        value: str) -> None:
    """The unit after the invalid sequence is only what the bug lost: a letter, a space,
    a ``/``, an escape's ``%``, the bytes of an ``é`` were one finding each (24 in a 60 s
    campaign of a tuning decoder), and a U+FFFD starting EF put it on another unit after
    ``%EF`` than after ``%C3``. One class names what comes before them, checked on
    variants of the unit; the lost unit decides the shape."""
    assert _decode_class(SWALLOWING, value) == "unit=any;after=invalid-utf8;diff=any"


@pytest.mark.parametrize("text", ["a=%C3b", "%C3b=1", "x=%E2%82%41", "%C3+=1"])
def test_what_a_parser_loses_after_invalid_utf8_is_one_class_in_either_field(
        text: str) -> None:
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase(text), SWALLOWING)
    assert info.value.difference == "field=any;unit=any;after=invalid-utf8;diff=any"


def test_a_separator_lost_after_invalid_utf8_is_its_own_behaviour() -> None:
    """A ``=`` inside a value lost after ``%C3`` is named by the ``=``, never with the
    letters the same bug loses (a delimiter is never one finding with harmless ones)."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase("a=%C3="), SWALLOWING)
    assert "unit=0x3D" in info.value.difference and "unit=any" not in info.value.difference


STAR_LOST = function_adapter("test-star-lost", decode=lambda text: percent_decode(
    text.replace("%C3*", "%C3").replace("%c3*", "%c3")))


def test_a_unit_that_is_the_cause_is_named_by_itself() -> None:
    """A decoder that loses a ``*`` after ``%C3`` (only a ``*``): the unit matters, as
    other units there agree, so the class names the ``*``, not what comes before it."""
    assert _decode_class(STAR_LOST, "%C3*") == "unit=0x2A;diff=missing-output"


@pytest.mark.parametrize("value", ["zz%C3q", "%E2%82/", "%F0\u00e9"])
def test_a_known_finding_of_what_comes_before_a_unit_takes_any_unit_after_it(
        value: str) -> None:
    """Once the finding is made, an input that loses another unit there is its hit on the
    fast path (``known_only``: no new finding may be named), not widened again."""
    from pctfuzz._internal.checks.differential import _check
    from pctfuzz._internal.checks.known import KnownFindings
    from pctfuzz._internal.settings import DEFAULT_SETTINGS

    known = KnownFindings()
    known.add_unexplained("decode", "unit=any;after=invalid-utf8;diff=any")
    with pytest.raises(Divergence) as info:
        _check("decode", DecodeCase(value), SWALLOWING, known, known_only=True,
               settings=DEFAULT_SETTINGS)
    assert info.value.difference == "unit=any;after=invalid-utf8;diff=any"


def test_a_unit_at_a_fields_start_is_never_named_by_what_comes_before() -> None:
    """A parser dropping a sequence without ``=`` loses ``a`` in ``=a&a`` whatever the
    ``a`` is, but nothing in its field comes before it: no ``after=start`` class, which
    would take in every behaviour shown on a field's first unit (it named one in a
    campaign of a tuning parser before its rule)."""
    from pctfuzz._internal.checks.generalize import as_victim

    assert as_victim(FormParseCase("=a&a"), "field=name;unit=0x61;diff=missing-pair") is None
    assert as_victim(FormParseCase("x=%C3a"), "field=value;unit=0x61;diff=missing-output") \
        == "field=value;unit=any;after=invalid-utf8;diff=any"


def _decoded_only_with_a_percent(field: str) -> str:
    """A field decoded only when it holds a '%' (a fast path returns it as it is), and
    then each character U+0080-U+00FF as '?' (as Mono's HttpUtility.UrlDecode writes them
    as their low byte, which the rule ``latin1_chars`` names: here no rule does)."""
    if "%" not in field:
        return field
    low = "".join("?" if 0x80 <= ord(c) < 0x100 else c for c in field)
    return percent_decode(low).decode("utf-8", "replace")


LOW_BYTE_WITH_PERCENT = function_adapter("test-low-byte-with-percent", form_parse=lambda text: [
    (_decoded_only_with_a_percent(n), _decoded_only_with_a_percent(v))
    for n, _, v in (s.partition("=") for s in text.split("&") if s)])


def test_a_unit_that_only_sets_the_code_path_off_is_not_the_class() -> None:
    """The last unit of the shortest differing prefix of ``\\x80%`` is the ``%`` that
    turns decoding on, not what the parser gets wrong: the class names the unit where
    the field's texts part, so both orders are one class (two findings per field and
    shape before, in Mono's ParseQueryString)."""
    classes = set()
    for text in ("\x80%", "%\x80", "a=\x80%", "a=%\x80"):
        with pytest.raises(Divergence) as info:
            check_form_parse(FormParseCase(text), LOW_BYTE_WITH_PERCENT)
        classes.add(info.value.difference)
    assert classes == {"field=any;unit=non-ascii;diff=changed"}, classes


def test_a_field_answered_elsewhere_is_named_by_its_last_unit() -> None:
    """Mono answers a sequence without '=' as the value of an empty name: the name parts
    at its first unit whatever it is, so that unit is no unit whose answer differs (the
    texts do not go on alike after it); the last unit names it, as before (one finding
    per first character otherwise: a letter, a space, a '#', a '/', a control...)."""
    from pctfuzz._internal.identity import form_parse_difference

    for first in ("a", " ", "#", "%0a"):
        assert form_parse_difference(f"{first}\x80%", [(f"{first}\x80%", "")],
                                     [("", "\ufffd%")]) \
            == "field=name;unit=pct-invalid;diff=missing-output"


LOWER_HEX = function_adapter(
    "test-lower-hex-fffd", sets={"component": "component"},
    encode=lambda text: re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), percent_encode(
        re.sub("[\ud800-\udfff]", "\ufffd", text), "component")))


def test_the_matrix_judges_a_lone_surrogate_as_the_check_does(tmp_path: Path) -> None:
    """An encoder writing lowercase hex (an accepted entry) and a lone surrogate as
    U+FFFD: the check holds it to the USVString's answer and accepts it; ``judge``,
    which ``pctfuzz matrix`` asks first, called it a bug, and the matrix then lost the
    finding ("did not fail again": exit 3, in every full matrix run with Mono)."""
    from pctfuzz._internal.checks.differential import judge
    from pctfuzz._internal.outcome import Outcome, reference_outcome

    accept = tmp_path / "accept.toml"
    accept.write_text('[[divergence]]\nid = "lower"\ncheck = "encode"\n'
                      'reconciler = "lowercase_hex"\ncitation = "c"\nwhy = "w"\n'
                      'example = { value = "~", set = "component" }\n')

    class WithLower:
        def __getattr__(self, name: str) -> object:
            return getattr(LOWER_HEX, name)
        divergences = load_accept_file(str(accept))

    adapter = WithLower()
    case = EncodeCase("a\ud800b", "component")
    assert check_encode(case, adapter) == ("lower",)  # type: ignore[arg-type]
    actual = Outcome(adapter.encode(case))  # type: ignore[attr-defined]
    assert actual.value == "a%ef%bf%bdb"
    assert judge("encode", case, adapter, reference_outcome("encode", case),  # type: ignore[arg-type]
                 actual) == ("lower",)


def _names_requoted(pairs: list[tuple[str, str]]) -> str:
    """A query builder that keeps a name's valid escapes as they are ('%41' stays)."""
    from urllib.parse import quote
    return "&".join(re.sub("%25([0-9A-Fa-f]{2})", r"%\1", quote(n, safe="")) + "="
                    + quote(v, safe="") for n, v in pairs)


NAMES_REQUOTED = function_adapter("test-names-requoted", form_serialize=_names_requoted)


@pytest.mark.parametrize("name", ["%41", "%30", "x%7E", "%C3%A9", "%2F", "%2f", "x%3d"])
def test_a_kept_escape_is_one_class(name: str) -> None:
    """A serializer keeping a name's escapes: the cut that differs ends an escape, which
    is the unit (``pct-triplet``, as encode names it), not its last hex digit (one
    finding per hex digit, and a hold-out's scorer called them misnamed: the digits
    are written alike, the kept '%' differs). A lowercase escape kept is no
    ``lowercase_hex`` (it named the combination with ``left_raw('%')``, to which it
    added nothing)."""
    with pytest.raises(Divergence) as info:
        check_form(FormCase(((name, "v"),)), NAMES_REQUOTED)
    assert info.value.difference == "field=name;unit=pct-triplet;diff=changed"


@pytest.mark.parametrize("digit", "0123456789ABCDEF")
def test_an_escapes_digit_widens_inside_escapes(digit: str) -> None:
    """A class whose unit is an escape's last hex digit widens among hex digits varied
    inside the escape (still an escape; never into "%25", the reference's own escape of
    '%'): a variant never touched an escape's digits, so it was one finding per digit."""
    from pctfuzz._internal.checks.generalize import widen

    case = FormCase(((f"%4{digit}", "v"),))

    def classify(variant: object) -> str:
        name = variant.pairs[0][0]  # type: ignore[union-attr]
        assert re.fullmatch("%[0-9A-Fa-f]{2}", name), name  # (still an escape)
        return f"field=name;unit=0x{ord(name[-1]):02X};diff=changed"

    assert widen(case, f"field=name;unit=0x{ord(digit):02X};diff=changed", classify) == \
        "field=name;unit=hex-digit;diff=changed"


def _semicolon_parser(text: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    return [(n.strip(), v.strip()) for n, v in parse_qsl(text, separator=";")]


SEMICOLON_PARSER = function_adapter("test-semicolon-parser", form_parse=_semicolon_parser)


@pytest.mark.parametrize("text", ["a&", "a", "ab&"])
def test_a_parser_not_splitting_at_the_ampersand_is_not_refuted_by_it(text: str) -> None:
    """A name's variants never split at a '&' the parser does not split at (urllib's
    ``separator=";"``, then ``strip()``): ``a&`` is one name with an empty value there,
    dropped as ``a`` is, and "drops empty pairs" was refuted by ``a=&`` (the value '&')
    and ``xx&xx=xx`` (one name), so ``a&`` was named "needs '='" beside ``a``'s finding."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase(text), SEMICOLON_PARSER)
    assert info.value.difference == "rule=empty_pairs(mode=dropped)"


def _strict_parser(text: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    return parse_qsl(text, strict_parsing=True)  # a sequence without '=' raises


def test_a_parser_refusing_a_name_alone_is_not_refuted_by_an_ampersand_alone() -> None:
    """'&' is never tried alone in a name: ``xx&xx=xx`` leaves ``xx`` a name alone, which
    a strict parser refuses, and "drops empty pairs" was refuted so on ``=&=``."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase("=&="),
                         function_adapter("test-strict-parser", form_parse=_strict_parser))
    assert info.value.difference == "rule=empty_pairs(mode=dropped)"


def _user_name(text: str) -> str:
    # pip's split_auth_from_netloc: the user name ends at the first ':' (the password's)
    from urllib.parse import unquote

    return unquote(text.split(":", 1)[0])


def test_a_decoder_cutting_at_another_delimiter_is_named_by_the_cut() -> None:
    """``cut_at`` knows the delimiters that end a component or field, ':' among them (a
    user name's end, RFC 3986 3.2.1): a decoder that stops at ':' was one class per
    shape of what followed."""
    adapter = function_adapter("test-user-name", decode=_user_name)
    for text in (":", "a:b", "%41:%42"):
        with pytest.raises(Divergence) as info:
            check_decode(DecodeCase(text), adapter)
        assert info.value.difference == "rule=cut_at(chars=:)", text


def _wiped_by_a_parameter(text: str) -> str:
    """A decoder that reads up to the first ``;`` (``cut_at``), but answers nothing
    when a parameter ``k`` follows it: the value is wiped out, as the stdlib's RFC 2231
    ``get_filename`` answers '' for ``X;filename``."""
    value, sep, rest = text.partition(";")
    return "" if sep and rest.startswith("k") else percent_decode(value)


WIPED = function_adapter("test-wiped", decode=_wiped_by_a_parameter)
#: Where it keeps the first unit: a leading ``!`` alone is lost before a ``;``.
BANG_LOST = function_adapter("test-bang-lost", decode=lambda text: percent_decode(
    text.partition(";")[0].removeprefix("!") if text.startswith("!;") else
    text.partition(";")[0]))


def _with_cut_known(adapter: object, value: str, klass: str | None = None,
                    known_only: bool = False, trimmed: str = "") -> str:
    """The class of ``value``'s difference once the cut at ``;`` is a known finding
    (and ``klass``, a known finding no rule names; ``trimmed``, the trim of these)."""
    from pctfuzz._internal.checks.differential import _check
    from pctfuzz._internal.checks.known import KnownFindings
    from pctfuzz._internal.settings import DEFAULT_SETTINGS

    known = KnownFindings()
    assert known.add("decode", {"rule": "cut_at", "params": {"chars": ";"}}, DecodeCase(";"))
    if trimmed:
        assert known.add("decode", {"rule": "trimmed", "params": {"chars": trimmed}},
                         DecodeCase(trimmed))
    if klass is not None:
        known.add_unexplained("decode", klass)
    with pytest.raises(Divergence) as info:
        _check("decode", DecodeCase(value), adapter, known, known_only=known_only,  # type: ignore[arg-type]
               settings=DEFAULT_SETTINGS)
    return info.value.difference


@pytest.mark.parametrize("value", ["a;k", "!;k", "%;k", "\x01;k", "%41;k", '"";k'])
def test_a_first_unit_there_only_to_be_lost_is_named_by_what_follows(value: str) -> None:
    """Without a unit before the ``;``, the cut explains the answer: the minimal input
    keeps one, any one, and its class named it (a trial of ``get_filename`` made seven
    findings of the one wipe-out, one per class of the first character). Checked on
    variants of the unit (or of its run, ``""``), the class names what comes after."""
    assert _with_cut_known(WIPED, value) == "unit=any;before=0x3B;diff=missing-output"


def test_units_there_only_to_be_lost_are_named_by_what_follows_them_all() -> None:
    """A trimmed VT before the ``;`` is no part of the behaviour: ``\x0b;k`` alone is the
    trim and the cut, so the minimal input keeps an ``a`` before it. The longest start
    that any unit can stand for is what is lost (a trial made one finding per
    whitespace there)."""
    trimming = function_adapter("test-trimming-wiped",
                                decode=lambda text: _wiped_by_a_parameter(text.strip("\x0b")))
    assert _with_cut_known(trimming, "a\x0b;k", trimmed="\x0b") \
        == "unit=any;before=0x3B;diff=missing-output"


def test_a_first_unit_that_is_the_cause_is_named_by_itself() -> None:
    """Only a ``!`` is lost before the ``;``: other units there agree, so the class
    names the ``!``."""
    assert _with_cut_known(BANG_LOST, "!;k") == "unit=0x21;diff=missing-output"


def test_a_known_finding_of_what_follows_a_lost_unit_takes_any_unit_before_it() -> None:
    """Once made, the finding takes another first unit on the fast path (``known_only``:
    no finding may be named)."""
    klass = "unit=any;before=0x3B;diff=missing-output"
    assert _with_cut_known(WIPED, "zz;k", klass, known_only=True) == klass


def _closing_tag(text: str) -> str:
    """A verbatim tag closed by ``> `` (as PyYAML's scanner closes ``!<...>``): the
    rest of the value is read as a document, whose parser refuses many things, each in
    a statement of its own."""
    tag, closed, rest = text.partition("> ")
    if rest.startswith("["):
        raise ValueError("unclosed flow sequence")
    if rest.startswith("{"):
        raise KeyError("unclosed flow mapping")
    if rest.startswith('"'):
        raise TypeError("unclosed quoted scalar")
    if tag == "!":  # (the non-specific tag, resolved)
        return "tag:str"
    return percent_decode(tag if closed else text).decode("utf-8", "replace")


CLOSING_TAG = function_adapter("test-closing-tag", decode=_closing_tag)


@pytest.mark.parametrize("value", ["a> [", "a> {x", 'ab> "', "a> [" + "q" * 40,
                                   "!> [", "a> [" + "&" * 120])
def test_a_refusal_of_what_a_known_cut_lets_through_is_one_finding(value: str) -> None:
    """Once the cut at ``> `` is a known finding (no rule names it), each refusal of
    what follows it, whatever statement raised it, is one crash finding of its own
    (19 findings in a 60 s campaign of a tag reader), never the cut's hit: also when
    the start is answered as another known finding first (the non-specific tag ``!``)
    or the input is long
    and not minimized yet (its cut is near its start)."""
    from pctfuzz._internal.checks.differential import _check
    from pctfuzz._internal.checks.known import KnownFindings
    from pctfuzz._internal.identity import signature_of
    from pctfuzz._internal.settings import DEFAULT_SETTINGS

    cut = _decode_class(CLOSING_TAG, "a> a")
    assert cut == "unit=0x3E;diff=missing-output"
    known = KnownFindings()
    known.add_unexplained("decode", cut)
    known.add_unexplained("decode", _decode_class(CLOSING_TAG, "!"))
    with pytest.raises(Divergence) as info:
        _check("decode", DecodeCase(value), CLOSING_TAG, known, settings=DEFAULT_SETTINGS)
    assert info.value.impl_error is not None
    assert signature_of("diff_decode", info.value).split("|")[1:4] == [
        "crash", "decode", f"raised=any;after({cut})"]


def _raw_mojibake(part: str) -> str:
    """A raw non-ASCII character written as its UTF-8 bytes read as latin-1, then the
    part percent-decoded: U+0080-U+00BF come out as 'Â' and the character itself."""
    from urllib.parse import unquote

    return unquote("".join(c.encode("utf-8").decode("latin-1") if ord(c) > 0x7F else c
                           for c in part))


RAW_MOJIBAKE = function_adapter("test-raw-mojibake", form_parse=lambda text: [
    (_raw_mojibake(n), _raw_mojibake(v)) for s in text.split("&") if s
    for n, _, v in [s.partition("=")]])


@pytest.mark.parametrize("text", ["\u00a9", "a\u00a9b", "\u00e9", "\u0416=1"])
def test_a_non_ascii_character_matched_by_chance_is_one_class(text: str) -> None:
    """'\u00a9' comes out as 'Â\u00a9': its last character matches the input's by chance,
    an 'extra-output' where every character from U+00C0 on is 'changed'; one behaviour
    (hold-out 17: two findings in every version)."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase(text), RAW_MOJIBAKE)
    assert info.value.difference == "field=any;unit=non-ascii;diff=changed"


def _strict_hash_cut(text: str) -> str:
    """A reader that refuses two '[' in a row anywhere in its input and ignores what
    follows a '#': the refusal needs no cut before it."""
    if "[[" in text:
        raise ValueError("nested too deep")
    return percent_decode(text.partition("#")[0]).decode("utf-8", "replace")


STRICT_HASH_CUT = function_adapter("test-strict-hash-cut", decode=_strict_hash_cut)


def test_a_refusal_that_needs_no_cut_is_not_named_after_it() -> None:
    """A long input not minimized yet holds a known cut ('#') and, after it, what the
    reader refuses anywhere ('[['): the end alone is refused too, so the refusal is
    not what the cut lets through, and is located where it rose (hold-out 17: two
    crashes of a form parser named after a cut that played no part)."""
    from pctfuzz._internal.checks.differential import _check
    from pctfuzz._internal.checks.known import KnownFindings
    from pctfuzz._internal.settings import DEFAULT_SETTINGS

    with pytest.raises(Divergence) as first:
        _check("decode", DecodeCase("a#b"), STRICT_HASH_CUT, settings=DEFAULT_SETTINGS)
    assert first.value.difference == "rule=cut_at(chars=#)"
    known = KnownFindings()
    known.add("decode", first.value.behaviour, DecodeCase("a#b"))
    with pytest.raises(Divergence) as info:
        _check("decode", DecodeCase("ab#cd[[e"), STRICT_HASH_CUT, known,
               settings=DEFAULT_SETTINGS)
    assert info.value.impl_error is not None
    assert not info.value.difference.startswith("raised=any;after(")


def _nested_names(text: str) -> str:
    """A reader that drops each ``[]`` (querystring-parser's nested names) and fails on
    two of them in a row: the drop loses a unit, but no end of the input."""
    if "[][]" in text:
        raise TypeError("string indices must be integers")
    return percent_decode(text.replace("[]", "")).decode("utf-8", "replace")


NESTED_NAMES = function_adapter("test-nested-names", decode=_nested_names)


def test_a_refusal_after_a_lost_unit_that_cuts_nothing_keeps_its_own_place() -> None:
    """A known finding that loses a unit but answers what follows it (``a[]x`` as
    ``ax``, ``a[]y`` as ``ay``) cuts nothing: a refusal there is located where it
    rose, never named "after" that finding (hold-out 12: a merge walk's crash was
    named after a nested name's lost ``[]``, three misnamed findings)."""
    from pctfuzz._internal.checks.differential import _check
    from pctfuzz._internal.checks.known import KnownFindings
    from pctfuzz._internal.settings import DEFAULT_SETTINGS

    lost = _decode_class(NESTED_NAMES, "a[]")
    assert "diff=missing-output" in lost
    known = KnownFindings()
    known.add_unexplained("decode", lost)
    with pytest.raises(Divergence) as info:
        _check("decode", DecodeCase("a[][]"), NESTED_NAMES, known, settings=DEFAULT_SETTINGS)
    assert info.value.impl_error is not None
    assert not info.value.difference.startswith("raised=any;after(")


def _non_specific(text: str) -> str:
    """PyYAML's tag reader: a tag that decodes to ``!`` is the non-specific tag, resolved."""
    decoded = percent_decode(text).decode("utf-8", "replace")
    return "tag:str" if decoded == "!" else decoded


NON_SPECIFIC = function_adapter("test-non-specific-tag", decode=_non_specific)
DECODED_THEN_CUT = function_adapter(
    "test-decoded-then-cut",
    decode=lambda text: percent_decode(text).decode("utf-8", "replace").partition("#")[0])


def test_an_escape_answered_as_its_character_is_named_as_it() -> None:
    """Both sides answer ``%21`` as they answer ``!``: the escape is no part of the
    difference, and the two were two findings of one behaviour."""
    assert _decode_class(NON_SPECIFIC, "%21") == _decode_class(NON_SPECIFIC, "!") \
        == "unit=0x21;diff=changed"


def test_a_delimiters_escape_answered_as_it_stays_apart() -> None:
    """A decoder that cuts at ``%23`` as at ``#`` decodes before it splits, a bug of
    its own: never named with the raw ``#``."""
    assert _decode_class(DECODED_THEN_CUT, "a%23b") != _decode_class(DECODED_THEN_CUT, "a#b")
    assert "0x23" in _decode_class(DECODED_THEN_CUT, "a%23b")


def test_a_refusal_before_any_cut_keeps_its_own_class() -> None:
    """Without the known cut, or where no cut lets it through, the refusal is named
    by what raised it."""
    from pctfuzz._internal.checks.differential import _check
    from pctfuzz._internal.checks.known import KnownFindings
    from pctfuzz._internal.identity import signature_of
    from pctfuzz._internal.settings import DEFAULT_SETTINGS

    with pytest.raises(Divergence) as info:
        _check("decode", DecodeCase("a> ["), CLOSING_TAG, KnownFindings(),
               settings=DEFAULT_SETTINGS)
    assert signature_of("diff_decode", info.value).split("|")[3].startswith("raised=ValueError@")


def _loosely_keyed(text: str) -> list[tuple[str, str]]:
    """A parser that keys its pairs by a loose comparison, as Mono's NameValueCollection
    does (NUL and U+07FF ignored, case ignored), grouping the values of a key under the
    name it first met."""
    keyed: dict[str, tuple[str, list[str]]] = {}
    for name, value in form_urldecode(text.encode()):
        key = name.replace("\x00", "").replace("\u07ff", "").lower()
        keyed.setdefault(key, (name, []))[1].append(value)
    return [(name, value) for name, values in keyed.values() for value in values]


LOOSELY_KEYED = function_adapter("test-loosely-keyed", form_parse=_loosely_keyed)
TRIMMED_NAMES = function_adapter(
    "test-trimmed-names",
    form_parse=lambda text: [(n.strip(), v) for n, v in form_urldecode(text.encode())])


@pytest.mark.parametrize("text", ["\u07ff%=&%=", "a\x00=&a=", "x=2&b=1&b\x00=3", "Q=&q=",
                                  "%\u07ff%29950ba=&%%29950ba="])
def test_a_name_read_as_an_earlier_one_is_one_finding(text: str) -> None:
    """Names merged by a loose comparison are one finding whatever units make them
    differ (Mono's ParseQueryString: six findings, one per unit ending the prefix)."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase(text), LOOSELY_KEYED)
    assert info.value.difference == "field=name;unit=any;diff=merged"
    assert impact_of("divergence", info.value.difference, None) == "loses-data"


def test_a_trim_that_gives_an_earlier_name_is_the_trims() -> None:
    """A name trimmed to an earlier one is read wrong alone too: the trim, not a merge."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase("a=&a%20="), TRIMMED_NAMES)
    assert "merged" not in info.value.difference


def _stops_at_hash(text: str) -> bytes:
    """A decoder that keeps every escape after the first raw ``#`` as it is."""
    head, hash_, tail = text.partition("#")
    return percent_decode(head) + (hash_ + tail).encode()


STOPS_AT_HASH = function_adapter("test-stops-at-hash", decode=_stops_at_hash)
SLASH_KEPT = function_adapter(
    "test-slash-escape-changed",
    decode=lambda text: percent_decode(text.replace("%2F", "%5C").replace("%2f", "%5C")))


@pytest.mark.parametrize("value", ["#%2F", "#%41", "#%3D", "#%2e", "#%20", "a#b%26", "#%C3%A9",
                                   "#%aa", "#%25", "a#%25b"])
def test_a_decoder_doing_alike_to_every_escape_is_one_finding(value: str) -> None:
    """Every escape kept after a raw ``#``: one finding, not one per delimiter's escape
    and one for letters' and digits' (each delimiter is checked); and not "the input
    undecoded when it is not UTF-8" for ``#%aa``, which ``x%aa`` refutes; ``%25`` kept
    is not "more output at the end", though its ``%`` matches the one it decodes to."""
    assert _decode_class(STOPS_AT_HASH, value) == "seg=pct-any;diff=not-decoded"


def test_a_delimiters_escape_handled_apart_stays_apart() -> None:
    """Only ``%2F`` is read otherwise: its escape is its own segment still."""
    assert _decode_class(SLASH_KEPT, "a%2Fb") == "seg=pct-0x2F;diff=changed"


def _int_escapes(text: str) -> bytes:
    """A decoder that reads the (at most) two characters after each ``%`` with
    ``int(..., 16)`` (hold-out 11): one hex digit alone is a byte, a sign or a space
    beside a digit is read too, anything else raises; a ``%`` at the end is kept."""
    parts = text.encode().split(b"%")
    out = [parts[0]]
    for item in parts[1:]:
        out += [b"%"] if not item else [bytes([int(item[:2], 16)]), item[2:]]
    return b"".join(out)


def _percent_dropped(text: str) -> bytes:
    """A decoder that drops each ``%`` that starts no escape (and keeps a last one)."""
    return percent_decode(re.sub("%(?![0-9A-Fa-f]{2})(?=.)", "", text, flags=re.DOTALL))


INT_ESCAPES = function_adapter("test-int-escapes", decode=_int_escapes)
PERCENT_DROPPED = function_adapter("test-percent-dropped", decode=_percent_dropped)


@pytest.mark.parametrize(("value", "klass"), [("%a", "seg=pct-short;diff=changed"),
                                              ("%4%41", "seg=pct-short;diff=changed"),
                                              ("% 4", "seg=pct-nonhex;diff=changed")])
def test_a_digit_read_alone_and_a_space_read_in_an_escape_are_two_findings(
        value: str, klass: str) -> None:
    """A ``%`` that starts no escape is classed by what follows it, a hex digit or not:
    hold-out 11's decoder reading ``%4`` as the byte 04 (harmless-looking) took every
    input of its reading ``% 4`` so (a real bug), on the fast path, in four runs."""
    assert _decode_class(INT_ESCAPES, value) == klass


@pytest.mark.parametrize("value", ["%a", "a%zz", "%4%41", "%é"])
def test_a_decoder_doing_alike_to_every_bad_escape_is_one_finding(value: str) -> None:
    """The other kind of bad escape checked: the same class, so one finding names both."""
    assert _decode_class(PERCENT_DROPPED, value) == "seg=pct-invalid;diff=changed"


def _undecoded_after_hash(text: str) -> list[tuple[str, str]]:
    """A form parser that decodes the pairs before a raw ``#`` only (those after it
    keep their escapes, '+' included)."""
    head, hash_, tail = text.partition("#")
    pairs = form_urldecode(head.encode())
    for sequence in (hash_ + tail).split("&"):
        if sequence:
            name, _, value = sequence.partition("=")
            pairs.append((name, value))
    return pairs


UNDECODED_AFTER_HASH = function_adapter("test-undecoded-after-hash",
                                        form_parse=_undecoded_after_hash)


@pytest.mark.parametrize(("text", "field"), [("#a%2F=1", "name"), ("#%41=1", "name"),
                                             ("#%2e", "name"), ("b=%3D&#=%26", "value"),
                                             ("#=%C3%A9", "value")])
def test_a_parser_doing_alike_to_every_escape_is_one_finding_per_field(text: str,
                                                                        field: str) -> None:
    """Each escape after a raw ``#`` kept: one class per field, not one per character
    the escape decodes to (``0x2F``, ``alnum``, ``0x26``, ``non-ascii``...)."""
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase(text), UNDECODED_AFTER_HASH)
    assert info.value.difference == f"field={field};unit=pct-any;diff=not-decoded"


@pytest.mark.parametrize(("adapter", "case", "klass"), [
    (STOPS_AT_HASH, DecodeCase("x#%3D"), "seg=pct-any;diff=not-decoded"),
    (UNDECODED_AFTER_HASH, FormParseCase("#%2F=1"), "field=name;unit=pct-any;diff=not-decoded"),
])
def test_a_known_any_escape_finding_takes_an_escape_without_widening(
        adapter: object, case: object, klass: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once every kind of escape was checked alike, another input of one is the known
    finding's hit on the fast path: its widening asked 12 variants per input, and a
    form parser's minimizations ran out of time."""
    from pctfuzz._internal.checks import generalize
    from pctfuzz._internal.checks.differential import _check
    from pctfuzz._internal.checks.known import KnownFindings
    from pctfuzz._internal.settings import DEFAULT_SETTINGS

    def never(*args: object) -> None:
        raise AssertionError("widened again")

    monkeypatch.setattr(generalize, "_any_escape", never)
    check = "decode" if isinstance(case, DecodeCase) else "form-parse"
    known = KnownFindings()
    known.add_unexplained(check, klass)
    with pytest.raises(Divergence) as info:
        _check(check, case, adapter, known, known_only=True,  # type: ignore[arg-type]
               settings=DEFAULT_SETTINGS)
    assert info.value.difference == klass


def _digit_names(text: str | bytes) -> list[tuple[str, str]]:
    """A form parser that writes a name of decimal digits as its int() (querystring-
    parser's numeric keys): an NKo or Arabic-Indic digit becomes ASCII."""
    return [(str(int(name)) if name.isdecimal() else name, value)
            for name, value in form_urldecode(text)]


def _drops_non_ascii(text: str | bytes) -> list[tuple[str, str]]:
    return [("".join(c for c in name if c.isascii()), value)
            for name, value in form_urldecode(text)]


@pytest.mark.parametrize("name", ["\u07c1", "\u0663", "\u096a"])
def test_a_non_ascii_unit_names_only_what_its_variants_show(name: str) -> None:
    """A parser changing non-ASCII digits was named ``unit=non-ascii``, a claim that
    ``é`` refutes (hold-out 12): the class is then the character's Unicode category,
    checked on three of its members; a parser changing every non-ASCII character keeps
    ``non-ascii``."""
    def klass(adapter: object, text: str) -> str:
        with pytest.raises(Divergence) as info:
            check_form_parse(FormParseCase(text), adapter)  # type: ignore[arg-type]
        return info.value.difference

    digits = function_adapter("digit-names", form_parse=_digit_names)
    assert klass(digits, name + "=1") == "field=name;unit=non-ascii-Nd;diff=changed"
    drops = function_adapter("drops-non-ascii", form_parse=_drops_non_ascii)
    assert "unit=non-ascii;" in klass(drops, name + "=1")


def _letters_raw(text: str) -> str:
    """An encoder that leaves raw the non-ASCII characters ``str.isalpha`` accepts (an
    IRI-minded ``re.sub(r"[^\\w]", ...)`` in spirit) and quotes the rest."""
    return "".join(c if not c.isascii() and c.isalpha() else quote(c, safe="") for c in text)


def _alnum_raw(text: str) -> str:
    return "".join(c if not c.isascii() and c.isalnum() else quote(c, safe="") for c in text)


@pytest.mark.parametrize(("encode", "unit"), [(_letters_raw, "non-ascii-L"),
                                              (_alnum_raw, "non-ascii-L,N")])
@pytest.mark.parametrize("value", ["\u00e9", "\u0416", "\u4e2d", "a\u01c5", "\u02b0b"])
def test_a_non_ascii_unit_names_every_category_that_behaves_alike(
        encode: object, unit: str, value: str) -> None:
    """Named by its category alone, an encoder's letters left raw were two findings,
    ``non-ascii-Ll`` and ``non-ascii-Lu`` (hold-out 13): the class is the character's
    category and every other one whose characters behave alike, the same whichever
    letter an input shows (Ll, Lu, Lo, Lt, Lm); a symbol or a mark is not in it."""
    adapter = function_adapter(f"test-{unit}", encode=encode, sets={"c": "component"})
    with pytest.raises(Divergence) as info:
        check_encode(EncodeCase(value, "component"), adapter)  # type: ignore[arg-type]
    assert f"unit={unit};" in info.value.difference
    with pytest.raises(Divergence) as symbol:
        check_encode(EncodeCase("\u20ac", "component"), function_adapter(  # type: ignore[arg-type]
            "test-symbols-raw", sets={"c": "component"}, encode=lambda t: "".join(
                c if unicodedata.category(c) == "Sc" else quote(c, safe="") for c in t)))
    assert "unit=non-ascii-Sc;" in symbol.value.difference


def _code_point_escapes(text: str) -> str:
    """A non-ASCII letter or digit raw, any other non-ASCII character as '%' and its
    code point in hex (not its UTF-8), ASCII as quote() writes it."""
    return "".join(quote(c, safe="") if c.isascii() else c if c.isalnum()
                   else f"%{ord(c):X}" for c in text)


@pytest.mark.parametrize("value", ["\x80", "\u2603", "\u00a7", "\u0301", "\u2028"])
def test_the_categories_of_one_behaviour_are_one_class_whichever_comes_first(
        value: str) -> None:
    """An encoder writing non-ASCII symbols, controls, marks and punctuation as its own
    ``%<code point>`` was two findings (hold-out 13): ``unit=non-ascii`` on U+0080, a
    control of a category with one block (never checked), and ``non-ascii-So`` on a
    symbol. Each is now the class of every category that behaves alike."""
    adapter = function_adapter("test-code-points", encode=_code_point_escapes,
                               sets={"c": "component"})
    with pytest.raises(Divergence) as first:
        check_encode(EncodeCase("\u2603", "component"), adapter)  # type: ignore[arg-type]
    with pytest.raises(Divergence) as other:
        check_encode(EncodeCase(value, "component"), adapter)  # type: ignore[arg-type]
    assert other.value.difference == first.value.difference
    assert "unit=non-ascii-" in first.value.difference and ",S," in first.value.difference


def test_a_known_category_class_names_another_member_without_variants() -> None:
    """Once ``non-ascii-L`` is a finding's class, an input of another letter is its hit
    with no variant asked (widening asks a few dozen)."""
    from pctfuzz._internal.checks.generalize import widen

    def never(_case: object) -> str | None:
        raise AssertionError("a variant was asked")

    made = "unit=non-ascii-L,Nd;diff=left-raw"
    assert widen(EncodeCase("x\u0416", "component"), "unit=non-ascii;diff=left-raw", never,
                 [made]) == made
    assert widen(EncodeCase("\u0663", "component"), "unit=non-ascii;diff=left-raw", never,
                 [made]) == made
    with pytest.raises(AssertionError, match="variant"):  # a symbol: not a member
        widen(EncodeCase("\u20ac", "component"), "unit=non-ascii;diff=left-raw", never, [made])


def _drops_astral(text: str) -> str:
    return quote("".join(c for c in text if ord(c) <= 0xFFFF), safe="")


@pytest.mark.parametrize("value", ["\U0001f600", "a\U00010348"])
def test_an_astral_unit_is_named_astral_where_only_astral_characters_show_it(
        value: str) -> None:
    """An encoder that drops astral characters keeps ``é``: ``unit=non-ascii`` claimed
    more than it checked; other planes' characters show it, so ``unit=astral``."""
    adapter = function_adapter("drops-astral", encode=_drops_astral, sets={"c": "component"})
    assert _class(adapter, value) == "unit=astral;diff=missing-output"


def _names_cut_at(text: str, raw: bool, escaped: str) -> list[tuple[str, str]]:
    """A parser reading ``[`` in a name as the start of an array index (the name cut
    there): a raw one if ``raw``; a ``%5B`` as ``escaped`` says: ``cut`` the same way,
    ``dropped`` alone, ``kept`` (read right)."""
    pairs = []
    for sequence in text.split("&"):
        name, equals, value = sequence.partition("=")
        if raw:
            name = name.partition("[")[0]
        if escaped == "cut":
            name = name.replace("%5B", "[").replace("%5b", "[")
            name = name.partition("[")[0]
        elif escaped == "dropped":
            name = name.replace("%5B", "").replace("%5b", "")
        if sequence:
            pairs.extend(form_urldecode(name + equals + value) or [("", "")])
    return pairs


@pytest.mark.parametrize(("raw", "escaped", "classes"), [
    # raw only: the escape is read right
    (True, "kept", {"a[=1": "field=name;unit=0x5B;written=raw;diff=missing-output",
                    "a%5B=1": None}),
    # however written: one class
    (False, "cut", {"a[=1": "field=name;unit=0x5B;diff=missing-output",
                    "a%5b=1": "field=name;unit=0x5B;diff=missing-output"}),
    (True, "cut", {"a[=1": "field=name;unit=0x5B;diff=missing-output",
                   "x=1&a%5B": "field=name;unit=0x5B;diff=missing-output"}),
    # two behaviours that part at the same unit of the shortest prefix alike: a raw '['
    # cuts the name, a '%5B' is dropped alone (what follows it tells them apart)
    (True, "dropped", {"a[b=1": "field=name;unit=0x5B;written=raw;diff=missing-output",
                       "a%5Bb=1": "field=name;unit=0x5B;written=escaped;diff=missing-output"}),
])
def test_a_unit_is_however_written_only_where_each_way_is_answered_alike(
        raw: bool, escaped: str, classes: dict[str, str | None]) -> None:
    """A form parser's class names the character a unit decodes to, and how it was
    written (``written=raw|escaped|plus``) unless the parser answers each way alike:
    a raw ``[`` and a ``%5B`` were one class, which took two real bugs and a harmless
    behaviour of one parser (hold-out 14)."""
    adapter = function_adapter(f"test-brackets-{raw}-{escaped}",
                               form_parse=lambda text: _names_cut_at(text, raw, escaped))
    for text, klass in classes.items():
        if klass is None:
            check_form_parse(FormParseCase(text), adapter)
            continue
        with pytest.raises(Divergence) as info:
            check_form_parse(FormParseCase(text), adapter)
        assert info.value.difference == klass, text


def test_a_known_unit_however_written_covers_each_way_and_one_way_only_its_own() -> None:
    from pctfuzz._internal.identity.units import covers

    anyhow = "field=name;unit=0x5B;diff=missing-output"
    raw = "field=name;unit=0x5B;written=raw;diff=missing-output"
    escaped = raw.replace("raw", "escaped")
    assert covers(anyhow, raw) and covers(anyhow, escaped)
    assert not covers(raw, escaped) and not covers(raw, anyhow)
    assert covers("field=name;unit=printable;diff=missing-output", escaped)


def _values_quoted(pairs: tuple[tuple[str, str], ...]) -> str:
    """A serializer writing names as the reference does and values with urllib's
    ``quote`` (RFC 3986: ``~`` raw, ``*`` encoded, a space as ``%20``)."""
    return "&".join(form_urlencode([(name, "")])[:-1] + "=" + quote(value, safe="")
                    for name, value in pairs)


@pytest.mark.parametrize("pairs", [(("", "~"),), (("", "*"),), (("a", "b c"),),
                                   (("a", "x~*"),)])
def test_another_standards_set_in_values_only_is_one_rule(
        pairs: tuple[tuple[str, str], ...]) -> None:
    """``other_set`` with ``part``: a serializer whose values alone use another standard's
    set is one finding, its raw ``~``, encoded ``*`` and ``%20`` (hold-out 13: three,
    ``encoded(*, part=values)``, the space's class and ``left_raw(~)``); its names agree."""
    adapter = function_adapter("test-values-quoted", form_serialize=_values_quoted)
    with pytest.raises(Divergence) as info:
        check_form(FormCase(pairs), adapter)
    assert info.value.difference == "rule=other_set(raw=~,encoded=*,space=%20,part=values)"
    check_form(FormCase((("~*", ""),)), adapter)


def _code_units(text: str) -> str:
    """``text`` with each astral character as its two UTF-16 code units."""
    return "".join(c if ord(c) < 0x10000 else chr(0xD800 + ((ord(c) - 0x10000) >> 10))
                   + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF)) for c in text)


def _units_beside_a_surrogate(text: str) -> list[tuple[str, str]]:
    """A parser handing back a field that holds a lone surrogate as UTF-16 code units
    (hold-out 15's JavaScript engine binding)."""
    from urllib.parse import parse_qsl

    from pctfuzz._internal.text import has_lone_surrogate

    return [tuple(_code_units(f) if has_lone_surrogate(f) else f for f in pair)  # type: ignore[misc]
            for pair in parse_qsl(text, keep_blank_values=True)]


def test_a_behaviour_of_two_units_is_one_class_in_either_order() -> None:
    """The astral character before the lone surrogate or after it: the answers part at
    the astral character either way, one class (the shortest differing prefix ended at
    the surrogate in one order, at the astral character's four escapes in the other:
    two findings, and an escape at a time did not step over a whole character)."""
    adapter = function_adapter("test-code-units", form_parse=_units_beside_a_surrogate)
    classes = set()
    for text in ("\ud800%F0%9F%98%80", "%F0%9F%98%80\ud800", "a\ud800b%F0%AA%AA%AA",
                 "%F0%AA%AA%AAx\ud800"):
        with pytest.raises(Divergence) as caught:
            check_form_parse(FormParseCase(text), adapter)
        classes.add(caught.value.difference)
    assert len(classes) == 1, classes


def _second_digit_unchecked(text: str) -> str:
    """A decoder checking only an escape's first hex digit: the second, any byte, is read
    as its low four bits (a C ``hex()`` of ``c - 'a' + 10``)."""
    data, out, i = text.encode("utf-8", "surrogatepass"), bytearray(), 0
    while i < len(data):
        first = chr(data[i + 1]) if i + 2 < len(data) else ""
        if data[i] == 0x25 and first and first in string.hexdigits:
            second = chr(data[i + 2])
            low = int(second, 16) if second in string.hexdigits else (data[i + 2] - 87) & 15
            out.append(int(first, 16) * 16 + low)
            i += 3
            continue
        out.append(data[i])
        i += 1
    return out.decode("utf-8", "replace")


@pytest.mark.parametrize("value", ["%2;", "%2!", "%2,", "%2<", "%2\\"])
def test_an_answer_that_matches_the_reference_by_chance_is_its_neighbours_class(
        value: str) -> None:
    """``%2,`` decodes to ``%`` here, which reads as the input's ``%`` kept and ``2,``
    lost (``seg=alnum;diff=missing-output``); ``%2;`` is an escape read wrong. One
    behaviour, one class: the class most of the character's neighbours give."""
    adapter = function_adapter("second-digit", decode=_second_digit_unchecked)
    with pytest.raises(Divergence) as info:
        check_decode(DecodeCase(value), adapter)
    assert info.value.difference == "seg=pct-short;diff=changed"
