"""WHATWG Encoding Standard encoders for the URL Standard's "percent-encode after encoding".

The URL Standard (section 1.3, "percent-encode after encoding") encodes its input with
the Encoding Standard's *encode or fail* hook in a loop: bytes the encoder produces are
percent-encoded, and each code point the encoder cannot encode is written as
``%26%23<decimal>%3B`` before the loop resumes *with the same encoder instance*.
:func:`encode_runs` is that loop's encoder side; :func:`lookup` is the Encoding
Standard's "get an encoding" followed by "get an output encoding".

How the encoders are built
--------------------------
Python has a codec for every legacy encoding, but none is the WHATWG encoder exactly.
Each :class:`Encoding` names the codec this module starts from (``Encoding.codec``):

* EUC-KR: index EUC-KR read from Python's ``cp949`` decoder, which matches it at every
  pointer (index EUC-KR *is* code page 949; cp949's encoder agrees too).
* gb18030: Python's ``gb18030`` encoder plus the corrections in :data:`DIFFERENCES`
  (the GB18030-2005 swap of U+1E3F/U+E7C7, the GB18030-2022 mappings, U+E5E5).
* Single-byte encodings: the codec's 128 upper mappings, corrected (mostly C1 controls
  that Windows code pages leave undefined but the WHATWG indexes map).
* GBK and Big5: a table of the corrected ``gb18030`` / ``big5hkscs`` encoder, keeping
  only what the WHATWG encoder may produce (two bytes; Big5 lead byte 0xA1 or above).
* Shift_JIS, EUC-JP, ISO-2022-JP: index jis0208 rebuilt from Python's ``cp932``
  *decoder*, which matches it at every one of its 11,280 pointers (the EUDC range
  8836-10715 aside, which the index leaves out), then the Encoding Standard's
  algorithms. ``cp932``'s own encoder is not used: it maps ``¢ £ ¬ ‖ 〜`` best-fit,
  encodes EUDC and U+F8F0-U+F8F3, and prefers the NEC-selected IBM rows (lead bytes
  0xED/0xEE) that "index Shift_JIS pointer" skips. Python's ``shift_jis`` and
  ``euc_jp`` codecs are further off (no NEC row 13 or IBM extensions; ``euc_jp``
  encodes through JIS X 0212, which the WHATWG EUC-JP encoder never does).
* x-user-defined and UTF-8 need no codec (``codec`` is None).

Except for gb18030 (Python's own encoder) and UTF-8, every encoder is a code point ->
bytes dict, built on first use (up to about 50 ms) and run through :func:`codecs.charmap_encode`,
so long runs are encoded in C; Python-level work happens only around errors.

Verification
------------
Each encoder was compared with a direct implementation of the Encoding Standard's
encoder algorithms over the WHATWG index data (as shipped in the npm packages
``text-encoding`` 0.7.0 and ``@kayahr/text-encoding`` 2.2.0, which agree with each
other except for the GB18030-2022 update of index gb18030, taken from the newer one):
the stateless encoders one scalar value at a time over all 1,112,064 of them, and
ISO-2022-JP on all of them as one string plus 20,000 random strings mixing the code
points that change its state. No differences remain. That check needs the index files,
so it is not part of the test suite; the tests assert the published vectors (WPT
``url/resources/percent-encoding.json``), every :data:`DIFFERENCES` entry, and
round-trip properties.

Unverified: index revisions published after those snapshots (each index file carries an
Identifier and a Date to track that).
"""

from __future__ import annotations

import codecs
import functools
import re
import string
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, cast

from pctfuzz.errors import InputTypeError, NotScalarValueError, UnknownEncodingError, type_name

__all__ = [
    "DIFFERENCES",
    "ENCODING_NAMES",
    "LABELS",
    "CodecDifference",
    "Encoding",
    "encode_runs",
    "lookup",
]


@dataclass(frozen=True)
class Encoding:
    """An Encoding Standard encoding that has an encoder (Encoding Standard §4).

    ``name`` is the standard's name for it; ``codec`` is the Python codec this module
    starts from (see the module docstring), or None where none is needed.
    """

    name: str
    codec: str | None

    @property
    def is_utf8(self) -> bool:
        """True for UTF-8, the only encoding whose encoder never returns an error."""
        return self.name == "UTF-8"


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


# --- Names and labels (Encoding Standard §4.2) ----------------------------------------

