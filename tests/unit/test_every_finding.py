"""An input gives every finding it shows, each named by its own behaviour (issue 31):
the recorder checks a new finding's input again with the finding known, the minimizer
lowers a unit only to one that fails the same way, and a serializer's characters are
probed in a name and in a value. The serializer here writes names as they are and
quotes values with ``quote_plus`` (so ``~`` is raw in both parts, ``!`` in names only,
``*`` encoded in values)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote_plus, unquote, unquote_plus, urlsplit

import pytest

from pctfuzz._internal.cases import DecodeCase, FormCase, FormParseCase
from pctfuzz._internal.fuzz.recorder import record_case
from pctfuzz._internal.store import FindingStore
from pctfuzz._internal.targets import get_target
from pctfuzz._internal.violations import Divergence
from pctfuzz.oracles import function_adapter


def _names_raw(pairs: list[tuple[str, str]]) -> str:
    return "&".join(f"{name}={quote_plus(value)}" for name, value in pairs)


names_raw = function_adapter("names-raw", form_serialize=_names_raw)
IMPL = "names-raw"


def _record(tmp_path: Path, *names: str) -> list[str]:
    """Record each name (with an empty value) in one store, as a campaign would meet
    them in turn; the classes and rules of the store's findings, sorted."""
    for name in names:
        record_case(get_target("diff_form"), names_raw, IMPL, tmp_path,
                    FormCase(((name, ""),), "UTF-8"))
    return sorted(f.signature.split("|")[3] for f in FindingStore(tmp_path).iter_findings())


def test_a_non_ascii_name_is_its_own_finding_not_a_lowered_delimiter(tmp_path: Path) -> None:
    # Lowering 'é' to simpler characters met a raw ' ', '!', '#' in turn (each a new
    # failure), and the finding of a raw non-ASCII name was never made.
    # (left raw: its UTF-8 bytes' escapes are what the reference writes; was "changed",
    # then its class, ``field=name;unit=non-ascii;diff=left-raw``, a finding apart from
    # the harmless ASCII characters the names leave raw: one behaviour, one rule now)
    (found,) = _record(tmp_path, "é")
    (named,) = [f.behaviour for f in FindingStore(tmp_path).iter_findings()]
    assert named["rule"] == "left_raw", found
    assert named["params"]["part"] == "names" and named["params"]["non_ascii"] is True
    assert "!" in named["params"]["chars"] and not set("#&+=;%") & set(named["params"]["chars"])


def test_a_names_harmless_characters_are_one_finding_and_its_controls_another(
        tmp_path: Path) -> None:
    """Names written as given (hold-out 15's serializer): a raw space, ``!``, non-ASCII
    character of each UTF-8 length (a lone surrogate is ``lone_surrogates``) were four
    findings of their classes beside the rule of the printable ones; the harmless
    characters are one finding together now, the controls one (a raw CR splits a header
    line), each delimiter its own."""
    found = _record(tmp_path, "é", " ", "!", "\u4e2d", "\U0001f600", "a\x80b", "\x00", "a\x1fb")
    assert len(found) == 2, found
    rules = {f.behaviour["params"].get("non_ascii", False): f.behaviour["params"]["chars"]
             for f in FindingStore(tmp_path).iter_findings()}
    assert set(rules) == {True, False} and " " in rules[True] and "!" in rules[True]
    assert set(rules[False]) == set(map(chr, [*range(0x20), 0x7F]))


def test_an_input_of_two_behaviours_gives_both_findings(tmp_path: Path) -> None:
    # '!' (harmless) and '%' (an escape's start: data changes) raw in one name: the
    # input was named by its first, and every later '%' counted as the '!' finding's.
    # (the '%' is named by a rule of its own now, asked of the serializer as the other
    # characters are: ``field=name;unit=0x25;diff=left-raw`` before)
    found = _record(tmp_path, "a!b%c")
    assert len(found) == 2, found
    named = [(f.behaviour["params"]["chars"], f.behaviour["params"]["part"])
             for f in FindingStore(tmp_path).iter_findings()]
    assert ("%", "names") in named
    (other,) = [chars for chars, part in named if chars != "%" and part == "names"]
    assert "!" in other and "%" not in other


