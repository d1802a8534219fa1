"""The percent-encode sets: exact membership, derivation hierarchy, registry.

Each set's printable-ASCII membership is spelled out here as a string copied from the
spec text (WHATWG URL 1.3, RFC 3986 2.2/2.3/3.3/3.4, ECMA-262 19.2.6), independently of
how ``pctfuzz.sets`` builds it.
"""

from __future__ import annotations

import string

import pytest

from pctfuzz.errors import InputTypeError, PctfuzzError, UnknownSetError
from pctfuzz.sets import ALIASES, SETS, WHATWG_DERIVATION, PercentEncodeSet, get_set, set_names

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
