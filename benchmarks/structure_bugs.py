"""urllib.parse with one planted bug each that only a structured input shows, for
``bench_structure.py`` (``--impl structure_bugs:<Class>`` with ``benchmarks/`` on the path).

``bench_ttb.py``'s faults show on almost any input, so uniform random bytes find them
all at once and the bench cannot tell a good driver from a poor one. Each bug here
needs an input with some structure: a particular escape of several bytes, an escape
in a particular place of a form, many pairs, a long run of one kind of character.
Each one is meant to be out of reach of uniform random bytes (``bench_structure.py``
measures that: its ``random`` driver).

Like ``ttb_faults``, each adapter subclasses ``UrllibAdapter`` and keeps urllib's
registry names, so urllib's accepted differences stay accepted and only the planted
bug is new (the unmodified adapter gives no finding on these targets in a short
campaign). The planted code changes urllib's answer only when its trigger is in the
input; urllib answers every other input as it does unchanged. ``modules_under_test`` is
urllib.parse's, as inherited: the planted code carries no coverage counters, so a
driver cannot read a trigger off a comparison in it and has to build the structure
itself.

Each class says its target (``target``), a case that shows the bug (``trigger``) and a
plain case of the same shape that agrees with the reference (``benign``). ``BUGS``
maps each bug's name to its class.
"""

from __future__ import annotations

import codecs
import functools
import re
import struct
from typing import ClassVar
from urllib import parse

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.form import split_pairs
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter, python_codec
from pctfuzz._internal.sets import get_set

__all__ = ["BUGS", "PlantedBug"]

Pairs = list[tuple[str, str]]


class PlantedBug(UrllibAdapter):
    """urllib.parse with one planted bug: ``bug`` names it, ``target`` is the
    differential target that shows it, ``trigger`` a case that does, ``benign`` a
    case of the same shape that does not."""

    bug: ClassVar[str]
    target: ClassVar[str]
    trigger: ClassVar[Case]
    benign: ClassVar[Case]

    def _decode_as(self, case: DecodeCase, value: str | bytes) -> bytes:
        """urllib's decode of ``value`` through the function that ``case`` picks: a
        rewritten input keeps the function (picked by the length) that urllib's
        registry entries expect for the case."""
        if self.function("decode", case) == "unquote":
            return parse.unquote(value).encode("utf-8", "surrogatepass")
        return parse.unquote_to_bytes(value)


# --- decoders (diff_decode) ----------------------------------------------------------------

_EURO = re.compile("%E2%82%AC", re.IGNORECASE)
_EURO_BYTES = re.compile(b"%E2%82%AC", re.IGNORECASE)


class EuroAsWindows1252(PlantedBug):
    """The escapes of the euro sign, ``%E2%82%AC``, decode to the single byte 0x80.

    A decoder with a table of the escapes of common typographic characters (quotes,
    dashes, the euro sign), whose euro entry holds the windows-1252 byte for € instead
    of its UTF-8 bytes: the UTF-8/windows-1252 mix-up behind much mojibake (MySQL's
    ``latin1`` is windows-1252, where € is 0x80). One three-byte escape sequence of
    the 63,488 three-byte characters is wrong."""

    bug = "euro-as-cp1252"
    name = "urllib+euro-as-cp1252"
    target = "diff_decode"
    trigger = DecodeCase("price=100%E2%82%AC")
    benign = DecodeCase("price=100%E2%80%94")  # an em dash: right

    def decode(self, case: DecodeCase) -> bytes:
        value = case.value
        if isinstance(value, bytes):
            rewritten: str | bytes = _EURO_BYTES.sub(b"%80", value)
        else:
            rewritten = _EURO.sub("%80", value)
        return super().decode(case) if rewritten == value else self._decode_as(case, rewritten)


class SlashDecodedTwice(PlantedBug):
    """A double escape of ``/`` (``%252F``) decodes to ``/``, not to ``%2F``.

    A path router that decodes, then replaces the ``%2F`` it finds in the result by
    ``/``, meaning to "normalize" escaped slashes: the result was already decoded, so
    this decodes a double escape twice. IIS's double decoding (CVE-2001-0333,
    ``..%255c..``) is the classic case. The router compares with ``%2F`` exactly, so
    only an uppercase ``F`` in the decoded result is read again."""

    bug = "slash-decoded-twice"
    name = "urllib+slash-decoded-twice"
    target = "diff_decode"
    trigger = DecodeCase("files/a%252Fb")
    benign = DecodeCase("files/a%2Fb%2525")  # decoded once: a/b%25

    def decode(self, case: DecodeCase) -> bytes:
        return super().decode(case).replace(b"%2F", b"/")