@pytest.mark.parametrize("pairs", [(("", "~"),), (("~", ""),)])
def test_a_character_raw_in_both_parts_is_named_without_a_part(pairs: tuple[tuple[str, str],
                                                                             ...]) -> None:
    bound = get_target("diff_form").bind(names_raw)
    with pytest.raises(Divergence) as raised:
        bound.check(FormCase(pairs, "UTF-8"))
    assert raised.value.behaviour is not None
    assert raised.value.behaviour["rule"] == "left_raw"
    assert raised.value.behaviour["params"] == {"chars": "~"}


def _two_decoders(text: str) -> list[tuple[str, str]]:
    """A form parser that splits on '&' and ';', decodes each sequence before it splits
    at '=' (the bug: an escaped '=' in a name splits it), then decodes the name again
    with ``unquote_plus`` and leaves the value as decoded (its '+' kept)."""
    pairs = []
    for sequence in text.replace(";", "&").split("&"):
        if sequence:
            name, _, value = unquote(sequence).partition("=")
            pairs.append((unquote_plus(name), value))
    return pairs


two_decoders = function_adapter("two-decoders", form_parse=_two_decoders)


@pytest.mark.parametrize(("text", "rule"), [
    # (names decoded by unquote_plus after unquote: an escaped '+' is a space there,
    # one behaviour with the twice-decoded escape, and was a class of its own)
    ("%25aa", {"rule": "decoded_twice", "params": {"part": "names", "plus": "space"}}),
    ("%2b", {"rule": "decoded_twice", "params": {"part": "names", "plus": "space"}}),
    ("%25aa%2b", {"rule": "decoded_twice", "params": {"part": "names", "plus": "space"}}),
    ("=+", {"rule": "plus_kept", "params": {"part": "values"}}),
    ("a+b=c+d", {"rule": "plus_kept", "params": {"part": "values"}}),
])
def test_a_parser_decoding_names_and_values_apart_is_named_per_part(text: str,
                                                                  rule: dict[str, object]
                                                                  ) -> None:
    # Without a part, each rule was refuted where names and values are swapped, and
    # every mix of the two was a finding of its own class.
    bound = get_target("diff_form_parse").bind(two_decoders)
    with pytest.raises(Divergence) as raised:
        bound.check(FormParseCase(text))
    assert raised.value.behaviour is not None
    assert {k: raised.value.behaviour[k] for k in ("rule", "params")} == rule


def test_what_comes_before_a_parsers_sequence_never_changes_its_class(tmp_path: Path) -> None:
    # ';' is a known finding (it separates): ';%3D' and ';&%3D' were findings of their
    # own beside '%3D' (decoded before the split), and ';%2b' beside '%2B'. The parser
    # decodes each sequence before its '=' (it answers 'a%3Db' as ('a', 'b')): the rule
    # of that is asked of it, where it was a class '=' lost from a name.
    for text in (";", "%2B", ";%2b", "a;%2b", "%3D", ";%3D", ";&%3D"):
        record_case(get_target("diff_form_parse"), two_decoders, "two-decoders", tmp_path,
                    FormParseCase(text))
    found = sorted(f.signature.split("|")[3] for f in FindingStore(tmp_path).iter_findings())
    assert found == ["rule=decoded_before_split(chars==)",
                     "rule=decoded_twice(part=names,plus=space)",
                     "rule=semicolon_separates()"]


def _latin1_plus(text: str) -> list[tuple[str, str]]:
    """A form parser that keeps '+' in names and reads a name or value that is not
    UTF-8 as latin-1 (a hand-written ``parse_qsl`` with a fallback)."""
    from urllib.parse import unquote_to_bytes

    def decoded(part: str) -> str:
        data = unquote_to_bytes(part)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data.decode("latin-1")

    return [(decoded(name), decoded(value.replace("+", " "))) for sequence in text.split("&")
            if sequence for name, _, value in [sequence.partition("=")]]


latin1_plus = function_adapter("latin1-plus", form_parse=_latin1_plus)


