"""The rules that transform the input, or the structure it is read with, before the
model answers (fields of the composed model, most of them): characters removed or
trimmed (WHATWG URL 4.4 basic URL parser, steps 1 and 3), the input cut at a
delimiter, Unicode normalization, decoding twice or before the split (5.1), ``+``
and ``;`` in a form, HTML character references, escapes kept or uppercased, lone
surrogates, and raw bytes read as latin-1.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from typing import Any

from pctfuzz._internal.accept.decoders import PREDECODE_DELIMITERS
from pctfuzz._internal.accept.entry import REPLACE, REWRITE
from pctfuzz._internal.accept.html_refs import HTML_MODES
from pctfuzz._internal.accept.model import Model
from pctfuzz._internal.accept.reconcilers.base import (
    Reconciler,
    _chars,
    _declared,
    _Pair,
    rule,
)
from pctfuzz._internal.cases import Case, EncodeCase
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE, OPERATIONS
from pctfuzz._internal.outcome import CHECKS, Outcome
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import get_set

__all__ = [
    "CUT_CHARS",
    "DECODE_PARTS",
    "cut_at",
    "decoded_before_split",
    "decoded_repeatedly",
    "decoded_twice",
    "dot_segments",
    "escapes_uppercased",
    "html_unescaped",
    "kept_encoded",
    "latin1_bytes",
    "lone_surrogates",
    "newlines_normalized",
    "normalized",
    "normalized_escaped",
    "plus_kept",
    "removed",
    "semicolon_separates",
    "trimmed",
]


_NAMED_CHARS = {"\t": "TAB", "\n": "LF", "\r": "CR", " ": "space", "\x00": "NUL"}


def _char_names(chars: str) -> str:
    return " ".join(_NAMED_CHARS.get(c, repr(c)) for c in chars)


def _space_chars(chars: str) -> str:
    """``chars`` of ``removed``/``trimmed``: C0 controls, space and other whitespace
    (Python's ``str.strip()`` also strips U+0085, U+00A0, U+2000...), sorted."""
    if not isinstance(chars, str) or not chars or not all(
            c.isspace() or ord(c) < 0x21 for c in chars):
        raise UsageError(f"characters {chars!r}: give C0 controls, space or other whitespace")
    return "".join(sorted(set(chars)))


@rule(OPERATIONS, "loses-data")
def removed(chars: str) -> Reconciler:
    """CHARS are removed from the input first (the URL parser removes ASCII tab or
    newline, WHATWG URL 4.4 basic URL parser step 3)."""
    return _declared("removed", set(CHECKS), Model(remove=_space_chars(chars)),
                     "keeps every character", f"removes {_char_names(chars)} from the input")


@rule((ENCODE,), "loses-data")
def dot_segments(escaped: bool = False, past_root: bool = False) -> Reconciler:
    """The input is a path whose dot segments are resolved before it is encoded: each
    ``.`` segment dropped, each ``..`` dropping the segment before it (RFC 3986 5.2.4
    remove_dot_segments); ``escaped``: ``%2e`` in either case spells a dot there too
    (URL Standard 4.4 path state, the single-dot and double-dot URL path segments), so
    an escaped dot is no way around the resolution; ``past_root``: a ``..`` drops the
    empty segment before a leading '/' too (the value resolved below a root of the
    implementation's own: ``/../b`` as ``b``, where RFC 3986 keeps ``/b``)."""
    for name, value in (("escaped", escaped), ("past_root", past_root)):
        if not isinstance(value, bool):
            raise UsageError(f"dot_segments: {name} must be true or false, not {value!r}")
    spelled = " or %2e" if escaped else ""
    return _declared("dot_segments", {ENCODE.name},
                     Model(dots=("escaped" if escaped else "raw")
                           + (" past-root" if past_root else "")),
                     "keeps '.' and '..' segments",
                     f"resolves '.' and '..'{spelled} segments (RFC 3986 5.2.4)"
                     + (", past the root" if past_root else ""))


#: Where ``trimmed`` strips a form parser's fields: (names, values), and the words.
_TRIMMED_PARTS = {"fields": (True, True, "each name and value"),
                  "names": (True, False, "each name"), "values": (False, True, "each value")}


@rule(OPERATIONS, "loses-data")
def trimmed(chars: str, part: str | None = None) -> Reconciler:
    """CHARS are stripped from both ends of each input text first (the URL parser
    strips leading and trailing C0 control or space, WHATWG URL 4.4 step 1; Python's
    ``str.strip()`` strips Unicode whitespace too); ``part`` (form-parse): from both
    ends of each decoded name and value instead (``fields``: ``name.strip()``,
    ``value.strip()``), of each name only (``names``) or each value only
    (``values``); ``decoded`` (decode): from both ends of the decoded text
    (``unquote(s).strip()``: ``%20`` at an end goes too); ``start``: from the start of
    each input text only (Python's ``urlsplit`` strips leading C0 control or space,
    ``lstrip``, since bpo-43882); ``end``: from the end of each input text only
    (``rstrip``: a parser that drops what trails its query)."""
    if part is not None and part not in (*_TRIMMED_PARTS, "decoded", "start", "end"):
        raise UsageError(f"trimmed: part must be one of {', '.join(_TRIMMED_PARTS)}, "
                         f"decoded, start, end or left out, not {part!r}")
    if part == "decoded":
        return _trimmed_decoded(_space_chars(chars))
    if part == "start":
        return _declared("trimmed", set(CHECKS), Model(trim_start=_space_chars(chars)),
                         "keeps every character",
                         f"trims {_char_names(chars)} from the start")
    if part == "end":
        return _declared("trimmed", set(CHECKS), Model(trim_end=_space_chars(chars)),
                         "keeps every character",
                         f"trims {_char_names(chars)} from the end")
    if part:
        names, values, where = _TRIMMED_PARTS[part]
        space = _space_chars(chars)
        return _declared("trimmed", {FORM_PARSE.name},
                         Model(trim_names=space if names else "",
                               trim_values=space if values else ""),
                         "keeps every character",
                         f"trims {_char_names(chars)} from the ends of {where}")
    return _declared("trimmed", set(CHECKS), Model(trim=_space_chars(chars)),
                     "keeps every character", f"trims {_char_names(chars)} from the ends")


def _trimmed_decoded(space: str) -> Reconciler:
    """``trimmed(part="decoded")``: a rewrite of the answer, the last phase, so it
    strips what the decoder's other ways made (its U+FFFD, a cut), as
    ``unquote(s).strip()`` does; what is not UTF-8 stays as its bytes."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        value = expected.value
        if expected.raised or not isinstance(value, bytes):
            return None
        text = value.decode("utf-8", "surrogateescape")
        if text.strip(space) == text:
            return None
        return Outcome(text.strip(space).encode("utf-8", "surrogateescape")), actual

    return Reconciler("trimmed", frozenset({DECODE.name}), reconcile, "keeps every character",
                      f"trims {_char_names(space)} from the ends of the decoded text", REWRITE)


#: The characters ``cut_at`` may end an input at: the URL delimiters that end a
#: component or a field (RFC 3986 2.2's gen-delims, which end the userinfo, host, path
#: and query, 3.2-3.4; a form's '&', ';' and '='), and NUL (a C string's end). pip's
#: userinfo split ends a user name at ':' (its password's start).
CUT_CHARS = "#?\x00/:@[]&;="


@rule(OPERATIONS, "loses-data")
def cut_at(chars: str) -> Reconciler:
    """Each input text ends before its first character of CHARS (``CUT_CHARS``: ``#``,
    ``?``, NUL, ...): the answer is the reference's for the input up to there (a URL
    parser reads what follows a ``#`` as the fragment, RFC 3986 3.4; Go's ``RawQuery``;
    a user name ends at ':', 3.2.1)."""
    codes = _chars(chars)
    if not codes <= set(map(ord, CUT_CHARS)):
        raise UsageError(f"cut_at: chars must be among {', '.join(map(repr, CUT_CHARS))}, "
                         f"not {chars!r}")
    return _declared("cut_at", set(CHECKS), Model(cut="".join(sorted(map(chr, codes)))),
                     "the whole input", f"the input up to the first {_char_names(chars)}")


_FORMS = ("NFC", "NFKC", "NFD", "NFKD")


@rule((ENCODE, FORM_SERIALIZE), "changes-data")
def normalized(form: str) -> Reconciler:
    """The text is Unicode-normalized (``form``: NFC, NFKC, NFD or NFKD) before it is
    encoded (RFC 3987 5.3.2.2 for IRIs: NFC)."""
    if form not in _FORMS:
        raise UsageError(f"normalized: form must be one of {', '.join(_FORMS)}")
    return _declared("normalized", {ENCODE.name, FORM_SERIALIZE.name}, Model(normalize=form),
                     "encodes the text as given", f"normalizes the text to {form} first")


@rule((ENCODE, FORM_SERIALIZE), "changes-data")
def newlines_normalized() -> Reconciler:
    """Every newline of the text (CR LF, a CR alone, an LF alone) is written CR LF
    before it is encoded, as HTML's form submission normalizes newlines in names and
    values (HTML "constructing the entry list": "normalize newlines")."""
    return _declared("newlines_normalized", {ENCODE.name, FORM_SERIALIZE.name},
                     Model(crlf=True), "encodes each newline as given",
                     "writes every newline (CR, LF, CR LF) as CR LF")


@rule((ENCODE,), "changes-data")
def normalized_escaped(form: str) -> Reconciler:
    """The text is escaped by the set but for its non-ASCII characters, the result
    Unicode-normalized (``form``), then its non-ASCII characters encoded as UTF-8: an
    escape's last hex digit can compose with a combining mark that follows it (``%1A``
    then U+0300 reads ``%1`` then U+00C0). Java's ``URI.toASCIIString`` (OpenJDK
    java/net/URI.java: encode(toString()) normalizes the quoted string to NFC)."""
    if form not in _FORMS:
        raise UsageError(f"normalized_escaped: form must be one of {', '.join(_FORMS)}")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised or not isinstance(case, EncodeCase) or not isinstance(case.value, str) \
                or case.value.isascii():
            return None
        pes = get_set(case.set_name)
        quoted = "".join(c if not c.isascii() else
                         percent_encode(c, pes, space_as_plus=case.space_as_plus)
                         for c in case.value)
        normal = unicodedata.normalize(form, quoted)  # type: ignore[arg-type]
        return Outcome("".join(c if c.isascii() else percent_encode(c, pes)
                               for c in normal)), actual

    return Reconciler("normalized_escaped", frozenset({ENCODE.name}), reconcile,
                      "encodes the text as given",
                      f"normalizes the escaped text to {form}, then encodes non-ASCII",
                      REPLACE)


#: The parts of a form parser's pairs a decoding rule may be limited to.
DECODE_PARTS = ("names", "values")


def _decode_part(rule: str, part: str | None) -> str:
    if part is not None and part not in DECODE_PARTS:
        raise UsageError(f"{rule}: part must be one of {', '.join(DECODE_PARTS)} or left "
                         f"out, not {part!r}")
    return f" in each {part.removesuffix('s')}" if part else ""


@rule((DECODE, FORM_PARSE), "changes-data")
def decoded_twice(part: str | None = None, plus: str | None = None) -> Reconciler:
    """Percent-decoded twice: a ``%25HH`` of the input becomes the byte HH; ``part``
    (form-parse): in each name only (``names``) or each value only (``values``);
    ``plus="space"`` (form-parse): the second decoding reads ``+`` as a space too
    (WHATWG URL 5.1 step 3.3 done again: ``unquote_plus`` run on what ``unquote`` or
    ``unquote_plus`` decoded), so ``%2B`` is a space."""
    where = _decode_part("decoded_twice", part)
    if plus not in (None, "space"):
        raise UsageError(f"decoded_twice: plus must be 'space' or left out, not {plus!r}")
    how = ", '+' as a space the second time" if plus else ""
    model = Model(twice_names=part == "names", twice_values=part == "values") if part \
        else Model(twice=True)
    return _declared("decoded_twice",
                     {FORM_PARSE.name} if part or plus else {DECODE.name, FORM_PARSE.name},
                     replace(model, twice_plus=plus == "space"),
                     "percent-decodes once", f"percent-decodes twice{where}{how}")


@rule((DECODE,), "changes-data")
def decoded_repeatedly() -> Reconciler:
    """Percent-decoded again until nothing changes: ``%252541`` is ``A``, and an escape
    made of decoded characters is decoded too (``%%341``, ``%41`` after one pass, is
    ``A``): a defence against double encoding, as surt's ``unescapeRepeatedly`` and
    Google's URL canonicalizer. The reference decodes once (WHATWG URL 1.3)."""
    return _declared("decoded_repeatedly", {DECODE.name}, Model(until_stable=True),
                     "percent-decodes once", "percent-decodes until nothing changes")


