"""application/x-www-form-urlencoded serializer and parser (WHATWG URL Standard 5).

The serializer is what ``URLSearchParams.toString()`` and HTML form submission use;
the parser is what ``new URLSearchParams(string)`` uses.

Both do their per-byte work on the whole input at once where the result is provably
the same as pair by pair (see ``_serialize_at_once`` and ``_decode_fields``), so that a
megabyte of tiny pairs costs little more than a megabyte of one pair.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate, chain
from operator import methodcaller
from typing import Any

from pctfuzz._internal import encoding as _encoding
from pctfuzz._internal.errors import InputTypeError, PctfuzzError, type_name
from pctfuzz._internal.reference import (
    Surrogates,
    percent_decode,
    percent_encode,
    to_scalar_value_string,
)
from pctfuzz._internal.sets import FORM
from pctfuzz._internal.spec import ASCII_HEX_DIGITS, HEX_PAIR
from pctfuzz._internal.text import LONE_SURROGATE

__all__ = [
    "form_sequences",
    "form_urldecode",
    "form_urldecode_bytes",
    "form_urlencode",
    "split_pairs",
]

#: The form set by name: ``percent_encode`` caches its look-ups for names.
_FORM = FORM.name

#: Stand-ins for "=" and "&" while all pairs are encoded as one string. Lone
#: surrogates U+DCFE and U+DCFF, whose "surrogateescape" UTF-8 encoding is the single
#: byte FE or FF: bytes that valid UTF-8 never has, so their triplets "%FE" and "%FF"
#: occur in the output exactly where the stand-ins were.
_EQUALS, _AMPERSAND = "\udcfe", "\udcff"
_EQUALS_OUT, _AMPERSAND_OUT = "%FE", "%FF"


def form_urlencode(
    pairs: Iterable[tuple[str, str]],
    *,
    encoding: str = "utf-8",
    surrogates: Surrogates = "strict",
) -> str:
    """WHATWG URL 5.2 "application/x-www-form-urlencoded serializer".

    Each name and value is percent-encoded after encoding with the form set and
    spaceAsPlus true, joined as ``name=value`` with ``&``. ``encoding`` is a WHATWG
    label (its output encoding is used, so UTF-16 labels mean UTF-8).
    """
    if isinstance(pairs, str | bytes):
        raise InputTypeError(f"pairs must be an iterable of (name, value), not {type_name(pairs)}")
    if not isinstance(pairs, list | tuple):
        pairs = list(pairs)
    fast = _serialize_at_once(pairs, encoding)
    if fast is not None:
        return fast
    if surrogates == "strict":
        _raise_at_the_lone_surrogate(pairs, encoding)
    encode = functools.partial(
        percent_encode, encoding=encoding, space_as_plus=True, surrogates=surrogates
    )
    out: list[str] = []
    for index, pair in enumerate(pairs):
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise InputTypeError(f"pairs[{index}] must be a (name, value) pair, not {pair!r}")
        name, value = pair
        for what, item in (("name", name), ("value", value)):
            if not isinstance(item, str):
                raise InputTypeError(f"pairs[{index}] {what} must be str, not {type_name(item)}")
        out.append(encode(name, _FORM) + "=" + encode(value, _FORM))
    return "&".join(out)


def _serialize_at_once(pairs: Sequence[Any], encoding: str) -> str | None:
    """The serializer on all pairs at once: one string with stand-ins for "=" and "&",
    one percent-encode, then the stand-ins' triplets replaced by "=" and "&".

    None when the pair-by-pair loop must decide: no pairs, a pair that is not a
    (str, str) tuple or list (``_str_fields``), a lone surrogate (an error or U+FFFD
    there), a bad label (an error there), or no two C0 controls left to stand in (see
    below).
    """
    fields = _str_fields(pairs)
    if fields is None:
        return None
    text = "".join(fields)
    try:
        text.encode("utf-8")  # a lone surrogate raises (Python never pairs them)
        name = _output_encoding_name(encoding)
    except (UnicodeEncodeError, PctfuzzError, TypeError):  # (TypeError: unhashable)
        return None
    if name == "UTF-8":
        data = _join_pairs(fields, _EQUALS, _AMPERSAND).encode("utf-8", "surrogateescape")
        encoded = percent_encode(data, _FORM, space_as_plus=True)
        return encoded.replace(_EQUALS_OUT, "=").replace(_AMPERSAND_OUT, "&")
    # Only a C0 control becomes a byte below 0x20 in the other encoders: ASCII is
    # written as is, and every byte of a multi-byte sequence (Shift_JIS, EUC-JP,
    # EUC-KR, Big5, GBK, gb18030) or of x-user-defined and the single-byte encodings is
    # 0x30 or above; and they are stateless. So two C0 controls absent from the fields
    # stand in, and their "%HH" (the form set encodes every C0 control) marks where
    # they were. ISO-2022-JP has state: its stand-ins are U+005C and a control
    # (``_ISO_2022_JP_CONTROLS``), marked by "%5C%HH".
    iso_2022_jp = name == "ISO-2022-JP"
    stand_ins: tuple[str, str, str, str] | None = (
        _ISO_2022_JP_STAND_INS if iso_2022_jp else _STAND_INS
    )
    if _US in text or _RS in text:
        stand_ins = _stand_ins(text, iso_2022_jp)
    if stand_ins is None:
        return None
    equals, ampersand, equals_out, ampersand_out = stand_ins
    encoded = percent_encode(
        _join_pairs(fields, equals, ampersand), _FORM, encoding=encoding, space_as_plus=True
    )
    return encoded.replace(equals_out, "=").replace(ampersand_out, "&")


def _str_fields(pairs: Sequence[Any]) -> list[str] | None:
    """name0, value0, name1, ... if ``pairs`` is not empty and each pair is a tuple or
    list of two str; else None (the loop decides). By C calls on all pairs at once
    (``issuperset(map(...))``), no Python step per pair (which, under atheris, is traced
    too) and no comparison operator (atheris traces each, a set's at some cost)."""
    if not (pairs and _PAIR_TYPES.issuperset(map(type, pairs))
            and _TWO.issuperset(map(len, pairs))):
        return None
    fields: list[str] = list(chain.from_iterable(pairs))
    if not _STR.issuperset(map(type, fields)):
        return None  # (a str subclass too: the loop accepts it, and takes its time)
    return fields


def _raise_at_the_lone_surrogate(pairs: Sequence[Any], encoding: str) -> None:
    """For (str, str) pairs, a known label and a lone surrogate, raise what the loop
    raises, without encoding the fields before it: the NotScalarValueError of the first
    field holding one (the fields before it are scalar value strings, which encode
    without error under a known label). Returns otherwise: the loop decides."""
    fields = _str_fields(pairs)
    if fields is None:
        return
    try:
        _output_encoding_name(encoding)
    except (PctfuzzError, TypeError):
        return  # (the loop raises UnknownEncodingError at the first field)
    found = LONE_SURROGATE.search("".join(fields))
    if found is not None:
        # The field whose characters span the index: the first whose end is past it.
        ends = list(accumulate(map(len, fields)))
        field = fields[bisect_right(ends, found.start())]
        percent_encode(field, _FORM, encoding=encoding, space_as_plus=True)  # raises


@functools.lru_cache(maxsize=64)
def _output_encoding_name(label: str) -> str:
    """``encoding.lookup(label).name``, cached: every call asks, about a few labels."""
    return _encoding.lookup(label).name


def _stand_ins(text: str, iso_2022_jp: bool) -> tuple[str, str, str, str] | None:
    """The stand-ins for "=" and "&" and their percent-encoded output: the first two C0
    controls absent from ``text`` (after U+005C for ISO-2022-JP); None if there are not
    two."""
    free = sorted((_ISO_2022_JP_CONTROLS if iso_2022_jp else _C0).difference(text))
    if len(free) < 2:
        return None
    prefix, marks = ("\\", "%5C") if iso_2022_jp else ("", "")
    return (prefix + free[0], prefix + free[1],
            f"{marks}%{ord(free[0]):02X}", f"{marks}%{ord(free[1]):02X}")


_PAIR_TYPES = frozenset({tuple, list})
_TWO = frozenset({2})
_STR = frozenset({str})
_C0 = frozenset(map(chr, range(0x20)))
#: The controls of ISO-2022-JP's stand-ins, each after U+005C (a backslash). Its encoder
#: (Encoding Standard 12.2.2) has state, and URL 1.3 encodes each name and value with
#: a fresh one: it starts in ASCII, and at the end writes ESC ( B unless in ASCII.
#: U+005C then a control does the same between two fields: U+005C is ASCII, so from
#: Roman or jis0208 step 6 writes ESC ( B (as the end of a field does) and returns to
#: ASCII, where step 4 writes it and the control as they are, and the next field starts
#: in ASCII. A control alone would not do: Roman writes ASCII without leaving its state
#: (step 5), so the next field would start there. SO, SI and ESC are errors (step 3),
#: so they never stand in; the output's other bytes below 0x20 are ESC and the fields'
#: own controls. So "%5C%HH" of a control absent from the fields is exactly where a
#: stand-in was.
_ISO_2022_JP_CONTROLS = _C0 - {"\x0e", "\x0f", "\x1b"}
#: The stand-ins when the text has neither U+001F (US) nor U+001E (RS): any two absent
#: controls do, and these two (unit and record separator) are rare in fuzzer text,
#: so the usual case costs two ``in`` tests, not ``_stand_ins``.
_US, _RS = "\x1f", "\x1e"
_STAND_INS = (_US, _RS, "%1F", "%1E")
_ISO_2022_JP_STAND_INS = ("\\" + _US, "\\" + _RS, "%5C%1F", "%5C%1E")


def _join_pairs(fields: list[str], equals: str, ampersand: str) -> str:
    """name0 ``equals`` value0 ``ampersand`` name1 ... (by slice assignment, not per pair)."""
    count = len(fields) // 2
    parts = [ampersand] * (4 * count - 1)
    parts[0::4] = fields[0::2]
    parts[1::4] = [equals] * count
    parts[2::4] = fields[1::2]
    return "".join(parts)


def form_urldecode(text: str | bytes) -> list[tuple[str, str]]:
    """WHATWG URL 5.1 "application/x-www-form-urlencoded parser".

    A str is UTF-8 encoded first (as ``new URLSearchParams(string)`` does). Sequences
    are split on ``&``, empty ones skipped; the first ``=`` separates name from value;
    ``+`` becomes space; then percent-decode and UTF-8 decode without BOM. Never raises
    for str or bytes input.
    """
    if isinstance(text, str):
        # Lone surrogates become U+FFFD, as the JS USVString conversion does.
        data = to_scalar_value_string(text, "replace").encode("utf-8")
    elif isinstance(text, bytes | bytearray | memoryview):
        data = bytes(text)
    else:
        raise InputTypeError(f"text must be str or bytes, not {type_name(text)}")
    # "+" -> space on the whole input: the same bytes as per name and value, since
    # neither "&" nor "=" is "+".
    data = data.replace(b"+", b" ")
    # Sequences, then (name, "=", value) triples, all in C: no Python step per pair.
    triples = list(chain.from_iterable(map(_PARTITION, filter(None, data.split(b"&")))))
    del triples[1::3]  # the "=" (or b"" when there is none): now name, value, name, ...
    fields = _decode_fields(triples)
    return list(zip(fields[0::2], fields[1::2], strict=True))


def form_sequences(data: bytes) -> list[tuple[bytes, bytes]]:
    """WHATWG URL 5.1 steps 1-3.3 on a byte sequence: split on ``&``, empty sequences
    skipped, the first ``=`` separating name from value (no ``=``: the value is empty).
    The split that models of other parsers share, with their own decode after it."""
    return [(name, value) for name, _, value in map(_PARTITION, filter(None, data.split(b"&")))]


def form_urldecode_bytes(data: bytes) -> list[tuple[bytes, bytes]]:
    """WHATWG URL 5.1 up to (not including) the UTF-8 decode: each name and value with
    ``+`` as a space (3.4), percent-decoded (3.5). What a model of a parser that reads
    those bytes otherwise (as latin-1, strictly, grouped by them) starts from; its
    caller turns a str into bytes as the parser it models does."""
    return [(percent_decode(name.replace(b"+", b" ")), percent_decode(value.replace(b"+", b" ")))
            for name, value in form_sequences(data)]


_PARTITION = methodcaller("partition", b"=")
_UTF8_DECODE = methodcaller("decode", "utf-8", "replace")


def _decode_fields(fields: list[bytes]) -> list[str]:
    """Percent-decode, then UTF-8 decode without BOM, each field.

    All fields are percent-decoded as one string with a separator byte between them,
    then UTF-8 decoded at once ("surrogateescape") and split at the separators. The
    separator is a byte no field decodes to: FF, or else the last of ``_SEPARATORS``
    that is neither in a field nor escaped there. Those are never a hex digit or "%"
    (no "%HH" spans two fields), and ASCII or a byte that is never in UTF-8 (one
    character after the decode, U+DCxx for the latter, that ends any sequence before
    it). That is each field's decode if no surrogate is left (each field is valid
    UTF-8, so "replace" has nothing to replace); with a surrogate left, the decoded
    bytes split at the separators are UTF-8 decoded one by one; if no byte can
    separate, the fields go one by one.
    """
    if not fields:
        return []
    # A field decodes to a byte exactly where it has the byte or its "%HH" (either
    # case: "%" is not a hex digit, so every "%" with two hex digits after it is
    # decoded). FF first, with two C calls; else the last separator that is neither.
    separator = b"\xff"
    joined = separator.join(fields)
    if joined.count(separator) != len(fields) - 1 or _FF_ESCAPE.search(joined):
        raw = b"".join(fields)  # (an escape across two fields here only takes one more)
        escaped = bytes.fromhex(b"".join(_ESCAPE.findall(raw)).decode("ascii"))
        free = _SEPARATORS.difference(raw, escaped)
        if not free:
            return [percent_decode(field).decode("utf-8", "replace") for field in fields]
        separator = bytes([max(free)])
        joined = separator.join(fields)
    decoded = percent_decode(joined)
    pieces = decoded.decode("utf-8", "surrogateescape").split(_DECODED[separator[0]])
    try:
        "".join(pieces).encode("utf-8")
    except UnicodeEncodeError:  # a field that is not valid UTF-8
        return list(map(_UTF8_DECODE, decoded.split(separator)))
    return pieces


#: ``_decode_fields``' separators: ASCII but hex digits and "%", and the bytes never
#: in UTF-8 (C0, C1, F5-FF).
_SEPARATORS = frozenset(range(0x80)).difference(b"%", ASCII_HEX_DIGITS).union(
    {0xC0, 0xC1}, range(0xF5, 0x100)
)
_FF_ESCAPE = re.compile(b"%[Ff][Ff]")
_ESCAPE = re.compile(f"%({HEX_PAIR})".encode("ascii"))
#: A separator byte -> what "surrogateescape" decodes it to.
_DECODED = {byte: chr(byte) if byte < 0x80 else chr(0xDC00 + byte) for byte in _SEPARATORS}


def split_pairs(text: str, field: Callable[[str], str]) -> list[tuple[str, str]]:
    """WHATWG URL 5.1's split of ``text``: on ``&``, empty sequences skipped, the first
    ``=`` separating name from value, each decoded with ``field``. For models of other
    parsers (urllib's unquote_plus, Node's querystring) that share the split."""
    pairs: list[tuple[str, str]] = []
    for sequence in text.split("&"):
        if sequence:
            name, _, value = sequence.partition("=")
            pairs.append((field(name), field(value)))
    return pairs
