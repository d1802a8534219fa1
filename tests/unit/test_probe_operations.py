"""``pctfuzz probe`` of a decoder, a form serializer and a form parser
(``pctfuzz._internal.checks.probe_operations``): small adapters with planted ways, and
what the probe says of each, beside the reference's answer and the rule that names the
difference (what ``pctfuzz accept`` writes).

Targets named by import path (``test_probe_operations:form_unquote``) resolve because
pytest puts ``tests/unit`` on ``sys.path``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from urllib.parse import parse_qsl, quote, quote_plus, unquote, unquote_plus, unquote_to_bytes

import pytest

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormParseCase
from pctfuzz._internal.checks.probe_operations import OperationReport, probe_operation
from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.form import form_urldecode
from pctfuzz._internal.oracles import Adapter, function_adapter
from pctfuzz._internal.reference import percent_decode, percent_encode

# --- planted functions ---------------------------------------------------------------------


def form_unquote(value: str) -> str:
    """A form decoder: '+' as a space, text answered (invalid UTF-8 as U+FFFD)."""
    return unquote_plus(value)


def strict_unquote(value: str) -> bytes:
    """Raises for a '%' that starts no escape."""
    if re.search("%(?![0-9A-Fa-f]{2})", value):
        raise ValueError("invalid percent escape")
    return unquote_to_bytes(value)


def query_builder(pairs: list[tuple[str, str]]) -> str:
    """urlencode with quote: space as %20, '/' ':' '~' raw, '*' encoded."""
    return "&".join(quote(n, safe="/:") + "=" + quote(v, safe="/:") for n, v in pairs)


def names_keep_colon(pairs: list[tuple[str, str]]) -> str:
    """':' raw in names only ('~' raw everywhere: quote_plus)."""
    return "&".join(quote_plus(n, safe=":") + "=" + quote_plus(v) for n, v in pairs)


def semicolon_parser(text: str) -> list[tuple[str, str]]:
    """Splits on '&' and ';', reads '+' as itself (unquote, not unquote_plus)."""
    pairs = []
    for piece in re.split("[&;]", text):
        if piece:
            name, _, value = piece.partition("=")
            pairs.append((unquote(name), unquote(value)))
    return pairs


def blank_dropping_parser(text: str) -> list[tuple[str, str]]:
    """parse_qsl's default: pairs with an empty value are dropped."""
    return parse_qsl(text)


def reference_decode(value: str) -> bytes:
    return percent_decode(value)


class Everything(Adapter):
    """The reference's four answers, encoding one declared set: probed without --set,
    each operation gets a report."""

    name = "everything"
    sets = {"c": "component"}  # noqa: RUF012 - a class-level declaration

    def encode(self, case: EncodeCase) -> str:
        return percent_encode(str(case.value), "component")

    def decode(self, case: DecodeCase) -> bytes:
        return percent_decode(case.value)

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        return form_urldecode(case.text)


def _probe(operation: str, **functions: Callable[..., object]) -> OperationReport:
    return probe_operation(function_adapter("planted", **functions), operation, "planted")


def _facts(report: OperationReport) -> dict[str, tuple[str, str, bool, str | None]]:
    return {f.key: (f.word, f.reference, f.agrees, f.rule) for f in report.facts}


# --- decoders ------------------------------------------------------------------------------


def test_a_form_decoder_reads_plus_as_space_and_replaces_invalid_utf8() -> None:
    facts = _facts(_probe("decode", decode=form_unquote))
    assert facts["plus"] == ("space", "kept", False, "rule=plus_as_space()")
    assert facts["invalid_utf8"] == ("one U+FFFD per invalid sequence", "kept as bytes", False,
                                     "rule=replacement(mode=per-sequence)")
    assert facts["invalid_escapes"] == ("kept", "kept", True, None)
    # a kept lone surrogate is compared as U+FFFD: no finding, said as such
    assert facts["surrogates"] == ("kept (surrogatepass)", "U+FFFD", True, None)
    assert facts["kept_escapes"][0] == "none" and facts["decoded_twice"][0] == "once"


def test_a_decoder_that_refuses_invalid_escapes() -> None:
    facts = _facts(_probe("decode", decode=strict_unquote))
    assert facts["invalid_escapes"] == ("raises ValueError", "kept", False,
                                        "rule=refuses(input=invalid-percent,raised=ValueError)")
    assert facts["refuses"][0] == "lone-surrogate invalid-percent"
    assert facts["plus"] == ("kept", "kept", True, None)


def test_the_reference_agrees_with_itself_on_every_question() -> None:
    report = _probe("decode", decode=reference_decode)
    assert all(f.agrees and f.word == f.reference for f in report.facts if f.key != "input")


# --- form serializers ----------------------------------------------------------------------


def test_a_query_builder_its_space_and_the_characters_it_leaves_raw() -> None:
    facts = _facts(_probe("form", form_serialize=query_builder))
    assert facts["space"] == ("%20", "+", False, "rule=space_as(space=%20)")
    assert facts["left_raw_names"] == ("/:~", "none", False, "rule=left_raw(chars=/:~)")
    assert facts["left_raw_values"] == ("/:~", "none", False, "rule=left_raw(chars=/:~)")
    assert facts["encoded_values"] == ("*", "none", False, "rule=encoded(chars=*)")
    assert facts["separator"][0] == "&" and facts["hex_case"] == ("upper", "upper", True, None)
    assert facts["pairs_order"][0] == "as given" and facts["empty_values"][0] == "kept"


