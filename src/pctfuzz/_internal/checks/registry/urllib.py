"""Built-in entries for ``urllib.parse`` (adapters ``urllib`` and ``urllib-unquote``),
with UTF-8; its legacy encodings are in ``urllib_legacy``.

Each entry cites WHATWG URL 1.3 (percent-encode, percent-decode) or 5.1/5.2 (the form
parser and serializer) and the CPython documentation or source that says why.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.registry.common import (
    REWRITE,
    WHATWG_FORM,
    WHATWG_PCT,
    add_entry,
    is_valid_utf8,
    replace_in_expected,
    str_value_with_surrogate,
)
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.oracles.urllib_parse import unquote_text, unquoted_bytes, urllib_function
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_decode
from pctfuzz._internal.sets import FORM, get_set
from pctfuzz._internal.text import has_lone_surrogate

__all__ = ["ENTRIES"]

_QUOTE_DOCS = (
    "CPython docs, urllib.parse.quote: \"Letters, digits, and the characters '_.-~' are "
    'never quoted" (changed in 3.7: RFC 3986 unreserved)'
)


# Fixed by gh-74668 (bytes with non-ASCII data in parse_qsl): 3.11.9, 3.12.3, 3.13.0.
def _parse_qsl_bytes_ascii_only() -> bool:
    v = sys.version_info
    return v < (3, 11, 9) or (3, 12) <= v < (3, 12, 3)



def _urllib_qsl_bytes(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    if not isinstance(case, FormParseCase) or not isinstance(case.text, bytes):
        return None
    if isinstance(actual.error, UnicodeDecodeError) and not case.text.isascii():
        return actual, actual
    if (
        isinstance(actual.error, UnicodeEncodeError)
        and case.text.isascii()
        and not expected.raised
        and not all(n.isascii() and v.isascii() for n, v in expected.value)
    ):
        return actual, actual
    return None


def _urllib_picks(check: str, function: str) -> Callable[[Case], bool]:
    """The default ``urllib`` adapter calls ``function`` for the case (``urllib_function``)."""

    def applies(case: Case) -> bool:
        return urllib_function(check, case) == function

    return applies


def _unquote_text_applies(case: Case) -> bool:
    if not (isinstance(case, DecodeCase) and _urllib_picks(DECODE.name, "unquote")(case)):
        return False
    value = case.value
    return (isinstance(value, str) and has_lone_surrogate(value)) or not is_valid_utf8(
        percent_decode(value))


def _unquote_keeps_surrogates(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    if not isinstance(case, DecodeCase) or not isinstance(case.value, str) or expected.raised:
        return None

    # unquote decodes only ASCII runs, so the surrogates reach its answer unchanged.
    return Outcome(percent_decode(unquoted_bytes(case.value))), actual

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_entry(
    phase=REWRITE,
    id="urllib-quote-tilde",
    impl="urllib",
    check=ENCODE.name,
    summary="quote leaves ~ unencoded; the form set encodes it",
    applies=lambda case: isinstance(case, EncodeCase) and get_set(case.set_name) is FORM,
    reconcile=replace_in_expected({"%7E": "~"}),
    reference="percent-encodes 0x7E as %7E (the application/x-www-form-urlencoded set has ~)",
    implementation="leaves ~ as is whatever safe= says",
    citation=f"{WHATWG_PCT}, form set; {_QUOTE_DOCS}",
    why="urllib's always-safe characters are RFC 3986 unreserved; ~ means the same "
    "either way, and only the form set (a browser compatibility set) encodes it",
    example=EncodeCase("~", FORM.name),
)
# Before urllib-unquote-lone-surrogate: the variant, which inherits this entry, then
# gets its own model of a kept surrogate last.
_entry(
    id="urllib-unquote-text",
    impl="urllib",
    check=DECODE.name,
    summary="unquote returns text: invalid UTF-8 becomes U+FFFD and a lone surrogate of "
    "the input is kept (cases of even length)",
    applies=_unquote_text_applies,
    reconcile=lambda case, expected, actual: (
        None if expected.raised or not isinstance(case, DecodeCase)
        else (Outcome(unquote_text(case.value)), actual)
    ),
    reference="the decoded bytes, whatever they are; a lone surrogate as U+FFFD (EF BF BD)",
    implementation="unquote(value) with its defaults (encoding='utf-8', errors='replace'): "
    "each ASCII run decoded and UTF-8 decoded with U+FFFD, non-ASCII text kept; the adapter "
    "compares the text as UTF-8 (surrogatepass)",
    citation="WHATWG URL Standard 1.3 (percent-decode a string); CPython docs "
    "urllib.parse.unquote (errors defaults to 'replace'); Lib/urllib/parse.py (_asciire)",
    why="unquote returns str by design; percent-decoding to bytes is unquote_to_bytes, "
    "which the odd-length cases test",
    example=DecodeCase("%FFa"),
)
_entry(
    phase=REWRITE,
    id="urllib-urlencode-tilde",
    impl="urllib",
    check=FORM_SERIALIZE.name,
    summary="urlencode leaves ~ unencoded; the form serializer encodes it",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=replace_in_expected({"%7E": "~"}),
    reference="writes ~ as %7E",
    implementation="writes ~ as itself (quote_plus/quote never quote it)",
    citation=f"{WHATWG_FORM}; {_QUOTE_DOCS}",
    why="same cause as urllib-quote-tilde; servers decode both forms alike",
    example=FormCase((("~", "~"),)),
)
_entry(
    id="urllib-parse-qsl-bytes-ascii-only",
    impl="urllib",
    check=FORM_PARSE.name,
    summary="parse_qsl(bytes) fails on non-ASCII input bytes or non-ASCII decoded output",
    applies=lambda case: isinstance(case, FormParseCase) and isinstance(case.text, bytes),
    reconcile=_urllib_qsl_bytes,
    reference="parses the bytes; names and values are UTF-8 decoded with U+FFFD",
    implementation="UnicodeDecodeError for non-ASCII bytes; UnicodeEncodeError when a "
    "decoded name or value is not ASCII (result coerced back with 'ascii')",
    citation="CPython docs urllib.parse, 'Parsing ASCII Encoded Bytes'; "
    "python/cpython#74668 (bpo-30483), fixed in 3.11.9, 3.12.3, 3.13",
    why="documented ASCII-only bytes support in this Python; fixed upstream, so the "
    "entry is active only on Python versions without the fix",
    example=FormParseCase(b"%C3%A9"),
    active=_parse_qsl_bytes_ascii_only,
)
_entry(
    id="urllib-unquote-lone-surrogate",
    impl="urllib-unquote",
    check=DECODE.name,
    summary="unquote passes a lone surrogate U+DC80-U+DCFF of the input through, which the "
    "adapter writes as one byte",
    applies=str_value_with_surrogate,
    reconcile=_unquote_keeps_surrogates,
    reference="U+FFFD (EF BF BD) for each lone surrogate",
    implementation="keeps it: only ASCII runs are percent-decoded (the adapter writes "
    "U+DC80-U+DCFF as the byte surrogateescape gives, others as surrogatepass bytes)",
    citation="WHATWG URL Standard 1.3 (percent-decode a string); CPython "
    "Lib/urllib/parse.py unquote (_asciire split)",
    why="Python str may hold lone surrogates; unquote leaves non-ASCII text alone by design "
    "(a kept U+D800-U+DBFF is agreement by the differential check's non-scalar policy)",
    example=DecodeCase("\udc80"),
)
_entry(
    phase=REWRITE,
    id="urllib-urlencode-quote-via-quote",
    impl="urllib-unquote",
    check=FORM_SERIALIZE.name,
    summary="urlencode(quote_via=quote) writes space as %20",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=replace_in_expected({"+": "%20"}),
    reference="space as + (spaceAsPlus is true for the serializer)",
    implementation="space as %20: quote, unlike quote_plus, has no spaceAsPlus",
    citation=f"{WHATWG_FORM}; CPython docs urlencode: quote_via defaults to quote_plus",
    why="quote_via=quote is an explicit opt-out of '+'; both decode to a space",
    example=FormCase((("a b", ""),)),
)
_entry(
    phase=REWRITE,
    id="urllib-urlencode-quote-space",
    impl="urllib",
    check=FORM_SERIALIZE.name,
    summary="urlencode(quote_via=quote) writes space as %20 (cases with an even number of "
    "pairs)",
    applies=_urllib_picks(FORM_SERIALIZE.name, "quote"),
    reconcile=replace_in_expected({"+": "%20"}),
    reference="space as + (spaceAsPlus is true for the serializer)",
    implementation="space as %20: quote, unlike quote_plus, has no spaceAsPlus",
    citation=f"{WHATWG_FORM}; CPython docs urlencode: quote_via defaults to quote_plus",
    why="quote_via=quote is an explicit opt-out of '+'; both decode to a space",
    example=FormCase((("a b", ""), ("c", ""))),
)
