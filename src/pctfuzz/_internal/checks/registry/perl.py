"""Built-in entries for Perl's URI distribution (adapters ``perl-*``;
``pctfuzz._internal.oracles.perl``), each cited to its POD (URI::Escape, URI) or source."""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import MODEL, KnownDivergence
from pctfuzz._internal.accept.reconcilers import (
    empty_pairs,
    left_raw,
    needs_equals,
    semicolon_separates,
)
from pctfuzz._internal.cases import Case, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.registry.common import WHATWG_FORM_PARSE, WHATWG_PCT, Pair, add_entry
from pctfuzz._internal.operations import ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import get_set

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)


def _latin1(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return None
    return Outcome(percent_encode(case.value.encode("latin-1"), get_set(case.set_name))), actual


def _dies(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    return (actual, actual) if actual.raised and type(actual.error).__name__ == "die" else None


_URI_ESCAPE = ("URI::Escape POD, uri_escape: 'the string ... should be a byte string ... use "
               f"uri_escape_utf8() for characters above 255'; {WHATWG_PCT}")
# Two entries (one behaviour each, as a --no-accepted campaign finds them): a character
# is one byte, and a character that is no byte dies.
_entry(
    id="perl-uri-escape-latin1",
    impl="perl-uri-escape",
    check=ENCODE.name,
    summary="uri_escape escapes each character U+0080-U+00FF as one byte (latin-1)",
    applies=lambda case: isinstance(case, EncodeCase) and isinstance(case.value, str)
    and not case.value.isascii() and all(ord(c) <= 0xFF for c in case.value),
    reconcile=_latin1,
    reference="the UTF-8 bytes of the text",
    implementation="'\u00e9' -> %E9 (the character's code point as a byte)",
    citation=_URI_ESCAPE,
    why="uri_escape takes bytes by design; uri_escape_utf8 takes text",
    example=EncodeCase("\u00e9", "rfc3986-unreserved"),
)
_entry(
    id="perl-uri-escape-wide",
    impl="perl-uri-escape",
    check=ENCODE.name,
    summary="uri_escape dies for a character above U+00FF",
    applies=lambda case: isinstance(case, EncodeCase) and isinstance(case.value, str)
    and any(ord(c) > 0xFF for c in case.value),
    reconcile=_dies,
    reference="the UTF-8 bytes of the text",
    implementation="dies: Can't escape \\x{20AC}, try uri_escape_utf8() instead",
    citation=_URI_ESCAPE,
    why="uri_escape takes bytes by design; uri_escape_utf8 takes text",
    example=EncodeCase("\u20ac", "rfc3986-unreserved"),
)
_entry(
    id="perl-uri-query-form-raw",
    impl="perl-uri-query",
    check=FORM_SERIALIZE.name,
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


# query_form's parser is three rules of the catalogue (split(/[&;]/, $q), which drops
# trailing empty fields, after 'return unless $old =~ /=/'): three entries, each naming
# the one finding a --no-accepted campaign gives it; their models compose.
_QUERY_FORM = f"URI POD, $uri->query_form; URI::_query source; {WHATWG_FORM_PARSE}"
for _id, _reconciler, _summary, _reference, _implementation, _why, _example in (
    ("perl-uri-query-semicolon", semicolon_separates(),
     "query_form splits the query on ';' too", "splits on '&' only",
     "split(/[&;]/, $q): 'the form ... separated by \"&\" or \";\"'",
     "RFC 1866 and HTML 4 B.2.2 recommended ';' as a separator; a parameter-cloaking risk "
     "when a front end splits on '&' only", "a=1;b=2"),
    ("perl-uri-query-empty", empty_pairs("kept-but-trailing"),
     "query_form keeps an empty field as the pair ('', ''), but those at the end",
     "skips empty sequences (URL 5.1 step 3.1)",
     "Perl's split drops trailing empty fields, keeps the others", "a harmless extra empty "
     "pair", "&a=1"),
    ("perl-uri-query-needs-equals", needs_equals(),
     "query_form reads a query without '=' as no form", "'a' is the pair ('a', '')",
     "'return unless $old =~ /=/' (no pairs)", "a keyword query (isindex) is not a form",
     "a"),
):
    _entry(
        id=_id,
        impl="perl-uri-query",
        check=FORM_PARSE.name,
        summary=_summary,
        applies=lambda case: isinstance(case, FormParseCase),
        reconcile=_reconciler.reconcile,
        model=_reconciler.model,
        reference=_reference,
        implementation=_implementation,
        citation=_QUERY_FORM,
        why=_why,
        example=FormParseCase(_example),
        phase=MODEL,
    )
