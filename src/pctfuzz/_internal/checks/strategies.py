"""Hypothesis strategies for pctfuzz's cases, drawn to hit the interesting regions.

Plain ``st.text()``/``st.binary()`` rarely produce the inputs where percent-encoders go
wrong, so values are mixed from tokens chosen on purpose:

- every ASCII character, and the boundary characters of every registered set
  (computed from ``sets.SETS``: each byte where some set's membership changes);
- ``%`` followed by two hex digits (either case), by one, by non-hex, by nothing;
  ``+``, ``&``, ``=`` for the form codec;
- C0 and C1 controls, DEL, noncharacters (U+FDD0, U+FFFE, U+FFFF), the BOM, U+FFFD,
  the UTF-8 length boundaries and astral characters (U+10000, U+1F4A9, U+10FFFF);
- characters the legacy encoders treat specially (``¥ ‾ ‽ ≡``, x-user-defined's
  U+F780-U+F7FF, ISO-2022-JP's SO/SI/ESC);
- lone surrogates, only where the case type allows them (they are outside the
  encoder's domain, so a check expects ``NotScalarValueError``);
- for bytes: every byte value and malformed UTF-8.

Set names and encoding labels are sampled from the registries (``sets.SETS`` and
``ALIASES``, ``encoding.LABELS``), UTF-8 most often.

Public (the differential oracle and users import these): ``text_values``,
``scalar_text``, ``binary_values``, ``set_names``, ``encoding_labels``,
``encode_cases``, ``decode_cases``, ``form_cases``, ``form_parse_cases``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.encoding import ENCODING_NAMES, LABELS
from pctfuzz._internal.sets import ALIASES, SETS

if TYPE_CHECKING:
    from hypothesis import strategies as st
else:

    class _Strategies:
        """``hypothesis.strategies``, imported when a strategy is first built. The
        target registry holds these functions, and the fuzzing harness and campaign,
        which never draw from them, would otherwise import Hypothesis in every process
        (0.12 s of CPU each, before libFuzzer starts)."""

        def __getattr__(self, name: str) -> Any:
            from hypothesis import strategies

            return getattr(strategies, name)

    st = _Strategies()

__all__ = [
    "BOUNDARY_BYTES",
    "SPECIAL_CHARS",
    "binary_values",
    "decode_cases",
    "encode_cases",
    "encoding_labels",
    "form_cases",
    "form_parse_cases",
    "scalar_text",
    "set_names",
    "text_values",
]


def _boundary_bytes() -> tuple[int, ...]:
    """Each byte where a registered set's membership changes, and its neighbour."""
    found: set[int] = set()
    for pes in SETS.values():
        for byte in range(1, 0x100):
            if (byte in pes) != (byte - 1 in pes):
                found.update((byte - 1, byte))
    return tuple(sorted(found))


#: Bytes on either side of every set boundary (every set: 0x1F/0x20, 0x7E/0x7F, ...).
BOUNDARY_BYTES: tuple[int, ...] = _boundary_bytes()

#: Single characters worth hitting, beyond ASCII (which is drawn in full).
SPECIAL_CHARS: tuple[str, ...] = (
    # C1 controls (Latin-1 in UTF-8 is two bytes; windows-125x map some of them)
    "\x80", "\x85", "\x9f", "\xa0", "\xa5", "\xe9", "\xff",
    # UTF-8 length boundaries
    "\u07ff", "\u0800", "\ud7ff", "\ue000",
    # noncharacters, BOM, replacement character
    "\ufdd0", "\ufdef", "\ufeff", "\ufffd", "\ufffe", "\uffff",
    # legacy-encoder specials: overline, interrobang, identical-to, yen (Shift_JIS/
    # ISO-2022-JP Roman), euro, ideographic space, kanji, hangul, x-user-defined
    "\u203e", "\u203d", "\u2261", "\u20ac", "\u3000", "\u65e5", "\ud55c", "\uf780", "\uf7ff",
    "\uff61", "\u2212",
    # astral
    "\U00010000", "\U0001f4a9", "\U0010fffe", "\U0010ffff",
)  # fmt: skip

_SURROGATES: tuple[str, ...] = ("\ud800", "\udbff", "\udc00", "\udfff")

#: Multi-character tokens around "%" and the form separators.
_PERCENT_TOKENS: tuple[str, ...] = (
    "%", "%%", "%25", "%2", "%4", "%41", "%4a", "%4A", "%7e", "%7E", "%20", "%2B", "%2b",
    "%zz", "%G1", "%1G", "%C3%A9", "%c3%a9", "%C3", "%FF", "%00", "%ED%A0%80", "%EF%BB%BF",
    "+", "&", "=", "&=", "=&", "a=b", "&&", "%26%23", "&#8253;",
)  # fmt: skip

