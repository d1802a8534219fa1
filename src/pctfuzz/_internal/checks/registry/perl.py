"""Built-in entries for Perl's URI distribution (adapters ``perl-*``;
``pctfuzz._internal.oracles.perl``), each cited to its POD (URI::Escape, URI) or source."""

from __future__ import annotations

import functools
import re

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.accept.reconcilers import left_raw
from pctfuzz._internal.cases import Case, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.registry.common import WHATWG_FORM_PARSE, WHATWG_PCT, Pair, add_entry
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.sets import get_set

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)


def _uri_escape(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return None
    if any(ord(c) > 0xFF for c in case.value):
        return (actual, actual) if actual.raised else None  # it croaks
    data = case.value.encode("latin-1")
    return Outcome(percent_encode(data, get_set(case.set_name))), actual


_entry(
    id="perl-uri-escape-characters",
    impl="perl-uri-escape",
    check="encode",
    summary="uri_escape escapes each character as one byte: U+0080-U+00FF as latin-1, and "
    "dies for a character above U+00FF",
    applies=lambda case: isinstance(case, EncodeCase) and isinstance(case.value, str)
    and not case.value.isascii(),
    reconcile=_uri_escape,
    reference="the UTF-8 bytes of the text",
    implementation="'\u00e9' -> %E9; '\u20ac' dies: Can't escape \\x{20AC}, try "
    "uri_escape_utf8() instead",
    citation="URI::Escape POD, uri_escape: 'the string ... should be a byte string ... use "
    f"uri_escape_utf8() for characters above 255'; {WHATWG_PCT}",
    why="uri_escape takes bytes by design; uri_escape_utf8 takes text",
    example=EncodeCase("\u00e9", "rfc3986-unreserved"),
)
_entry(
    id="perl-uri-query-form-raw",
    impl="perl-uri-query",
    check="form",
    summary="query_form leaves ! ' ( ) ~ raw (URI's unreserved)",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=left_raw("!'()~").reconcile,
    reference="the form set: ! ' ( ) ~ as %21 %27 %28 %29 %7E",
    implementation="! ' ( ) ~ raw, as RFC 2396 allows in a query",
    citation="URI.pm: $URI::unreserved = \"A-Za-z0-9\\-_.!~*'()\" (RFC 2396 2.3), and "
    "URI::_query query_form escapes only ;/?:@&=+,$[]% and what is not uric",
    why="both forms decode to the same pairs",
    example=FormCase((("a", "!'()~"),)),
)


def _query_form_model(text: str | bytes) -> list[tuple[str, str]]:
    """URI::_query::query_form: no '=' in the query, no form; split on & and ; (Perl's
    split drops trailing empty fields); '+' is a space."""
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    if b"=" not in data:
        return []
    fields = re.split(b"[&;]", data)
    while fields and not fields[-1]:
        fields.pop()
    pairs = []
    for field in fields:
        name, _, value = field.partition(b"=")
        pairs.append(tuple(percent_decode(p.replace(b"+", b" ")).decode("utf-8", "replace")
                           for p in (name, value)))
    return pairs  # type: ignore[return-value]


def _query_form(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if not isinstance(case, FormParseCase) or expected.raised:
        return None
    return Outcome(_query_form_model(case.text)), actual


_entry(
    id="perl-uri-query-form-parse",
    impl="perl-uri-query",
    check="form-parse",
    summary="query_form splits on ';' too, keeps empty fields but trailing ones, and reads "
    "a query without '=' as no form",
    applies=lambda case: isinstance(case, FormParseCase),
    reconcile=_query_form,
    reference="splits on '&' only, skips empty sequences",
    implementation="split(/[&;]/, $q) (Perl drops trailing empty fields); 'return unless "
    "$old =~ /=/'",
    citation="URI POD, $uri->query_form: 'the form ... separated by \"&\" or \";\"'; "
    f"URI::_query source; {WHATWG_FORM_PARSE}",
    why="RFC 1866 and HTML 4 B.2.2 recommended ';' as a separator; a parameter-cloaking "
    "risk when a front end splits on '&' only",
    example=FormParseCase("a=1;b=2"),
)
