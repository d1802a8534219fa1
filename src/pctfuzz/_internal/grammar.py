"""The grammar of what percent-encoders and form codecs read, as tokens and sizes.

One home for the strings that reach their bugs, shared by the grammar-aware mutator
(``fuzz.mutator``), the libFuzzer dictionaries (``dictionary``, rendered into
``pctfuzz/data/dicts``) and the Hypothesis strategies (``checks.strategies``):

- the delimiters of RFC 3986 2.2 and of application/x-www-form-urlencoded (URL
  Standard 5), and their escapes, upper and lower case (RFC 3986 2.1);
- double escapes of each delimiter (``%2526``: an ``&`` once decoded, a separator
  twice decoded: CWE-174);
- UTF-8 forms a decoder must refuse or replace (Unicode 15, Table 3-7): overlong
  forms, encoded surrogates, out-of-range and truncated sequences, and a BOM;
- escapes of unreserved characters a normalizer decodes (``%41``), and the
  ``&#N;`` a legacy encoding writes for a character it cannot encode;
- escapes that are not RFC 3986's: ``%u`` escapes (IIS), ``%`` with one hex digit, with
  a non-ASCII digit (Python's ``int(x, 16)`` reads ``'٤'`` as 4), with a sign or space;
- characters the legacy encoders treat specially (Encoding Standard 4-14) and, per
  encoding, which of them it maps (``legacy_chars``);
- numbers at the edges of integer types, alone and as an image map's ``x,y``;
- lengths around block sizes (``BLOCK_LENGTHS``) and field counts around common limits
  (``FIELD_COUNTS``: PHP's ``max_input_vars`` is 1000, Django's
  ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` 1000, Tomcat's ``maxParameterCount`` 10000).
"""

from __future__ import annotations

import functools

from pctfuzz._internal.named_sets import RESERVED

__all__ = [
    "BLOCK_LENGTHS",
    "BROKEN_ESCAPES",
    "DELIMITERS",
    "DOUBLE_ESCAPES",
    "ESCAPES",
    "FIELD_COUNTS",
    "LEGACY_CANDIDATES",
    "NUMBERS",
    "NUMBER_PAIRS",
    "PAIRS",
    "SPECIAL_CHARS",
    "SURROGATES",
    "UNRESERVED_ESCAPES",
    "URL_WORDS",
    "UTF8_FORMS",
    "dictionary",
    "escape",
    "legacy_chars",
    "tokens",
]

#: RFC 3986 2.2's gen-delims and sub-delims (``named_sets.RESERVED``), ``%`` itself, and
#: what a form or a query splits or rewrites on: space, and the characters some parsers
#: treat as separators or encode by older sets (``\\`` for paths, ``|``, ``^``, ``~``).
DELIMITERS: str = "".join(sorted(map(chr, RESERVED))) + "% \\|\"<>{}^`~"

#: Controls a decoder meets in escapes: NUL, TAB, LF, CR, ESC, DEL.
_CONTROLS: str = "\x00\t\n\r\x1b\x7f"


def escape(char: str, *, lower: bool = False) -> str:
    """``char``'s UTF-8 bytes as ``%HH`` triplets (URL Standard 1.3, "percent-encode"),
    with uppercase hex unless ``lower``."""
    out = "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
    return out.lower() if lower else out


#: Each delimiter and control escaped, upper and lower case (``%2F``, ``%2f``).
ESCAPES: tuple[str, ...] = tuple(dict.fromkeys(
    escaped for char in DELIMITERS + _CONTROLS for escaped in (escape(char),
                                                               escape(char, lower=True))))

#: Each delimiter escaped twice: ``%25`` then its hex (``%252F``).
DOUBLE_ESCAPES: tuple[str, ...] = tuple("%25" + escape(char)[1:] for char in DELIMITERS)

#: UTF-8 byte sequences as escapes, by what a decoder must do with them (Unicode
#: Table 3-7; URL Standard 1.3 decodes then reads UTF-8 "without BOM or fail").
UTF8_FORMS: tuple[str, ...] = (
    # overlong forms of '/', '.', NUL and 'A'
    "%C0%AF", "%C0%AE", "%C0%80", "%C1%81", "%E0%80%AF", "%E0%81%81", "%F0%80%80%AF",
    "%F8%80%80%80%AF",
    # encoded surrogates (CESU-8, WTF-8)
    "%ED%A0%80", "%ED%BF%BF", "%ED%A0%BD%ED%B2%A9",
    # out of range, never a lead byte, lone continuation
    "%F4%90%80%80", "%F5%80%80%80", "%FE", "%FF", "%80", "%BF",
    # truncated sequences, alone and before ASCII
    "%C3", "%E2%82", "%F0%9F%92", "%E2%82%28", "%C3%28",
    # the BOM, noncharacters, U+FFFD, and code points that look like ASCII delimiters
    "%EF%BB%BF", "%EF%BF%BE", "%EF%BF%BF", "%EF%BF%BD", "%C2%85", "%C2%A0", "%E2%80%A8",
    "%E2%80%AE", "%E2%80%8B", "%EF%BC%8F", "%E2%88%95", "%EF%BC%86", "%EF%BC%9D",
    "%C3%A9", "%c3%a9", "%F0%9F%92%A9",
)  # fmt: skip

