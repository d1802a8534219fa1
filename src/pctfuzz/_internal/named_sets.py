"""The named percent-encode sets, as data, derived the way the specifications derive them.

``pctfuzz._internal.sets`` is the public module: it re-exports these and adds ``get_set``, which
also resolves set specs (``pctfuzz._internal.setspec``, built on this registry).

A percent-encode set is applied to the *bytes* of the encoded input: WHATWG
"percent-encode after encoding" tests each byte's isomorphic decode (byte ``b`` ->
code point ``U+00bb``) against the set. So a set is fully described by the byte
values 0x00-0xFF it contains. Every set here contains 0x7F-0xFF, because each
one starts from "all code points greater than U+007E (~)" (WHATWG) or from
"everything that is not an allowed ASCII character" (RFC 3986, ECMA-262).

Sources:
- WHATWG URL Standard, section 1.3 "Percent-encoded bytes" (seed 000).
- RFC 3986 section 2.2 (reserved), 2.3 (unreserved), 3.3 (pchar), 3.4/3.5 (query, fragment).
- ECMA-262 sections 19.2.6.4-5 (encodeURI, encodeURIComponent: uriReserved,
  uriUnescaped, "#").
- Percent-Encoding Guide (seed 001) for the data-URI and query-value recipes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = [
    "ALIASES",
    "SETS",
    "PercentEncodeSet",
    "named_set",
    "set_names",
]

_ALL_BYTES = frozenset(range(0x100))


def _chars(*items: str | tuple[str, str]) -> frozenset[int]:
    """Code points from single characters and inclusive (first, last) ranges."""
    out: set[int] = set()
    for item in items:
        if isinstance(item, tuple):
            out.update(range(ord(item[0]), ord(item[1]) + 1))
        else:
            out.update(ord(c) for c in item)
    return frozenset(out)


@dataclass(frozen=True)
class PercentEncodeSet:
    """A named percent-encode set: the byte values that must be written as ``%HH``.

    ``space_as_plus`` is the set's *recipe* default: True only for recipes that
    write space as ``+`` (the query-value recipe). The WHATWG form-urlencoded
    set itself leaves that choice to the caller (the serializer passes true).
    """

    name: str
    members: frozenset[int]
    source: str
    space_as_plus: bool = False
    description: str = ""
    _safe: str = field(init=False, repr=False, compare=False)
    _printable_safe: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.members <= _ALL_BYTES:
            raise ValueError(f"set {self.name!r} has members outside 0x00-0xFF")
        object.__setattr__(
            self, "_safe", "".join(chr(b) for b in range(0x100) if b not in self.members)
        )
        # Computed once: adapters ask for it on every fuzzed input.
        object.__setattr__(
            self, "_printable_safe", "".join(c for c in self._safe if 0x20 <= ord(c) <= 0x7E)
        )

    def __contains__(self, byte: object) -> bool:
        return byte in self.members

    def __iter__(self) -> Iterator[int]:
        return iter(sorted(self.members))

    def __len__(self) -> int:
        return len(self.members)

    def __le__(self, other: PercentEncodeSet) -> bool:
        return self.members <= other.members

    def __lt__(self, other: PercentEncodeSet) -> bool:
        return self.members < other.members

    @property
    def safe_bytes(self) -> str:
        """Every byte value (as a latin-1 char) this set leaves as itself."""
        return self._safe

    @property
    def printable_safe(self) -> str:
        """The printable ASCII (0x20-0x7E) outside the set: urllib's ``safe=`` for it."""
        return self._printable_safe

    def union(
        self,
        name: str,
        extra: Iterable[int],
        *,
        source: str,
        space_as_plus: bool = False,
        description: str = "",
    ) -> PercentEncodeSet:
        """A new set: this one plus ``extra`` (how WHATWG defines every set after C0)."""
        return PercentEncodeSet(
            name, self.members | frozenset(extra), source, space_as_plus, description
        )

    @classmethod
    def everything_but(
        cls, name: str, allowed: Iterable[int], *, source: str, description: str = ""
    ) -> PercentEncodeSet:
        """The complement of ``allowed``: how RFC 3986 and ECMA-262 describe their sets."""
        return cls(name, _ALL_BYTES - frozenset(allowed), source, False, description)


