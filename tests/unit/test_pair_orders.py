"""How a form serializer's or parser's order of pairs is named: by the order it has
(``pairs_order``, asked of the implementation: ``profile.pair_order``), and where no
mode gives it, by the shape ``reordered`` alone, whatever characters the pairs hold
(``identity.classes.REORDERED``). A tuning serializer that sorted each name's values
(minio's query builder) was one finding per kind of character where two sorted values
first differ: 6 findings in a 60 s campaign, 4 of them named by a character."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, quote_plus, urlencode

from rule_findings import findings, one

from pctfuzz._internal.cases import FormCase, FormParseCase
from pctfuzz._internal.checks.differential import check_form, check_form_parse
from pctfuzz._internal.checks.profile import pair_order
from pctfuzz._internal.identity.classes import REORDERED, reordered
from pctfuzz._internal.oracles.function import function_adapter


def _grouped_sorted(pairs: list[tuple[str, str]]) -> str:
    """minio's order: its names sorted, and each name's values."""
    values: dict[str, list[str]] = {}
    for name, value in pairs:
        values.setdefault(name, []).append(value)
    return "&".join(f"{quote_plus(n)}={quote_plus(v)}" for n in sorted(values)
                    for v in sorted(values[n]))


def _canonical(pairs: list[tuple[str, str]]) -> str:
    """A canonical query: the pairs sorted as written (AWS Signature Version 4)."""
    return "&".join(sorted(f"{quote_plus(n)}={quote_plus(v)}" for n, v in pairs))


def _reversed(pairs: list[tuple[str, str]]) -> str:
    return urlencode(list(reversed(pairs)))


#: Pairs whose values, or names, come out of order, each first differing at another
#: kind of character (a letter, '!', NUL, '%', nothing).
CASES = [FormCase(p) for p in (
    (("v", "a"), ("v", "!")), (("x", "\x00"), ("x", "%")), (("", "a"), ("", "")),
    (("b", "1"), ("a", "2")), (("q", "z"), ("q", "%41")))]


def test_each_sort_is_asked_of_the_implementation() -> None:
    assert pair_order("form", function_adapter("minio", form_serialize=_grouped_sorted)) \
        == "sorted-pairs"
    assert pair_order("form", function_adapter("canon", form_serialize=_canonical)) \
        == "sorted-written"
    assert pair_order("form", function_adapter("sorts", form_serialize=lambda p: urlencode(
        sorted(p, key=lambda pair: pair[0])))) == "sorted"
    # answered, in no order a mode gives: "" (no order rule may name it)
    assert pair_order("form", function_adapter("rev", form_serialize=_reversed)) == ""
    assert pair_order("form", function_adapter("as-given", form_serialize=urlencode)) == ""


def test_names_and_values_sorted_is_one_finding(tmp_path: Path) -> None:
    adapter = function_adapter("minio", form_serialize=_grouped_sorted)
    sorted_apart = [c for c in CASES if list(c.pairs) != sorted(c.pairs)]
    one(findings(tmp_path, check_form, adapter, sorted_apart), "pairs_order",
        {"mode": "sorted-pairs"})


def test_pairs_sorted_as_written_is_one_finding(tmp_path: Path) -> None:
    adapter = function_adapter("canon", form_serialize=_canonical)
    cases = [FormCase(p) for p in ((("v", "a"), ("v", "!")), (("b", "1"), ("a", "2")),
                                   (("a", "1"), ("a-", "2")))]
    one(findings(tmp_path, check_form, adapter, cases), "pairs_order",
        {"mode": "sorted-written"})


def test_an_order_no_mode_gives_is_one_finding_of_its_shape(tmp_path: Path) -> None:
    """Reversed pairs: never "sorted by name" on the cases that happen to be sorted."""
    adapter = function_adapter("rev", form_serialize=_reversed)
    records = findings(tmp_path, check_form, adapter, CASES)
    assert [r.signature.split("|")[3] for r in records] == [REORDERED], \
        [r.signature for r in records]
    assert records[0].behaviour is None


def test_an_order_beside_the_serializers_own_spelling_is_still_its_shape() -> None:
    """Reversed pairs, each spelled as ``quote_plus`` spells it ('~' raw, '*' encoded),
    the spelling a finding already made: where two pairs also differ in spelling, the
    order is still one class, not one per kind of unit where the two answers first
    differ (a hold-out serializer's sort beside its quoting: 6 findings in 60 s)."""
    import pytest

    from pctfuzz._internal.targets import get_target
    from pctfuzz._internal.violations import Divergence

    bound = get_target("diff_form").bind(function_adapter("rev-spelled",
                                                          form_serialize=_reversed))

    def named(pairs: tuple[tuple[str, str], ...]) -> Divergence:
        with pytest.raises(Divergence) as info:
            bound.check(FormCase(pairs))
        return info.value

    spelled = named((("~*", ""),))
    assert spelled.behaviour is not None and spelled.behaviour["rule"] == "other_set"
    bound.known.add("form", spelled.behaviour, spelled.case)
    for pairs in ((("a", "~"), ("b", "1")), (("x", "*"), ("y", "\x00")),
                  (("~", ""), ("", "%")), (("q", "z"), ("q", "~*"))):
        assert named(pairs).difference == REORDERED, pairs


def test_a_parser_that_reverses_is_one_finding_of_its_shape(tmp_path: Path) -> None:
    adapter = function_adapter("rev-parse", form_parse=lambda text: list(reversed(
        parse_qsl(text, keep_blank_values=True))))
    cases = [FormParseCase(t) for t in ("a=1&b=2", "x=%00&y=!", "&q=&r=%41", "b=é&a=~")]
    records = findings(tmp_path, check_form_parse, adapter, cases)
    assert [r.signature.split("|")[3] for r in records] == [REORDERED], \
        [r.signature for r in records]


def test_reordered_is_the_same_pairs_in_another_order() -> None:
    assert reordered("a=1&b=2", "b=2&a=1")
    assert reordered([("a", "1"), ("b", "2")], [("b", "2"), ("a", "1")])
    assert not reordered("a=1&b=2", "a=1&b=2")  # (the same order)
    assert reordered("a=1&b=2", "b=2&a=%31")  # (a pair spelled otherwise, as it decodes)
    assert not reordered("a=1&a=1&b=2", "b=2&b=2&a=1")  # (each pair as often)
    assert reordered("a=%7E&b=1", "b=1&a=~")  # (as they decode: '~' spelled raw)
    assert not reordered("a=%7E&b=1", "a=~&b=1")  # (spelling alone: no order)
    assert not reordered("a=%80&b=1", "b=1&a=%EF%BF%BD")  # (bytes lost: no order)