def _predecoded_impact(params: dict[str, Any]) -> str:
    """splits-field for `&`, `;` or `=`, else changes-data"""
    return "splits-field" if set(str(params.get("chars", ""))) & set("&;=") else "changes-data"


@rule((FORM_PARSE,), _predecoded_impact)
def decoded_before_split(chars: str) -> Reconciler:
    """The whole text is percent-decoded before it is split into pairs, which are then
    decoded again (``parse_qs(unquote(query))``); the reference splits first (WHATWG
    URL 5.1 steps 1-3). Each delimiter it shows is a finding of its own, as they mean
    different things: CHARS ``&`` or ``;`` (an escaped separator splits a pair), ``=``
    (an escaped ``=`` in a name ends it), ``+`` (``%2B`` read as a space), ``%`` (every
    other escape: ``%2541`` decoded twice, ``%%341`` made an escape and decoded)."""
    codes = _chars(chars)
    if not codes <= PREDECODE_DELIMITERS | {0x25}:
        raise UsageError(f"decoded_before_split: chars must be some of '%&+;=', not {chars!r}")
    return _declared("decoded_before_split", {FORM_PARSE.name}, Model(predecoded=codes),
                     "splits the text, then decodes each name and value",
                     f"decodes {chars!r} in the whole text before it splits")