def test_a_latin1_fallback_composes_with_the_other_rules(tmp_path: Path) -> None:
    # The fallback was a rule written as code, whose answer no other rule could change:
    # a '+' kept beside a byte read as latin-1 ('+%aa') was a class of its own.
    for text in ("+", "%aa", "+%aa", "%aa+", "a+%e9=%ff+b"):
        record_case(get_target("diff_form_parse"), latin1_plus, "latin1-plus", tmp_path,
                    FormParseCase(text))
    found = sorted(f.signature.split("|")[3] for f in FindingStore(tmp_path).iter_findings())
    assert found == ["rule=latin1_fallback()", "rule=plus_kept(part=names)"]


def _split_only(text: str) -> list[tuple[str, str]]:
    """A form parser that splits on '&' and the first '=' and decodes nothing."""
    return [(name, value) for sequence in text.split("&") if sequence
            for name, _, value in [sequence.partition("=")]]


split_only = function_adapter("split-only", form_parse=_split_only)


def test_a_parser_that_decodes_nothing_is_one_finding(tmp_path: Path) -> None:
    # Each kept escape was a finding per kind of character it decodes to (a letter,
    # each delimiter, non-ASCII); a '+' kept is the other behaviour.
    for text in ("%41", "%2B", "%26=%3D", "%e9", "%E2%82%AC", "a=%41", "+"):
        record_case(get_target("diff_form_parse"), split_only, "split-only", tmp_path,
                    FormParseCase(text))
    behaviours = sorted((f.behaviour["rule"], f.behaviour["text"])
                        for f in FindingStore(tmp_path).iter_findings())
    assert behaviours == [("kept_encoded", "keeps every escape encoded"),
                          ("plus_kept", "keeps + as +")]


def _dict_of_splits(text: str) -> list[tuple[str, str]]:
    """``dict(kv.split("=") ...)``: no decoding, and a sequence without exactly one
    '=' raises ValueError (a name alone is refused)."""
    return list(dict(kv.split("=") for kv in text.split("&") if kv).items())


dict_of_splits = function_adapter("dict-of-splits", form_parse=_dict_of_splits)


@pytest.mark.parametrize("text", ["%41=", "%4a=1", "=%5A", "%3D=", "=%26", "%e9=x"])
def test_a_kept_escape_is_named_where_a_name_alone_is_refused(text: str) -> None:
    # Located on a name given a plain value, then widened on that name alone, every
    # variant was a refusal: one finding per escaped byte (112 in a 60 s campaign);
    # then one class per kind of byte (13 findings), the rule refuted by the variants
    # that held a name alone ('xx&a=%41').
    bound = get_target("diff_form_parse").bind(dict_of_splits)
    with pytest.raises(Divergence) as raised:
        bound.check(FormParseCase(text))
    assert raised.value.behaviour is not None
    assert raised.value.behaviour["text"] == "keeps every escape encoded"


def _dict_of_query(text: str) -> list[tuple[str, str]]:
    """``_dict_of_splits`` over ``urlsplit``'s query, as torch's rendezvous reads an
    ``init_method`` URL: TAB, LF and CR removed, the text cut at '#'."""
    return _dict_of_splits(urlsplit("tcp://h:1/?" + text).query)


dict_of_query = function_adapter("dict-of-query", form_parse=_dict_of_query)


@pytest.mark.parametrize(("text", "rule"), [
    ("=+", "rule=plus_kept()"), ("+=a", "rule=plus_kept()"),
    ("\t", "rule=removed(chars=\t\n\r)"), ("a=\n", "rule=removed(chars=\t\n\r)"),
    ("#", "rule=cut_at(chars=#)"), ("=#", "rule=cut_at(chars=#)"),
])
def test_a_rule_is_named_where_a_name_alone_is_refused(text: str, rule: str) -> None:
    # A variant refused for its shape (a name alone, 'xx\t' read as 'xx'), on which the
    # rule does nothing or which the rule says is read, refuted the rule: the '+' kept
    # was named in values only, and TAB or '#' were classes per field ('\t' named
    # needs_equals() once the shape's refusal no longer refuted anything).
    bound = get_target("diff_form_parse").bind(dict_of_query)
    with pytest.raises(Divergence) as raised:
        bound.check(FormParseCase(text))
    assert raised.value.difference == rule