# (name, Python codec, labels), in the order of the standard's table.
_TABLE: tuple[tuple[str, str | None, tuple[str, ...]], ...] = (
    ("UTF-8", None, (
        "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8",
        "x-unicode20utf8",
    )),
    ("IBM866", "cp866", ("866", "cp866", "csibm866", "ibm866")),
    ("ISO-8859-2", "iso8859_2", (
        "csisolatin2", "iso-8859-2", "iso-ir-101", "iso8859-2", "iso88592", "iso_8859-2",
        "iso_8859-2:1987", "l2", "latin2",
    )),
    ("ISO-8859-3", "iso8859_3", (
        "csisolatin3", "iso-8859-3", "iso-ir-109", "iso8859-3", "iso88593", "iso_8859-3",
        "iso_8859-3:1988", "l3", "latin3",
    )),
    ("ISO-8859-4", "iso8859_4", (
        "csisolatin4", "iso-8859-4", "iso-ir-110", "iso8859-4", "iso88594", "iso_8859-4",
        "iso_8859-4:1988", "l4", "latin4",
    )),
    ("ISO-8859-5", "iso8859_5", (
        "csisolatincyrillic", "cyrillic", "iso-8859-5", "iso-ir-144", "iso8859-5",
        "iso88595", "iso_8859-5", "iso_8859-5:1988",
    )),
    ("ISO-8859-6", "iso8859_6", (
        "arabic", "asmo-708", "csiso88596e", "csiso88596i", "csisolatinarabic", "ecma-114",
        "iso-8859-6", "iso-8859-6-e", "iso-8859-6-i", "iso-ir-127", "iso8859-6", "iso88596",
        "iso_8859-6", "iso_8859-6:1987",
    )),
    ("ISO-8859-7", "iso8859_7", (
        "csisolatingreek", "ecma-118", "elot_928", "greek", "greek8", "iso-8859-7",
        "iso-ir-126", "iso8859-7", "iso88597", "iso_8859-7", "iso_8859-7:1987",
        "sun_eu_greek",
    )),
    ("ISO-8859-8", "iso8859_8", (
        "csiso88598e", "csisolatinhebrew", "hebrew", "iso-8859-8", "iso-8859-8-e",
        "iso-ir-138", "iso8859-8", "iso88598", "iso_8859-8", "iso_8859-8:1988", "visual",
    )),
    ("ISO-8859-8-I", "iso8859_8", ("csiso88598i", "iso-8859-8-i", "logical")),
    ("ISO-8859-10", "iso8859_10", (
        "csisolatin6", "iso-8859-10", "iso-ir-157", "iso8859-10", "iso885910", "l6",
        "latin6",
    )),
    ("ISO-8859-13", "iso8859_13", ("iso-8859-13", "iso8859-13", "iso885913")),
    ("ISO-8859-14", "iso8859_14", ("iso-8859-14", "iso8859-14", "iso885914")),
    ("ISO-8859-15", "iso8859_15", (
        "csisolatin9", "iso-8859-15", "iso8859-15", "iso885915", "iso_8859-15", "l9",
    )),
    ("ISO-8859-16", "iso8859_16", ("iso-8859-16",)),
    ("KOI8-R", "koi8_r", ("cskoi8r", "koi", "koi8", "koi8-r", "koi8_r")),
    ("KOI8-U", "koi8_u", ("koi8-ru", "koi8-u")),
    ("macintosh", "mac_roman", ("csmacintosh", "mac", "macintosh", "x-mac-roman")),
    ("windows-874", "cp874", (
        "dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874",
    )),
    ("windows-1250", "cp1250", ("cp1250", "windows-1250", "x-cp1250")),
    ("windows-1251", "cp1251", ("cp1251", "windows-1251", "x-cp1251")),
    ("windows-1252", "cp1252", (
        "ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1",
        "iso-ir-100", "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1",
        "latin1", "us-ascii", "windows-1252", "x-cp1252",
    )),
    ("windows-1253", "cp1253", ("cp1253", "windows-1253", "x-cp1253")),
    ("windows-1254", "cp1254", (
        "cp1254", "csisolatin5", "iso-8859-9", "iso-ir-148", "iso8859-9", "iso88599",
        "iso_8859-9", "iso_8859-9:1989", "l5", "latin5", "windows-1254", "x-cp1254",
    )),
    ("windows-1255", "cp1255", ("cp1255", "windows-1255", "x-cp1255")),
    ("windows-1256", "cp1256", ("cp1256", "windows-1256", "x-cp1256")),
    ("windows-1257", "cp1257", ("cp1257", "windows-1257", "x-cp1257")),
    ("windows-1258", "cp1258", ("cp1258", "windows-1258", "x-cp1258")),
    ("x-mac-cyrillic", "mac_cyrillic", ("x-mac-cyrillic", "x-mac-ukrainian")),
    ("GBK", "gb18030", (
        "chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk",
        "iso-ir-58", "x-gbk",
    )),
    ("gb18030", "gb18030", ("gb18030",)),
    ("Big5", "big5hkscs", ("big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5")),
    ("EUC-JP", "cp932", ("cseucpkdfmtjapanese", "euc-jp", "x-euc-jp")),
    ("ISO-2022-JP", "cp932", ("csiso2022jp", "iso-2022-jp")),
    ("Shift_JIS", "cp932", (
        "csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j",
        "x-sjis",
    )),
    ("EUC-KR", "cp949", (
        "cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987",
        "ks_c_5601-1989", "ksc5601", "ksc_5601", "windows-949",
    )),
    ("replacement", None, (
        "csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-cn-ext", "iso-2022-kr",
        "replacement",
    )),
    ("UTF-16BE", None, ("unicodefffe", "utf-16be")),
    ("UTF-16LE", None, (
        "csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16",
        "utf-16le",
    )),
    ("x-user-defined", None, ("x-user-defined",)),
)

