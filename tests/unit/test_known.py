"""The findings already made as the check's fast path (``pctfuzz._internal.checks.known``):
a diverging input a known finding predicts exactly is its hit after one call of the
implementation; a new behaviour beside a known one is named by its own rule; the
recorder knows the store's findings before their first hit."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pctfuzz import percent_encode
from pctfuzz._internal.accept.model import Model, render
from pctfuzz._internal.cases import EncodeCase, FormCase
from pctfuzz._internal.checks import differential
from pctfuzz._internal.checks.known import KnownFindings
from pctfuzz._internal.form import form_urlencode
from pctfuzz._internal.fuzz.recorder import Recorder
from pctfuzz._internal.oracles import Adapter
from pctfuzz._internal.targets import get_target
from pctfuzz._internal.violations import Divergence
from pctfuzz.oracles import function_adapter

CALLS: list[str] = []


def _lower(text: str) -> str:
    CALLS.append(text)
    out = quote(text, safe="!'()*~")
    return re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), out)


LOWER = function_adapter("test-lower", encode=_lower, sets={"c": "component"})


def _fails(bound: object, case: EncodeCase) -> Divergence:
    with pytest.raises(Divergence) as info:
        bound.check(case)  # type: ignore[attr-defined]
    return info.value


def test_a_known_finding_is_a_hit_after_one_call() -> None:
    bound = get_target("diff_encode").bind(LOWER)
    first = _fails(bound, EncodeCase("é", "component"))
    assert first.behaviour is not None and first.behaviour["rule"] == "lowercase_hex"
    assert bound.known.add("encode", first.behaviour, first.case)
    CALLS.clear()
    again = _fails(bound, EncodeCase("a b/ü?", "component"))
    assert again.difference == first.difference == "rule=lowercase_hex()"
    assert CALLS == ["a b/ü?"]  # no probe: the prediction alone named it


def test_without_known_findings_naming_asks_the_implementation_more() -> None:
    fresh = function_adapter("test-lower-2", encode=_lower, sets={"c": "component"})
    bound = get_target("diff_encode").bind(fresh)  # (probes are cached per adapter)
    CALLS.clear()
    _fails(bound, EncodeCase("a b/ü?", "component"))
    assert len(CALLS) > 1  # (the test above is no tautology)


def test_a_new_behaviour_beside_a_known_one_is_its_own_finding() -> None:
    def plus_raw(text: str) -> str:  # a raw '+' (read back as a space) and a raw '#'
        return quote(text, safe="!'()*~+")

    adapter = function_adapter("test-plus", encode=plus_raw, sets={"c": "component"})
    bound = get_target("diff_encode").bind(adapter)
    known = _fails(bound, EncodeCase("é+", "component"))
    bound.known.add("encode", known.behaviour, known.case)
    assert _fails(bound, EncodeCase("+", "component")).difference == known.difference


def test_known_findings_ignore_a_behaviour_of_an_unknown_rule() -> None:
    known = KnownFindings()
    assert not known.add("encode", {"rule": "no-such-rule", "params": {}}, EncodeCase("a"))
    assert not known.add("encode", None, EncodeCase("a"))
    assert len(known) == 0


def test_the_recorder_knows_the_stores_findings(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    target = get_target("diff_encode")
    bound = target.bind(LOWER)
    recorder = Recorder(target, LOWER, "test-lower", tmp_path, None, bound=bound)
    data = b""
    case = EncodeCase("é", "component")
    try:
        bound.check(case)
    except Divergence as exc:
        from pctfuzz._internal.fuzz.minimize import raw_input_for
        data = raw_input_for(target, case, LOWER) or b""
        recorder.record(data, exc)
    recorder.flush()
    assert "NEW FINDING" in capsys.readouterr().err
    # A second process on the same store: the finding is known before its first hit.
    bound2 = target.bind(LOWER)
    second = Recorder(target, LOWER, "test-lower", tmp_path, None, bound=bound2)
    assert len(bound2.known) == 1
    CALLS.clear()
    other = EncodeCase("ü ü", "component")
    with pytest.raises(Divergence) as info:
        bound2.check(other)
    assert CALLS == ["ü ü"]
    second.record(data, info.value)
    second.flush()
    out = capsys.readouterr().err
    assert "KNOWN FINDING" in out or "known" in out.lower()
    (record,) = [p for p in tmp_path.glob("*.json")]
    assert '"hits": 2' in record.read_text()


def _one_pair_per_name(pairs: list[tuple[str, str]]) -> str:
    """One pair per name, its last value where the name last came: no mode of
    ``pairs_order`` (a mapping keeps a key where it first came)."""
    kept: dict[str, str] = {}
    for name, value in pairs:
        kept.pop(name, None)
        kept[name] = value
    return form_urlencode(kept.items())


DICT = function_adapter("test-dict", form_serialize=_one_pair_per_name)


def test_a_known_finding_no_rule_names_is_a_hit_by_its_class(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A behaviour no catalogue rule names is named once: a later input of its class
    is its hit without naming again (trying every rule: 40 checks a second on a form
    serializer keeping one pair per name); a second process knows it from the store."""
    named: list[object] = []
    naming = differential._explaining_rule

    def counted(*args: object, **kwargs: object) -> object:
        named.append(args[1])
        return naming(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(differential, "_explaining_rule", counted)
    target = get_target("diff_form")
    bound = target.bind(DICT)
    recorder = Recorder(target, DICT, "test-dict", tmp_path, None, bound=bound)
    first = FormCase((("a", "1"), ("a", "2")))
    with pytest.raises(Divergence) as info:
        bound.check(first)
    assert info.value.behaviour is None and named == [first]
    assert info.value.difference == "field=pair;unit=repeated-name;diff=missing-pair"
    from pctfuzz._internal.fuzz.minimize import raw_input_for
    data = raw_input_for(target, first, DICT) or b""
    recorder.record(data, info.value)
    recorder.flush()
    assert "NEW FINDING" in capsys.readouterr().err
    second = target.bind(DICT)
    Recorder(target, DICT, "test-dict", tmp_path, None, bound=second)
    for known in (bound, second):
        named.clear()
        with pytest.raises(Divergence) as again:
            known.check(FormCase((("b", "x"), ("c", ""), ("b", "%"))))
        assert again.value.difference == info.value.difference
        assert named == []


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(st.text(), st.binary()),
       set_name=st.sampled_from(["component", "path", "application/x-www-form-urlencoded",
                                 "query-value", "rfc3986-unreserved", "c0-control"]),
       encoding=st.sampled_from(["utf-8", "shift_jis", "windows-1252", "iso-2022-jp"]),
       space_as_plus=st.booleans())