def _stripped_semicolon_pairs(text: str) -> list[tuple[str, str]]:
    """urllib's ``parse_qsl`` splitting at ';' only (its ``separator``), pairs with an
    empty value dropped, then each name and value ``str.strip()``ped."""
    return [(n.strip(), v.strip()) for n, v in parse_qsl(text, separator=";")]


stripped_semicolon_pairs = function_adapter("stripped-semicolon-pairs",
                                            form_parse=_stripped_semicolon_pairs)


def _known_after(adapter: Any, *texts: str) -> Any:
    """``adapter`` bound to form-parse with the findings of ``texts`` made first."""
    bound = get_target("diff_form_parse").bind(adapter)
    for text in texts:
        with pytest.raises(Divergence) as made:
            bound.check(FormParseCase(text))
        if made.value.behaviour:
            bound.known.add("form-parse", made.value.behaviour, made.value.case)
        else:
            bound.known.add_unexplained("form-parse", made.value.difference)
    return bound


@pytest.mark.parametrize("text", ["\t=a", "= ", " =a", "a= b", "\u3000=a", "a=b "])
def test_a_parser_stripping_its_fields_is_one_rule_whatever_it_splits_at(text: str) -> None:
    # Three classes before (C0 and space, space, non-ASCII whitespace), then names,
    # values and fields: the probe took a name alone (dropped) for a space removed,
    # the sequence set beside a text was joined by '&' (no separator here), and the
    # model dropped an empty value after the trim where parse_qsl drops it before.
    bound = _known_after(stripped_semicolon_pairs, "a")
    assert bound.known.entries("form-parse", "stripped-semicolon-pairs")  # (a rule's)
    with pytest.raises(Divergence) as raised:
        bound.check(FormParseCase(text))
    assert raised.value.behaviour is not None
    assert raised.value.behaviour["rule"] == "trimmed"
    assert raised.value.behaviour["params"]["part"] == "fields"
    assert "\u3000" in raised.value.behaviour["params"]["chars"]


@pytest.mark.parametrize("text", ["\t%C3a=&%C3a=", "\ta+=&a+=", "%%\t=&%%=", "\t=&=",
                                  "a=&\ta=x"])
def test_what_a_known_rule_removes_is_no_part_of_another_class(text: str) -> None:
    # urlsplit removes TAB (a known removed('\t\n\r')): '\ta=&a=' is a repeated name as
    # the parser reads it, and was a finding per kind of name before its TAB.
    bound = _known_after(dict_of_query, "a=b&a=c", "\t", "=%aa", "+=")
    with pytest.raises(Divergence) as raised:
        bound.check(FormParseCase(text))
    assert raised.value.difference == "rule=pairs_order(mode=last-per-name)"


@pytest.mark.parametrize("text", ["=+", "a+b=c+d", "+=+"])
def test_a_rule_of_both_parts_acts_in_each_beside_what_is_known(text: str) -> None:
    # With its names' twice-decoding known (the second time as a form: a kept '+' is a
    # space there), a '+' kept in values was "keeps + as +", which its names do not.
    bound = _known_after(two_decoders, "%25aa")
    assert bound.known.entries("form-parse", "two-decoders")  # (a rule's)
    with pytest.raises(Divergence) as raised:
        bound.check(FormParseCase(text))
    assert raised.value.difference == "rule=plus_kept(part=values)"


def _strict_query(text: str) -> list[tuple[str, str]]:
    # as asyncpg reads a DSN's query: urlsplit (which removes TAB, LF, CR), then strict
    # parse_qsl (a sequence without '=' raises; an empty value is dropped)
    return parse_qsl(urlsplit("postgres://h/db?" + text).query, strict_parsing=True)


strict_query = function_adapter("strict-query", form_parse=_strict_query)
STRICT = "test_every_finding:strict_query"


