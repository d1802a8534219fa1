"""The byte formats of the fuzz targets: how fuzzer bytes become a case, and back.

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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.sets import get_set

__all__ = [
    "FUZZ_ENCODINGS",
    "FUZZ_SETS",
    "SETS_ENV",
    "AnswerDomain",
    "decode_from_bytes",
    "decode_to_bytes",
    "encode_from_bytes",
    "encode_to_bytes",
    "encode_to_bytes_within",
    "form_fields",
    "form_fields_to_bytes",
    "form_from_bytes",
    "form_parse_from_bytes",
    "form_parse_to_bytes",
    "form_to_bytes",
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


#: The environment variable that hands ``{label: set spec}`` (``--set``, ``[tool.pctfuzz]
#: sets``) to a harness process as JSON (``pctfuzz._internal.fuzz.protocol.HarnessSettings``).
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
    def of(cls, impl: Any, declared_sets: Mapping[str, str] | None = None) -> AnswerDomain:
        """What ``impl`` answers; ``declared_sets`` (``--set NAME=SPEC``,
        ``[tool.pctfuzz] sets``: the run's ``settings.RunSettings``), when given, are the
        user's word over the adapter's own sets."""
        declared = declared_sets or getattr(impl, "sets", None)
        sets = tuple(spec if isinstance(spec, str) else spec.name
                     for spec in declared.values()) if isinstance(declared, Mapping) else ()
        encodings = tuple(getattr(impl, "encodings", ()) or ())
        value_types = tuple(getattr(impl, "value_types", ()) or ())
        spaces = tuple(getattr(impl, "spaces", ()) or ())
        return cls(sets or FUZZ_SETS, encodings or None,
                   tuple(t for t in value_types if t in ("str", "bytes")) or ("str", "bytes"),
                   tuple(bool(b) for b in spaces) or (False, True))

    def encode_case(self, data: bytes) -> EncodeCase:
        """The ``encode`` case of fuzzer bytes ``data`` within this domain
        (``encode_from_bytes``; ``encode_to_bytes_within`` is its inverse)."""
        return encode_from_bytes(data, sets=self.sets, encodings=self.encodings,
                                 value_types=self.value_types, spaces=self.spaces)

    def to_json(self) -> dict[str, Any]:
        return {"sets": list(self.sets), "value_types": list(self.value_types),
                "encodings": None if self.encodings is None else list(self.encodings),
                "spaces": list(self.spaces)}

    @classmethod
    def from_json(cls, data: object) -> AnswerDomain:
        """The domain of ``to_json``'s object; ``PctfuzzError`` on anything else (a
        list of other types, an empty one, a value type other than str or bytes)."""
        def strings(value: object) -> tuple[str, ...]:
            if not isinstance(value, list) or not value or \
                    not all(isinstance(v, str) for v in value):
                raise PctfuzzError("an answer domain lists strings")
            return tuple(value)

        if not isinstance(data, Mapping):
            raise PctfuzzError("an answer domain is a JSON object")
        spaces = data.get("spaces")
        if not isinstance(spaces, list) or not spaces or \
                not all(isinstance(v, bool) for v in spaces):
            raise PctfuzzError("an answer domain's spaces are booleans")
        value_types = strings(data.get("value_types"))
        if not set(value_types) <= {"str", "bytes"}:
            raise PctfuzzError("an answer domain's value types are str and bytes")
        encodings = data.get("encodings")
        return cls(strings(data.get("sets")), None if encodings is None else strings(encodings),
                   value_types, tuple(spaces))


def encode_to_bytes(case: EncodeCase) -> bytes:
    flags = FUZZ_SETS.index(get_set(case.set_name).name)
    flags |= 0x40 if case.space_as_plus else 0
    enc = _encoding_to_byte(case.encoding)
    if isinstance(case.value, bytes):
        return bytes([flags | 0x80, enc]) + case.value
    return bytes([flags, enc]) + _text_bytes(case.value)


def encode_to_bytes_within(case: EncodeCase, domain: AnswerDomain) -> bytes:
    """Bytes that ``encode_from_bytes`` narrowed to ``domain`` turns into ``case``
    (the inverse of the narrowed format, for minimized cases of ``diff_encode``);
    ``PctfuzzError`` when ``case`` is outside the domain."""
    if domain == AnswerDomain():
        return encode_to_bytes(case)
    if case.set_name not in domain.sets[:0x40]:
        raise PctfuzzError(f"set {case.set_name!r} has no byte in this answer domain")
    flags = domain.sets.index(case.set_name)
    if case.space_as_plus not in domain.spaces:
        raise PctfuzzError("spaceAsPlus value outside this answer domain")
    flags |= 0x40 * domain.spaces.index(case.space_as_plus)
    kind = "bytes" if isinstance(case.value, bytes) else "str"
    if kind not in domain.value_types:
        raise PctfuzzError(f"a {kind} value is outside this answer domain")
    if len(domain.value_types) == 2 and kind == "bytes":
        flags |= 0x80
    if domain.encodings is None:
        enc = _encoding_to_byte(case.encoding)
    elif case.encoding in domain.encodings:
        enc = domain.encodings.index(case.encoding)
    else:
        raise PctfuzzError(f"encoding {case.encoding!r} outside this answer domain")
    payload = case.value if isinstance(case.value, bytes) else _text_bytes(case.value)
    return bytes([flags, enc]) + payload


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
def form_fields(data: bytes) -> list[bytes]:
    """The names and values of the ``form`` format, as written (undecoded), in order; a
    name without its value gets an empty one."""
    fields: list[bytes] = []
    pos = 1
    while pos < len(data):
        size = data[pos]
        fields.append(data[pos + 1 : pos + 1 + size])
        pos += 1 + size
    if len(fields) % 2:
        fields.append(b"")
    return fields


def form_fields_to_bytes(encoding_byte: int, fields: Sequence[bytes]) -> bytes:
    """The ``form`` format of an encoding byte and names and values as written (the
    inverse of ``form_fields``); each field at most 255 bytes."""
    out = bytearray([encoding_byte])
    for raw in fields:
        if len(raw) > 255:
            raise PctfuzzError("form fields longer than 255 UTF-8 bytes have no byte format")
        out.append(len(raw))
        out += raw
    return bytes(out)


def form_from_bytes(data: bytes) -> FormCase:
    encoding = _encoding_from_byte(data[0] if data else 0)
    fields = [_text(raw) for raw in form_fields(data)]
    pairs = tuple(zip(fields[0::2], fields[1::2], strict=True))
    return FormCase(pairs, encoding)


def form_to_bytes(case: FormCase) -> bytes:
    return form_fields_to_bytes(_encoding_to_byte(case.encoding),
                                [_text_bytes(item) for pair in case.pairs for item in pair])