# "get an output encoding" (§4.3): these have no encoder and are replaced by UTF-8.
_NO_ENCODER = frozenset({"replacement", "UTF-16BE", "UTF-16LE"})

LABELS: Mapping[str, str] = MappingProxyType(
    {label: name for name, _, labels in _TABLE for label in labels}
)
ENCODING_NAMES: tuple[str, ...] = tuple(
    name for name, _, _ in _TABLE if name not in _NO_ENCODER
)
_ENCODINGS: Mapping[str, Encoding] = MappingProxyType(
    {name: Encoding(name, codec) for name, codec, _ in _TABLE if name not in _NO_ENCODER}
)

_ASCII_WHITESPACE = "\t\n\f\r "
# str.lower() would also fold non-ASCII letters (U+212A KELVIN SIGN -> "k").
_ASCII_LOWERCASE = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def lookup(label: str) -> Encoding:
    """Get an encoding, then get an output encoding (Encoding Standard §4.2, §4.3).

    Leading and trailing ASCII whitespace is removed and the label is matched ASCII
    case-insensitively; replacement, UTF-16BE and UTF-16LE resolve to UTF-8.
    """
    if not isinstance(label, str):
        raise InputTypeError(f"encoding label must be str, not {type_name(label)}")
    return _lookup(label)


@functools.lru_cache(maxsize=512)
def _lookup(label: str) -> Encoding:
    name = LABELS.get(label.strip(_ASCII_WHITESPACE).translate(_ASCII_LOWERCASE))
    if name is None:
        raise UnknownEncodingError(
            f"unknown encoding label {label!r}: not a label in the WHATWG Encoding Standard"
        )
    return _ENCODINGS["UTF-8" if name in _NO_ENCODER else name]


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


# --- encode or fail (Encoding Standard §6.1) ------------------------------------------

_Encode = Callable[[str], bytes]


def _split_encodable(text: str, encode: _Encode) -> Iterator[bytes | str]:
    """Yield ``encode`` of each encodable stretch of ``text``, and each stretch it rejects.

    ``encode`` must be stateless and raise UnicodeEncodeError with positions into its
    argument. The whole text is tried first; after an error the window restarts small
    and doubles, so work stays linear whether errors are rare or dense.
    """
    pos, end, window = 0, len(text), len(text)
    while pos < end:
        chunk = text[pos : pos + window]
        try:
            out = encode(chunk)
        except UnicodeEncodeError as exc:
            if exc.start:
                yield encode(chunk[: exc.start])
            yield chunk[exc.start : exc.end]
            pos += exc.end
            window = 64
        else:
            yield out
            pos += len(chunk)
            window *= 2


def _table_runs(text: str, encode: _Encode) -> Iterator[bytes | int]:
    """A stateless table-driven encoder: unencodable code points are errors."""
    for piece in _split_encodable(text, encode):
        if isinstance(piece, bytes):
            yield piece
        else:
            yield from map(ord, piece)


_GB18030_FIXED = re.compile(
    "[" + "".join(chr(cp) for cp in _overrides("gb18030")) + "]"
)


def _gb18030_runs(text: str) -> Iterator[bytes | int]:
    """gb18030 encoder (§10.2.2): Python's codec between the corrected code points.

    The codec encodes every scalar value (gb18030 covers all of Unicode), so only the
    :data:`DIFFERENCES` corrections can produce an error (U+E5E5).
    """
    fixes = _overrides("gb18030")
    pos = 0
    for match in _GB18030_FIXED.finditer(text):
        if match.start() > pos:
            yield text[pos : match.start()].encode("gb18030")
        fixed = fixes[ord(match.group())]
        yield ord(match.group()) if fixed is None else fixed
        pos = match.end()
    if pos < len(text):
        yield text[pos:].encode("gb18030")


