"""Built-in entries for R's utils (adapter ``r-urlencode``; ``pctfuzz._internal.oracles.r``),
each cited to R 4.2.2's documentation (``?URLencode``, ``?rawToChar``).

``URLdecode`` reads the two characters after every ``%`` as hex digits, whatever they
are: an invalid escape becomes an arbitrary byte or is dropped (``%4g`` is ``P``), a
real bug (docs/in-the-wild.md) that no entry accepts.
"""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase
from pctfuzz._internal.checks.registry.common import WHATWG_PCT, Pair, add_entry
from pctfuzz._internal.operations import DECODE, ENCODE
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.spec import PERCENT_ENCODED_BYTE

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

#: URLencode's test of an "apparently already-encoded URL" (grepl(..., useBytes = TRUE)):
#: a %HH anywhere.
_ENCODED = PERCENT_ENCODED_BYTE


def _already_encoded(case: Case) -> bool:
    return isinstance(case, EncodeCase) and isinstance(case.value, str) and (
        _ENCODED.search(case.value) is not None)


def _returned_as_is(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return None
    return Outcome(case.value), actual


_entry(
    id="r-urlencode-repeated",
    impl="r-urlencode",
    check=ENCODE.name,
    summary="URLencode returns a value holding a %HH as it is (repeated = FALSE, the "
    "default)",
    applies=_already_encoded,
    reconcile=_returned_as_is,
    reference="percent-encodes every character of the set, '%' too ('%41' -> '%2541')",
    implementation="the value unchanged, all of it, when it holds '%' and two hex digits "
    "anywhere ('a b%41' -> 'a b%41')",
    citation="R 4.2.2 ?URLencode: 'repeated: logical: should apparently already-encoded "
    "URLs be encoded again?' and 'An apparently already-encoded URL is one containing %xx "
    f"for two hexadecimal digits'; {WHATWG_PCT}",
    why="documented: URLencode takes a whole URL, and by default does not encode one that "
    "looks encoded; URLencode(x, repeated = TRUE) encodes",
    example=EncodeCase("a b%41", "rfc3986-unreserved"),
)


def _has_nul_escape(case: Case) -> bool:
    return isinstance(case, DecodeCase) and isinstance(case.value, str) and (
        "%00" in case.value)


def _nul_dropped_or_refused(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    """rawToChar: trailing NULs are removed, an embedded one is an error."""
    if expected.raised or not isinstance(expected.value, bytes) or b"\0" not in expected.value:
        return None
    head = expected.value.rstrip(b"\0")
    if b"\0" in head:
        if actual.error is not None and "embedded nul" in str(actual.error):
            return actual, actual
        return None
    return Outcome(head), actual


_entry(
    id="r-urlencode-urldecode-nul",
    impl="r-urlencode",
    check=DECODE.name,
    summary="URLdecode drops a %00 at the end and refuses one before other bytes",
    applies=_has_nul_escape,
    reconcile=_nul_dropped_or_refused,
    reference="the NUL byte (percent-decode, URL 1.3)",
    implementation="trailing NULs removed ('a%00' -> 'a'); an embedded one raises 'embedded "
    "nul in string'",
    citation="R 4.2.2 ?rawToChar (URLdecode ends with rawToChar(out)): 'only trailing "
    "nulls are allowed and will be removed'; ?Quotes: 'Embedded nuls are not allowed in "
    "character strings'; WHATWG URL Standard 1.3 (percent-decode)",
    why="an R string cannot hold a NUL: the decoded text cannot be returned as it is",
    example=DecodeCase("a%00"),
)
