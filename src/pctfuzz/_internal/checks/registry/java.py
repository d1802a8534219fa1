"""Built-in entries for Java's java.net (adapters ``java-urlencoder``, ``java-uri``;
``pctfuzz._internal.oracles.java``), each cited to the Java SE 17 API documentation."""

from __future__ import annotations

import functools
import unicodedata

from pctfuzz._internal.accept.entry import MODEL, KnownDivergence
from pctfuzz._internal.accept.reconcilers import (
    plus_as_space,
    replacement,
    unmappable_replaced,
    whole_characters,
)
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase
from pctfuzz._internal.checks.registry.common import WHATWG_PCT, Pair, add_entry
from pctfuzz._internal.checks.registry.langs_common import has_malformed_escape, raised
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.operations import DECODE, ENCODE
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import FORM, get_set
from pctfuzz._internal.text import has_lone_surrogate

__all__ = ["ENTRIES"]

_GET_BYTES = ("Java SE 17 API, URLEncoder.encode(String, Charset): 'uses the supplied charset "
              "to obtain the bytes for unsafe characters'; String.getBytes(Charset): 'always "
              "replaces malformed-input and unmappable-character sequences with this "
              "charset's default replacement byte array' ('?'); JDK-8316734 "
              "(openjdk/jdk#16709) made URLEncoder's own Javadoc say so")
#: WHATWG encoding name -> the Python codec of the Java charset of the same name.
_CODECS = {"UTF-8": "utf-8", "windows-1252": "cp1252", "Shift_JIS": "shift_jis"}

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)


def _unmappable(case: Case) -> bool:
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return False
    if has_lone_surrogate(case.value):
        return True
    codec = _CODECS.get(lookup(case.encoding).name)
    return codec is not None and codec != "utf-8"


# Two entries (one rule each, as a --no-accepted campaign names them), both model
# fields, so they compose: '?' for what the charset cannot encode, and every byte of a
# character as %XY.
_REPLACED = unmappable_replaced()
_WHOLE = whole_characters()
_entry(
    id="java-urlencoder-replacement-byte",
    impl="java-urlencoder",
    check=ENCODE.name,
    summary="URLEncoder writes '?' (%3F) for a character its charset cannot encode and for a "
    "lone surrogate",
    applies=_unmappable,
    reconcile=_REPLACED.reconcile,
    model=_REPLACED.model,
    phase=MODEL,
    reference="refuses a lone surrogate; an unmappable character is &#N; (HTML numeric "
    "reference, percent-encoded)",
    implementation="the charset's replacement byte '?', percent-encoded as %3F",
    citation=f"{_GET_BYTES}; {WHATWG_PCT} (encoder error mode html)",
    why="documented Java behaviour: the character is lost, not signalled",
    example=EncodeCase("\u0100", FORM.name, "windows-1252", True),
)
_entry(
    id="java-urlencoder-whole-characters",
    impl="java-urlencoder",
    check=ENCODE.name,
    summary="URLEncoder writes %XY for every byte of a character it encodes, an ASCII byte "
    "of a Shift_JIS character too",
    applies=_unmappable,
    reconcile=_WHOLE.reconcile,
    model=_WHOLE.model,
    phase=MODEL,
    reference="each byte by the set: 'Б' in Shift_JIS is %84A",
    implementation="every byte of the character: %84%41",
    citation="URLEncoder: 'All other characters are unsafe and are first converted into one "
    "or more bytes using some encoding scheme. Then each byte is represented by the "
    f"3-character string \"%xy\"'; {WHATWG_PCT}",
    why="both decode to the same bytes",
    example=EncodeCase("\u0411", FORM.name, "Shift_JIS", True),
)


# Two entries (one rule each, as a --no-accepted campaign names them): the bytes are
# read as UTF-8 text, and '+' is a space; both model fields, so they compose.
_TEXT = replacement("per-sequence")
_PLUS = plus_as_space()
_entry(
    id="java-urldecoder-string",
    impl="java-urlencoder",
    check=DECODE.name,
    summary="URLDecoder.decode returns a String: bytes that are not UTF-8 become U+FFFD",
    applies=lambda case: isinstance(case, DecodeCase),
    reconcile=_TEXT.reconcile,
    model=_TEXT.model,  # composes with '+' as a space (java-urldecoder-plus)
    phase=MODEL,
    reference="the percent-decoded bytes",
    implementation="the bytes decoded as UTF-8 with U+FFFD",
    citation="Java SE 17 API, URLDecoder.decode(String, Charset): 'Any characters that are "
    "not legal ... the replacement string'",
    why="URLDecoder decodes form data into text; the adapter compares its UTF-8",
    example=DecodeCase("%FF"),
)
_entry(
    id="java-urldecoder-plus",
    impl="java-urlencoder",
    check=DECODE.name,
    summary="URLDecoder.decode decodes '+' as a space",
    applies=lambda case: isinstance(case, DecodeCase),
    reconcile=_PLUS.reconcile,
    model=_PLUS.model,
    phase=MODEL,
    reference="the percent-decoded bytes, '+' kept",
    implementation="'+' is a space",
    citation="Java SE 17 API, URLDecoder: 'The plus sign \"+\" is converted into a space "
    "character'",
    why="URLDecoder decodes form data, as URL 5.1 decodes names and values",
    example=DecodeCase("a+b"),
)
_entry(
    id="java-urldecoder-malformed",
    impl="java-urlencoder",
    check=DECODE.name,
    summary="URLDecoder.decode throws IllegalArgumentException for a % without two hex digits",
    applies=has_malformed_escape,
    reconcile=raised("IllegalArgumentException"),
    reference="keeps the % as it is",
    implementation="throws IllegalArgumentException",
    citation="Java SE 17 API, URLDecoder.decode: 'IllegalArgumentException - if the "
    "implementation encounters illegal characters'",
    why="a strict decoder by design",
    example=DecodeCase("%"),
)


def _nfc_model(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    """The reference's answer for the value in Unicode NFC."""
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str) or expected.raised:
        return None
    normal = unicodedata.normalize("NFC", case.value)
    return Outcome(percent_encode(normal, get_set(case.set_name))), actual


_entry(
    id="java-uri-nfc",
    impl="java-uri",
    check=ENCODE.name,
    summary="toASCIIString writes non-ASCII text in Unicode NFC",
    applies=lambda case: isinstance(case, EncodeCase) and isinstance(case.value, str)
    and not case.value.isascii() and not has_lone_surrogate(case.value),
    reconcile=_nfc_model,
    reference="the UTF-8 bytes of the value as given",
    implementation="the UTF-8 bytes of the value normalized to NFC",
    citation="OpenJDK 17 java/net/URI.java encode(String): 'String ns = "
    "Normalizer.normalize(s, Normalizer.Form.NFC);' before the UTF-8 encoding; Java SE 17 "
    f"API, URI.toASCIIString: the other characters are encoded; {WHATWG_PCT}",
    why="Java encodes other (non-ASCII) characters after NFC normalization by design",
    example=EncodeCase("e\u0301", "rfc3986-pchar-/"),
)