def test_a_finding_no_rule_names_merges_into_the_rule_found_after_it(tmp_path: Path) -> None:
    """A TAB alone, met first, is no rule's (each is refuted by a variant that shows the
    other behaviour: a value after the TAB is dropped empty, a name alone refused), so
    it is a finding of its own class; once empty values are known dropped, its case is
    that finding's hit, and the campaign's end merges it (``migrate.merge_into_named``):
    one record, the TAB's id among its previous ids, the hits summed."""
    from pctfuzz._internal.fuzz.migrate import merge_into_named

    target = get_target("diff_form_parse")
    (tab,) = record_case(target, strict_query, STRICT, tmp_path, FormParseCase("\t")).values()
    assert not FindingStore(tmp_path).get(tab).behaviour
    ids = record_case(target, strict_query, STRICT, tmp_path, FormParseCase("="))
    (named,) = set(ids.values()) - {tab}
    assert FindingStore(tmp_path).get(named).behaviour["rule"] == "empty_pairs"
    assert merge_into_named(tmp_path, STRICT, [tab, named]) == [(tab, named, False)]
    (left,) = FindingStore(tmp_path).iter_findings()
    assert left.id == named and tab in (left.previous_ids or ()) and left.hits == 2
    assert merge_into_named(tmp_path, STRICT, [named]) == []  # (nothing left to merge)


SORTED = "behaviour_impls:SortedMapping"


def test_a_class_met_before_its_context_is_named_at_the_end(tmp_path: Path) -> None:
    """A parser that decodes values twice and answers a sorted mapping (hold-out 15's,
    ``behaviour_impls.SortedMapping``): met first beside an empty name, before the
    sorting and the dropped empty names were known, the decoding was a class (its rule
    refuted by a variant beside another pair, which the sorting reorders). The class's
    fast path then took every later hit of the decoding, so no rule named it; the
    campaign's end names it again with the findings met after it known: one finding per
    behaviour, the decoding ``decoded_twice``."""
    from behaviour_impls import SortedMapping

    from pctfuzz._internal.fuzz.migrate import merge_into_named

    target, impl, name = get_target("diff_form_parse"), SortedMapping(), SORTED
    ids: list[str] = []
    for text in ("=x&a=%2541", "b=1&a=2&b=3", "a= x &b=1", "=1&c=2"):
        ids += record_case(target, impl, name, tmp_path, FormParseCase(text)).values()
    before = {f.id: f.behaviour for f in FindingStore(tmp_path).iter_findings()}
    (klass,) = [ident for ident, behaviour in before.items() if not behaviour]
    merged = merge_into_named(tmp_path, name, list(dict.fromkeys(ids)))
    assert [(ident, new) for ident, _into, new in merged] == [(klass, True)]
    rules = sorted(f.behaviour["rule"] for f in FindingStore(tmp_path).iter_findings())
    assert rules == ["decoded_twice", "empty_pairs", "pairs_order", "trimmed"]


def _sorted_mapping_store(folder: Path) -> tuple[list[str], str]:
    """The records of ``test_a_class_met_before_its_context_is_named_at_the_end``: the
    new ids in the order met, and the class's."""
    from behaviour_impls import SortedMapping

    target, impl, ids = get_target("diff_form_parse"), SortedMapping(), []
    for text in ("=x&a=%2541", "b=1&a=2&b=3", "a= x &b=1", "=1&c=2"):
        ids += record_case(target, impl, SORTED, folder, FormParseCase(text)).values()
    (klass,) = [f.id for f in FindingStore(folder).iter_findings() if not f.behaviour]
    return list(dict.fromkeys(ids)), klass


@pytest.mark.parametrize("second_signal", [False, True])
def test_a_campaign_stopped_by_a_signal_still_names_the_class_again(
        tmp_path: Path, second_signal: bool) -> None:
    """Ctrl-C ends a campaign before its end, which used to skip the merge: the class
    met before its context stayed a finding of its own. ``fuzz`` now does the merge
    after the signal too (one check per new finding); a second signal ends it, the
    records as the campaign left them."""
    import argparse
    import io
    import signal
    from types import SimpleNamespace

    from pctfuzz._internal.cli.fuzz import _merge_into_named
    from pctfuzz._internal.fuzz.replay import StopOnSignals

    ids, klass = _sorted_mapping_store(tmp_path)
    stats = SimpleNamespace(new_findings=list(ids))  # (what the summary counts)
    result = SimpleNamespace(stopped_by=signal.SIGINT, new_findings=ids, stats=[stats])
    args = argparse.Namespace(findings=str(tmp_path), impl=SORTED)
    stop, out = StopOnSignals(), io.StringIO()
    stop.signum = signal.SIGINT if second_signal else None
    _merge_into_named(args, result, out, stop)
    rules = sorted((f.behaviour or {}).get("rule", "") for f in
                   FindingStore(tmp_path).iter_findings())
    if second_signal:
        assert out.getvalue() == "" and "" in rules and stats.new_findings == ids
    else:
        assert rules == ["decoded_twice", "empty_pairs", "pairs_order", "trimmed"]
        assert f"{klass} renamed " in out.getvalue() and klass not in stats.new_findings


