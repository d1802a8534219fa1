"""The fast reference against the spec's transcription (``pctfuzz._internal.spec``).

As yarl tests its C quoter and ``_quoting_py`` through one fixture, each vector here
runs on both implementations (``impl``), and Hypothesis holds them equal on random
inputs: every set, every fuzzed encoding, spaceAsPlus, bytes soup for the decoders.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vectors import (
    WPT_PERCENT_ENCODING,
    WPT_SERIALIZE_PAIRS,
    WPT_URLENCODED_PARSER,
    PercentEncodingCase,
    SerializeCase,
)

from pctfuzz._internal import spec
from pctfuzz._internal.form import form_urldecode, form_urldecode_bytes, form_urlencode
from pctfuzz._internal.formats import FUZZ_ENCODINGS
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.sets import SETS


@dataclass(frozen=True)
class Codec:
    """One implementation of the four algorithms, under a common signature."""

    name: str
    encode: Callable[[str, str, str, bool], str]  # (encoding, input, set, spaceAsPlus)
    decode: Callable[[bytes], bytes]
    serialize: Callable[[list[tuple[str, str]], str], str]
    parse: Callable[[bytes], list[tuple[str, str]]]


FAST = Codec(
    "reference",
    lambda enc, text, pes, plus: percent_encode(text, pes, encoding=enc, space_as_plus=plus),
    percent_decode,
    lambda pairs, enc: form_urlencode(pairs, encoding=enc),
    form_urldecode,
)
SPEC = Codec(
    "spec",
    spec.percent_encode_after_encoding,
    spec.percent_decode,
    spec.form_urlencoded_serialize,
    spec.form_urlencoded_parse,
)


@pytest.fixture(params=[FAST, SPEC], ids=lambda codec: codec.name)
def impl(request: pytest.FixtureRequest) -> Codec:
    codec: Codec = request.param
    return codec


# --- vectors, on both ------------------------------------------------------------------------

#: WHATWG URL 1.3's example table for "percent-encode after encoding" (seed 000; its
#: current wording: legacy encodings with the special-query or the form set).
SPEC_EXAMPLES = (
    ("Shift_JIS", " ", "special-query", False, "%20"),
    ("Shift_JIS", "\u2261", "special-query", False, "%81%DF"),
    ("Shift_JIS", "\u203d", "special-query", False, "%26%238253%3B"),
    ("ISO-2022-JP", "\u00a5", "special-query", False, "%1B(J\\%1B(B"),
    ("Shift_JIS", "1+1 \u2261 2%20\u203d", "application/x-www-form-urlencoded", True,
     "1%2B1+%81%DF+2%2520%26%238253%3B"),
    ("UTF-8", "\u2261", "userinfo", False, "%E2%89%A1"),
    ("UTF-8", "\u203d", "userinfo", False, "%E2%80%BD"),
    ("UTF-8", "Say what\u203d", "component", False, "Say%20what%E2%80%BD"),
)


@pytest.mark.parametrize(("encoding", "text", "set_name", "plus", "want"), SPEC_EXAMPLES)
def test_spec_examples(impl: Codec, encoding: str, text: str, set_name: str, plus: bool,
                       want: str) -> None:
    assert impl.encode(encoding, text, set_name, plus) == want


@pytest.mark.parametrize("case", WPT_PERCENT_ENCODING, ids=lambda c: ascii(c.input))
def test_wpt_percent_encoding(impl: Codec, case: PercentEncodingCase) -> None:
    # WPT checks utf-8 as a.hash (the fragment set), any other label as a.search of a
    # document in that encoding (the special-query set).
    for label, want in case.outputs:
        set_name = "fragment" if label == "utf-8" else "special-query"
        assert impl.encode(label, case.input, set_name, False) == want


@pytest.mark.parametrize(("text", "pairs"), WPT_URLENCODED_PARSER)
def test_wpt_urlencoded_parser(impl: Codec, text: str, pairs: tuple[tuple[str, str], ...]) -> None:
    assert impl.parse(text.encode("utf-8")) == list(pairs)


@pytest.mark.parametrize("case", WPT_SERIALIZE_PAIRS, ids=lambda c: c.test)
def test_wpt_serializer(impl: Codec, case: SerializeCase) -> None:
    assert impl.serialize(list(case.pairs), "utf-8") == case.expected


@pytest.mark.parametrize(("data", "want"), [
    (b"%25%s%1G", b"%%s%1G"),  # WHATWG 1.3's own example
    (b"%", b"%"), (b"%4", b"%4"), (b"%41", b"A"), (b"%4a%4A", b"JJ"), (b"%%41", b"%A"),
    (b"\xff%ff", b"\xff\xff"),
])
def test_percent_decode_vectors(impl: Codec, data: bytes, want: bytes) -> None:
    assert impl.decode(data) == want


# --- the fast reference equals the transcription on random inputs ----------------------------

scalar_text = st.text(
    st.sampled_from(" %+&=~*#?/\x00\x7f\u00a5\u203e\u2261\u3042\U0001f600")
    | st.characters(codec="utf-8"),
    max_size=24,
)
pct_bytes = st.lists(
    st.sampled_from([b"%", b"+", b"&", b"=", b"2", b"a", b"F", b"g", b"\xc3", b"\xa9", b"\xff",
                     b" "]) | st.binary(max_size=2),
    max_size=24,
).map(b"".join)


@settings(deadline=None, max_examples=400)
@given(scalar_text, st.sampled_from(sorted(SETS)), st.sampled_from(FUZZ_ENCODINGS),
       st.booleans())
def test_encode_equals_spec(text: str, set_name: str, encoding: str, plus: bool) -> None:
    assert FAST.encode(encoding, text, set_name, plus) == SPEC.encode(encoding, text, set_name,
                                                                       plus)


@settings(deadline=None, max_examples=300)
@given(pct_bytes)
def test_decode_and_parse_equal_spec(data: bytes) -> None:
    assert FAST.decode(data) == SPEC.decode(data)
    assert FAST.parse(data) == SPEC.parse(data)
    # The parser's bytes before its UTF-8 decode, the models' starting point.
    assert [(name.decode("utf-8", "replace"), value.decode("utf-8", "replace"))
            for name, value in form_urldecode_bytes(data)] == SPEC.parse(data)


@settings(deadline=None, max_examples=200)
@given(st.lists(st.tuples(scalar_text, scalar_text), max_size=5),
       st.sampled_from(FUZZ_ENCODINGS))
def test_serialize_equals_spec(pairs: list[tuple[str, str]], encoding: str) -> None:
    assert FAST.serialize(pairs, encoding) == SPEC.serialize(pairs, encoding)


def test_the_grammar_constants_have_one_home() -> None:
    """The "%HH" pattern and the hex digits are written in ``spec.py`` only; every other
    module of the package builds on ``spec.HEX_PAIR`` / ``PERCENT_ENCODED_BYTE`` /
    ``ASCII_HEX``. (Tests keep their own copies on purpose: an independent fact.)"""
    from pathlib import Path

    package = Path(spec.__file__).parent
    copy = re.compile(r"\[0-9A-Fa-f\]|\[0-9a-fA-F\]|0123456789(?:ABCDEF|abcdef)")
    copies = [f"{path.relative_to(package)}:{number}"
              for path in sorted(package.rglob("*.py")) if path.name != "spec.py"
              for number, line in enumerate(path.read_text().splitlines(), 1)
              if copy.search(line)]
    assert copies == []
    assert spec.PERCENT_ENCODED_BYTE.pattern == "%" + spec.HEX_PAIR
    assert frozenset(b"0123456789ABCDEFabcdef") == spec.ASCII_HEX_DIGITS


#: The homes of percent-decode: the spec's transcription and the fast twins.
_HOMES = frozenset({"spec.py", "reference.py", "form.py"})

#: Code that reads a "%HH" escape's hex digits itself: a copy of percent-decode unless
#: it is one of the places below, which model something else on purpose.
_READS_AN_ESCAPE = re.compile(
    r"int\([^()]*(\([^()]*\))?[^()]*,\s*16\)|fromhex|\.split\(b?\"%\"\)|\.find\(b?\"%\"")

#: (module, function) -> what it models instead of WHATWG 1.3 "percent-decode". A new
#: decoder calls ``spec.percent_decode`` or ``reference.percent_decode`` (fast), or is
#: added here with the deviation it models (its docstring says it too).
_NOT_PERCENT_DECODE = {
    ("accept/impact.py", "_class_impact"): "reads a unit name 0xHH, not an escape",
    ("accept/model.py", "_escape"): "one triplet's byte, in a model's rendering",
    ("accept/decoders.py", "decode_keeping"): "a decoder that keeps some escapes",
    ("accept/model.py", "keep"): "a form parser that keeps some escapes (marks them)",
    ("accept/javascript.py", "unescape_buffer"): "Node's unescapeBuffer (UTF-16 units)",
    ("accept/html_refs.py", "_mono_html_decode"): "an HTML reference's hex digits (&#xH;)",
    ("accept/javascript.py", "decode_uri_component"): "ECMA-262 Decode (throws)",
    ("checks/registry/haskell.py", "_byte"): "network-uri's unEscapeByte (its own UTF-8)",
    ("checks/registry/qt.py", "query_field"): "QUrlQuery's TolerantMode field (its own UTF-8)",
    ("accept/decoders.py", "written"): "percent_u's %uXXXX, a UTF-16 code unit",
    ("accept/decoders.py", "predecode"): "a parser decoding its delimiters' escapes first",
    ("checks/generalize.py", "swap"): "one escape's byte, generalizing a finding",
    ("checks/locate.py", "unit_ends"): "a run of escapes kept whole where a prefix ends",
    ("checks/generalize.py", "widen"): "one escape's byte, generalizing a finding",
    ("checks/generalize.py", "_decoded"): "escapes of letters and digits only",
    ("checks/invariants/encode.py", "_alphabet_detail"): "names one triplet's byte",
    ("checks/probe.py", "_escape_of"): "compares one triplet with a byte",
    ("checks/registry/yarl.py", "data"): "yarl's encoder keeps '%' (a split, no decode)",
    ("checks/registry/yarl.py", "_yarl_requote_model"): "yarl's requoting of escapes",
    ("encoding/differences.py", "<module>"): "encoder table bytes, not escapes",
    ("fuzz/mutator.py", "unescape_one"): "a mutation: one escape decoded",
    ("grammar.py", "<module>"): "a docstring on Python's int(x, 16)",
    ("identity/classes.py", "_decode_segments"): "a finding's name: a delimiter's escape",
    ("identity/classes.py", "_unit_shape"): "a finding's name: one escape's byte",
    ("identity/classes.py", "_shape_unit"): "a finding's name: one escape's byte",
    ("identity/classes.py", "form_shape"): "a finding's name: one escape's byte",
    ("identity/classes.py", "_parse_unit"): "a finding's name: one escape's byte",
    ("identity/classes.py", "_written_unit"): "reads a unit name 0xHH",
    ("identity/classes.py", "_coarse"): "reads a segment kind 0xHH",
    ("identity/classes.py", "_char_end"): "a UTF-8 lead escape's length, where a unit ends",
    ("identity/units.py", "unit_members"): "reads unit names 0xHH",
    ("oracles/faults.py", "_decode_short_escape"): "an injected fault",
    ("oracles/faults.py", "_decode_uppercase_only"): "an injected fault",
    ("oracles/faults.py", "_decode_raises"): "an injected fault",
    ("oracles/faults.py", "_faults"): "an injected fault's description",
    ("oracles/hyperlink.py", "_to_iri_fragment"): "hyperlink's to_iri keeps #[]%",
    ("setspec.py", "_read_chars"): "the set-spec grammar's own %HH, not a URL's",
}


def _places(pattern: re.Pattern[str]) -> dict[tuple[str, str], int]:
    """(module, innermost function or "<module>") -> its lines matching ``pattern``,
    for every module of the package but the homes."""
    import ast
    from pathlib import Path

    package = Path(spec.__file__).parent
    found: dict[tuple[str, str], int] = {}
    for path in sorted(package.rglob("*.py")):
        if path.parent == package and path.name in _HOMES:
            continue
        source = path.read_text()
        spans = [(node.lineno, node.end_lineno or node.lineno, node.name)
                 for node in ast.walk(ast.parse(source))
                 if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
        for number, line in enumerate(source.splitlines(), 1):
            if pattern.search(line):
                inner = [s for s in spans if s[0] <= number <= s[1]]
                name = min(inner, key=lambda s: s[1] - s[0])[2] if inner else "<module>"
                key = (str(path.relative_to(package)), name)
                found[key] = found.get(key, 0) + 1
    return found


def test_percent_decode_has_one_home() -> None:
    """No module restates percent-decode: reading an escape's hex digits is done by
    the homes, or by a model of something else that ``_NOT_PERCENT_DECODE`` names (and
    the list names nothing that is gone)."""
    places = set(_places(_READS_AN_ESCAPE))
    assert sorted(places - _NOT_PERCENT_DECODE.keys()) == []
    assert sorted(_NOT_PERCENT_DECODE.keys() - places) == []


def test_the_percent_encoded_byte_pattern_is_not_built_again() -> None:
    """``spec.PERCENT_ENCODED_BYTE`` is the "%HH" pattern: no module compiles it again
    from ``HEX_PAIR`` (a capture, a look-ahead or a bytes pattern built on it are
    other patterns) or writes an escape's hex class out (uppercase or lowercase only:
    a model of an implementation that reads one case, named here)."""
    rebuilt = re.compile(r'compile\((f"%\{HEX_PAIR\}"|"%" \+ HEX_PAIR)\)')
    assert _places(rebuilt) == {}
    one_case = re.compile(r"%\(?\[0-9(?:a-f|A-F)")
    assert sorted(_places(one_case)) == [
        ("accept/candidates.py", "<module>"),  # finds an implementation's lowercase escapes
        ("accept/model.py", "<module>"),  # the reference's own uppercase output
        ("oracles/faults.py", "<module>"),  # an injected fault: uppercase escapes only
    ]
