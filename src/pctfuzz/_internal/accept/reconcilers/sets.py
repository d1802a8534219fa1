"""The rules of an encoder's set (WHATWG URL 1.3, percent-encode sets; 5.2 for a form
serializer): which characters it writes as themselves and which as ``%HH``, how it
writes a space and the hex digits, what else it writes a character as
(``written_as``), and ``requoted``: a ``%HH`` already in the input kept as an escape
(RFC 3986 2.4). ``both_refuse`` (a refusal the reference shares) is defined here
too, where the catalogue lists it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pctfuzz._internal.accept.entry import REPLACE
from pctfuzz._internal.accept.meaning import CONTROLS, DELIMITERS
from pctfuzz._internal.accept.model import REQUOTE_MODES, Model
from pctfuzz._internal.accept.reconcilers.base import (
    Reconciler,
    _chars,
    _declared,
    _Pair,
    rule,
)
from pctfuzz._internal.cases import Case, EncodeCase, FormCase
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.operations import ENCODE, FORM_SERIALIZE, OPERATIONS
from pctfuzz._internal.outcome import CHECKS, Outcome, Reconcile
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import FORM, PercentEncodeSet, get_set
from pctfuzz._internal.spec import PERCENT_ENCODED_BYTE

__all__ = [
    "PARTS",
    "SPACES",
    "both_refuse",
    "encode_model",
    "encoded",
    "left_raw",
    "lowercase_hex",
    "other_set",
    "requoted",
    "set_change",
    "space_as",
    "written_as",
    "written_templates",
    "written_text",
]


def _adjusted(set_name: str, add: frozenset[int], remove: frozenset[int]) -> PercentEncodeSet:
    base = get_set(set_name)
    return PercentEncodeSet(f"{base.name} (adjusted)", (base.members | add) - remove,
                            base.source, base.space_as_plus)


def encode_model(case: EncodeCase, pes: PercentEncodeSet) -> str:
    return percent_encode(case.value, pes, encoding=case.encoding,
                          space_as_plus=case.space_as_plus)


def _form_model(case: FormCase, pes: PercentEncodeSet) -> str:
    def field(text: str) -> str:
        return percent_encode(text, pes, encoding=case.encoding, space_as_plus=True)

    return "&".join(field(n) + "=" + field(v) for n, v in case.pairs)


def set_change(add: frozenset[int], remove: frozenset[int]) -> Reconcile:
    """The implementation's set is the case's set plus ``add`` minus ``remove``."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        if isinstance(case, EncodeCase):
            return Outcome(encode_model(case, _adjusted(case.set_name, add, remove))), actual
        if isinstance(case, FormCase):
            return Outcome(_form_model(case, _adjusted(FORM.name, add, remove))), actual
        return None

    return reconcile


def _raw_impact(params: dict[str, Any]) -> str:
    """splits-field for a delimiter or an ASCII control (but '=' in a form's values: a
    parser splits a pair at its first '=', URL 5.1 step 3.2), else cosmetic"""
    chars = set(str(params.get("chars", "")))
    if params.get("part") == "values":
        chars.discard("=")
    return "splits-field" if chars & set(DELIMITERS + CONTROLS) else "cosmetic"


def _escaped_impact(params: dict[str, Any]) -> str:
    """changes-data for a delimiter, else cosmetic"""
    return "changes-data" if set(str(params.get("chars", ""))) & set(DELIMITERS) else "cosmetic"


def _other_set_impact(params: dict[str, Any]) -> str:
    """splits-field for a delimiter or an ASCII control among `raw`, else cosmetic"""
    return _raw_impact({"chars": params.get("raw", "")})