def _percent_swallowed(text: str) -> bytes:
    """A decoder that drops a '%' that starts no escape with the two characters after it."""
    import re
    from urllib.parse import unquote_to_bytes

    return unquote_to_bytes(re.sub("%(?![0-9A-Fa-f]{2}).{0,2}", "", text, flags=re.DOTALL))


percent_swallowed = function_adapter("percent-swallowed", decode=_percent_swallowed)
SWALLOWED = "test_every_finding:percent_swallowed"


def _rule_record_beside_class(tmp_path: Path, rule: str,
                              params: dict[str, str]) -> tuple[str, str]:
    """(a rule's record, a class finding's id) in a store: the swallowing decoder's class
    of ``%``, and a record of ``a%zz`` under ``rule`` as a campaign that met it first,
    with nothing known, wrote it (the class's, on another case of it)."""
    import dataclasses

    from pctfuzz._internal.accept.rule import rule_from
    from pctfuzz._internal.identity.signatures import finding_id

    (klass,) = record_case(get_target("diff_decode"), percent_swallowed, SWALLOWED, tmp_path,
                           DecodeCase("%")).values()
    store = FindingStore(tmp_path)
    found = store.get(klass)
    named = rule_from(rule, params)
    signature = found.signature.replace(found.signature.split("|")[3], named.klass())
    first = finding_id(signature)
    store.record(dataclasses.replace(found, signature=signature, id=first,
                                     case=DecodeCase("a%zz").to_json(),
                                     behaviour=named.behaviour()))
    return first, klass


def test_a_rule_finding_that_a_class_finding_takes_is_merged_into_it(tmp_path: Path) -> None:
    """A case named by a rule of its own when nothing was known, which the behaviour's
    class finding, met after it, takes as its hit, merges into that class finding at
    the campaign's end (hold-out 18: one real bug was two findings, the first named by
    a rule; the merge took only a rule's or a refusal's answer as another finding's).
    The rule's record is written as such a campaign wrote it: the class's, on another
    case of it, under a rule."""
    from pctfuzz._internal.fuzz.migrate import merge_into_named

    first, klass = _rule_record_beside_class(tmp_path, "answered", {"text": "a"})
    assert merge_into_named(tmp_path, SWALLOWED, [first, klass]) == [(first, klass, False)]
    (left,) = FindingStore(tmp_path).iter_findings()
    assert left.id == klass and first in (left.previous_ids or ())


def test_a_rule_finding_of_another_impact_is_not_merged_into_a_class(tmp_path: Path) -> None:
    """The merge above never puts a finding under a class of another impact: a broad
    class of a harmless behaviour took a form parser's real bug's case at a version's
    end, and the bug had no finding of its own (a blind diagnosis of hold-out 19)."""
    from pctfuzz._internal.fuzz.migrate import merge_into_named

    first, klass = _rule_record_beside_class(tmp_path, "plus_as_space", {})
    assert merge_into_named(tmp_path, SWALLOWED, [first, klass]) == []
    assert {f.id for f in FindingStore(tmp_path).iter_findings()} == {first, klass}


def _requoting(text: str) -> str:
    from urllib.parse import quote

    return quote(unquote(text), safe="/")  # (every escape decoded as UTF-8, then quoted)


requoting = function_adapter("requoting", encode=_requoting, sets={"p": "path"})
REQUOTING = "test_every_finding:requoting"