#: Escapes of unreserved characters, which a normalizer decodes (RFC 3986 6.2.2.2:
#: ``%41`` is ``A``), and what percent-encode after encoding writes for a character a
#: legacy encoding cannot encode (URL Standard 1.3: ``&#8253;``, escaped ``%26%23``).
UNRESERVED_ESCAPES: tuple[str, ...] = (
    "%41", "%4a", "%4A", "%7a", "%30", "%39", "%2D", "%2E", "%2e", "%5F", "%7E",
    "&#8253;", "%26%23", "%26%238253%3B",
)  # fmt: skip

#: Escapes outside RFC 3986 2.1, which lenient decoders read anyway.
BROKEN_ESCAPES: tuple[str, ...] = (
    "%", "%%", "%%%", "%2", "%4", "%a", "%G1", "%1G", "%zz", "% 1", "%+1", "%-1", "%0x",
    "%2%", "%%41", "%u0041", "%u002F", "%u0026", "%u003D", "%u00E9", "%uD800", "%uFF0F",
    "%U0041", "%u41", "%\u0664\u0661", "%\uff14\uff11", "%\u0663\u0662", "%\u00b9F",
    "%\u07c4\u07c1", "%\u0966\u0967",
)  # fmt: skip

#: Pairs and separators of application/x-www-form-urlencoded (URL Standard 5.1).
PAIRS: tuple[str, ...] = (
    "a=b", "&", "=", "&&", "==", "=&", "&=", "a=", "=b", "a", "a=b&a=c", "a=b;c=d",
    "a+b=c+d", "a%3Db=c", "a%26b=c", "a=b%26c=d", "a[]=1", "a[b]=1", "a.b=1", "__proto__=1",
    "&a", "a&", "?a=b", "#a", "a=b=c",
)  # fmt: skip

#: Numbers at the edges of integer types (AFL's "interesting values") and forms a
#: parser of numbers may take: ports, array indices (``a[65536]``), counts, and the
#: ``x,y`` of a click on a server-side image map (HTML, ``ismap``: ``?x,y``).
NUMBERS: tuple[str, ...] = (
    "0", "-1", "1", "127", "128", "255", "256", "32767", "32768", "65535", "65536",
    "2147483647", "2147483648", "4294967296", "9007199254740993", "1e309", "0x10", "1.5",
    "NaN", "Infinity", "00", "+1",
)  # fmt: skip
_EDGES = ("0", "-1", "32767", "32768", "65535", "65536", "2147483648")
#: ``x,y`` pairs of those numbers (``ismap``), each edge with an ordinary number.
NUMBER_PAIRS: tuple[str, ...] = tuple(f"{a},{b}" for n in _EDGES for a, b in ((n, "1"),
                                                                            ("1", n)))

#: Words of whole URLs, for implementations that parse more than a component.
URL_WORDS: tuple[str, ...] = (
    "http://", "https://", "file://", "ftp://", "ws://", "data:", "javascript:",
    "mailto:", "urn:", "//", "///", "\\\\", "..", "/./", "/../", "%2e", "%2E%2E", ".%2e",
    "localhost", "127.0.0.1", "0x7f.1", "[::1]", "[::ffff:127.0.0.1]", "xn--", "user:pass@",
    ":80", ":0", "?", "#", "@",
)  # fmt: skip

