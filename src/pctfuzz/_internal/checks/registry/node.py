"""Built-in entries for Node.js and whatwg-url, run through the process protocol
(``pctfuzz._internal.oracles.process``; adapters ``node``, ``node-querystring``, ``whatwg-url``).

JavaScript strings are UTF-16 code units (ECMA-262 6.1.4), so the models below work on
code units; a str's lone surrogates reach the peer as lone code units.

The models follow ECMA-262 19.2.6 (Encode, Decode) and Node.js ``lib/querystring.js``.
This module is over 400 lines because the querystring models (escape, unescape and
their fallbacks) are one exact statement of Node.js's behaviour and read best together.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.accept.javascript import decode_uri_component, unescape_buffer
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.registry.common import (
    PCT_TRIPLET,
    REWRITE,
    WHATWG_FORM,
    WHATWG_FORM_PARSE,
    WHATWG_PCT,
    Pair,
    add_entry,
    pairs_with_surrogate,
    replace_in_expected,
    str_value_with_surrogate,
    text_with_surrogate,
)
from pctfuzz._internal.form import split_pairs
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.oracles.process import remote_error_type
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import FORM, get_set
from pctfuzz._internal.text import has_lone_surrogate, merge_surrogates, surrogates_to_fffd

__all__ = ["ENTRIES"]

_ECMA_DECODE = "ECMA-262 19.2.6.6 Decode (a malformed escape or UTF-8 sequence throws URIError)"
_ECMA_ENCODE = "ECMA-262 19.2.6.5 Encode (an unpaired surrogate throws URIError)"
_QS_UNESCAPE = (
    "Node.js lib/querystring.js qsUnescape: decodeURIComponent, and when it throws, "
    "unescapeBuffer(s).toString(), which stores each UTF-16 code unit that is not an "
    "escape as one byte (code unit & 0xFF)"
)


def _from_code_units(units: Sequence[int]) -> str:
    data = b"".join(u.to_bytes(2, "little") for u in units)
    return data.decode("utf-16-le", "surrogatepass")


def _qs_unescape(text: str, plus: bool) -> str:
    """Node.js querystring.unescape (qsUnescape)."""
    decoded = decode_uri_component(text)
    if decoded is not None:
        return decoded
    return unescape_buffer(text.replace("+", " ") if plus else text).decode("utf-8", "replace")


def _js_utf8(text: str) -> bytes:
    """Buffer.from(text, "utf8"): lone surrogates as EF BF BD."""
    return surrogates_to_fffd(text).encode("utf-8")


def _qs_escape(text: str) -> str | None:
    """Node.js querystring.escape (lib/internal/querystring.js encodeStr); None where it
    throws (a surrogate as the last code unit). Any surrogate code unit is taken as a
    pair's lead: the next code unit's low ten bits complete it, whatever it is
    (nodejs/node#62814; ``text.merge_surrogates``, the ``lone_surrogates("merged")``
    rule)."""
    merged = merge_surrogates(text)
    if has_lone_surrogate(merged):
        return None
    return percent_encode(merged.encode("utf-8"), "component")


def _has_valid_escape(text: str) -> bool:
    return PCT_TRIPLET.search(text) is not None


def _ecma_decode_throws(case: Case) -> bool:
    return isinstance(case, DecodeCase) and isinstance(case.value, str) and (
        decode_uri_component(case.value) is None
    )


def _remote_uri_error(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if isinstance(actual.error, remote_error_type("URIError")):
        return actual, actual
    return None


def _qs_escape_model(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return None
    model = _qs_escape(case.value)
    if model is None:
        return _remote_uri_error(case, expected, actual)
    return Outcome(model), actual


def _qs_stringify_model(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if not isinstance(case, FormCase):
        return None
    parts: list[str] = []
    for name, value in case.pairs:
        n, v = _qs_escape(name), _qs_escape(value)
        if n is None or v is None:
            return _remote_uri_error(case, expected, actual)
        parts.append(f"{n}={v}")
    return Outcome("&".join(parts)), actual


def _qs_unescape_model(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if not isinstance(case, DecodeCase) or not isinstance(case.value, str):
        return None
    return Outcome(_js_utf8(_qs_unescape(case.value, False))), actual


def _qs_field(raw: str) -> str:
    """One name or value as querystring.parse and Node's URLSearchParams decode it:
    '+' is a space; without a valid %HH the text is kept as it is, else qsUnescape."""
    spaced = raw.replace("+", " ")
    return _qs_unescape(spaced, True) if _has_valid_escape(spaced) else spaced


def _qs_parse_pairs(text: str) -> list[tuple[str, str]]:
    return split_pairs(text, _qs_field)


def _qs_parse_model(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if not isinstance(case, FormParseCase) or not isinstance(case.text, str):
        return None
    return Outcome(_qs_parse_pairs(case.text)), actual


def _node_search_params_model(
    case: Case, expected: Outcome, actual: Outcome
) -> Pair:
    if not isinstance(case, FormParseCase) or not isinstance(case.text, str):
        return None
    return Outcome(_qs_parse_pairs(surrogates_to_fffd(case.text))), actual


def _qs_fallback_applies(case: Case) -> bool:
    """Some name or value has a valid escape and still makes decodeURIComponent throw."""
    if not isinstance(case, FormParseCase) or not isinstance(case.text, str):
        return False
    for sequence in case.text.split("&"):
        for raw in sequence.partition("=")[::2]:
            spaced = raw.replace("+", " ")
            if _has_valid_escape(spaced) and decode_uri_component(spaced) is None:
                return True
    return False

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_entry(
    id="node-encodeuricomponent-lone-surrogate",
    impl="node",
    check=ENCODE.name,
    summary="encodeURIComponent and encodeURI throw URIError for a lone surrogate",
    applies=lambda case: str_value_with_surrogate(case)
    and get_set(getattr(case, "set_name", "component")).name != FORM.name,
    reconcile=_remote_uri_error,
    reference="refuses: NotScalarValueError",
    implementation="refuses: URIError: URI malformed",
    citation=f"{_ECMA_ENCODE}; {WHATWG_PCT} takes a scalar value string",
    why="both refuse the input; only the exception type differs",
    example=EncodeCase("\ud800", "component"),
)
_entry(
    id="node-decodeuricomponent-malformed",
    impl="node",
    check=DECODE.name,
    summary="decodeURIComponent throws URIError for a malformed escape or non-UTF-8 bytes",
    applies=_ecma_decode_throws,
    reconcile=_remote_uri_error,
    reference="percent-decodes: a % without two hex digits is kept; any bytes result",
    implementation="throws URIError where Decode does ('%', '%zz', '%FF', '%C3' alone)",
    citation=f"{_ECMA_DECODE}; WHATWG URL Standard 1.3 (percent-decode)",
    why="decodeURIComponent decodes what encodeURIComponent wrote and refuses the rest; "
    "on every input it accepts the bytes are the reference's",
    example=DecodeCase("%"),
)
_entry(
    id="node-search-params-unescape-buffer",
    impl="node",
    check=FORM_PARSE.name,
    summary="URLSearchParams falls back to querystring's unescapeBuffer: non-ASCII text "
    "around a bad escape is truncated to bytes",
    applies=_qs_fallback_applies,
    reconcile=_node_search_params_model,
    reference="percent-decodes the UTF-8 bytes, then UTF-8 decodes ('%FFé' -> '\\ufffdé')",
    implementation="decodeURIComponent, and when that throws, each code unit & 0xFF as a "
    "byte ('%FFé' -> '\\ufffd\\ufffd'; '日%한%25' -> '\\ufffd%\\\\%')",
    citation=f"{WHATWG_FORM_PARSE}; Node.js v20 lib/internal/url.js parseParams with "
    f"{_QS_UNESCAPE}",
    why="a Node.js bug (data change); not reported upstream yet; registered so the "
    "differential test keeps checking every other input",
    example=FormParseCase("%FF\u00e9"),
)
_entry(
    id="node-querystring-escape-lone-surrogate",
    impl="node-querystring",
    check=ENCODE.name,
    summary="querystring.escape joins a lone surrogate with the next code unit, or throws "
    "URIError at the end",
    applies=str_value_with_surrogate,
    reconcile=_qs_escape_model,
    reference="refuses: NotScalarValueError",
    implementation="'\\ud800a' -> '%F0%90%81%A1' (U+10061: the 'a' is swallowed); a "
    "surrogate at the end: URIError",
    citation=f"{_ECMA_ENCODE}; nodejs/node#62814 (open; fix in nodejs/node#62834), "
    "nodejs/node#3702",
    why="an upstream bug with an open issue; the model is exact, so every other input is "
    "still checked",
    example=EncodeCase("\ud800a", "component"),
)
_entry(
    id="node-querystring-stringify-lone-surrogate",
    impl="node-querystring",
    check=FORM_SERIALIZE.name,
    summary="querystring.stringify escapes lone surrogates as querystring.escape does",
    applies=pairs_with_surrogate,
    reconcile=_qs_stringify_model,
    reference="refuses: NotScalarValueError",
    implementation="the surrogate swallows the next code unit (see "
    "node-querystring-escape-lone-surrogate), or URIError at the end of a name or value",
    citation="nodejs/node#62814 (open)",
    why="the same upstream bug as node-querystring-escape-lone-surrogate",
    example=FormCase((("\ud800a", ""),)),
)
_entry(
    phase=REWRITE,
    id="node-querystring-stringify-escape",
    impl="node-querystring",
    check=FORM_SERIALIZE.name,
    summary="querystring.stringify writes space as %20 and leaves ! ' ( ) ~ unencoded",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=replace_in_expected(
        {"+": "%20", "%21": "!", "%27": "'", "%28": "(", "%29": ")", "%7E": "~"}
    ),
    reference="the form set and spaceAsPlus: space as +, ! ' ( ) ~ as %21 %27 %28 %29 %7E",
    implementation="querystring.escape's set, the encodeURIComponent set: %20, ! ' ( ) ~ kept",
    citation=f"{WHATWG_FORM}; Node.js docs querystring.stringify (values are encoded "
    "with querystring.escape) and querystring.escape",
    why="querystring predates the URL Standard; both forms decode to the same text",
    example=FormCase((("a b", "~"),)),
)
_entry(
    id="node-querystring-unescape-buffer",
    impl="node-querystring",
    check=DECODE.name,
    summary="querystring.unescape falls back to unescapeBuffer: non-ASCII text around a bad "
    "escape is truncated to bytes",
    applies=_ecma_decode_throws,
    reconcile=_qs_unescape_model,
    reference="the percent-decoded UTF-8 bytes ('$¾%1G' -> 24 C2 BE 25 31 47)",
    implementation="decodeURIComponent, and when that throws, each code unit & 0xFF as a "
    "byte, then UTF-8 decoded with U+FFFD ('$¾%1G' -> 24 EF BF BD 25 31 47)",
    citation=f"{WHATWG_PCT.replace('after encoding', 'decode')}; {_QS_UNESCAPE}",
    why="a Node.js bug (data change); not reported upstream yet; registered so the "
    "differential test keeps checking every other input",
    example=DecodeCase("$\u00be%1G"),
)
_entry(
    id="node-querystring-parse-unescape-buffer",
    impl="node-querystring",
    check=FORM_PARSE.name,
    summary="querystring.parse keeps lone surrogates and decodes through qsUnescape "
    "(truncating non-ASCII text around a bad escape)",
    applies=lambda case: text_with_surrogate(case) or _qs_fallback_applies(case),
    reconcile=_qs_parse_model,
    reference="U+FFFD for lone surrogates; percent-decodes bytes, then UTF-8 decodes",
    implementation="lone surrogates kept; decodeURIComponent, and when that throws, each "
    "code unit & 0xFF as a byte ('%FF💩' -> '\\ufffd=\\ufffd': a '=' appears in a name)",
    citation=f"{WHATWG_FORM_PARSE}; {_QS_UNESCAPE}",
    why="lone surrogates: JS strings are code units (ECMA-262 6.1.4); the truncation is a "
    "Node.js bug, not reported upstream yet, registered so every other input is checked",
    example=FormParseCase("%FF\u00e9"),
)


#: Every accepted divergence, in reconcile order (entries replacing a refusal come
#: before entries rewriting text, so yarl's dropped surrogates compose with its safe set).