@rule((FORM_PARSE,), "changes-data")
def plus_kept(part: str | None = None) -> Reconciler:
    """A ``+`` is read as itself, not as a space (WHATWG URL 5.1 step 3.3 replaces each
    0x2B by 0x20 before percent-decoding): a form parser built on percent-decode alone,
    as ``urllib.parse.unquote`` for ``unquote_plus``; ``part``: in each name only
    (``names``) or each value only (``values``)."""
    where = _decode_part("plus_kept", part)
    model = Model(plus_kept_names=part == "names", plus_kept_values=part == "values") \
        if part else Model(plus_kept=True)
    return _declared("plus_kept", {FORM_PARSE.name}, model, "reads + as a space",
                     f"keeps + as +{where}")


@rule((FORM_PARSE,), "splits-field")
def semicolon_separates() -> Reconciler:
    """``;`` separates pairs as ``&`` does (HTML 4.01 B.2.2; WHATWG URL 5.1 splits on
    ``&`` only)."""
    return _declared("semicolon_separates", {FORM_PARSE.name}, Model(semicolon=True),
                     "only & separates pairs", "; separates pairs too")


@rule((FORM_PARSE,), "splits-field")
def html_unescaped(mode: str) -> Reconciler:
    """The parser reads the HTML character references of the whole text before it
    splits it: ``&amp;`` and ``&#38;`` separate pairs, ``&#61;`` is an ``=``, ``&lt;`` a
    ``<`` (WHATWG URL 5.1 splits the text as given). ``html5``: the HTML Standard's
    references (13.2.5.72; Python's ``html.unescape``); ``mono``: Mono's
    ``HttpEncoder.HtmlDecode`` (HTML 4.01's names, a reference read only when ended by
    ``;``, an unended number's digits dropped), which its ``ParseQueryString`` runs on
    the query (dotnet/corefx#23582, a real bug)."""
    if mode not in HTML_MODES:
        raise UsageError(f"html_unescaped: mode must be one of {', '.join(HTML_MODES)}")
    return _declared("html_unescaped", {FORM_PARSE.name}, Model(html=mode),
                     "splits the text as given", f"reads its HTML references ({mode}) first")


