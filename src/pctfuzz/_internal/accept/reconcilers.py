"""The ready-made reconcilers of user entries, and ``divergence()`` that builds one.

Each reconciler states one difference exactly (``pctfuzz._internal.accept.entry``: it takes that
difference out of the two outcomes and nothing more); ``pctfuzz.accept`` documents
them for users and loads them from ``--accept`` files by the names in ``RECONCILERS``.
They are also the catalogue that names a finding by what explains it
(``pctfuzz._internal.accept.rules``). A reconciler that is one field of the implementation's
model (``pctfuzz._internal.accept.model``: a set, a text rewrite, a structure, an input
transform) carries that ``Model`` and composes with the others; the rest are written
as code, in their phase. The models follow WHATWG URL 1.3 (percent-encode after
encoding), 5.1 and 5.2 (form parser and serializer) with the implementation's change
applied. (Over 400 lines: the reconcilers and the builder are one vocabulary, each a
few lines.)
"""

from __future__ import annotations

import inspect
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from pctfuzz._internal.accept.decoders import LATIN1, PREDECODE_DELIMITERS
from pctfuzz._internal.accept.entry import MODEL, REPLACE, REWRITE, KnownDivergence
from pctfuzz._internal.accept.html_refs import HTML_MODES
from pctfuzz._internal.accept.javascript import node_unescape, querystring_scan
from pctfuzz._internal.accept.meaning import CONTROLS, DELIMITERS, IMPACTS
from pctfuzz._internal.accept.model import REQUOTE_MODES, Model, NotModelled, render
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.encoding import encode_ncr, lookup
from pctfuzz._internal.errors import PctfuzzError, UsageError
from pctfuzz._internal.form import form_sequences, form_urldecode_bytes
from pctfuzz._internal.inputs import REFUSAL_INPUTS, input_has
from pctfuzz._internal.operations import (
    DECODE,
    ENCODE,
    FORM_PARSE,
    FORM_SERIALIZE,
    OPERATIONS,
    Operation,
)
from pctfuzz._internal.outcome import CHECKS, Outcome, Reconcile
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.sets import FORM, PercentEncodeSet, get_set
from pctfuzz._internal.spec import PERCENT_ENCODED_BYTE, PERCENT_ENCODED_RUN
from pctfuzz._internal.text import (
    count_lone_surrogates,
    one_line,
    surrogates_to_fffd,
)

__all__ = [
    "CATALOGUE",
    "MANGLING_PROBE",
    "MANGLING_STYLES",
    "MODEL",
    "OPTIONAL_PARAMS",
    "PARTS",
    "RECONCILERS",
    "REPLACE",
    "REWRITE",
    "CatalogueEntry",
    "Reconciler",
    "both_refuse",
    "cut_at",
    "decoded_twice",
    "divergence",
    "empty_pairs",
    "encode_model",
    "encoded",
    "escapes_uppercased",
    "html_unescaped",
    "kept_encoded",
    "latin1_bytes",
    "latin1_fallback",
    "left_raw",
    "lone_surrogates",
    "lowercase_hex",
    "mangled_pairs",
    "modelled",
    "names_mangled",
    "ncr_unescaped",
    "needs_equals",
    "normalized_escaped",
    "not_acceptable",
    "pairs_order",
    "pairs_surrogates_to_fffd",
    "percent_u",
    "plus_as_space",
    "plus_kept",
    "prefixed",
    "python_codec",
    "refuses",
    "removed",
    "replacement",
    "requoted",
    "rule",
    "semicolon_separates",
    "set_change",
    "signed_escapes",
    "space_as",
    "suffixed",
    "trimmed",
    "truncated",
    "unmappable_replaced",
    "whole_characters",
]

_CASE_TYPES: Mapping[str, type] = {op.name: op.case_type for op in OPERATIONS}
_Pair = tuple[Outcome, Outcome] | None
_CHECK_OF: Mapping[type, str] = {case_type: check for check, case_type in _CASE_TYPES.items()}


