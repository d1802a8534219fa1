"""What the invariants are checked on: a :class:`Codec`, four plain callables with the
reference's meaning, and :data:`REFERENCE`, pctfuzz's own.

The other kind of subject, an adapter of another library (``Impl``, ``oracles.base``),
is compared with the reference by the differential checks. :data:`Subject` is either;
``pctfuzz._internal.targets.resolve_subject`` picks the one a target runs against.
``pctfuzz._internal.oracles.faults`` builds deliberately wrong codecs from these parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeAlias

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.form import form_sequences, form_urldecode, form_urlencode
from pctfuzz._internal.oracles.base import Adapter, Impl
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.sets import FORM
from pctfuzz._internal.text import surrogates_to_fffd

__all__ = [
    "REFERENCE",
    "Codec",
    "DecodeFunc",
    "EncodeFunc",
    "FormDecodeFunc",
    "FormEncodeFunc",
    "Subject",
    "as_adapter",
    "form_parser",
    "form_serializer",
]


class EncodeFunc(Protocol):
    """Percent-encode after encoding (WHATWG URL 1.3) of a str or bytes."""

    def __call__(
        self, value: str | bytes, set_name: str, *, encoding: str, space_as_plus: bool
    ) -> str: ...


class DecodeFunc(Protocol):
    """Percent-decode (WHATWG URL 1.3) of a str or bytes, to bytes."""

    def __call__(self, value: str | bytes) -> bytes: ...


class FormEncodeFunc(Protocol):
    """application/x-www-form-urlencoded serializer (WHATWG URL 5.2)."""

    def __call__(self, pairs: Sequence[tuple[str, str]], *, encoding: str) -> str: ...


class FormDecodeFunc(Protocol):
    """application/x-www-form-urlencoded parser (WHATWG URL 5.1)."""

    def __call__(self, text: str | bytes) -> list[tuple[str, str]]: ...


@dataclass(frozen=True)
class Codec:
    """An implementation under test: four callables with the reference's meaning.

    Build one with :meth:`build` to derive the form serializer and parser from
    ``encode``/``decode`` by the WHATWG algorithms (5.1, 5.2), so a fault injected into
    the encoder shows up in the form functions too.
    """

    name: str
    encode: EncodeFunc
    decode: DecodeFunc
    form_encode: FormEncodeFunc
    form_decode: FormDecodeFunc
    description: str = field(default="", compare=False)

    @classmethod
    def build(
        cls,
        name: str,
        encode: EncodeFunc,
        decode: DecodeFunc,
        *,
        form_encode: FormEncodeFunc | None = None,
        form_decode: FormDecodeFunc | None = None,
        description: str = "",
    ) -> Codec:
        return cls(
            name,
            encode,
            decode,
            form_encode or form_serializer(encode),
            form_decode or form_parser(decode),
            description,
        )


#: The subject under test of a target: a codec (invariant targets) or an adapter
#: (differential targets).
Subject: TypeAlias = Codec | Impl


class _CodecAdapter(Adapter):
    """A codec asked the four questions as an adapter is (``as_adapter``)."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec
        self.name = codec.name

    def encode(self, case: EncodeCase) -> str:
        return self.codec.encode(case.value, case.set_name, encoding=case.encoding,
                                 space_as_plus=case.space_as_plus)

    def decode(self, case: DecodeCase) -> bytes:
        return self.codec.decode(case.value)

    def form_serialize(self, case: FormCase) -> str:
        return self.codec.form_encode(case.pairs, encoding=case.encoding)

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        return self.codec.form_decode(case.text)


def as_adapter(codec: Codec) -> Impl:
    """``codec`` as an adapter, so that the catalogue's rules (``checks.differential``)
    can name how it differs from the reference, as they name an implementation's."""
    return _CodecAdapter(codec)


def _reference_encode(
    value: str | bytes, set_name: str, *, encoding: str, space_as_plus: bool
) -> str:
    return percent_encode(value, set_name, encoding=encoding, space_as_plus=space_as_plus)


def _reference_form_encode(pairs: Sequence[tuple[str, str]], *, encoding: str) -> str:
    return form_urlencode(pairs, encoding=encoding)


#: pctfuzz's own reference (``pctfuzz._internal.reference`` and ``pctfuzz._internal.form``).
REFERENCE = Codec(
    "reference",
    _reference_encode,
    percent_decode,
    _reference_form_encode,
    form_urldecode,
    "pctfuzz's reference: percent_encode, percent_decode and the form codec",
)


def form_serializer(encode: EncodeFunc) -> FormEncodeFunc:
    """WHATWG URL 5.2 serializer on top of ``encode``: each name and value percent-encoded
    after encoding with the form set and spaceAsPlus true, ``name=value`` joined by ``&``."""

    def serialize(pairs: Sequence[tuple[str, str]], *, encoding: str) -> str:
        return "&".join(
            encode(name, FORM.name, encoding=encoding, space_as_plus=True)
            + "="
            + encode(value, FORM.name, encoding=encoding, space_as_plus=True)
            for name, value in pairs
        )

    return serialize




def form_parser(decode: DecodeFunc) -> FormDecodeFunc:
    """WHATWG URL 5.1 parser on top of ``decode``: split on ``&`` (empty sequences
    skipped), first ``=`` splits name from value, ``+`` -> space, percent-decode, then
    UTF-8 decode without BOM."""

    def parse(text: str | bytes) -> list[tuple[str, str]]:
        data = surrogates_to_fffd(text).encode() if isinstance(text, str) else text
        return [(decode(name.replace(b"+", b" ")).decode("utf-8", "replace"),
                 decode(value.replace(b"+", b" ")).decode("utf-8", "replace"))
                for name, value in form_sequences(data)]

    return parse