_FULLWIDTH_DIGITS = re.compile("%([\uff10-\uff19]{2})")


class FullwidthDigitEscapes(PlantedBug):
    """``%`` followed by two fullwidth digits (U+FF10-U+FF19) is read as an escape:
    ``%４１`` decodes to ``A``.

    A decoder whose escape pattern admits fullwidth digits (a character class copied
    from a normalizer for text typed with a CJK input method) and reads them with
    ``int(digits, 16)``, which accepts any Unicode decimal digit (Python's ``int``
    documents it). A pair with one ASCII digit is left alone. str values only (a
    bytes value is decoded as urllib does)."""

    bug = "fullwidth-digit-escapes"
    name = "urllib+fullwidth-digit-escapes"
    target = "diff_decode"
    trigger = DecodeCase("a%\uff14\uff11b")
    benign = DecodeCase("a%4\uff11b%\uff14")

    def decode(self, case: DecodeCase) -> bytes:
        value = case.value
        if isinstance(value, bytes):
            return super().decode(case)
        rewritten = _FULLWIDTH_DIGITS.sub(lambda m: f"%{int(m[1], 16):02X}", value)
        return super().decode(case) if rewritten == value else self._decode_as(case, rewritten)


_OVERLONG = re.compile("%(C[01])%([89AB][0-9A-F])", re.IGNORECASE)
_OVERLONG_BYTES = re.compile(b"%(C[01])%([89AB][0-9A-F])", re.IGNORECASE)


def _overlong_escape(lead: str, trail: str) -> str:
    """The escape of the ASCII character an overlong two-byte form stands for."""
    return f"%{(int(lead, 16) & 0x01) << 6 | int(trail, 16) & 0x3F:02X}"


class OverlongUtf8(PlantedBug):
    """Escaped overlong two-byte UTF-8 forms (lead byte C0 or C1) decode to the ASCII
    character they stand for: ``%C0%AF`` is ``/``, not the bytes C0 AF.

    A decoder with a lenient UTF-8 step over escapes that does not reject overlong
    forms: the IIS "Unicode" directory traversal, ``..%c0%af..`` (CVE-2000-0884), and
    Tomcat's CVE-2008-2938. Raw bytes are not touched, only escapes."""

    bug = "overlong-utf8"
    name = "urllib+overlong-utf8"
    target = "diff_decode"
    trigger = DecodeCase("..%C0%AF..%C0%AFetc")
    benign = DecodeCase("..%C3%AF..%2Fetc")

    def decode(self, case: DecodeCase) -> bytes:
        value = case.value
        if isinstance(value, bytes):
            rewritten: str | bytes = _OVERLONG_BYTES.sub(
                lambda m: _overlong_escape(m[1].decode(), m[2].decode()).encode(), value)
        else:
            rewritten = _OVERLONG.sub(lambda m: _overlong_escape(m[1], m[2]), value)
        return super().decode(case) if rewritten == value else self._decode_as(case, rewritten)


_FOUR_BYTE = re.compile("%F[0-4](?:%[89AB][0-9A-F]){3}", re.IGNORECASE)
_FOUR_BYTE_BYTES = re.compile(b"%F[0-4](?:%[89AB][0-9A-F]){3}", re.IGNORECASE)


def _cesu8_escapes(escapes: str) -> str:
    """The escapes of a four-byte UTF-8 character rewritten as the escapes of its
    UTF-16 surrogates, three bytes each (CESU-8); left alone if not valid UTF-8."""
    try:
        char = bytes.fromhex(escapes.replace("%", "")).decode("utf-8")
    except UnicodeDecodeError:
        return escapes
    units = char.encode("utf-16-be")
    surrogates = chr(int.from_bytes(units[:2], "big")) + chr(int.from_bytes(units[2:], "big"))
    return "".join(f"%{b:02X}" for b in surrogates.encode("utf-8", "surrogatepass"))