@dataclass(frozen=True)
class Reconciler:
    """A ready-made exact statement of one difference (``pctfuzz.accept`` lists them)."""

    name: str
    checks: frozenset[str]
    reconcile: Reconcile
    reference: str
    implementation: str
    phase: int = MODEL
    #: The difference as one field of the composed model (``pctfuzz._internal.accept.model``).
    model: Model | None = None


#: A rule's impact: one of ``accept.meaning.IMPACTS``, or a function of a finding's
#: parameters that answers one (a delimiter left raw splits a field, a letter does not).
Impact = str | Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class CatalogueEntry:
    """One entry of the rule catalogue: a ready-made reconciler's maker, which is also
    a rule a finding can be named by. Its name, parameter and optional keys are the
    maker's signature; what it accepts is the maker's docstring (``pctfuzz.accept``,
    docs/adapters.md and docs/api.md show it: ``accept.catalogue_text``); ``checks``
    are the operations it applies to; ``impact`` is what a finding it names
    means (``accept.impact``: refined there by the parameters of a few rules)."""

    name: str
    maker: Callable[..., Reconciler]
    #: The parameter without a default (None when it has none): a TOML entry's key.
    param: str | None
    #: The keyword parameters: a TOML entry's optional keys.
    optional: tuple[str, ...]
    #: The operations whose checks it applies to (some only with some parameters).
    checks: tuple[Operation, ...]
    #: What a finding it names means (``accept.meaning.IMPACTS``), or the function of its
    #: parameters that says it (its docstring is what the docs show).
    impact: Impact


#: The catalogue, in the order the rules are defined: every maker decorated ``@rule``.
#: Filled once, as this module is imported; nothing adds to it later.
CATALOGUE: dict[str, CatalogueEntry] = {}

_Maker = TypeVar("_Maker", bound=Callable[..., Reconciler])


def rule(checks: tuple[Operation, ...], impact: Impact) -> Callable[[_Maker], _Maker]:
    """Enter the decorated maker in ``CATALOGUE``: adding a rule is this decorator on its
    maker (with its docstring and impact), its model field (``accept.model``) if it has
    one, and the names a finding is tried with (``accept.rules``); ``make docs`` writes
    the rest."""
    assert callable(impact) or impact in IMPACTS, impact

    def enter(maker: _Maker) -> _Maker:
        params = inspect.signature(maker).parameters.values()
        required = [p.name for p in params if p.default is inspect.Parameter.empty]
        assert len(required) <= 1, f"{maker.__name__}: one parameter without a default"
        assert maker.__doc__, f"{maker.__name__}: its docstring is what it accepts"
        CATALOGUE[maker.__name__] = CatalogueEntry(
            maker.__name__, maker, required[0] if required else None,
            tuple(p.name for p in params if p.default is not inspect.Parameter.empty),
            checks, impact)
        return maker

    return enter


