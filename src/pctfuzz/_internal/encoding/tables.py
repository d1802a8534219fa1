"""Encoder tables: one code point -> bytes mapping per legacy encoding, built on first
use from a Python codec and corrected by ``differences`` (the package docstring says how)."""

from __future__ import annotations

import codecs
import functools
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from pctfuzz._internal.encoding.differences import _overrides
from pctfuzz._internal.encoding.labels import _ENCODINGS

# --- Encoder tables -----------------------------------------------------------------

_ASCII_TABLE: Mapping[int, bytes] = {cp: bytes([cp]) for cp in range(0x80)}


def _codec_encode(codec: str, cp: int) -> bytes | None:
    try:
        return chr(cp).encode(codec)
    except UnicodeEncodeError:
        return None


def _decoded(codec: str, raw: bytes) -> int | None:
    """The single code point ``codec`` decodes ``raw`` to, if any."""
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError:
        return None
    return ord(text) if len(text) == 1 else None


def _decoded_two_byte(codec: str, leads: Iterable[int], trails: Iterable[int]) -> set[int]:
    """The code points ``codec`` decodes from the two-byte codes lead x trail."""
    trail_list = list(trails)
    decoded = (_decoded(codec, bytes((lead, trail))) for lead in leads for trail in trail_list)
    return {cp for cp in decoded if cp is not None}


def _single_byte_table(name: str, codec: str) -> dict[int, bytes]:
    """Index single-byte, read from the codec's decoder and corrected (§9)."""
    table = dict(_ASCII_TABLE)
    for byte in range(0x80, 0x100):
        cp = _decoded(codec, bytes([byte]))
        if cp is not None:
            table[cp] = bytes([byte])
    return _corrected(table, _overrides(name))


def _corrected(table: dict[int, bytes], overrides: Mapping[int, bytes | None]) -> dict[int, bytes]:
    for cp, whatwg in overrides.items():
        if whatwg is None:
            table.pop(cp, None)
        else:
            table[cp] = whatwg
    return table


def _restricted_table(
    codec: str,
    candidates: Iterable[int],
    overrides: Mapping[int, bytes | None],
    keep: Callable[[bytes], bool],
) -> dict[int, bytes]:
    """The (corrected) codec encoder over ``candidates``, where ``keep`` allows it."""
    table = dict(_ASCII_TABLE)
    for cp in candidates:
        raw = overrides[cp] if cp in overrides else _codec_encode(codec, cp)
        if raw is not None and keep(raw):
            table[cp] = raw
    return table


def _gbk_table() -> dict[int, bytes]:
    """GBK encoder (§10.1.2): gb18030's encoder where it yields two bytes, and 0x80 for €."""
    candidates = _decoded_two_byte(
        "gb18030", range(0x81, 0xFF), [*range(0x40, 0x7F), *range(0x80, 0xFF)]
    )
    gb18030 = _overrides("gb18030")
    table = _restricted_table(
        "gb18030", candidates | set(gb18030), gb18030, lambda raw: len(raw) == 2
    )
    return _corrected(table, _overrides("GBK"))  # step 4: € is 0x80


def _big5_table() -> dict[int, bytes]:
    """Big5 encoder (§11.1.2): big5hkscs, never below lead byte 0xA1 (index Big5 pointer).

    The candidates are what big5hkscs decodes from lead bytes 0xA1 and up, plus the
    overrides; the lead-byte check is a guard, as big5hkscs's encoder prefers an HKSCS
    code for a few of them (the five overridden in DIFFERENCES). big5hkscs already picks
    the *last* pointer where index Big5 pointer asks for it (U+2550, U+255E, U+2561,
    U+256A, U+5341, U+5345).
    """
    candidates = _decoded_two_byte(
        "big5hkscs", range(0xA1, 0xFF), [*range(0x40, 0x7F), *range(0xA1, 0xFF)]
    )
    overrides = _overrides("Big5")
    return _restricted_table(
        "big5hkscs",
        candidates | set(overrides),
        overrides,
        lambda raw: len(raw) == 2 and raw[0] >= 0xA1,
    )


@functools.cache
def _jis0208() -> tuple[Mapping[int, int], Mapping[int, int]]:
    """Index pointer and index Shift_JIS pointer for each code point of index jis0208.

    The index is read from cp932's decoder, which agrees with it at every pointer once
    EUDC (pointers 8836-10715, decode-only in the Shift_JIS decoder) is left out.
    """
    first: dict[int, int] = {}
    shift_jis: dict[int, int] = {}
    for pointer in range(94 * 120):
        if 8836 <= pointer <= 10715:
            continue
        lead, trail = divmod(pointer, 188)
        raw = bytes((
            lead + (0x81 if lead < 0x1F else 0xC1),
            trail + (0x40 if trail < 0x3F else 0x41),
        ))
        cp = _decoded("cp932", raw)
        if cp is None:
            continue
        first.setdefault(cp, pointer)
        # "index Shift_JIS pointer": the NEC-selected IBM rows give way to the IBM rows.
        if not 8272 <= pointer <= 8835:
            shift_jis.setdefault(cp, pointer)
    return first, shift_jis