@rule((ENCODE, FORM_SERIALIZE), _raw_impact)
def left_raw(chars: str, part: str | None = None, non_ascii: bool = False) -> Reconciler:
    """CHARS written as themselves where the reference writes ``%HH`` (WHATWG URL 1.3);
    ``part`` (a form serializer only): in its ``names`` or its ``values`` only;
    ``non_ascii``: each character above U+007F too, where the reference writes its
    UTF-8 bytes' escapes (harmless characters are one finding together: a raw ``é``
    and a raw ``!`` are one behaviour of a set, ``accept.meaning``)."""
    if non_ascii and part not in (None, "names", "values"):
        raise UsageError(f"left_raw: non_ascii in part {part!r}: only names or values")
    wide = Model(raw_non_ascii=frozenset({part or "all"})) if non_ascii else Model()
    if part is not None:
        return _in_part("left_raw", chars, part, wide)
    shown = _shown(chars, non_ascii)
    codes = _chars(chars) if chars or not non_ascii else frozenset()
    return _declared("left_raw", {ENCODE.name, FORM_SERIALIZE.name}, Model(raw=codes).merge(wide),
                     f"percent-encodes {shown} (in the set)", f"leaves {shown} as is")


@rule((ENCODE, FORM_SERIALIZE), _escaped_impact)
def encoded(chars: str, part: str | None = None) -> Reconciler:
    """CHARS also written as ``%HH`` (the implementation's set is larger); ``part`` as
    for ``left_raw``."""
    if part is not None:
        return _in_part("encoded", chars, part)
    return _declared("encoded", {ENCODE.name, FORM_SERIALIZE.name}, Model(encoded=_chars(chars)),
                     f"leaves {chars!r} as is (outside the set)", f"percent-encodes {chars!r}")


#: The ways a writer may write a space (``space_as``, ``other_set``'s ``space``).
SPACES = ("%20", "+")


@rule((ENCODE, FORM_SERIALIZE), _other_set_impact)
def other_set(raw: str, encoded: str = "", space: str | None = None,
              part: str | None = None) -> Reconciler:
    """Another standard's set, in both directions at once: RAW written as themselves
    and ENCODED as ``%HH`` where the reference does the opposite (WHATWG URL 1.3), as
    one behaviour: ``quote_plus`` (RFC 3986's unreserved characters: ``~`` raw, ``*``
    encoded) for the application/x-www-form-urlencoded set. ``space``: the set's way
    with a space too, where it is not the reference's (``"%20"``: ``urlencode(...,
    quote_via=quote)``, RFC 3986 percent-encoding for the form's, was two findings, a
    space and the set). ``part`` (a form serializer only): in its ``names`` or its
    ``values`` only (a serializer quoting values with ``quote`` and names otherwise was
    three findings, ``*``, the space and ``~``). Named so when the characters of both
    directions are harmless; a delimiter stays a ``left_raw`` finding of its own
    (``accept.meaning``)."""
    if space is not None and space not in SPACES:
        raise UsageError(f"other_set: space must be '%20' or '+', not {space!r}")
    if part is not None and part not in ("names", "values"):
        raise UsageError(f"other_set: part must be names or values, not {part!r}")
    codes, encodes = _chars(raw), _chars(encoded) if encoded else frozenset()
    model = (Model(raw=codes, encoded=encodes, space=space) if part is None else
             Model(raw_names=codes, encoded_names=encodes, space_names=space)
             if part == "names" else
             Model(raw_values=codes, encoded_values=encodes, space_values=space))
    written = f", writes a space as {space}" if space else ""
    where = "" if part is None else f" in {part}"
    return _declared("other_set", {FORM_SERIALIZE.name} if part else
                     {ENCODE.name, FORM_SERIALIZE.name}, model,
                     f"percent-encodes {raw!r}" + (f", leaves {encoded!r} as is" if encoded
                                                   else "") + where,
                     f"leaves {raw!r} as is" + (f", percent-encodes {encoded!r}" if encoded
                                                else "") + written + where)


#: The parts of a form a set change may be limited to (``left_raw``/``encoded``).
PARTS = ("names", "values", "empty-name-values")


def _shown(chars: str, non_ascii: bool) -> str:
    """``left_raw``'s characters as its text says them."""
    if not non_ascii:
        return repr(chars)
    return f"{chars!r} and every non-ASCII character" if chars else "every non-ASCII character"