class Cesu8Output(PlantedBug):
    """Escaped four-byte UTF-8 characters (U+10000 and up) decode to CESU-8: each of
    their UTF-16 surrogates as three bytes, ``%F0%9F%98%80`` as ED A0 BD ED B8 80.

    A decoder that goes through UTF-16 text and writes it back one code unit at a
    time, as Java's modified UTF-8 and Oracle's ``UTF8`` character set (CESU-8) do."""

    bug = "cesu8-output"
    name = "urllib+cesu8-output"
    target = "diff_decode"
    trigger = DecodeCase("smile%F0%9F%98%80")
    benign = DecodeCase("smile%E2%98%BA%C3%A9")

    def decode(self, case: DecodeCase) -> bytes:
        value = case.value
        if isinstance(value, bytes):
            rewritten: str | bytes = _FOUR_BYTE_BYTES.sub(
                lambda m: _cesu8_escapes(m[0].decode()).encode(), value)
        else:
            rewritten = _FOUR_BYTE.sub(lambda m: _cesu8_escapes(m[0]), value)
        return super().decode(case) if rewritten == value else self._decode_as(case, rewritten)


# --- form parsers (diff_form_parse) --------------------------------------------------------

_JS_ESCAPE = re.compile("%u([0-9A-Fa-f]{4})|%([0-9A-Fa-f]{2})")
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _join_surrogates(text: str) -> str:
    """Each high surrogate followed by a low one as the one character they encode."""
    return _SURROGATE_PAIR.sub(
        lambda m: m[0].encode("utf-16-le", "surrogatepass").decode("utf-16-le"), text)


def _js_unescape(text: str) -> str:
    """JavaScript's ``unescape()``: ``%uXXXX`` is a UTF-16 code unit, ``%XX`` a Latin-1
    character (not a UTF-8 byte)."""
    return _join_surrogates(_JS_ESCAPE.sub(lambda m: chr(int(m[1] or m[2], 16)), text))


class UnescapeValues(PlantedBug):
    """A value that starts with ``%u`` is decoded as JavaScript's ``unescape()`` does:
    ``q=%u00E9t%u00E9`` gives ``été``, and its ``%XX`` escapes become Latin-1
    characters.

    A parser that takes such a value for the output of JavaScript's ``escape()``, as
    IIS/ASP did when it decoded ``%uXXXX`` (the Code Red worm's ``%u9090`` payload
    went through it, and it was a classic IDS evasion). Names are decoded as urllib
    does."""

    bug = "unescape-values"
    name = "urllib+unescape-values"
    target = "diff_form_parse"
    trigger = FormParseCase("q=%u00E9t%u00E9&page=2")
    benign = FormParseCase("q=%C3%A9t%C3%A9&%u00E9=%41%u00E9")  # %u not at a value's start

    def form_parse(self, case: FormParseCase) -> Pairs:
        pairs = super().form_parse(case)
        text = case.text
        if not isinstance(text, str) or "=%u" not in text:
            return pairs
        sequences = [s for s in text.split("&") if s]
        if len(sequences) != len(pairs):  # (urllib splits as the reference does)
            return pairs
        out: Pairs = []
        for sequence, (name, value) in zip(sequences, pairs, strict=True):
            _, equals, raw = sequence.partition("=")
            out.append((name, _js_unescape(raw.replace("+", " "))
                        if equals and raw.startswith("%u") else value))
        return out


class MaxInputVars(PlantedBug):
    """Only the first 100 pairs are kept; the rest are dropped silently.

    PHP's ``max_input_vars`` (default 1000) drops the pairs beyond it with a warning,
    Node's ``querystring.parse`` (``maxKeys``) and the ``qs`` package
    (``parameterLimit``) beyond 1000 silently. The limit here is 100, so that an input
    within libFuzzer's 4096-byte limit can hold enough pairs."""

    bug = "max-input-vars"
    name = "urllib+max-input-vars"
    target = "diff_form_parse"
    LIMIT: ClassVar[int] = 100
    trigger = FormParseCase("&".join(f"v{i}=1" for i in range(LIMIT + 1)))
    benign = FormParseCase("&".join(f"v{i}=1" for i in range(LIMIT)))

    def form_parse(self, case: FormParseCase) -> Pairs:
        return super().form_parse(case)[:self.LIMIT]


_UTF8_ESCAPE = re.compile("%[C-Fc-f][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]")


