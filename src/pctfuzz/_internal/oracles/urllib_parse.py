"""urllib.parse as an implementation under test (see ``pctfuzz._internal.oracles``).

How the reference's terms map onto urllib.parse (what "equal" means for the differential
check):

- **Set -> ``safe=``.** A percent-encode set P becomes ``safe=P.printable_safe``: the
  printable ASCII (0x20-0x7E) outside P. urllib also leaves ``A-Za-z0-9_.-~`` alone
  whatever ``safe`` says, so a set containing one of those (only the form set, with
  ``~``) differs there; that difference is registered, not hidden.
- **Values.** str -> ``quote`` (``quote_plus`` for spaceAsPlus); bytes ->
  ``quote_from_bytes`` (``quote_plus`` for spaceAsPlus, which accepts bytes).
- **Encodings.** UTF-8 is ``encoding="utf-8", errors="strict"``. A legacy WHATWG
  encoding is passed by its WHATWG name to Python's codec registry (or, when Python
  has no codec of that name, the codec ``pctfuzz._internal.encoding`` starts from) with
  ``errors="xmlcharrefreplace"``, the closest Python has to WHATWG's "html" error
  mode; ``x-user-defined`` (no Python codec) is ``Unsupported``.
- **Which function: all of urllib.parse in one adapter.** ``urllib``, the default, tests
  every public codec: each case picks the function from its own length, a property the
  byte format carries, so a replayed or minimized case calls the same function
  (``urllib_function``):

  ==============  =============================================  =======================
  check           odd length (or bytes text, for form-parse)    even length
  ==============  =============================================  =======================
  decode          ``unquote_to_bytes``                           ``unquote`` (defaults:
                                                                 UTF-8, ``errors=
                                                                 'replace'``)
  form            ``urlencode(quote_via=quote_plus)``            ``urlencode(quote_via=
                                                                 quote)``
  form-parse      ``parse_qsl``                                  ``unquote_plus`` on each
                                                                 name and value
  ==============  =============================================  =======================

  The length is the value's (decode), the text's (form-parse) or the number of pairs
  (form); encode already calls ``quote``/``quote_plus``/``quote_from_bytes`` by the
  value's type and ``space_as_plus``. ``unquote`` and ``unquote_plus`` are called
  with their defaults, as users call them, and through the module, so a patched
  ``urllib.parse`` is what is tested; a str answer is compared as its UTF-8 bytes
  (lone surrogates as ``surrogatepass``).
- **Decoding, the variant.** ``urllib-unquote``: ``unquote(..., errors="surrogateescape")``
  re-encoded with ``surrogateescape``, which gives back exactly the decoded bytes.
- **Forms.** ``parse_qsl(text, keep_blank_values=True, encoding="utf-8",
  errors="replace", separator="&")`` (bytes text: ``parse_qsl`` on the bytes, each name
  and value then UTF-8 decoded with replacement); ``unquote_plus``: a split on ``&``
  and the first ``=``, empty sequences skipped (str only). ``urllib-unquote`` always
  takes the second column.
"""

from __future__ import annotations

import codecs
import re
from urllib import parse

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.form import split_pairs
from pctfuzz._internal.operations import DECODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.oracles.base import Adapter, Unsupported, library_call
from pctfuzz._internal.reference import percent_decode_text
from pctfuzz._internal.sets import FORM, get_set

__all__ = [
    "UrllibAdapter",
    "UrllibUnquoteAdapter",
    "python_codec",
    "unquote_text",
    "unquoted_bytes",
    "urllib_function",
]


_ASCII_RUN = re.compile("([\x00-\x7f]+)")


def unquote_text(value: str | bytes) -> bytes:
    """A model of ``urllib.parse.unquote(value)`` with its defaults, as UTF-8 bytes. It
    deviates from WHATWG URL 1.3 "percent-decode a string" on purpose: only each ASCII
    run is percent-decoded, and UTF-8 decoded with U+FFFD (``percent_decode_text``);
    non-ASCII text is kept, a lone surrogate too (bytes: decoded whole). boltons'
    ``unquote`` does the same (``oracles.boltons``)."""
    if isinstance(value, bytes):
        return percent_decode_text(value).encode("utf-8")
    parts = _ASCII_RUN.split(value)
    text = "".join(percent_decode_text(part) if index % 2 else part
                   for index, part in enumerate(parts))
    return text.encode("utf-8", "surrogatepass")


