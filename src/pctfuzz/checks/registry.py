"""The ONE registry of accepted differences between the reference and an implementation.

DESIGN.md "Differential: what equal means": an implementation under test agrees with
the reference on a case when both give the same answer, or both raise, and a
difference is accepted only when an entry here explains it. Each entry has:

- ``id``, ``impl`` (the adapter name it is written for; variants inherit their parent's
  entries, see ``pctfuzz.oracles``), ``check`` (``encode``, ``decode``, ``form``,
  ``form-parse``);
- ``applies(case) -> bool``: a narrow predicate on the case (the feature that triggers
  the difference: a set, a lone surrogate, a legacy encoding...);
- ``reconcile(case, expected, actual)``: the *exact* statement of the difference. Given
  the reference's and the implementation's outcomes it returns them with this entry's
  difference taken out (e.g. the reference's ``%7E`` written back as ``~``), or None
  when the outcomes do not show it. A case is accepted only if, after every applicable
  entry has reconciled (in ``DIVERGENCES`` order: entries that replace a whole outcome,
  such as a refusal or a model of the implementation, before entries that rewrite text
  inside one), the two outcomes are equal: so the ``~``
  entry accepts "differs only in ``~`` vs ``%7E``" and nothing else, and two entries
  can explain one case together (``~`` *and* space as ``%20``);
- ``reference`` and ``implementation``: the observed behaviours, in words;
- ``citation`` (WHATWG/RFC section, CPython docs, upstream issue) and ``why`` accepted;
- ``example``: a pinned case on which the divergence happens today. The test suite
  asserts, for every entry, that the example still diverges and is accepted, so a
  change upstream (a fix!) is noticed; ``active()`` says whether the entry applies to
  the running versions (an upstream fix turns it off instead of breaking the tests).

``pctfuzz divergences`` prints the table; ``render_markdown()`` renders it for the README.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from pctfuzz.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz.errors import NotScalarValueError, PctfuzzError
from pctfuzz.form import form_urldecode, form_urlencode, split_pairs
from pctfuzz.reference import Surrogates, percent_decode, percent_encode
from pctfuzz.sets import FORM, get_set

__all__ = [
    "CHECKS",
    "DIVERGENCES",
    "KnownDivergence",
    "Outcome",
    "Reconcile",
    "case_text",
    "divergences_for",
    "example_outcomes",
    "explain",
    "get_divergence",
    "reconcile",
    "reference_answer",
    "reference_outcome",
    "render_markdown",
]

#: The four differential checks, named as in findings (``Divergence.check``).
CHECKS: tuple[str, ...] = ("encode", "decode", "form", "form-parse")


# --- outcomes ------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Outcome:
    """What one side answered: a value, or the exception it raised."""

    value: Any = None
    error: BaseException | None = None

    @property
    def raised(self) -> bool:
        return self.error is not None

    def same(self, other: Outcome) -> bool:
        """Equal values, or both raised exceptions of the same type."""
        if self.error is not None or other.error is not None:
            return type(self.error) is type(other.error)
        return bool(self.value == other.value)

    def describe(self) -> str:
        if self.error is not None:
            return f"raises {type(self.error).__name__}: {self.error}"
        return repr(self.value)


Reconcile: TypeAlias = Callable[[Case, Outcome, Outcome], "tuple[Outcome, Outcome] | None"]


def reference_answer(check: str, case: Case, *, surrogates: Surrogates = "strict") -> Any:
    """The reference's answer to a differential check (the same calls the adapters
    answer): ``percent_encode(value, set, encoding=, space_as_plus=)``,
    ``percent_decode``, ``form_urlencode(pairs, encoding=)``, ``form_urldecode``.
    ``surrogates="replace"`` answers as for a WebIDL USVString (lone surrogate ->
    U+FFFD first), for implementations that declare ``scalar_values = "replace"``."""
    if check == "encode" and isinstance(case, EncodeCase):
        return percent_encode(
            case.value, case.set_name, encoding=case.encoding, space_as_plus=case.space_as_plus,
            surrogates=surrogates,
        )
    if check == "decode" and isinstance(case, DecodeCase):
        return percent_decode(case.value)
    if check == "form" and isinstance(case, FormCase):
        return form_urlencode(case.pairs, encoding=case.encoding, surrogates=surrogates)
    if check == "form-parse" and isinstance(case, FormParseCase):
        return form_urldecode(case.text)
    raise PctfuzzError(f"check {check!r} does not take a {type(case).__name__}")


def reference_outcome(check: str, case: Case, *, surrogates: Surrogates = "strict") -> Outcome:
    """The reference's outcome; only ``NotScalarValueError`` counts as an answer (the
    standard's inputs are scalar value strings), other errors propagate."""
    try:
        return Outcome(reference_answer(check, case, surrogates=surrogates))
    except NotScalarValueError as exc:
        return Outcome(error=exc)


# --- the entry type ------------------------------------------------------------------------
def _always() -> bool:
    return True


@dataclass(frozen=True)
class KnownDivergence:
    """One accepted difference (see the module docstring for each field)."""

    id: str
    impl: str
    check: str
    summary: str
    applies: Callable[[Case], bool] = field(repr=False)
    reconcile: Reconcile = field(repr=False)
    reference: str
    implementation: str
    citation: str
    why: str
    example: Case
    active: Callable[[], bool] = field(default=_always, repr=False)
    #: Reconcile order among entries (lower first): an entry replacing a whole outcome
    #: runs before one rewriting text inside it (module docstring).
    phase: int = 0

    def __post_init__(self) -> None:
        if self.check not in CHECKS:
            raise ValueError(f"divergence {self.id}: unknown check {self.check!r}")

    def matches(self, case: Case, expected: Outcome, actual: Outcome) -> bool:
        """This entry alone explains the difference between the two outcomes."""
        if not (self.active() and self.applies(case)):
            return False
        pair = self.reconcile(case, expected, actual)
        return pair is not None and pair[0].same(pair[1])


# --- helpers for predicates and reconcilers --------------------------------------------------
def _has_lone_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def _count_lone_surrogates(text: str) -> int:
    return sum(1 for c in text if 0xD800 <= ord(c) <= 0xDFFF)


def _strip_lone_surrogates(text: str) -> str:
    return "".join(c for c in text if not 0xD800 <= ord(c) <= 0xDFFF)


def _surrogates_to_fffd(text: str) -> str:
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def _is_utf8_label(label: str) -> bool:
    from pctfuzz import encoding as _encoding

    try:
        return bool(_encoding.lookup(label).is_utf8)
    except PctfuzzError:
        return False


def _str_value_with_surrogate(case: Case) -> bool:
    value = getattr(case, "value", None)
    return isinstance(value, str) and _has_lone_surrogate(value)


def _pairs_with_surrogate(case: Case) -> bool:
    return isinstance(case, FormCase) and any(
        _has_lone_surrogate(n) or _has_lone_surrogate(v) for n, v in case.pairs
    )


