"""``function_adapter``: an adapter from plain callables, compared with the reference."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, quote, quote_plus, unquote, unquote_to_bytes, urlencode

import pytest

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.differential import (
    check_decode,
    check_encode,
    check_form,
    check_form_parse,
)
from pctfuzz._internal.checks.probe import load_encoder, probe
from pctfuzz._internal.errors import PctfuzzError, UnknownSetError, UsageError
from pctfuzz._internal.oracles import function_adapter, get_impl
from pctfuzz._internal.oracles.function import FunctionAdapter
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.violations import Divergence

URLLIB = function_adapter(
    "my-urllib",
    encode=lambda s: quote(s, safe="/"),
    decode=unquote_to_bytes,
    form_serialize=urlencode,
    form_parse=lambda text: parse_qsl(text, keep_blank_values=True),
    sets={"path": "urllib-safe:/"},
)


def test_it_is_an_adapter() -> None:
    assert get_impl(URLLIB) is URLLIB
    assert URLLIB.name == "my-urllib" and URLLIB.registry_names == ("my-urllib",)
    assert dict(URLLIB.sets) == {"path": "urllib-safe:/"}
    assert "urllib.parse" in URLLIB.modules_under_test
    assert not any(m.startswith("pctfuzz") for m in URLLIB.modules_under_test)


def test_each_operation_has_its_own_code_under_test() -> None:
    """A campaign on the encoder instruments and counts the encoder's modules, not the
    form parser's: a user trial's encode target warned "code under test not reached"
    for the module of the project's form parser (courlan, 42 s campaign)."""
    import json

    from pctfuzz._internal.operations import ENCODE, FORM_PARSE
    from pctfuzz._internal.targets import get_target, modules_under_test

    mixed = function_adapter("mixed", encode=quote, form_parse=json.loads,
                             sets={"path": "urllib-safe:/"})
    assert modules_under_test(mixed, ENCODE) == ("urllib.parse",)
    assert modules_under_test(mixed, FORM_PARSE) == ("json", "json.decoder")
    assert set(mixed.modules_under_test) == {"urllib.parse", "json", "json.decoder"}
    assert get_target("diff_encode").bind(mixed).code_under_test == ("urllib.parse",)
    assert "urllib.parse" not in get_target("diff_form_parse").bind(mixed).code_under_test


@pytest.mark.parametrize("set_name", ["urllib-safe:/", "rfc3986-unreserved-/"])
def test_encode_answers_its_set_in_any_spelling(set_name: str) -> None:
    assert check_encode(EncodeCase("a/b c\u00e9~", set_name), URLLIB) == ()


@pytest.mark.parametrize(
    "case",
    [
        EncodeCase("a/b", "component"),  # another set
        EncodeCase(b"a/b", "urllib-safe:/"),  # bytes
        EncodeCase("a/b", "urllib-safe:/", "windows-1252"),  # another encoding
        EncodeCase("a b", "urllib-safe:/", space_as_plus=True),  # space as + asked for
    ],
)
def test_encode_cases_it_cannot_express_are_unsupported(case: EncodeCase) -> None:
    assert check_encode(case, URLLIB) is None


def test_space_as_plus_matters_only_with_a_space() -> None:
    assert check_encode(EncodeCase("a/b", "urllib-safe:/", space_as_plus=True), URLLIB) == ()


def test_a_wrong_encoder_diverges() -> None:
    lower = function_adapter(
        "lower",
        encode=lambda s: re.sub("%[0-9A-F]{2}", lambda m: m[0].lower(), quote(s, safe="/")),
        sets={"path": "urllib-safe:/"},
    )
    with pytest.raises(Divergence):
        check_encode(EncodeCase("a<b", "urllib-safe:/"), lower)  # %3c