def urllib_function(check: str, case: Case) -> str:
    """The urllib.parse function the default ``urllib`` adapter calls for ``case``
    (module docstring): ``unquote_to_bytes``/``unquote``, ``quote_plus``/``quote`` (as
    ``urlencode``'s ``quote_via``), ``parse_qsl``/``unquote_plus``; "" for encode."""
    if check == DECODE.name and isinstance(case, DecodeCase):
        return "unquote" if len(case.value) % 2 == 0 else "unquote_to_bytes"
    if check == FORM_SERIALIZE.name and isinstance(case, FormCase):
        return "quote" if len(case.pairs) % 2 == 0 else "quote_plus"
    if check == FORM_PARSE.name and isinstance(case, FormParseCase):
        text = case.text
        return "unquote_plus" if isinstance(text, str) and len(text) % 2 == 0 else "parse_qsl"
    return ""


def _split_pairs(text: str, unquote_plus: object) -> list[tuple[str, str]]:
    """``name=value&...`` with ``unquote_plus`` applied to each part (WHATWG URL 5.1's
    split: empty sequences skipped, the first ``=`` separates)."""
    assert callable(unquote_plus)
    return split_pairs(text, unquote_plus)


def python_codec(label: str) -> tuple[str, str]:
    """(encoding, errors) to pass to urllib for a WHATWG encoding label.

    UTF-8 -> ``("utf-8", "strict")``. A legacy encoding -> its WHATWG name if Python
    has a codec of that name (what a urllib user would pass: ``"Shift_JIS"``,
    ``"EUC-KR"``, ``"windows-1252"``...), else the codec ``pctfuzz._internal.encoding`` builds
    on (``windows-874`` -> ``cp874``), with ``"xmlcharrefreplace"``.
    ``UnknownEncodingError`` for a label WHATWG does not know; ``Unsupported`` when
    Python has no codec for the encoding (``x-user-defined``).
    """
    # Cached per label: the look-ups cost more than quoting a short input, and the
    # adapter and the registry ask on every fuzzed input.
    found = _CODECS.get(label) if type(label) is str else None
    if found is None:
        found = _python_codec(label)
        if type(label) is str:
            if len(_CODECS) >= 256:  # labels have many spellings: bounded
                _CODECS.clear()
            _CODECS[label] = found
    if isinstance(found, str):
        raise Unsupported(found)
    return found


#: label -> ``python_codec``'s answer, or the reason it is Unsupported.
_CODECS: dict[str, tuple[str, str] | str] = {}


