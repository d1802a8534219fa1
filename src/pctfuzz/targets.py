"""Fuzz targets: a name, a case type, a stable byte format, a strategy and a check.

A target is written once and run by every driver (DESIGN.md "The one idea"):
Hypothesis draws cases from ``strategy()``, atheris builds them from raw bytes with
``from_bytes``, replay rebuilds them from a finding's JSON; all call ``check``.

Byte formats (stable: corpus files and findings' raw inputs depend on them; the
tables ``FUZZ_SETS`` and ``FUZZ_ENCODINGS`` only ever grow at the end):

``encode`` / ``diff_encode``  ``[flags][encoding][payload...]``
    flags bit 7: payload is bytes (else text); bit 6: space_as_plus;
    bits 0-5: index into ``FUZZ_SETS`` (modulo its length).
    encoding: < 0x80 -> UTF-8, else ``FUZZ_ENCODINGS[byte % len]``.
``decode`` / ``diff_decode`` and ``form_parse`` / ``diff_form_parse``  ``[flags][payload...]``
    flags bit 0: payload is text (else bytes).
``form`` / ``diff_form``  ``[encoding][len][name][len][value]...``
    lengths are one byte (0-255) of UTF-8 bytes; a truncated last field takes
    what is there.
Text payloads are UTF-8 with lone surrogates allowed (``surrogatepass``); bytes that
are not such UTF-8 are decoded with U+FFFD replacement, so every byte string is a case.
Missing header bytes read as 0.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from pctfuzz.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz.encoding import lookup
from pctfuzz.errors import PctfuzzError
from pctfuzz.identity import TARGET_NAME
from pctfuzz.sets import get_set

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = [
    "FUZZ_ENCODINGS",
    "FUZZ_SETS",
    "TARGETS",
    "Target",
    "get_target",
]

#: Set names by byte index. Append only.
FUZZ_SETS: tuple[str, ...] = (
    "c0-control",
    "fragment",
    "query",
    "special-query",
    "path",
    "userinfo",
    "component",
    "application/x-www-form-urlencoded",
    "rfc3986-unreserved",
    "rfc3986-pchar",
    "rfc3986-query",
    "encodeURIComponent",
    "encodeURI",
    "data-uri",
    "query-value",
)

#: Encoding labels (canonical names) by byte index. Append only.
FUZZ_ENCODINGS: tuple[str, ...] = (
    "UTF-8",
    "Shift_JIS",
    "EUC-JP",
    "ISO-2022-JP",
    "EUC-KR",
    "Big5",
    "gb18030",
    "GBK",
    "windows-1252",
    "windows-1251",
    "ISO-8859-2",
    "KOI8-R",
    "x-user-defined",
)

_TARGET_NAME = re.compile(TARGET_NAME)


def _text(payload: bytes) -> str:
    try:
        return payload.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return payload.decode("utf-8", "replace")


def _text_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _encoding_from_byte(byte: int) -> str:
    """Header byte -> label: below 0x80 is UTF-8 (half of all inputs), else the table."""
    return "UTF-8" if byte < 0x80 else FUZZ_ENCODINGS[byte % len(FUZZ_ENCODINGS)]


def _encoding_to_byte(label: str) -> int:
    """Inverse of ``_encoding_from_byte``: the smallest byte that selects ``label``."""
    name = lookup(label).name
    if name not in FUZZ_ENCODINGS:
        raise PctfuzzError(f"encoding {label!r} has no byte in the fuzz format")
    if name == "UTF-8":
        return 0
    return 0x80 + (FUZZ_ENCODINGS.index(name) - 0x80) % len(FUZZ_ENCODINGS)


# --- encode ------------------------------------------------------------------------------
def encode_from_bytes(data: bytes, *, sets: Sequence[str] = FUZZ_SETS,
                      encodings: Sequence[str] | None = None,
                      value_types: Sequence[str] = ("str", "bytes"),
                      spaces: Sequence[bool] = (False, True)) -> EncodeCase:
    """The ``encode`` byte format (module docstring). The keyword arguments narrow the
    cases to what an adapter answers (``AnswerDomain``): the set index picks from
    ``sets``, the encoding byte from ``encodings``, the space flag from ``spaces``, and
    a payload of a type the adapter does not take is read as the other type."""
    flags = data[0] if data else 0
    enc = data[1] if len(data) > 1 else 0
    payload = data[2:]
    as_bytes = bool(flags & 0x80) if len(value_types) == 2 else value_types[0] == "bytes"
    value: str | bytes = payload if as_bytes else _text(payload)
    encoding = (_encoding_from_byte(enc) if encodings is None
                else encodings[enc % len(encodings)])
    return EncodeCase(
        value,
        sets[(flags & 0x3F) % len(sets)],
        encoding,
        spaces[((flags >> 6) & 1) % len(spaces)],
    )


#: ``{label: set spec}`` as JSON: the sets of ``pctfuzz fuzz --set`` (or ``[tool.pctfuzz]
#: sets``), for this process and the campaign's harness processes.
SETS_ENV = "PCTFUZZ_SETS"


@dataclass(frozen=True)
class AnswerDomain:
    """What an implementation under test says it answers, read from its adapter:
    ``sets`` (label -> set name or spec: ``oracles.function_adapter`` declares them),
    ``encodings`` (labels), ``value_types`` (``"str"``, ``"bytes"``) and ``spaces``
    (the spaceAsPlus values). A campaign then spends its executions on cases the
    adapter answers, instead of on ``Unsupported`` ones."""

    sets: tuple[str, ...] = FUZZ_SETS
    encodings: tuple[str, ...] | None = None
    value_types: tuple[str, ...] = ("str", "bytes")
    spaces: tuple[bool, ...] = (False, True)

    @classmethod
    def of(cls, impl: Any) -> AnswerDomain:
        declared = getattr(impl, "sets", None)
        if os.environ.get(SETS_ENV):  # --set NAME=SPEC / [tool.pctfuzz] sets: the user's word
            declared = json.loads(os.environ[SETS_ENV])
        sets = tuple(spec if isinstance(spec, str) else spec.name
                     for spec in declared.values()) if isinstance(declared, Mapping) else ()
        encodings = tuple(getattr(impl, "encodings", ()) or ())
        value_types = tuple(getattr(impl, "value_types", ()) or ())
        spaces = tuple(getattr(impl, "spaces", ()) or ())
        return cls(sets or FUZZ_SETS, encodings or None,
                   tuple(t for t in value_types if t in ("str", "bytes")) or ("str", "bytes"),
                   tuple(bool(b) for b in spaces) or (False, True))


def encode_to_bytes(case: EncodeCase) -> bytes:
    flags = FUZZ_SETS.index(get_set(case.set_name).name)
    flags |= 0x40 if case.space_as_plus else 0
    enc = _encoding_to_byte(case.encoding)
    if isinstance(case.value, bytes):
        return bytes([flags | 0x80, enc]) + case.value
    return bytes([flags, enc]) + _text_bytes(case.value)


# --- decode and form-parse: one flag byte then the payload ---------------------------------
def _flagged_value(data: bytes) -> str | bytes:
    payload = data[1:]
    return _text(payload) if data and data[0] & 1 else payload


def _flag_and_value(value: str | bytes) -> bytes:
    return b"\x00" + value if isinstance(value, bytes) else b"\x01" + _text_bytes(value)


def decode_from_bytes(data: bytes) -> DecodeCase:
    return DecodeCase(_flagged_value(data))


def decode_to_bytes(case: DecodeCase) -> bytes:
    return _flag_and_value(case.value)


def form_parse_from_bytes(data: bytes) -> FormParseCase:
    return FormParseCase(_flagged_value(data))


def form_parse_to_bytes(case: FormParseCase) -> bytes:
    return _flag_and_value(case.text)


# --- form serializer: length-prefixed names and values -------------------------------------
def form_from_bytes(data: bytes) -> FormCase:
    encoding = _encoding_from_byte(data[0] if data else 0)
    fields: list[str] = []
    pos = 1
    while pos < len(data):
        size = data[pos]
        fields.append(_text(data[pos + 1 : pos + 1 + size]))
        pos += 1 + size
    if len(fields) % 2:
        fields.append("")
    pairs = tuple(zip(fields[0::2], fields[1::2], strict=True))
    return FormCase(pairs, encoding)


def form_to_bytes(case: FormCase) -> bytes:
    out = bytearray([_encoding_to_byte(case.encoding)])
    for name, value in case.pairs:
        for item in (name, value):
            raw = _text_bytes(item)
            if len(raw) > 255:
                raise PctfuzzError("form fields longer than 255 UTF-8 bytes have no byte format")
            out.append(len(raw))
            out += raw
    return bytes(out)


CaseType: TypeAlias = type[EncodeCase] | type[DecodeCase] | type[FormCase] | type[FormParseCase]

# --- the registry --------------------------------------------------------------------------
Check = Callable[[Any, Any], "tuple[str, ...] | None"]


@dataclass(frozen=True)
class Target:
    """One fuzz target. ``check(case, impl)`` raises ``Violation``/``Divergence`` on a
    failure; ``impl`` is the implementation under test (ignored unless ``differential``)."""

    name: str
    description: str
    case_type: CaseType
    from_bytes: Callable[[bytes], Any]
    to_bytes: Callable[[Any], bytes]
    strategy_name: str
    check_name: str
    differential: bool

    def __post_init__(self) -> None:
        if not _TARGET_NAME.fullmatch(self.name):
            raise ValueError(f"target name {self.name!r}: letters, digits, _ and - only")

    def check(self, case: Case, impl: Any = None) -> tuple[str, ...] | None:
        """Run the shared check (imported lazily so the harness loads only what it runs).

        ``impl``: for a differential target, the implementation under test (an
        ``oracles`` adapter); for an invariant target, the ``properties.Codec`` whose
        invariants are checked (default: the reference; ``faults`` are wrong on purpose).
        Returns what a differential check returns -- None when the implementation does
        not answer the case, else the ids of the registry entries that accepted a
        difference (``()``: they agree) -- and ``()`` for an invariant target.
        """
        if self.differential:
            from pctfuzz.checks import differential

            return cast(Check, getattr(differential, self.check_name))(case, impl)
        from pctfuzz.checks import invariants as properties

        codec = properties.REFERENCE if impl is None else impl
        cast(Check, getattr(properties, self.check_name))(case, codec)
        return ()

    def check_fast(self, case: Case, impl: Any = None, turn: int = 0) -> None:
        """The atheris driver's check: an invariant target runs the rotation of its
        aggregate at ``turn`` (``properties.ROTATING``: the cheap invariants and one
        costly one), a differential target its check. Raises as ``check`` does; what
        it raises is re-checked with ``check`` before it is recorded (``fuzzing.main``),
        so signatures and replays never depend on the turn."""
        if self.differential:
            self.check(case, impl)
            return
        _turns, rotate, reference = _rotation(self.check_name)
        rotate(case, reference if impl is None else impl, turn)

    def turns(self) -> int:
        """How many consecutive turns of ``check_fast`` run every invariant of ``check``."""
        return 1 if self.differential else _rotation(self.check_name)[0]

    def strategy(self) -> SearchStrategy[Any]:
        """The Hypothesis strategy for this target's cases."""
        from pctfuzz.checks import strategies

        return cast("SearchStrategy[Any]", getattr(strategies, self.strategy_name)())

    def case_from_bytes(self, data: bytes, impl: Any = None) -> Case:
        """The case of fuzzer bytes ``data``; for ``diff_encode``, within what ``impl``
        answers (``AnswerDomain``). Deterministic, so minimization and replay of a raw
        input against the same implementation see the same case."""
        if self.differential and self.case_type is EncodeCase and impl is not None:
            domain = AnswerDomain.of(impl)
            if domain != _ALL:
                return encode_from_bytes(data, sets=domain.sets, encodings=domain.encodings,
                                         value_types=domain.value_types,
                                         spaces=domain.spaces)
        return cast(Case, self.from_bytes(data))

    def run_bytes(self, data: bytes, impl: Any = None) -> Case:
        """Build the case from fuzzer bytes, check it, and return it."""
        case = self.case_from_bytes(data, impl)
        self.check(case, impl)
        return case


