"""Built-in entries for OTP's ``uri_string`` (adapters ``erlang-uri-string*``;
``pctfuzz._internal.oracles.erlang``), each cited to the OTP 25 reference manual of
``uri_string`` or its source (``lib/stdlib/src/uri_string.erl``, OTP 25.2.3).

``unquote/1`` of a binary with an invalid escape or invalid UTF-8 raises an uncaught
``throw`` where the same input as a list returns ``{error, Reason, Term}``: a real bug
(erlang/otp#11654, docs/in-the-wild.md) that no entry accepts.
"""

from __future__ import annotations

import functools
import re

from pctfuzz._internal.accept.entry import MODEL, KnownDivergence
from pctfuzz._internal.accept.reconcilers import empty_pairs, left_raw, refuses
from pctfuzz._internal.cases import Case, EncodeCase, FormParseCase
from pctfuzz._internal.checks.registry.common import (
    WHATWG_FORM_PARSE,
    WHATWG_PCT,
    Pair,
    add_entry,
    is_valid_utf8,
)
from pctfuzz._internal.operations import ENCODE, FORM_PARSE
from pctfuzz._internal.outcome import Outcome

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_SRC = "uri_string.erl (OTP 25.2.3)"


def _not_utf8_bytes(case: Case) -> bool:
    return isinstance(case, EncodeCase) and isinstance(case.value, bytes) and (
        not is_valid_utf8(case.value))