# --- WHATWG URL Standard, 1.3 "Percent-encoded bytes" -------------------------------------
# "The C0 control percent-encode set are the C0 controls and all code points greater than
# U+007E (~)." C0 controls are U+0000 to U+001F; restricted to bytes, "greater than U+007E"
# is 0x7F-0xFF.
C0_CONTROL = PercentEncodeSet(
    "c0-control",
    frozenset(range(0x00, 0x20)) | frozenset(range(0x7F, 0x100)),
    "WHATWG URL 1.3: C0 control percent-encode set",
    description="C0 controls and everything above U+007E (~)",
)
FRAGMENT = C0_CONTROL.union(
    "fragment",
    _chars(' "<>`'),
    source="WHATWG URL 1.3: fragment percent-encode set",
    description='C0 control set + space " < > `',
)
# The query set cannot be derived from the fragment set: it omits U+0060 (`).
QUERY = C0_CONTROL.union(
    "query",
    _chars(' "#<>'),
    source="WHATWG URL 1.3: query percent-encode set",
    description='C0 control set + space " # < >',
)
SPECIAL_QUERY = QUERY.union(
    "special-query",
    _chars("'"),
    source="WHATWG URL 1.3: special-query percent-encode set",
    description="query set + '",
)
# The current standard includes U+005E (^); older wordings did not (seed 000 README).
PATH = QUERY.union(
    "path",
    _chars("?^`{}"),
    source="WHATWG URL 1.3: path percent-encode set",
    description="query set + ? ^ ` { }",
)
USERINFO = PATH.union(
    "userinfo",
    _chars("/:;=@", ("[", "]"), "|"),
    source="WHATWG URL 1.3: userinfo percent-encode set",
    description="path set + / : ; = @ [ \\ ] |",
)
COMPONENT = USERINFO.union(
    "component",
    _chars(("$", "&"), "+,"),
    source="WHATWG URL 1.3: component percent-encode set",
    description="userinfo set + $ % & + ,",
)
FORM = COMPONENT.union(
    "application/x-www-form-urlencoded",
    _chars("!", ("'", ")"), "~"),
    source="WHATWG URL 1.3: application/x-www-form-urlencoded percent-encode set",
    description="component set + ! ' ( ) ~ (all but alphanumerics * - . _)",
)

# --- RFC 3986 section 2 -------------------------------------------------------------------
ALPHA_DIGIT = _chars(("A", "Z"), ("a", "z"), ("0", "9"))
UNRESERVED = ALPHA_DIGIT | _chars("-._~")  # RFC 3986 2.3
GEN_DELIMS = _chars(":/?#[]@")  # RFC 3986 2.2
SUB_DELIMS = _chars("!$&'()*+,;=")  # RFC 3986 2.2
RESERVED = GEN_DELIMS | SUB_DELIMS  # RFC 3986 2.2
PCHAR = UNRESERVED | SUB_DELIMS | _chars(":@")  # RFC 3986 3.3 (pct-encoded aside)
QUERY_OR_FRAGMENT = PCHAR | _chars("/?")  # RFC 3986 3.4 and 3.5

RFC3986_UNRESERVED = PercentEncodeSet.everything_but(
    "rfc3986-unreserved",
    UNRESERVED,
    source="RFC 3986 2.3: everything but unreserved",
    description="everything but ALPHA DIGIT - . _ ~",
)
RFC3986_PCHAR = PercentEncodeSet.everything_but(
    "rfc3986-pchar",
    PCHAR,
    source="RFC 3986 3.3: everything but pchar (a path segment)",
    description="everything but unreserved, sub-delims, : @",
)
RFC3986_QUERY = PercentEncodeSet.everything_but(
    "rfc3986-query",
    QUERY_OR_FRAGMENT,
    source="RFC 3986 3.4/3.5: everything but query/fragment characters",
    description="everything but pchar, / ?",
)

