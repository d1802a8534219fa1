"""The percent-encode sets: exact membership, derivation hierarchy, registry.

Each set's printable-ASCII membership is spelled out here as a string copied from the
spec text (WHATWG URL 1.3, RFC 3986 2.2/2.3/3.3/3.4, ECMA-262 19.2.6), independently of
how ``pctfuzz._internal.sets`` builds it.
"""

from __future__ import annotations

import json
import re
import string
import urllib.parse

import pytest

from pctfuzz._internal.cases import EncodeCase, case_from_json
from pctfuzz._internal.cli import main
from pctfuzz._internal.errors import CaseFormatError, InputTypeError, PctfuzzError, UnknownSetError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import (
    ALIASES,
    SETS,
    WHATWG_DERIVATION,
    PercentEncodeSet,
    get_set,
    set_names,
)
from pctfuzz._internal.setspec import (
    byte_ranges,
    canonical_spec,
    format_spec,
    spec_for_members,
    urllib_safe_spec,
)

PRINTABLE = "".join(chr(c) for c in range(0x20, 0x7F))
C0_AND_HIGH = frozenset(range(0x00, 0x20)) | frozenset(range(0x7F, 0x100))
ALNUM = string.ascii_letters + string.digits

# Printable ASCII (0x20-0x7E) that each set contains; every set also contains the C0
# controls (0x00-0x1F) and 0x7F-0xFF.
FRAGMENT_ASCII = ' "<>`'  # "U+0020 SPACE, U+0022 ("), U+003C (<), U+003E (>), and U+0060 (`)"
QUERY_ASCII = ' "#<>'  # "U+0020 SPACE, U+0022 ("), U+0023 (#), U+003C (<), and U+003E (>)"
SPECIAL_QUERY_ASCII = QUERY_ASCII + "'"  # "the query percent-encode set and U+0027 (')"
# "the query percent-encode set and U+003F (?), U+005E (^), U+0060 (`), U+007B ({), U+007D (})"
PATH_ASCII = QUERY_ASCII + "?^`{}"
# "the path percent-encode set and U+002F (/), U+003A (:), U+003B (;), U+003D (=),
#  U+0040 (@), U+005B ([) to U+005D (]), inclusive, and U+007C (|)"
USERINFO_ASCII = PATH_ASCII + "/:;=@[\\]|"
# "the userinfo percent-encode set and U+0024 ($) to U+0026 (&), inclusive, U+002B (+),
#  and U+002C (,)"
COMPONENT_ASCII = USERINFO_ASCII + "$%&+,"
# "the component percent-encode set and U+0021 (!), U+0027 (') to U+0029 RIGHT
#  PARENTHESIS, inclusive, and U+007E (~)"
FORM_ASCII = COMPONENT_ASCII + "!'()~"

WHATWG_ASCII = {
    "c0-control": "",
    "fragment": FRAGMENT_ASCII,
    "query": QUERY_ASCII,
    "special-query": SPECIAL_QUERY_ASCII,
    "path": PATH_ASCII,
    "userinfo": USERINFO_ASCII,
    "component": COMPONENT_ASCII,
    "application/x-www-form-urlencoded": FORM_ASCII,
}

# Sets defined by what they leave alone: printable ASCII *outside* the set.
RFC3986_UNRESERVED = ALNUM + "-._~"  # RFC 3986 2.3
RFC3986_SUB_DELIMS = "!$&'()*+,;="  # RFC 3986 2.2
RFC3986_PCHAR = RFC3986_UNRESERVED + RFC3986_SUB_DELIMS + ":@"  # RFC 3986 3.3
RFC3986_QUERY = RFC3986_PCHAR + "/?"  # RFC 3986 3.4
URI_UNESCAPED = ALNUM + "-_.!~*'()"  # ECMA-262 uriUnescaped
URI_RESERVED = ";/?:@&=+$,"  # ECMA-262 uriReserved