def _raised(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    return (actual, actual) if actual.raised and not expected.raised else None


for _impl, _what, _how, _example_set in (
    ("erlang-uri-string", "quote/1,2", "throws {error, invalid_input, Rest} (encode/3)",
     "rfc3986-unreserved"),
    ("erlang-uri-string-recompose", "recompose/1",
     "returns {error, invalid_input, Rest} (encode/3's throw, caught by recompose/1)",
     "rfc3986-pchar-/"),
):
    _entry(
        id=f"{_impl}-not-utf8",
        impl=_impl,
        check=ENCODE.name,
        summary=f"{_what} refuses bytes that are not UTF-8",
        applies=_not_utf8_bytes,
        reconcile=_raised,
        reference="percent-encodes each byte",
        implementation=f"{_how} at the first byte that is no UTF-8",
        citation=f"uri_string reference manual, {_what}: the data is unicode:chardata(), "
        f"whose binaries are UTF-8 (unicode:unicode_binary()); {_SRC}: "
        f"encode(<<Char/utf8, Rest/binary>>, ...) then "
        f"encode(<<Char, Rest/binary>>, ...) -> throw({{error, invalid_input, ...}}); "
        f"{WHATWG_PCT}",
        why="bytes that are not UTF-8 are outside the function's type (characters, not "
        "bytes): refused, never encoded wrongly",
        example=EncodeCase(b"\xff", _example_set),
    )

_PCT = left_raw("%")
_entry(
    id="erlang-uri-string-recompose-percent",
    impl="erlang-uri-string-recompose",
    check=ENCODE.name,
    summary="recompose/1 leaves '%' raw: a uri_map()'s components are percent-encoded "
    "already",
    applies=lambda case: isinstance(case, EncodeCase),
    reconcile=_PCT.reconcile,
    model=_PCT.model,
    phase=MODEL,
    reference="'%' as %25 (in the set)",
    implementation="'%' raw, so an existing %HH stays that escape and a '%zz' stays too",
    citation="uri_string reference manual, recompose/1: 'Creates an RFC 3986 compliant "
    "URIString (percent-encoded), based on the components of URIMap'; parse/1 returns "
    "the components still percent-encoded (percent_decode/1 decodes them); "
    f"{_SRC}: is_pchar($%) -> true and is_userinfo($%) -> true; RFC 3986 2.4 (a URI is "
    f"not percent-encoded twice); {WHATWG_PCT}",
    why="recompose/1 is the inverse of parse/1 and takes components as parse/1 gives "
    "them, encoded: their escapes are kept, and what is not allowed in the component is "
    "encoded",
    example=EncodeCase("a%41", "rfc3986-pchar-/"),
)

_DISSECT = ("uri_string reference manual, dissect_query/1: returns a QueryList or error() "
            "('Dissects an urlencoded QueryString'), and its example decodes "
            "'city=%26%2326481%3B%26%2320140%3B' to the characters 26481 and 20140; "
            "erlang/otp#1631 (compose_query/2 with {encoding, latin1} writes a character "
            "above 255 as '&#N;', dissect_query/1 reads it back); "
            f"{_SRC}: form_urldecode/2 then base10_decode/1; {WHATWG_FORM_PARSE}")
_NCR = re.compile("&#([0-9]*);")
_NCR_START = "&#"


def _decode_ncrs(text: str) -> str | None:
    """base10_decode/1: each '&#' then decimal digits then ';' is that code point
    (no digits: 0); None when an '&#' is not so (the function returns an error)."""
    out, pos = [], 0
    while (start := text.find(_NCR_START, pos)) >= 0:
        match = _NCR.match(text, start)
        if match is None:
            return None
        code = int(match.group(1) or "0")
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return None
        out.append(text[pos:start] + chr(code))
        pos = match.end()
    return "".join(out) + text[pos:]


def _has_ncr_start(case: Case) -> bool:
    if not isinstance(case, FormParseCase):
        return False
    text = case.text if isinstance(case.text, str) else case.text.decode("latin-1")
    # '&#' as given, or once percent-decoded ('%26%23', '%26#', '&%23').
    return re.search("(&|%26)(#|%23)", text, re.IGNORECASE) is not None


def _ncrs_decoded(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if expected.raised or not isinstance(expected.value, list):
        return None
    pairs = []
    for name, value in expected.value:
        decoded = (_decode_ncrs(name), _decode_ncrs(value))
        if decoded[0] is None or decoded[1] is None:
            # An '&#' that is no character reference: an error tuple (invalid_input).
            if actual.raised and type(actual.error).__name__ == "invalid_input":
                return actual, actual
            return None
        pairs.append(decoded)
    return Outcome(pairs), actual


_entry(
    id="erlang-uri-string-query-ncr",
    impl="erlang-uri-string-query",
    check=FORM_PARSE.name,
    summary="dissect_query/1 decodes an HTML character reference '&#N;' in a decoded "
    "name or value",
    applies=_has_ncr_start,
    reconcile=_ncrs_decoded,
    phase=MODEL,
    reference="'%26%2365%3B' is the text '&#65;'",
    implementation="'%26%2365%3B' is 'A'; an '&#' not followed by digits and ';' is the "
    "error {error, invalid_input, _}",
    citation=_DISSECT,
    why="documented: dissect_query/1 reads back what compose_query/2 writes for a "
    "character its encoding lacks (the HTML Standard's form submission does so for a "
    "legacy encoding)",
    example=FormParseCase("a=%26%2365%3B"),
)

for _id, _reconciler, _summary, _reference, _implementation, _why, _example in (
    ("empty", empty_pairs("kept"),
     "dissect_query/1 reads an empty sequence between '&' as the pair ('', true)",
     "skips empty sequences (URL 5.1 step 3.1)",
     "a pair ('', true) for each: dissect_query_key/5 ends a pair at every '&'",
     "a harmless extra empty pair (compose_query/1 writes {<<>>, true} back as nothing)",
     "&a=1"),
    ("invalid-percent", refuses("invalid-percent"),
     "dissect_query/1 returns {error, invalid_percent_encoding, _} for a '%' and two "
     "characters that are no hex digits",
     "keeps the '%' and what follows as data (URL 1.3, percent-decode)",
     "{error, invalid_percent_encoding, Rest} (a '%' at the end, or before one character, "
     "is kept)",
     "documented: an error() for an input that is no urlencoded query", "a=%zz"),
    ("invalid-utf8", refuses("invalid-utf8"),
     "dissect_query/1 returns an error for text or decoded bytes that are not UTF-8",
     "UTF-8 decodes without BOM, each invalid sequence U+FFFD (URL 5.1 step 3.5)",
     "{error, invalid_character, _} (the text) or {error, invalid_input, _} (its decoded "
     "bytes)",
     "documented: an error() for an input that is no urlencoded query", "a=%FF"),
):
    _entry(
        id=f"erlang-uri-string-query-{_id}",
        impl="erlang-uri-string-query",
        check=FORM_PARSE.name,
        summary=_summary,
        applies=lambda case: isinstance(case, FormParseCase),
        reconcile=_reconciler.reconcile,
        model=_reconciler.model,
        phase=_reconciler.phase,
        reference=_reference,
        implementation=_implementation,
        citation=_DISSECT,
        why=_why,
        example=FormParseCase(_example),
    )
