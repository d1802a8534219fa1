"""Built-in entries for GLib's URI functions (adapters ``glib-uri-escape`` and
``glib-uri-params``; ``pctfuzz._internal.oracles.glib``), each cited to GLib 2.74.6's
documentation and source (``glib/guri.c``, tag 2.74.6).

The decoders are strict by design: a ``%`` without two hex digits is an error, and so
is a decoded NUL for ``g_uri_unescape_string`` and, for the form parser, a name or value
that is not UTF-8 once decoded. The form parser also refuses a parameter without
``=``. Each refusal is an entry that checks the error GLib gives (``uri_decoder``'s and
``g_uri_params_iter_next``'s messages are the library's own), so a refusal of another
kind is still a finding.
"""

from __future__ import annotations

import functools
import re

from pctfuzz._internal.accept.entry import MODEL, KnownDivergence
from pctfuzz._internal.cases import Case, DecodeCase, FormParseCase
from pctfuzz._internal.checks.registry.common import (
    WHATWG_FORM_PARSE,
    Pair,
    add_entry,
    is_valid_utf8,
)
from pctfuzz._internal.checks.registry.langs_common import has_malformed_escape, raised
from pctfuzz._internal.operations import DECODE, FORM_PARSE
from pctfuzz._internal.outcome import Outcome, Reconcile
from pctfuzz._internal.reference import percent_decode
from pctfuzz._internal.spec import HEX_PAIR