def test_one_function_per_set() -> None:
    two = function_adapter(
        "two",
        encode={"path": lambda s: quote(s, safe="/"), "all": lambda s: quote(s, safe="")},
        sets={"path": "urllib-safe:/", "all": "urllib-safe:"},
    )
    assert check_encode(EncodeCase("a/b", "urllib-safe:/"), two) == ()
    assert check_encode(EncodeCase("a/b", "rfc3986-unreserved"), two) == ()
    assert check_encode(EncodeCase("a/b", "path"), two) is None


def test_decode_form_serialize_and_form_parse() -> None:
    assert check_decode(DecodeCase("%41%zz%FF"), URLLIB) == ()
    assert check_decode(DecodeCase(b"%41"), URLLIB) is None  # str only
    assert check_form(FormCase((("a b", "c&d=\u00e9"),)), URLLIB) == ()
    assert check_form(FormCase((("a", "b"),), "windows-1252"), URLLIB) is None
    assert check_form_parse(FormParseCase("a=1&b=%20+"), URLLIB) == ()
    assert check_form_parse(FormParseCase(b"a=1"), URLLIB) is None


def test_a_str_decoder_is_compared_as_utf8() -> None:
    text = function_adapter("unquote", decode=unquote)
    assert text.decode(DecodeCase("%FF")) == "\ufffd".encode()  # unquote: errors="replace"
    with pytest.raises(Divergence):
        check_decode(DecodeCase("%FF"), text)  # the reference gives the byte 0xFF


def test_unanswered_questions_are_unsupported() -> None:
    only_decode = function_adapter("d", decode=unquote_to_bytes)
    assert check_encode(EncodeCase("x"), only_decode) is None
    assert check_form(FormCase((("a", "b"),)), only_decode) is None
    assert check_form_parse(FormParseCase("a=b"), only_decode) is None


def test_sets_and_encode_must_pair_up() -> None:
    with pytest.raises(PctfuzzError, match="exactly one set"):
        function_adapter("x", encode=quote, sets={"a": "path", "b": "query"})
    with pytest.raises(PctfuzzError, match="exactly one set"):
        function_adapter("x", encode=quote)
    with pytest.raises(PctfuzzError, match="same labels"):
        function_adapter("x", encode={"a": quote}, sets={"b": "path"})
    with pytest.raises(UnknownSetError, match="character 5"):
        function_adapter("x", encode=quote, sets={"a": "path+"})


def test_probe_uses_the_declared_label() -> None:
    fn, spec = load_encoder("test_function_adapter:URLLIB", "path")
    assert spec == "rfc3986-unreserved-/"
    report = probe(fn, "test_function_adapter:URLLIB", set_name=spec)
    assert report.spec == "rfc3986-unreserved-/" and report.urllib_safe == "urllib-safe:/"


def test_one_set_two_space_conventions_each_case_to_its_own_encoder() -> None:
    """A library's query value ('+') and userinfo ('%20') of one set (furl): a case goes
    to the encoder that writes a space as it does, so both are asked."""
    unreserved = get_set("rfc3986-unreserved")
    both = FunctionAdapter(
        "both", {"query": (unreserved, quote_plus_safe), "userinfo": (unreserved, quote_safe)},
        None, None, None, {"query": unreserved.name, "userinfo": unreserved.name}, True,
        spaces={"userinfo": False},
    )
    assert both.encode(EncodeCase("a b", unreserved.name, space_as_plus=True)) == "a+b"
    assert both.encode(EncodeCase("a b", unreserved.name, space_as_plus=False)) == "a%20b"
    assert check_encode(EncodeCase("a b~", unreserved.name, space_as_plus=False), both) == ()


def quote_plus_safe(value: str) -> str:
    return quote_plus(value, safe="")


def quote_safe(value: str) -> str:
    return quote(value, safe="")