def _text_with_surrogate(case: Case) -> bool:
    return (
        isinstance(case, FormParseCase)
        and isinstance(case.text, str)
        and (_has_lone_surrogate(case.text))
    )


def _replace_in_expected(mapping: dict[str, str]) -> Reconcile:
    """The implementation writes some bytes as themselves where the reference writes
    ``%HH``: replace those triplets in the reference's string answer."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> tuple[Outcome, Outcome] | None:
        if expected.raised or not isinstance(expected.value, str):
            return None
        text = expected.value
        for old, new in mapping.items():
            text = text.replace(old, new)
        return Outcome(text), actual

    return reconcile


def _pairs_surrogates_to_fffd(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    """The parser kept the input's lone surrogates (the reference writes U+FFFD):
    write them as U+FFFD in the implementation's answer, if it kept exactly those."""
    if actual.raised or not isinstance(case, FormParseCase) or not isinstance(case.text, str):
        return None
    pairs: list[tuple[str, str]] = actual.value
    kept = sum(_count_lone_surrogates(n) + _count_lone_surrogates(v) for n, v in pairs)
    if kept != _count_lone_surrogates(case.text):
        return None
    return expected, Outcome([(_surrogates_to_fffd(n), _surrogates_to_fffd(v)) for n, v in pairs])


def _whatwg_form_bytes(data: bytes) -> list[tuple[bytes, bytes]]:
    """WHATWG URL 5.1 up to (not including) the UTF-8 decode: the raw name/value bytes."""
    out: list[tuple[bytes, bytes]] = []
    for sequence in data.split(b"&"):
        if sequence:
            name, _, value = sequence.partition(b"=")
            name, value = name.replace(b"+", b" "), value.replace(b"+", b" ")
            out.append((percent_decode(name), percent_decode(value)))
    return out


def _is_valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# Fixed by gh-74668 (bytes with non-ASCII data in parse_qsl): 3.11.9, 3.12.3, 3.13.0.
def _parse_qsl_bytes_ascii_only() -> bool:
    v = sys.version_info
    return v < (3, 11, 9) or (3, 12) <= v < (3, 12, 3)