__all__ = ["ENTRIES", "iter_error"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_SRC = "GLib 2.74.6 glib/guri.c"
_DECODER = (f"{_SRC}, uri_decoder: '% followed by non-hex or the end of the string; this "
            "is an error' unless G_URI_FLAGS_PARSE_RELAXED, which g_uri_unescape_segment "
            "(under g_uri_unescape_string) and g_uri_unescape_bytes do not pass "
            "(G_URI_FLAGS_ENCODED only)")
_DECODE = "WHATWG URL Standard 1.3 (percent-decode keeps a % without two hex digits)"

_entry(
    id="glib-uri-escape-unescape-malformed",
    impl="glib-uri-escape",
    check=DECODE.name,
    summary="g_uri_unescape_string returns NULL, g_uri_unescape_bytes G_URI_ERROR_FAILED, "
    "for a % without two hex digits",
    applies=has_malformed_escape,
    reconcile=raised("NULL", "G_URI_ERROR_FAILED"),
    reference="keeps the % as it is",
    implementation="NULL (a str value) or the error 'Invalid %-encoding in URI' (bytes)",
    citation=f"{_DECODER}; GLib docs, g_uri_unescape_bytes: 'Returns: an unescaped version "
    "of escaped_string or NULL on error (if decoding failed, using G_URI_ERROR_FAILED "
    f"error code)'; {_DECODE}",
    why="a strict decoder by design: it refuses what the reference keeps",
    example=DecodeCase("%zz"),
)


def _str_with_nul_escape(case: Case) -> bool:
    # '%00' is the only escape of a NUL: '0' has no case.
    return isinstance(case, DecodeCase) and isinstance(case.value, str) and (
        "%00" in case.value)


_entry(
    id="glib-uri-escape-unescape-string-nul",
    impl="glib-uri-escape",
    check=DECODE.name,
    summary="g_uri_unescape_string returns NULL for %00 (g_uri_unescape_bytes decodes it)",
    applies=_str_with_nul_escape,
    reconcile=raised("NULL"),
    reference="the NUL byte (percent-decode, URL 1.3)",
    implementation="NULL",
    citation="GLib docs, g_uri_unescape_string: 'If any of the characters in "
    "illegal_characters or the NUL character appears as an escaped character in "
    "escaped_string, then that is an error and NULL will be returned'; "
    "g_uri_unescape_segment: 'NUL byte is not accepted in the output, in contrast to "
    f"g_uri_unescape_bytes()' ({_SRC}: memchr (unescaped, '\\0', decoded_len)); {_DECODE}",
    why="the function returns a NUL-terminated C string, which cannot hold a NUL",
    example=DecodeCase("a%00"),
)

# --- the form parser: g_uri_params_iter_next ------------------------------------------------
_MISSING_EQUALS = "Missing ‘=’ and parameter value"
_INVALID_PCT = "Invalid %-encoding in URI"
_NOT_UTF8 = "Non-UTF-8 characters in URI"
_MALFORMED = re.compile(f"%(?!{HEX_PAIR})".encode("ascii"))


def _decode_error(part: bytes) -> str | None:
    """uri_decoder's error on one name or value (www_form, strict, not
    G_URI_FLAGS_ENCODED), or None. Without a malformed escape GLib's decode is URL 1.3's
    percent-decode after '+' as a space."""
    if _MALFORMED.search(part):
        return _INVALID_PCT  # found as it scans, before the UTF-8 check of the whole
    decoded = percent_decode(part.replace(b"+", b" "))
    # g_utf8_validate with a length: FALSE for invalid UTF-8 and for any NUL byte.
    if b"\0" in decoded or not is_valid_utf8(decoded):
        return _NOT_UTF8
    return None


def iter_error(text: bytes) -> str | None:
    """The message g_uri_params_iter_next (GLib 2.74.6, separators "&",
    G_URI_PARAMS_WWW_FORM) stops with on ``text``, or None if it reads every pair: each
    parameter up to the next '&' in turn (no parameter after a final '&': the iterator
    stops at the end), its name up to the first '=', then name and value decoded."""
    params = text.split(b"&")
    if params[-1] == b"":
        params.pop()
    for param in params:
        name, equals, value = param.partition(b"=")
        if not equals:
            return _MISSING_EQUALS
        error = _decode_error(name) or _decode_error(value)
        if error is not None:
            return error
    return None


def _text_bytes(case: Case) -> bytes | None:
    if not isinstance(case, FormParseCase):
        return None
    text = case.text
    # The adapter sends a str as its UTF-8 bytes (a lone surrogate never reaches GLib).
    return text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text


def _stops_with(message: str) -> tuple[object, Reconcile]:
    """The case on which the iterator stops with ``message``, and a reconcile that takes
    exactly that error (type and message) for the whole text."""

    def applies(case: Case) -> bool:
        text = _text_bytes(case)
        return text is not None and iter_error(text) == message

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> Pair:
        error = actual.error
        if (error is not None and type(error).__name__ == "G_URI_ERROR_FAILED"
                and str(error) == message):
            return actual, actual
        return None

    return applies, reconcile


_ITER = (f"{_SRC}, g_uri_params_iter_next (g_uri_parse_params reads its pairs into a "
         "hash table, NULL and the error on failure)")
for _id, _message, _summary, _reference, _citation, _why, _example in (
    ("needs-equals", _MISSING_EQUALS,
     "g_uri_params_iter_next refuses a parameter without '=', an empty one between two "
     "'&' too",
     "a name with an empty value; empty sequences skipped",
     f"{_ITER}: no '=' before the next separator sets 'Missing ‘=’ and parameter value'; "
     "GLib docs, g_uri_parse_params: 'If params cannot be parsed (for example, it "
     "contains two separators characters in a row), then error is set and NULL is "
     "returned'",
     "documented: the functions parse 'a %-encoded string containing attribute=value "
     "parameters'; an empty parameter after the last '&' is no parameter (the iterator "
     "stops at the end)",
     FormParseCase("a&b=1")),
    ("malformed", _INVALID_PCT,
     "g_uri_params_iter_next refuses a % without two hex digits (strict unless "
     "G_URI_PARAMS_PARSE_RELAXED)",
     "keeps the % as it is",
     f"{_ITER}: uri_decode with G_URI_FLAGS_PARSE_RELAXED only if "
     "G_URI_PARAMS_PARSE_RELAXED is passed (decode_flags); guri.h, GUriParamsFlags: "
     "'G_URI_PARAMS_PARSE_RELAXED: See G_URI_FLAGS_PARSE_RELAXED'; GLib commit b654eb18 "
     "('guri: Make G_URI_FLAGS_PARSE_STRICT the default', 2.65.1: 'previously parsing param "
     "strings *always* used relaxed mode ... Now it defaults to using strict mode')",
     "strict unless asked otherwise (the peer passes G_URI_PARAMS_WWW_FORM alone); the "
     "sentence of g_uri_parse_params' documentation that says invalid %-encoding is "
     "treated as with G_URI_FLAGS_PARSE_RELAXED was only reworded by that commit, and "
     "no longer matches the code",
     FormParseCase("a=%zz")),
    ("utf8", _NOT_UTF8,
     "g_uri_params_iter_next refuses a name or value that is not UTF-8 once decoded, or "
     "holds a NUL",
     "UTF-8 decode without BOM: U+FFFD for each invalid sequence; a NUL kept",
     f"{_ITER}: uri_decoder ends with g_utf8_validate (error 'Non-UTF-8 characters in "
     "URI'), which 'returns FALSE if max_len is positive and any of the max_len bytes are "
     "nul' (GLib docs, g_utf8_validate); g_uri_parse_params: '(element-type utf8 utf8)'",
     "documented: a decoded name or value is a NUL-terminated UTF-8 string, which cannot "
     "hold other bytes",
     FormParseCase("a=%FF")),
):
    _applies, _reconcile = _stops_with(_message)
    _entry(
        id=f"glib-uri-params-{_id}",
        impl="glib-uri-params",
        check=FORM_PARSE.name,
        summary=_summary,
        applies=_applies,
        reconcile=_reconcile,
        reference=_reference,
        implementation=f"refuses the whole text: G_URI_ERROR_FAILED '{_message}'",
        citation=f"{_citation}; {WHATWG_FORM_PARSE}",
        why=_why,
        example=_example,
    )


# --- g_uri_parse_params: the iterator's pairs in a hash table -------------------------------
def _as_hash_table(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    """g_hash_table_insert of each pair in turn (a later value of a name replaces the
    earlier; names are one key when their bytes are: g_str_equal), then the table's pairs
    sorted by the names' UTF-8 bytes, as the peer answers them. Only where the iterator
    reads every pair: then each sequence has '=' and decodes to UTF-8, so the reference's
    pairs are GLib's, one for one."""
    text = _text_bytes(case)
    if text is None or iter_error(text) is not None or expected.raised:
        return None
    if not isinstance(expected.value, list):
        return None
    table: dict[bytes, tuple[str, str]] = {}
    for name, value in expected.value:
        table[name.encode("utf-8")] = (name, value)
    return Outcome([table[raw] for raw in sorted(table)]), actual


_entry(
    id="glib-uri-parse-params-hash-table",
    impl="glib-uri-parse-params",
    check=FORM_PARSE.name,
    summary="g_uri_parse_params returns a hash table: one value per name, the last",
    applies=lambda case: isinstance(case, FormParseCase),
    reconcile=_as_hash_table,
    phase=MODEL,
    reference="every pair, in order",
    implementation="a GHashTable (g_hash_table_insert of each pair: the last value of a "
    "name wins), answered as its pairs sorted by name",
    citation="GLib docs, g_uri_parse_params: 'This method can be used to parse them into a "
    "hash table. When an attribute has multiple occurrences, the last value is the final "
    "returned value. If you need to handle repeated attributes differently, use "
    f"GUriParamsIter'; {_SRC}, g_uri_parse_params (g_hash_table_insert); {WHATWG_FORM_PARSE}",
    why="documented: a hash table holds one value per name; the iterator (glib-uri-params) "
    "is the function for every pair",
    example=FormParseCase("b=1&a=2&b=3"),
)
