"""Built-in entries for Qt 6's QtCore (adapters ``qt-qurl`` and ``qt-qurlquery``;
``pctfuzz._internal.oracles.qt``), each cited to the Qt documentation (doc.qt.io/qt-6:
``QUrl``, ``QUrlQuery``, ``QByteArray``, ``QStringConverter``) and the source it
documents (qtbase 6.4, ``src/corelib``).

``QUrl::fromPercentEncoding`` is ``QString::fromUtf8(QByteArray::fromPercentEncoding(
input))``: any two characters after a ``%`` are read as hex digits (documented: "%G5"
may decode to anything), and the answer is text (invalid UTF-8 one U+FFFD per byte, a
leading BOM dropped): entries. ``QUrlQuery`` parses as ``QUrl::TolerantMode`` does,
where one ``%`` that starts no escape makes every ``%`` of that name or value literal,
keeps ``+`` and empty pairs, decodes no escaped noncharacter, and writes what
``QUrl::toPercentEncoding`` gave it: entries. ``toPercentEncoding`` writes a lone
surrogate as ``%3F`` (``QString::toUtf8`` writes ``?`` for it), so decoding gives a
``?`` the input never held: a real bug (docs/in-the-wild.md) that no entry accepts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from pctfuzz._internal.accept.entry import REWRITE, KnownDivergence
from pctfuzz._internal.accept.reconcilers import (
    empty_pairs,
    encoded,
    left_raw,
    plus_kept,
    replacement,
    space_as,
)
from pctfuzz._internal.cases import Case, DecodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.registry.common import (
    WHATWG_FORM,
    WHATWG_FORM_PARSE,
    Pair,
    add_entry,
)
from pctfuzz._internal.operations import DECODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.outcome import Outcome, Reconcile
from pctfuzz._internal.spec import HEX_PAIR
from pctfuzz._internal.text import surrogates_to_fffd

__all__ = ["ENTRIES", "from_percent_encoding", "qt_utf8_text", "query_field"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_QT = "https://doc.qt.io/qt-6/"
_FROM_PCT = (f"{_QT}qurl.html#fromPercentEncoding: 'Returns a decoded copy of input. input is "
             "first decoded from percent encoding, then converted from UTF-8 to unicode. Note: "
             "Given invalid input (such as a string containing the sequence \"%G5\", which is "
             "not a valid hexadecimal number) the output will be invalid as well. As an "
             "example: the sequence \"%G5\" could be decoded to 'W'.' (the same note in "
             f"{_QT}qbytearray.html#fromPercentEncoding)")
_TO_PCT = (f"{_QT}qurl.html#toPercentEncoding: 'input is first converted to UTF-8, and all "
           "ASCII-characters that are not in the unreserved group are percent encoded ... "
           "Unreserved is defined as: ALPHA / DIGIT / \"-\" / \".\" / \"_\" / \"~\"'")
_QUERY_ENCODING = (f"{_QT}qurlquery.html (Encoding): 'All of the setter methods ... take "
                   "encoded forms only ... all user input must be first percent-encoded "
                   "using QUrl::toPercentEncoding() or similar functions before being passed "
                   "to the functions in this class'")
_PLUS = (f"{_QT}qurlquery.html (Handling of spaces and plus): 'QUrlQuery never encodes the "
         "space character to \"+\" and will never decode \"+\" to a space character. Instead, "
         "space characters will be rendered \"%20\" in encoded form'")
_FULLY_DECODED = (f"{_QT}qurl.html#ComponentFormattingOption-enum (Full decoding): "
                  "'Non-UTF-8 sequences: ... any decoder failure will result in the QString "
                  "containing one or more replacement characters where the sequence existed'")


# --- QUrl::fromPercentEncoding ---------------------------------------------------------------
def _nibble(byte: int) -> int:
    """One character of ``q_fromPercentEncoding`` (qbytearray.cpp): a hex digit is its
    value, anything else stays the byte it is."""
    if 0x30 <= byte <= 0x39:
        return byte - 0x30
    if 0x61 <= byte <= 0x66 or 0x41 <= byte <= 0x46:
        return (byte | 0x20) - 0x61 + 10
    return byte


def from_percent_encoding(data: bytes) -> bytes:
    """Qt 6.4's ``QByteArray::fromPercentEncoding``, a model of a decoder that deviates
    from URL 1.3 percent-decode on purpose: a ``%`` with two more bytes after it takes
    them as hex digits whatever they are (``(a << 4 | b) & 0xFF``, a byte that is no hex
    digit counted as itself: ``%G5`` is ``u``); a ``%`` nearer the end stays."""
    out = bytearray()
    i = 0
    while i < len(data):
        if data[i] == 0x25 and i + 2 < len(data):
            out.append((_nibble(data[i + 1]) << 4 | _nibble(data[i + 2])) & 0xFF)
            i += 3
        else:
            out.append(data[i])
            i += 1
    return bytes(out)


def qt_utf8_text(data: bytes) -> str:
    """``QString::fromUtf8``: a leading BOM dropped ("eat the UTF-8 BOM",
    qstringconverter.cpp), each byte of an ill-formed sequence one U+FFFD (the decoder
    moves on one byte after an error)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", "pctfuzz-per-byte")  # registered by accept.model