def test_the_lowercase_prediction_is_the_reference_with_lowercase_triplets(
        value: str | bytes, set_name: str, encoding: str, space_as_plus: bool) -> None:
    """The fast path's render of an encoder writing lowercase hex (encoded again with
    lowercase tables for UTF-8 and bytes) is the reference's answer with each ``%HH``
    written in lowercase, whatever the set, encoding, spaceAsPlus and value."""
    case = EncodeCase(value, set_name, encoding, space_as_plus)
    reference = percent_encode(value, set_name, encoding=encoding,
                               space_as_plus=space_as_plus, surrogates="replace")
    assume("%" not in (value if isinstance(value, str) else value.decode("latin-1")))
    triplets = re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), reference)
    assert render(Model(lowercase_hex=True), "encode", case, reference) == triplets


def _names_lowercased(text: str) -> list[tuple[str, str]]:
    from pctfuzz._internal.form import form_urldecode
    return [(name.lower(), value) for name, value in form_urldecode(text)]


NAMES_LOWERCASED = function_adapter("test-names-lowercased", form_parse=_names_lowercased)


def test_a_finding_is_named_on_its_minimal_input(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A long input's first difference may not widen (the ``B`` of ``%F57B`` follows an
    escape, so only hex digits vary it): the finding is named on its minimal input,
    where it does (``unit=upper``), and the long input's hits, and any other uppercase
    letter's, are that finding's (was one finding per letter: 9 in a 60 s campaign)."""
    from pctfuzz._internal.cases import FormParseCase
    from pctfuzz._internal.fuzz.minimize import raw_input_for

    target = get_target("diff_form_parse")
    bound = target.bind(NAMES_LOWERCASED)
    recorder = Recorder(target, NAMES_LOWERCASED, "test-names-lowercased", tmp_path, None,
                        bound=bound)
    for text in ("a=ACDEFGHIJKLMNOPQRSTUVWXYZ&B", "xQ=1&y", "a%4A=1"):
        case = FormParseCase(text)
        with pytest.raises(Divergence) as info:
            bound.check(case)
        recorder.record(raw_input_for(target, case, NAMES_LOWERCASED) or b"", info.value)
    recorder.flush()
    (record,) = tmp_path.glob("*.json")
    saved = json.loads(record.read_text())
    assert saved["signature"].split("|")[3] == "field=name;unit=upper;diff=changed"
    assert saved["hits"] == 3
    assert capsys.readouterr().err.count("NEW FINDING") == 1


def test_a_known_class_covers_the_members_it_names() -> None:
    known = KnownFindings()
    known.add_unexplained("form-parse", "field=name;unit=upper;diff=changed")
    known.add_unexplained("form-parse", "field=value;unit=set(0x09-0x0D,0x1C-0x1F);diff=changed")
    assert known.covering("form-parse", "field=name;unit=0x42;diff=changed") \
        == "field=name;unit=upper;diff=changed"
    assert known.covering("form-parse", "field=value;unit=0x1D;diff=changed") \
        == "field=value;unit=set(0x09-0x0D,0x1C-0x1F);diff=changed"
    # another field, another shape, a member it does not name, a delimiter: not its hit
    for klass in ("field=value;unit=0x42;diff=changed", "field=name;unit=0x42;diff=extra-output",
                  "field=name;unit=0x62;diff=changed", "field=value;unit=0x1B;diff=changed",
                  "field=name;unit=0x3D;diff=changed", "field=name;unit=non-ascii;diff=changed"):
        assert known.covering("form-parse", klass) is None, klass
    assert known.covering("form", "field=name;unit=0x42;diff=changed") is None


DECODE_CALLS: list[object] = []


def _uppercase_escapes_only(value: str) -> bytes:
    """Decodes only escapes written with uppercase hex letters (``%2f`` is kept)."""
    DECODE_CALLS.append(value)
    from urllib.parse import unquote_to_bytes
    return b"".join(unquote_to_bytes(part) if i % 2 else part.encode("utf-8", "surrogatepass")
                    for i, part in enumerate(re.split("(%[0-9A-F]{2})", value)))


UPPER_ONLY = function_adapter("test-upper-only", decode=_uppercase_escapes_only)


def test_a_hit_of_a_known_class_costs_one_call() -> None:
    """A known finding that no rule names meets a later input by the class of the first
    unit where the answers part, read off them: no prefix of the input is asked (a
    decoder's campaign ran at a tenth of its speed while each hit was located anew)."""
    from pctfuzz._internal.cases import DecodeCase

    bound = get_target("diff_decode").bind(UPPER_ONLY)
    first = _fails(bound, DecodeCase("%aa"))  # type: ignore[arg-type]
    assert first.behaviour is None and first.difference == "seg=pct-lower;diff=not-decoded"
    bound.known.add_unexplained("decode", first.difference)
    for warm in ("y%2a%42", "z%2a%43"):  # (the class's 1st hit in this context, and 2nd
        _fails(bound, DecodeCase(warm))  # hit, are named: ``names_class_hit``)
    DECODE_CALLS.clear()
    again = _fails(bound, DecodeCase("x" * 300 + "%2a%41"))  # type: ignore[arg-type]
    assert again.difference == first.difference
    assert len(DECODE_CALLS) == 1


def _grouped(text: str) -> list[tuple[str, str]]:
    """A parser splitting at ``&`` and ``;`` that groups pairs by name (a dict of
    lists), keeping lone surrogates: two behaviours, and a third that is agreement."""
    from urllib.parse import unquote_plus

    groups: dict[str, list[str]] = {}
    for part in re.split("[&;]", text):
        if part:
            name, _, value = part.partition("=")
            groups.setdefault(unquote_plus(name), []).append(unquote_plus(value))
    return [(name, value) for name, values in groups.items() for value in values]


def test_a_kept_lone_surrogate_beside_known_behaviours_is_their_hit() -> None:
    """A kept lone surrogate is agreement (held to U+FFFD), but the grouping parser sees
    '\\ud800' and the U+FFFD of '%aa' as two names, so the known findings' model of
    the input, whose names are both U+FFFD, groups otherwise: such inputs were each a
    new finding (7 of 9 in a 60 s campaign). Judged as its USVString, it is a hit."""
    from pctfuzz._internal.cases import FormParseCase

    adapter = function_adapter("test-grouped", form_parse=_grouped)
    bound = get_target("diff_form_parse").bind(adapter)
    order = _fails(bound, FormParseCase("b&a&b"))
    semicolon = _fails(bound, FormParseCase("a;b"))
    assert {order.difference, semicolon.difference} == {
        "rule=pairs_order(mode=grouped)", "rule=semicolon_separates()"}
    for found in (order, semicolon):
        bound.known.add("form-parse", found.behaviour, found.case)
    mixed = _fails(bound, FormParseCase("%aa&a&\ud800;a"))
    assert mixed.difference in {order.difference, semicolon.difference}
    assert mixed.case == FormParseCase("%aa&a&\ud800;a")
    # A difference of the lone surrogate's own (its USVString agrees) is not hidden.
    cut = function_adapter("test-cut-at-surrogate", form_parse=lambda t: _grouped(
        re.split("[\ud800-\udfff]", t)[0]))
    bound = get_target("diff_form_parse").bind(cut)
    bound.check(FormParseCase("a=1&\ufffd&b"))
    assert _fails(bound, FormParseCase("a=1&\ud800&b")).case == FormParseCase("a=1&\ud800&b")


_URLENCODED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~=&%+")


def _strict_parse(text: str) -> list[tuple[str, str]]:
    """A form parser that checks its characters in one statement, as oauthlib's
    urldecode does, and escapes in another."""
    from urllib.parse import parse_qsl

    if not set(text) <= _URLENCODED:
        raise ValueError(f"not urlencoded: {set(text) - _URLENCODED}")
    if re.search("%(?![0-9A-Fa-f]{2})", text):
        raise ValueError("invalid hex")
    return parse_qsl(text, keep_blank_values=True)


def test_a_refusal_by_a_known_raise_statement_is_its_hit(tmp_path: Path) -> None:
    """A control character, a space and a non-ASCII character refused by one statement
    were three findings under three names; they are one, and the other statement's
    refusal is another (one check of the characters, one of the escapes)."""
    from pctfuzz._internal.cases import FormParseCase
    from pctfuzz._internal.fuzz.minimize import raw_input_for

    adapter = function_adapter("test-strict", form_parse=_strict_parse)
    target = get_target("diff_form_parse")
    bound = target.bind(adapter)
    recorder = Recorder(target, adapter, "test-strict", tmp_path, None, bound=bound)
    for text in ("a\x00", "a b", "\u00e9", "\x1f=1", "%zz", "a=%4"):
        case = FormParseCase(text)
        with pytest.raises(Divergence) as info:
            bound.check(case)
        recorder.record(raw_input_for(target, case, adapter) or b"", info.value)
    recorder.flush()
    records = [json.loads(p.read_text()) for p in tmp_path.glob("*.json")]
    assert len(records) == 2, [r["signature"] for r in records]
    assert sorted(r["hits"] for r in records) == [2, 4]
    # A later campaign on the store knows the refusal by its statement too, read from
    # the record's signature: its start asks the implementation nothing, so every call
    # it makes is a counted hit or pass (a replay here cost a two-campaign run one hit).
    calls: list[str] = []
    counting = function_adapter("test-strict", form_parse=lambda t: (
        calls.append(t), _strict_parse(t))[1])
    bound = target.bind(counting)
    later = Recorder(target, counting, "test-strict", tmp_path, None, bound=bound)
    assert calls == []
    case = FormParseCase("\u00fc!")
    with pytest.raises(Divergence) as info:
        bound.check(case)
    later.record(raw_input_for(target, case, adapter) or b"", info.value)
    later.flush()
    records = [json.loads(p.read_text()) for p in tmp_path.glob("*.json")]
    assert sorted(r["hits"] for r in records) == [2, 5]


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _requote(uri: str) -> str:
    """docs/walkthrough.md's ``requote_uri`` (requests.utils): escapes of unreserved
    characters decoded, '%' kept; an escape int() cannot read sends the whole input to
    a fallback that encodes every '%'. int() reads a non-ASCII digit: '%\\u06630' -> '0'."""
    parts = uri.split("%")
    try:
        for i in range(1, len(parts)):
            h = parts[i][0:2]
            if len(h) == 2 and h.isalnum():
                c = chr(int(h, 16))
                parts[i] = c + parts[i][2:] if c in _UNRESERVED else f"%{parts[i]}"
            else:
                parts[i] = f"%{parts[i]}"
    except ValueError:
        return quote(uri, safe="!#$&'()*+,/:;=?@[]~")
    return quote("".join(parts), safe="!#$%&'()*+,/:;=?@[]~")


REQUOTE = function_adapter("test-requote", encode=_requote, sets={"r": "encodeURI-%25[]"})
_REQUOTE_ACCEPT = """
[[divergence]]
id = "requote-unquotes-unreserved"
impl = "test-requote"
check = "encode"
reconciler = "requoted"
mode = "decode-unreserved"
citation = "RFC 3986 6.2.2.2"
why = "the walk-through's accepted difference"
example = { value = "%41", set = "encodeURI-%25[]" }
"""


def test_a_behaviours_class_is_the_same_beside_accepted_and_known_ones(
        tmp_path: Path) -> None:
    """One behaviour, one class, whatever comes with it: the non-ASCII digit that int()
    reads after '%' (``_requote``) is classed alike alone, after an accepted escape
    ('%7a' written 'z': located on the reference's own tail) and once the fallback's
    finding is known (its model does not hold where the fallback is not taken, so it
    is not in force there). Before, a campaign on the walk-through made four findings
    of it, one per class, one of them named left_raw('%'); and a '%' before it
    ('%%\uff14a') was named left_raw('%') beside the known fallback, a rule that undoes
    the fallback's encoded('%') (``Model.merge``: a contradiction)."""
    from pctfuzz._internal.settings import RunSettings

    (tmp_path / "accept.toml").write_text(_REQUOTE_ACCEPT)
    inputs = ["%\u0664a", "%7a%\u0664a", "%%7a%\u0664a", "%\u0662D", "%7a%\u06630",
              "x%\u06630", "Ab%7a%\u06639", "%%\uff14a", "x%%\u07c4a"]
    bound = get_target("diff_encode").bind(
        REQUOTE, RunSettings(accept_file=str(tmp_path / "accept.toml")))
    alone = {_fails(bound, EncodeCase(text, "encodeURI-%25[]")).difference
             for text in inputs}
    fallback = _fails(bound, EncodeCase("%ua", "encodeURI-%25[]"))
    assert fallback.behaviour is not None and fallback.behaviour["rule"] == "encoded"
    assert bound.known.add("encode", fallback.behaviour, fallback.case)
    beside = {_fails(bound, EncodeCase(text, "encodeURI-%25[]")).difference
              for text in inputs}
    assert alone == beside == {"unit=0x25;diff=changed"}


def test_a_model_that_leaves_raw_what_it_encodes_is_a_contradiction() -> None:
    """Two entries that say the opposite of one character in one scope do not merge:
    a rule found beside an entry in force must not undo it (it names where that entry
    does not hold). Opposite scopes do merge: names raw, values encoded."""
    from pctfuzz._internal.accept.model import NotModelled

    pct = frozenset({0x25})
    for raw, encoded in (("raw", "encoded"), ("raw_names", "encoded_names"),
                         ("raw_values", "encoded_values")):
        with pytest.raises(NotModelled):
            Model(**{raw: pct}).merge(Model(**{encoded: pct}))
    both = Model(raw_names=pct).merge(Model(encoded_values=pct))
    assert both.raw_names == both.encoded_values == pct


class _Reescape(Adapter):
    """ISO-2022-JP with the second switch to JIS X 0208 ("ESC $ B") of an answer left
    out (benchmarks/ttb_faults.py's fault, on the reference)."""

    name = "test-reescape"
    distribution = "hypothesis"

    def encode(self, case: EncodeCase) -> str:
        out = percent_encode(case.value, case.set_name, encoding=case.encoding,
                             space_as_plus=case.space_as_plus)
        first = out.find("%1B%24B")
        second = out.find("%1B%24B", first + 1) if first >= 0 else -1
        return out if second < 0 else out[:second] + out[second + len("%1B%24B"):]


@pytest.mark.parametrize("set_name", ["application/x-www-form-urlencoded",
                                      "encodeURIComponent"])
def test_a_dropped_iso_2022_jp_escape_is_one_class(set_name: str) -> None:
    """The escape left out before the second kanji run is one class whatever comes
    between the runs and whichever kanji follows: a campaign on the fault made ten
    findings, named by the space, '#', '&', SO or a letter before it (a prefix's
    output ends in "ESC ( B" where the whole's goes on: offsets did not map to units)
    and by the kanji's bytes (%21%3D is other bytes, K%5C changed)."""
    bound = get_target("diff_encode").bind(_Reescape())
    texts = ["~\u2261\u203e&a \u203b", "\u3000a\u3000", "\u2261a\xa5 a \u2015",
             "\u2261a\xa5 aaaa\u672c", "\u3042a\u2261", "\u2261a\xa5\x0e\u3042",
             "~\u2015\u203e!a \u2015", "\u3042a\xa5# a\u3042", "~\u2261\u203e# a\u672c"]
    classes = {_fails(bound, EncodeCase(text, set_name, "ISO-2022-JP")).difference
               for text in texts}
    assert classes == {"unit=non-ascii;diff=missing-output;enc=ISO-2022-JP"}


def _raw_amp_in_names(pairs: list[tuple[str, str]]) -> str:
    """A query builder that drops pairs without a name and leaves '&' raw in names."""
    return "&".join(quote(n, safe="&") + "=" + quote(v, safe="") for n, v in pairs if n)


RAW_AMP = function_adapter("test-raw-amp", form_serialize=_raw_amp_in_names)


def test_a_names_delimiter_beside_an_empty_value_is_no_empty_name_hit() -> None:
    """A pair with an empty value first grew from the empty pair, so once the finding of
    empty names was known, a name's raw '&' beside an empty value was its hit: a real bug
    counted as a harmless one (a hold-out serializer's missed bugs). Its name differs
    beside a plain value too, so it grows as a full pair's does."""
    bound = get_target("diff_form").bind(RAW_AMP)
    empty = _fails(bound, FormCase((("", "a"),)))
    if empty.behaviour is not None:
        bound.known.add("form", empty.behaviour, empty.case)
    else:
        bound.known.add_unexplained("form", empty.difference)
    amp = _fails(bound, FormCase((("&", ""),)))
    assert amp.difference != empty.difference
    assert "0x26" in amp.difference or "&" in str(amp.behaviour), amp.difference


class _Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_naming_takes_at_most_its_share_of_the_campaign() -> None:
    from pctfuzz._internal.checks.known import NamingBudget

    clock = _Clock()
    budget = NamingBudget(share=0.5, clock=clock)
    with budget.one_input():
        assert budget.may_name()  # nothing spent yet
        clock.now += 3.0  # naming (and the minimizing after it) took 3 s
    assert budget.spent == 3.0
    with budget.one_input():
        assert not budget.may_name()  # 3 s of 3 s: over half
        assert budget.may_name()  # asked once per input: the minimizer's checks name
    clock.now += 3.0  # six seconds in: 3 s is half
    with budget.one_input():
        assert budget.may_name()
    assert budget.deferred == 1
    assert budget.may_name()  # outside an input (a replay, a test): always


def test_a_deferred_input_is_neither_named_nor_a_hit() -> None:
    from pctfuzz._internal.checks.known import NamingBudget
    from pctfuzz._internal.errors import Deferred

    def lower_plus_raw(text: str) -> str:
        return _lower(text).replace("%2b", "+")

    clock = _Clock()
    bound = get_target("diff_encode").bind(
        function_adapter("test-lower-budget", encode=lower_plus_raw, sets={"c": "component"}))
    bound.known.budget = budget = NamingBudget(clock=clock)
    with budget.one_input():  # the first input is named: the budget is whole
        first = _fails(bound, EncodeCase("é", "component"))
        clock.now += 1.0
    bound.known.add("encode", first.behaviour, first.case)
    with budget.one_input():  # a known finding's hit costs no naming: never deferred
        assert _fails(bound, EncodeCase("ü", "component")).difference == first.difference
    CALLS.clear()
    with budget.one_input(), pytest.raises(Deferred):
        # a raw '+' the known finding does not predict: naming has spent 1 s of 1 s
        bound.check(EncodeCase("+ü", "component"))
    assert CALLS == ["+ü"] and budget.deferred == 1
    clock.now += 1.0
    with budget.one_input():  # half of 2 s: named again
        assert _fails(bound, EncodeCase("+ü", "component")).difference != first.difference


def test_a_refusal_by_a_new_statement_is_named_past_the_budget() -> None:
    """Past its share of naming, an input the implementation refuses by a statement no
    finding's input reached is named once (a crash may be a bug of its own), and the
    next one refused there is deferred until the recorder knows the finding."""
    from pctfuzz._internal.checks.known import NamingBudget
    from pctfuzz._internal.errors import Deferred

    def lower_refusing_hash(text: str) -> str:
        if "#" in text:
            raise ValueError("no fragments here")
        return _lower(text)

    clock = _Clock()
    bound = get_target("diff_encode").bind(
        function_adapter("test-lower-refusing", encode=lower_refusing_hash,
                         sets={"c": "component"}))
    bound.known.budget = budget = NamingBudget(clock=clock)
    bound.known.code_under_test = (__name__,)
    with budget.one_input():  # the first input is named: the budget is whole
        first = _fails(bound, EncodeCase("é", "component"))
        clock.now += 1.0
    bound.known.add("encode", first.behaviour, first.case)
    with budget.one_input():  # naming has spent 1 s of 1 s: still named, a new raise
        refused = _fails(bound, EncodeCase("#", "component"))
    assert refused.difference != first.difference
    with budget.one_input(), pytest.raises(Deferred):  # the same raise again: deferred
        bound.check(EncodeCase("a#", "component"))


def _requoting(text: str) -> str:
    # pip's link cleaning: every escape decoded as UTF-8 (U+FFFD for '%aa'), then quoted
    from urllib.parse import unquote

    return quote(unquote(text), safe="/")


REQUOTING = function_adapter("test-requoting", encode=_requoting, sets={"p": "path"})


def test_findings_whose_models_cannot_be_one_are_tried_in_groups() -> None:
    """Two modes of one rule (``requoted`` ``decode-unreserved`` named on ``%30``,
    ``decode-utf8`` on ``%aa``) cannot be in force together; the findings are then tried
    in the groups that can, so '!' encoded beside a '%aa' decoded is the '!' finding's
    hit, not a finding per character beside '%aa'."""
    bound = get_target("diff_encode").bind(REQUOTING)
    named = {}
    for text in ("!", "%30", "%aa"):
        found = _fails(bound, EncodeCase(text, "path"))
        assert found.behaviour is not None, found.difference
        named[text] = found.difference
        bound.known.add("encode", found.behaviour, found.case)
    assert named["%30"] == "rule=requoted(mode=decode-unreserved)"
    assert named["%aa"] == "rule=requoted(mode=decode-utf8,decoded=invalid)"
    assert _fails(bound, EncodeCase("!%aa", "path")).difference in (named["!"], named["%aa"])


def test_the_rounds_of_one_input_share_the_minimization_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """libFuzzer counts every round's minimization as the input's own time: a later
    round has what the earlier ones left of ``minimize_seconds`` (three rounds of half
    the per-input timeout each were a timeout finding of a form parser)."""
    from pctfuzz._internal.fuzz import recorder as recorder_module
    from pctfuzz._internal.fuzz.minimize import raw_input_for

    clock = [100.0]
    given: list[float] = []
    minimize = recorder_module.minimize_case

    def slow(case: object, keeps: object, *, max_seconds: float) -> object:
        given.append(max_seconds)
        clock[0] += 0.75  # each minimization takes 0.75 s of the input's time
        return minimize(case, keeps, max_seconds=max_seconds)  # type: ignore[arg-type]

    monkeypatch.setattr(recorder_module.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(recorder_module, "minimize_case", slow)
    target = get_target("diff_encode")
    bound = target.bind(LOWER)
    recorder = Recorder(target, LOWER, "test-lower", tmp_path, None, bound=bound,
                        minimize_seconds=1.0)
    case = EncodeCase("é", "component")
    for rounds in range(2):
        with pytest.raises(Divergence) as info:
            bound.check(case)
        if rounds:  # (a failure of another class, as a later round's is)
            info.value.difference = "unit=0x7E;diff=changed"
        recorder.record(raw_input_for(target, case, LOWER) or b"", info.value, rounds)
    assert given == [1.0, 0.25]


def _signed_or_question(text: str) -> bytes:
    """A decoder with two behaviours that part from the reference at an invalid escape:
    '%+H' read as the byte 0H (a signed hex number: a real bug, ``signed_escapes``), any
    other '%' that starts no escape written '?' (no rule names it)."""
    out, i = bytearray(), 0
    while i < len(text):
        two = text[i + 1:i + 3]
        if text[i] == "%" and re.fullmatch("[0-9A-Fa-f]{2}|\\+[0-9A-Fa-f]", two):
            out.append(int(two.lstrip("+"), 16))
            i += 3
        else:
            out += b"?" if text[i] == "%" else text[i].encode()
            i += 1
    return bytes(out)


def test_a_sample_of_a_known_class_hits_is_named_by_the_catalogue() -> None:
    """A real bug whose inputs part from the reference at a unit of a known harmless
    finding's class (hold-out 11: a decoder's "invalid escape changed" took a real bug's
    every input on the fast path, in all four runs): the class's 2nd, 4th, 8th... hit is
    named, and the bug's rule names it; the hits between stay hits."""
    from pctfuzz._internal.cases import DecodeCase

    adapter = function_adapter("test-signed-or-question", decode=_signed_or_question)
    bound = get_target("diff_decode").bind(adapter)
    first = _fails(bound, DecodeCase("%zz"))  # type: ignore[arg-type]
    assert first.behaviour is None and first.difference == "seg=pct-nonhex;diff=changed"
    bound.known.add_unexplained("decode", first.difference)
    # the harmless behaviour's hits first (one context: a letter before and after)
    for letter in "ghij":
        assert _fails(bound, DecodeCase(f"a%z{letter}b")).behaviour is None  # type: ignore[arg-type]
    # then the bug's: its first hit is the first in its context ('+' after the '%'),
    # named; then the 8th hit of the class
    names = [_fails(bound, DecodeCase(f"a%+{n}b")).behaviour  # type: ignore[arg-type]
             for n in range(4)]
    assert [b and b["rule"] for b in names] == ["signed_escapes", None, None, "signed_escapes"]


def test_a_rule_named_on_a_sampled_hit_is_recorded_under_the_rule(tmp_path: Path) -> None:
    """A real bug named by its rule on a sampled hit of a known harmless class was
    minimized and checked again as hits of the class, not samples, so the finding was
    stored under the class and the rule's never made (a blind diagnosis of hold-out 19:
    a form parser's real bug had no finding of its own in both runs of a version)."""
    from pctfuzz._internal.cases import DecodeCase
    from pctfuzz._internal.checks.known import NEW_CONTEXTS
    from pctfuzz._internal.fuzz.minimize import raw_input_for

    adapter = function_adapter("test-signed-or-question-rec", decode=_signed_or_question)
    target = get_target("diff_decode")
    bound = target.bind(adapter)
    first = _fails(bound, DecodeCase("%zz"))  # type: ignore[arg-type]
    bound.known.add_unexplained("decode", first.difference)
    for n in range(NEW_CONTEXTS + 40):  # (its new contexts and early powers of two used)
        bound.known.names_class_hit("decode", first.difference, f"seen{n}")
    with bound.known.naming_every_hit():  # (the sample)
        sampled = _fails(bound, DecodeCase("aa%+1bb"))  # type: ignore[arg-type]
    assert sampled.behaviour is not None and sampled.behaviour["rule"] == "signed_escapes"
    recorder = Recorder(target, adapter, "test-signed-or-question-rec", tmp_path, None,
                        bound=bound)
    recorder.record(raw_input_for(target, sampled.case, adapter) or b"", sampled)
    recorder.flush()
    stored = [json.loads(p.read_text()) for p in tmp_path.glob("*.json")]
    assert [r["behaviour"] and r["behaviour"]["rule"] for r in stored] == ["signed_escapes"]


def test_a_known_class_hit_is_named_in_a_bounded_number_of_new_contexts() -> None:
    from pctfuzz._internal.checks.known import NEW_CONTEXTS, KnownFindings

    known = KnownFindings()
    named = [known.names_class_hit("decode", "k", f"c{i}") for i in range(NEW_CONTEXTS + 4)]
    assert named == [True] * NEW_CONTEXTS + [False] * 4
    # a context met before is named only as a power of two
    assert [known.names_class_hit("decode", "j", "c") for _ in range(5)] == \
        [True, True, False, True, False]


def _decoded_until_none_left(text: str) -> str:
    """A decoder that decodes the first ``%`` again and again, each escape's two
    characters read by ``int()`` as a code point (hold-out 13's): every escape read as
    latin-1 (``latin1_fallback``), ``%+a`` as the byte 0A (``signed_escapes``) and
    ``%25a`` as ``\\n`` (decoded twice, no rule)."""
    while "%" in text:
        at = text.index("%")
        text = text[:at] + chr(int(text[at + 1:at + 3], 16)) + text[at + 3:]
    return text


def test_a_model_written_as_code_beside_a_declared_one_is_in_force_alone() -> None:
    """While a difference is located, each known finding is in force alone too: a model
    written as code (``latin1_fallback``) is rendered over by a group's composed model
    (``signed_escapes``), and each input of the decoder that also held an escape of a
    third known behaviour was a finding of its own, named by its first escape
    (hold-out 13: three of ten findings)."""
    from pctfuzz._internal.cases import DecodeCase

    adapter = function_adapter("test-decoded-until-none-left", decode=_decoded_until_none_left)
    bound = get_target("diff_decode").bind(adapter)
    for text, rule in (("%aa", "latin1_fallback"), ("%+a", "signed_escapes")):
        found = _fails(bound, DecodeCase(text))  # type: ignore[arg-type]
        assert found.behaviour is not None and found.behaviour["rule"] == rule
        assert bound.known.add("decode", found.behaviour, found.case)
    twice = _fails(bound, DecodeCase("%25a"))  # type: ignore[arg-type]
    assert twice.behaviour is None
    bound.known.add_unexplained("decode", twice.difference)
    for text in ("%aa%25a", "%80%25b", "%C3%25a"):
        assert _fails(bound, DecodeCase(text)).difference == twice.difference, text  # type: ignore[arg-type]


def test_a_new_finding_is_said_before_the_long_input_is_checked_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The campaign learns of a finding from its line; a process killed after the record
    was stored and before the line (the long input checked again, a naming: the
    campaign kills a process ``KILL_AFTER`` s past its stop) left a finding on disk
    that was never merged nor counted (the likeliest cause of the sorted-mapping
    campaign's one extra class, seen once in a loaded slow suite). Here the check of
    the long input is where the process dies."""
    target = get_target("diff_encode")
    bound = target.bind(LOWER)
    recorder = Recorder(target, LOWER, "test-lower", tmp_path, None, bound=bound)

    def killed(*_args: object) -> None:
        raise KeyboardInterrupt  # (the SIGKILL: nothing after this line runs)

    monkeypatch.setattr(recorder, "_owner", killed)
    case = EncodeCase("é", "component")
    with pytest.raises(Divergence) as info:
        bound.check(case)
    from pctfuzz._internal.fuzz.minimize import raw_input_for
    data = raw_input_for(target, case, LOWER) or b""
    with pytest.raises(KeyboardInterrupt):
        recorder.record(data, info.value)
    (record,) = tmp_path.glob("*.json")
    said = capsys.readouterr().err
    assert "NEW FINDING" in said and record.stem.rsplit("-", 1)[1] in said