def test_a_character_left_raw_in_names_only_is_its_own_rule() -> None:
    facts = _facts(_probe("form", form_serialize=names_keep_colon))
    assert facts["left_raw_names"] == (
        ":~", "none", False, "rule=left_raw(chars=~) and rule=left_raw(chars=:,part=names)")
    assert facts["left_raw_values"] == ("~", "none", False, "rule=left_raw(chars=~)")
    assert facts["space"] == ("+", "+", True, None)


# --- form parsers --------------------------------------------------------------------------


def test_a_parser_of_semicolons_that_keeps_plus() -> None:
    facts = _facts(_probe("form-parse", form_parse=semicolon_parser))
    assert facts["separators"] == ("& ;", "&", False, "rule=semicolon_separates()")
    assert facts["plus"] == ("kept", "space", False, "rule=plus_kept()")
    assert facts["empty_pairs"] == ("empty sequences skipped", "empty sequences skipped",
                                    True, None)
    assert facts["input"][0] == "str"


def test_a_parser_that_drops_empty_values() -> None:
    facts = _facts(_probe("form-parse", form_parse=blank_dropping_parser))
    assert facts["empty_pairs"] == ("pairs with an empty value dropped",
                                    "empty sequences skipped", False,
                                    "rule=empty_pairs(mode=dropped)")
    assert facts["no_equals"][:3] == ("no pair", "a name with an empty value", False)
    assert facts["separators"][0] == "&" and facts["plus"][0] == "space"
    assert facts["invalid_utf8"][0] == "one U+FFFD per invalid sequence"


# --- the command ---------------------------------------------------------------------------

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_probe_a_function_as_a_decoder(cli: Run) -> None:
    code, out, err = cli("probe", "test_probe_operations:form_unquote", "--operation", "decode")
    assert (code, err) == (ExitCode.OK, "")
    lines = out.splitlines()
    assert lines[0] == "target: test_probe_operations:form_unquote (decode)"
    assert "plus sign: space    (the reference: kept; rule=plus_as_space())" in lines
    assert "invalid %zz, %4, %: kept" in lines


@pytest.mark.parametrize(("operation", "function", "line"), [
    ("form-serialize", "query_builder",
     "space: %20    (the reference: +; rule=space_as(space=%20))"),
    ("form-parse", "semicolon_parser",
     "separators: & ;    (the reference: &; rule=semicolon_separates())"),
])
def test_probe_a_function_as_a_form_operation(cli: Run, operation: str, function: str,
                                             line: str) -> None:
    code, out, _ = cli("probe", f"test_probe_operations:{function}", "--operation", operation)
    assert code == ExitCode.OK and line in out.splitlines()


def test_probe_json_of_a_parser(cli: Run) -> None:
    code, out, _ = cli("probe", "test_probe_operations:blank_dropping_parser",
                       "--operation", "form-parse", "--json")
    assert code == ExitCode.OK
    data = json.loads(out)
    assert (data["operation"], data["empty_pairs"]) == ("form-parse",
                                                        "pairs with an empty value dropped")
    assert data["reference"]["empty_pairs"] == "empty sequences skipped"
    assert data["rules"]["empty_pairs"] == "rule=empty_pairs(mode=dropped)"
    assert "empty_pairs" in data["differs"] and data["outputs"]["empty_pairs"] == {"&a=&&": "[]"}


def test_an_adapter_is_probed_on_every_operation_it_answers(cli: Run) -> None:
    code, out, _ = cli("probe", "test_probe_operations:Everything", "--json")
    assert code == ExitCode.OK
    reports = json.loads(out)
    assert [r["operation"] for r in reports] == ["encode", "decode", "form-parse"]
    assert reports[0]["exact"] == "component" and reports[1]["differs"] == []
    code, out, _ = cli("probe", "test_probe_operations:Everything")
    blocks = out.split("\n\n")
    assert [b.splitlines()[0] for b in blocks] == [
        "target: test_probe_operations:Everything (encode with set component)",
        "target: test_probe_operations:Everything (decode)",
        "target: test_probe_operations:Everything (form parse)",
    ]
    code, out, _ = cli("probe", "test_probe_operations:Everything", "--operation", "decode")
    assert code == ExitCode.OK
    assert out.startswith("target: test_probe_operations:Everything (decode)\n")
    code, _, err = cli("probe", "test_probe_operations:Everything", "--operation",
                       "form-serialize")
    assert code == ExitCode.USAGE and "does not answer form" in err


def test_the_probe_and_the_check_ask_the_implementation_once() -> None:
    """Issue 35: ``pctfuzz probe`` asks what the differential check asks through the one
    profile of the adapter (``checks.profile``), each question once: the replacement
    modes and the refusals asked by the probe are not asked again."""
    from pctfuzz._internal.checks.profile import parser_replacement, refused_inputs

    asked: list[str] = []

    def parse(text: str) -> list[tuple[str, str]]:
        asked.append(text)
        if any(c < " " for c in text):
            raise ValueError("no control characters")
        return parse_qsl(text, keep_blank_values=True)

    adapter = function_adapter("test-asked-once", form_parse=parse)
    probe_operation(adapter, "form-parse")
    modes = parser_replacement(adapter)
    refused = refused_inputs("form-parse", FormParseCase("a"), adapter)
    asked.clear()
    assert parser_replacement(adapter) == modes
    assert refused_inputs("form-parse", FormParseCase("b"), adapter) == refused
    assert refused == {"control-char": "a\x01b"} and asked == []

    def serialize(pairs: list[tuple[str, str]]) -> str:
        return "&".join(quote(n, safe="~!") + "=" + quote(v, safe="~") for n, v in pairs)

    serializer = function_adapter("test-parts-once", form_serialize=serialize)
    report = json.dumps(probe_operation(serializer, "form").to_json())
    assert "left_raw(chars=!,part=names)" in report and "left_raw(chars=~)" in report