class DecodeBeforeSplit(PlantedBug):
    """When the text holds an escaped multi-byte UTF-8 character, it is decoded as a
    whole before it is split: an escaped ``=`` or ``&`` then splits like a raw one,
    ``role%3Dadmin=1&name=Jos%C3%A9`` gives ``('role', 'admin=1')``.

    A parser with a "charset fix-up" path for non-ASCII input that decodes the whole
    query to convert it, then splits the result; ASCII-only text takes the right path.
    Decoding before splitting is a common hand-written parser bug (``URLDecoder.decode``
    of the whole query string in Java code); the condition is this bug's own."""

    bug = "decode-before-split"
    name = "urllib+decode-before-split"
    target = "diff_form_parse"
    trigger = FormParseCase("role%3Dadmin=1&name=Jos%C3%A9")
    benign = FormParseCase("role%3Dadmin=1&name=Jose")

    def form_parse(self, case: FormParseCase) -> Pairs:
        text = case.text
        if not isinstance(text, str) or not _UTF8_ESCAPE.search(text):
            return super().form_parse(case)
        return split_pairs(parse.unquote_plus(text), str)  # decoded already


_ISMAP = re.compile("([0-9]+),([0-9]+)")


class IsmapCoordinates(PlantedBug):
    """A pair that is two numbers joined by a comma and nothing else (``40000,120``)
    crashes the parser (``struct.error``) when a number is above 32767.

    A query of that form is what a browser sends for a click on a server-side image
    map (HTML's ``ismap``: ``?x,y``); this parser checks it as two 16-bit signed
    coordinates with ``struct.pack`` and lets the error out. Other pairs, and clicks
    within range, are parsed as urllib does."""

    bug = "ismap-coordinates"
    name = "urllib+ismap-coordinates"
    target = "diff_form_parse"
    trigger = FormParseCase("40000,120")
    benign = FormParseCase("400,120&x=40000,120")

    def form_parse(self, case: FormParseCase) -> Pairs:
        pairs = super().form_parse(case)
        text = case.text
        if isinstance(text, bytes):
            text = text.decode("latin-1")
        for sequence in text.split("&"):
            click = _ISMAP.fullmatch(sequence)
            if click:
                struct.pack(">hh", int(click[1]), int(click[2]))
        return pairs


def _surrogates_kept(error: UnicodeError) -> tuple[str, int]:
    """Decoding error handler: a surrogate's three UTF-8 bytes (ED A0-BF 80-BF) give
    the surrogate; anything else is U+FFFD, as ``errors="replace"``."""
    assert isinstance(error, UnicodeDecodeError)
    data = error.object[error.start:error.start + 3]
    if len(data) == 3 and data[0] == 0xED and 0xA0 <= data[1] <= 0xBF and 0x80 <= data[2] <= 0xBF:
        return chr(0xD000 | (data[1] & 0x3F) << 6 | data[2] & 0x3F), error.start + 3
    return "\ufffd", error.end


codecs.register_error("structure-bugs-surrogates", _surrogates_kept)

_ESCAPE_RUN = re.compile("(?:%[0-9A-Fa-f]{2})+")


def _decode_surrogates(field: str) -> str:
    """A name or value with its escapes decoded, encoded surrogates accepted and
    pairs of them joined; raw characters are left as they are."""
    def run(m: re.Match[str]) -> str:
        data = bytes.fromhex(m[0].replace("%", ""))
        return _join_surrogates(data.decode("utf-8", "structure-bugs-surrogates"))

    return _ESCAPE_RUN.sub(run, field.replace("+", " "))


class SurrogateEscapes(PlantedBug):
    """Escaped UTF-8 encodings of surrogates are accepted: ``%ED%A0%80`` gives the lone
    surrogate U+D800 (not three U+FFFD), and a high and a low one give the character
    they encode (``%ED%A0%BD%ED%B8%80`` is U+1F600).

    A parser whose UTF-8 decoder tolerates CESU-8, as Java's modified UTF-8
    (``DataInputStream.readUTF``) and Python's ``surrogatepass`` do. Only escapes:
    raw characters are taken as they are. str text only."""

    bug = "surrogate-escapes"
    name = "urllib+surrogate-escapes"
    target = "diff_form_parse"
    trigger = FormParseCase("a=%ED%A0%80&b=%ED%A0%BD%ED%B8%80")
    benign = FormParseCase("a=%EF%BF%BD&b=%F0%9F%98%80")

    def form_parse(self, case: FormParseCase) -> Pairs:
        if not isinstance(case.text, str):
            return super().form_parse(case)
        return split_pairs(case.text, _decode_surrogates)


