"""Finding identity (issue 10): one signature per distinct bug, independent of
pctfuzz's own code layout, pinned for the committed findings."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.differential import (
    check_decode,
    check_encode,
    check_form,
    check_form_parse,
)
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.fuzz.stats import CampaignResult, TargetStats
from pctfuzz._internal.identity import (
    SIGNATURE_VERSION,
    crash_class,
    difference,
    finding_id,
    make_signature,
    signature_of,
)
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter
from pctfuzz._internal.violations import Divergence

FINDINGS = Path(__file__).resolve().parents[2] / "findings"

#: The committed findings' signatures (format 5). A refactor of pctfuzz that changes
#: one of these re-identifies the finding: that is a bug of the refactor.
PINNED = {
    # Format 4: a fault codec's violation is named by the rule that explains its answer,
    # under the operation's check (previous ids: the invariant and first differing unit;
    # percent-raw and tilde-encoded were two findings each, one per invariant).
    # (a refusal names the family of what was raised: 24de1de1d9da2fcd before)
    "247b67f046ca32a6": "decode|violation|decode|rule=refuses(input=invalid-percent,"
                        "raised=ValueError)|impl=decode-raises",
    "d94246452b9621d3": "encode|violation|encode|rule=encoded(chars=~)|impl=tilde-encoded",
    "b8bc9ae070170b44": "encode|violation|encode|rule=left_raw(chars=%)|impl=percent-raw",
    "e4733e1f42f0cacb": "encode|violation|encode|rule=lowercase_hex()|impl=lowercase-hex",
    "99695f7bcc84414a": "form|violation|form|rule=space_as(space=%20)|impl=form-space-as-%20",
    # the codec parses ' ' as the reference does; only the round trip shows its bug
    "c66272d77fd26d3d": "form_parse|violation|form-parse|-|impl=form-plus-kept",
    # real bugs of hyperlink and boltons (docs/in-the-wild.md)
    # (format 5 adds the raising statement to a crash's place: e1b87545a7236204 before)
    "4dd93b0b9ad80260": "diff_decode|crash|decode|raised=hyperlink._url.URLParseError"
                        "@hyperlink._url:URL.from_text+cac083|impl=hyperlink",
    # hyperlink drops a last LF only: removed(chars=\n) (issue 21; b456b049f110b1f8, and
    # e86b79804b06e3fc before it) claimed every LF, which the case padded after refutes;
    # named by its difference since names are checked on variants (issue 31).
    # (format 5 names a decoder's ASCII character that is no letter or digit by its
    # unit: seg=ascii before, as 7f21e7072ce9612f)
    "42c03b61ace73a8a": "diff_decode|divergence|decode|unit=0x0A;diff=missing-output"
                        "|impl=hyperlink",
    # Issue 21: boltons' % left raw, nine findings by first differing unit until the rule
    # named it (their ids are its previous_ids).
    "7d6a82192ee82dd8": "diff_form|divergence|form|rule=left_raw(chars=%)|impl=boltons",
}


def test_committed_findings_have_their_pinned_signatures() -> None:
    found = {}
    for path in sorted(FINDINGS.glob("*.json")):
        record = json.loads(path.read_text())
        assert record["signature_version"] == SIGNATURE_VERSION, path.name
        found[record["id"]] = record["signature"]
    assert found == PINNED
    assert all(finding_id(sig) == ident for ident, sig in PINNED.items())
    # no pctfuzz module path or function name in any of them (a crash names the frame
    # of the library under test, module:qualname, by design)
    assert not any("pctfuzz." in sig or (":" in sig and "|crash|" not in sig)
                   for sig in PINNED.values())


class ThreeBugs(UrllibAdapter):
    """urllib with three planted encode bugs: lowercase hex, ``~`` encoded in every set,
    and space written as ``+`` in the path set."""

    name = "three-bugs"
    registry_names = ("three-bugs",)

    def encode(self, case: EncodeCase) -> str:
        out = super().encode(case)
        out = "".join(out[i:i + 3].lower() if out[i] == "%" else out[i]
                      for i in range(len(out)) if i == 0 or "%" not in out[max(0, i - 2):i])
        out = out.replace("~", "%7E")
        return out.replace("%20", "+") if case.set_name == "path" else out


def _class(case: EncodeCase, impl: UrllibAdapter) -> str:
    with pytest.raises(Divergence) as info:
        check_encode(case, impl)
    return info.value.difference


def test_three_planted_bugs_have_three_classes_whatever_the_input() -> None:
    impl = ThreeBugs()
    hex_case = {_class(EncodeCase(v, "component"), impl) for v in ("<", "a[b", "é", "x\x7f")}
    # Issue 21: each is named by the catalogue rule that explains it.
    assert hex_case == {"rule=lowercase_hex()"}
    assert _class(EncodeCase("a~", "path"), impl) == "rule=encoded(chars=~)"
    assert _class(EncodeCase("a b", "path"), impl) == "rule=space_as(space=+)"


@pytest.mark.parametrize(("case", "actual", "klass"), [
    (EncodeCase("~", "application/x-www-form-urlencoded"), "~",
     "unit=0x7E;diff=left-raw"),
    (EncodeCase("%41", "component"), "%41", "unit=pct-triplet;diff=left-raw"),
    (EncodeCase("é", "component"), "%E9", "unit=non-ascii;diff=other-bytes"),
    (EncodeCase("é", "component"), "é", "unit=non-ascii;diff=left-raw"),
    (EncodeCase("ab", "component"), "a", "unit=0x62;diff=missing-output"),
    (EncodeCase("ab", "component"), "abc", "unit=end;diff=extra-output"),
    (EncodeCase(" ", "query-value", space_as_plus=True), "%20",
     "unit=0x20;diff=space-as-%20"),
    (EncodeCase(b"\xff", "component"), "%ff", "unit=*;diff=hex-case"),
    (EncodeCase("ア", "component", "Shift_JIS"), "%E3%82%A2",
     "unit=non-ascii;diff=other-bytes;enc=Shift_JIS"),
    (DecodeCase(b"%41"), b"%41", "seg=pct-digits;diff=not-decoded"),
    (DecodeCase(b"%4a"), b"%4a", "seg=pct-lower;diff=not-decoded"),
    (DecodeCase(b"a+b"), b"a b", "seg=plus;diff=plus-as-space"),
    (DecodeCase(b"%zz"), b"", "seg=pct-nonhex;diff=missing-output"),
    (DecodeCase(b"%a"), b"\n", "seg=pct-short;diff=changed"),  # (a digit then the end)
    (DecodeCase(b"%4x"), b"\x04x", "seg=pct-short;diff=changed"),
    (DecodeCase("\ud800"), b"\xed\xa0\x80", "seg=lone-surrogate;diff=changed"),
    (FormCase((("a", "b c"),)), "a=b%20c", "field=value;unit=0x20;diff=space-as-%20"),
    (FormCase((("a", "b"), ("c", "d"))), "a=b;c=d", "field=separator;unit=0x26;diff=changed"),
    # (a field's shape as the located class names it: ``form_parse_difference``)
    (FormParseCase("a=b&&c"), [("a", "b"), ("", ""), ("c", "")], "field=name;seg=alnum;"
     "diff=extra-pair"),
    # An ASCII character that is no letter or digit is its unit (a delimiter is never one
    # finding with a harmless character: ``#`` ending a password is no dropped TAB).
    (DecodeCase("a#b"), b"a", "unit=0x23;diff=missing-output"),
    (DecodeCase("a\tb"), b"ab", "unit=0x09;diff=changed"),
    (FormParseCase("a=b#c"), [("a", "b")], "field=value;unit=0x23;diff=missing-output"),
    (FormParseCase("a=b&c"), [("a", "b")], "field=pairs;diff=missing-pair"),
    (FormParseCase("a=%41+b"), [("a", "%41 b")], "field=value;seg=pct-digits;diff=not-decoded"),
    (FormParseCase("a=b=c"), [("a", "b")], "field=value;seg=equals;diff=missing-output"),
])
def test_difference_classes(case: object, actual: object, klass: str) -> None:
    question = {EncodeCase: "encode", DecodeCase: "decode", FormCase: "form",
                FormParseCase: "form-parse"}[type(case)]
    from pctfuzz._internal.checks.registry import reference_answer

    expected = reference_answer(question, case)  # type: ignore[arg-type]
    assert difference(question, case, expected, actual) == klass  # type: ignore[arg-type]


def _site(statement: str) -> str:
    import hashlib

    return "+" + hashlib.sha256(statement.encode()).hexdigest()[:6]


def test_crash_class_names_the_code_under_test_not_pctfuzz() -> None:
    def deep() -> None:
        raise KeyError("x")

    try:
        deep()
    except KeyError as exc:
        assert crash_class(exc, (__name__,)) == (
            f"raised=KeyError@{__name__}:test_crash_class_names_the_code_under_test_not_pctfuzz"
            ".<locals>.deep" + _site('raise KeyError("x")'))
    exc2 = _caught_divergence(DecodeCase(b"a"))
    sig = signature_of("diff_decode", exc2, case=DecodeCase(b"a"), impl="raises",
                       code_under_test=(__name__,))
    assert sig == f"diff_decode|crash|decode|raised=ValueError@{__name__}:_Raises.decode" \
                  + _site('raise ValueError("no")') + "|impl=raises"


def _refuse(text: str) -> None:
    if "[" in text:
        raise ValueError(f"Invalid IPv6 URL {text!r}")
    if ":" in text:
        raise ValueError(f"Port could not be cast {text!r}")


def test_two_statements_raising_one_type_are_two_crashes() -> None:
    """Two refusals of one function, one exception type, are two behaviours (one may
    be a bug beside a harmless one, and accepting one must not accept the other); one
    statement is one, whatever its message says."""
    classes = []
    for text in ("[", "a[b", ":", "1:2"):
        try:
            _refuse(text)
        except ValueError as exc:
            classes.append(crash_class(exc, (__name__,)))
    assert classes[0] == classes[1] != classes[2] == classes[3]
    assert all(c.startswith(f"raised=ValueError@{__name__}:_refuse+") for c in classes)
    # Code whose source cannot be read (compiled from a string) keeps the function alone.
    scope: dict[str, object] = {"__name__": "generated"}
    exec(compile("def f():\n    raise KeyError(1)\n", "<generated>", "exec"), scope)
    try:
        scope["f"]()  # type: ignore[operator]
    except KeyError as exc:
        assert crash_class(exc, ("generated",)) == "raised=KeyError@generated:f"


def _merge(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """querystring-parser's merge walk: a name both plain and nested (``a=1&a[b]=2``)
    meets a str where it expects a dict, and fails at whichever statement comes next."""
    merged: dict[str, object] = {}
    for name, value in pairs:
        here: object = merged
        while name in here and isinstance(value, dict):  # type: ignore[operator]
            here = here[name]  # type: ignore[index]
            name, value = next(iter(value.items()))
        if name in here:  # type: ignore[operator]
            here[name] = [here[name], value]  # type: ignore[index]
        else:
            here[name] = value  # type: ignore[index]
    return merged


def test_one_wrong_assumption_failing_at_several_statements_is_one_crash() -> None:
    """An error the interpreter raises (no ``raise`` statement) is located by its type
    and function: hold-out 12's merge walk raised TypeError at three statements, three
    findings for one bug. A deliberate ``raise`` keeps its statement (above)."""
    classes, messages = set(), set()
    for pairs in ([("a", "1"), ("a", {"b": "2"})], [("a", "1"), ("a", {"1": "2"})],
                  [("a", 1), ("a", {"b": "2"})]):
        with pytest.raises(TypeError) as info:
            _merge(pairs)
        classes.add(crash_class(info.value, (__name__,)))
        messages.add(str(info.value).split(" ")[0])
    assert len(messages) == 3
    assert classes == {f"raised=TypeError@{__name__}:_merge"}


class _Raises(UrllibAdapter):
    name = "raises"

    def decode(self, case: DecodeCase) -> bytes:
        raise ValueError("no")


def _caught_divergence(case: DecodeCase) -> BaseException:
    try:
        check_decode(case, _Raises())
    except Divergence as exc:
        return exc
    raise AssertionError("did not diverge")


def test_signature_parts_and_validation() -> None:
    assert make_signature("decode", "timeout", None, "-") == "decode|timeout|-|-"
    assert make_signature("x", "divergence", "encode", "a|b", "i") == \
        "x|divergence|encode|a%7Cb|impl=i"
    with pytest.raises(PctfuzzError, match="kind"):
        make_signature("x", "explosion", None, "-")


def test_urllib_form_and_parse_agree_on_the_cases_above() -> None:
    """Guard: the classes above are computed against the reference, and urllib itself
    agrees with the reference on them outside its registry."""
    assert check_form(FormCase((("a", "b c"),)), "urllib") == ()
    assert check_form_parse(FormParseCase("a=b&&c"), "urllib") == ()


def test_campaign_counts_a_finding_once_across_restarts_and_processes() -> None:
    """A restarted harness prints KNOWN for the finding it printed NEW before (the JSON
    once said 16 findings for 2 on disk); a LOST line makes the target incomplete."""
    import sys
    import time

    from pctfuzz._internal.fuzz.libfuzzer import watch
    from pctfuzz._internal.fuzz.protocol import finding_line, lost_line
    from pctfuzz._internal.fuzz.supervisor import Supervisor

    lines = [finding_line(True, "divergence", "0123456789abcdef", "s"),
             finding_line(False, "divergence", "0123456789abcdef", "s"),
             finding_line(False, "divergence", "fedcba9876543210", "t"),
             lost_line("FINDING x|y", "No space left on device"),
             "#100\tDONE   cov: 5 ft: 5 corp: 1/1b exec/s: 10 rss: 30Mb"]
    script = "import sys\n" + "".join(f"print({line!r}, file=sys.stderr)\n" for line in lines)
    stats = TargetStats("diff_encode")
    for _restart in range(2):
        watch([sys.executable, "-c", script], dict(os.environ), stats, 0, None,
              Supervisor(time.monotonic() + 60))
    assert stats.new_findings == ["0123456789abcdef"]
    assert stats.known_findings == ["fedcba9876543210"]
    assert stats.lost == ["FINDING x|y: No space left on device"]
    result = CampaignResult([stats, TargetStats("decode", execs=5)], 1.0)
    assert result.incomplete and result.problems() == [
        "diff_encode: lost FINDING x|y: No space left on device"]
    assert result.new_findings == ["0123456789abcdef"]


def test_hits_of_one_finding_lost_at_every_flush_are_one_problem() -> None:
    """A full disk lost a finding's hits at every flush: twelve INCOMPLETE lines for one
    record. Hits of one finding lost for one reason are one line, their counts summed;
    another finding or reason is its own line."""
    full = "f.json: cannot be written: No space left on device"
    stats = TargetStats("diff_decode")
    for what in (f"538 HIT(S) of aaaa: {full}", f"12 HIT(S) of aaaa: {full}",
                 f"12 HIT(S) of aaaa: {full}",
                 f"3 HIT(S) of bbbb: {full}", "1 HIT(S) of aaaa: read-only", "FINDING x|y: z",
                 "FINDING x|y: z"):
        stats.add_lost(what, 20)
    assert stats.lost == [f"562 HIT(S) of aaaa: {full}", f"3 HIT(S) of bbbb: {full}",
                          "1 HIT(S) of aaaa: read-only", "FINDING x|y: z"]


def _watched_twice(*lines: str) -> TargetStats:
    """The stats of a harness that wrote ``lines`` to stderr, then was restarted and
    wrote them again (``libfuzzer.watch``: a restarted process counts from 0)."""
    import sys
    import time

    from pctfuzz._internal.fuzz.libfuzzer import watch
    from pctfuzz._internal.fuzz.supervisor import Supervisor

    script = "import sys\n" + "".join(f"print({line!r}, file=sys.stderr)\n" for line in lines)
    stats = TargetStats("diff_encode", execs=1)
    for _restart in range(2):
        watch([sys.executable, "-c", script], dict(os.environ), stats, 1, None,
              Supervisor(time.monotonic() + 60))
    return stats


def test_answered_rate_is_summed_over_restarts_and_warned_under_half() -> None:
    """Issue 12: the share of cases the implementation answered shows in the summary,
    with a warning under 50 % (an adapter hiding bugs behind Unsupported)."""
    from pctfuzz._internal.fuzz.protocol import answered_line

    stats = _watched_twice(answered_line(10, 100), answered_line(30, 200))
    assert (stats.answered, stats.asked) == (60, 400)
    summary = CampaignResult([stats], 1.0).summary()
    assert "answered by the implementation: diff_encode 15%" in summary
    assert "WARNING: diff_encode: the implementation answered only 15%" in summary


def test_inputs_left_unnamed_are_summed_over_restarts_and_shown() -> None:
    """Issue 31: the diverging inputs a harness left unnamed, as naming had its share of
    the time (``checks.known.NamingBudget``), are counted as its answers are."""
    from pctfuzz._internal.fuzz.protocol import answered_line

    stats = _watched_twice(answered_line(90, 100, 7), answered_line(180, 200, 40))
    assert stats.deferred == 80
    assert "left unnamed, as naming had half the time (a known finding's hits, or met " \
           "again): diff_encode 80" in CampaignResult([stats], 1.0).summary()


@pytest.mark.parametrize(("target", "fault", "cases", "rule"), [
    # strip: round-trip, the output's spec and concatenation each see it, per character
    ("encode", "strip", [EncodeCase(" a"), EncodeCase("a\t"), EncodeCase("\x00b\x01"),
                         EncodeCase("  x  ", "path"), EncodeCase(b"\x1fz", "query")],
     "rule=trimmed("),
    # tilde-encoded: output-alphabet and unreserved-idempotence were two findings
    ("encode", "tilde-encoded", [EncodeCase("~"), EncodeCase("a~b", "path"),
                                 EncodeCase("~~", "userinfo")], "rule=encoded(chars=~)"),
    ("encode", "lowercase-hex", [EncodeCase("/", "rfc3986-pchar"),
                                 EncodeCase("a[", "rfc3986-pchar"),
                                 EncodeCase("\x1f", "rfc3986-pchar")], "rule=lowercase_hex()"),
])
def test_a_fault_codec_is_one_finding_named_by_its_rule(
        target: str, fault: str, cases: list[EncodeCase], rule: str) -> None:
    """Format 4 (issue 21): an invariant violation of a codec is named by the rule that
    explains how its answer differs from the reference, under the operation's check,
    whichever invariant and input unit showed it."""
    from pctfuzz._internal.fuzz.replay import run_case
    from pctfuzz._internal.targets import get_target

    bound = get_target(target).bind(fault)
    signatures = {run_case(bound, case, impl_name=fault).signature for case in cases}
    assert len(signatures) == 1, signatures
    (signature,) = signatures
    assert signature is not None and signature.startswith(f"{target}|violation|encode|{rule}")


def test_the_references_own_violation_is_not_named_by_a_rule() -> None:
    """No rule names a difference of the reference from itself: a violation checked on
    the reference keeps its invariant and its class."""
    from pctfuzz._internal.oracles.codec import REFERENCE
    from pctfuzz._internal.targets import get_target
    from pctfuzz._internal.violations import Violation

    bound = get_target("encode").bind(REFERENCE)
    violation = Violation("round-trip", EncodeCase("a"))
    assert bound._named(violation).behaviour is None