COMPLEMENT_SAFE = {
    "rfc3986-unreserved": RFC3986_UNRESERVED,
    "rfc3986-pchar": RFC3986_PCHAR,
    "rfc3986-query": RFC3986_QUERY,
    "encodeURIComponent": URI_UNESCAPED,
    "encodeURI": URI_UNESCAPED + URI_RESERVED + "#",
    "data-uri": URI_UNESCAPED + URI_RESERVED,  # seed 001: encodeURI, then # -> %23
    "query-value": URI_UNESCAPED + ";/?:@=$,",  # seed 001: encodeURI, then # & + encoded
}

EXPECTED_NAMES = [
    "c0-control",
    "fragment",
    "query",
    "special-query",
    "path",
    "userinfo",
    "component",
    "application/x-www-form-urlencoded",
    "rfc3986-unreserved",
    "rfc3986-pchar",
    "rfc3986-query",
    "encodeURIComponent",
    "encodeURI",
    "data-uri",
    "query-value",
]


def members_from(ascii_in_set: str) -> frozenset[int]:
    return C0_AND_HIGH | frozenset(map(ord, ascii_in_set))


def members_outside(ascii_safe: str) -> frozenset[int]:
    return frozenset(range(0x100)) - frozenset(map(ord, ascii_safe))


# --- exact membership -------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(WHATWG_ASCII))
def test_whatwg_set_members_exact(name: str) -> None:
    assert get_set(name).members == members_from(WHATWG_ASCII[name])


@pytest.mark.parametrize("name", sorted(COMPLEMENT_SAFE))
def test_complement_set_members_exact(name: str) -> None:
    assert get_set(name).members == members_outside(COMPLEMENT_SAFE[name])


def test_form_set_matches_the_standards_note() -> None:
    # "contains all code points, except the ASCII alphanumeric, U+002A (*), U+002D (-),
    # U+002E (.), and U+005F (_)."
    assert get_set("application/x-www-form-urlencoded").members == members_outside(ALNUM + "*-._")


@pytest.mark.parametrize("name", EXPECTED_NAMES)
def test_every_set_encodes_c0_controls_and_everything_above_tilde(name: str) -> None:
    assert get_set(name).members >= C0_AND_HIGH


@pytest.mark.parametrize("name", EXPECTED_NAMES)
def test_safe_strings(name: str) -> None:
    pes = get_set(name)
    assert pes.safe_bytes == "".join(chr(b) for b in range(0x100) if b not in pes.members)
    assert pes.printable_safe == "".join(c for c in PRINTABLE if ord(c) not in pes.members)
    assert len(pes) == len(pes.members)
    assert list(pes) == sorted(pes.members)
    assert all(b in pes for b in pes.members)
    assert 0x100 not in pes and "a" not in pes


# --- hierarchy (WHATWG 1.3 derivations) -------------------------------------------------

HIERARCHY = [
    ("c0-control", "fragment"),
    ("c0-control", "query"),
    ("query", "special-query"),
    ("query", "path"),
    ("path", "userinfo"),
    ("userinfo", "component"),
    ("component", "application/x-www-form-urlencoded"),
]


@pytest.mark.parametrize(("small", "big"), HIERARCHY)
def test_whatwg_hierarchy_strict_subsets(small: str, big: str) -> None:
    assert get_set(small) < get_set(big)
    assert get_set(small) <= get_set(big)
    assert not get_set(big) <= get_set(small)


def test_derivation_map_matches_the_spec() -> None:
    for child, parent in WHATWG_DERIVATION.items():
        assert get_set(parent) < get_set(child), (child, parent)
    assert {(p, c) for c, p in WHATWG_DERIVATION.items()} >= set(HIERARCHY)


def test_query_and_fragment_are_incomparable() -> None:
    # "The query percent-encode set cannot be defined in terms of the fragment
    # percent-encode set due to the omission of U+0060 (`)."
    query, fragment = get_set("query"), get_set("fragment")
    assert not query <= fragment and not fragment <= query
    assert 0x60 in fragment and 0x60 not in query
    assert 0x23 in query and 0x23 not in fragment


def test_special_query_and_path_are_incomparable() -> None:
    special_query, path = get_set("special-query"), get_set("path")
    assert 0x27 in special_query and 0x27 not in path
    assert 0x3F in path and 0x3F not in special_query