def test_a_requoting_and_the_data_it_loses_stay_two_findings(tmp_path: Path) -> None:
    """``%30`` alone is named ``requoted(decode-unreserved)``, the simplest rule that
    explains it; ``%aa`` ``requoted(decode-utf8)`` of invalid UTF-8, which loses the
    byte. Once, the second explained the first too and the end merged them into one
    finding: accepting it accepted the data loss (issue 31). Now the second names only
    what its case showed, and the two stay apart."""
    from pctfuzz._internal.cases import EncodeCase
    from pctfuzz._internal.fuzz.migrate import merge_into_named

    target = get_target("diff_encode")
    (first,) = record_case(target, requoting, REQUOTING, tmp_path,
                           EncodeCase("%30", "path", "UTF-8")).values()
    (lost,) = set(record_case(target, requoting, REQUOTING, tmp_path,
                              EncodeCase("%aa", "path", "UTF-8")).values()) - {first}
    rules = {f.id: dict(f.behaviour["params"]) for f in FindingStore(tmp_path).iter_findings()}
    assert rules == {first: {"mode": "decode-unreserved"},
                     lost: {"mode": "decode-utf8", "decoded": "invalid"}}
    # (the end names the first again, the second known: decode-utf8 of plain
    # characters, its own finding still)
    merged = merge_into_named(tmp_path, REQUOTING, [first, lost])
    assert all(into != lost for _ident, into, _renamed in merged), merged
    left = {f.id: dict(f.behaviour["params"]).get("decoded")
            for f in FindingStore(tmp_path).iter_findings()}
    assert sorted(left.values()) == ["harmless", "invalid"], left


def _closing_tag(text: str) -> str:
    """A tag closed by ``> `` whose rest is read as a document (PyYAML's verbatim tag):
    each thing the rest starts with is refused by a statement of its own."""
    tag, closed, rest = text.partition("> ")
    if closed and rest.startswith("["):
        raise ValueError("unclosed flow sequence")
    if closed and rest.startswith("{"):
        raise KeyError("unclosed flow mapping")
    return unquote(tag)


closing_tag = function_adapter("closing-tag", decode=_closing_tag)
CLOSING = "test_every_finding:closing_tag"


def test_refusals_met_before_the_cut_they_follow_are_renamed_after_it(tmp_path: Path) -> None:
    """Two refusals of what follows the ``> ``, met before the cut was known, are each
    named by the statement that raised it; at the campaign's end the first is renamed
    ``raised=any;after(<the cut's class>)`` and the second merges into it: one crash
    finding beside the cut's."""
    from pctfuzz._internal.fuzz.migrate import merge_into_named

    target = get_target("diff_decode")
    (first,) = record_case(target, closing_tag, CLOSING, tmp_path, DecodeCase("a> [")).values()
    (second,) = set(record_case(target, closing_tag, CLOSING, tmp_path,
                                DecodeCase("a> {")).values()) - {first}
    (cut,) = set(record_case(target, closing_tag, CLOSING, tmp_path,
                             DecodeCase("a> a")).values()) - {first, second}
    merged = merge_into_named(tmp_path, CLOSING, [first, second, cut])
    assert len(merged) == 2 and merged[0][:1] == (first,) and merged[0][2]
    after = merged[0][1]
    assert merged[1] == (second, after, False)
    records = {f.id: f for f in FindingStore(tmp_path).iter_findings()}
    assert set(records) == {cut, after}
    klass = records[cut].signature.split("|")[3]
    assert records[after].signature.split("|")[3] == f"raised=any;after({klass})"
    assert {first, second} <= set(records[after].previous_ids or ())


def test_a_merge_that_cannot_bind_or_read_keeps_every_record(tmp_path: Path) -> None:
    """An implementation that cannot be bound, a record that does not read: nothing is
    merged and nothing is lost (the records stand as the campaign recorded them)."""
    from pctfuzz._internal.fuzz.migrate import merge_into_named

    target = get_target("diff_form_parse")
    gone = "no_such_module_here:adapter"  # (recorded under a name nothing imports now)
    (lost,) = record_case(target, strict_query, gone, tmp_path / "gone",
                          FormParseCase("\t")).values()
    assert merge_into_named(tmp_path / "gone", gone, [lost]) == []
    assert [f.id for f in FindingStore(tmp_path / "gone").iter_findings()] == [lost]
    (tab,) = record_case(target, strict_query, STRICT, tmp_path, FormParseCase("\t")).values()
    path = next(tmp_path.glob("*.json"))
    path.write_text("{ not json")
    assert merge_into_named(tmp_path, STRICT, [tab]) == []
    assert path.read_text() == "{ not json"