def modelled(model: Model) -> Reconcile:
    """``model`` alone as a ``Reconcile`` (``KnownDivergence.matches``; the engine
    composes the models of all applicable entries instead)."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        try:
            return Outcome(render(model, _CHECK_OF[type(case)], case)), actual
        except NotModelled:
            return None

    return reconcile


def _declared(name: str, checks: set[str], model: Model, reference: str,
              implementation: str) -> Reconciler:
    return Reconciler(name, frozenset(checks), modelled(model), reference, implementation,
                      MODEL, model)


# --- set models -----------------------------------------------------------------------------
def _chars(chars: str) -> frozenset[int]:
    if not isinstance(chars, str) or not chars or not chars.isascii():  # TOML: chars = 5
        raise UsageError(f"characters {chars!r}: give one or more ASCII characters")
    return frozenset(map(ord, chars))


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


def _requote_impact(params: dict[str, Any]) -> str:
    """loses-data for `decode-utf8`, else changes-data"""
    # an escape of invalid UTF-8 decoded as U+FFFD before it is quoted again: the
    # bytes are gone (urllib's quote(unquote(s)), pip's link cleaning)
    return "loses-data" if params.get("mode") == "decode-utf8" else "changes-data"


@rule((ENCODE,), _requote_impact)
def requoted(mode: str, scope: str | None = None, kept: str | None = None) -> Reconciler:
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
    ``%2F`` and ``%40``, so a decoded ``/`` never adds a path segment)."""
    if mode not in REQUOTE_MODES:
        raise UsageError(f"requoted: mode must be one of {', '.join(REQUOTE_MODES)}")
    if scope not in (None, "segments"):
        raise UsageError(f"requoted: scope must be 'segments' or left out, not {scope!r}")
    where = " in each valid segment" if scope else ""
    if kept is not None:
        where += f", the escapes of {kept!r} kept as they are"
    return _declared("requoted", {ENCODE.name},
                     Model(requote=mode, requote_segments=scope == "segments",
                           requote_kept=_chars(kept) if kept is not None else frozenset()),
                     "an existing %HH is data: its % is encoded as %25 when in the set",
                     f"an existing %HH is an escape ({mode}){where}")


_ORDER_MODES = ("grouped", "sorted", "grouped-bytes", "sorted-bytes", "last-per-name",
                "first-per-name", "sorted-last-per-name", "sorted-first-per-name")


@rule((FORM_SERIALIZE, FORM_PARSE), "changes-data")
def pairs_order(mode: str) -> Reconciler:
    """Pairs ``grouped`` by name (in order of first appearance, as a multi-dict keeps
    them), ``sorted`` by name (its code points) or ``sorted-bytes`` (a parser's: by the
    name's bytes before UTF-8 decoding, so ``%80`` before ``%C3%A9``; Go's map keys),
    values in input order (WHATWG URL 5.1/5.2 keep the list's order); ``grouped-bytes``
    (form-parse): grouped by the name's bytes before their UTF-8 decode (two names
    that are not UTF-8 stay apart: tornado); ``last-per-name``: one pair per name, its
    last value where the name first came, as a mapping keeps them (``dict(pairs)``, a
    serializer given a dict, a parser answering one), ``first-per-name`` its first
    value (a serializer's repeated name was three findings, one per shape of what a
    repeat hid); ``sorted-last-per-name``, ``sorted-first-per-name``: that mapping
    sorted by name (a parser that sorts the pairs, then keeps one per name: each
    behaviour beside it was refuted by the reordered pairs of its variants)."""
    if mode not in _ORDER_MODES:
        raise UsageError(f"pairs_order: mode must be one of {', '.join(_ORDER_MODES)}")
    checks = {FORM_PARSE.name} if mode == "grouped-bytes" \
        else {FORM_SERIALIZE.name, FORM_PARSE.name}
    said = {"sorted-bytes": "pairs sorted by the names' bytes",
            "last-per-name": "one pair per name, its last value, where the name first came",
            "first-per-name": "one pair per name, its first value",
            "sorted-last-per-name": "one pair per name, its last value, sorted by name",
            "sorted-first-per-name": "one pair per name, its first value, sorted by name"}
    return _declared("pairs_order", checks, Model(order=mode),
                     "keeps the pairs in list order", said.get(mode, f"pairs {mode} by name"))


_EMPTY_MODES = ("dropped", "kept", "kept-but-last", "kept-but-trailing", "names-dropped")


def _empty_impact(params: dict[str, Any]) -> str:
    """loses-data when `dropped` or `names-dropped`, else changes-data"""
    return "loses-data" if params.get("mode") in ("dropped", "names-dropped") else "changes-data"


