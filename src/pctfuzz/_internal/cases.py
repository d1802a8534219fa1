"""Case types: the small, frozen inputs every check takes (docs/architecture.md).

Each case converts losslessly to and from JSON. Values that are not plain Unicode
text survive the trip:

- ``{"text": "..."}``: a scalar value string (no lone surrogates);
- ``{"code_points": [0x61, 0xD800, ...]}``: a str with lone surrogates;
- ``{"base64": "..."}``: bytes.

Replay rebuilds a case from this JSON, never by re-decoding fuzzer bytes, so a
finding means the same thing after the byte format or a library changes.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from pctfuzz._internal.errors import CaseFormatError, PctfuzzError, type_name

__all__ = [
    "CASE_TYPES",
    "Case",
    "DecodeCase",
    "EncodeCase",
    "FormCase",
    "FormParseCase",
    "case_from_json",
    "value_from_json",
    "value_to_json",
]

Value: TypeAlias = str | bytes
JSONDict: TypeAlias = dict[str, Any]


def _is_scalar(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def value_to_json(value: Value) -> JSONDict:
    """A str or bytes as a JSON object that round-trips exactly (see module docstring)."""
    if isinstance(value, bytes):
        return {"base64": base64.b64encode(value).decode("ascii")}
    if _is_scalar(value):
        return {"text": value}
    return {"code_points": [ord(c) for c in value]}


def value_from_json(obj: object, what: str = "value") -> Value:
    """Inverse of ``value_to_json``; ``CaseFormatError`` names ``what`` on bad input."""
    if not isinstance(obj, Mapping) or len(obj) != 1:
        raise CaseFormatError(f"{what}: expected an object with one of text/code_points/base64")
    ((key, raw),) = obj.items()
    if key == "text" and isinstance(raw, str):
        return raw
    if key == "base64" and isinstance(raw, str):
        try:
            return base64.b64decode(raw.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError) as exc:
            raise CaseFormatError(f"{what}: invalid base64 ({exc})") from None
    if key == "code_points" and isinstance(raw, list):
        if not all(type(cp) is int and 0 <= cp <= 0x10FFFF for cp in raw):
            raise CaseFormatError(f"{what}: code_points must be ints in 0..0x10FFFF")
        return "".join(map(chr, raw))
    raise CaseFormatError(f"{what}: unsupported field {key!r} of type {type_name(raw)}")


def _field(data: Mapping[str, Any], name: str, kind: type, default: Any = ...) -> Any:
    if name not in data:
        if default is ...:
            raise CaseFormatError(f"case is missing field {name!r}")
        return default
    item = data[name]
    if type(item) is not kind:
        raise CaseFormatError(f"case field {name!r} must be {kind.__name__}, not {type_name(item)}")
    return item


def _validate_set(name: str) -> None:
    from pctfuzz._internal.sets import get_set

    try:
        get_set(name)
    except PctfuzzError as exc:
        raise CaseFormatError(str(exc)) from None


@dataclass(frozen=True)
class EncodeCase:
    """Percent-encode ``value`` with a set, an encoding label and spaceAsPlus."""

    type: ClassVar[str] = "encode"
    value: Value
    set_name: str = "component"
    encoding: str = "utf-8"
    space_as_plus: bool = False

    def to_json(self) -> JSONDict:
        return {
            "type": self.type,
            "value": value_to_json(self.value),
            "set": self.set_name,
            "encoding": self.encoding,
            "space_as_plus": self.space_as_plus,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EncodeCase:
        set_name = _field(data, "set", str)
        _validate_set(set_name)
        return cls(
            value_from_json(_field(data, "value", dict)),
            set_name,
            _field(data, "encoding", str, "utf-8"),
            _field(data, "space_as_plus", bool, False),
        )


@dataclass(frozen=True)
class DecodeCase:
    """Percent-decode ``value`` (str or bytes)."""

    type: ClassVar[str] = "decode"
    value: Value

    def to_json(self) -> JSONDict:
        return {"type": self.type, "value": value_to_json(self.value)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DecodeCase:
        return cls(value_from_json(_field(data, "value", dict)))


@dataclass(frozen=True)
class FormCase:
    """Serialize ``pairs`` as application/x-www-form-urlencoded (and parse it back)."""

    type: ClassVar[str] = "form"
    pairs: tuple[tuple[str, str], ...]
    encoding: str = "utf-8"

    def to_json(self) -> JSONDict:
        return {
            "type": self.type,
            "pairs": [[value_to_json(n), value_to_json(v)] for n, v in self.pairs],
            "encoding": self.encoding,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FormCase:
        raw = _field(data, "pairs", list)
        pairs: list[tuple[str, str]] = []
        for index, pair in enumerate(raw):
            if not isinstance(pair, list) or len(pair) != 2:
                raise CaseFormatError(f"pairs[{index}] must be a [name, value] list")
            name = value_from_json(pair[0], f"pairs[{index}] name")
            value = value_from_json(pair[1], f"pairs[{index}] value")
            if not isinstance(name, str) or not isinstance(value, str):
                raise CaseFormatError(f"pairs[{index}] must hold text, not bytes")
            pairs.append((name, value))
        return cls(tuple(pairs), _field(data, "encoding", str, "utf-8"))


@dataclass(frozen=True)
class FormParseCase:
    """Parse ``text`` (str or bytes) as application/x-www-form-urlencoded."""

    type: ClassVar[str] = "form-parse"
    text: Value

    def to_json(self) -> JSONDict:
        return {"type": self.type, "text": value_to_json(self.text)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FormParseCase:
        return cls(value_from_json(_field(data, "text", dict), "text"))


Case: TypeAlias = EncodeCase | DecodeCase | FormCase | FormParseCase

CASE_TYPES: Mapping[str, type[EncodeCase] | type[DecodeCase] | type[FormCase] | type[FormParseCase]]
CASE_TYPES = {c.type: c for c in (EncodeCase, DecodeCase, FormCase, FormParseCase)}


def case_from_json(data: object) -> Case:
    """Rebuild any case from its JSON object; ``CaseFormatError`` on anything malformed."""
    if not isinstance(data, Mapping):
        raise CaseFormatError(f"case must be a JSON object, not {type_name(data)}")
    kind = data.get("type")
    cls = CASE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise CaseFormatError(f"unknown case type {kind!r}; known: {', '.join(CASE_TYPES)}")
    return cls.from_json(data)