def _value_bytes(case: DecodeCase) -> bytes:
    return case.value if isinstance(case.value, bytes) else case.value.encode("utf-8")


_BAD_ESCAPE = re.compile(rb"%(?!" + HEX_PAIR.encode("ascii") + rb")..", re.DOTALL)


def _reads_any_two(case: Case) -> bool:
    return isinstance(case, DecodeCase) and _BAD_ESCAPE.search(_value_bytes(case)) is not None


def _as_from_percent_encoding(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if expected.raised or not isinstance(case, DecodeCase):
        return None
    return Outcome(from_percent_encoding(_value_bytes(case))), actual


_entry(
    id="qt-qurl-frompercent-any-two",
    impl="qt-qurl",
    check=DECODE.name,
    summary="QUrl::fromPercentEncoding reads the two characters after any '%' as hex "
    "digits, whatever they are",
    applies=_reads_any_two,
    reconcile=_as_from_percent_encoding,
    reference="a '%' not followed by two ASCII hex digits is kept (URL 1.3 percent-decode "
    "step 2.2): '%zz' is '%zz'",
    implementation="'%' and the next two characters are one byte ((a << 4 | b) & 0xFF, a "
    "non-digit counted as its own byte): '%zz' is the byte FA, '%G5' is 'u'",
    citation=f"{_FROM_PCT}; qtbase 6.4 src/corelib/text/qbytearray.cpp, "
    "q_fromPercentEncoding; WHATWG URL Standard 1.3 (percent-decode)",
    why="documented: invalid input gives invalid output; valid escapes decode as the "
    "standard's do",
    example=DecodeCase("%G5"),
)


def _text_differs(case: Case) -> bool:
    if not isinstance(case, DecodeCase):
        return False
    data = from_percent_encoding(_value_bytes(case))
    return qt_utf8_text(data).encode("utf-8") != data


def _as_text(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    """The bytes (the reference's, or the entry above's) as the QString Qt makes of
    them, then its UTF-8 (what the peer answers)."""
    if expected.raised or not isinstance(expected.value, bytes):
        return None
    return Outcome(qt_utf8_text(expected.value).encode("utf-8")), actual


_entry(
    id="qt-qurl-frompercent-text",
    impl="qt-qurl",
    check=DECODE.name,
    summary="QUrl::fromPercentEncoding answers text: invalid UTF-8 one U+FFFD per byte, a "
    "leading BOM dropped",
    applies=_text_differs,
    reconcile=_as_text,
    phase=REWRITE,
    reference="the bytes (percent-decode, URL 1.3): '%FF' is the byte FF, '%EF%BB%BF' the "
    "three bytes of U+FEFF",
    implementation="a QString (QString::fromUtf8): each byte of an ill-formed sequence one "
    "U+FFFD ('%E2%82' two), a U+FEFF at the start dropped",
    citation=f"{_FROM_PCT}; {_QT}qstringconverter.html#Flag-enum (a decoder 'usually "
    "skips a leading QChar::ByteOrderMark'); qtbase 6.4 src/corelib/text/"
    "qstringconverter.cpp, QUtf8::convertToUnicode ('eat the UTF-8 BOM'; one "
    "QChar::ReplacementCharacter per failed byte); Encoding Standard 4.1 (UTF-8 decode "
    "removes a leading BOM too); WHATWG URL Standard 1.3 (percent-decode)",
    why="the function returns text, not bytes: valid UTF-8 decodes to the same "
    "characters, and only ill-formed bytes and a leading BOM differ",
    example=DecodeCase("%E2%82"),
)


# --- QUrlQuery: the serializer --------------------------------------------------------------
for _id, _rule, _form_example, _what in (
    ("space", space_as("%20"), FormCase(((" ", ""),)), "a space as %20"),
    ("tilde", left_raw("~"), FormCase((("~", ""),)), "'~' raw (unreserved)"),
    ("star", encoded("*"), FormCase((("*", ""),)), "'*' as %2A (not unreserved)"),
):
    _entry(
        id=f"qt-qurlquery-{_id}",
        impl="qt-qurlquery",
        check=FORM_SERIALIZE.name,
        summary=f"QUrlQuery of toPercentEncoding'd names and values writes {_what}",
        applies=lambda case: isinstance(case, FormCase),
        reconcile=_rule.reconcile,
        model=_rule.model,
        phase=_rule.phase,
        reference=_rule.reference,
        implementation=_rule.implementation,
        citation=f"{_QUERY_ENCODING}; {_TO_PCT}; {_PLUS}; {WHATWG_FORM}",
        why="documented; both forms decode to the same pairs",
        example=_form_example,
    )


# --- QUrlQuery: the parser ------------------------------------------------------------------
_PARSE = [
    ("plus", plus_kept(), FormParseCase("a+b"), _PLUS,
     "documented; a query written by QUrlQuery never holds '+' for a space"),
    ("empty", empty_pairs("kept-but-last"), FormParseCase("&a"),
     "qtbase 6.4 src/corelib/io/qurlquery.cpp, QUrlQueryPrivate::setQuery (each pair "
     "delimiter ends a pair, an empty one too; the loop ends at the end of the string, "
     "so nothing follows a final '&'; 'the value delimiter wasn't found, store a null "
     "value')", "a harmless extra pair ('', '')"),
    ("utf8", replacement("per-byte"), FormParseCase("a=%E2%82"), _FULLY_DECODED,
     "documented; valid UTF-8 decodes alike"),
]
for _id, _rule, _parse_example, _cited, _why in _PARSE:
    _entry(
        id=f"qt-qurlquery-parse-{_id}",
        impl="qt-qurlquery",
        check=FORM_PARSE.name,
        summary=f"QUrlQuery::setQuery + queryItems(QUrl::FullyDecoded): "
        f"{_rule.implementation}",
        applies=lambda case: isinstance(case, FormParseCase),
        reconcile=_rule.reconcile,
        model=_rule.model,
        phase=_rule.phase,
        reference=_rule.reference,
        implementation=_rule.implementation,
        citation=f"{_cited}; {WHATWG_FORM_PARSE}",
        why=_why,
        example=_parse_example,
    )

_LONE_PERCENT = re.compile("%(?!" + HEX_PAIR + ")")
_ESCAPES = re.compile("(?:%" + HEX_PAIR + ")+")


def _is_noncharacter(char: str) -> bool:
    """qurlrecode.cpp isUnicodeNonCharacter: U+FDD0-U+FDEF and the last two code points
    of each plane, 'not allowed to be used for text interchange'."""
    code = ord(char)
    return code & 0xFFFE == 0xFFFE or 0xFDD0 <= code <= 0xFDEF


def _utf8_run(run: bytes, *, nonchars: bool) -> str:
    """A run of escaped bytes as qt_urlRecode decodes it: a whole UTF-8 sequence is its
    character (not a noncharacter unless ``nonchars``), an ASCII byte itself, any other
    byte one U+FFFD (FullyDecoded); the next try starts at the next byte."""
    out: list[str] = []
    i = 0
    while i < len(run):
        size = 1 if run[i] < 0xC2 else 2 if run[i] < 0xE0 else 3 if run[i] < 0xF0 else 4
        try:
            char = run[i:i + size].decode("utf-8") if size > 1 else None
        except UnicodeDecodeError:
            char = None
        if char is not None and len(char) == 1 and (nonchars or not _is_noncharacter(char)):
            out.append(char)
            i += size
        else:
            out.append(chr(run[i]) if run[i] < 0x80 else "\ufffd")
            i += 1
    return "".join(out)


def query_field(raw: str, *, nonchars: bool = False) -> str:
    """One name or value as QUrlQuery::setQuery stores it and queryItems(FullyDecoded)
    gives it back: as written when it holds a '%' that starts no escape (TolerantMode:
    every '%' literal), else each run of escapes decoded (``_utf8_run``), every other
    character copied; '+' stays. ``nonchars``: escaped
    noncharacters decoded as the characters they are (an entry says Qt does not)."""
    if _LONE_PERCENT.search(raw):
        return raw
    return _ESCAPES.sub(lambda m: _utf8_run(
        bytes.fromhex(m.group().replace("%", "")), nonchars=nonchars), raw)


def _fields(text: str) -> list[tuple[str, str]]:
    """QUrlQueryPrivate::setQuery's split: a pair per '&' but none after a final '&';
    the name up to the first '='."""
    sequences = text.split("&")
    if sequences[-1] == "":
        sequences.pop()
    return [(s.partition("=")[0], s.partition("=")[2]) for s in sequences]


def _text(case: Case) -> str | None:
    return case.text if isinstance(case, FormParseCase) and isinstance(case.text, str) else None


def _fields_as_qt(feature: Callable[[str], bool]) -> Reconcile:
    """Each name or value for which ``feature(raw)`` holds, as ``query_field``
    reads it, a lone surrogate it keeps as U+FFFD (the non-scalar policy compares a
    kept one so: ``checks.differential``); the others as the pairs already are. The
    pairs must be QUrlQuery's split (the empty-pairs entry ran), else this is not the
    difference."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> Pair:
        text = _text(case)
        if expected.raised or text is None:
            return None
        pairs, fields = expected.value, _fields(text)
        if not isinstance(pairs, list) or len(pairs) != len(fields):
            return None
        return Outcome([tuple(surrogates_to_fffd(query_field(raw)) if feature(raw) else got
                              for got, raw in zip(pair, raw_pair, strict=True))
                        for pair, raw_pair in zip(pairs, fields, strict=True)]), actual

    return reconcile


def _in_some_field(feature: Callable[[str], bool]) -> Callable[[Case], bool]:
    def applies(case: Case) -> bool:
        text = _text(case)
        return text is not None and any(feature(raw) for pair in _fields(text) for raw in pair)

    return applies


def _tolerant(raw: str) -> bool:
    return _LONE_PERCENT.search(raw) is not None


def _nonchar(raw: str) -> bool:
    return query_field(raw) != query_field(raw, nonchars=True)


for _id, _feature, _summary, _reference, _implementation, _cited, _why, _case in (
    ("tolerant", _tolerant,
     "QUrlQuery::setQuery reads in QUrl::TolerantMode: a name or value with a '%' that "
     "starts no escape keeps every '%' literal (FullyDecoded gives it as written)",
     "each valid %HH decoded, a lone '%' kept (URL 1.3 percent-decode step 2.2): '%41%' "
     "is 'A%'",
     "'%41%' is '%41%': the lone '%' makes every '%' of that name or value a literal "
     "percent sign",
     f"{_QUERY_ENCODING}, 'all functions in this class parse their string arguments as "
     f"if the QUrl::TolerantMode decoding mode was specified'; {_QT}qurl.html#ParsingMode-"
     "enum (TolerantMode): 'Any occurrences of a percent character \"%\" not followed by "
     "exactly two hexadecimal characters ... will be replaced by \"%25\". Note that one "
     "lone \"%\" character will trigger the correction mode for all percent characters'",
     "documented; only a name or value that holds a malformed escape is read differently",
     FormParseCase("a=%41%")),
    ("nonchar", _nonchar,
     "QUrlQuery decodes an escaped noncharacter (U+FDD0-U+FDEF, U+xFFFE, U+xFFFF) as one "
     "U+FFFD per byte",
     "the noncharacter (valid UTF-8, URL 5.1 step 3.5): '%EF%BF%BF' is U+FFFF",
     "'%EF%BF%BF' is three U+FFFD: qt_urlRecode leaves a noncharacter's escapes encoded, "
     "and FullyDecoded writes each undecodable byte as U+FFFD",
     f"qtbase src/corelib/io/qurlrecode.cpp, encodedUtf8ToUtf16 and isUnicodeNonCharacter "
     "('non-characters ... are not allowed to be used for text interchange'); "
     f"{_FULLY_DECODED}; RFC 3987 2.2 (ucschar leaves the noncharacters out)",
     "a deliberate choice, as IRIs leave noncharacters out; only they are changed",
     FormParseCase("a=%EF%BF%BF")),
):
    _entry(
        id=f"qt-qurlquery-parse-{_id}",
        impl="qt-qurlquery",
        check=FORM_PARSE.name,
        summary=_summary,
        applies=_in_some_field(_feature),
        reconcile=_fields_as_qt(_feature),
        phase=REWRITE,
        reference=_reference,
        implementation=_implementation,
        citation=f"{_cited}; {WHATWG_FORM_PARSE}",
        why=_why,
        example=_case,
    )