class Utf8SigNames(PlantedBug):
    """A byte order mark at the start of an escaped run is dropped: ``%EF%BB%BFid=7``
    gives the name ``id``, not ``\\ufeffid``.

    The parser is ``parse_qsl(text, encoding="utf-8-sig")``, as code that "handles
    BOMs" writes: urllib decodes each run of escapes on its own, so the BOM codec
    strips a BOM at the start of every run, not only at the start of the body. The
    URL Standard decodes names and values as UTF-8 without BOM handling, which keeps
    it. No precedent known to me; str text only."""

    bug = "utf8-sig"
    name = "urllib+utf8-sig"
    target = "diff_form_parse"
    trigger = FormParseCase("%EF%BB%BFid=7")
    benign = FormParseCase("id=7%EF%BB%BF")  # mid-run: kept by both

    def form_parse(self, case: FormParseCase) -> Pairs:
        text = case.text
        if not isinstance(text, str):
            return super().form_parse(case)
        if self.function("form-parse", case) == "unquote_plus":
            return split_pairs(text, functools.partial(parse.unquote_plus, encoding="utf-8-sig"))
        return parse.parse_qsl(text, keep_blank_values=True, encoding="utf-8-sig",
                               errors="replace", separator="&")


_NESTED_NAME = re.compile(r"([^\[\]]+)((?:\[[^\[\]]*\])+)")
_NESTED_KEY = re.compile(r"\[([^\[\]]*)\]")


class NestedNameConflict(PlantedBug):
    """A name used both as a plain name and as the base of a nested one
    (``user=bob&user[role]=admin``) crashes the parser (``TypeError``).

    The parser builds Rack/PHP-style nested parameters (``a[b][c]``) beside the flat
    pairs it returns, and a conflict raises: Rack's ``ParameterTypeError``
    ("expected Hash (got String) for param") reached many Rails apps as an error 500."""

    bug = "nested-name-conflict"
    name = "urllib+nested-name-conflict"
    target = "diff_form_parse"
    trigger = FormParseCase("user=bob&user[role]=admin")
    benign = FormParseCase("user[name]=bob&user[role]=admin&user_role=x")

    def form_parse(self, case: FormParseCase) -> Pairs:
        pairs = super().form_parse(case)
        tree: dict[str, object] = {}
        for name, value in pairs:
            nested = _NESTED_NAME.fullmatch(name)
            keys = [nested[1], *_NESTED_KEY.findall(nested[2])] if nested else [name]
            node = tree
            for key in keys[:-1]:
                child = node.setdefault(key, {})
                if not isinstance(child, dict):
                    raise TypeError(f"expected Hash (got String) for param `{key}'")
                node = child
            if isinstance(node.get(keys[-1]), dict):
                raise TypeError(f"expected String (got Hash) for param `{keys[-1]}'")
            node[keys[-1]] = value
        return pairs


# --- encoders (diff_encode) ----------------------------------------------------------------

_ESCAPE = re.compile("(%[0-9A-F]{2})")


class SafeRunBlocks(PlantedBug):
    """In a run of more than 128 characters that need no encoding, the character after
    each block of 128 is dropped: ``"a" * 200`` comes out as 199 ``a``.

    An encoder with a fast path that copies up to 128 characters that need no
    encoding at a time and then steps one too far (an off-by-one of the kind chunked
    and vectorized loops have). Escapes end a run. The fast path is the UTF-8 one (str
    values in UTF-8, and bytes values): text in a legacy encoding takes the codec's
    path, whose error mode writes ``&#NNNN;`` for each character the encoding cannot
    map, long literal runs that random text makes in sets that leave ``&#;`` alone.
    No precedent known to me."""

    bug = "safe-run-blocks"
    name = "urllib+safe-run-blocks"
    target = "diff_encode"
    trigger = EncodeCase("a" * 200, "component")
    benign = EncodeCase("a" * 128 + "/" + "a" * 128, "component")  # "/" is %2F there

    def encode(self, case: EncodeCase) -> str:
        out = super().encode(case)
        if isinstance(case.value, str) and python_codec(case.encoding)[0] != "utf-8":
            return out
        # re.split with a group alternates literal runs (even) and escapes (odd)
        parts = _ESCAPE.split(out)
        return "".join(part if i % 2 else "".join(c for j, c in enumerate(part) if j % 129 != 128)
                       for i, part in enumerate(parts))


