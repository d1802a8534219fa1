"""Implementations with one planted behaviour each, for ``bench_planted.py``.

Each entry of ``PLANTED`` is a ``function_adapter`` over pctfuzz's own reference
(``percent_encode`` with the ``component`` set, ``percent_decode``, ``form_urlencode``,
``form_urldecode``) with exactly one deviation from the WHATWG URL Standard: the
function's docstring says which, ``truth`` says it in one line (what a finding's name
is checked against by hand) and ``example`` is a case that shows it. Everything else
(lone surrogates refused by the encoders and serializers, U+FFFD in the decoders and
parsers, invalid ``%`` kept) is the reference's, so every finding of a campaign is
that one behaviour. Each adapter answers one question, is deterministic and fast.

Fuzz one with ``pctfuzz fuzz --impl benchmarks.planted_behaviours:<name>`` from the
repository root; ``python -m benchmarks.planted_behaviours`` calls each on its example
and prints the reference's answer beside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pctfuzz import form_urldecode, form_urlencode, percent_decode, percent_encode
from pctfuzz.oracles import (
    Adapter,
    DecodeCase,
    EncodeCase,
    FormCase,
    FormParseCase,
    Unsupported,
    function_adapter,
)

__all__ = ["PLANTED", "Planted", "answers", "reference_answer"]

#: The set every planted encoder implements (userinfo set + $ % & + ,).
SET = "component"

Case = EncodeCase | DecodeCase | FormCase | FormParseCase
Pairs = list[tuple[str, str]]

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_NOT_C0 = re.compile("[^\x00-\x1f]+")
_LEFT_RAW_PUNCTUATION = re.compile(r"[!'()*\-._~]")
_PLUS_ESCAPE = re.compile("%2[Bb]")
_NUL_ESCAPE = re.compile("%00")
_LOWERCASE_ESCAPE = re.compile("%(?=[0-9A-Fa-f]{2})(?![0-9A-F]{2})")
_NEWLINE = re.compile("\r\n|\r|\n")


@dataclass(frozen=True)
class Planted:
    """One planted behaviour: the adapter (``--impl`` ``module:name``), its one
    deviation (``doc``, the function's docstring; ``truth``, one line) and a case that
    shows it (``example``), whose differential target is ``target``."""

    name: str
    adapter: Adapter
    doc: str
    truth: str
    example: Case

    @property
    def target(self) -> str:
        return {"encode": "diff_encode", "decode": "diff_decode", "form": "diff_form",
                "form-parse": "diff_form_parse"}[self.example.type]


# --- encoders (str -> str, the component set, space as %20) -------------------------

def _encode_astral_dropped(value: str) -> str:
    """Characters above the BMP (U+10000 and up) are dropped, not encoded: a UCS-2
    encoder that skips what it cannot hold in one code unit."""
    return percent_encode(_ASTRAL.sub("", value), SET)


def _encode_c0_raw(value: str) -> str:
    """C0 control characters (U+0000 to U+001F) are written as themselves, not as
    ``%00`` to ``%1F``; DEL and the rest of the set are encoded."""
    return _NOT_C0.sub(lambda m: percent_encode(m[0], SET), value)


def _encode_all_punctuation(value: str) -> str:
    """Every ASCII character but letters and digits is encoded: also the
    ``! ' ( ) * - . _ ~`` that the component set leaves raw."""
    return _LEFT_RAW_PUNCTUATION.sub(lambda m: f"%{ord(m[0]):02X}",
                                     percent_encode(value, SET))


def _encode_percent_u(value: str) -> str:
    """Non-ASCII characters are written as ``%uXXXX``, one per UTF-16 code unit
    (JavaScript's ``escape``), not as the ``%XX`` of their UTF-8 bytes."""
    value.encode("utf-8")  # a lone surrogate is refused, as the reference refuses it
    out: list[str] = []
    for char in value:
        if char.isascii():
            out.append(percent_encode(char, SET))
        else:
            units = char.encode("utf-16-be")
            out.extend(f"%u{units[i]:02X}{units[i + 1]:02X}" for i in range(0, len(units), 2))
    return "".join(out)


# --- decoders (str -> bytes) ---------------------------------------------------------

def _decode_plus_escape_as_space(value: str) -> bytes:
    """The escape ``%2B`` (either case) is decoded as a space, not as ``+``; a raw
    ``+`` stays ``+``."""
    return percent_decode(_PLUS_ESCAPE.sub("%20", value))


def _decode_stops_at_nul(value: str) -> bytes:
    """The answer ends before the first ``%00``: a C decoder whose NUL ends the string
    (a raw U+0000 of the input is kept)."""
    found = _NUL_ESCAPE.search(value)
    return percent_decode(value if found is None else value[:found.start()])


def _decode_in_blocks_128(value: str) -> bytes:
    """The input is decoded 128 characters at a time: an escape split by a block
    boundary (``%4`` at the end of one block, ``1`` at the start of the next) is kept
    as written."""
    return b"".join(percent_decode(value[i:i + 128]) for i in range(0, len(value), 128))


def _decode_twice(value: str) -> bytes:
    """The input is percent-decoded twice: ``%2541`` is ``A``, not ``%41``."""
    return percent_decode(percent_decode(value))


def _decode_uppercase_hex_only(value: str) -> bytes:
    """Only escapes with uppercase hex digits are decoded: ``%2f`` is kept as
    written, ``%2F`` is ``/``."""
    return percent_decode(_LOWERCASE_ESCAPE.sub("%25", value))


# --- form serializers (list of (name, value) -> str) --------------------------------

def _serialize_bare_empty_value(pairs: Pairs) -> str:
    """A pair with an empty value is written as its name alone, ``a``, not ``a=``."""
    return "&".join(form_urlencode([(name, value)]).removesuffix("=") if value == ""
                    else form_urlencode([(name, value)]) for name, value in pairs)


def _serialize_last_value_per_name(pairs: Pairs) -> str:
    """One pair per name, as ``urlencode(dict(pairs))``: a name repeated keeps the
    place of its first pair and the value of its last."""
    return form_urlencode(dict(pairs).items())


def _serialize_semicolon_separator(pairs: Pairs) -> str:
    """Pairs are separated by ``;``, not ``&``."""
    return form_urlencode(pairs).replace("&", ";")


def _serialize_crlf_newlines(pairs: Pairs) -> str:
    """Every newline of names and values (CR, LF or CRLF) is written as CRLF first,
    ``%0D%0A``, as HTML's form submission normalizes them."""
    return form_urlencode((_NEWLINE.sub("\r\n", name), _NEWLINE.sub("\r\n", value))
                          for name, value in pairs)


# --- form parsers (str -> list of (name, value)) ------------------------------------

def _parse_names_lowercased(text: str) -> Pairs:
    """Names are lowercased (``str.lower``) after decoding; values are kept."""
    return [(name.lower(), value) for name, value in form_urldecode(text)]


def _parse_values_stripped(text: str) -> Pairs:
    """Values are stripped of leading and trailing whitespace (``str.strip``) after
    decoding; names are kept."""
    return [(name, value.strip()) for name, value in form_urldecode(text)]


def _parse_empty_values_dropped(text: str) -> Pairs:
    """A pair whose value is empty (``a=`` or ``a``) is left out."""
    return [(name, value) for name, value in form_urldecode(text) if value]


def _utf8_in_chunks(data: bytes, size: int = 64) -> str:
    return "".join(data[i:i + size].decode("utf-8", "replace")
                   for i in range(0, len(data), size))


def _parse_utf8_chunks_64(text: str) -> Pairs:
    """Each name and value is UTF-8-decoded 64 bytes at a time: a character whose
    bytes a chunk boundary splits becomes U+FFFD (one per piece)."""
    pairs: Pairs = []
    for sequence in text.split("&"):
        if sequence:
            name, _, value = sequence.partition("=")
            pairs.append((_utf8_in_chunks(percent_decode(name.replace("+", " "))),
                          _utf8_in_chunks(percent_decode(value.replace("+", " ")))))
    return pairs


# --- the entries ------------------------------------------------------------------------

def _plant(
    truth: str,
    example: Case,
    *,
    encode: Callable[[str], str] | None = None,
    decode: Callable[[str], bytes] | None = None,
    form_serialize: Callable[[Pairs], str] | None = None,
    form_parse: Callable[[str], Pairs] | None = None,
) -> Planted:
    fn: Callable[..., object] | None = encode or decode or form_serialize or form_parse
    assert fn is not None
    name = fn.__name__.lstrip("_")
    adapter = function_adapter(f"planted-{name.replace('_', '-')}", encode=encode,
                               decode=decode, form_serialize=form_serialize,
                               form_parse=form_parse, sets={SET: SET} if encode else None)
    return Planted(name, adapter, " ".join((fn.__doc__ or "").split()), truth, example)


_ENTRIES = [
    _plant("encode: code points U+10000 and up dropped",
           EncodeCase("a\U0001f600b", SET), encode=_encode_astral_dropped),
    _plant("encode: U+0000-U+001F left raw (not %00-%1F)",
           EncodeCase("a\tb", SET), encode=_encode_c0_raw),
    _plant("encode: ! ' ( ) * - . _ ~ also encoded",
           EncodeCase("a.b~c", SET), encode=_encode_all_punctuation),
    _plant("encode: non-ASCII as %uXXXX per UTF-16 code unit",
           EncodeCase("caf\u00e9", SET), encode=_encode_percent_u),
    _plant("decode: %2B / %2b decoded as space",
           DecodeCase("a%2Bb"), decode=_decode_plus_escape_as_space),
    _plant("decode: answer truncated before the first %00",
           DecodeCase("a%00b"), decode=_decode_stops_at_nul),
    _plant("decode: escapes split at a 128-char boundary kept",
           DecodeCase("a" * 127 + "%41"), decode=_decode_in_blocks_128),
    _plant("decode: percent-decoded twice",
           DecodeCase("%2541"), decode=_decode_twice),
    _plant("decode: escapes with lowercase hex (%2f) kept",
           DecodeCase("a%2fb"), decode=_decode_uppercase_hex_only),
    _plant("form: empty value written as bare name (a, not a=)",
           FormCase((("a", ""), ("b", "1"))), form_serialize=_serialize_bare_empty_value),
    _plant("form: one pair per name (first place, last value: dict)",
           FormCase((("a", "1"), ("b", "2"), ("a", "3"))),
           form_serialize=_serialize_last_value_per_name),
    _plant("form: ; between pairs, not &",
           FormCase((("a", "1"), ("b", "2"))), form_serialize=_serialize_semicolon_separator),
    _plant("form: CR, LF, CRLF in names/values written as %0D%0A",
           FormCase((("a", "x\ny"),)), form_serialize=_serialize_crlf_newlines),
    _plant("form-parse: names lowercased (str.lower)",
           FormParseCase("A=B"), form_parse=_parse_names_lowercased),
    _plant("form-parse: values stripped of whitespace (str.strip)",
           FormParseCase("a=+b+"), form_parse=_parse_values_stripped),
    _plant("form-parse: pairs with an empty value dropped",
           FormParseCase("a=&b=1"), form_parse=_parse_empty_values_dropped),
    _plant("form-parse: UTF-8 decoded in 64-byte chunks (split char -> U+FFFD)",
           FormParseCase("a=" + "x" * 63 + "%C3%A9"), form_parse=_parse_utf8_chunks_64),
]

#: name -> entry, in the order above.
PLANTED: dict[str, Planted] = {entry.name: entry for entry in _ENTRIES}

# Each adapter is a module attribute of its entry's name: ``--impl
# benchmarks.planted_behaviours:<name>``.
globals().update({entry.name: entry.adapter for entry in _ENTRIES})


def reference_answer(case: Case) -> object:
    """What the URL Standard answers for ``case`` (pctfuzz's reference)."""
    if isinstance(case, EncodeCase):
        return percent_encode(case.value, case.set_name, space_as_plus=case.space_as_plus)
    if isinstance(case, DecodeCase):
        return percent_decode(case.value)
    if isinstance(case, FormCase):
        return form_urlencode(case.pairs)
    return form_urldecode(case.text)


def answers(entry: Planted) -> tuple[object, object]:
    """(reference, planted adapter) answers to the entry's example."""
    case, adapter = entry.example, entry.adapter
    planted: object
    try:
        if isinstance(case, EncodeCase):
            planted = adapter.encode(case)
        elif isinstance(case, DecodeCase):
            planted = adapter.decode(case)
        elif isinstance(case, FormCase):
            planted = adapter.form_serialize(case)
        else:
            planted = adapter.form_parse(case)
    except Unsupported as error:
        planted = f"Unsupported: {error}"
    return reference_answer(case), planted


def _iter_rows() -> Iterable[str]:
    for entry in _ENTRIES:
        expected, actual = answers(entry)
        verdict = "shows it" if expected != actual else "NO DIFFERENCE"
        yield (f"{entry.name}: {verdict}\n    truth: {entry.truth}\n"
               f"    reference: {expected!r}\n    planted:   {actual!r}")


if __name__ == "__main__":
    for row in _iter_rows():
        print(row)