@rule((FORM_SERIALIZE, FORM_PARSE), _empty_impact)
def empty_pairs(mode: str) -> Reconciler:
    """``dropped``: pairs whose value is empty are left out (``parse_qsl`` without
    ``keep_blank_values``); ``kept``: an empty sequence between ``&`` is a pair
    ("", "") (the WHATWG parser skips it, 5.1 step 3.1); ``kept-but-last``: so is each
    but the last, after a final ``&`` (which ends a pair as a line end ends a line:
    Ruby's ``decode_www_form``, ``each_line("&")``); ``kept-but-trailing``: each but
    those at the end (Perl's ``split`` drops trailing empty fields: URI's
    ``query_form``); ``names-dropped``: pairs whose name is empty, once decoded and
    trimmed, are left out (``if name:`` before a mapping is filled), a mode that
    composes with any other."""
    if mode not in _EMPTY_MODES:
        raise UsageError(f"empty_pairs: mode must be one of {', '.join(_EMPTY_MODES)}")
    if mode == "names-dropped":
        return _declared("empty_pairs", {FORM_SERIALIZE.name, FORM_PARSE.name},
                         Model(empty_names=True), "keeps pairs with an empty name",
                         "pairs with an empty name dropped")
    checks = {FORM_SERIALIZE.name, FORM_PARSE.name} if mode == "dropped" else {FORM_PARSE.name}
    return _declared("empty_pairs", checks, Model(empty=mode),
                     "keeps pairs with an empty value; skips empty sequences",
                     f"empty pairs {mode}")


_ESCAPE_RUN = re.compile(PERCENT_ENCODED_RUN.pattern.encode("ascii"))


def _escapes_as_latin1(data: bytes) -> bytes:
    """``data`` percent-decoded with each run of escapes' bytes read as latin-1 (and
    written back as UTF-8), what is not an escape kept as it is."""
    return _ESCAPE_RUN.sub(
        lambda run: percent_decode(run.group()).decode("latin-1").encode("utf-8"),
        data)


_LATIN1_SCOPES = ("not-utf8", "always", "answer")


@rule((DECODE, FORM_PARSE), "changes-data")
def latin1_fallback(scope: str = "not-utf8") -> Reconciler:
    """Decoded bytes that are not valid UTF-8 are decoded as latin-1 instead (the
    reference writes U+FFFD, Encoding Standard "UTF-8 decode without BOM");
    ``scope="always"``: every escaped byte is read as latin-1, valid UTF-8 too
    (``%C3%A9`` as ``Ã©``: a parser given ``encoding="latin-1"``); ``scope="answer"``:
    every byte of the decoded answer, a raw character's UTF-8 bytes too (``é`` as
    ``Ã©``: a WSGI native string, PEP 3333, as gunicorn's ``unquote_to_wsgi_str``).
    For decode, the implementation's text answer is compared as UTF-8 bytes."""
    if scope not in _LATIN1_SCOPES:
        raise UsageError(f"latin1_fallback: scope must be one of {', '.join(_LATIN1_SCOPES)}, "
                         f"not {scope!r}")
    if scope == "not-utf8":  # (a model: it composes with the other rules, '+' kept...)
        return _declared("latin1_fallback", {DECODE.name, FORM_PARSE.name},
                         Model(replacement=LATIN1), "U+FFFD for invalid UTF-8",
                         "latin-1 for a value that is not UTF-8")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        if isinstance(case, DecodeCase):
            if scope == "answer":
                return Outcome(expected.value.decode("latin-1").encode("utf-8")), actual
            value = case.value
            data = value if isinstance(value, bytes) else \
                surrogates_to_fffd(value).encode("utf-8")
            return Outcome(_escapes_as_latin1(data)), actual
        if isinstance(case, FormParseCase):
            text = case.text
            data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
            if scope == "answer":
                pairs = [tuple(part.decode("latin-1") for part in pair)
                         for pair in form_urldecode_bytes(data)]
            else:
                pairs = [tuple(_escapes_as_latin1(part.replace(b"+", b" ")).decode(
                    "utf-8", "replace") for part in pair) for pair in form_sequences(data)]
            return Outcome(pairs), actual
        return None

    return Reconciler("latin1_fallback", frozenset({DECODE.name, FORM_PARSE.name}), reconcile,
                      "U+FFFD for invalid UTF-8",
                      "every escaped byte read as latin-1" if scope == "always"
                      else "every byte of the answer read as latin-1",
                      REPLACE)