# --- ECMA-262 19.2.6 and the recipes of seed 001 ------------------------------------------
URI_UNESCAPED = ALPHA_DIGIT | _chars("-_.!~*'()")  # ECMA-262 uriUnescaped
URI_RESERVED = _chars(";/?:@&=+$,")  # ECMA-262 uriReserved

ENCODE_URI_COMPONENT = PercentEncodeSet.everything_but(
    "encodeURIComponent",
    URI_UNESCAPED,
    source="ECMA-262 19.2.6.5 encodeURIComponent (unescaped: uriUnescaped)",
    description="everything but alphanumerics - _ . ! ~ * ' ( )",
)
ENCODE_URI = PercentEncodeSet.everything_but(
    "encodeURI",
    URI_UNESCAPED | URI_RESERVED | _chars("#"),
    source="ECMA-262 19.2.6.4 encodeURI (unescaped: uriReserved, uriUnescaped, #)",
    description="encodeURIComponent set minus ; / ? : @ & = + $ , #",
)
DATA_URI = ENCODE_URI.union(
    "data-uri",
    _chars("#"),
    source="Percent-Encoding Guide (seed 001), Data URIs: encodeURI then # -> %23",
    description="encodeURI set + #",
)
QUERY_VALUE = ENCODE_URI.union(
    "query-value",
    _chars("#&+"),
    source="Percent-Encoding Guide (seed 001), encodeQueryValue: encodeURI, #&+ encoded, %20 -> +",
    space_as_plus=True,
    description="encodeURI set + # & +, space written as +",
)

_ALL = (
    C0_CONTROL,
    FRAGMENT,
    QUERY,
    SPECIAL_QUERY,
    PATH,
    USERINFO,
    COMPONENT,
    FORM,
    RFC3986_UNRESERVED,
    RFC3986_PCHAR,
    RFC3986_QUERY,
    ENCODE_URI_COMPONENT,
    ENCODE_URI,
    DATA_URI,
    QUERY_VALUE,
)

#: name -> set, in the order the specs introduce them.
SETS: Mapping[str, PercentEncodeSet] = MappingProxyType({s.name: s for s in _ALL})

#: alias -> canonical name.
ALIASES: Mapping[str, str] = MappingProxyType(
    {
        "form": FORM.name,
        "c0": C0_CONTROL.name,
        "unreserved": RFC3986_UNRESERVED.name,
        "encodeuricomponent": ENCODE_URI_COMPONENT.name,
        "encodeuri": ENCODE_URI.name,
    }
)

#: Where one set is defined as another plus extra code points (WHATWG 1.3), child -> parent.
WHATWG_DERIVATION: Mapping[str, str] = MappingProxyType(
    {
        FRAGMENT.name: C0_CONTROL.name,
        QUERY.name: C0_CONTROL.name,
        SPECIAL_QUERY.name: QUERY.name,
        PATH.name: QUERY.name,
        USERINFO.name: PATH.name,
        COMPONENT.name: USERINFO.name,
        FORM.name: COMPONENT.name,
        DATA_URI.name: ENCODE_URI.name,
        QUERY_VALUE.name: ENCODE_URI.name,
    }
)


def set_names() -> list[str]:
    """Canonical set names in registry order."""
    return list(SETS)


def named_set(name: str) -> PercentEncodeSet | None:
    """The registered set of a canonical name (case-sensitive) or alias (any case)."""
    found = SETS.get(name)
    if found is None:
        canonical = ALIASES.get(name.lower())
        found = SETS.get(canonical) if canonical else None
    return found