def _in_part(name: str, chars: str, part: str, wide: Model | None = None) -> Reconciler:
    """``left_raw``/``encoded`` in the names or the values of a form only, or in the
    values of pairs whose name is empty (``empty-name-values``: furl writes ``=`` raw
    in a value after an empty name only, so that ``?===`` round-trips); ``wide``: the
    non-ASCII characters left raw there too (``left_raw``'s ``non_ascii``)."""
    if part not in PARTS:
        raise UsageError(f"{name}: part must be one of {', '.join(PARTS)}, not {part!r}")
    codes = _chars(chars) if chars or wide is None or not wide.raw_non_ascii else frozenset()
    model = {("left_raw", "names"): Model(raw_names=codes),
             ("left_raw", "values"): Model(raw_values=codes),
             ("left_raw", "empty-name-values"): Model(raw_empty_name_values=codes),
             ("encoded", "names"): Model(encoded_names=codes),
             ("encoded", "values"): Model(encoded_values=codes),
             ("encoded", "empty-name-values"): Model(encoded_empty_name_values=codes),
             }[(name, part)]
    done = "leaves {} as is" if name == "left_raw" else "percent-encodes {}"
    other = "percent-encodes {}" if name == "left_raw" else "leaves {} as is"
    shown = repr(chars)
    if wide is not None and wide.raw_non_ascii:
        model, shown = model.merge(wide), _shown(chars, True)
    return _declared(name, {FORM_SERIALIZE.name}, model,
                     other.format(shown) + f" in {part}", done.format(shown) + f" in {part}")


@rule((ENCODE, FORM_SERIALIZE), "cosmetic")
def space_as(space: str) -> Reconciler:
    """The implementation writes a space as ``space`` (``"%20"`` or ``"+"``) where the
    reference writes the other (a model field: a ``+`` the set leaves raw stays one)."""
    if space not in SPACES:
        raise UsageError(f"space_as: give '%20' or '+', not {space!r}")
    other = "+" if space == "%20" else "%20"
    return _declared("space_as", {ENCODE.name, FORM_SERIALIZE.name}, Model(space=space),
                     f"writes a space as {other}", f"writes a space as {space}")


@rule((ENCODE, FORM_SERIALIZE), "cosmetic")
def lowercase_hex() -> Reconciler:
    """``%hh`` with lowercase hex digits (RFC 3986 2.1: equivalent, uppercase SHOULD).
    A ``%`` of the input that the set leaves raw could be read as a triplet, so the
    entry does not apply then."""
    return _declared("lowercase_hex", {ENCODE.name, FORM_SERIALIZE.name}, Model(lowercase_hex=True),
                     "uppercase hex digits (%2F)", "lowercase hex digits (%2f)")


def _written_impact(params: dict[str, Any]) -> str:
    """loses-data when a text is empty, splits-field when one holds a delimiter raw
    (``&amp;`` splits a query pair at its ``&``), else changes-data"""
    given = params.get("text", "")
    texts = [str(t) for t in given] if isinstance(given, list | tuple) else [str(given)]
    if not all(texts):
        return "loses-data"
    raw = set("".join(PERCENT_ENCODED_BYTE.sub("", text) for text in texts))
    return "splits-field" if raw & set(DELIMITERS) else "changes-data"


#: What a ``written_as`` text may say of the character it is written for: its byte in
#: uppercase or lowercase hex, in decimal (``&#{dec};`` is ``&#60;`` for ``<``), or the
#: character itself (``{c}{c}``: every character doubled).
_PLACEHOLDERS = {"{HH}": "{:02X}", "{hh}": "{:02x}", "{dec}": "{:d}", "{c}": "{:c}"}


def written_text(text: str, code: int) -> str:
    """The text ``written_as`` writes for the character ``code`` (its placeholders
    filled in)."""
    for placeholder, form in _PLACEHOLDERS.items():
        text = text.replace(placeholder, form.format(code))
    return text


