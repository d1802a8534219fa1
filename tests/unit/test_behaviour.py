"""Issue 21 parts 2 and 5: a finding is named by the rule that explains it, the rule is
an accept entry, and one policy for refusals and lone surrogates holds in every check.

Before issue 21 a truncation was named by its first differing unit (one finding per
byte it cut), a kept lone surrogate was compared as ``ED A0 80`` against U+FFFD, and a
refusal of a lone surrogate was agreement for encode but a finding for decode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pctfuzz._internal.accept import ACCEPT_ENV, RECONCILERS, load_accept_file
from pctfuzz._internal.accept.entry import explain
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.differential import (
    check_decode,
    check_encode,
    check_form,
    check_form_parse,
)
from pctfuzz._internal.form import form_urldecode
from pctfuzz._internal.oracles import Adapter
from pctfuzz._internal.outcome import Outcome, reference_outcome
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.reports import finding_entry
from pctfuzz._internal.store import Finding, FindingFormatError, new_finding
from pctfuzz._internal.violations import Divergence

CHECKS = {"encode": check_encode, "decode": check_decode, "form": check_form,
          "form-parse": check_form_parse}


@pytest.fixture(autouse=True)
def _no_accept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ACCEPT_ENV, "")


def _divergence(check: str, case: Case, impl: Adapter) -> Divergence:
    with pytest.raises(Divergence) as info:
        CHECKS[check](case, impl)  # type: ignore[operator]
    return info.value


class Truncates(Adapter):
    name = "truncates"
    distribution = "hypothesis"

    def encode(self, case: EncodeCase) -> str:
        return percent_encode(case.value, case.set_name, space_as_plus=case.space_as_plus)[:100]


class Twice(Adapter):
    name = "twice"
    distribution = "hypothesis"

    def decode(self, case: DecodeCase) -> bytes:
        return percent_decode(percent_decode(case.value))


class Prefixed(Adapter):
    name = "prefixed"
    distribution = "hypothesis"

    def encode(self, case: EncodeCase) -> str:
        return "./" + percent_encode(case.value, case.set_name)


class KeepsSurrogatesSorted(Adapter):
    """A form parser that keeps lone surrogates (as urllib does) and sorts the pairs."""

    name = "keeps-sorted"
    distribution = "hypothesis"

    def decode(self, case: DecodeCase) -> bytes:
        if isinstance(case.value, str):  # keeps the surrogate, as its surrogatepass bytes
            return percent_decode(case.value.encode("utf-8", "surrogatepass"))
        return percent_decode(case.value)

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        text = case.text
        pairs = []
        for part in (text.split("&") if isinstance(text, str) else []):
            if part:
                name, _, value = part.partition("=")
                pairs.append((name, value))
        return sorted(pairs, key=lambda p: p[0])


class RefusesSurrogates(Adapter):
    name = "refuses"
    distribution = "hypothesis"

    def decode(self, case: DecodeCase) -> bytes:
        data = case.value.encode("utf-8") if isinstance(case.value, str) else case.value
        return percent_decode(data)

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        text = case.text.encode("utf-8") if isinstance(case.text, str) else case.text
        return form_urldecode(text)


# --- part 2: identity by explanation ----------------------------------------------------------
def test_a_truncation_is_one_finding_whatever_the_input() -> None:
    classes = {_divergence("encode", EncodeCase(v, "component"), Truncates()).difference
               for v in ("a" * 101, "é" * 40, "<" * 50, "ab/" * 60)}
    assert classes == {"rule=truncated(n=100)"}
    found = _divergence("encode", EncodeCase("a" * 200), Truncates())
    assert found.behaviour == {"rule": "truncated", "params": {"n": 100},
                               "text": "output truncated at 100 characters"}


def test_rules_of_the_catalogue_name_their_findings() -> None:
    assert _divergence("decode", DecodeCase("%2541"), Twice()).difference == "rule=decoded_twice()"
    assert _divergence("decode", DecodeCase("a%252F%2541"), Twice()).difference \
        == "rule=decoded_twice()"
    assert _divergence("encode", EncodeCase("a b"), Prefixed()).difference \
        == "rule=prefixed(text=./)"


@pytest.mark.parametrize("value", ["%ED%aa%%41a\ud800", "%ED%A0%2580\udc00x", "%2541\ud800"])
def test_bytes_an_input_escaped_are_no_kept_lone_surrogate(value: str) -> None:
    """Decoded twice, ``%ED%aa%%41a`` is ``ED AA AA``, the UTF-8 form of a surrogate:
    beside a lone surrogate in the input, the non-scalar policy read those bytes as a
    kept one (U+FFFD), so no rule explained the answer and each such input was a finding
    of its own (8 in a 60 s campaign). The answer as given is tried too."""
    assert _divergence("decode", DecodeCase(value), Twice()).difference \
        == "rule=decoded_twice()"


def test_a_set_rule_has_its_probed_characters_whatever_the_input() -> None:
    from behaviour_impls import UrlencodeSorted

    impl = UrlencodeSorted()
    # ~ alone, ~ twice, ~ with an unrelated pair, * (quote_plus's other set, both
    # directions): one rule.
    for pairs in ((("~", ""),), (("a", "~~"),), (("~", "x"), ("y", "z")), (("*", ""),)):
        assert _divergence("form", FormCase(pairs), impl).difference \
            == "rule=other_set(raw=~,encoded=*)"
    # Two behaviours in one case: named by the simplest (catalogue order).
    assert _divergence("form", FormCase((("b", "*"), ("a", "~"))), impl).difference \
        == "rule=other_set(raw=~,encoded=*)"


def test_a_divergence_no_rule_explains_keeps_its_difference_class() -> None:
    class Swaps(Adapter):
        name = "swaps"
        distribution = "hypothesis"

        def encode(self, case: EncodeCase) -> str:
            # (a 'b' before a 'c' only: a 'b' written 'q' everywhere is written_as's)
            return percent_encode(case.value, case.set_name).replace("bc", "qc")

    found = _divergence("encode", EncodeCase("abc"), Swaps())
    assert found.behaviour is None
    assert found.difference == "unit=0x62;diff=changed"


@pytest.mark.parametrize(("check", "case", "impl"), [
    ("encode", EncodeCase("a" * 150), Truncates()),
    ("decode", DecodeCase("%2541"), Twice()),
    ("encode", EncodeCase("x"), Prefixed()),
    ("form-parse", FormParseCase("b=1&a=2"), KeepsSurrogatesSorted()),
])
def test_a_findings_behaviour_is_an_accept_entry_that_accepts_it(
        tmp_path: Path, check: str, case: Case, impl: Adapter) -> None:
    """The contract with ``pctfuzz accept``: ``reconciler = NAME`` plus the params
    verbatim is a TOML entry that loads and accepts the finding's case."""
    behaviour = _divergence(check, case, impl).behaviour
    assert behaviour is not None and behaviour["rule"] in RECONCILERS
    lines = ["[[divergence]]", 'id = "accepted"', f'check = "{check}"',
             f'reconciler = "{behaviour["rule"]}"', 'citation = "c"', 'why = "w"']
    lines += [f"{key} = {json.dumps(value)}" for key, value in behaviour["params"].items()]
    lines.append("example = " + {
        "encode": '{ value = "x" }', "decode": '{ value = "%2541" }',
        "form-parse": '{ text = "b=1&a=2" }'}[check])
    accept = tmp_path / "accept.toml"
    accept.write_text("\n".join(lines) + "\n")
    entries = [e for e in load_accept_file(str(accept))]
    entries = [type(e)(**{**e.__dict__, "impl": impl.name}) for e in entries]
    expected = reference_outcome(check, case)
    actual = Outcome(getattr(impl, {"form-parse": "form_parse"}.get(check, check))(case))
    assert explain(check, (impl.name,), case, expected, actual, entries) == ("accepted",)


