"""Issue 31: a decoder or parser that decodes more than once is one finding per
delimiter it misreads, whatever the depth; one that writes invalid UTF-8 as lone
surrogates is one replacement mode.

Before: a decoder that decodes until nothing changes was 4-5 findings a campaign
(``decoded_twice`` and one class per input decoded three times or more); a parser that
decodes the whole text before it splits was an ``&`` in a name, in a value and in any
field, an ``=`` in a name, and ``decoded_twice`` once for names and once for values."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, unquote_to_bytes

import pytest
from behaviour_impls import FiveBehaviours

from pctfuzz._internal.accept import ACCEPT_ENV
from pctfuzz._internal.accept.entry import explain
from pctfuzz._internal.accept.impact import impact_of
from pctfuzz._internal.accept.rule import rule_from
from pctfuzz._internal.accept.rules import as_entry
from pctfuzz._internal.cases import Case, DecodeCase, FormParseCase
from pctfuzz._internal.checks.differential import check_decode, check_form_parse
from pctfuzz._internal.oracles import Adapter
from pctfuzz._internal.oracles.function import function_adapter
from pctfuzz._internal.outcome import Outcome, reference_outcome
from pctfuzz._internal.reference import percent_decode
from pctfuzz._internal.violations import Divergence


@pytest.fixture(autouse=True)
def _no_accept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ACCEPT_ENV, "")


class UntilStable(Adapter):
    """surt's ``unescapeRepeatedly``: decoded again while that changes the bytes."""

    name = "until-stable"
    distribution = "hypothesis"

    def decode(self, case: DecodeCase) -> bytes:
        data = percent_decode(case.value)
        while (again := unquote_to_bytes(data)) != data:
            data = again
        return data


class DecodesBeforeSplit(Adapter):
    """httpretty's ``parse_querystring``: ``parse_qs(unquote(query))``."""

    name = "decodes-first"
    distribution = "hypothesis"

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        assert isinstance(case.text, str)
        return parse_qsl(unquote(case.text), keep_blank_values=True)


def _class(case: Case, impl: Adapter) -> str:
    check = check_decode if isinstance(case, DecodeCase) else check_form_parse
    with pytest.raises(Divergence) as info:
        check(case, impl)  # type: ignore[arg-type]
    return info.value.difference


@pytest.mark.parametrize("text", ["%2541", "%252541", "%25252541x", "%%341", "%a%2530"])
def test_a_decoder_decoding_until_stable_is_one_finding_at_any_depth(text: str) -> None:
    assert _class(DecodeCase(text), UntilStable()) == "rule=decoded_repeatedly()"


def test_a_decoder_decoding_twice_is_not_named_repeatedly() -> None:
    # (its decoder percent-decodes twice)
    assert _class(DecodeCase("%252541"), FiveBehaviours()) == "rule=decoded_twice()"


@pytest.mark.parametrize(("text", "chars"), [
    ("a=1%26b=2", "&"), ("%26=1", "&"), ("x=%26", "&"),  # an escaped '&' splits a pair
    ("a%3Db=c", "="), ("%3d=1", "="),                     # an escaped '=' ends a name
    ("a=%2B", "+"), ("%2b=1", "+"),                       # '%2B' read as a space
    ("a=%2541", "%"), ("=%%30a", "%"), ("%2532=1", "%"),  # other escapes decoded twice
])
def test_a_parser_decoding_before_its_split_is_a_finding_per_delimiter(text: str,
                                                                       chars: str) -> None:
    assert _class(FormParseCase(text), DecodesBeforeSplit()) \
        == f"rule=decoded_before_split(chars={chars})"


def test_its_delimiters_split_a_field_and_other_escapes_change_data() -> None:
    def impact(chars: str) -> str:
        behaviour = {"rule": "decoded_before_split", "params": {"chars": chars}}
        return impact_of("divergence", f"rule=decoded_before_split(chars={chars})", behaviour)

    assert [impact(c) for c in "&=;+%"] == ["splits-field"] * 3 + ["changes-data"] * 2


def test_an_entry_for_one_delimiter_does_not_explain_another() -> None:
    """Accepting the parser's double decoding of ``%25`` never accepts the pair that an
    escaped ``&`` splits (issue 31 item 3: an entry matches only what it names)."""
    impl = DecodesBeforeSplit()
    entry = as_entry(rule_from("decoded_before_split", {"chars": "%"}), "form-parse", impl.name,
                     FormParseCase("a=%2541"))

    def explained(text: str) -> bool:
        case = FormParseCase(text)
        expected = reference_outcome("form-parse", case)
        actual = Outcome(impl.form_parse(case))
        return explain("form-parse", [impl.name], case, expected, actual, [entry]) is not None

    assert explained("a=%2541") and explained("=%%30a")
    assert not explained("a=1%26b=2") and not explained("a%3Db=c") and not explained("a=%2B")


def _surrogateescape(text: str) -> str:
    return unquote(text, errors="surrogateescape")


SURROGATEESCAPE = function_adapter(
    "surrogateescape", decode=_surrogateescape,
    form_parse=lambda text: parse_qsl(text, keep_blank_values=True, errors="surrogateescape"))


@pytest.mark.parametrize("text", ["%FF", "a%C3", "%ED%A0%80", "%F0%9F%98", "%C3%A9%FF"])
def test_invalid_utf8_as_lone_surrogates_is_one_replacement_mode(text: str) -> None:
    """``unquote(errors="surrogateescape")`` (PEP 383) writes each byte of invalid UTF-8
    as U+DC80 + (byte - 0x80): three first-difference classes of url-normalize's
    ``unquote`` in a user's trial (one a changed escape, one extra output at the end)."""
    want = "rule=replacement(mode=surrogateescape)"
    assert _class(DecodeCase(text), SURROGATEESCAPE) == want
    assert _class(FormParseCase("a=" + text), SURROGATEESCAPE) == want
    behaviour = {"rule": "replacement", "params": {"mode": "surrogateescape"}}
    assert impact_of("divergence", want, behaviour) == "changes-data"  # (no byte lost)