def _legacy_label(case: Case) -> str | None:
    """The case's encoding label when it is a legacy (not UTF-8) one, else None."""
    label = getattr(case, "encoding", None)
    if not isinstance(label, str):
        return None
    try:
        return None if lookup(label).is_utf8 else label
    except PctfuzzError:
        return None


@rule((ENCODE,), "changes-data")
def ncr_unescaped() -> Reconciler:
    """A code point the encoding cannot encode is written as ``&#N;`` and that is
    percent-encoded by the set, where the reference writes ``%26%23N%3B`` whatever the
    set (URL Standard 1.3, the encode-or-fail error branch): urllib's ``quote`` with a
    legacy encoding (``errors="xmlcharrefreplace"``)."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        label = _legacy_label(case)
        if label is None or not isinstance(case, EncodeCase) or not isinstance(case.value, str):
            return None
        try:
            data = encode_ncr(lookup(label), case.value)
        except (PctfuzzError, ValueError):
            return None
        return Outcome(percent_encode(data, case.set_name,
                                      space_as_plus=case.space_as_plus)), actual

    return Reconciler("ncr_unescaped", frozenset({ENCODE.name}), reconcile,
                      "%26%23N%3B for a code point the encoding cannot encode",
                      "&#N; percent-encoded by the set", REPLACE)


@rule((ENCODE, FORM_SERIALIZE), "changes-data")
def python_codec() -> Reconciler:
    """Encoded with Python's codec of the encoding's name, ``errors="xmlcharrefreplace"``,
    instead of the WHATWG encoder (Encoding Standard, sections 9-14: their tables differ
    for some code points; a lone surrogate becomes an NCR), then percent-encoded by the
    set (so it composes with the set models): urllib's ``quote``/``urlencode`` with a
    legacy encoding."""
    return _declared("python_codec", {ENCODE.name, FORM_SERIALIZE.name}, Model(python_codec=True),
                     "the WHATWG encoder of the encoding",
                     "Python's codec of that name (errors='xmlcharrefreplace')")


# --- rewrites of the answer (phase REWRITE) --------------------------------------------------
def _as_answer(text: str, like: object) -> Any:
    return text.encode("utf-8", "surrogatepass") if isinstance(like, bytes) else text


@rule(OPERATIONS, "loses-data")
def truncated(n: int) -> Reconciler:
    """The answer stops after ``n`` characters (bytes for decode, pairs for
    form-parse) where the reference's goes on."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise UsageError(f"truncated: n must be a whole number >= 0, not {n!r}")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        value = expected.value
        if expected.raised or not isinstance(value, str | bytes | list) or len(value) <= n:
            return None
        return Outcome(value[:n]), actual

    return Reconciler("truncated", frozenset(CHECKS), reconcile,
                      "the whole answer", f"output truncated at {n} characters", REWRITE)


def _affix(name: str, text: str, before: bool) -> Reconciler:
    if not isinstance(text, str) or not text:
        raise UsageError(f"{name}: text must be a non-empty string")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        value = expected.value
        if expected.raised or not isinstance(value, str | bytes):
            return None
        affix = _as_answer(text, value)
        return Outcome(affix + value if before else value + affix), actual

    where = "before" if before else "after"
    return Reconciler(name, frozenset({ENCODE.name, DECODE.name, FORM_SERIALIZE.name}), reconcile,
                      "the answer alone", f"adds {text!r} {where} the answer", REWRITE)