# --- the record field -------------------------------------------------------------------------
def _record(behaviour: Any = None, drop: bool = False) -> dict[str, Any]:
    finding = new_finding("diff_encode", "divergence", case=EncodeCase("a"),
                          signature="diff_encode|divergence|encode|rule=truncated(n=100)")
    data = finding.to_json()
    data["behaviour"] = behaviour
    if drop:
        del data["behaviour"]
    return data


def test_the_behaviour_field_is_optional_and_strict() -> None:
    good = {"rule": "truncated", "params": {"n": 100}, "text": "output truncated at 100"}
    assert Finding.from_json(_record(good)).behaviour == good
    assert Finding.from_json(_record(drop=True)).behaviour is None  # older records
    for bad in ({"rule": "nope", "params": {}, "text": "t"},
                {"rule": "truncated", "params": {"count": 1}, "text": "t"},
                {"rule": "truncated", "params": {"n": 1.5}, "text": "t"},
                {"rule": "truncated", "params": {"n": 1}, "text": "two\nlines"},
                {"rule": "truncated", "params": {"n": 1}},
                "truncated"):
        with pytest.raises(FindingFormatError, match="behaviour"):
            Finding.from_json(_record(bad))


def test_the_report_shows_the_behaviour_and_a_crash_shows_what_it_raised() -> None:
    behaviour = {"rule": "truncated", "params": {"n": 100},
                 "text": "output truncated at 100 characters"}
    entry = finding_entry(Finding.from_json(_record(behaviour)), None)
    assert entry["behaviour"]["text"] == "output truncated at 100 characters"
    crash = new_finding("diff_decode", "crash", case=DecodeCase("%FF"),
                        signature="diff_decode|crash|decode|raised=ValueError@m:f",
                        evidence={"impl_error": "ValueError: bad byte"})
    summary = finding_entry(crash, None)["summary"]
    assert "raised ValueError: bad byte" in summary and "got None" not in summary


# --- part 5: one policy for lone surrogates ---------------------------------------------------
def test_refusing_a_lone_surrogate_is_agreement_in_every_check() -> None:
    impl = RefusesSurrogates()
    assert check_decode(DecodeCase("a\ud800"), impl) == ()
    assert check_form_parse(FormParseCase("a=\ud800"), impl) == ()


def test_a_kept_lone_surrogate_is_compared_as_u_fffd() -> None:
    impl = KeepsSurrogatesSorted()
    assert check_decode(DecodeCase("a\ud800b"), impl) == ()
    assert check_form_parse(FormParseCase("a=\ud800"), impl) == ()
    # Another difference in the same answer is named by its own rule, not by the
    # surrogate's bytes.
    found = _divergence("form-parse", FormParseCase("b=\ud800&a=1"), impl)
    assert found.difference == "rule=pairs_order(mode=sorted)"