def written_templates(code: int, text: str) -> list[str]:
    """``text``, what the character ``code`` is written as, with the character in it as
    a placeholder (``%25{HH}`` for ``+`` written ``%252B``), each way that gives
    ``text`` back: characters written alike share one of them."""
    found = []
    for placeholder, form in _PLACEHOLDERS.items():
        template = text.replace(form.format(code), placeholder)
        if template != text and written_text(template, code) == text:
            found.append(template)
    return found


@rule((ENCODE, FORM_SERIALIZE), _written_impact)
def written_as(chars: str, text: str | list[str] = "") -> Reconciler:
    """CHARS (ASCII) each written as TEXT wherever they are, where the reference writes
    them as themselves or as ``%HH`` (WHATWG URL 1.3): ``&`` as ``&amp;`` (an encoder
    whose answer is HTML-escaped), ``+`` as ``%25{HH}`` (its escape escaped again:
    ``{HH}``, ``{hh}``, ``{dec}`` and ``{c}`` stand for the character's byte in hex or
    decimal, and for itself), every control as ``^``; an empty TEXT drops them; a list
    gives each character its own text, in the characters' code point order (``"<>``
    as ``&quot;``, ``&lt;``, ``&gt;``). An exact answer, so what it does not say
    (``&lt;`` read as ``<``) is another finding."""
    codes = sorted(_chars(chars))
    if isinstance(text, list | tuple):
        if len(text) != len(codes) or not all(isinstance(t, str) for t in text):
            raise UsageError(f"written_as: give one text per character of {chars!r}, "
                             f"in code point order, not {text!r}")
        texts = list(text)
    elif isinstance(text, str):
        texts = [written_text(text, code) for code in codes]
    else:
        raise UsageError(f"written_as: text must be a string or a list, not {text!r}")
    model = Model(written=tuple(zip(codes, texts, strict=True)))
    return _declared("written_as", {ENCODE.name, FORM_SERIALIZE.name}, model,
                     f"writes {chars!r} as itself or %HH", f"writes {chars!r} as {text!r}")


# --- a refusal of both (phase REPLACE): defined here, where the catalogue lists it ----------
@rule(OPERATIONS, "cosmetic")
def both_refuse(types: str | Sequence[str]) -> Reconciler:
    """The reference refuses the case and the implementation raises one of ``types``
    (exception class names, or ``module.Name``)."""
    names = ((types,) if isinstance(types, str) else
             tuple(types) if isinstance(types, list | tuple) else ())  # TOML: types = 5
    if not names or not all(isinstance(n, str) and n for n in names):
        raise UsageError("both_refuse: give one or more exception type names")

    def named(exc: BaseException) -> bool:
        return any(f"{c.__module__}.{c.__qualname__}" in names or c.__name__ in names
                   for c in type(exc).__mro__)

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised and actual.error is not None and named(actual.error):
            return actual, actual
        return None

    return Reconciler("both_refuse", frozenset(CHECKS), reconcile, "refuses the case",
                      f"raises {' or '.join(names)}", REPLACE)


# --- an escape already in an encoder's input ------------------------------------------------
def _requote_impact(params: dict[str, Any]) -> str:
    """splits-field when `decoded` names delimiters, loses-data for `decode-utf8` that
    decodes invalid UTF-8 (or anything: no `decoded`), else changes-data"""
    # an escape of invalid UTF-8 decoded as U+FFFD before it is quoted again: the
    # bytes are gone (urllib's quote(unquote(s)), pip's link cleaning); an escaped '&'
    # decoded and left raw splits the field
    decoded = str(params.get("decoded", "all")).split()
    if "delimiters" in decoded:
        return "splits-field"
    if params.get("mode") != "decode-utf8":
        return "changes-data"
    return "loses-data" if "invalid" in decoded or "all" in decoded else "changes-data"


