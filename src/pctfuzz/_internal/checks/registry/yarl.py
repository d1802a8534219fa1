"""Built-in entries for yarl's quoters (adapters ``yarl``, ``yarl-c``, ``yarl-requote``).

Each entry cites WHATWG URL 1.3 or 5.1/5.2, RFC 3986 where yarl follows it, and the
upstream issue or source (``yarl/_quoters.py``) that says why.
"""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase
from pctfuzz._internal.checks.registry.common import (
    PCT_TRIPLET,
    REWRITE,
    WHATWG_FORM,
    add_entry,
    is_valid_utf8,
    pairs_with_surrogate,
    replace_in_expected,
    str_value_with_surrogate,
)
from pctfuzz._internal.errors import NotScalarValueError
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_SERIALIZE
from pctfuzz._internal.oracles.yarl_quoting import ALWAYS_SAFE, QS_CHARS
from pctfuzz._internal.outcome import Outcome, reference_outcome
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.text import strip_lone_surrogates

__all__ = ["ENTRIES", "YARL_QUERY_PART_SAFE"]

#: What yarl's QUERY_PART_QUOTER (safe "?/:@", qs=True) leaves as is that the form set encodes.
YARL_QUERY_PART_SAFE = "!$'(),/:?@~"


def _yarl_drops_surrogates_encode(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return None
    if not isinstance(expected.error, NotScalarValueError):
        return None
    stripped = EncodeCase(
        strip_lone_surrogates(case.value), case.set_name, case.encoding, case.space_as_plus
    )
    return reference_outcome(ENCODE.name, stripped), actual


def _yarl_drops_surrogates_form(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    if not isinstance(case, FormCase) or not isinstance(expected.error, NotScalarValueError):
        return None
    stripped = FormCase(
        tuple((strip_lone_surrogates(n), strip_lone_surrogates(v)) for n, v in case.pairs),
        case.encoding,
    )
    return reference_outcome(FORM_SERIALIZE.name, stripped), actual


def _yarl_text_decode(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    if expected.raised or not isinstance(expected.value, bytes):
        return None
    if is_valid_utf8(expected.value):
        return None
    return Outcome(expected.value.decode("utf-8", "replace").encode("utf-8")), actual


def _yarl_requote_model(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    """yarl's requoting quoter: a valid ``%HH`` of the input is an escape, written as the
    character if that is safe, else as ``%HH`` in uppercase; any other ``%`` is data
    (``%25``); the rest is encoded like the reference; lone surrogates are dropped."""
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return None

    pes = get_set(case.set_name)
    plus = case.space_as_plus
    safe = set(pes.printable_safe) | set(ALWAYS_SAFE) | (set() if plus else set(QS_CHARS))
    safe -= {"%", " "} if plus else {"%"}

    def data(segment: str) -> str:
        return "%25".join(
            percent_encode(part, pes, space_as_plus=plus) for part in segment.split("%")
        )

    value = strip_lone_surrogates(case.value)
    out: list[str] = []
    pos = 0
    for match in PCT_TRIPLET.finditer(value):
        out.append(data(value[pos : match.start()]))
        char = chr(int(match.group()[1:], 16))
        out.append(char if char in safe else match.group().upper())
        pos = match.end()
    out.append(data(value[pos:]))
    return Outcome("".join(out)), actual

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_entry(
    id="yarl-quoter-drops-lone-surrogates",
    impl="yarl",
    check=ENCODE.name,
    summary="_Quoter silently drops lone surrogates",
    applies=str_value_with_surrogate,
    reconcile=_yarl_drops_surrogates_encode,
    reference="refuses: NotScalarValueError",
    implementation="encodes the value with every lone surrogate removed "
    "(str.encode('utf8', errors='ignore'))",
    citation="aio-libs/yarl#1751 and #1799 (both quoters drop lone surrogates, on purpose)",
    why="upstream's deliberate choice; the rest of the value is encoded as the reference does",
    example=EncodeCase("a\ud800", "path"),
)
_entry(
    id="yarl-requote-normalizes-escapes",
    impl="yarl-requote",
    check=ENCODE.name,
    summary="requoting treats %HH in the input as an escape: decoded if safe, else uppercased",
    applies=lambda case: (
        isinstance(case, EncodeCase) and isinstance(case.value, str) and "%" in case.value
    ),
    reconcile=_yarl_requote_model,
    reference="'%' is data like any other character: left as is if the set allows it, "
    "else %25 ('%41' -> '%41' or '%2541')",
    implementation="'%41' -> 'A', '%2f' -> '%2F' (kept, uppercased), '%zz' -> '%25zz': "
    "the value is taken as partly encoded already",
    citation="RFC 3986 2.4 (when to encode or decode) and 6.2.2.1-2 (case and "
    "percent-encoding normalization); yarl docs: URL(..., encoded=False) requotes",
    why="requoting is the documented purpose of yarl's default quoter; the reference "
    "answers a different question (encode this text), so the model states it exactly",
    example=EncodeCase("%41", "path"),
)
_entry(
    id="yarl-unquoter-text",
    impl="yarl",
    check=DECODE.name,
    summary="_Unquoter decodes to text: escapes that are not UTF-8 become U+FFFD",
    applies=lambda case: isinstance(case, DecodeCase),
    reconcile=_yarl_text_decode,
    reference="the percent-decoded bytes, whatever they are",
    implementation="those bytes UTF-8 decoded with U+FFFD for maximal invalid subparts "
    "(replace_invalid=True), i.e. the reference's percent_decode_text",
    citation="WHATWG URL Standard 1.3 (percent-decode: bytes); Encoding Standard 6 "
    "(UTF-8 decode without BOM); yarl/_quoters.py UNQUOTER_PLUS",
    why="yarl's API is text-only; on valid UTF-8 the answers are identical",
    example=DecodeCase("%FF"),
)
_entry(
    id="yarl-query-drops-lone-surrogates",
    impl="yarl",
    check=FORM_SERIALIZE.name,
    summary="the query API silently drops lone surrogates",
    applies=pairs_with_surrogate,
    reconcile=_yarl_drops_surrogates_form,
    reference="refuses: NotScalarValueError",
    implementation="serializes with every lone surrogate removed",
    citation="aio-libs/yarl#1751 and #1799",
    why="upstream's deliberate choice (see yarl-quoter-drops-lone-surrogates)",
    example=FormCase((("\ud800", ""),)),
)
_entry(
    phase=REWRITE,
    id="yarl-query-part-safe",
    impl="yarl",
    check=FORM_SERIALIZE.name,
    summary="the query API leaves ! $ ' ( ) , / : ? @ ~ unencoded",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=replace_in_expected({f"%{ord(c):02X}": c for c in YARL_QUERY_PART_SAFE}),
    reference="percent-encodes them (the form set is everything but alphanumerics * - . _)",
    implementation="keeps them: QUERY_PART_QUOTER = _Quoter(safe='?/:@', qs=True) plus "
    "the always-safe unreserved and sub-delims !$'()*,",
    citation=f"{WHATWG_FORM}; RFC 3986 3.4 (query = *( pchar / '/' / '?' ), so these "
    "need no escaping in a query); yarl/_quoters.py",
    why="RFC 3986 allows them in a query and they are not form delimiters (& = + ; are "
    "still encoded)",
    example=FormCase((("/", "?"),)),
)
