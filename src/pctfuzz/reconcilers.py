"""The ready-made reconcilers of user entries, and ``divergence()`` that builds one.

Each reconciler states one difference exactly (``pctfuzz.entry``: it takes that
difference out of the two outcomes and nothing more); ``pctfuzz.accept`` documents
them for users and loads them from ``--accept`` files by the names in ``RECONCILERS``.
The models follow WHATWG URL 1.3 (percent-encode after encoding), 5.1 and 5.2 (form
parser and serializer) with the implementation's one change applied. (Just over 400
lines: the nine reconcilers and the builder are one vocabulary, each a few lines.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pctfuzz.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz.entry import KnownDivergence
from pctfuzz.errors import UsageError
from pctfuzz.form import form_urldecode, form_urlencode
from pctfuzz.outcome import CHECKS, Outcome, Reconcile
from pctfuzz.reference import percent_decode, percent_encode
from pctfuzz.sets import FORM, PercentEncodeSet, get_set
from pctfuzz.text import count_lone_surrogates, surrogates_to_fffd

__all__ = [
    "MODEL",
    "RECONCILERS",
    "REPLACE",
    "REWRITE",
    "Reconciler",
    "both_refuse",
    "divergence",
    "empty_pairs",
    "encode_model",
    "encoded",
    "latin1_fallback",
    "left_raw",
    "lowercase_hex",
    "pairs_order",
    "pairs_surrogates_to_fffd",
    "requoted",
    "set_change",
    "space_as",
]

_CASE_TYPES: Mapping[str, type] = {
    "encode": EncodeCase, "decode": DecodeCase, "form": FormCase, "form-parse": FormParseCase,
}
_Pair = tuple[Outcome, Outcome] | None
#: Reconcile phases (``KnownDivergence.phase``): refusals and models of the whole
#: answer first, then models of the encoder, then rewrites of the text, so they compose.
REPLACE, MODEL, REWRITE = 0, 1, 2


@dataclass(frozen=True)
class Reconciler:
    """A ready-made exact statement of one difference (``pctfuzz.accept`` lists them)."""

    name: str
    checks: frozenset[str]
    reconcile: Reconcile
    reference: str
    implementation: str
    phase: int = MODEL


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


def left_raw(chars: str) -> Reconciler:
    """CHARS written as themselves where the reference writes ``%HH`` (WHATWG URL 1.3)."""
    members = _chars(chars)
    return Reconciler("left_raw", frozenset({"encode", "form"}), set_change(frozenset(), members),
                      f"percent-encodes {chars!r} (in the set)",
                      f"leaves {chars!r} as is")


def encoded(chars: str) -> Reconciler:
    """CHARS also written as ``%HH`` (the implementation's set is larger)."""
    members = _chars(chars)
    return Reconciler("encoded", frozenset({"encode", "form"}), set_change(members, frozenset()),
                      f"leaves {chars!r} as is (outside the set)",
                      f"percent-encodes {chars!r}")


def space_as(space: str) -> Reconciler:
    """The implementation writes a space as ``space`` (``"%20"`` or ``"+"``) where the
    reference writes the other; exact only when the reference's output has no literal
    ``+`` (resp. ``%20``) of the input, else the entry does not apply."""
    if space not in ("%20", "+"):
        raise UsageError(f"space_as: give '%20' or '+', not {space!r}")
    other = "+" if space == "%20" else "%20"

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised or not isinstance(expected.value, str):
            return None
        if isinstance(case, EncodeCase):
            pes, values = get_set(case.set_name), [case.value]
        elif isinstance(case, FormCase):
            pes, values = FORM, [t for pair in case.pairs for t in pair]
        else:
            return None
        # A literal of the input in the reference's output would be rewritten too.
        literal = "+" if space == "%20" else "%"
        if ord(literal) not in pes and any(
            (literal in v) if isinstance(v, str) else (literal.encode() in v) for v in values
        ):
            return None
        return Outcome(expected.value.replace(other, space)), actual

    return Reconciler("space_as", frozenset({"encode", "form"}), reconcile,
                      f"writes a space as {other}", f"writes a space as {space}", REWRITE)


_TRIPLET = re.compile("%[0-9A-F]{2}")


def lowercase_hex() -> Reconciler:
    """``%hh`` with lowercase hex digits (RFC 3986 2.1: equivalent, uppercase SHOULD).
    A ``%`` of the input that the set leaves raw could be read as a triplet, so the
    entry does not apply then."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised or not isinstance(expected.value, str):
            return None
        if isinstance(case, EncodeCase):
            value = case.value
            has_pct = ("%" in value) if isinstance(value, str) else (b"%" in value)
            if has_pct and 0x25 not in get_set(case.set_name):
                return None
        return Outcome(_TRIPLET.sub(lambda m: m.group().lower(), expected.value)), actual

    return Reconciler("lowercase_hex", frozenset({"encode", "form"}), reconcile,
                      "uppercase hex digits (%2F)", "lowercase hex digits (%2f)", REWRITE)


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


_VALID_TRIPLET = re.compile("%[0-9A-Fa-f]{2}")
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_REQUOTE_MODES = ("keep", "upper", "decode-unreserved", "decode-safe")


def requoted(mode: str) -> Reconciler:
    """A valid ``%HH`` already in the input is an escape, not data (RFC 3986 2.4); the
    rest is encoded as the reference encodes it. ``mode``: ``pctfuzz.accept``."""
    if mode not in _REQUOTE_MODES:
        raise UsageError(f"requoted: mode must be one of {', '.join(_REQUOTE_MODES)}")

    def escape(triplet: str, pes: PercentEncodeSet) -> str:
        byte = int(triplet[1:], 16)
        if mode == "keep":
            return triplet
        if mode == "decode-unreserved" and byte in _UNRESERVED:
            return chr(byte)
        if mode == "decode-safe" and byte not in pes:
            return chr(byte)
        return triplet if mode == "decode-unreserved" else triplet.upper()

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
            return None
        if expected.raised:
            return None
        pes = get_set(case.set_name)
        out: list[str] = []
        pos = 0
        for match in _VALID_TRIPLET.finditer(case.value):
            data = EncodeCase(case.value[pos:match.start()], case.set_name, case.encoding,
                              case.space_as_plus)
            out += [encode_model(data, pes), escape(match.group(), pes)]
            pos = match.end()
        rest = EncodeCase(case.value[pos:], case.set_name, case.encoding, case.space_as_plus)
        out.append(encode_model(rest, pes))
        return Outcome("".join(out)), actual

    return Reconciler("requoted", frozenset({"encode"}), reconcile,
                      "an existing %HH is data: its % is encoded as %25 when in the set",
                      f"an existing %HH is an escape ({mode})")


_ORDER_MODES = ("grouped", "sorted")


def _reorder(pairs: Iterable[tuple[str, str]], mode: str) -> list[tuple[str, str]]:
    listed = list(pairs)
    if mode == "sorted":
        return sorted(listed, key=lambda p: p[0])  # stable: values keep their order
    first: dict[str, int] = {}
    for name, _ in listed:
        first.setdefault(name, len(first))
    return sorted(listed, key=lambda p: first[p[0]])


def pairs_order(mode: str) -> Reconciler:
    """Pairs ``grouped`` by name (in order of first appearance, as a multi-dict keeps
    them) or ``sorted`` by name, values in input order (WHATWG URL 5.1/5.2 keep the
    list's order)."""
    if mode not in _ORDER_MODES:
        raise UsageError(f"pairs_order: mode must be one of {', '.join(_ORDER_MODES)}")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        if isinstance(case, FormCase):
            pairs = tuple(_reorder(case.pairs, mode))
            return Outcome(form_urlencode(pairs, encoding=case.encoding)), actual
        if isinstance(case, FormParseCase):
            return Outcome(_reorder(expected.value, mode)), actual
        return None

    return Reconciler("pairs_order", frozenset({"form", "form-parse"}), reconcile,
                      "keeps the pairs in list order", f"pairs {mode} by name", REPLACE)


_EMPTY_MODES = ("dropped", "kept")


def empty_pairs(mode: str) -> Reconciler:
    """``dropped``: pairs whose value is empty are left out (``parse_qsl`` without
    ``keep_blank_values``); ``kept``: an empty sequence between ``&`` is a pair
    ("", "") (the WHATWG parser skips it, 5.1 step 3.1)."""
    if mode not in _EMPTY_MODES:
        raise UsageError(f"empty_pairs: mode must be one of {', '.join(_EMPTY_MODES)}")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        if mode == "dropped" and isinstance(case, FormCase):
            pairs = [p for p in case.pairs if p[1]]
            return Outcome(form_urlencode(pairs, encoding=case.encoding)), actual
        if mode == "dropped" and isinstance(case, FormParseCase):
            return Outcome([p for p in expected.value if p[1]]), actual
        if mode == "kept" and isinstance(case, FormParseCase):
            text = case.text
            sep: Any = b"&" if isinstance(text, bytes) else "&"
            model: list[tuple[str, str]] = []
            for sequence in text.split(sep):
                model += form_urldecode(sequence) if sequence else [("", "")]
            return Outcome(model), actual
        return None

    checks = {"form", "form-parse"} if mode == "dropped" else {"form-parse"}
    return Reconciler("empty_pairs", frozenset(checks), reconcile,
                      "keeps pairs with an empty value; skips empty sequences",
                      f"empty pairs {mode}", REPLACE)


def _utf8_or_latin1(data: bytes) -> bytes:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1").encode("utf-8")
    return data


def latin1_fallback() -> Reconciler:
    """Decoded bytes that are not valid UTF-8 are decoded as latin-1 instead (the
    reference writes U+FFFD, Encoding Standard "UTF-8 decode without BOM"). For decode,
    the implementation's text answer is compared as UTF-8 bytes."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        if isinstance(case, DecodeCase):
            return Outcome(_utf8_or_latin1(expected.value)), actual
        if isinstance(case, FormParseCase):
            text = case.text
            data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
            pairs = []
            for sequence in data.split(b"&"):
                if sequence:
                    name, _, value = sequence.partition(b"=")
                    pairs.append(tuple(
                        _utf8_or_latin1(percent_decode(part.replace(b"+", b" "))).decode("utf-8")
                        for part in (name, value)))
            return Outcome(pairs), actual
        return None

    return Reconciler("latin1_fallback", frozenset({"decode", "form-parse"}), reconcile,
                      "U+FFFD for invalid UTF-8", "latin-1 for a value that is not UTF-8",
                      REPLACE)


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


#: Ready-made reconcilers by the name a TOML entry gives, with their parameter.
RECONCILERS: Mapping[str, tuple[Callable[..., Reconciler], str | None]] = {
    "left_raw": (left_raw, "chars"),
    "encoded": (encoded, "chars"),
    "space_as": (space_as, "space"),
    "lowercase_hex": (lowercase_hex, None),
    "both_refuse": (both_refuse, "types"),
    "requoted": (requoted, "mode"),
    "pairs_order": (pairs_order, "mode"),
    "empty_pairs": (empty_pairs, "mode"),
    "latin1_fallback": (latin1_fallback, None),
}


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
    )