# A JIS X 0208 run, one Roman byte (the ¥ or ‾ written as 0x5C or 0x7E), then the
# switch back to JIS X 0208 that the bug leaves out.
_ROMAN_LATE = re.compile(rb"(\x1b\$B(?:[\x21-\x7e]{2})+\x1b\(J[\x5c\x7e])\x1b\$B")


class Iso2022JpRomanLate(PlantedBug):
    """ISO-2022-JP: a JIS X 0208 character right after a ``¥`` or ``‾`` that itself
    came right after JIS X 0208 text is written without its ``ESC $ B``: ``漢¥漢``
    loses the second switch, and its last character reads as Roman text.

    A stateful encoder that decides whether to write ``ESC $ B`` from the state it was
    in before the ``¥``/``‾`` (which switched it to Roman, ``ESC ( J``): a stale
    local variable. The WHATWG encoder has a Roman state for exactly these two
    characters. No precedent known to me."""

    bug = "iso2022jp-roman-late"
    name = "urllib+iso2022jp-roman-late"
    target = "diff_encode"
    trigger = EncodeCase("\u6f22\u00a5\u6f22", "component", "ISO-2022-JP")
    benign = EncodeCase("\u6f22\u00a5\u00a5\u6f22", "component", "ISO-2022-JP")  # two Roman

    def encode(self, case: EncodeCase) -> str:
        out = super().encode(case)
        if case.encoding != "ISO-2022-JP" or not isinstance(case.value, str):
            return out
        encoding, errors = python_codec(case.encoding)
        data = case.value.encode(encoding, errors)
        buggy = _ROMAN_LATE.sub(rb"\1", data)
        if buggy == data:
            return out
        # quote(str, encoding=...) is quote_from_bytes of the encoded bytes
        safe = get_set(case.set_name).printable_safe
        if case.space_as_plus:
            return parse.quote_plus(buggy, safe=safe)
        return parse.quote_from_bytes(buggy, safe=safe)


# --- form serializers (diff_form) ----------------------------------------------------------

class PairBatches(PlantedBug):
    """With more than 64 pairs, the ``&`` between the 64th and 65th pair (and after
    each further 64) is left out: ``...&k63=v63k64=v64``.

    A serializer that writes pairs into a fixed buffer of 64 and joins the buffers
    without a separator. No precedent known to me."""

    bug = "pair-batches-64"
    name = "urllib+pair-batches-64"
    target = "diff_form"
    BATCH: ClassVar[int] = 64
    trigger = FormCase(tuple((f"k{i}", f"v{i}") for i in range(BATCH + 1)))
    benign = FormCase(tuple((f"k{i}", f"v{i}") for i in range(BATCH)))

    def form_serialize(self, case: FormCase) -> str:
        parts = super().form_serialize(case).split("&")  # encoded pairs hold no raw "&"
        return "".join("&".join(parts[i:i + self.BATCH])
                       for i in range(0, len(parts), self.BATCH))


class DedupPairs(PlantedBug):
    """A pair with a value, repeated with the same name and value, is written once:
    ``tag=a&tag=b&tag=a`` comes out as ``tag=a&tag=b``.

    A serializer that drops the encoded ``name=value`` parts it has written already,
    to "clean up" checkbox values sent twice (a form may repeat a pair on purpose); a
    pair with an empty value is always written, as a field left empty on purpose.
    No precedent known to me."""

    bug = "dedup-pairs"
    name = "urllib+dedup-pairs"
    target = "diff_form"
    trigger = FormCase((("tag", "a"), ("tag", "b"), ("tag", "a")))
    benign = FormCase((("tag", "a"), ("tag", "b"), ("tog", "a")))

    def form_serialize(self, case: FormCase) -> str:
        seen: set[str] = set()
        parts: list[str] = []
        for part in super().form_serialize(case).split("&"):
            if part.partition("=")[2]:
                if part in seen:
                    continue
                seen.add(part)
            parts.append(part)
        return "&".join(parts)


#: bug name -> its adapter class (``--impl structure_bugs:<class name>``), by target.
BUGS: dict[str, type[PlantedBug]] = {cls.bug: cls for cls in (
    EuroAsWindows1252, SlashDecodedTwice, FullwidthDigitEscapes, OverlongUtf8, Cesu8Output,
    UnescapeValues, MaxInputVars, DecodeBeforeSplit, IsmapCoordinates, SurrogateEscapes,
    Utf8SigNames, NestedNameConflict,
    SafeRunBlocks, Iso2022JpRomanLate,
    PairBatches, DedupPairs,
)}