@rule((ENCODE, DECODE, FORM_SERIALIZE), "changes-data")
def prefixed(text: str) -> Reconciler:
    """``text`` is written before the answer (e.g. ``./`` before a path)."""
    return _affix("prefixed", text, True)


@rule((ENCODE, DECODE, FORM_SERIALIZE), "changes-data")
def suffixed(text: str) -> Reconciler:
    """``text`` is written after the answer."""
    return _affix("suffixed", text, False)


@rule((ENCODE, DECODE, FORM_SERIALIZE), "loses-data")
def answered(text: str) -> Reconciler:
    """The whole answer is TEXT, a fixed text that none of the input makes, where the
    reference answers the input: a sanitizer's stand-in for what it refuses to write
    (``#harmful-link`` for a ``javascript:`` or ``data:`` link). It explains exactly
    the answers that are TEXT, so every input a sanitizer replaces is one finding,
    whatever set it off."""
    if not isinstance(text, str) or not text:
        raise UsageError("answered: text must be a non-empty string")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised or actual.raised or not isinstance(actual.value, str | bytes):
            return None
        fixed = _as_answer(text, actual.value)
        return (Outcome(fixed), actual) if actual.value == fixed else None

    return Reconciler("answered", frozenset({ENCODE.name, DECODE.name, FORM_SERIALIZE.name}),
                      reconcile, "the input's own answer", f"answers {text!r} instead",
                      REWRITE)


#: What makes an encoder that ``taken_as_encoded`` take its input as encoded already.
TAKEN_AS_ENCODED = {"escape": PERCENT_ENCODED_BYTE, "percent": re.compile("%")}


@rule((ENCODE,), "splits-field")
def taken_as_encoded(when: str) -> Reconciler:
    """An input that holds a valid ``%HH`` (``when="escape"``), or any ``%``
    (``"percent"``), is taken as encoded already and written back as it is, where the
    reference encodes it (uritemplate's ``{+var}``: ``if unquote(v) == v: quote(v)
    else v``). Whatever else the input holds passes raw, its delimiters too: one
    escape anywhere turns the encoding off."""
    if when not in TAKEN_AS_ENCODED:
        raise UsageError(f"taken_as_encoded: when must be one of {', '.join(TAKEN_AS_ENCODED)}, "
                         f"not {when!r}")
    trigger = TAKEN_AS_ENCODED[when]

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised or not isinstance(case, EncodeCase) \
                or not isinstance(case.value, str) or not trigger.search(case.value):
            return None
        return Outcome(case.value), actual

    what = "a valid %HH" if when == "escape" else "a '%'"
    return Reconciler("taken_as_encoded", frozenset({ENCODE.name}), reconcile,
                      "encodes the input", f"writes an input holding {what} back as it is",
                      REWRITE)