@functools.cache
def _table_encoder(name: str) -> _Encode:
    return functools.partial(_charmap, _table(name))


_ESC_ASCII = b"\x1b(B"
_ESC_ROMAN = b"\x1b(J"
_ESC_JIS0208 = b"\x1b$B"
_ASCII, _ROMAN, _JIS0208 = range(3)
_ISO_2022_JP_RUNS = re.compile(
    r"(?P<ascii>[\x00-\x0d\x10-\x1a\x1c-\x7f]+)"
    r"|(?P<shift>[\x0e\x0f\x1b])"
    r"|(?P<roman>[\u00a5\u203e]+)"
    r"|(?P<other>[^\x00-\x7f\u00a5\u203e]+)"
)
_NOT_ROMAN = re.compile(r"[\\~]")
_ROMAN_BYTES = str.maketrans({0xA5: "\\", 0x203E: "~"})


def _iso_2022_jp_runs(text: str) -> Iterator[bytes | int]:
    """ISO-2022-JP encoder (§12.2.2) with its state kept across errors.

    Works a run of one kind of code point at a time; escape sequences are written only
    when the state changes, and the end-of-queue return to ASCII happens once.
    """
    encode = _table_encoder("ISO-2022-JP")
    state = _ASCII
    for match in _ISO_2022_JP_RUNS.finditer(text):
        run = match.group()
        if match.lastgroup == "ascii":
            if state == _ROMAN:
                # Roman writes ASCII as is, except 0x5C and 0x7E, which mean ¥ and ‾.
                cut = _NOT_ROMAN.search(run)
                if cut is None:
                    yield run.encode("ascii")
                    continue
                if cut.start():
                    yield run[: cut.start()].encode("ascii")
                run = run[cut.start() :]
            if state != _ASCII:
                yield _ESC_ASCII
                state = _ASCII
            yield run.encode("ascii")
        elif match.lastgroup == "shift":
            # From jis0208 these are ASCII code points, so step 6 returns to ASCII first;
            # then step 3 makes them an error reported as U+FFFD, not as the code point
            # ("to prevent attacks"), leaving an ASCII or Roman state as it is.
            if state == _JIS0208:
                yield _ESC_ASCII
                state = _ASCII
            yield 0xFFFD
        elif match.lastgroup == "roman":
            if state != _ROMAN:
                yield _ESC_ROMAN
                state = _ROMAN
            yield run.translate(_ROMAN_BYTES).encode("ascii")
        else:
            for piece in _split_encodable(run, encode):
                if isinstance(piece, bytes):
                    if state != _JIS0208:
                        yield _ESC_JIS0208
                        state = _JIS0208
                    yield piece
                    continue
                # Step 11: leave jis0208 before an error, so the caller's "&#...;" is ASCII.
                if state == _JIS0208:
                    yield _ESC_ASCII
                    state = _ASCII
                yield from map(ord, piece)
    if state != _ASCII:
        yield _ESC_ASCII


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def encode_runs(encoding: Encoding, text: str) -> Iterator[bytes | int]:
    """Encode ``text`` with one encoder instance, as the URL Standard's loop over
    "encode or fail" does (Encoding Standard §6.1, URL Standard §1.3).

    Yields, in order, non-empty byte chunks and, for each code point the encoder cannot
    encode, that code point as an int (U+FFFD for ISO-2022-JP's SO, SI and ESC). How
    bytes are split into chunks is not significant. ``text`` must be a scalar value
    string; a lone surrogate raises NotScalarValueError.
    """
    if not isinstance(encoding, Encoding):
        raise InputTypeError(f"encoding must be an Encoding, not {type_name(encoding)}")
    if not isinstance(text, str):
        raise InputTypeError(f"text must be str, not {type_name(text)}")
    if _ENCODINGS.get(encoding.name) != encoding:
        raise UnknownEncodingError(f"no encoder for {encoding!r}; use lookup()")
    surrogate = _SURROGATE.search(text)
    if surrogate is not None:
        raise NotScalarValueError(
            f"lone surrogate U+{ord(surrogate.group()):04X} at index {surrogate.start()}"
        )
    if not text:
        return iter(())
    if encoding.is_utf8:
        return iter((text.encode("utf-8"),))
    if encoding.name == "ISO-2022-JP":
        return _iso_2022_jp_runs(text)
    if encoding.name == "gb18030":
        return _gb18030_runs(text)
    return _table_runs(text, _table_encoder(encoding.name))