def test_caret_is_in_the_path_set() -> None:
    # The current standard added U+005E (^) to the path set (older wording lacked it).
    assert 0x5E in get_set("path")
    assert 0x5E not in get_set("query")
    assert 0x5E in get_set("userinfo")


def test_encode_uri_component_set_is_the_whatwg_component_set() -> None:
    # URL Standard note: UTF-8 percent-encode with the component set "gives identical
    # results to JavaScript's encodeURIComponent()".
    assert get_set("encodeURIComponent").members == get_set("component").members


def test_rfc3986_chain() -> None:
    unreserved, pchar, query = (
        get_set(n) for n in ("rfc3986-unreserved", "rfc3986-pchar", "rfc3986-query")
    )
    assert query < pchar < unreserved


def test_rfc3986_query_is_rfc2396_uric() -> None:
    # Seed 001: "the characters allowed within the query are exactly the 2396-uric
    # characters", i.e. what the data-URI recipe (encodeURI + "#") leaves alone.
    assert get_set("rfc3986-query").members == get_set("data-uri").members


def test_js_set_relations() -> None:
    encode_uri = get_set("encodeURI")
    # Seed 001: encodeURI "also encodes the square brackets []".
    assert {0x5B, 0x5D} <= encode_uri.members
    assert encode_uri < get_set("encodeURIComponent")
    assert encode_uri < get_set("data-uri") < get_set("query-value")
    assert get_set("data-uri").members - encode_uri.members == {0x23}
    assert get_set("query-value").members - encode_uri.members == {0x23, 0x26, 0x2B}


def test_space_as_plus_defaults() -> None:
    assert get_set("query-value").space_as_plus is True
    assert [n for n in EXPECTED_NAMES if get_set(n).space_as_plus] == ["query-value"]


# --- registry ---------------------------------------------------------------------------


def test_registry_names_exact_and_ordered() -> None:
    assert set_names() == EXPECTED_NAMES
    assert list(SETS) == EXPECTED_NAMES
    for name, pes in SETS.items():
        assert pes.name == name
        assert get_set(name) is pes
        assert pes.source and pes.description


def test_form_alias() -> None:
    assert ALIASES["form"] == "application/x-www-form-urlencoded"
    assert get_set("form") is SETS["application/x-www-form-urlencoded"]
    assert get_set("FORM") is get_set("form")  # aliases are case-insensitive


def test_aliases_resolve_and_never_shadow_names() -> None:
    for alias, canonical in ALIASES.items():
        assert alias == alias.lower()
        assert canonical in SETS
        assert alias not in SETS
        assert get_set(alias) is SETS[canonical]


def test_canonical_names_are_case_sensitive() -> None:
    # "encodeURIComponent" is a canonical name; "Component" is not "component".
    with pytest.raises(UnknownSetError):
        get_set("Component")


def test_get_set_passes_a_set_through() -> None:
    pes = SETS["path"]
    assert get_set(pes) is pes


@pytest.mark.parametrize("name", ["nope", "", "fragment ", "user-info", "c0 control"])
def test_unknown_set_names_the_name(name: str) -> None:
    with pytest.raises(UnknownSetError) as info:
        get_set(name)
    assert repr(name) in str(info.value)
    assert isinstance(info.value, LookupError)
    assert isinstance(info.value, PctfuzzError)


@pytest.mark.parametrize("bad", [None, 42, b"path", ["path"]])
def test_get_set_wrong_type(bad: object) -> None:
    with pytest.raises(InputTypeError, match="encode_set") as info:
        get_set(bad)  # type: ignore[arg-type]
    assert isinstance(info.value, TypeError)


def test_percent_encode_set_rejects_non_bytes() -> None:
    with pytest.raises(ValueError, match="outside 0x00-0xFF"):
        PercentEncodeSet("bad", frozenset({0x100}), "test")


def test_union_and_everything_but() -> None:
    base = PercentEncodeSet("base", frozenset({1}), "test")
    assert base.union("u", [2], source="test").members == {1, 2}
    assert PercentEncodeSet.everything_but("e", range(0x80), source="t").members == set(
        range(0x80, 0x100)
    )


# --- set specs (pctfuzz._internal.setspec) --------------------------------------------------------