_ALL = AnswerDomain()


_ROTATIONS: dict[str, tuple[int, Callable[[Any, Any, int], None], Any]] = {}


def _rotation(check_name: str) -> tuple[int, Callable[[Any, Any, int], None], Any]:
    """(turns, rotated check, the reference codec) of an invariant check, looked up
    once: ``check_fast`` runs on every fuzzer execution."""
    found = _ROTATIONS.get(check_name)
    if found is None:
        from pctfuzz.checks import invariants as properties

        rotation = properties.ROTATING[check_name]
        found = _ROTATIONS[check_name] = (rotation.turns, rotation.check, properties.REFERENCE)
    return found


def _targets() -> Iterator[Target]:
    kinds = (
        ("encode", EncodeCase, encode_from_bytes, encode_to_bytes, "encode_cases", "check_encode",
         "percent_encode over every set, encoding and spaceAsPlus"),
        ("decode", DecodeCase, decode_from_bytes, decode_to_bytes, "decode_cases", "check_decode",
         "percent_decode of arbitrary str/bytes"),
        ("form", FormCase, form_from_bytes, form_to_bytes, "form_cases", "check_form",
         "application/x-www-form-urlencoded serializer (and parse back)"),
        ("form_parse", FormParseCase, form_parse_from_bytes, form_parse_to_bytes,
         "form_parse_cases", "check_form_parse",
         "application/x-www-form-urlencoded parser on arbitrary input"),
    )
    for name, case_type, from_bytes, to_bytes, strategy, check, what in kinds:
        yield Target(name, f"invariants: {what}", case_type, from_bytes, to_bytes,
                     strategy, check, differential=False)
    for name, case_type, from_bytes, to_bytes, strategy, check, what in kinds:
        yield Target(f"diff_{name}", f"differential vs --impl: {what}", case_type,
                     from_bytes, to_bytes, strategy, check, differential=True)


#: name -> target, invariant targets first.
TARGETS: Mapping[str, Target] = MappingProxyType({t.name: t for t in _targets()})


def get_target(name: str) -> Target:
    """Look a target up by name; ``PctfuzzError`` listing the known ones otherwise."""
    try:
        return TARGETS[name]
    except KeyError:
        raise PctfuzzError(f"unknown target {name!r}; known: {', '.join(TARGETS)}") from None