# --- transforms of the input and of the structure (composed models) --------------------------
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
    ``lstrip``, since bpo-43882)."""
    if part is not None and part not in (*_TRIMMED_PARTS, "decoded", "start"):
        raise UsageError(f"trimmed: part must be one of {', '.join(_TRIMMED_PARTS)}, "
                         f"decoded, start or left out, not {part!r}")
    if part == "decoded":
        return _trimmed_decoded(_space_chars(chars))
    if part == "start":
        return _declared("trimmed", set(CHECKS), Model(trim_start=_space_chars(chars)),
                         "keeps every character",
                         f"trims {_char_names(chars)} from the start")
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


# --- invalid UTF-8 of a decoded answer ----------------------------------------------------
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


@rule(OPERATIONS, "crash")
def refuses(input: str) -> Reconciler:
    """The implementation raises (any exception) for an input holding ``input``
    (``lone-surrogate``, ``invalid-utf8`` as given or once decoded, ``invalid-percent``: a ``%``
    without two hex digits, ``control-char``: a C0 control or DEL as given,
    ``non-ascii``: a character or byte above 7F as given), where the reference
    answers."""
    if input not in REFUSAL_INPUTS:
        raise UsageError(f"refuses: input must be one of {', '.join(REFUSAL_INPUTS)}")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if actual.raised and not expected.raised and input_has(case, input):
            return actual, actual
        return None

    return Reconciler("refuses", frozenset(CHECKS), reconcile, "answers",
                      f"refuses an input with {input.replace('-', ' ')}", REPLACE)


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


#: Ready-made reconcilers by the name a TOML entry gives, with their parameter; also
#: the catalogue of behaviours a finding is named by (``pctfuzz._internal.accept.rules``).
RECONCILERS: Mapping[str, tuple[Callable[..., Reconciler], str | None]] = {
    name: (entry.maker, entry.param) for name, entry in CATALOGUE.items()}
#: Reconcilers' optional TOML keys beside their parameter: their keyword parameters.
OPTIONAL_PARAMS: Mapping[str, tuple[str, ...]] = {
    name: entry.optional for name, entry in CATALOGUE.items() if entry.optional}


def not_acceptable(kind: str, target: str, behaviour: Mapping[str, Any] | None) -> str | None:
    """Why ``pctfuzz accept`` cannot write an entry for a finding of ``kind`` in
    ``target`` named by ``behaviour`` (its rule and parameters), in words that follow
    "finding ID"; None when it can: a difference of an implementation that a reconciler
    states, with that reconciler's parameters. (Whether the case can be pinned as an
    example is known only from the case.)"""
    if kind not in ("divergence", "crash") or not target.startswith("diff_"):
        return f"is a {kind} of {target}, not a difference of an implementation"
    if not behaviour:
        return "has no rule that explains it"
    rule, params = str(behaviour["rule"]), behaviour["params"]
    if rule not in RECONCILERS:
        return f"is explained by {one_line(rule, 60)!r}, which no accept-file reconciler states"
    param = RECONCILERS[rule][1]
    required = {param} if param else set()
    if not required <= set(params) <= required | set(OPTIONAL_PARAMS.get(rule, ())):
        return f"has parameters {sorted(params)} for {rule}, which takes {param or 'none'}"
    return None


# --- entries -------------------------------------------------------------------------------
def divergence(
    *,
    id: str,
    check: str,
    reconcile: Reconciler,
    citation: str,
    why: str,
    example: Case,
    impl: str = "",
    summary: str = "",
    applies: Callable[[Case], bool] | None = None,
) -> KnownDivergence:
    """An accepted difference for your adapter (``pctfuzz.accept``). ``impl`` defaults to
    the adapter that declares it (or is under test, for ``--accept``); ``applies``
    narrows the cases it applies to (default: every case of ``check``).
    ``PctfuzzError`` for an empty field, a check the reconciler cannot explain, or an
    example of another check."""
    for label, text in (("id", id), ("citation", citation), ("why", why)):
        if not isinstance(text, str) or not text.strip():
            raise UsageError(f"divergence {id!r}: {label} must be a non-empty string")
    if check not in CHECKS:
        raise UsageError(f"divergence {id!r}: unknown check {check!r} "
                           f"(one of {', '.join(CHECKS)})")
    if check not in reconcile.checks:
        raise UsageError(f"divergence {id!r}: {reconcile.name} explains "
                           f"{', '.join(sorted(reconcile.checks))}, not {check}")
    case_type = _CASE_TYPES[check]
    if not isinstance(example, case_type):
        raise UsageError(f"divergence {id!r}: the example of a {check} entry must be a "
                           f"{case_type.__name__}")
    return KnownDivergence(
        id=id, impl=impl, check=check,
        summary=summary or f"{reconcile.implementation} ({reconcile.name})",
        applies=applies or (lambda case: isinstance(case, case_type)),
        reconcile=reconcile.reconcile,
        reference=reconcile.reference, implementation=reconcile.implementation,
        citation=citation, why=why, example=example, phase=reconcile.phase,
        model=reconcile.model,
    )
