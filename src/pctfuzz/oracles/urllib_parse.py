"""urllib.parse as an implementation under test (see ``pctfuzz.oracles``).

How the reference's terms map onto urllib.parse (DESIGN.md "Differential: what equal
means"):

- **Set -> ``safe=``.** A percent-encode set P becomes ``safe=P.printable_safe``: the
  printable ASCII (0x20-0x7E) outside P. urllib also leaves ``A-Za-z0-9_.-~`` alone
  whatever ``safe`` says, so a set containing one of those (only the form set, with
  ``~``) differs there; that difference is registered, not hidden.
- **Values.** str -> ``quote`` (``quote_plus`` for spaceAsPlus); bytes ->
  ``quote_from_bytes`` (``quote_plus`` for spaceAsPlus, which accepts bytes).
- **Encodings.** UTF-8 is ``encoding="utf-8", errors="strict"``. A legacy WHATWG
  encoding is passed by its WHATWG name to Python's codec registry (or, when Python
  has no codec of that name, the codec ``pctfuzz.encoding`` starts from) with
  ``errors="xmlcharrefreplace"``, the closest Python has to WHATWG's "html" error
  mode; ``x-user-defined`` (no Python codec) is ``Unsupported``.
- **Decoding.** ``urllib``: ``unquote_to_bytes`` for str and bytes.
  ``urllib-unquote``: ``unquote(..., errors="surrogateescape")`` re-encoded with
  ``surrogateescape``, which gives back exactly the decoded bytes.
- **Forms.** ``urllib``: ``urlencode(pairs, safe=<form set's printable_safe>,
  quote_via=quote_plus)`` and ``parse_qsl(text, keep_blank_values=True,
  encoding="utf-8", errors="replace", separator="&")`` (bytes text: ``parse_qsl`` on
  the bytes, each name and value then UTF-8 decoded with replacement).
  ``urllib-unquote``: ``urlencode(..., quote_via=quote)`` and a split on ``&`` and the
  first ``=`` with ``unquote_plus(..., errors="replace")`` on each part (str only).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from urllib.parse import (
    parse_qsl,
    quote,
    quote_from_bytes,
    quote_plus,
    unquote,
    unquote_plus,
    unquote_to_bytes,
    urlencode,
)

from ..cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from ..sets import FORM, get_set
from . import Adapter, Unsupported

__all__ = ["UrllibAdapter", "UrllibUnquoteAdapter", "python_codec", "unquoted_bytes"]


def python_codec(label: str) -> tuple[str, str]:
    """(encoding, errors) to pass to urllib for a WHATWG encoding label.

    UTF-8 -> ``("utf-8", "strict")``. A legacy encoding -> its WHATWG name if Python
    has a codec of that name (what a urllib user would pass: ``"Shift_JIS"``,
    ``"EUC-KR"``, ``"windows-1252"``...), else the codec ``pctfuzz.encoding`` builds
    on (``windows-874`` -> ``cp874``), with ``"xmlcharrefreplace"``.
    ``UnknownEncodingError`` for a label WHATWG does not know; ``Unsupported`` when
    Python has no codec for the encoding (``x-user-defined``).
    """
    from .. import encoding as _encoding

    enc = _encoding.lookup(label)
    if enc.is_utf8:
        return "utf-8", "strict"
    for candidate in (enc.name, enc.codec):
        if candidate is None:
            continue
        try:
            codecs.lookup(candidate)
        except LookupError:
            continue
        return candidate, "xmlcharrefreplace"
    raise Unsupported(f"Python has no codec for {enc.name}")


def unquoted_bytes(text: str) -> bytes:
    """The bytes behind ``unquote(..., errors="surrogateescape")``'s answer.

    surrogateescape gives back undecodable bytes exactly. A lone surrogate that unquote
    passed through from its input is written as surrogateescape would (U+DC80-U+DCFF:
    one byte) or else as its ``surrogatepass`` bytes, so the answer shows it.
    """
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return b"".join(
            c.encode("utf-8", "surrogateescape" if 0xDC80 <= ord(c) <= 0xDCFF else "surrogatepass")
            for c in text
        )


class UrllibAdapter(Adapter):
    """urllib.parse: quote/quote_plus/quote_from_bytes, unquote_to_bytes,
    urlencode(quote_via=quote_plus), parse_qsl."""

    name = "urllib"
    registry_names: tuple[str, ...] = ("urllib",)
    modules_under_test: tuple[str, ...] = ("urllib.parse",)

    def encode(self, case: EncodeCase) -> str:
        safe = get_set(case.set_name).printable_safe
        value = case.value
        if isinstance(value, bytes):
            if case.space_as_plus:
                return quote_plus(value, safe=safe)
            return quote_from_bytes(value, safe=safe)
        encoding, errors = python_codec(case.encoding)
        if case.space_as_plus:
            return quote_plus(value, safe=safe, encoding=encoding, errors=errors)
        return quote(value, safe=safe, encoding=encoding, errors=errors)

    def decode(self, case: DecodeCase) -> bytes:
        return unquote_to_bytes(case.value)

    #: The quoter urlencode uses (its default; the ``urllib-unquote`` variant uses quote).
    quote_via: Callable[..., str] = staticmethod(quote_plus)

    def form_serialize(self, case: FormCase) -> str:
        encoding, errors = python_codec(case.encoding)
        return urlencode(
            list(case.pairs),
            safe=FORM.printable_safe,
            encoding=encoding,
            errors=errors,
            quote_via=self.quote_via,
        )

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        text = case.text
        if isinstance(text, bytes):
            raw = parse_qsl(
                text, keep_blank_values=True, encoding="utf-8", errors="replace", separator="&"
            )
            return [
                (name.decode("utf-8", "replace"), value.decode("utf-8", "replace"))
                for name, value in raw
            ]
        return parse_qsl(
            text, keep_blank_values=True, encoding="utf-8", errors="replace", separator="&"
        )


class UrllibUnquoteAdapter(UrllibAdapter):
    """urllib.parse through its str-returning decoders: quote* (as ``urllib``),
    unquote, urlencode(quote_via=quote), unquote_plus."""

    name = "urllib-unquote"
    registry_names: tuple[str, ...] = ("urllib-unquote", "urllib")

    def decode(self, case: DecodeCase) -> bytes:
        return unquoted_bytes(unquote(case.value, encoding="utf-8", errors="surrogateescape"))

    quote_via: Callable[..., str] = staticmethod(quote)

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        text = case.text
        if isinstance(text, bytes):
            raise Unsupported("unquote_plus takes str")
        pairs: list[tuple[str, str]] = []
        for sequence in text.split("&"):
            if not sequence:
                continue
            name, _, value = sequence.partition("=")
            pairs.append(
                (
                    unquote_plus(name, encoding="utf-8", errors="replace"),
                    unquote_plus(value, encoding="utf-8", errors="replace"),
                )
            )
        return pairs