_INVALID_UTF8: tuple[bytes, ...] = (
    b"\x80", b"\xc3", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
    b"\xff", b"\xfe", b"\xef\xbb\xbf", b"\xc0\xaf",
)  # fmt: skip


def _chars(*, surrogates: bool) -> st.SearchStrategy[str]:
    """One token: ASCII (often), a special or boundary character, a %-token, any char."""
    options = [
        st.characters(max_codepoint=0x7F),
        st.sampled_from([chr(b) for b in BOUNDARY_BYTES]),
        st.sampled_from(SPECIAL_CHARS),
        st.sampled_from(_PERCENT_TOKENS),
        st.characters(codec="utf-8"),  # any scalar value (the codec excludes surrogates)
    ]
    if surrogates:
        options.append(st.sampled_from(_SURROGATES))
    return st.one_of(options)


def text_values(*, surrogates: bool = True, max_size: int = 24) -> st.SearchStrategy[str]:
    """Text mixed from the interesting tokens, or plain ``st.text()``. With
    ``surrogates``, about one value in five may hold a lone surrogate (then it is not a
    scalar value string); the rest stay in the encoder's domain."""
    mixed = st.lists(_chars(surrogates=False), max_size=max_size).map("".join)
    options = [mixed, mixed, st.text(max_size=max_size)]
    if surrogates:
        options.append(st.lists(_chars(surrogates=True), max_size=max_size).map("".join))
    return st.one_of(options)


def scalar_text(*, max_size: int = 24) -> st.SearchStrategy[str]:
    """Text that is a scalar value string (no lone surrogates): the encoder's domain."""
    return text_values(surrogates=False, max_size=max_size)


def binary_values(*, max_size: int = 24) -> st.SearchStrategy[bytes]:
    """Bytes mixed from every byte value, boundary bytes, %-tokens, UTF-8 of the special
    characters and malformed UTF-8, or plain ``st.binary()``."""
    token = st.one_of(
        st.integers(0, 0xFF).map(lambda b: bytes([b])),
        st.sampled_from([bytes([b]) for b in BOUNDARY_BYTES]),
        st.sampled_from([t.encode() for t in _PERCENT_TOKENS]),
        st.sampled_from([c.encode() for c in SPECIAL_CHARS]),
        st.sampled_from(_INVALID_UTF8),
    )
    mixed = st.lists(token, max_size=max_size).map(b"".join)
    return st.one_of(mixed, st.binary(max_size=max_size))


def set_names(*, aliases: bool = True) -> st.SearchStrategy[str]:
    """A registered set name (canonical, or now and then an alias)."""
    names = st.sampled_from(list(SETS))
    return st.one_of(names, st.sampled_from(list(ALIASES))) if aliases else names


def encoding_labels() -> st.SearchStrategy[str]:
    """An encoding label: UTF-8 half the time, else a canonical name or any WHATWG
    label (including the UTF-16 and replacement labels, whose output encoding is UTF-8)."""
    return st.one_of(
        st.just("utf-8"),
        st.sampled_from(ENCODING_NAMES),
        st.sampled_from(sorted(LABELS)),
    )


def encode_cases(*, surrogates: bool = True) -> st.SearchStrategy[EncodeCase]:
    """``EncodeCase`` over every set, encoding and spaceAsPlus; str (with lone
    surrogates when ``surrogates``) or bytes."""
    return st.builds(
        EncodeCase,
        st.one_of(text_values(surrogates=surrogates), binary_values()),
        set_names(),
        encoding_labels(),
        st.booleans(),
    )


def decode_cases() -> st.SearchStrategy[DecodeCase]:
    """``DecodeCase`` of any str (lone surrogates included) or bytes."""
    return st.builds(DecodeCase, st.one_of(text_values(), binary_values()))


def form_cases(*, surrogates: bool = False) -> st.SearchStrategy[FormCase]:
    """``FormCase``: up to 4 (name, value) pairs of scalar text (lone surrogates too when
    ``surrogates``), in any encoding."""
    text = text_values(surrogates=surrogates, max_size=8)
    pairs = st.lists(st.tuples(text, text), max_size=4).map(tuple)
    return st.builds(FormCase, pairs, encoding_labels())


def form_parse_cases() -> st.SearchStrategy[FormParseCase]:
    """``FormParseCase`` of any str (lone surrogates included) or bytes."""
    return st.builds(FormParseCase, st.one_of(text_values(), binary_values()))