def test_function_adapter_takes_spaces_per_label() -> None:
    """The public ``function_adapter`` takes the ``spaces`` docs/adapters.md shows (it
    raised TypeError), and refuses a label no encoder has."""
    from pctfuzz.oracles import function_adapter

    adapter = function_adapter(
        "mine", {"query": quote_plus_safe, "path": quote_safe},
        sets={"query": "rfc3986-unreserved", "path": "rfc3986-unreserved"},
        space_as_plus=True, spaces={"path": False})
    assert adapter.encode(EncodeCase("a b", "rfc3986-unreserved", space_as_plus=True)) == "a+b"
    assert adapter.encode(EncodeCase("a b", "rfc3986-unreserved",
                                     space_as_plus=False)) == "a%20b"
    with pytest.raises(UsageError, match="spaces names fragment"):
        function_adapter("mine", {"query": quote_plus_safe},
                         sets={"query": "rfc3986-unreserved"}, spaces={"fragment": False})


def test_the_library_a_thin_wrapper_calls_is_code_under_test(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user's wrapper (``def dec(s): return lib.decode(s)``) made the wrapper alone the
    code under test: libFuzzer's coverage saw none of the library, and each statement of
    it that raised was located at the wrapper's one call (hold-out 12: two real crashes
    were one finding with a third). The library the wrapper holds is code under test
    too, the standard library and pctfuzz are not."""
    import importlib
    import sys

    from pctfuzz._internal.identity.signatures import crash_location
    from pctfuzz._internal.targets import get_target

    root = tmp_path
    (root / "fakelib_q7").mkdir()
    (root / "fakelib_q7" / "__init__.py").write_text(
        "def decode(text):\n"
        "    if '#' in text:\n"
        "        raise ValueError('no fragment')\n"
        "    if '?' in text:\n"
        "        raise ValueError('no query')\n"
        "    return text.encode()\n")
    (root / "thin_wrapper_q7.py").write_text(
        "import json\n\nimport fakelib_q7\n\n\n"
        "def dec(text):\n    return fakelib_q7.decode(text)\n")
    monkeypatch.syspath_prepend(str(root))
    for name in ("fakelib_q7", "thin_wrapper_q7"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    wrapper = importlib.import_module("thin_wrapper_q7")
    bound = get_target("diff_decode").bind(function_adapter("thin", decode=wrapper.dec))
    assert bound.code_under_test == ("thin_wrapper_q7", "fakelib_q7")
    assert "fakelib_q7" in bound.instrumented_modules
    places = set()
    for text in ("a#", "a?", "b#"):
        with pytest.raises(ValueError) as info:
            wrapper.dec(text)
        places.add(crash_location(info.value, bound.code_under_test))
    assert len(places) == 2 and all(p.startswith("fakelib_q7:decode+") for p in places)


def test_the_standard_library_module_a_wrapper_calls_is_code_under_test(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user's wrapper of ``urllib.parse.unquote`` made the wrapper alone the code under
    test: libFuzzer saw none of urllib's branches, and its refusals were located at the
    wrapper's call. The standard library modules the function names are code under
    test; one its module imports for another function is not."""
    import importlib
    import sys

    from pctfuzz._internal.identity.signatures import crash_location
    from pctfuzz._internal.oracles.function import standard_modules_called
    from pctfuzz._internal.targets import get_target

    (tmp_path / "std_wrapper_q8.py").write_text(
        "import json\nimport urllib.parse\nfrom urllib.parse import unquote\n\n\n"
        "def dec(text):\n    return unquote(text, errors='strict')\n\n\n"
        "def dec_bytes(text):\n    return urllib.parse.unquote_to_bytes(text)\n\n\n"
        "def dumps(text):\n    return json.dumps(text)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "std_wrapper_q8", raising=False)
    wrapper = importlib.import_module("std_wrapper_q8")
    assert standard_modules_called(wrapper.dec) == {"urllib.parse"}
    assert standard_modules_called(wrapper.dec_bytes) == {"urllib.parse"}
    bound = get_target("diff_decode").bind(function_adapter("std", decode=wrapper.dec))
    assert bound.code_under_test == ("std_wrapper_q8", "urllib.parse")
    assert "json" not in bound.code_under_test
    with pytest.raises(UnicodeDecodeError) as info:
        wrapper.dec("%FF")
    assert crash_location(info.value, bound.code_under_test) == "urllib.parse:unquote"