#: What ``requoted``'s ``decoded`` may name, and the modes that take it.
DECODED_MEANINGS = ("harmless", "delimiters", "invalid", "all")
DECODING_MODES = ("decode-safe", "decode-utf8")


@rule((ENCODE,), _requote_impact)
def requoted(mode: str, scope: str | None = None, kept: str | None = None,
             decoded: str | None = None) -> Reconciler:
    """A valid ``%HH`` already in the input is an escape, not data (RFC 3986 2.4); the
    rest is encoded as the reference encodes it. ``mode``: ``keep`` (the escape is
    copied), ``upper`` (copied with uppercase hex), ``decode-unreserved`` (an escape of
    ALPHA DIGIT ``-._~`` is written as the character, others copied: requests'
    ``unquote_unreserved``), ``normalize`` (RFC 3986 6.2.2's percent-encoding
    normalization: an escape of ALPHA DIGIT ``-._~`` written as the character, others
    with uppercase hex), ``decode-safe`` (written as the character when the set leaves
    it raw, else uppercased: yarl's requoting), ``decode-utf8`` (each run of escapes
    decoded as UTF-8, U+FFFD for an invalid sequence, then encoded with the set:
    ``quote(unquote(s), safe)``, furl's paths).
    ``scope="segments"``: each '/'-separated segment on its own, requoted only when it
    is "valid encoded" (letters, digits, the set's raw characters and valid escapes
    only; any other is encoded as data), a decoded '/' written %2F: furl's path.
    ``kept``: the escapes of these ASCII characters stay as they are (uppercased), and
    the text is requoted apart on each side of them (pip's link cleaning keeps
    ``%2F`` and ``%40``, so a decoded ``/`` never adds a path segment).
    ``decoded`` (``decode-utf8``, ``decode-safe``): what it decodes, by what it means,
    space-separated: ``invalid`` (bytes that are not UTF-8, written U+FFFD: data lost),
    ``delimiters`` (a delimiter of ``accept.meaning.DELIMITERS`` that comes out raw, an
    escaped ``&`` as ``&``: the field split), ``harmless`` (any other character), ``all``
    (the default); the other escapes are data, as the reference reads them
    (``decode-safe``: copied, uppercased). The delimiters are one finding, not one each
    as ``left_raw``'s: they are one decoding, a one-line fix, and a hold-out library's
    requoting was eight findings so. A finding
    names what its case showed, so a harmless requoting and the data it loses, or the
    delimiter it lets out, are findings of their own."""
    if mode not in REQUOTE_MODES:
        raise UsageError(f"requoted: mode must be one of {', '.join(REQUOTE_MODES)}")
    if scope not in (None, "segments"):
        raise UsageError(f"requoted: scope must be 'segments' or left out, not {scope!r}")
    where = " in each valid segment" if scope else ""
    if kept is not None:
        where += f", the escapes of {kept!r} kept as they are"
    meanings = None if decoded is None else frozenset(decoded.split())
    if meanings is not None and (mode not in DECODING_MODES or not meanings or any(
            m not in DECODED_MEANINGS for m in meanings)):
        raise UsageError("requoted: decoded is for modes decode-utf8 and decode-safe: one "
                         f"or more of {', '.join(DECODED_MEANINGS)}")
    if meanings is not None and "all" not in meanings:
        said = {"invalid": "invalid UTF-8 as U+FFFD", "harmless": "plain characters",
                "delimiters": "escaped delimiters, raw where the set leaves them raw"}
        where += ": " + ", ".join(said[m] for m in sorted(meanings))
    return _declared("requoted", {ENCODE.name},
                     Model(requote=mode, requote_segments=scope == "segments",
                           requote_kept=_chars(kept) if kept is not None else frozenset(),
                           requote_decoded=frozenset({"all"}) if mode in DECODING_MODES
                           and meanings is None else meanings),
                     "an existing %HH is data: its % is encoded as %25 when in the set",
                     f"an existing %HH is an escape ({mode}){where}")
