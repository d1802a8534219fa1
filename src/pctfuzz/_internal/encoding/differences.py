"""Where Python's codecs and the WHATWG encoders disagree (``DIFFERENCES``): the
corrections ``tables`` applies and the rules the encoders implement, each with its source."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class CodecDifference:
    """A place where a Python codec's encoder and the WHATWG encoder disagree.

    ``python_behaviour[i]`` is ``chr(code_points[i]).encode(codec)`` (None: it raises);
    ``whatwg_behaviour[i]`` is what the WHATWG encoder outputs for that code point on
    its own, end-of-queue included (None: an error). With ``override`` set, this module
    applies ``whatwg_behaviour`` on top of the codec; otherwise the difference follows
    from an encoder algorithm or index rule the module implements, and ``code_points``
    are examples of it.
    """

    encoding: str
    codec: str
    code_points: tuple[int, ...]
    python_behaviour: tuple[bytes | None, ...]
    whatwg_behaviour: tuple[bytes | None, ...]
    source: str
    override: bool = True
    summary: str = ""


# --- Differences between Python codecs and the WHATWG encoders --------------------------

_SPEC = "https://encoding.spec.whatwg.org/"

_Row = tuple[int, bytes | None, bytes | None]  # (code point, Python codec, WHATWG encoder)


def _difference(
    encoding: str,
    codec: str,
    source: str,
    rows: Iterable[_Row],
    *,
    override: bool = True,
    summary: str = "",
) -> CodecDifference:
    cps, python, whatwg = zip(*rows, strict=True)
    return CodecDifference(encoding, codec, cps, python, whatwg, source, override, summary)


def _c1(encoding: str, codec: str, values: Iterable[int]) -> CodecDifference:
    """Bytes the Windows code page leaves undefined, which the WHATWG index maps to the
    C1 control of the same value."""
    slug = encoding.lower()
    return _difference(
        encoding,
        codec,
        f"{_SPEC}index-{slug}.txt (Encoding Standard §Legacy single-byte encodings)",
        ((cp, None, bytes([cp])) for cp in values),
        summary="C1 control encodable as the byte of the same value",
    )


_GB18030_SOURCE = f"{_SPEC}#gb18030-encoder and index gb18030 (GB18030-2005/2022 notes)"
_BIG5_SOURCE = f"{_SPEC}#big5-encoder and {_SPEC}index-big5.txt"
_JIS_SOURCE = f"{_SPEC}index-jis0208.txt"

_OVERRIDES: tuple[CodecDifference, ...] = (
    _c1("windows-874", "cp874", (*range(0x81, 0x85), *range(0x86, 0x91), *range(0x98, 0xA0))),
    _c1("windows-1250", "cp1250", (0x81, 0x83, 0x88, 0x90, 0x98)),
    _c1("windows-1251", "cp1251", (0x98,)),
    _c1("windows-1252", "cp1252", (0x81, 0x8D, 0x8F, 0x90, 0x9D)),
    _c1("windows-1253", "cp1253", (
        0x81, 0x88, 0x8A, 0x8C, 0x8D, 0x8E, 0x8F, 0x90, 0x98, 0x9A, 0x9C, 0x9D, 0x9E, 0x9F,
    )),
    _c1("windows-1254", "cp1254", (0x81, 0x8D, 0x8E, 0x8F, 0x90, 0x9D, 0x9E)),
    _c1("windows-1255", "cp1255", (
        0x81, 0x8A, 0x8C, 0x8D, 0x8E, 0x8F, 0x90, 0x9A, 0x9C, 0x9D, 0x9E, 0x9F,
    )),
    _c1("windows-1257", "cp1257", (0x81, 0x83, 0x88, 0x8A, 0x8C, 0x90, 0x98, 0x9A, 0x9C, 0x9F)),
    _c1("windows-1258", "cp1258", (0x81, 0x8A, 0x8D, 0x8E, 0x8F, 0x90, 0x9A, 0x9D, 0x9E)),
    _difference(
        "windows-1255", "cp1255", f"{_SPEC}index-windows-1255.txt",
        [(0x05BA, None, b"\xca")],
        summary="0xCA is HEBREW POINT HOLAM HASER FOR VAV (undefined in cp1255)",
    ),
    _difference(
        "KOI8-U", "koi8_u", f"{_SPEC}index-koi8-u.txt",
        [(0x045E, None, b"\xae"), (0x040E, None, b"\xbe"),
         (0x255D, b"\xae", None), (0x256C, b"\xbe", None)],
        summary="index KOI8-U has short U (ў Ў) at 0xAE/0xBE, where koi8_u has box drawing",
    ),
    _difference(
        "gb18030", "gb18030", _GB18030_SOURCE,
        [(0xE5E5, b"\xa3\xa0", None)],
        summary="gb18030 encoder step 3: U+E5E5 is an error (0xA3 0xA0 decodes as U+3000)",
    ),
    _difference(
        "gb18030", "gb18030", _GB18030_SOURCE,
        [(0x1E3F, b"\x81\x35\xf4\x37", b"\xa8\xbc"), (0xE7C7, b"\xa8\xbc", b"\x81\x35\xf4\x37")],
        summary="GB18030-2005 swap: index gb18030 and the ranges pointer special case",
    ),
    _difference(
        "gb18030", "gb18030", _GB18030_SOURCE,
        list(zip(
            range(0xFE10, 0xFE1A),
            [bytes.fromhex(h) for h in (
                "84318236", "84318237", "84318238", "84318239", "84318330",
                "84318331", "84318332", "84318333", "84318334", "84318335",
            )],
            [bytes.fromhex(h) for h in (
                "a6d9", "a6db", "a6da", "a6dc", "a6dd", "a6de", "a6df", "a6ec", "a6ed", "a6f3",
            )],
            strict=True,
        )),
        summary="GB18030-2022: vertical forms have two-byte codes in index gb18030",
    ),
    _difference(
        "gb18030", "gb18030", _GB18030_SOURCE,
        list(zip(
            range(0x9FB4, 0x9FBC),
            [bytes.fromhex(h) for h in (
                "82359037", "82359038", "82359039", "82359130",
                "82359131", "82359132", "82359133", "82359134",
            )],
            [bytes.fromhex(h) for h in (
                "fe59", "fe61", "fe66", "fe67", "fe6d", "fe7e", "fe90", "fea0",
            )],
            strict=True,
        )),
        summary="GB18030-2022: these ideographs have two-byte codes in index gb18030",
    ),
    _difference(
        "GBK", "gb18030", f"{_SPEC}#gb18030-encoder (step 4, is GBK)",
        [(0x20AC, b"\xa2\xe3", b"\x80")],
        summary="GBK's encoder writes the euro sign as the single byte 0x80",
    ),
    _difference(
        "Big5", "big5hkscs", _BIG5_SOURCE,
        [
            (0x00A2, b"\xa2\x46", None), (0xFFE0, None, b"\xa2\x46"),
            (0x00A3, b"\xa2\x47", None), (0xFFE1, None, b"\xa2\x47"),
            (0x00A5, b"\xa2\x44", None), (0xFFE5, None, b"\xa2\x44"),
            (0x2022, b"\xa1\x45", None), (0x2027, None, b"\xa1\x45"),
            (0x203E, b"\xa1\xc2", None), (0x00AF, None, b"\xa1\xc2"),
            (0x223C, b"\xa1\xe3", None), (0xFF5E, None, b"\xa1\xe3"),
            (0x2641, b"\xa1\xf2", None), (0x2295, None, b"\xa1\xf2"),
            (0x2609, b"\xa1\xf3", None), (0x2299, None, b"\xa1\xf3"),
            (0xFF64, b"\xa1\x4e", None), (0xFE51, None, b"\xa1\x4e"),
            (0xFF0F, b"\xa2\x41", b"\xa1\xfe"), (0x2215, None, b"\xa2\x41"),
            (0xFF3C, b"\xa2\x42", b"\xa2\x40"), (0xFE68, None, b"\xa2\x42"),
        ],
        summary="index Big5 maps these Big5 symbol cells to other code points than big5hkscs",
    ),
    _difference(
        "Big5", "big5hkscs", _BIG5_SOURCE,
        [
            *((cp, None, bytes((0xA3, cp - 0x2400 + 0xC0))) for cp in range(0x2400, 0x2420)),
            (0x2421, None, b"\xa3\xe0"), (0x20AC, None, b"\xa3\xe1"),
        ],
        summary="index Big5 has the control pictures and the euro sign at 0xA3C0-0xA3E1",
    ),
    _difference(
        "Big5", "big5hkscs", _BIG5_SOURCE,
        [
            (0x256D, b"\xf9\xfa", b"\xa2\x7e"), (0x256E, b"\xf9\xfb", b"\xa2\xa1"),
            (0x256F, b"\xf9\xfd", b"\xa2\xa3"), (0x2570, b"\xf9\xfc", b"\xa2\xa2"),
            (0x4EDD, b"\xc9\x69", b"\xc6\xdf"), (0x5EF4, b"\xfb\xfd", b"\xc6\xcf"),
            (0x65E0, b"\xfc\xd3", b"\xc6\xd3"), (0x7676, b"\xfe\xc1", b"\xc6\xd5"),
        ],
        summary="duplicated in index Big5; the WHATWG encoder uses the first pointer",
    ),
    _difference(
        "Big5", "big5hkscs", _BIG5_SOURCE,
        [
            (0x5605, b"\x9d\xef", b"\xfb\x48"), (0x5ED0, b"\x9d\xfb", b"\xfb\xf9"),
            (0x60A4, b"\xa0\xdc", b"\xfc\x6c"), (0x732A, b"\x99\x75", b"\xfe\x52"),
            (0x96B6, b"\x90\xc4", b"\xc6\xd7"),
        ],
        summary="big5hkscs uses an HKSCS code; index Big5 also has the character at 0xA1+",
    ),
)

_RULES: tuple[CodecDifference, ...] = (
    _difference(
        "Shift_JIS", "cp932", f"{_SPEC}#shift_jis-encoder (steps 3-4)",
        [(0x00A5, None, b"\x5c"), (0x203E, None, b"\x7e")],
        override=False,
        summary="yen sign and overline are written as the JIS-Roman bytes 0x5C and 0x7E",
    ),
    _difference(
        "Shift_JIS", "cp932", _JIS_SOURCE,
        [(0x00A2, b"\x81\x91", None), (0x00A3, b"\x81\x92", None),
         (0x00AC, b"\x81\xca", None), (0x2016, b"\x81\x61", None),
         (0x301C, b"\x81\x60", None)],
        override=False,
        summary="cp932 best-fit mappings; index jis0208 has the fullwidth forms instead",
    ),
    _difference(
        "Shift_JIS", "cp932", f"{_SPEC}#shift_jis-decoder (EUDC is decode-only)",
        [(0xE000, b"\xf0\x40", None), (0xE001, b"\xf0\x41", None),
         (0xE757, b"\xf9\xfc", None),
         (0xF8F0, b"\xa0", None), (0xF8F1, b"\xfd", None),
         (0xF8F2, b"\xfe", None), (0xF8F3, b"\xff", None)],
        override=False,
        summary="U+E000-U+E757 (EUDC) and U+F8F0-U+F8F3 are not in index jis0208",
    ),
    _difference(
        "Shift_JIS", "cp932", f"{_SPEC}#index-shift_jis-pointer",
        [(0x2170, b"\xee\xef", b"\xfa\x40"), (0x2179, b"\xee\xf8", b"\xfa\x49"),
         (0x4E28, b"\xed\x4c", b"\xfa\x68"), (0x7E8A, b"\xed\x40", b"\xfa\x5c"),
         (0x9ED1, b"\xee\xec", b"\xfc\x4b"), (0xFA11, b"\xed\x95", b"\xfa\xb1")],
        override=False,
        summary="index Shift_JIS pointer skips the NEC-selected IBM rows (pointers "
        "8272-8835, lead bytes 0xED/0xEE) for the IBM rows (0xFA-0xFC); 373 code points",
    ),
    _difference(
        "EUC-JP", "euc_jp", f"{_SPEC}#euc-jp-encoder",
        [(0x00A1, b"\x8f\xa2\xc2", None), (0x4E02, b"\x8f\xb0\xa1", None),
         (0x00A2, b"\xa1\xf1", None)],
        override=False,
        summary="the EUC-JP encoder never uses JIS X 0212 (0x8F prefix), and ¢ is not in "
        "index jis0208",
    ),
    _difference(
        "EUC-JP", "euc_jp", _JIS_SOURCE,
        [(0x2460, None, b"\xad\xa1"), (0x2160, None, b"\xad\xb5"),
         (0x2225, None, b"\xa1\xc2"), (0xFF5E, None, b"\xa1\xc1"),
         (0x4E28, b"\x8f\xb0\xa9", b"\xf9\xad"), (0x2116, b"\x8f\xa2\xf1", b"\xad\xe2")],
        override=False,
        summary="index jis0208 includes NEC row 13 and the NEC-selected IBM rows 89-92",
    ),
    _difference(
        "ISO-2022-JP", "iso2022_jp", f"{_SPEC}#iso-2022-jp-encoder (step 3)",
        [(0x000E, b"\x0e", None), (0x000F, b"\x0f", None), (0x001B, b"\x1b", None)],
        override=False,
        summary="SO, SI and ESC are errors (reported as U+FFFD) in the ASCII and Roman states",
    ),
    _difference(
        "ISO-2022-JP", "iso2022_jp", f"{_SPEC}#iso-2022-jp-encoder (steps 8-10)",
        [(0x2460, None, b"\x1b$B-!\x1b(B"), (0xFF71, None, b"\x1b$B%\"\x1b(B"),
         (0xFF9E, None, b"\x1b$B!+\x1b(B"), (0x00A2, b"\x1b$B!q\x1b(B", None)],
        override=False,
        summary="index jis0208 (NEC row 13 included, no ¢); halfwidth katakana become "
        "fullwidth via index ISO-2022-JP katakana",
    ),
    _difference(
        "Big5", "big5hkscs", f"{_SPEC}#index-big5-pointer",
        [(0x00CA, b"\x88\x66", None), (0x0100, b"\x88\x56", None),
         (0x3435, b"\x92\x77", None), (0x20087, b"\x8b\xfa", None)],
        override=False,
        summary="index Big5 pointer ignores pointers below (0xA1-0x81)x157: HKSCS codes "
        "with lead bytes 0x81-0xA0 are never written",
    ),
    _difference(
        "GBK", "gb18030", f"{_SPEC}#gb18030-encoder (step 8, is GBK)",
        [(0x00A5, b"\x81\x30\x84\x36", None), (0xAC00, b"\x82\x37\xcf\x35", None),
         (0x1F600, b"\x94\x39\xfc\x36", None), (0x0080, b"\x81\x30\x81\x30", None),
         (0xE7C7, b"\xa8\xbc", None)],
        override=False,
        summary="GBK's encoder is gb18030's without four-byte sequences",
    ),
    _difference(
        "GBK", "gb18030", _GB18030_SOURCE,
        [(0xE5E5, b"\xa3\xa0", None), (0x1E3F, b"\x81\x35\xf4\x37", b"\xa8\xbc"),
         (0xFE10, b"\x84\x31\x82\x36", b"\xa6\xd9"), (0x9FB4, b"\x82\x35\x90\x37", b"\xfe\x59")],
        override=False,
        summary="the gb18030 corrections apply to GBK too (same index gb18030)",
    ),
)

DIFFERENCES: tuple[CodecDifference, ...] = _OVERRIDES + _RULES


@functools.cache
def _overrides(name: str) -> Mapping[int, bytes | None]:
    """Code point -> WHATWG output for the ``override`` entries of one encoding."""
    return {
        cp: whatwg
        for d in _OVERRIDES
        if d.encoding == name
        for cp, whatwg in zip(d.code_points, d.whatwg_behaviour, strict=True)
    }


