"""Built-in entries for Go's net/url (adapters ``go-*``, ``pctfuzz.oracles.go``), each
cited to the package documentation (pkg.go.dev/net/url, go1.19) or its source."""

from __future__ import annotations

import functools

from pctfuzz.accept.entry import KnownDivergence
from pctfuzz.accept.reconcilers import pairs_order
from pctfuzz.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz.checks.registry.common import (
    REPLACE,
    REWRITE,
    WHATWG_FORM,
    WHATWG_FORM_PARSE,
    Pair,
    add_entry,
    replace_in_expected,
)
from pctfuzz.checks.registry.langs_common import (
    contains,
    has_malformed_escape,
    plus_as_space,
    raised,
)
from pctfuzz.outcome import Outcome
from pctfuzz.reference import percent_decode

__all__ = ["ENTRIES"]

_UNESCAPE = ("Go net/url docs: QueryUnescape and PathUnescape return an error 'if any % is "
             "not followed by two hexadecimal digits'")
_DECODE = "WHATWG URL Standard 1.3 (percent-decode keeps a % without two hex digits)"
_VALUES = ("Go net/url docs, Values.Encode: 'encodes the values into URL encoded form "
           "(\"bar=baz&foo=quux\") sorted by key', each with QueryEscape")

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

for _impl in ("go-queryescape", "go-pathescape"):
    _entry(
        id=f"{_impl}-unescape-malformed",
        impl=_impl,
        check="decode",
        summary="QueryUnescape/PathUnescape return an EscapeError for a % without two hex "
        "digits",
        applies=has_malformed_escape,
        reconcile=raised("EscapeError"),
        reference="keeps the % as it is",
        implementation="returns url.EscapeError",
        citation=f"{_UNESCAPE}; {_DECODE}",
        why="a strict decoder by design: it refuses what the reference keeps",
        example=DecodeCase("%"),
    )

_entry(
    id="go-queryunescape-plus",
    impl="go-queryescape",
    check="decode",
    summary="QueryUnescape decodes '+' as a space",
    applies=lambda case: contains(case, "+"),
    reconcile=plus_as_space,
    reference="keeps '+' (percent-decode, URL 1.3)",
    implementation="'+' is a space, then percent-decodes",
    citation="Go net/url docs, QueryUnescape: 'converting each 3-byte encoded substring of "
    "the form \"%AB\" into the hex-decoded byte 0xAB ... and '+' into ' ' (space)'",
    why="QueryUnescape decodes a query component (form encoding), as URL 5.1 does",
    example=DecodeCase("+"),
)


def _star_path(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if actual.value == "*" and not actual.raised:
        return actual, actual
    return None


_entry(
    id="go-url-path-star",
    impl="go-url-path",
    check="encode",
    summary="EscapedPath returns the path \"*\" unescaped",
    applies=lambda case: isinstance(case, EncodeCase) and case.value in ("*", b"*"),
    reconcile=_star_path,
    reference="%2A ('*' is in the set)",
    implementation="'*' (the asterisk request-target)",
    citation="Go net/url/url.go EscapedPath: 'if u.Path == \"*\" { return \"*\" // don't "
    "escape (Issue 11202)' ; RFC 7230 5.3.4 (asterisk-form)",
    why="the OPTIONS * request-target is kept as it is; any other path with '*' is encoded",
    example=EncodeCase("*", "rfc3986-pchar+!'()*-/"),
)
_entry(
    id="go-values-encode-sorted",
    impl="go-values",
    check="form",
    summary="Values.Encode writes the pairs sorted by name (a map holds them)",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=pairs_order("sorted").reconcile,
    reference="the pairs in list order",
    implementation="sorted by name, each name's values in order",
    citation=f"{_VALUES}; {WHATWG_FORM}",
    why="url.Values is a map[string][]string: it has no order but the sort",
    example=FormCase((("b", "1"), ("a", "2"))),
    phase=REPLACE,
)
_entry(
    id="go-values-encode-queryescape",
    impl="go-values",
    check="form",
    summary="Values.Encode escapes with QueryEscape: '~' raw, '*' as %2A",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=replace_in_expected({"%7E": "~", "*": "%2A"}),
    reference="the form set: '*' raw, '~' as %7E",
    implementation="QueryEscape's set, RFC 3986 unreserved: '~' raw, '*' as %2A",
    citation=f"{_VALUES}; Go docs QueryEscape; {WHATWG_FORM}",
    why="both forms decode to the same pairs",
    example=FormCase((("a", "~*"),)),
    phase=REWRITE,
)
def _sorted_by_bytes(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    """URL 5.1's pairs, stably sorted by the decoded name's bytes (Go sorts its map's
    string keys, which are bytes, before UTF-8 decoding makes them text)."""
    if not isinstance(case, FormParseCase) or expected.raised:
        return None
    text = case.text
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    pairs = []
    for sequence in data.split(b"&"):
        if sequence:
            name, _, value = sequence.partition(b"=")
            pairs.append(tuple(percent_decode(p.replace(b"+", b" ")) for p in (name, value)))
    pairs.sort(key=lambda p: p[0])
    return Outcome([(n.decode("utf-8", "replace"), v.decode("utf-8", "replace"))
                    for n, v in pairs]), actual


_entry(
    id="go-parsequery-sorted",
    impl="go-values",
    check="form-parse",
    summary="ParseQuery returns a map: its pairs are answered sorted by name (its bytes)",
    applies=lambda case: isinstance(case, FormParseCase),
    reconcile=_sorted_by_bytes,
    reference="the pairs in text order",
    implementation="url.Values (a map), read out sorted by name",
    citation=f"Go net/url docs, ParseQuery: 'returns a map listing the values specified for "
    f"each key'; {WHATWG_FORM_PARSE}",
    why="a map has no order; the names' values keep theirs",
    example=FormParseCase("b=1&a=2"),
)
_entry(
    id="go-parsequery-errors",
    impl="go-values",
    check="form-parse",
    summary="ParseQuery returns an error for a ';' or a % without two hex digits",
    applies=lambda case: has_malformed_escape(case) or contains(case, ";"),
    reconcile=raised("EscapeError", "error"),
    reference="parses every sequence (';' is data; a lone % is kept)",
    implementation="returns the first error (and the pairs it could parse, which callers "
    "checking err do not use)",
    citation="Go net/url docs, ParseQuery: 'ParseQuery always returns a non-nil map "
    "containing all the valid query parameters found; err describes the first decoding "
    "error encountered, if any'; Go 1.17 release notes (semicolons are rejected)",
    why="Go refuses ';' since 1.17 against parameter cloaking (golang/go#25192)",
    example=FormParseCase("a;b"),
)