def _python_codec(label: str) -> tuple[str, str] | str:
    """``python_codec`` uncached: its answer, or why it is Unsupported."""
    from pctfuzz._internal import encoding as _encoding

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
    return f"Python has no codec for {enc.name}"


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
    """urllib.parse, all of it: quote/quote_plus/quote_from_bytes,
    unquote_to_bytes/unquote, urlencode with quote_via=quote_plus/quote,
    parse_qsl/unquote_plus; each case picks one (``urllib_function``)."""

    name = "urllib"
    registry_names: tuple[str, ...] = ("urllib",)
    modules_under_test: tuple[str, ...] = ("urllib.parse",)

    # Functions are looked up on the module at each call (``parse.quote``), so a test
    # that patches urllib.parse tests the patched function.
    def encode(self, case: EncodeCase) -> str:
        safe = get_set(case.set_name).printable_safe
        value = case.value
        if isinstance(value, bytes):
            if case.space_as_plus:
                return parse.quote_plus(value, safe=safe)
            return parse.quote_from_bytes(value, safe=safe)
        encoding, errors = python_codec(case.encoding)
        if case.space_as_plus:
            return parse.quote_plus(value, safe=safe, encoding=encoding, errors=errors)
        return parse.quote(value, safe=safe, encoding=encoding, errors=errors)

    def function(self, check: str, case: Case) -> str:
        """The function this adapter calls for ``case`` (``urllib_function``)."""
        return urllib_function(check, case)

    def reproduction(self, check: str, case: Case) -> str | None:
        """The urllib.parse call of each method, with its arguments as literals."""
        imports = ("urllib.parse",)
        if isinstance(case, EncodeCase):
            safe = get_set(case.set_name).printable_safe
            if isinstance(case.value, bytes):
                name = "quote_plus" if case.space_as_plus else "quote_from_bytes"
                return library_call(imports, f"urllib.parse.{name}(value, safe=safe)",
                                    value=case.value, safe=safe)
            encoding, errors = python_codec(case.encoding)
            name = "quote_plus" if case.space_as_plus else "quote"
            return library_call(imports, f"urllib.parse.{name}(value, safe=safe, "
                                "encoding=encoding, errors=errors)", value=case.value,
                                safe=safe, encoding=encoding, errors=errors)
        if isinstance(case, DecodeCase):
            if self.function(DECODE.name, case) == "unquote":
                return library_call(imports, 'urllib.parse.unquote(value).encode("utf-8", '
                                    '"surrogatepass")', value=case.value)
            return library_call(imports, "urllib.parse.unquote_to_bytes(value)",
                                value=case.value)
        if isinstance(case, FormCase):
            encoding, errors = python_codec(case.encoding)
            via = "quote" if self.function(FORM_SERIALIZE.name, case) == "quote" else "quote_plus"
            return library_call(imports, "urllib.parse.urlencode(pairs, safe=safe, "
                                f"encoding=encoding, errors=errors, quote_via=urllib.parse.{via})",
                                pairs=list(case.pairs), safe=FORM.printable_safe,
                                encoding=encoding, errors=errors)
        if isinstance(case, FormParseCase) and self.function(FORM_PARSE.name, case) != \
                "unquote_plus":
            call = ('urllib.parse.parse_qsl(text, keep_blank_values=True, encoding="utf-8", '
                    'errors="replace", separator="&")')
            if isinstance(case.text, bytes):
                call = (f'[(n.decode("utf-8", "replace"), v.decode("utf-8", "replace")) '
                        f"for n, v in {call}]")
            return library_call(imports, call, text=case.text)
        return None  # unquote_plus on each name and value: see form_parse

    def decode(self, case: DecodeCase) -> bytes:
        if self.function(DECODE.name, case) == "unquote":
            return parse.unquote(case.value).encode("utf-8", "surrogatepass")
        return parse.unquote_to_bytes(case.value)

    def form_serialize(self, case: FormCase) -> str:
        encoding, errors = python_codec(case.encoding)
        quote_via = parse.quote if self.function(FORM_SERIALIZE.name, case) == "quote" \
            else parse.quote_plus
        return parse.urlencode(
            list(case.pairs),
            safe=FORM.printable_safe,
            encoding=encoding,
            errors=errors,
            quote_via=quote_via,
        )

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        text = case.text
        if self.function(FORM_PARSE.name, case) == "unquote_plus" and isinstance(text, str):
            return _split_pairs(text, parse.unquote_plus)
        if isinstance(text, bytes):
            raw = parse.parse_qsl(
                text, keep_blank_values=True, encoding="utf-8", errors="replace", separator="&"
            )
            return [
                (name.decode("utf-8", "replace"), value.decode("utf-8", "replace"))
                for name, value in raw
            ]
        return parse.parse_qsl(
            text, keep_blank_values=True, encoding="utf-8", errors="replace", separator="&"
        )


class UrllibUnquoteAdapter(UrllibAdapter):
    """urllib.parse through its str-returning decoders only: quote* (as ``urllib``),
    unquote, urlencode(quote_via=quote), unquote_plus."""

    name = "urllib-unquote"
    registry_names: tuple[str, ...] = ("urllib-unquote", "urllib")

    def function(self, check: str, case: Case) -> str:
        return {DECODE.name: "unquote", FORM_SERIALIZE.name: "quote",
                FORM_PARSE.name: "unquote_plus"}.get(check, "")

    def reproduction(self, check: str, case: Case) -> str | None:
        # Its decoders re-encode what unquote gives: only encode is one call.
        return super().reproduction(check, case) if isinstance(case, EncodeCase) else None

    def decode(self, case: DecodeCase) -> bytes:
        return unquoted_bytes(parse.unquote(case.value, encoding="utf-8",
                                            errors="surrogateescape"))

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        if isinstance(case.text, bytes):
            raise Unsupported("unquote_plus takes str")
        return _split_pairs(case.text, parse.unquote_plus)