# requests.utils.requote_uri quotes with this safe= when the input holds an invalid escape.
REQUESTS_SAFE = "!#$&'()*+,/:;=?@[]~"


def _ascii_raw(spec: str) -> str:
    return "".join(chr(b) for b in range(0x80) if b not in get_set(spec))


def test_spec_examples_from_the_grammar() -> None:
    encode_uri = SETS["encodeURI"]
    assert get_set("encodeURI-[]").members == encode_uri.members - {0x5B, 0x5D}
    # The same set, measured on urllib: quote(s, safe=REQUESTS_SAFE) leaves exactly these raw.
    assert _ascii_raw("encodeURI-[]") == "".join(
        chr(b) for b in range(0x80) if urllib.parse.quote(chr(b), safe=REQUESTS_SAFE) == chr(b)
    )
    assert get_set("component+~-%25").members == SETS["component"].members - {0x25} | {0x7E}
    assert get_set("path+a-a") is SETS["path"]  # left to right: added, then removed again
    assert 0x61 in get_set("path-a+a")


@pytest.mark.parametrize("safe", ["", "/", "/:@", " %+-", "\x00\x1f\x7f", REQUESTS_SAFE])
def test_urllib_safe_is_what_quote_implements(safe: str) -> None:
    pes = get_set("urllib-safe:" + "".join(f"%{ord(c):02x}" for c in safe))
    for b in range(0x100):
        encoded = urllib.parse.quote_from_bytes(bytes([b]), safe=safe) != chr(b)
        assert encoded == (b in pes), hex(b)


def test_urllib_safe_takes_the_rest_literally() -> None:
    # After the colon "+", "-" and ":" are characters, not operators.
    assert _ascii_raw("urllib-safe:+-:") == _ascii_raw("urllib-safe:%2B%2D%3A")
    assert "+" in _ascii_raw("urllib-safe:+-:") and ":" in _ascii_raw("urllib-safe:+-:")


@pytest.mark.parametrize(
    ("spec", "raw", "encoded"),
    [
        ("component-+", "+", ""),  # first character after an operator is literal
        ("rfc3986-unreserved+-", "", "-"),
        ("rfc3986-pchar++--", "-", "+"),  # "++" encodes "+", then "--" leaves "-" raw again
    ],
)
def test_literal_plus_and_minus_after_an_operator(spec: str, raw: str, encoded: str) -> None:
    for c in raw:
        assert ord(c) not in get_set(spec)
    for c in encoded:
        assert ord(c) in get_set(spec)


def test_operator_chars_are_escapes_elsewhere() -> None:
    assert get_set("component-+%2D$").members == get_set("component-%2B$").members
    assert get_set("component-+-$").members == get_set("component-%2B$").members
    assert 0x2D in get_set("rfc3986-unreserved+a%2D")


@pytest.mark.parametrize(
    ("spec", "position", "problem"),
    [
        ("component+", 10, "needs at least one character"),
        ("query-value-", 12, "needs at least one character"),
        ("component+%8", 11, "two hex digits"),
        ("component+%zz", 11, "two hex digits"),
        ("component+a%", 12, "two hex digits"),
        ("component-%80", 11, "0x80-0xFF are always encoded"),
        ("urllib-safe:/%Ff", 14, "0x80-0xFF are always encoded"),
        ("component-\u00e9", 11, "not ASCII"),
        ("component-\t", 11, "write it as %09"),
        ("nope+x", 1, "no set name"),
        ("fragment -x", 1, "no set name"),
    ],
)
def test_bad_specs_name_the_position(spec: str, position: int, problem: str) -> None:
    with pytest.raises(UnknownSetError) as info:
        get_set(spec)
    message = str(info.value)
    assert f"character {position}" in message and problem in message
    assert repr(spec) in message and "\n" not in message


EQUAL_SPECS = [
    "encodeURI-[]",
    "encodeuri-][",  # aliases are case-free; order does not matter
    "encodeURI-%5b%5D",
    "encodeURI-[-]",
    "encodeURI-[]+a-a",
    "urllib-safe:" + REQUESTS_SAFE,
]