# --- urllib ----------------------------------------------------------------------------------
def _urllib_qsl_bytes(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    if not isinstance(case, FormParseCase) or not isinstance(case.text, bytes):
        return None
    if isinstance(actual.error, UnicodeDecodeError) and not case.text.isascii():
        return actual, actual
    if (
        isinstance(actual.error, UnicodeEncodeError)
        and case.text.isascii()
        and not expected.raised
        and not all(n.isascii() and v.isascii() for n, v in expected.value)
    ):
        return actual, actual
    return None


def _urllib_picks(check: str, function: str) -> Callable[[Case], bool]:
    """The default ``urllib`` adapter calls ``function`` for the case (``urllib_function``)."""

    def applies(case: Case) -> bool:
        from pctfuzz.oracles.urllib_parse import urllib_function

        return urllib_function(check, case) == function

    return applies


_ASCII_RUN = re.compile("([\x00-\x7f]+)")


def _unquote_text(value: str | bytes) -> bytes:
    """``unquote(value)`` with its defaults as UTF-8 bytes: each ASCII run percent-decoded
    and UTF-8 decoded with U+FFFD, non-ASCII text kept (bytes: decoded whole)."""
    if isinstance(value, bytes):
        return percent_decode(value).decode("utf-8", "replace").encode("utf-8")
    parts = _ASCII_RUN.split(value)
    text = "".join(
        percent_decode(part).decode("utf-8", "replace") if index % 2 else part
        for index, part in enumerate(parts)
    )
    return text.encode("utf-8", "surrogatepass")


def _unquote_text_applies(case: Case) -> bool:
    if not (isinstance(case, DecodeCase) and _urllib_picks("decode", "unquote")(case)):
        return False
    value = case.value
    return (isinstance(value, str) and _has_lone_surrogate(value)) or not _is_valid_utf8(
        percent_decode(value))


def _unquote_keeps_surrogates(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    if not isinstance(case, DecodeCase) or not isinstance(case.value, str) or expected.raised:
        return None
    from pctfuzz.oracles.urllib_parse import unquoted_bytes

    # unquote decodes only ASCII runs, so the surrogates reach its answer unchanged.
    return Outcome(percent_decode(unquoted_bytes(case.value))), actual


# --- urllib with legacy encodings -------------------------------------------------------------
# urllib encodes with a Python codec and errors="xmlcharrefreplace", then percent-encodes
# the bytes with safe=. That whole behaviour is one exact model, ``_urllib_legacy_model``;
# three entries say *why* it can differ from the reference, each with a narrow predicate.
def _legacy_text_case(case: Case) -> tuple[str, str] | None:
    """(value, Python codec) for a str encode/form case with a legacy encoding."""
    from pctfuzz.oracles.base import Unsupported
    from pctfuzz.oracles.urllib_parse import python_codec

    label = getattr(case, "encoding", None)
    if not isinstance(label, str) or _is_utf8_label(label):
        return None
    try:
        codec, _ = python_codec(label)
    except (Unsupported, PctfuzzError):
        return None
    if isinstance(case, EncodeCase) and isinstance(case.value, str):
        return case.value, codec
    if isinstance(case, FormCase):
        return "".join(n + v for n, v in case.pairs), codec
    return None


@functools.lru_cache(maxsize=4096)  # per code point and label: the fuzzer asks again and again
def _whatwg_char_bytes(label: str, char: str) -> bytes:
    """The WHATWG encoder's output for one code point, an error written as ``&#N;``."""
    from pctfuzz import encoding as _encoding

    return b"".join(
        run if isinstance(run, bytes) else f"&#{run};".encode("ascii")
        for run in _encoding.encode_runs(_encoding.lookup(label), char)
    )


@functools.lru_cache(maxsize=4096)
def _python_char_bytes(codec: str, char: str) -> bytes:
    return char.encode(codec, "xmlcharrefreplace")


def _legacy_has_surrogate(case: Case) -> bool:
    found = _legacy_text_case(case)
    return found is not None and _has_lone_surrogate(found[0])


def _legacy_codec_differs(case: Case) -> bool:
    """Some scalar value of the input is encoded differently by the Python codec and the
    WHATWG encoder (NCRs written alike, as ``&#N;``)."""
    found = _legacy_text_case(case)
    if found is None:
        return False
    text, codec = found
    label = getattr(case, "encoding", "")
    return any(
        _python_char_bytes(codec, c) != _whatwg_char_bytes(label, c)
        for c in set(text)
        if not 0xD800 <= ord(c) <= 0xDFFF
    )


def _legacy_ncr_visible(case: Case) -> bool:
    """Some code point is unencodable for both encoders, and the set leaves one of
    ``& # ;`` as is, so urllib's ``&#N;`` is not the reference's ``%26%23N%3B``."""
    found = _legacy_text_case(case)
    if found is None or not isinstance(case, EncodeCase):
        return False
    text, codec = found
    pes = get_set(case.set_name)
    if all(ord(c) in pes for c in "&#;"):
        return False
    label = getattr(case, "encoding", "")
    for c in set(text):
        if 0xD800 <= ord(c) <= 0xDFFF or ord(c) < 0x80:
            continue
        ncr = f"&#{ord(c)};".encode("ascii")
        if _python_char_bytes(codec, c) == ncr and _whatwg_char_bytes(label, c) == ncr:
            return True
    return False


def _iso_2022_jp_roman(case: Case) -> bool:
    """ISO-2022-JP input with a code point that puts the encoder in its Roman state."""
    found = _legacy_text_case(case)
    return (
        found is not None
        and _encoding_name(getattr(case, "encoding", "")) == "ISO-2022-JP"
        and any(c in found[0] for c in "\u00a5\u203e")
    )


def _encoding_name(label: str) -> str | None:
    from pctfuzz import encoding as _encoding

    try:
        return _encoding.lookup(label).name
    except PctfuzzError:
        return None


def _urllib_legacy_model(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    """urllib's answer: the reference's percent-encoding of the Python codec's bytes."""
    found = _legacy_text_case(case)
    if found is None:
        return None
    _, codec = found
    if isinstance(case, EncodeCase) and isinstance(case.value, str):
        data = case.value.encode(codec, "xmlcharrefreplace")
        model = percent_encode(data, case.set_name, space_as_plus=case.space_as_plus)
    elif isinstance(case, FormCase):
        model = "&".join(
            percent_encode(n.encode(codec, "xmlcharrefreplace"), FORM, space_as_plus=True)
            + "="
            + percent_encode(v.encode(codec, "xmlcharrefreplace"), FORM, space_as_plus=True)
            for n, v in case.pairs
        )
    else:  # pragma: no cover - _legacy_text_case filters
        return None
    return Outcome(model), actual


# --- yarl ------------------------------------------------------------------------------------
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
        _strip_lone_surrogates(case.value), case.set_name, case.encoding, case.space_as_plus
    )
    return reference_outcome("encode", stripped), actual


def _yarl_drops_surrogates_form(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    if not isinstance(case, FormCase) or not isinstance(expected.error, NotScalarValueError):
        return None
    stripped = FormCase(
        tuple((_strip_lone_surrogates(n), _strip_lone_surrogates(v)) for n, v in case.pairs),
        case.encoding,
    )
    return reference_outcome("form", stripped), actual


def _yarl_text_decode(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    if expected.raised or not isinstance(expected.value, bytes):
        return None
    if _is_valid_utf8(expected.value):
        return None
    return Outcome(expected.value.decode("utf-8", "replace").encode("utf-8")), actual


def _yarl_unquoter_keeps_surrogates(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    if not isinstance(case, DecodeCase) or not isinstance(case.value, str):
        return None
    if not isinstance(actual.value, bytes):
        return None
    text = actual.value.decode("utf-8", "surrogatepass")
    if _count_lone_surrogates(text) != _count_lone_surrogates(case.value):
        return None
    return expected, Outcome(_surrogates_to_fffd(text).encode("utf-8"))


_PCT_TRIPLET = re.compile("%[0-9A-Fa-f]{2}")


def _yarl_requote_model(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    """yarl's requoting quoter: a valid ``%HH`` of the input is an escape, written as the
    character if that is safe, else as ``%HH`` in uppercase; any other ``%`` is data
    (``%25``); the rest is encoded like the reference; lone surrogates are dropped."""
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return None
    from pctfuzz.oracles.yarl_quoting import ALWAYS_SAFE, QS_CHARS

    pes = get_set(case.set_name)
    plus = case.space_as_plus
    safe = set(pes.printable_safe) | set(ALWAYS_SAFE) | (set() if plus else set(QS_CHARS))
    safe -= {"%", " "} if plus else {"%"}

    def data(segment: str) -> str:
        return "%25".join(
            percent_encode(part, pes, space_as_plus=plus) for part in segment.split("%")
        )

    value = _strip_lone_surrogates(case.value)
    out: list[str] = []
    pos = 0
    for match in _PCT_TRIPLET.finditer(value):
        out.append(data(value[pos : match.start()]))
        char = chr(int(match.group()[1:], 16))
        out.append(char if char in safe else match.group().upper())
        pos = match.end()
    out.append(data(value[pos:]))
    return Outcome("".join(out)), actual


# --- ada -------------------------------------------------------------------------------------
def _ada_invalid_utf8(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    if not isinstance(case, FormParseCase) or not isinstance(actual.error, UnicodeDecodeError):
        return None
    text = case.text
    data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
    if all(_is_valid_utf8(n) and _is_valid_utf8(v) for n, v in _whatwg_form_bytes(data)):
        return None
    return actual, actual


# --- the registry ----------------------------------------------------------------------------
_WHATWG_PCT = "WHATWG URL Standard 1.3 (percent-encode after encoding)"
_WHATWG_FORM = "WHATWG URL Standard 5.2 (application/x-www-form-urlencoded serializer)"
_WHATWG_FORM_PARSE = "WHATWG URL Standard 5.1 (application/x-www-form-urlencoded parser)"
_QUOTE_DOCS = (
    "CPython docs, urllib.parse.quote: \"Letters, digits, and the characters '_.-~' are "
    'never quoted" (changed in 3.7: RFC 3986 unreserved)'
)

_ENTRIES: list[tuple[int, KnownDivergence]] = []
#: Reconcile phases: an entry that replaces an outcome (a refusal, a model of the
#: implementation) runs before one that rewrites text inside an outcome, so both apply.
_REPLACE, _REWRITE = 0, 1


def _entry(*, phase: int = _REPLACE, **kwargs: Any) -> None:
    _ENTRIES.append((phase, KnownDivergence(phase=phase, **kwargs)))


_entry(
    phase=_REWRITE,
    id="urllib-quote-tilde",
    impl="urllib",
    check="encode",
    summary="quote leaves ~ unencoded; the form set encodes it",
    applies=lambda case: isinstance(case, EncodeCase) and get_set(case.set_name) is FORM,
    reconcile=_replace_in_expected({"%7E": "~"}),
    reference="percent-encodes 0x7E as %7E (the application/x-www-form-urlencoded set has ~)",
    implementation="leaves ~ as is whatever safe= says",
    citation=f"{_WHATWG_PCT}, form set; {_QUOTE_DOCS}",
    why="urllib's always-safe characters are RFC 3986 unreserved; ~ means the same "
    "either way, and only the form set (a browser compatibility set) encodes it",
    example=EncodeCase("~", FORM.name),
)
_entry(
    id="urllib-unquote-to-bytes-lone-surrogate",
    impl="urllib",
    check="decode",
    summary="unquote_to_bytes raises UnicodeEncodeError for a str with a lone surrogate",
    applies=lambda case: _str_value_with_surrogate(case)
    and _urllib_picks("decode", "unquote_to_bytes")(case),
    reconcile=lambda case, expected, actual: (
        (actual, actual)
        if not expected.raised and isinstance(actual.error, UnicodeEncodeError)
        else None
    ),
    reference="decodes, writing the lone surrogate as U+FFFD (EF BF BD), as the URL "
    "parser's scalar-value conversion does",
    implementation="raises UnicodeEncodeError: it UTF-8 encodes a str strictly first",
    citation="WHATWG URL Standard 1.3 (percent-decode a string: UTF-8 encode); "
    "CPython Lib/urllib/parse.py unquote_to_bytes (string.encode('utf-8'))",
    why="a lone surrogate is not text a URL can hold; refusing it is reasonable",
    example=DecodeCase("\ud800"),
)
# Before urllib-unquote-lone-surrogate: the variant, which inherits this entry, then
# gets its own model of a kept surrogate last.
_entry(
    id="urllib-unquote-text",
    impl="urllib",
    check="decode",
    summary="unquote returns text: invalid UTF-8 becomes U+FFFD and a lone surrogate of "
    "the input is kept (cases of even length)",
    applies=_unquote_text_applies,
    reconcile=lambda case, expected, actual: (
        None if expected.raised or not isinstance(case, DecodeCase)
        else (Outcome(_unquote_text(case.value)), actual)
    ),
    reference="the decoded bytes, whatever they are; a lone surrogate as U+FFFD (EF BF BD)",
    implementation="unquote(value) with its defaults (encoding='utf-8', errors='replace'): "
    "each ASCII run decoded and UTF-8 decoded with U+FFFD, non-ASCII text kept; the adapter "
    "compares the text as UTF-8 (surrogatepass)",
    citation="WHATWG URL Standard 1.3 (percent-decode a string); CPython docs "
    "urllib.parse.unquote (errors defaults to 'replace'); Lib/urllib/parse.py (_asciire)",
    why="unquote returns str by design; percent-decoding to bytes is unquote_to_bytes, "
    "which the odd-length cases test",
    example=DecodeCase("%FFa"),
)
_entry(
    phase=_REWRITE,
    id="urllib-urlencode-tilde",
    impl="urllib",
    check="form",
    summary="urlencode leaves ~ unencoded; the form serializer encodes it",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=_replace_in_expected({"%7E": "~"}),
    reference="writes ~ as %7E",
    implementation="writes ~ as itself (quote_plus/quote never quote it)",
    citation=f"{_WHATWG_FORM}; {_QUOTE_DOCS}",
    why="same cause as urllib-quote-tilde; servers decode both forms alike",
    example=FormCase((("~", "~"),)),
)
_entry(
    id="urllib-parse-qsl-lone-surrogate",
    impl="urllib",
    check="form-parse",
    summary="parse_qsl/unquote_plus keep a lone surrogate of the input; the reference "
    "writes U+FFFD",
    applies=_text_with_surrogate,
    reconcile=_pairs_surrogates_to_fffd,
    reference="U+FFFD for each lone surrogate (USVString conversion, then UTF-8)",
    implementation="passes the lone surrogate through unchanged (unquote only decodes ASCII runs)",
    citation=f"{_WHATWG_FORM_PARSE}; URLSearchParams(init) takes a USVString (WebIDL); "
    "CPython Lib/urllib/parse.py unquote (_asciire split)",
    why="Python str may hold lone surrogates; urllib leaves non-ASCII text alone by design",
    example=FormParseCase("\ud800"),
)
_entry(
    id="urllib-parse-qsl-bytes-ascii-only",
    impl="urllib",
    check="form-parse",
    summary="parse_qsl(bytes) fails on non-ASCII input bytes or non-ASCII decoded output",
    applies=lambda case: isinstance(case, FormParseCase) and isinstance(case.text, bytes),
    reconcile=_urllib_qsl_bytes,
    reference="parses the bytes; names and values are UTF-8 decoded with U+FFFD",
    implementation="UnicodeDecodeError for non-ASCII bytes; UnicodeEncodeError when a "
    "decoded name or value is not ASCII (result coerced back with 'ascii')",
    citation="CPython docs urllib.parse, 'Parsing ASCII Encoded Bytes'; "
    "python/cpython#74668 (bpo-30483), fixed in 3.11.9, 3.12.3, 3.13",
    why="documented ASCII-only bytes support in this Python; fixed upstream, so the "
    "entry is active only on Python versions without the fix",
    example=FormParseCase(b"%C3%A9"),
    active=_parse_qsl_bytes_ascii_only,
)
_LEGACY_MODEL = (
    "model: the reference's percent-encoding (same set) of value.encode(codec, "
    "'xmlcharrefreplace'), codec = the WHATWG encoding's name in Python's codec registry"
)
for _check, _fn, _example_encode in (
    ("encode", "quote", True),
    ("form", "urlencode", False),
):
    _entry(
        id=f"urllib-{_fn}-legacy-lone-surrogate",
        impl="urllib",
        check=_check,
        summary=f"{_fn} with a legacy encoding writes a lone surrogate as an NCR",
        applies=_legacy_has_surrogate,
        reconcile=_urllib_legacy_model,
        reference="refuses: NotScalarValueError",
        implementation="errors='xmlcharrefreplace' accepts lone surrogates: '\\ud800' -> "
        f"&#55296; (percent-encoded by the set); {_LEGACY_MODEL}",
        citation=f"{_WHATWG_PCT if _example_encode else _WHATWG_FORM}; Python docs, "
        "codecs error handlers: xmlcharrefreplace",
        why="Python's error handler, not urllib, decides; the input is outside the standard's",
        example=EncodeCase("\ud800", "special-query", "windows-1252")
        if _example_encode
        else FormCase((("\ud800", ""),), "windows-1252"),
    )
    _entry(
        id=f"urllib-{_fn}-python-codec",
        impl="urllib",
        check=_check,
        summary=f"{_fn} encodes with Python's codec, whose table differs from the WHATWG "
        "encoder's for some code points",
        applies=_legacy_codec_differs,
        reconcile=_urllib_legacy_model,
        reference="the WHATWG encoder (index jis0208 / EUC-KR = cp949 / Big5-HKSCS / "
        "GBK = gb18030 two-byte / C1 controls in windows-125x ...); unencodable -> NCR",
        implementation=f"Python's codec of that name (shift_jis, euc_kr, big5, gbk, cp125x "
        f"...); {_LEGACY_MODEL}",
        citation="WHATWG Encoding Standard (indexes and encoders, sections 9-14); "
        "pctfuzz.encoding.DIFFERENCES lists the corrections",
        why="a Python codec is not the WHATWG encoder of the same name; urllib has no "
        "other way to choose an encoding",
        example=EncodeCase("\u0081", "component", "windows-1252")
        if _example_encode
        else FormCase((("\u20ac", ""),), "GBK"),
    )
    _entry(
        id=f"urllib-{_fn}-iso-2022-jp-roman",
        impl="urllib",
        check=_check,
        summary=f"{_fn} with ISO-2022-JP leaves the Roman state (ESC ( J) before any ASCII",
        applies=_iso_2022_jp_roman,
        reconcile=_urllib_legacy_model,
        reference="after ¥ or ‾ (Roman state) ASCII other than \\ and ~ is written in "
        "that state, without switching back (ESC ( B) first",
        implementation="Python's iso2022_jp writes ESC ( B before the next ASCII "
        f"character; {_LEGACY_MODEL}",
        citation="WHATWG Encoding Standard 12.2.2 (ISO-2022-JP encoder, step 6: Roman state "
        "and ASCII code points)",
        why="both byte sequences decode to the same text; Python's encoder is simply "
        "more eager to return to ASCII",
        example=EncodeCase("\u00a5a", "special-query", "ISO-2022-JP")
        if _example_encode
        else FormCase((("\u00a5a", ""),), "ISO-2022-JP"),
    )
_entry(
    id="urllib-quote-ncr-unescaped",
    impl="urllib",
    check="encode",
    summary="quote writes an unencodable code point as &#N; and percent-encodes that with "
    "the set; the reference always writes %26%23N%3B",
    applies=_legacy_ncr_visible,
    reconcile=_urllib_legacy_model,
    reference="%26%23 + decimal + %3B whatever the set (the encode-or-fail error branch)",
    implementation="&#N; from xmlcharrefreplace, then & and ; stay as they are when the "
    "set leaves them (special-query, query, path...); " + _LEGACY_MODEL,
    citation=f"{_WHATWG_PCT}, step for a potentialError",
    why="both mean the same NCR once decoded; the form serializer (whose set encodes & # ;) "
    "agrees, so only the bare percent-encode API differs",
    example=EncodeCase("\u0100", "special-query", "windows-1252"),
)
_entry(
    id="urllib-unquote-lone-surrogate",
    impl="urllib-unquote",
    check="decode",
    summary="unquote passes a lone surrogate of the input through",
    applies=_str_value_with_surrogate,
    reconcile=_unquote_keeps_surrogates,
    reference="U+FFFD (EF BF BD) for each lone surrogate",
    implementation="keeps it: only ASCII runs are percent-decoded (the adapter writes "
    "U+DC80-U+DCFF as the byte surrogateescape gives, others as surrogatepass bytes)",
    citation="WHATWG URL Standard 1.3 (percent-decode a string); CPython "
    "Lib/urllib/parse.py unquote (_asciire split)",
    why="Python str may hold lone surrogates; unquote leaves non-ASCII text alone by design",
    example=DecodeCase("\ud800"),
)
_entry(
    phase=_REWRITE,
    id="urllib-urlencode-quote-via-quote",
    impl="urllib-unquote",
    check="form",
    summary="urlencode(quote_via=quote) writes space as %20",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=_replace_in_expected({"+": "%20"}),
    reference="space as + (spaceAsPlus is true for the serializer)",
    implementation="space as %20: quote, unlike quote_plus, has no spaceAsPlus",
    citation=f"{_WHATWG_FORM}; CPython docs urlencode: quote_via defaults to quote_plus",
    why="quote_via=quote is an explicit opt-out of '+'; both decode to a space",
    example=FormCase((("a b", ""),)),
)
_entry(
    phase=_REWRITE,
    id="urllib-urlencode-quote-space",
    impl="urllib",
    check="form",
    summary="urlencode(quote_via=quote) writes space as %20 (cases with an even number of "
    "pairs)",
    applies=_urllib_picks("form", "quote"),
    reconcile=_replace_in_expected({"+": "%20"}),
    reference="space as + (spaceAsPlus is true for the serializer)",
    implementation="space as %20: quote, unlike quote_plus, has no spaceAsPlus",
    citation=f"{_WHATWG_FORM}; CPython docs urlencode: quote_via defaults to quote_plus",
    why="quote_via=quote is an explicit opt-out of '+'; both decode to a space",
    example=FormCase((("a b", ""), ("c", ""))),
)
_entry(
    id="yarl-quoter-drops-lone-surrogates",
    impl="yarl",
    check="encode",
    summary="_Quoter silently drops lone surrogates",
    applies=_str_value_with_surrogate,
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
    check="encode",
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
    check="decode",
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
    id="yarl-unquoter-lone-surrogate",
    impl="yarl",
    check="decode",
    summary="_Unquoter passes a lone surrogate of the input through",
    applies=_str_value_with_surrogate,
    reconcile=_yarl_unquoter_keeps_surrogates,
    reference="U+FFFD (EF BF BD) for each lone surrogate",
    implementation="keeps it (the adapter writes it as its surrogatepass bytes)",
    citation="WHATWG URL Standard 1.3 (percent-decode a string)",
    why="yarl does not validate text it does not need to decode",
    example=DecodeCase("\ud800"),
)
_entry(
    id="yarl-query-drops-lone-surrogates",
    impl="yarl",
    check="form",
    summary="the query API silently drops lone surrogates",
    applies=_pairs_with_surrogate,
    reconcile=_yarl_drops_surrogates_form,
    reference="refuses: NotScalarValueError",
    implementation="serializes with every lone surrogate removed",
    citation="aio-libs/yarl#1751 and #1799",
    why="upstream's deliberate choice (see yarl-quoter-drops-lone-surrogates)",
    example=FormCase((("\ud800", ""),)),
)
_entry(
    phase=_REWRITE,
    id="yarl-query-part-safe",
    impl="yarl",
    check="form",
    summary="the query API leaves ! $ ' ( ) , / : ? @ ~ unencoded",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=_replace_in_expected({f"%{ord(c):02X}": c for c in YARL_QUERY_PART_SAFE}),
    reference="percent-encodes them (the form set is everything but alphanumerics * - . _)",
    implementation="keeps them: QUERY_PART_QUOTER = _Quoter(safe='?/:@', qs=True) plus "
    "the always-safe unreserved and sub-delims !$'()*,",
    citation=f"{_WHATWG_FORM}; RFC 3986 3.4 (query = *( pchar / '/' / '?' ), so these "
    "need no escaping in a query); yarl/_quoters.py",
    why="RFC 3986 allows them in a query and they are not form delimiters (& = + ; are "
    "still encoded)",
    example=FormCase((("/", "?"),)),
)
_entry(
    id="yarl-query-lone-surrogate",
    impl="yarl",
    check="form-parse",
    summary="the query parser keeps a lone surrogate of the input",
    applies=_text_with_surrogate,
    reconcile=_pairs_surrogates_to_fffd,
    reference="U+FFFD for each lone surrogate",
    implementation="passes it through unchanged",
    citation=_WHATWG_FORM_PARSE,
    why="yarl does not validate text it does not need to decode",
    example=FormParseCase("\ud800"),
)
_entry(
    id="ada-search-params-parse-lone-surrogate",
    impl="ada",
    check="form-parse",
    summary="URLSearchParams(text) refuses a lone surrogate (the reference replaces it)",
    applies=_text_with_surrogate,
    reconcile=lambda case, expected, actual: (
        (actual, actual)
        if not expected.raised and isinstance(actual.error, UnicodeEncodeError)
        else None
    ),
    reference="U+FFFD for each lone surrogate (the USVString conversion of the argument)",
    implementation="UnicodeEncodeError from the binding's params.encode()",
    citation=f"{_WHATWG_FORM_PARSE}; WebIDL USVString",
    why="the Python binding, not ada, refuses; JS engines convert before calling ada",
    example=FormParseCase("\ud800"),
)
_entry(
    id="ada-search-params-invalid-utf8",
    impl="ada",
    check="form-parse",
    summary="URLSearchParams raises UnicodeDecodeError when a decoded name or value is not UTF-8",
    applies=lambda case: isinstance(case, FormParseCase),
    reconcile=_ada_invalid_utf8,
    reference="UTF-8 decode without BOM: U+FFFD for invalid sequences ('%FF' -> U+FFFD)",
    implementation="ada keeps the raw bytes and the binding decodes them strictly: "
    "UnicodeDecodeError from items()/get()",
    citation=f"{_WHATWG_FORM_PARSE} step 3.5 (UTF-8 decode without BOM); ada-url/ada#793 "
    "(ada does no Unicode validation); ada_url/ada_adapter.py _get_str",
    why="a bug in ada-url's Python binding (reported as a finding); registered so the "
    "differential test keeps checking every other input",
    example=FormParseCase("%FF"),
)

# --- Node.js and whatwg-url, through the process protocol (pctfuzz.oracles.process) ----------
# JavaScript strings are UTF-16 code units (ECMA-262 6.1.4), so the models below work on
# code units; a str's lone surrogates reach the peer as lone code units.
_ECMA_DECODE = "ECMA-262 19.2.6.6 Decode (a malformed escape or UTF-8 sequence throws URIError)"
_ECMA_ENCODE = "ECMA-262 19.2.6.5 Encode (an unpaired surrogate throws URIError)"
_USVSTRING = "WebIDL 3.2.12 USVString (convert to a scalar value string: U+FFFD)"
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_Pair: TypeAlias = "tuple[Outcome, Outcome] | None"
_QS_UNESCAPE = (
    "Node.js lib/querystring.js qsUnescape: decodeURIComponent, and when it throws, "
    "unescapeBuffer(s).toString(), which stores each UTF-16 code unit that is not an "
    "escape as one byte (code unit & 0xFF)"
)


def _remote_error(name: str) -> type[BaseException]:
    from pctfuzz.oracles.process import remote_error_type

    return remote_error_type(name)


def _code_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i] | data[i + 1] << 8 for i in range(0, len(data), 2)]


def _from_code_units(units: Sequence[int]) -> str:
    data = b"".join(u.to_bytes(2, "little") for u in units)
    return data.decode("utf-16-le", "surrogatepass")


def _ecma_decode(text: str) -> str | None:
    """ECMA-262 Decode(string, "") as decodeURIComponent runs it; None where it throws."""
    out: list[str] = []
    k, n = 0, len(text)
    while k < n:
        c = text[k]
        if c != "%":
            out.append(c)
            k += 1
            continue
        if k + 3 > n or text[k + 1] not in _HEX_DIGITS or text[k + 2] not in _HEX_DIGITS:
            return None
        first = int(text[k + 1 : k + 3], 16)
        length = 1 if first < 0x80 else 2 if first >> 5 == 6 else 3 if first >> 4 == 14 else (
            4 if first >> 3 == 30 else 0
        )
        if length == 0:
            return None
        octets = [first]
        k += 3
        for _ in range(length - 1):
            if k + 3 > n or text[k] != "%":
                return None
            if text[k + 1] not in _HEX_DIGITS or text[k + 2] not in _HEX_DIGITS:
                return None
            octets.append(int(text[k + 1 : k + 3], 16))
            k += 3
        try:
            out.append(bytes(octets).decode("utf-8"))
        except UnicodeDecodeError:
            return None
    return "".join(out)


def _unescape_buffer(text: str, plus: bool) -> bytes:
    """Node.js querystring.unescapeBuffer: %HH -> the byte, '+' -> space (with plus),
    any other code unit -> (code unit & 0xFF)."""
    units = _code_units(text)
    out = bytearray()
    i, n = 0, len(units)
    while i < n:
        c = units[i]
        if c == 0x2B and plus:
            out.append(0x20)
            i += 1
            continue
        if c == 0x25 and i < n - 2 and chr(units[i + 1]) in _HEX_DIGITS and chr(
            units[i + 2]
        ) in _HEX_DIGITS:
            out.append(int(chr(units[i + 1]) + chr(units[i + 2]), 16))
            i += 3
            continue
        out.append(c & 0xFF)
        i += 1
    return bytes(out)


def _qs_unescape(text: str, plus: bool) -> str:
    """Node.js querystring.unescape (qsUnescape)."""
    decoded = _ecma_decode(text)
    if decoded is not None:
        return decoded
    return _unescape_buffer(text, plus).decode("utf-8", "replace")


def _js_utf8(text: str) -> bytes:
    """Buffer.from(text, "utf8"): lone surrogates as EF BF BD."""
    return _surrogates_to_fffd(text).encode("utf-8")


def _qs_escape(text: str) -> str | None:
    """Node.js querystring.escape (lib/internal/querystring.js encodeStr); None where it
    throws. Any surrogate code unit is taken as a pair's lead: the next code unit's low
    ten bits complete it, whatever it is (nodejs/node#62814)."""
    units = _code_units(text)
    data = bytearray()
    i, n = 0, len(units)
    while i < n:
        c = units[i]
        if 0xD800 <= c <= 0xDFFF:
            i += 1
            if i >= n:
                return None
            cp = 0x10000 + (((c & 0x3FF) << 10) | (units[i] & 0x3FF))
            data += bytes(
                [0xF0 | cp >> 18, 0x80 | cp >> 12 & 0x3F, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F]
            )
        else:
            data += chr(c).encode("utf-8")
        i += 1
    return percent_encode(bytes(data), "component")


def _has_valid_escape(text: str) -> bool:
    return _PCT_TRIPLET.search(text) is not None


def _ecma_decode_throws(case: Case) -> bool:
    return isinstance(case, DecodeCase) and isinstance(case.value, str) and (
        _ecma_decode(case.value) is None
    )


def _usvstring_encode(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
    """The implementation sees the value with lone surrogates as U+FFFD."""
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return None
    if not isinstance(expected.error, NotScalarValueError):
        return None
    replaced = EncodeCase(
        _surrogates_to_fffd(case.value), case.set_name, case.encoding, case.space_as_plus
    )
    return reference_outcome("encode", replaced), actual


def _usvstring_form(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
    if not isinstance(case, FormCase) or not isinstance(expected.error, NotScalarValueError):
        return None
    replaced = FormCase(
        tuple((_surrogates_to_fffd(n), _surrogates_to_fffd(v)) for n, v in case.pairs),
        case.encoding,
    )
    return reference_outcome("form", replaced), actual


def _remote_uri_error(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
    if isinstance(actual.error, _remote_error("URIError")):
        return actual, actual
    return None


def _qs_escape_model(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return None
    model = _qs_escape(case.value)
    if model is None:
        return _remote_uri_error(case, expected, actual)
    return Outcome(model), actual


def _qs_stringify_model(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
    if not isinstance(case, FormCase):
        return None
    parts: list[str] = []
    for name, value in case.pairs:
        n, v = _qs_escape(name), _qs_escape(value)
        if n is None or v is None:
            return _remote_uri_error(case, expected, actual)
        parts.append(f"{n}={v}")
    return Outcome("&".join(parts)), actual


def _qs_unescape_model(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
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


def _qs_parse_model(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
    if not isinstance(case, FormParseCase) or not isinstance(case.text, str):
        return None
    return Outcome(_qs_parse_pairs(case.text)), actual


def _node_search_params_model(
    case: Case, expected: Outcome, actual: Outcome
) -> _Pair:
    if not isinstance(case, FormParseCase) or not isinstance(case.text, str):
        return None
    return Outcome(_qs_parse_pairs(_surrogates_to_fffd(case.text))), actual


def _qs_fallback_applies(case: Case) -> bool:
    """Some name or value has a valid escape and still makes decodeURIComponent throw."""
    if not isinstance(case, FormParseCase) or not isinstance(case.text, str):
        return False
    for sequence in case.text.split("&"):
        for raw in sequence.partition("=")[::2]:
            spaced = raw.replace("+", " ")
            if _has_valid_escape(spaced) and _ecma_decode(spaced) is None:
                return True
    return False


_entry(
    id="node-encodeuricomponent-lone-surrogate",
    impl="node",
    check="encode",
    summary="encodeURIComponent and encodeURI throw URIError for a lone surrogate",
    applies=lambda case: _str_value_with_surrogate(case)
    and get_set(getattr(case, "set_name", "component")).name != FORM.name,
    reconcile=_remote_uri_error,
    reference="refuses: NotScalarValueError",
    implementation="refuses: URIError: URI malformed",
    citation=f"{_ECMA_ENCODE}; {_WHATWG_PCT} takes a scalar value string",
    why="both refuse the input; only the exception type differs",
    example=EncodeCase("\ud800", "component"),
)
_entry(
    id="node-search-params-usvstring-encode",
    impl="node",
    check="encode",
    summary="URLSearchParams converts a lone surrogate to U+FFFD (the reference refuses it)",
    applies=lambda case: _str_value_with_surrogate(case)
    and get_set(getattr(case, "set_name", "component")).name == FORM.name,
    reconcile=_usvstring_encode,
    reference="refuses: NotScalarValueError",
    implementation="encodes the value with each lone surrogate as U+FFFD (%EF%BF%BD)",
    citation=f"{_USVSTRING}; WHATWG URL Standard 6.2 (URLSearchParams takes USVString)",
    why="the standard's own API converts before the algorithm runs",
    example=EncodeCase("\ud800", FORM.name, "utf-8", True),
)
_entry(
    id="node-decodeuricomponent-malformed",
    impl="node",
    check="decode",
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
    id="node-search-params-usvstring",
    impl="node",
    check="form",
    summary="URLSearchParams converts lone surrogates to U+FFFD (the reference refuses them)",
    applies=_pairs_with_surrogate,
    reconcile=_usvstring_form,
    reference="refuses: NotScalarValueError",
    implementation="serializes with each lone surrogate as U+FFFD (%EF%BF%BD)",
    citation=f"{_USVSTRING}; WHATWG URL Standard 6.2 (URLSearchParams(init) takes USVStrings)",
    why="the standard's own API converts before the serializer runs",
    example=FormCase((("\ud800", ""),)),
)
_entry(
    id="node-search-params-unescape-buffer",
    impl="node",
    check="form-parse",
    summary="URLSearchParams falls back to querystring's unescapeBuffer: non-ASCII text "
    "around a bad escape is truncated to bytes",
    applies=_qs_fallback_applies,
    reconcile=_node_search_params_model,
    reference="percent-decodes the UTF-8 bytes, then UTF-8 decodes ('%FFé' -> '\\ufffdé')",
    implementation="decodeURIComponent, and when that throws, each code unit & 0xFF as a "
    "byte ('%FFé' -> '\\ufffd\\ufffd'; '日%한%25' -> '\\ufffd%\\\\%')",
    citation=f"{_WHATWG_FORM_PARSE}; Node.js v20 lib/internal/url.js parseParams with "
    f"{_QS_UNESCAPE}",
    why="a Node.js bug (data change); not reported upstream yet; registered so the "
    "differential test keeps checking every other input",
    example=FormParseCase("%FF\u00e9"),
)
_entry(
    id="node-querystring-escape-lone-surrogate",
    impl="node-querystring",
    check="encode",
    summary="querystring.escape joins a lone surrogate with the next code unit, or throws "
    "URIError at the end",
    applies=_str_value_with_surrogate,
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
    check="form",
    summary="querystring.stringify escapes lone surrogates as querystring.escape does",
    applies=_pairs_with_surrogate,
    reconcile=_qs_stringify_model,
    reference="refuses: NotScalarValueError",
    implementation="the surrogate swallows the next code unit (see "
    "node-querystring-escape-lone-surrogate), or URIError at the end of a name or value",
    citation="nodejs/node#62814 (open)",
    why="the same upstream bug as node-querystring-escape-lone-surrogate",
    example=FormCase((("\ud800a", ""),)),
)
_entry(
    phase=_REWRITE,
    id="node-querystring-stringify-escape",
    impl="node-querystring",
    check="form",
    summary="querystring.stringify writes space as %20 and leaves ! ' ( ) ~ unencoded",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=_replace_in_expected(
        {"+": "%20", "%21": "!", "%27": "'", "%28": "(", "%29": ")", "%7E": "~"}
    ),
    reference="the form set and spaceAsPlus: space as +, ! ' ( ) ~ as %21 %27 %28 %29 %7E",
    implementation="querystring.escape's set, the encodeURIComponent set: %20, ! ' ( ) ~ kept",
    citation=f"{_WHATWG_FORM}; Node.js docs querystring.stringify (values are encoded "
    "with querystring.escape) and querystring.escape",
    why="querystring predates the URL Standard; both forms decode to the same text",
    example=FormCase((("a b", "~"),)),
)
_entry(
    id="node-querystring-unescape-buffer",
    impl="node-querystring",
    check="decode",
    summary="querystring.unescape falls back to unescapeBuffer: non-ASCII text around a bad "
    "escape is truncated to bytes",
    applies=_ecma_decode_throws,
    reconcile=_qs_unescape_model,
    reference="the percent-decoded UTF-8 bytes ('$¾%1G' -> 24 C2 BE 25 31 47)",
    implementation="decodeURIComponent, and when that throws, each code unit & 0xFF as a "
    "byte, then UTF-8 decoded with U+FFFD ('$¾%1G' -> 24 EF BF BD 25 31 47)",
    citation=f"{_WHATWG_PCT.replace('after encoding', 'decode')}; {_QS_UNESCAPE}",
    why="a Node.js bug (data change); not reported upstream yet; registered so the "
    "differential test keeps checking every other input",
    example=DecodeCase("$\u00be%1G"),
)
_entry(
    id="node-querystring-parse-unescape-buffer",
    impl="node-querystring",
    check="form-parse",
    summary="querystring.parse keeps lone surrogates and decodes through qsUnescape "
    "(truncating non-ASCII text around a bad escape)",
    applies=lambda case: _text_with_surrogate(case) or _qs_fallback_applies(case),
    reconcile=_qs_parse_model,
    reference="U+FFFD for lone surrogates; percent-decodes bytes, then UTF-8 decodes",
    implementation="lone surrogates kept; decodeURIComponent, and when that throws, each "
    "code unit & 0xFF as a byte ('%FF💩' -> '\\ufffd=\\ufffd': a '=' appears in a name)",
    citation=f"{_WHATWG_FORM_PARSE}; {_QS_UNESCAPE}",
    why="lone surrogates: JS strings are code units (ECMA-262 6.1.4); the truncation is a "
    "Node.js bug, not reported upstream yet, registered so every other input is checked",
    example=FormParseCase("%FF\u00e9"),
)


#: Every accepted divergence, in reconcile order (entries replacing a refusal come
#: before entries rewriting text, so yarl's dropped surrogates compose with its safe set).
DIVERGENCES: tuple[KnownDivergence, ...] = tuple(
    entry for _, entry in sorted(_ENTRIES, key=lambda item: item[0])
)

_BY_ID = {d.id: d for d in DIVERGENCES}
if len(_BY_ID) != len(DIVERGENCES):  # pragma: no cover - a registry typo
    raise RuntimeError("duplicate divergence ids")


def get_divergence(entry_id: str) -> KnownDivergence:
    """The entry with this id; ``PctfuzzError`` if there is none."""
    try:
        return _BY_ID[entry_id]
    except KeyError:
        raise PctfuzzError(f"unknown divergence {entry_id!r}") from None


def divergences_for(
    impl: str | Iterable[str] | None = None, check: str | None = None
) -> list[KnownDivergence]:
    """Entries for these implementation names (all if None) and check (all if None),
    grouped by implementation and check (``DIVERGENCES`` keeps reconcile order)."""
    names = {impl} if isinstance(impl, str) else set(impl) if impl is not None else None
    from pctfuzz.oracles.registry import IMPLS

    order = {name: index for index, name in enumerate(IMPLS)}
    found = [
        d
        for d in DIVERGENCES
        if (names is None or d.impl in names) and (check is None or d.check == check)
    ]
    # Display order: by implementation, then check; registry order within those.
    return sorted(found, key=lambda d: (order.get(d.impl, len(order)), CHECKS.index(d.check)))


def reconcile(
    check: str, impl_names: Sequence[str], case: Case, expected: Outcome, actual: Outcome,
    *, extra: Sequence[KnownDivergence] = (),
) -> tuple[tuple[str, ...], Outcome, Outcome]:
    """Apply every active entry for ``check`` and one of ``impl_names`` whose predicate
    accepts ``case``, in registry order, then the ``extra`` entries (a user adapter's
    and ``--accept``'s, ``pctfuzz.accept``): (ids of the entries that changed an
    outcome, the reference's outcome and the implementation's with those differences
    taken out). What still differs between the two is what no entry explains."""
    used: list[str] = []
    for entry in (*DIVERGENCES, *extra):
        if entry.check != check or entry.impl not in impl_names:
            continue
        try:
            if not (entry.active() and entry.applies(case)):
                continue
            pair = entry.reconcile(case, expected, actual)
        except Exception:
            # An answer of an unexpected shape (a new bug) is not explained by the entry;
            # leaving it unexplained reports it.
            continue
        if pair is None:
            continue
        if not (pair[0].same(expected) and pair[1].same(actual)):
            used.append(entry.id)
        expected, actual = pair
    return tuple(used), expected, actual


def explain(
    check: str, impl_names: Sequence[str], case: Case, expected: Outcome, actual: Outcome,
    *, extra: Sequence[KnownDivergence] = (),
) -> tuple[str, ...] | None:
    """Ids of the entries that together explain the difference, or None if they do not:
    the difference is explained if the ``reconcile``d outcomes are the same. The ids
    returned are those that changed one."""
    used, expected, actual = reconcile(check, impl_names, case, expected, actual, extra=extra)
    if used and expected.same(actual):
        return used
    return None


# --- rendering -------------------------------------------------------------------------------
def case_text(case: Case) -> str:
    """A short Python-like rendering of a case, defaults left out."""
    if isinstance(case, EncodeCase):
        parts = [repr(case.value), f"set={case.set_name!r}"]
        if case.encoding != "utf-8":
            parts.append(f"encoding={case.encoding!r}")
        if case.space_as_plus:
            parts.append("space_as_plus=True")
        return f"encode({', '.join(parts)})"
    if isinstance(case, DecodeCase):
        return f"decode({case.value!r})"
    if isinstance(case, FormCase):
        pairs = list(case.pairs)
        extra = "" if case.encoding == "utf-8" else f", encoding={case.encoding!r}"
        return f"form({pairs!r}{extra})"
    return f"form_parse({case.text!r})"


def example_outcomes(entry: KnownDivergence) -> tuple[Outcome, Outcome]:
    """(reference, implementation) outcomes on the entry's pinned example."""
    from pctfuzz.checks.differential import run_impl
    from pctfuzz.oracles.registry import get_impl

    expected = reference_outcome(entry.check, entry.example)
    actual = run_impl(entry.check, entry.example, get_impl(entry.impl))
    if actual is None:  # pragma: no cover - an example must be expressible
        raise PctfuzzError(f"divergence {entry.id}: {entry.impl} does not support its example")
    return expected, actual


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(impl: str | Iterable[str] | None = None, *, outcomes: bool = False) -> str:
    """The registry as a Markdown table (entries for ``impl`` names only, if given). With
    ``outcomes``, each row also shows both answers on the pinned example (this runs
    the implementations, so they must be installed)."""
    rows = divergences_for(impl)
    header = [
        "id",
        "impl",
        "check",
        "what differs",
        "example",
        "reference",
        "implementation",
        "citation",
        "why accepted",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for entry in rows:
        if outcomes:
            expected, actual = example_outcomes(entry)
            ref, got = expected.describe(), actual.describe()
        else:
            ref, got = entry.reference, entry.implementation
        status = "" if entry.active() else " (inactive here: fixed upstream)"
        cells = [
            f"`{entry.id}`",
            entry.impl,
            entry.check,
            entry.summary + status,
            f"`{case_text(entry.example)}`",
            ref,
            got,
            entry.citation,
            entry.why,
        ]
        lines.append("| " + " | ".join(_md(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"
