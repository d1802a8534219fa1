"""Hypothesis strategies for pctfuzz's cases, drawn to hit the interesting regions.

Plain ``st.text()``/``st.binary()`` rarely produce the inputs where percent-encoders go
wrong, so values are mixed from tokens chosen on purpose, from the grammar the
fuzzer's mutator and dictionaries use too (``grammar``):

- every ASCII character, and the boundary characters of every registered set
  (computed from ``sets.SETS``: each byte where some set's membership changes);
- escapes of every delimiter, once and twice (``%2F``, ``%252F``), UTF-8 forms a
  decoder must refuse (overlong, surrogates, truncated), broken escapes (``%``, ``%4``,
  ``%u0041``, ``%`` and non-ASCII digits); pairs and separators for the form codec;
- query texts of pairs, now and then as many fields as a common limit, and values
  around a block size (``grammar.FIELD_COUNTS``, ``grammar.BLOCK_LENGTHS``);
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
``scalar_text``, ``query_texts``, ``binary_values``, ``set_names``, ``encoding_labels``,
``encode_cases``, ``decode_cases``, ``form_cases``, ``form_parse_cases``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pctfuzz._internal import grammar
from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.encoding import ENCODING_NAMES, LABELS, lookup
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
    "query_texts",
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
SPECIAL_CHARS: tuple[str, ...] = grammar.SPECIAL_CHARS

#: Multi-character tokens: escapes of delimiters (once and twice), UTF-8 forms a decoder
#: must refuse, broken escapes, pairs and separators (``grammar``).
_TOKENS: tuple[str, ...] = tuple(t for t in grammar.tokens() if len(t) > 1)

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
        st.sampled_from(_TOKENS),
        st.characters(codec="utf-8"),  # any scalar value (the codec excludes surrogates)
    ]
    if surrogates:
        options.append(st.sampled_from(grammar.SURROGATES))
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


def query_texts(*, surrogates: bool = True) -> st.SearchStrategy[str]:
    """``name=value`` pairs of tokens joined by ``&`` (or ``;``): a query's shape, and
    one time in ten as many fields as one of ``grammar.FIELD_COUNTS`` (a parser that
    stops at a limit) or a value as long as one of ``grammar.BLOCK_LENGTHS``."""
    field = text_values(surrogates=surrogates, max_size=6)
    pair = st.one_of(st.tuples(field, field).map("=".join), field,
                     st.sampled_from(grammar.PAIRS))
    pairs = st.tuples(st.lists(pair, min_size=1, max_size=6),
                      st.sampled_from("&&&;")).map(lambda p: p[1].join(p[0]))
    many = st.tuples(pair, st.sampled_from(grammar.FIELD_COUNTS)).map(
        lambda p: "&".join([p[0]] * p[1]))
    numbered = st.sampled_from(grammar.FIELD_COUNTS).map(
        lambda n: "&".join(f"k{i}=v" for i in range(n)))
    long = st.tuples(st.sampled_from(grammar.BLOCK_LENGTHS), field).map(
        lambda p: ("a=" + (p[1] or "a") * p[0])[: p[0]])
    return st.one_of(pairs, pairs, pairs, pairs, pairs, pairs, pairs, pairs, pairs, many,
                     numbered, long)


def binary_values(*, max_size: int = 24) -> st.SearchStrategy[bytes]:
    """Bytes mixed from every byte value, boundary bytes, %-tokens, UTF-8 of the special
    characters and malformed UTF-8, or plain ``st.binary()``."""
    token = st.one_of(
        st.integers(0, 0xFF).map(lambda b: bytes([b])),
        st.sampled_from([bytes([b]) for b in BOUNDARY_BYTES]),
        st.sampled_from([t.encode() for t in _TOKENS]),
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


def long_values() -> st.SearchStrategy[str]:
    """A value as long as one of ``grammar.BLOCK_LENGTHS``: one token repeated (an
    encoder that works in blocks, or stops at a length)."""
    return st.tuples(st.sampled_from(grammar.BLOCK_LENGTHS), _chars(surrogates=False)).map(
        lambda p: ((p[1] or "a") * p[0])[: p[0]])


#: The legacy encodings (not UTF-8, whose output every other label shares).
_LEGACY = tuple(name for name in ENCODING_NAMES if not lookup(name).is_utf8)


def _legacy_encode_case(encoding: str) -> st.SearchStrategy[EncodeCase]:
    """A case in ``encoding`` whose value runs characters the encoding maps beside ones
    it does not (``grammar.legacy_chars``) and ASCII: a stateful encoder (ISO-2022-JP)
    changes mode at each kind, as the mutator's legacy runs do."""
    mapped, unmapped = grammar.legacy_chars(encoding)
    pools = [st.sampled_from(pool) for pool in (mapped, unmapped) if pool]
    pools.append(st.sampled_from(("a", "~", " ", "%")))
    value = st.lists(st.one_of(pools), min_size=2, max_size=12).map("".join)
    return st.builds(EncodeCase, value, set_names(), st.just(encoding), st.booleans())


def encode_cases(*, surrogates: bool = True) -> st.SearchStrategy[EncodeCase]:
    """``EncodeCase`` over every set, encoding and spaceAsPlus; str (with lone
    surrogates when ``surrogates``) or bytes; now and then a value as long as a block
    (``long_values``), or a legacy encoding's mapped and unmapped characters together."""
    plain = st.builds(
        EncodeCase,
        st.one_of(text_values(surrogates=surrogates), binary_values()),
        set_names(),
        encoding_labels(),
        st.booleans(),
    )
    long = st.builds(EncodeCase, long_values(), set_names(), encoding_labels(), st.booleans())
    legacy = st.sampled_from(_LEGACY).flatmap(_legacy_encode_case)
    # (one in sixteen each: the plain cases find the faults of one character sooner)
    return st.one_of(*[plain] * 14, long, legacy)


def decode_cases() -> st.SearchStrategy[DecodeCase]:
    """``DecodeCase`` of any str (lone surrogates included) or bytes, or a query text."""
    return st.builds(DecodeCase, st.one_of(text_values(), binary_values(), query_texts()))


def form_cases(*, surrogates: bool = False) -> st.SearchStrategy[FormCase]:
    """``FormCase``: up to 4 (name, value) pairs of scalar text (lone surrogates too when
    ``surrogates``), in any encoding."""
    text = text_values(surrogates=surrogates, max_size=8)
    few = st.lists(st.tuples(text, text), max_size=4)
    # a repeated name, and now and then many pairs (grammar.FIELD_COUNTS)
    repeated = st.tuples(text, st.lists(text, min_size=2, max_size=4)).map(
        lambda p: [(p[0], value) for value in p[1]])
    many = st.tuples(st.tuples(text, text), st.sampled_from(grammar.FIELD_COUNTS)).map(
        lambda p: [p[0]] * p[1])
    pairs = st.one_of(few, few, few, few, few, few, repeated, repeated, many).map(tuple)
    return st.builds(FormCase, pairs, encoding_labels())


def form_parse_cases() -> st.SearchStrategy[FormParseCase]:
    """``FormParseCase`` of a query text, any str (lone surrogates included) or bytes."""
    return st.builds(FormParseCase, st.one_of(query_texts(), text_values(),
                                              binary_values(),
                                              query_texts().map(_utf8)))


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")
