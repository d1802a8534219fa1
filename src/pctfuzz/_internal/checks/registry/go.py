"""Built-in entries for Go's net/url (adapters ``go-*``, ``pctfuzz._internal.oracles.go``), each
cited to the package documentation (pkg.go.dev/net/url, go1.19) or its source."""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import MODEL, KnownDivergence
from pctfuzz._internal.accept.reconcilers import (
    cut_at,
    encoded,
    left_raw,
    pairs_order,
    plus_as_space,
)
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.registry.common import (
    WHATWG_FORM,
    WHATWG_FORM_PARSE,
    WHATWG_PCT,
    Pair,
    add_entry,
)
from pctfuzz._internal.checks.registry.langs_common import (
    contains,
    has_malformed_escape,
    raised,
)
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.outcome import Outcome

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
        check=DECODE.name,
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

_PLUS = plus_as_space()
_entry(
    id="go-queryunescape-plus",
    impl="go-queryescape",
    check=DECODE.name,
    summary="QueryUnescape decodes '+' as a space",
    applies=lambda case: contains(case, "+"),
    reconcile=_PLUS.reconcile,
    model=_PLUS.model,  # a model field: it composes with the other decode entries
    phase=MODEL,
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
    check=ENCODE.name,
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
_SORTED = pairs_order("sorted")
_entry(
    id="go-values-encode-sorted",
    impl="go-values",
    check=FORM_SERIALIZE.name,
    summary="Values.Encode writes the pairs sorted by name (a map holds them)",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=_SORTED.reconcile,
    model=_SORTED.model,
    reference="the pairs in list order",
    implementation="sorted by name, each name's values in order",
    citation=f"{_VALUES}; {WHATWG_FORM}",
    why="url.Values is a map[string][]string: it has no order but the sort",
    example=FormCase((("b", "1"), ("a", "2"))),
    phase=MODEL,
)
# QueryEscape's set is two rules of the catalogue (a character left raw, one encoded):
# two entries, so each names the one finding a --no-accepted campaign gives it.
_TILDE, _STAR = left_raw("~"), encoded("*")
_entry(
    id="go-values-encode-tilde",
    impl="go-values",
    check=FORM_SERIALIZE.name,
    summary="Values.Encode escapes with QueryEscape: '~' raw",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=_TILDE.reconcile,
    model=_TILDE.model,
    reference="the form set: '~' as %7E",
    implementation="QueryEscape's set, RFC 3986 unreserved: '~' raw",
    citation=f"{_VALUES}; Go docs QueryEscape; {WHATWG_FORM}",
    why="both forms decode to the same pairs",
    example=FormCase((("a", "~"),)),
    phase=MODEL,
)
_entry(
    id="go-values-encode-star",
    impl="go-values",
    check=FORM_SERIALIZE.name,
    summary="Values.Encode escapes with QueryEscape: '*' as %2A",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=_STAR.reconcile,
    model=_STAR.model,
    reference="the form set: '*' raw",
    implementation="QueryEscape's set, RFC 3986 unreserved: '*' as %2A",
    citation=f"{_VALUES}; Go docs QueryEscape; {WHATWG_FORM}",
    why="both forms decode to the same pairs",
    example=FormCase((("a", "*"),)),
    phase=MODEL,
)
_SORTED_BYTES = pairs_order("sorted-bytes")
_entry(
    id="go-parsequery-sorted",
    impl="go-values",
    check=FORM_PARSE.name,
    summary="ParseQuery returns a map: its pairs are answered sorted by name (its bytes)",
    applies=lambda case: isinstance(case, FormParseCase),
    reconcile=_SORTED_BYTES.reconcile,
    model=_SORTED_BYTES.model,
    reference="the pairs in text order",
    implementation="url.Values (a map), read out sorted by the names' bytes (%80 before "
    "%C3%A9, though U+FFFD sorts after U+00E9)",
    citation=f"Go net/url docs, ParseQuery: 'returns a map listing the values specified for "
    f"each key'; Go sort.Strings (byte-wise); {WHATWG_FORM_PARSE}",
    why="a map has no order; the names' values keep theirs",
    example=FormParseCase("b=1&a=2"),
    phase=MODEL,
)
_PARSE_QUERY_ERROR = ("Go net/url docs, ParseQuery: 'ParseQuery always returns a non-nil map "
                      "containing all the valid query parameters found; err describes the "
                      "first decoding error encountered, if any'")
_entry(
    id="go-parsequery-malformed",
    impl="go-values",
    check=FORM_PARSE.name,
    summary="ParseQuery returns an EscapeError for a % without two hex digits",
    applies=has_malformed_escape,
    reconcile=raised("EscapeError"),
    reference="keeps a lone % (URL 1.3 percent-decode)",
    implementation="returns the first error (and the pairs it could parse, which callers "
    "checking err do not use)",
    citation=f"{_PARSE_QUERY_ERROR}; {_UNESCAPE}; {_DECODE}",
    why="a strict decoder by design: it refuses what the reference keeps",
    example=FormParseCase("a=%"),
)
_entry(
    id="go-parsequery-semicolon",
    impl="go-values",
    check=FORM_PARSE.name,
    summary="ParseQuery returns an error for a ';'",
    applies=lambda case: contains(case, ";"),
    reconcile=raised("error"),
    reference="';' is data (URL 5.1 splits on '&' only)",
    implementation="returns the error 'invalid semicolon separator in query'",
    citation=f"{_PARSE_QUERY_ERROR}; Go 1.17 release notes (semicolons are rejected)",
    why="Go refuses ';' since 1.17 against parameter cloaking (golang/go#25192)",
    example=FormParseCase("a;b"),
)


# --- go-url-query: url.Parse("http://h/?" + v).RawQuery ----------------------------------
_RAW_QUERY = ("Go net/url docs, URL: 'RawQuery string // encoded query values, without "
              "'?'' (Parse stores the query as written)")


def _query_text(case: Case) -> str | bytes | None:
    return case.value if isinstance(case, EncodeCase) else None


def _has_control(case: Case) -> bool:
    value = _query_text(case)
    data = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
    return data is not None and any(b < 0x20 or b == 0x7F for b in data)


def _fragment_malformed(case: Case) -> bool:
    """What follows the first '#', the fragment Parse reads, has a '%' without two hex
    digits."""
    value = _query_text(case)
    if value is None or not contains(case, "#"):
        return False
    sep = "#" if isinstance(value, str) else b"#"
    return has_malformed_escape(EncodeCase(value.partition(sep)[2], "c0-control"))  # type: ignore[arg-type]


_CUT_AT_HASH = cut_at("#")


def _non_ascii_raw(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    """The reference's answer with each percent-encoded non-ASCII character written as
    the value has it: the value itself, since c0-control encodes nothing else that
    Parse accepts (a control is refused), cut at '#' as Parse cuts it."""
    value = _query_text(case)
    if expected.raised or not isinstance(value, str) or value.isascii():
        return None
    return Outcome(value.partition("#")[0]), actual


_entry(
    id="go-url-query-control",
    impl="go-url-query",
    check=ENCODE.name,
    summary="Parse refuses a query with an ASCII control character",
    applies=_has_control,
    reconcile=raised("Error"),
    reference="percent-encodes it (C0 control set)",
    implementation="returns *url.Error 'net/url: invalid control character in URL'",
    citation="Go net/url/url.go parse: 'if stringContainsCTLByte(rawURL) { return nil, "
    "errors.New(\"net/url: invalid control character in URL\") }' (go.dev/issue/27302); "
    + WHATWG_PCT,
    why="Parse refuses control characters by design (request smuggling, CVE-2019-9741)",
    example=EncodeCase("a\nb", "c0-control"),
)
_entry(
    id="go-url-query-hash",
    impl="go-url-query",
    check=ENCODE.name,
    summary="'#' ends the query: Parse reads what follows as the fragment",
    applies=lambda case: contains(case, "#") and not _fragment_malformed(case),
    reconcile=_CUT_AT_HASH.reconcile,
    model=_CUT_AT_HASH.model,
    reference="'#' raw inside the query (not in the c0-control set)",
    implementation="the query up to the first '#' (cut_at)",
    citation=f"{_RAW_QUERY}; RFC 3986 3.4 (the query is terminated by '#')",
    why="RawQuery is the query Parse found: a '#' in the text starts the fragment",
    example=EncodeCase("a#b", "c0-control"),
    phase=MODEL,
)
_entry(
    id="go-url-query-fragment-escape",
    impl="go-url-query",
    check=ENCODE.name,
    summary="Parse refuses a fragment (after the first '#') with a malformed escape",
    applies=_fragment_malformed,
    reconcile=raised("Error"),
    reference="'#' and '%' raw (not in the c0-control set)",
    implementation="*url.Error 'invalid URL escape'",
    citation="Go net/url/url.go setFragment: unescape(f, encodeFragment) returns an "
    "EscapeError; RFC 3986 3.5",
    why="the text after '#' is the fragment, which Parse unescapes to check it",
    example=EncodeCase("a#%zz", "c0-control"),
)
_entry(
    id="go-url-query-non-ascii",
    impl="go-url-query",
    check=ENCODE.name,
    summary="RawQuery keeps non-ASCII characters as written (UTF-8), unescaped",
    applies=lambda case: isinstance(case, EncodeCase) and isinstance(case.value, str)
    and not case.value.isascii(),
    reconcile=_non_ascii_raw,
    reference="percent-encodes their UTF-8 bytes",
    implementation="the characters as they are",
    citation=f"{_RAW_QUERY}; {WHATWG_PCT}",
    why="Parse validates only control characters and escapes nothing in the query; "
    "URL.String writes RawQuery back as it is",
    example=EncodeCase("\u00e9", "c0-control"),
    phase=MODEL,  # after the composed model (the cut at '#'), whose answer it replaces
)