@rule((ENCODE, FORM_SERIALIZE), "cosmetic")
def escapes_uppercased() -> Reconciler:
    """Each valid ``%hh`` of the input is uppercased before it is encoded, also where its
    ``%`` is data and encoded as ``%25`` (``%%aa`` written ``%25%25AA``: the decoded text
    changes; the reference keeps data as given, WHATWG URL 1.3): urllib3's
    ``_encode_invalid_chars`` uppercases every escape before it decides whether the
    input is already encoded."""
    return _declared("escapes_uppercased", {ENCODE.name, FORM_SERIALIZE.name},
                     Model(upper_escapes=True),
                     "keeps the input's %hh as given",
                     "uppercases each %hh of the input, also where its % is data")


@rule((DECODE, FORM_PARSE), "changes-data")
def kept_encoded(chars: str, hex: str | None = None, part: str | None = None) -> Reconciler:
    """A decoder keeps each escape ``%HH`` of a character of CHARS as it is (any hex
    case), where the reference decodes every ``%HH`` (WHATWG URL 1.3 percent-decode):
    hyperlink's ``to_iri`` keeps the delimiters a fragment cannot hold raw, and ``%``.
    ``hex="upper"``: it writes them with uppercase hex digits (mdurl's decode keeps
    ``%2b`` as ``%2B``). A form parser keeps them in its names and values, or with
    ``part`` in each name only (``names``) or each value only (``values``): a parser
    that decodes nothing, or only its values."""
    if hex not in (None, "upper"):
        raise UsageError(f"kept_encoded: hex must be 'upper' or left out, not {hex!r}")
    where = _decode_part("kept_encoded", part)
    kept = _bytes_of(chars)
    which = "every escape" if len(kept) == 256 else \
        "the escape of every ASCII character" if kept == frozenset(range(0x80)) else \
        f"the escapes of {_char_names(chars)}"
    if part:
        return _declared("kept_encoded", {FORM_PARSE.name},
                         Model(kept_names=kept if part == "names" else frozenset(),
                               kept_values=kept if part == "values" else frozenset(),
                               kept_upper=hex == "upper"),
                         "decodes every %HH", f"keeps {which} encoded{where}")
    return _declared("kept_encoded", {DECODE.name, FORM_PARSE.name},
                     Model(kept=kept, kept_upper=hex == "upper"),
                     "decodes every %HH",
                     f"keeps {which} encoded" + (", in uppercase" if hex else ""))


