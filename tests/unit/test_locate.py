"""Where a difference is located (``checks.locate``): a prefix ends between units.

A prefix cut inside an escape, or inside a run of escapes that spells one UTF-8
character, is an input the case does not hold. A latin-1 decoder's ``%C3%A9`` was
located on ``%C3%A`` (a short escape), and the finding of its latin-1 reading was named
after the decoder's other behaviour, short escapes, a real bug it does not show (a
hold-out 13 decoder: "the class takes %C3%A9 16/16")."""

from __future__ import annotations

import re
from urllib.parse import unquote_to_bytes

import pytest

from pctfuzz import percent_decode
from pctfuzz._internal.cases import DecodeCase, FormParseCase
from pctfuzz._internal.checks.locate import located, unit_ends
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.settings import DEFAULT_SETTINGS
from pctfuzz.oracles import function_adapter


@pytest.mark.parametrize(("value", "ends"), [
    ("%C3%A9", [6]),  # one character: no end inside
    ("%C3%A", [3, 4, 5]),  # a lead byte, then a short escape ('%', 'A')
    ("%AaX", [3, 4]),  # an escape, whatever its hex case
    ("%A", [1, 2]),
    ("a%41b", [1, 4, 5]),
    ("%E2%82%AC!", [9, 10]),
    ("%F0%9F%98%80", [12]),
    ("%C3x%A9", [3, 4, 7]),  # not a run: each escape alone
    ("%ED%A0%80", [3, 6, 9]),  # a surrogate's bytes are no UTF-8 character
    ("%C3%28", [3, 6]),  # nor a lead before an ASCII byte
    (b"\xc3\xa9a", [2, 3]),  # raw UTF-8 in bytes
    (b"\xc3a", [1, 2]),
])
def test_a_prefix_ends_between_units(value: str | bytes, ends: list[int]) -> None:
    assert unit_ends(value) == ends


def _latin1_with_short_escapes(value: str) -> bytes:
    """A decoder with two behaviours: a '%' that starts no escape is written '?', and a
    decoded text of valid UTF-8 is read as latin-1 (each byte a character, in UTF-8)."""
    data = unquote_to_bytes(re.sub("%(?![0-9A-Fa-f]{2})", "?", value))
    try:
        return data.decode("utf-8").encode("utf-8").decode("latin-1").encode("utf-8")
    except UnicodeDecodeError:
        return data


def test_a_multibyte_escape_is_located_whole() -> None:
    adapter = function_adapter("test-latin1-short", decode=_latin1_with_short_escapes)
    case = DecodeCase("%C3%A9")
    expected = Outcome(percent_decode("%C3%A9"))
    actual = Outcome(_latin1_with_short_escapes("%C3%A9"))
    where, klass, _widens = located("decode", case, adapter, expected, actual,  # type: ignore[arg-type]
                                    "strict", settings=DEFAULT_SETTINGS)
    assert where == case and not re.search("pct-(short|nonhex|invalid)", klass), klass
    short = DecodeCase("%C3%A")  # (the short escape's own class, for contrast)
    _where, shown, _ = located("decode", short, adapter, Outcome(percent_decode("%C3%A")),  # type: ignore[arg-type]
                               Outcome(_latin1_with_short_escapes("%C3%A")), "strict",
                               settings=DEFAULT_SETTINGS)
    assert re.search("pct-(short|nonhex)", shown), shown


def test_a_form_parsers_escape_is_located_whole() -> None:
    def parse(text: str) -> list[tuple[str, str]]:
        return [(n, _latin1_with_short_escapes(v).decode("utf-8", "replace"))
                for n, _, v in (s.partition("=") for s in text.split("&") if s)]

    adapter = function_adapter("test-latin1-short-form", form_parse=parse)
    case = FormParseCase("a=%C3%A9")
    expected = Outcome([("a", "\u00e9")])
    actual = Outcome(parse("a=%C3%A9"))
    _where, klass, _ = located("form-parse", case, adapter, expected, actual,  # type: ignore[arg-type]
                               "strict", settings=DEFAULT_SETTINGS)
    assert not re.search("pct-(short|nonhex|invalid)", klass), klass