def test_equal_sets_have_equal_canonical_specs() -> None:
    assert {canonical_spec(spec) for spec in EQUAL_SPECS} == {"encodeURI-[]"}
    assert {get_set(spec) for spec in EQUAL_SPECS} == {get_set("encodeURI-[]")}
    assert get_set("encodeURI-[]") is get_set("encodeURI-[]")  # cached
    assert canonical_spec("urllib-safe:/") == "rfc3986-unreserved-/"
    assert canonical_spec("component-%7f%20+%25") == "component-%20%7F"


def test_spec_equal_to_a_named_set_is_that_set() -> None:
    assert get_set("encodeURI+#") is SETS["rfc3986-query"]  # data-uri has the same bytes
    assert get_set("component+%25") is SETS["component"]
    assert get_set("urllib-safe:") is SETS["rfc3986-unreserved"]
    assert canonical_spec("encodeURIComponent") == "component"  # the first equal name
    assert canonical_spec(SETS["query-value"]) == "query-value"


@pytest.mark.parametrize("base", list(SETS))
def test_canonical_spec_round_trips_every_one_byte_change(base: str) -> None:
    pes = SETS[base]
    for b in range(0x80):
        members = pes.members ^ {b}
        spec = spec_for_members(members, pes.space_as_plus)
        rebuilt = get_set(spec)
        assert rebuilt.members == members and rebuilt.space_as_plus == pes.space_as_plus
        assert canonical_spec(spec) == spec == rebuilt.name
        escapes = re.findall("%..", spec)
        assert all(e == e.upper() for e in escapes) and " " not in spec


def test_space_as_plus_comes_from_the_base() -> None:
    assert get_set("query-value-#").space_as_plus
    assert percent_encode("a b#", "query-value-#") == "a+b#"
    assert not get_set("encodeURI+#&%2B").space_as_plus  # same bytes as query-value, not it
    assert get_set("encodeURI+#&%2B") is not SETS["query-value"]


def test_specs_encode_and_survive_a_case_round_trip() -> None:
    assert percent_encode("a[b] c", "encodeURI-[]") == "a[b]%20c"
    case = EncodeCase("[x]", "encodeuri-[]")
    again = case_from_json(json.loads(json.dumps(case.to_json())))
    assert again == case and again.set_name == "encodeuri-[]"
    with pytest.raises(CaseFormatError, match="character 10"):
        case_from_json({"type": "encode", "value": {"text": "x"}, "set": "component+"})


def test_spec_helpers() -> None:
    assert byte_ranges(get_set("encodeURI-[]").members) == (
        "0x00-0x20, 0x22, 0x25, 0x3C, 0x3E, 0x5C, 0x5E, 0x60, 0x7B-0x7D, 0x7F-0xFF"
    )
    assert urllib_safe_spec(get_set("urllib-safe:/%25 ").members) == "urllib-safe:%20%25/"
    assert urllib_safe_spec(get_set("rfc3986-unreserved+a").members) is None  # a always safe
    assert format_spec("path", [0x61, 0x2B], [0x20]) == "path+%2Ba-%20"
    with pytest.raises(UnknownSetError, match="0x80-0xFF"):
        spec_for_members(range(0x7F))


# --- pctfuzz sets --spec -------------------------------------------------------------------


def test_sets_spec_prints_the_members(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sets", "--spec", "encodeuri-]["]) == ExitCode.OK
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "spec: encodeURI-[]"
    printable = "".join(c for c in _ascii_raw("encodeURI-[]") if " " <= c <= "~")
    assert f"printable ASCII left raw: {printable!r}" in out
    assert f"encoded bytes: {byte_ranges(get_set('encodeURI-[]').members)}" in out
    assert "as urllib quote(safe=): urllib-safe:!#$&'()*+,/:;=?@[]" in out


def test_sets_spec_of_a_named_set(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sets", "--spec", "encodeURIComponent"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "spec: component\n" in out and "same bytes as: component, encodeURIComponent\n" in out


def test_sets_spec_bad_spec_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sets", "--spec", "encodeURI-[]+%G0"]) == ExitCode.USAGE
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and "character 14" in err and err.startswith("pctfuzz sets: error:")
