"""The rules of a decoder that reads what the reference decodes otherwise: invalid
UTF-8 of the decoded bytes (Encoding Standard 4.1, UTF-8 decoder; Node's fallback is
``accept.javascript``'s), ``+``, ``%uXXXX``, a raw character below 256 and a signed
escape (WHATWG URL 1.3 percent-decode, 5.1), a form text without ``=``. With them, the
rules the catalogue lists after them (phase ``REPLACE``, or model fields written for
it): an unencodable character as ``?`` and every byte of a character escaped (1.3),
a form's names made a language's variables, and a refusal the reference does not
share (``refuses``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pctfuzz._internal.accept.entry import REPLACE
from pctfuzz._internal.accept.javascript import node_unescape, querystring_scan
from pctfuzz._internal.accept.model import Model
from pctfuzz._internal.accept.reconcilers.base import Reconciler, _declared, _Pair, rule
from pctfuzz._internal.cases import Case, DecodeCase, FormParseCase
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.form import form_urldecode_bytes
from pctfuzz._internal.inputs import REFUSAL_INPUTS, input_has
from pctfuzz._internal.operations import (
    DECODE,
    ENCODE,
    FORM_PARSE,
    FORM_SERIALIZE,
    OPERATIONS,
)
from pctfuzz._internal.outcome import CHECKS, Outcome, refusal_type
from pctfuzz._internal.reference import percent_decode
from pctfuzz._internal.text import count_lone_surrogates, surrogates_to_fffd

__all__ = [
    "MANGLING_PROBE",
    "MANGLING_STYLES",
    "latin1_chars",
    "mangled_pairs",
    "names_mangled",
    "needs_equals",
    "pairs_surrogates_to_fffd",
    "percent_u",
    "plus_as_space",
    "refuses",
    "replacement",
    "signed_escapes",
    "unmappable_replaced",
    "whole_characters",
]


_REPLACEMENT_MODES = ("per-byte", "per-sequence", "dotnet", "percent-encoded", "dropped",
                      "surrogateescape", "undecoded", "low-byte", "low-byte-shared-scan")
_REPLACEMENT_TEXT = {"percent-encoded": "invalid UTF-8 left percent-encoded",
                     "dotnet": "one U+FFFD per invalid sequence as .NET counts them ('ED A0 "
                     "80' two)",
                     "dropped": "invalid UTF-8 dropped",
                     "surrogateescape": "each byte of invalid UTF-8 as a lone surrogate"}


def _replaced_impact(params: dict[str, Any]) -> str:
    """changes-data for `undecoded`, `percent-encoded` and `surrogateescape`, else
    loses-data"""
    mode = str(params.get("mode", ""))
    return "changes-data" if mode in ("undecoded", "percent-encoded", "surrogateescape") \
        else "loses-data"


@rule((DECODE, FORM_PARSE), _replaced_impact)
def replacement(mode: str) -> Reconciler:
    """The answer is text: invalid UTF-8 becomes U+FFFD, one ``per-byte`` or one
    ``per-sequence`` (maximal subpart, Encoding Standard 4.1 UTF-8 decoder, what the
    form parser does); ``dotnet``: per maximal subpart, but a lead byte and a
    continuation byte out of its range are one (``ED A0 80`` is two U+FFFD, not three:
    .NET Framework's ``UTF8Encoding``, Mono's). For decode, where the reference answers
    bytes, the text is compared as UTF-8; form-parse differs only ``per-byte`` and
    ``dotnet``. ``percent-encoded``: each invalid sequence is written back as ``%HH``
    (Werkzeug's ``werkzeug.url_quote`` error handler); ``dropped``: each is removed
    (``urllib.parse.unquote(errors="ignore")``); ``surrogateescape``: each byte of it is
    the lone surrogate U+DC80 + (byte - 0x80) (PEP 383,
    ``unquote(errors="surrogateescape")``: no byte is lost, but the text is no scalar
    value string). ``undecoded`` (decode only): when the decoded
    bytes are not UTF-8, the answer is the input as given, no escape decoded
    (hyperlink's ``to_iri``).
    ``low-byte``: when they are not UTF-8 or a ``%`` starts no escape, each UTF-16 code
    unit of the text that is no escape stands for its low byte, then one U+FFFD per
    sequence (Node's ``querystring.unescapeBuffer`` fallback, a real bug);
    ``low-byte-shared-scan`` (form-parse): so, but a value is decoded when its name
    holds two escapes, as ``querystring.parse``'s scan for an escape shares its state
    between the name and the value (a second real bug: ``"%aa%aa=\\x80%"``)."""
    if mode not in _REPLACEMENT_MODES:
        raise UsageError(f"replacement: mode must be one of {', '.join(_REPLACEMENT_MODES)}")
    if mode == "undecoded":
        return _undecoded()
    if mode.startswith("low-byte"):
        return _low_byte(shared_scan=mode == "low-byte-shared-scan")
    # A model field, so it composes with the decoder's other ways (escapes kept,
    # decoded twice, ';' as a separator): each answers the case, then this writes
    # invalid UTF-8 of the result (mdurl keeps some escapes and writes U+FFFD per byte:
    # one first-difference finding per mix before).
    return _declared("replacement", {DECODE.name, FORM_PARSE.name}, Model(replacement=mode),
                     "the bytes (decode); one U+FFFD per maximal invalid UTF-8 subpart",
                     _REPLACEMENT_TEXT.get(
                         mode, f"one U+FFFD {mode.replace('-', ' ')} of invalid UTF-8"))


def _undecoded() -> Reconciler:
    """``replacement("undecoded")``: the input unchanged when its decoded bytes are not
    UTF-8 (the text is given back as it came, as UTF-8 bytes)."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised or not isinstance(case, DecodeCase):
            return None
        value = case.value  # (from the case, as the other modes: an accepted entry
        try:  # of the same phase may have replaced ``expected``)
            percent_decode(value if isinstance(value, bytes) else
                           surrogates_to_fffd(value)).decode("utf-8")
        except UnicodeDecodeError:
            return Outcome(value.encode("utf-8", "surrogatepass") if isinstance(value, str)
                           else value), actual
        return None

    return Reconciler("replacement", frozenset({DECODE.name}), reconcile,
                      "the bytes, decoded", "the input undecoded when it is not UTF-8",
                      REPLACE)


# --- Node's unescapeBuffer fallback (``replacement("low-byte")``: ``accept.javascript``) ---
def _low_byte(shared_scan: bool = False) -> Reconciler:
    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        if isinstance(case, DecodeCase) and isinstance(case.value, str):
            return Outcome(node_unescape(case.value).encode("utf-8")), actual
        if isinstance(case, FormParseCase) and isinstance(case.text, str):
            # URLSearchParams takes a USVString (WebIDL): a lone surrogate is U+FFFD
            # before its scan; querystring.parse scans the code units as they are.
            text = case.text if shared_scan else surrogates_to_fffd(case.text)
            pairs = []
            for sequence in text.split("&"):
                if sequence:
                    name, _, value = sequence.partition("=")
                    marks = querystring_scan(sequence) if shared_scan else (None, None)
                    pairs.append((node_unescape(name, True, marks[0]),
                                  node_unescape(value, True, marks[1])))
            return Outcome(pairs), actual
        return None

    checks = {FORM_PARSE.name} if shared_scan else {DECODE.name, FORM_PARSE.name}
    return Reconciler("replacement", frozenset(checks), reconcile,
                      "the bytes, decoded; one U+FFFD per maximal invalid UTF-8 subpart",
                      "when the text does not decode, the low byte of each other code unit"
                      + (", a value decoded after a name with two escapes" if shared_scan
                         else ""),
                      REPLACE)


@rule((FORM_PARSE,), "loses-data")
def needs_equals(scope: str = "text") -> Reconciler:
    """A form-parse text without ``=`` is no form: no pairs (Perl URI's ``query_form``:
    'return unless $old =~ /=/'); ``scope="sequence"``: each ``&``-separated sequence
    without ``=`` is dropped (a parser that skips what is not ``name=value``). WHATWG
    URL 5.1 reads "a" as the pair ("a", "")."""
    if scope not in ("text", "sequence"):
        raise UsageError(f"needs_equals: scope must be 'text' or 'sequence', not {scope!r}")
    return _declared("needs_equals", {FORM_PARSE.name}, Model(needs_equals=scope),
                     "a sequence without '=' is a name with an empty value",
                     "a text without '=' has no pairs" if scope == "text"
                     else "a sequence without '=' is dropped")


# --- '+' decoded as a space (phase REPLACE) ---------------------------------------------------
@rule((DECODE,), "changes-data")
def plus_as_space() -> Reconciler:
    """A decoder reads ``+`` as a space, then percent-decodes (a form decoder, URL 5.1
    step 3.3: Go's QueryUnescape, PHP's urldecode, Java's URLDecoder, Ruby's
    CGI.unescape); the reference's percent-decode (1.3) keeps it. A model field, so it
    composes with the decoder's invalid-UTF-8 mode and kept escapes."""
    return _declared("plus_as_space", {DECODE.name}, Model(plus_as_space=True), "keeps '+'",
                     "decodes '+' as a space")


@rule((DECODE,), "changes-data")
def percent_u() -> Reconciler:
    """A decoder reads ``%uXXXX`` as the UTF-16 code unit XXXX: ``%u0041`` is ``A``, a
    high and a low unit in a row one character, a lone unit U+FFFD, where the reference
    keeps it as it is (WHATWG URL 1.3: ``u`` is no hex digit). ECMA-262 B.2.1.2
    ``unescape``; .NET's ``HttpUtility.UrlDecode``, which reads what its
    ``UrlEncodeUnicode`` writes. A model field: it composes with ``plus_as_space`` and
    the replacement of invalid UTF-8 (``%u002B`` stays a ``+``)."""
    return _declared("percent_u", {DECODE.name}, Model(percent_u=True),
                     "keeps '%u0041' as it is", "'%u0041' is 'A'")


@rule((DECODE, FORM_PARSE), "loses-data")
def latin1_chars() -> Reconciler:
    """A decoder writes each UTF-16 code unit of the text on its own: one below 256 as
    that one byte (its Latin-1), not as its UTF-8, a surrogate half as U+FFFD, before it
    reads the bytes as UTF-8, where the reference writes each character's UTF-8 (WHATWG
    URL 1.3 percent-decode a string): a raw ``é`` becomes the byte E9, invalid UTF-8,
    and an astral character two U+FFFD. Mono's ``HttpUtility.UrlDecode`` (its
    ``WriteCharBytes`` writes a char below 256 as ``(byte) ch``, a real bug; with
    ``percent_u``, each ``%uXXXX`` so too; a text with no ``%`` and no ``+`` it returns
    as it is; ``ParseQueryString`` decodes each name and value so). A model field: it
    composes with ``plus_as_space``, ``percent_u`` and the replacement of invalid UTF-8,
    and in a form parser with its way of splitting and grouping."""
    return _declared("latin1_chars", {DECODE.name, FORM_PARSE.name}, Model(latin1_chars=True),
                     "writes 'é' as its UTF-8 (C3 A9)", "writes 'é' as the byte E9")


@rule((DECODE,), "changes-data")
def signed_escapes() -> Reconciler:
    """A decoder reads an escape's two characters as a signed hex number: ``%+1`` is the
    byte 0x01 and ``%-0`` a NUL, where the reference keeps both as they are (WHATWG URL
    1.3: a ``%`` not followed by two hex digits is data). Java's ``URLDecoder`` before
    JDK-8353453 (``Integer.parseInt(s, 16)`` takes a sign). A model field, so it composes
    with '+' as a space and the replacement of invalid UTF-8."""
    return _declared("signed_escapes", {DECODE.name}, Model(signed_escapes=True),
                     "keeps %+H and %-0 as they are",
                     "reads %+H as the byte 0H and %-0 as a NUL byte (a signed hex number)")


# --- an unencodable character as '?' (phase REPLACE) ------------------------------------------
@rule((ENCODE, FORM_SERIALIZE), "loses-data")
def unmappable_replaced() -> Reconciler:
    """A character the encoding cannot encode, or a lone surrogate, is the byte ``?``
    (Python's codec of the encoding's name, ``errors="replace"``), then percent-encoded
    by the set; the reference writes ``&#N;`` or refuses a lone surrogate (URL Standard
    1.3, the encoder's error mode html). Java's ``String.getBytes``: 'replaces
    malformed-input and unmappable-character sequences with this charset's default
    replacement byte array' (URLEncoder). A model field: it composes with the set and
    ``whole_characters``."""
    return _declared("unmappable_replaced", {ENCODE.name, FORM_SERIALIZE.name},
                     Model(unmappable=True),
                     "&#N; for an unencodable character; refuses a lone surrogate",
                     "'?' (%3F) for an unencodable character or a lone surrogate")


@rule((ENCODE, FORM_SERIALIZE), "cosmetic")
def whole_characters() -> Reconciler:
    """Every byte of a character is percent-encoded when one of them is: an ASCII byte
    inside a Shift_JIS character too (``'Б'`` is ``%84%41``, where WHATWG URL 1.3
    percent-encodes byte by byte: ``%84A``). Java's URLEncoder: 'each byte is
    represented by the 3-character string "%xy"'. Both decode to the same bytes."""
    return _declared("whole_characters", {ENCODE.name, FORM_SERIALIZE.name},
                     Model(whole_characters=True),
                     "each byte encoded by the set (%84A)",
                     "every byte of a character encoded when one is (%84%41)")


# --- names made a language's variables (phase REPLACE) --------------------------------------
def _php_variables(text: str | bytes) -> list[tuple[str, str]]:
    """PHP's ``parse_str`` (php-src main/php_variables.c: php_default_treat_data and
    php_register_variable_ex, names without '['): the text ends at its first NUL (a C
    string), empty sequences are skipped; in a name leading spaces are dropped, it ends
    at a NUL, ' ' and '.' become '_', an empty one is dropped; the pairs are an array,
    so a repeated name keeps its first place and its last value."""
    data = text if isinstance(text, bytes) else surrogates_to_fffd(text).encode("utf-8")
    data = data.split(b"\0", 1)[0]
    found: dict[bytes, bytes] = {}
    for name, value in form_urldecode_bytes(data):
        name = name.lstrip(b" ").split(b"\0", 1)[0]
        if name:
            found[name.replace(b" ", b"_").replace(b".", b"_")] = value
    return [(n.decode("utf-8", "replace"), v.decode("utf-8", "replace"))
            for n, v in found.items()]


#: style -> the form parser whose pairs are that language's variables.
_MANGLED: Mapping[str, Callable[[str | bytes], list[tuple[str, str]]]] = {
    "php": _php_variables,
}
MANGLING_STYLES = tuple(_MANGLED)
#: A text each style answers apart from the reference (``names_mangled``'s probe).
MANGLING_PROBE = "a.b=1&a b=2& c=3"


def mangled_pairs(style: str, text: str | bytes) -> list[tuple[str, str]]:
    """The pairs a form parser of ``style`` answers for ``text``."""
    return _MANGLED[style](text)


@rule((FORM_PARSE,), "changes-data")
def names_mangled(style: str) -> Reconciler:
    """The form parser makes each name a variable of ``style``'s language, as one
    behaviour: ``php`` (``parse_str``, ``$_GET``: '.' and ' ' as '_', leading spaces and
    empty names dropped, a repeated name's last value in its first place, the text up
    to a NUL; PHP manual, Variables From External Sources)."""
    if style not in _MANGLED:
        raise UsageError(f"names_mangled: style must be one of {', '.join(_MANGLED)}")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised or not isinstance(case, FormParseCase):
            return None
        return Outcome(mangled_pairs(style, case.text)), actual

    return Reconciler("names_mangled", frozenset({FORM_PARSE.name}), reconcile,
                      "every sequence as a (name, value) pair",
                      f"names made {style.upper()} variables", REPLACE)


#: What each kind of ``refuses`` is called in its finding's words.
_REFUSED = {"lone-surrogate": "a lone surrogate", "invalid-utf8": "invalid UTF-8",
            "invalid-percent": "an invalid %", "control-char": "a control character",
            "c0-control": "a C0 control, raw or escaped", "non-ascii": "a non-ASCII character"}


@rule(OPERATIONS, "crash")
def refuses(input: str, raised: str | None = None) -> Reconciler:
    """The implementation raises for an input holding ``input`` (``lone-surrogate``,
    ``invalid-utf8`` as given or once decoded, ``invalid-percent``: a ``%`` without two
    hex digits, ``control-char``: a C0 control or DEL as given, ``c0-control``: a C0
    control as given, or once decoded by a decoder or form parser, ``non-ascii``: a
    character or byte above 7F as given), where the reference answers. ``raised``: only
    an exception of this type (``module.QualName``, builtins without a module): a
    finding names the type it met, so a crash of another type on such input (an
    ``IndexError`` beside a deliberate ``ValueError``) is a finding of its own."""
    if input not in REFUSAL_INPUTS:
        raise UsageError(f"refuses: input must be one of {', '.join(REFUSAL_INPUTS)}")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if actual.error is not None and not expected.raised and input_has(case, input) \
                and (raised is None or refusal_type(actual.error) == raised):
            return actual, actual
        return None

    said = f"refuses an input with {_REFUSED[input]}"
    return Reconciler("refuses", frozenset(CHECKS), reconcile, "answers",
                      said if raised is None else f"{said} ({raised})", REPLACE)


def pairs_surrogates_to_fffd(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
    """A ``Reconcile`` for a form parser that kept the input's lone surrogates (the
    reference writes U+FFFD, WHATWG URL 5.1 after WebIDL's USVString conversion): write
    them as U+FFFD in the implementation's answer, if it kept exactly those."""
    if actual.raised or not isinstance(case, FormParseCase) or not isinstance(case.text, str):
        return None
    pairs: list[tuple[str, str]] = actual.value
    kept = sum(count_lone_surrogates(n) + count_lone_surrogates(v) for n, v in pairs)
    if kept != count_lone_surrogates(case.text):
        return None
    return expected, Outcome([(surrogates_to_fffd(n), surrogates_to_fffd(v)) for n, v in pairs])

