"""Built-in entries for Haskell's network-uri (adapter ``haskell-network-uri``;
``pctfuzz._internal.oracles.haskell``), each cited to network-uri 2.6.4.1's source
(``Network/URI.hs``).

``unEscapeString`` answers a String: the unescaped bytes are UTF-8 decoded, each
ill-formed sequence one U+FFFD as its decoder reads the sequence, and the noncharacters
U+FFFE and U+FFFF also U+FFFD (a maintainer's decision, network-uri#51): entries.
``escapeURIString`` writes a lone surrogate as its three surrogate bytes, which no UTF-8
decoder accepts: a real bug (docs/in-the-wild.md) that no entry accepts.
"""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import REWRITE, KnownDivergence
from pctfuzz._internal.cases import Case, DecodeCase
from pctfuzz._internal.checks.registry.common import Pair, add_entry
from pctfuzz._internal.operations import DECODE
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.spec import ASCII_HEX

__all__ = ["ENTRIES", "un_escape_string"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_HEX = frozenset(ASCII_HEX)
#: unEscapeUtf8: a lead byte below this bound -> (continuation bytes, mask, smallest value).
_LEADS = ((0xF0, 2, 0x0F, 0x800), (0xF8, 3, 0x07, 0x10000), (0xFC, 4, 0x03, 0x200000),
          (0xFE, 5, 0x01, 0x4000000))


def _byte(text: str, i: int) -> int | None:
    """unEscapeByte: the byte of a '%' and two hex digits at ``i``."""
    if text[i:i + 1] == "%" and len(text) >= i + 3 and text[i + 1] in _HEX and text[i + 2] in _HEX:
        return int(text[i + 1:i + 3], 16)
    return None


def un_escape_string(text: str, *, noncharacters: bool = False) -> str:
    """network-uri 2.6.4.1's unEscapeString (unEscapeByte, unEscapeUtf8), but escaped
    U+FFFE and U+FFFF decoded as the scalar values they are unless ``noncharacters`` (the
    source writes U+FFFD for them: the entry ``haskell-network-uri-unescape-nonchar``, one
    rule each)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        lead = _byte(text, i)
        if lead is None:
            out.append(text[i])
            i += 1
            continue
        i += 3
        if lead < 0x80:
            out.append(chr(lead))
        elif lead < 0xC0 or lead >= 0xFE:
            out.append("\ufffd")
        elif lead < 0xE0:  # multi1
            cont = _byte(text, i)
            if cont is not None and cont & 0xC0 == 0x80:
                i += 3
                code = (lead & 0x1F) << 6 | cont & 0x3F
                out.append(chr(code) if code >= 0x80 else "\ufffd")
            else:
                out.append("\ufffd")
        else:  # multi_byte: the continuation bytes it expects, as far as they come
            _, more, mask, smallest = next(lead_ for lead_ in _LEADS if lead < lead_[0])
            code = lead & mask
            while more:
                cont = _byte(text, i)
                if cont is None or cont & 0xC0 != 0x80:
                    break
                code = code << 6 | cont & 0x3F
                i += 3
                more -= 1
            whole = (not more and smallest <= code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF
                     and not (noncharacters and code in (0xFFFE, 0xFFFF)))
            out.append(chr(code) if whole else "\ufffd")
    return "".join(out)


def _escapes_non_ascii(case: Case) -> bool:
    if not isinstance(case, DecodeCase) or not isinstance(case.value, str):
        return False
    value = case.value
    return any((b := _byte(value, i)) is not None and b >= 0x80 for i in range(len(value)))


def _as_un_escape_string(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if expected.raised or not isinstance(case, DecodeCase) or not isinstance(case.value, str):
        return None
    return Outcome(un_escape_string(case.value).encode("utf-8", "surrogatepass")), actual


_entry(
    id="haskell-network-uri-unescape-utf8",
    impl="haskell-network-uri",
    check=DECODE.name,
    summary="unEscapeString decodes the unescaped bytes as UTF-8: one U+FFFD per "
    "ill-formed sequence as its decoder reads it",
    applies=_escapes_non_ascii,
    reconcile=_as_un_escape_string,
    reference="the bytes (percent-decode, URL 1.3): '%FF' is the byte FF",
    implementation="a String: an ill-formed sequence is one U+FFFD, from its lead byte "
    "through the continuation bytes that lead announces ('%FF' and '%ED%A0%80' are each "
    "one U+FFFD, where the Encoding Standard's decoder writes one per maximal subpart)",
    citation="network-uri 2.6.4.1 Network/URI.hs, unEscapeString and unEscapeUtf8 "
    "('Adapted from http://hackage.haskell.org/package/utf8-string'; "
    "replacement_character = '\\xfffd'), escapeURIString writing UTF-8; Unicode 15.0 "
    "section 3.9 (U+FFFD substitution of maximal subparts is a recommended practice, not "
    "a requirement); WHATWG URL Standard 1.3 (percent-decode)",
    why="unEscapeString returns text, not bytes: a valid UTF-8 sequence decodes to its "
    "character, as the bytes do, and only ill-formed bytes are replaced",
    example=DecodeCase("%FF"),
)


def _escapes_nonchar(case: Case) -> bool:
    if not isinstance(case, DecodeCase) or not isinstance(case.value, str):
        return False
    return un_escape_string(case.value) != un_escape_string(case.value, noncharacters=True)


def _nonchars_replaced(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    """An escaped U+FFFE or U+FFFF as U+FFFD, when the rest is decoded as unEscapeString
    does (the reference's bytes are valid UTF-8, or the entry above modelled them); a
    raw U+FFFE of the input is no escape and stays."""
    if expected.raised or not isinstance(case, DecodeCase) or not isinstance(case.value, str):
        return None
    if expected.value != un_escape_string(case.value).encode("utf-8", "surrogatepass"):
        return None
    return Outcome(un_escape_string(case.value, noncharacters=True).encode(
        "utf-8", "surrogatepass")), actual


_entry(
    id="haskell-network-uri-unescape-nonchar",
    impl="haskell-network-uri",
    check=DECODE.name,
    summary="unEscapeString decodes the noncharacters U+FFFE and U+FFFF (%EF%BF%BE, "
    "%EF%BF%BF) as U+FFFD",
    applies=_escapes_nonchar,
    reconcile=_nonchars_replaced,
    phase=REWRITE,
    reference="the bytes EF BF BF (percent-decode, URL 1.3; valid UTF-8 of U+FFFF)",
    implementation="U+FFFD: unEscapeUtf8 accepts a decoded code point only if "
    "'(acc < 0xfffe || 0xffff < acc)'",
    citation="network-uri 2.6.4.1 Network/URI.hs, unEscapeUtf8 (multi_byte); "
    "haskell/network-uri#51 (closed, 2020): the maintainer 'decided it's OK for the "
    "implementation to encode it as an error' for \\65535 and \\65534; WHATWG URL "
    "Standard 1.3 (percent-decode)",
    why="a deliberate choice upstream: the two noncharacters are not for open interchange "
    "(Unicode 15.0 section 23.7), and only they are changed",
    example=DecodeCase("%EF%BF%BF"),
)