def _bytes_of(chars: str) -> frozenset[int]:
    """``kept_encoded``'s CHARS as the bytes of their escapes: an ASCII character, or
    U+0080-U+00FF for the byte of that value (``%E9`` is the character U+00E9)."""
    if not isinstance(chars, str) or not chars or any(ord(c) > 0xFF for c in chars):
        raise UsageError(f"characters {chars!r}: give one or more characters of U+0000-U+00FF "
                         "(the bytes whose escapes are kept)")
    return frozenset(map(ord, chars))


_SURROGATE_MODES = ("dropped", "surrogatepass", "replaced", "merged", "question-mark")


@rule(OPERATIONS, "loses-data")
def lone_surrogates(mode: str) -> Reconciler:
    """A lone surrogate of a str input, which is no scalar value (the reference refuses
    it, or writes U+FFFD for a USVString, WHATWG URL 1.3 and Infra): ``dropped`` before
    anything else (yarl's quoter), ``surrogatepass``: encoded as its three bytes
    (``ED A0 80`` for U+D800), which are not UTF-8 (urllib3), or ``replaced``: encoded
    as U+FFFD, as a browser converts a JavaScript string to a USVString (mdurl), or
    ``merged``: with the next code unit, whatever it is, as if it were its low half
    (``"\\ud800a"`` encoded as U+10061: Node's ``querystring.escape``, a real bug), or
    ``question-mark`` (decode, form-parse): read as ``?``, as Python's
    ``text.encode("utf-8", "replace")`` writes it before decoding (an encoder that does
    so is ``unmappable_replaced``)."""
    if mode not in _SURROGATE_MODES:
        raise UsageError(f"lone_surrogates: mode must be one of {', '.join(_SURROGATE_MODES)}")
    checks = set(CHECKS) if mode == "dropped" else \
        {DECODE.name, FORM_PARSE.name} if mode == "question-mark" \
        else {ENCODE.name, FORM_SERIALIZE.name}
    return _declared("lone_surrogates", checks, Model(surrogates=mode),
                     "refuses a lone surrogate, or writes U+FFFD",
                     {"dropped": "drops each lone surrogate",
                      "surrogatepass": "encodes a lone surrogate as its surrogatepass bytes "
                                       "(ED A0 80)",
                      "replaced": "encodes a lone surrogate as U+FFFD",
                      "merged": "encodes a lone surrogate and the next code unit as one "
                                "code point",
                      "question-mark": "reads a lone surrogate as '?'"}[mode])


@rule((DECODE, FORM_PARSE), "changes-data")
def latin1_bytes() -> Reconciler:
    """A bytes input is read as latin-1 text first (each byte one character), then
    decoded as text is: a raw ``\xc3\xa9`` is ``Ã©``, where the reference decodes the
    bytes as UTF-8 (WHATWG URL 5.1): starlette's ``QueryParams(bytes)``, a real bug."""
    return _declared("latin1_bytes", {DECODE.name, FORM_PARSE.name}, Model(bytes_latin1=True),
                     "reads raw bytes as UTF-8", "reads raw bytes as latin-1 text first")