#: Single characters worth hitting beyond ASCII.
SPECIAL_CHARS: tuple[str, ...] = (
    # C1 controls and Latin-1 (two UTF-8 bytes; windows-125x map some of them)
    "\x80", "\x85", "\x9f", "\xa0", "\xa5", "\xe9", "\xff",
    # UTF-8 length boundaries
    "\u07ff", "\u0800", "\ud7ff", "\ue000",
    # noncharacters, BOM, replacement character, line and paragraph separators
    "\ufdd0", "\ufdef", "\ufeff", "\ufffd", "\ufffe", "\uffff", "\u2028", "\u2029",
    # legacy-encoder specials: overline, interrobang, identical-to, yen (Shift_JIS/
    # ISO-2022-JP Roman), euro, ideographic space, kanji, hangul, x-user-defined
    "\u203e", "\u203d", "\u2261", "\u20ac", "\u3000", "\u65e5", "\ud55c", "\uf780", "\uf7ff",
    "\uff61", "\u2212",
    # look-alikes of delimiters: fullwidth solidus, ampersand and equals, division slash
    "\uff0f", "\uff06", "\uff1d", "\u2215",
    # astral
    "\U00010000", "\U0001f4a9", "\U0010fffe", "\U0010ffff",
)  # fmt: skip

#: Lone surrogates (outside the encoder's domain: only where a case type allows them).
SURROGATES: tuple[str, ...] = ("\ud800", "\udbff", "\udc00", "\udfff")

#: Characters a legacy encoding may or may not map: ``legacy_chars`` sorts them per
#: encoding. With ASCII around them they cross ISO-2022-JP's mode boundaries.
LEGACY_CANDIDATES: str = (
    "\xa5\u203e\xe9\xdf\xa4\u20ac\u2122\u65e5\u672c\u8a9e\ud55c\uff71\uff61\u3000\u2212"
    "\u2261\u203d\u0416\u0142\u0160\U0002000b\u00a6\u2015\u301c\uf780\ue5e5\u00b7\u0131"
)

#: Lengths around block and buffer sizes, in bytes or characters.
BLOCK_LENGTHS: tuple[int, ...] = (
    15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513,
    1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097,
)  # fmt: skip

#: Numbers of fields around common limits (PHP ``max_input_vars`` and Django's
#: ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` are 1000) and powers of two.
FIELD_COUNTS: tuple[int, ...] = (
    2, 3, 8, 16, 17, 32, 64, 65, 100, 101, 128, 129, 255, 256, 257, 512, 999, 1000, 1001,
    1024, 1025, 2000, 2048,
)  # fmt: skip


def tokens(*, surrogates: bool = False) -> tuple[str, ...]:
    """Every token above, once, in a stable order (lone surrogates only if asked)."""
    groups = (ESCAPES, DOUBLE_ESCAPES, UTF8_FORMS, UNRESERVED_ESCAPES, BROKEN_ESCAPES,
              PAIRS, NUMBERS,
              NUMBER_PAIRS, URL_WORDS,
              tuple(DELIMITERS), SPECIAL_CHARS, SURROGATES if surrogates else ())
    return tuple(dict.fromkeys(token for group in groups for token in group))


@functools.cache
def legacy_chars(encoding: str) -> tuple[str, str]:
    """(the ``LEGACY_CANDIDATES`` that ``encoding``'s encoder maps, those it does not),
    by the Encoding Standard's encoders (``encoding.encode_runs``: an ``int`` run is a
    code point the encoder cannot encode)."""
    from pctfuzz._internal.encoding import encode_runs, lookup

    enc = lookup(encoding)
    mapped: list[str] = []
    unmapped: list[str] = []
    for char in LEGACY_CANDIDATES:
        runs = list(encode_runs(enc, char))
        (unmapped if any(isinstance(run, int) for run in runs) else mapped).append(char)
    return "".join(mapped), "".join(unmapped)


def _dict_escape(token: bytes) -> str:
    """libFuzzer's dictionary syntax: printable ASCII as is, ``\\`` and ``"`` and every
    other byte as ``\\xHH`` (``-dict``, libFuzzer's docs: "Dictionaries")."""
    return "".join(chr(b) if 0x20 <= b < 0x7F and b not in b'\\"' else f"\\x{b:02X}"
                   for b in token)


def dictionary(target: str) -> str:
    """The libFuzzer dictionary of ``target`` (``pctfuzz/data/dicts/<target>.dict``): every
    token as UTF-8 (lone surrogates as WTF-8), and the special characters' escapes."""
    lines = [
        f"# libFuzzer dictionary for the pctfuzz `{target}` target, rendered from",
        "# pctfuzz's input grammar (do not edit: `make dicts` writes it).",
    ]
    seen: set[bytes] = set()
    for token in (*tokens(surrogates=True), *(escape(c) for c in SPECIAL_CHARS)):
        raw = token.encode("utf-8", "surrogatepass")
        if raw not in seen:
            seen.add(raw)
            lines.append(f'"{_dict_escape(raw)}"')
    return "\n".join(lines) + "\n"