def _shift_jis_table() -> dict[int, bytes]:
    """Shift_JIS encoder (§12.3.2)."""
    table = dict(_ASCII_TABLE)
    table.update({0x80: b"\x80", 0xA5: b"\x5c", 0x203E: b"\x7e"})
    table.update({cp: bytes([cp - 0xFF61 + 0xA1]) for cp in range(0xFF61, 0xFFA0)})
    for cp, pointer in _jis0208()[1].items():
        lead, trail = divmod(pointer, 188)
        table[cp] = bytes((
            lead + (0x81 if lead < 0x1F else 0xC1),
            trail + (0x40 if trail < 0x3F else 0x41),
        ))
    table[0x2212] = table[0xFF0D]
    return table


def _jis_rows(offset: int) -> dict[int, bytes]:
    """Index pointer in index jis0208 as two bytes ``row + offset, cell + offset``."""
    table: dict[int, bytes] = {}
    for cp, pointer in _jis0208()[0].items():
        # The first pointer of any code point is below 8836 (note in §12.1.2), so both
        # bytes stay within the 94x94 area; IBM rows only repeat NEC-selected ones.
        if pointer < 8836:
            row, cell = divmod(pointer, 94)
            table[cp] = bytes((row + offset, cell + offset))
    table[0x2212] = table[0xFF0D]
    return table


def _euc_jp_table() -> dict[int, bytes]:
    """EUC-JP encoder (§12.1.2); JIS X 0212 is decode-only."""
    table = dict(_ASCII_TABLE)
    table.update({0xA5: b"\x5c", 0x203E: b"\x7e"})
    table.update({cp: bytes((0x8E, cp - 0xFF61 + 0xA1)) for cp in range(0xFF61, 0xFFA0)})
    table.update(_jis_rows(0xA1))
    return table


def _iso_2022_jp_table() -> dict[int, bytes]:
    """ISO-2022-JP jis0208 state, steps 8-15 (§12.2.2), for non-ASCII code points."""
    table = _jis_rows(0x21)
    for cp in range(0xFF61, 0xFFA0):
        # Index ISO-2022-JP katakana: NFKC, except for the two (semi-)voiced sound marks.
        full = {0xFF9E: "\u309b", 0xFF9F: "\u309c"}.get(cp) or unicodedata.normalize(
            "NFKC", chr(cp)
        )
        table[cp] = table[ord(full)]
    return table


def _euc_kr_table() -> dict[int, bytes]:
    """EUC-KR encoder (§13.1.2): index EUC-KR (code page 949) read from cp949's decoder.

    cp949's encoder would give the same bytes, but a table keeps texts that are mostly
    errors fast: the charmap codec reports a whole run of unencodable code points at once.
    """
    table = dict(_ASCII_TABLE)
    for lead in range(0x81, 0xFF):
        for trail in range(0x41, 0xFF):
            raw = bytes((lead, trail))
            cp = _decoded("cp949", raw)
            if cp is not None:
                table.setdefault(cp, raw)  # the index pointer is the first one
    return table


def _x_user_defined_table() -> dict[int, bytes]:
    """x-user-defined encoder (§14.5.2)."""
    table = dict(_ASCII_TABLE)
    table.update({0xF780 + i: bytes([0x80 + i]) for i in range(0x80)})
    return table


_TABLE_BUILDERS: Mapping[str, Callable[[], dict[int, bytes]]] = {
    "GBK": _gbk_table,
    "Big5": _big5_table,
    "Shift_JIS": _shift_jis_table,
    "EUC-JP": _euc_jp_table,
    "ISO-2022-JP": _iso_2022_jp_table,
    "EUC-KR": _euc_kr_table,
    "x-user-defined": _x_user_defined_table,
}


@functools.cache
def _table(name: str) -> Mapping[int, bytes]:
    """Code point -> bytes for a table-driven encoder, built on first use."""
    builder = _TABLE_BUILDERS.get(name)
    if builder is not None:
        return builder()
    codec = _ENCODINGS[name].codec
    assert codec is not None
    return _single_byte_table(name, codec)


def _charmap(table: Mapping[int, bytes], text: str) -> bytes:
    # CPython's charmap encoder accepts bytes values in a dict; typeshed only lists int.
    return codecs.charmap_encode(text, "strict", cast(Any, table))[0]




def _charmap_ncr(table: Mapping[int, bytes], text: str) -> bytes:
    """``_charmap`` with each unmapped code point written as ``&#N;``."""
    return codecs.charmap_encode(text, "xmlcharrefreplace", cast(Any, table))[0]
