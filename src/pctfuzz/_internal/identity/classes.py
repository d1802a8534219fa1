"""Difference classes: what differs between the reference's answer and the
implementation's, per question (encode, decode, form, form-parse). ``pctfuzz._internal.identity``'s
docstring defines each class; ``difference`` is the entry point."""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence
from typing import Any

from pctfuzz._internal.accept.meaning import DELIMITERS
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.errors import NotScalarValueError, PctfuzzError
from pctfuzz._internal.form import form_sequences
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.outcome import qualified_type
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.sets import FORM
from pctfuzz._internal.spec import (
    ASCII_HEX_DIGITS,
    HEX_PAIR,
    PERCENT_ENCODED_BYTE,
    PERCENT_ENCODED_RUN,
)
from pctfuzz._internal.text import first_difference, is_valid_utf8, surrogates_to_fffd

#: Units past this index are not examined: the class of a long unminimized input is
#: computed in bounded time (minimization brings the first difference near the start).
_MAX_UNITS = 4096

_HEX = ASCII_HEX_DIGITS
_TRIPLET = PERCENT_ENCODED_BYTE



# --- input units and their classes --------------------------------------------------------
def _unit_class(value: str | bytes, index: int) -> str:
    """The class of unit ``index`` of an encoder input (see the module docstring)."""
    if isinstance(value, bytes):
        code = value[index]
        nxt = value[index + 1 : index + 3]
    else:
        code = ord(value[index])
        nxt = value[index + 1 : index + 3].encode("utf-8", "surrogatepass")
    if 0xD800 <= code <= 0xDFFF and isinstance(value, str):
        return "lone-surrogate"
    if code >= 0x80:
        return "non-ascii"
    if code == 0x25 and len(nxt) == 2 and all(b in _HEX for b in nxt):
        return "pct-triplet"
    return f"0x{code:02X}"


def _encode_pieces(case: EncodeCase, value: str | bytes, set_name: str, plus: bool,
                   surrogates: str) -> list[str]:
    """The reference's output for each unit of ``value``. UTF-8 and bytes encode unit
    by unit; a legacy encoding may carry state (ISO-2022-JP), so each piece is what
    one more unit adds to the output of the prefix."""
    units: Sequence[str | bytes]
    units = [value[i : i + 1] for i in range(min(len(value), _MAX_UNITS))]
    label = case.encoding
    stateless = isinstance(value, bytes) or lookup(label).name == "UTF-8"

    def enc(part: str | bytes) -> str:
        return percent_encode(part, set_name, encoding=label, space_as_plus=plus,
                              surrogates=surrogates)  # type: ignore[arg-type]

    if stateless:
        pieces = []
        for unit in units:
            try:
                pieces.append(enc(unit))
            except NotScalarValueError:
                pieces.append("\ufffd")  # never matches real output: names this unit
        return pieces
    pieces, before = [], ""
    for i in range(len(units)):
        try:
            now = enc(value[: i + 1])
        except NotScalarValueError:
            return [*pieces, "\ufffd"]
        if not now.startswith(before):  # stateful output rewritten: stop here
            return [*pieces, now[len(before):]]
        pieces.append(now[len(before):])
        before = now
    return pieces


def _unit_shape(unit: str | bytes, piece: str, rest: str, legacy: bool = False) -> str:
    """How the implementation's remaining output ``rest`` differs from the reference's
    ``piece`` for one input ``unit``; ``legacy``: a str encoded with a legacy encoding,
    where the rest of the reference's output with a part left out is output missing
    too (an ISO-2022-JP escape sequence dropped: one shape whatever character follows
    it, where the bytes of the character made it two)."""
    if not rest or (legacy and len(rest) < len(piece) and piece.endswith(rest)):
        return "missing-output"
    raw = unit.decode("latin-1") if isinstance(unit, bytes) else unit
    if piece == "+" and rest.startswith("%20"):
        return "space-as-%20"
    if piece == "%20" and rest.startswith("+"):
        return "space-as-plus"
    if _TRIPLET.match(piece):
        # hex case first: a "%C3" of the input written back as "%c3" starts with "%",
        # the raw unit, too
        if rest[:3] != piece[:3] and rest[:3].upper() == piece[:3]:
            return "hex-case"
        if rest.startswith(raw) or rest.startswith(chr(int(piece[1:3], 16))):
            return "left-raw"
        if _TRIPLET.match(rest):
            return "other-bytes"
        return "changed"
    if _TRIPLET.match(rest) and rest[1:3].upper() == f"{ord(piece[0]):02X}":
        return "encoded"  # the byte the reference leaves raw, percent-encoded
    return "changed"


def _text_difference(units: str | bytes, pieces: Sequence[str], actual: str,
                     start: int = 0) -> tuple[str, str, int] | None:
    """(unit class, shape, offset in ``actual`` after the matched prefix) of the first
    unit whose piece ``actual`` does not continue with, from offset ``start``; None
    if every piece matches (then ``actual`` may still go on: see callers)."""
    offset = start
    for index, piece in enumerate(pieces):
        if actual.startswith(piece, offset):
            offset += len(piece)
            continue
        shape = _unit_shape(units[index : index + 1], piece, actual[offset:])
        return _shape_unit(shape, piece, _unit_class(units, index)), shape, offset
    return None


# --- per question ----------------------------------------------------------------------
def _common_prefix(expected: str, actual: str) -> int:
    """Length of the common prefix, backed up to the start of a ``%HH`` triplet of
    either output that it cuts (``%7`` of ``%7E`` against ``%7e``; the ``%`` of a
    ``%25`` against a raw ``%``)."""
    common = first_difference(expected, actual)
    for back in (1, 2):
        start = common - back
        if start >= 0 and (_TRIPLET.match(expected, start) or _TRIPLET.match(actual, start)):
            return start
    return common


def unit_difference(case: EncodeCase, index: int, pairs: Sequence[tuple[str, str]],
                    surrogates: str = "strict") -> str:
    """The encode class when unit ``index`` of ``case.value`` is known to be where the
    outputs part. ``pairs`` are (expected, actual) outputs for ``value[: index + 1]``
    -- as answered, and with the registry's accepted differences taken out -- and the
    one that agrees longest locates the difference (an accepted rewrite elsewhere in
    the output must not hide where the bug shows); on a tie, the first. When the
    outputs part inside the output of an earlier unit (``%41`` written back as is,
    seen only once the ``1`` arrives), that earlier unit is named."""
    value = case.value
    expected, actual = max(pairs, key=lambda pair: _common_prefix(*pair))
    common = _common_prefix(expected, actual)
    piece, rest = expected[common:], actual[common:]
    legacy = isinstance(value, str) and not lookup(case.encoding).is_utf8
    if not piece:
        unit, shape = "end", "extra-output"
    else:
        reference = _reference_of(case, index, surrogates)
        offset = None
        if expected == reference:
            offset = common
        elif reference is not None and reference.endswith(piece):
            # reconciled before the difference only (an accepted '%7a' written 'z'):
            # what differs is the reference's own tail, so its unit is named, as on
            # the input without the accepted part
            offset = len(reference) - len(piece)
        # else the outputs were reconciled where they part (an accepted entry, a known
        # finding: a TAB removed before a raw U+0080), and their offsets are not the
        # reference's: the last unit, the one that showed the difference, is named
        if offset is not None:
            at = _unit_at(case, offset=offset, last=index, surrogates=surrogates)
            # and so it is where a prefix's output is not the start of the whole's (a
            # stateful encoder returns to ASCII at the end: ISO-2022-JP's "ESC ( B"
            # after the space of '\u2261a\u00a5 a \u2015' made the space the unit)
            if reference is not None and reference.startswith(
                    _reference_of(case, at, surrogates) or "\x00"):
                index = at
        shape = _unit_shape(value[index : index + 1], piece, rest, legacy=legacy)
        unit = _shape_unit(shape, piece, _unit_class(value, index))
    name = lookup(case.encoding).name
    suffix = f";enc={name}" if legacy and unit == "non-ascii" else ""
    return f"unit={unit};diff={shape}{suffix}"


def _reference_of(case: EncodeCase, index: int, surrogates: str) -> str | None:
    """The reference's output for ``value[: index + 1]`` (None: it refuses it)."""
    try:
        return percent_encode(case.value[: index + 1], case.set_name,  # type: ignore[arg-type]
                              encoding=case.encoding, space_as_plus=case.space_as_plus,
                              surrogates=surrogates)  # type: ignore[arg-type]
    except PctfuzzError:
        return None


def _unit_at(case: EncodeCase, *, last: int, offset: int, surrogates: str) -> int:
    """The unit (at most ``last``) whose reference output covers output ``offset``:
    the first ``j`` with ``len(encode(value[: j + 1])) > offset``, by bisection (the
    output's length only grows with the input)."""
    def length(end: int) -> int:
        try:
            return len(percent_encode(case.value[:end], case.set_name, encoding=case.encoding,
                                      space_as_plus=case.space_as_plus,
                                      surrogates=surrogates))  # type: ignore[arg-type]
        except PctfuzzError:
            return offset + 1  # a refused prefix: no earlier unit can be named
    low, high = 0, last  # length(low + 1) may be <= offset; length(high + 1) > offset
    while low < high:
        middle = (low + high) // 2
        if length(middle + 1) > offset:
            high = middle
        else:
            low = middle + 1
    return low


def _shape_unit(shape: str, piece: str, unit: str) -> str:
    """The unit part of a class. Some shapes name their byte themselves: lowercase hex
    is one bug whichever byte shows it (``*``); space written the other way is 0x20;
    an ASCII byte encoded although the set leaves it raw, or left raw although the set
    encodes it, is that byte, whichever input produced it (``~``, or ``‾`` in
    Shift_JIS; ``<``, or an existing ``%3C`` decoded)."""
    if shape == "hex-case":
        return "*"
    if shape in ("space-as-plus", "space-as-%20"):
        return "0x20"
    if shape == "encoded" and piece and ord(piece[0]) < 0x80:
        return f"0x{ord(piece[0]):02X}"
    if shape == "left-raw":
        byte = int(piece[1:3], 16)
        if byte == 0x25 and unit == "pct-triplet":
            return unit  # an existing %HH kept as it is: its own bug (requoting)
        if byte < 0x80:
            return f"0x{byte:02X}"  # the byte left raw, whatever wrote it
    return unit


def _encode_class(case: EncodeCase, expected: str, actual: str, surrogates: str) -> str:
    plus = case.space_as_plus
    pieces = _encode_pieces(case, case.value, case.set_name, plus, surrogates)
    found = _text_difference(case.value, pieces, actual)
    if found is None:
        unit, shape = "end", "extra-output" if len(actual) > len(expected) else "changed"
    else:
        unit, shape, _ = found
    name = lookup(case.encoding).name
    legacy = (f";enc={name}" if isinstance(case.value, str) and name != "UTF-8"
              and unit == "non-ascii" else "")
    return f"unit={unit};diff={shape}{legacy}"


#: The characters whose escape is a decode segment of its own (``pct-0x2F``), in either
#: hex case: each delimiter (``accept.impact.DELIMITERS``) and the dot of a dot segment.
#: ``%2F`` read as a path's ``/`` and ``%2e`` read as ``.`` (a ``..`` segment removed
#: after decoding: a path traversal's bypass) are two behaviours, and neither is one
#: with a harmless letter's escape (``pct-letters``) nor with the raw character's.
ESCAPED_APART = DELIMITERS + "."


def _decode_segments(value: str | bytes) -> list[tuple[str, bytes]]:
    """(segment class, input bytes) of percent-decode's input, in order."""
    if isinstance(value, str):
        data = bytearray()
        marks: list[tuple[int, str]] = []  # byte offset -> class, for non-ASCII chars
        for char in value[:_MAX_UNITS]:
            code = ord(char)
            if 0xD800 <= code <= 0xDFFF:
                marks.append((len(data), "lone-surrogate"))
                data += "\ufffd".encode()
            elif code >= 0x80:
                marks.append((len(data), "non-ascii"))
                data += char.encode()
            else:
                data.append(code)
        raw = bytes(data)
        special = dict(marks)
    else:
        raw, special = value[:_MAX_UNITS], {}
    segments: list[tuple[str, bytes]] = []
    i = 0
    while i < len(raw):
        byte = raw[i]
        if i in special:
            size = 3 if special[i] == "lone-surrogate" else len(
                chr(_first_char(raw, i)).encode())
            segments.append((special[i], raw[i : i + size]))
            i += size
        elif byte == 0x25 and len(raw) >= i + 3 and raw[i + 1] in _HEX and raw[i + 2] in _HEX:
            hexdigits = raw[i + 1 : i + 3]
            code = int(hexdigits, 16)
            kind = (f"pct-0x{code:02X}" if chr(code) in ESCAPED_APART else
                    "pct-lower" if any(0x61 <= b <= 0x66 for b in hexdigits) else
                    "pct-upper" if any(0x41 <= b <= 0x46 for b in hexdigits) else "pct-digits")
            segments.append((kind, raw[i : i + 3]))
            i += 3
        else:
            kind = (_invalid_escape(raw, i) if byte == 0x25 else "plus" if byte == 0x2B else
                    "alnum" if chr(byte).isalnum() and byte < 0x80 else
                    f"0x{byte:02X}" if byte < 0x80 else "non-ascii")
            segments.append((kind, raw[i : i + 1]))
            i += 1
    return segments


#: The segments of a ``%`` that starts no escape (URL 1.3: it is data), by what follows
#: it: one hex digit (``%a`` then a non-hex character or the end: a decoder that reads
#: the digit alone as a byte), or none (``%``, ``%zz``, ``%+1``: one that reads a sign
#: or a space there). ``pct-invalid`` names both once ``checks.generalize`` has checked
#: that the code does alike to both (a decoder writing ``?`` for every bad escape).
INVALID_ESCAPES = ("pct-short", "pct-nonhex")


def _invalid_escape(raw: bytes, i: int) -> str:
    """The segment kind of the ``%`` at ``raw[i]`` that starts no escape."""
    return "pct-short" if i + 1 < len(raw) and raw[i + 1] in _HEX else "pct-nonhex"


def _is_escape(kind: str) -> bool:
    """A segment kind of a valid ``%HH``, three units long."""
    return kind.startswith("pct-") and kind not in INVALID_ESCAPES


def _segment_part(kind: str) -> str:
    """A segment kind as a class part: ``seg=KIND``, or ``unit=0xHH`` for an ASCII
    character that is no letter or digit, which widens as an encoder's unit does
    (``checks.generalize``): a decoder that ends its output at ``#`` and one that drops
    a TAB are two behaviours, a delimiter never one with a harmless character."""
    return f"unit={kind}" if kind.startswith("0x") else f"seg={kind}"


def _first_char(data: bytes, index: int) -> int:
    """The code point of the UTF-8 sequence at ``data[index]`` (valid by construction)."""
    lead = data[index]
    size = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return ord(data[index : index + size].decode("utf-8"))


def _decode_shape(kind: str, segment: bytes, piece: bytes, rest: bytes) -> str:
    if not rest:
        return "missing-output"
    if _is_escape(kind) and rest.startswith(segment):
        return "not-decoded"
    if kind == "plus" and rest.startswith(b" "):
        return "plus-as-space"
    return "changed"


def _decode_class(value: str | bytes, expected: bytes, actual: bytes) -> str:
    segments = _decode_segments(value)
    as_text = b"".join(percent_decode(s) for _k, s in segments).decode("utf-8", "replace")
    if _REPLACED in actual and is_valid_utf8(actual) and (
            not is_valid_utf8(expected) or expected == as_text.encode()):
        # A decoder answering text with U+FFFD in it (``expected`` the reference's
        # bytes, or them read as UTF-8 by a ``replacement`` entry in force): compared
        # as the text the bytes are. As bytes, a U+FFFD, whose first byte is EF,
        # matched the escape %EF and put the difference on a different unit than after
        # %C3. As bytes still when the text shows no difference.
        klass = _decode_text_class(segments, actual.decode("utf-8"))
        if klass is not None:
            return klass
    offset = 0
    kept = None  # (the first escape the answer goes on with as written, if it is of a '%')
    for kind, segment in segments:
        piece = percent_decode(segment)
        if kept is None and piece == b"%" and actual.startswith(segment, offset):
            kept = kind
        if actual.startswith(piece, offset):
            offset += len(piece)
            continue
        return f"{_segment_part(kind)};diff={_decode_shape(kind, segment, piece, actual[offset:])}"
    if kept is not None and len(actual) > len(expected):
        # A '%25' kept as written goes on as its '%' would: the answer is longer, and
        # the escape is what was not decoded (an answer read as "more at the end" named
        # every decoder keeping escapes by the '%' case alone).
        return f"{_segment_part(kept)};diff=not-decoded"
    return "seg=end;diff=" + ("extra-output" if len(actual) > len(expected) else "changed")


#: U+FFFD as UTF-8: an answer holding it is text, its invalid UTF-8 replaced.
_REPLACED = "\ufffd".encode()


def _decode_text_class(segments: list[tuple[str, bytes]], actual: str) -> str | None:
    """The decode class of a text answer against the reference's bytes read as UTF-8
    (Encoding Standard 4.1 "UTF-8 decode": one U+FFFD per maximal invalid subpart): the
    first segment whose text the answer does not go on with. The U+FFFD of an
    incomplete sequence shows only when the next segment ends it; matched there first,
    it belongs to the segments before (``%C3a`` answered U+FFFD has lost the ``a``:
    ``missing-output`` at ``a``). None when the texts agree."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    offset = 0
    for kind, segment in segments:
        pending = bool(decoder.getstate()[0])
        piece = decoder.decode(percent_decode(segment))
        if pending and piece.startswith("\ufffd") and actual.startswith("\ufffd", offset):
            piece, offset = piece[1:], offset + 1  # (the sequence before, ended here)
        if actual.startswith(piece, offset):
            offset += len(piece)
            continue
        shape = _decode_shape(kind, segment, piece.encode("utf-8"),
                              actual[offset:].encode("utf-8", "surrogatepass"))
        return f"{_segment_part(kind)};diff={shape}"
    rest = decoder.decode(b"", final=True)
    if actual[offset:] == rest:
        return None
    if segments and actual.startswith(rest + "\ufffd", offset):
        # (U+FFFD then more: the last segment's text, begun with a U+FFFD as the answer
        # goes on, is where it parts, not the end of an input the answer adds to)
        return f"{_segment_part(segments[-1][0])};diff=extra-output"
    return "seg=end;diff=" + ("extra-output" if len(actual) > offset + len(rest) else "changed")


def _form_class(case: FormCase, expected: str, actual: str, surrogates: str) -> str:
    offset = 0
    for index, (name, value) in enumerate(case.pairs):
        if index:
            if not actual.startswith("&", offset):
                return "field=separator;unit=0x26;diff=" + (
                    "missing-output" if offset >= len(actual) else "changed")
            offset += 1
        for field_name, text in (("name", name), ("value", value)):
            if field_name == "value":
                if not actual.startswith("=", offset):
                    return "field=separator;unit=0x3D;diff=" + (
                        "missing-output" if offset >= len(actual) else "changed")
                offset += 1
            sub = EncodeCase(text, FORM.name, case.encoding, True)
            pieces = _encode_pieces(sub, text, FORM.name, True, surrogates)
            found = _text_difference(text, pieces, actual, offset)
            if found is not None:
                unit, shape, _ = found
                return f"field={field_name};unit={unit};diff={shape}"
            offset += sum(map(len, pieces))
    return "field=end;unit=end;diff=" + (
        "extra-output" if len(actual) > len(expected) else "changed")


def _common_suffix(expected: str, actual: str) -> int:
    """Length of the common suffix, cut back to the end of a ``%HH`` triplet of either
    output that it would split."""
    common = 0
    for a, b in zip(reversed(expected), reversed(actual), strict=False):
        if a != b:
            break
        common += 1
    for cut in range(common, max(common - 3, -1), -1):
        start_e, start_a = len(expected) - cut, len(actual) - cut
        inside = any(_TRIPLET.match(text, start - back) for text, start in
                     ((expected, start_e), (actual, start_a)) for back in (1, 2)
                     if start - back >= 0 and start < len(text))
        if not inside:
            return cut
    return 0


def form_shape(expected: str, actual: str) -> str:
    """How a serialization differs from the reference's, where it first does: the text
    between the common prefix and suffix (``%HH`` kept whole) of each. A difference
    that adds or drops a ``&``-separated pair is ``missing-pair``/``extra-pair``."""
    start = _common_prefix(expected, actual)
    expected_rest, actual_rest = expected[start:], actual[start:]
    end = _common_suffix(expected_rest, actual_rest)
    piece = expected_rest[: len(expected_rest) - end]
    got = actual_rest[: len(actual_rest) - end]
    if "&" in piece + got and expected.count("&") != actual.count("&"):
        return "missing-pair" if expected.count("&") > actual.count("&") else "extra-pair"
    if not piece:
        return "extra-output"
    if not got:
        return "missing-output"
    if piece.upper() == got.upper() and _TRIPLET.match(piece):
        return "hex-case"
    if piece == "+" and got == "%20":
        return "space-as-%20"
    if piece == "%20" and got == "+":
        return "space-as-plus"
    if _left_raw(piece, got):
        return "left-raw"
    if len(piece) == 1 and _TRIPLET.fullmatch(got) and int(got[1:3], 16) == ord(piece):
        return "encoded"
    return "changed"


def _left_raw(piece: str, got: str) -> bool:
    """The reference's ``piece`` of a serialization, written as ``got``, is a character
    left raw: ``got`` is what ``piece``'s escapes decode to (a non-ASCII character's
    UTF-8 bytes, each ``%HH``: a serializer writing names raw was ``changed`` for one),
    or a space where the reference writes ``+``."""
    if piece == "+":
        return got == " "
    if not PERCENT_ENCODED_RUN.fullmatch(piece):
        return False
    try:
        return percent_decode(piece.encode("ascii")).decode("utf-8") == got
    except UnicodeDecodeError:
        return False


def form_difference(case: FormCase, field: str, index: int, length: int,
                    expected: str, actual: str) -> str:
    """The form class when pair ``index`` of ``case``, cut to its first ``length``
    characters of ``field`` (``pair``: the pair empty), is where the serializations
    part: ``expected`` and ``actual`` are those of the case cut there (the pairs before
    it whole). The unit is the last character of the cut (``empty-pair`` for an empty
    pair), as encode names the last unit of its shortest differing prefix; a ``&``
    written otherwise is the separator."""
    shape = form_shape(expected, actual)
    start = _common_prefix(expected, actual)
    if index and expected[start:start + 1] == "&" and actual[start:start + 1] not in "&":
        return "field=separator;unit=0x26;diff=changed"  # another separator
    if field == "pair":
        return f"field=pair;unit=empty-pair;diff={shape}"
    text = case.pairs[index][0 if field == "name" else 1]
    # a cut that ends an escape ("%4" agrees, "%41" not) is the escape's difference,
    # as encode names a "%" that starts "%HH": not its last hex digit's
    at = length - 3 if length >= 3 and _unit_class(text[:length], length - 3) == "pct-triplet" \
        else length - 1
    return f"field={field};unit={_unit_class(text, at)};diff={shape}"


_LAST_ESCAPE = re.compile(f"%({HEX_PAIR})\\Z")


def writings(char: str) -> dict[str, str]:
    """The ways a form parser's input writes the ASCII ``char`` (URL 5.1 step 3.4: a
    ``+`` is a space, then percent-decode): ``raw``, ``escaped`` (``%HH``) and, for a
    space, ``plus``. A raw ``%``, ``&``, ``=`` or ``+`` means something else, so those
    are written escaped only."""
    escaped = f"%{ord(char):02X}"
    if char == " ":
        return {"raw": " ", "plus": "+", "escaped": escaped}
    if char in "%&=+":
        return {"escaped": escaped}
    return {"raw": char, "escaped": escaped}


#: A form-parse class's ``written=`` part: how its unit's character was written, where
#: it can be written more than one way (``writings``). No such part: however written
#: (``checks.generalize`` checked the other ways give the same class).
WRITTEN = re.compile(r";written=[a-z]+(?=;|$)")


def without_written(klass: str) -> str:
    """``klass`` without its ``written=`` part: the class of its unit however written."""
    return WRITTEN.sub("", klass)


def _written_unit(text: str) -> str:
    """``_parse_unit`` of ``text``'s last unit and, for an ASCII character that can be
    written more than one way, how it was: ``0x5B;written=raw``. A raw ``[`` and a
    ``%5B`` may be two behaviours (a parser reading raw brackets as an array index, and
    another bug in its decoding): located so, and widened to ``0x5B`` only where the
    other ways were checked to give the same class (``checks.generalize``)."""
    unit = _parse_unit(text)
    if not unit.startswith("0x") or len(writings(chr(int(unit, 16)))) < 2:
        return unit
    written = "escaped" if _LAST_ESCAPE.search(text) else "plus" if text.endswith("+") \
        else "raw"
    return f"{unit};written={written}"


def _parse_unit(text: str) -> str:
    """The class of the last unit of a form parser's input (str; bytes read as
    Latin-1): the character it decodes to, however written -- ``0xHH`` for ASCII (a
    ``+`` is a space, ``%HH`` its byte), ``non-ascii``, ``lone-surrogate`` -- or
    ``pct-invalid`` for a ``%`` (that no two hex digits follow yet)."""
    escape = _LAST_ESCAPE.search(text)
    if escape is not None:
        byte = int(escape.group(1), 16)
        return f"0x{byte:02X}" if byte < 0x80 else "non-ascii"
    code = ord(text[-1])
    if code == 0x25:  # (a "%" then one hex digit: the digit is the unit)
        return "pct-invalid"
    if code == 0x2B:
        return "0x20"
    if 0xD800 <= code <= 0xDFFF:
        return "lone-surrogate"
    return f"0x{code:02X}" if code < 0x80 else "non-ascii"


def form_parse_difference(text: str | bytes, expected: Any, actual: Any) -> str:
    """The form-parse class when ``text``, the shortest prefix of the input whose
    parses differ, ends where they part: the field its last ``&``-separated sequence
    ends in (``name`` before a ``=``, else ``value``), the character its last unit
    decodes to (``_parse_unit``: a parser that strips a space does so whether it came
    as `` ``, ``+`` or ``%20``) with how it was written (``_written_unit``) and the
    shape: ``missing-pair``/``extra-pair``, else the first differing field's
    (``_field_shape``). A raw
    ``&`` or ``=`` there is ``field=separator`` with any shape."""
    chars = text.decode("latin-1") if isinstance(text, bytes) else text
    unit = _parse_unit(chars)
    sequence = chars[chars.rfind("&") + 1:]
    field = "value" if "=" in sequence[:-1] else "name"
    if unit in ("0x26", "0x3D") and not _LAST_ESCAPE.search(chars):
        # The delimiter itself, as written: one finding whatever the pairs around it
        # make of the answers ('&' not separating was a pair missing after a name, a
        # name longer without one: two findings); each delimiter its own.
        return f"field=separator;unit={unit};diff=any"
    unit = _parted_at(sequence, field, expected, actual, isinstance(text, bytes)) \
        or _written_unit(chars)
    return f"field={field};unit={unit};diff={pairs_shape(expected, actual)}"


#: The class of a form answer that holds the reference's pairs in another order,
#: whatever units the pairs hold (``reordered``).
REORDERED = "field=pairs;unit=any;diff=reordered"


def reordered(expected: Any, actual: Any) -> bool:
    """The answer holds each of the reference's pairs as often, in another order: a
    serializer's ``&``-separated segments, a parser's pairs. Its shape is the order
    alone, so it is no unit's: a serializer that sorts by a key no order rule models
    was one finding per kind of character where two sorted pairs first differ (a
    tuning serializer that sorts each name's values: 5 findings in a 60 s campaign).
    A serializer's segments are compared as they decode (their bytes, '+' a space),
    so its own spelling beside the order (``~`` raw, ``%20``) is no unit's either: a
    hold-out serializer's sort met through pairs it also spells its own way was a
    finding per kind of unit where the two first differed."""
    if isinstance(expected, str) and isinstance(actual, str):
        want, got = expected.split("&"), actual.split("&")
        if sorted(want) != sorted(got):
            def decoded(segments: list[str]) -> list[str]:
                return [repr(percent_decode(surrogates_to_fffd(seg).replace("+", " ")))
                        for seg in segments]
            want, got = decoded(want), decoded(got)
    elif isinstance(expected, list) and isinstance(actual, list):
        if not all(isinstance(p, tuple | list) for p in (*expected, *actual)):
            return False
        want, got = [repr(tuple(p)) for p in expected], [repr(tuple(p)) for p in actual]
    else:
        return False
    return want != got and sorted(want) == sorted(got)


#: The class of a form parse that reads a pair's name as an earlier pair's
#: (``last_name_merged``), whatever units make the two names differ.
MERGED_NAMES = "field=name;unit=any;diff=merged"
#: A form parser's class of a difference its pairs make together: the last pair alone
#: is read right, beside the earlier ones it is not (``checks.locate``); the shape
#: (``pairs_shape``) follows.
BESIDE_EARLIER = "field=pair;unit=earlier-pair;diff="


def last_name_merged(expected: Any, actual: Any) -> bool:
    """Whether a form parse may have read the last pair's name as an earlier pair's:
    the reference reads a name of its own there, which the answer lacks, and the answer
    holds an earlier name more often than the reference (``checks.locate`` then asks
    the implementation: that pair alone, or renamed, is read right). A parser that keys
    its pairs by a loose comparison (Mono's NameValueCollection ignores U+07FF, NUL and
    more) merges names whatever units make them differ: it was a finding per unit that
    ended the shortest prefix showing it."""
    if not (isinstance(expected, list) and isinstance(actual, list)) or len(expected) < 2:
        return False
    if not all(isinstance(pair, tuple | list) and len(pair) == 2 for pair in actual):
        return False
    wanted = expected[-1][0]
    earlier = [pair[0] for pair in expected[:-1]]
    answered = [pair[0] for pair in actual]
    return (wanted not in earlier and wanted not in answered
            and any(answered.count(name) > earlier.count(name) for name in set(earlier)))


def _parted_at(sequence: str, field: str, expected: Any, actual: Any,
               of_bytes: bool) -> str | None:
    """The class (``_parse_unit``) of the unit of the last ``sequence``'s ``field`` where
    the two texts of that field part, when it is before the field's last unit; None
    otherwise. The last unit of a shortest differing prefix may be what sets the
    parser's code path off, not what it gets wrong: a parser that decodes only a field
    holding a ``%``, and then writes a raw U+0080 as U+FFFD, parts at the U+0080 of
    U+0080 ``%`` and of ``%`` U+0080 alike (one finding, not one per order)."""
    if not (isinstance(expected, list) and isinstance(actual, list)) or not expected \
            or len(expected) != len(actual):
        return None
    got = actual[-1]
    if not isinstance(got, tuple | list) or len(got) != 2:
        return None
    index = 1 if field == "value" else 0
    wanted, answered = expected[-1][index], str(got[index])
    if wanted == answered:
        return None
    position = first_difference(wanted, answered)
    raw = sequence.partition("=")[2] if field == "value" else sequence.partition("=")[0]
    end = 0
    while end < len(raw):
        end = _char_end(raw, end)
        if len(_field_text(raw[:end], of_bytes)) > position:
            if end == len(raw) or _parse_unit(raw[:end]) == "pct-invalid":
                # (a '%' parts by what follows it: "%a" read as a byte is the "a"'s)
                return None
            # That unit's answer alone differs: the texts go on alike after it (not a
            # name answered as a value, parted at its first unit), a lone surrogate
            # answered as U+FFFD as the non-scalar policy holds it (a parser writing
            # the astral characters of a field holding one as code units parted at
            # the astral one before the surrogate and after it: two findings).
            rest = _field_text(raw[end:], of_bytes)
            alike = wanted.endswith(rest) and surrogates_to_fffd(answered).endswith(rest)
            return _written_unit(raw[:end]) if alike else None
    return None


def _char_end(raw: str, start: int) -> int:
    """Where the unit of a raw field at ``start`` ends: after one character, or one
    escape, or the escapes of one UTF-8 sequence (a lead byte and as many continuation
    bytes as it calls for: an astral character is four escapes, one unit)."""
    if not _TRIPLET.match(raw, start):
        return start + 1
    lead = int(raw[start + 1:start + 3], 16)
    length = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else \
        4 if 0xF0 <= lead <= 0xF4 else 1
    end = start + 3
    while length > 1 and _TRIPLET.match(raw, end) and 0x80 <= int(raw[end + 1:end + 3], 16) <= 0xBF:
        end, length = end + 3, length - 1
    return end if length == 1 else start + 3


def _field_text(raw: str, of_bytes: bool) -> str:
    """A raw name or value as the form parser reads it (URL 5.1 step 3.4: ``+`` a
    space, percent-decoded, UTF-8 decoded); ``of_bytes``: ``raw`` is bytes read as
    latin-1, one character a byte."""
    part = raw.replace("+", " ")
    data = part.encode("latin-1") if of_bytes else surrogates_to_fffd(part).encode()
    return percent_decode(data).decode("utf-8", "replace")


def pairs_shape(expected: Any, actual: Any) -> str:
    if not isinstance(actual, list) or not isinstance(expected, list):
        return "changed"
    if len(actual) != len(expected):
        return "missing-pair" if len(actual) < len(expected) else "extra-pair"
    for want, got in zip(expected, actual, strict=True):
        if not isinstance(got, tuple | list) or len(got) != 2:
            return "changed"
        for wanted, answered in zip(want, got, strict=True):
            if wanted != answered:
                return _field_shape(str(wanted), str(answered))
    return "changed"


def _field_shape(wanted: str, answered: str) -> str:
    """How a parsed field differs from the reference's, between their common start and
    end: nothing answered there is ``missing-output``, nothing wanted ``extra-output``,
    the escapes of what is wanted (or a ``+`` for a space) ``not-decoded``, else
    ``changed`` (a character replaced by a shorter text, ``é`` as ``?``, was
    ``missing-output`` when the shape was read off the lengths alone, and an escape kept
    as written ``extra-output``)."""
    start = first_difference(wanted, answered)
    end = 0
    while end < min(len(wanted), len(answered)) - start and \
            wanted[len(wanted) - 1 - end] == answered[len(answered) - 1 - end]:
        end += 1
    # (the common end never splits an escape answered as written: '%35' for '5')
    while end and any(_TRIPLET.match(answered, len(answered) - end - back)
                      for back in (1, 2) if len(answered) - end - back >= start):
        end -= 1
    if len(answered) - end == start:
        return "missing-output"
    if len(wanted) - end == start:
        return "extra-output"
    kept = answered[start:len(answered) - end]
    if (kept == "+" or PERCENT_ENCODED_RUN.fullmatch(kept)) and wanted[start:len(wanted) - end] == \
            percent_decode(kept.replace("+", " ").encode("ascii")).decode("utf-8", "replace"):
        return "not-decoded"  # (its escapes, or a '+', answered as written)
    return "changed"


def _field_segment(raw: bytes, expected: str, actual: str, is_value: bool) -> str:
    """The class of the segment of one raw field where the decoded texts part."""
    segments = _decode_segments(raw[:_MAX_UNITS])
    index = _field_index(segments, expected, actual)
    if index == len(segments):
        return "end"
    kind, segment = segments[index]
    return "equals" if is_value and segment == b"=" else kind


def _form_parse_class(case: FormParseCase, expected: list[tuple[str, str]],
                      actual: Any) -> str:
    if not isinstance(actual, list):
        return "field=pairs;diff=changed"
    # the sequences as the parser split them (URL 5.1 steps 1-3.3), the text as the
    # USVString it is given (a lone surrogate as U+FFFD)
    text = case.text
    sequences = form_sequences(surrogates_to_fffd(text).encode() if isinstance(text, str)
                               else text)
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want == got:
            continue
        name, value = sequences[index] if index < len(sequences) else (b"", b"")
        if not isinstance(got, tuple | list) or len(got) != 2:
            return "field=pairs;diff=changed"
        # the shape as the located class names it (``form_parse_difference``), so a
        # known finding's class names an input's whether it was located or not
        shape = pairs_shape(expected, actual)
        if want[0] != got[0]:
            part = _segment_part(_field_segment(name, want[0], str(got[0]), False))
            return f"field=name;{part};diff={shape}"
        part = _segment_part(_field_segment(value, want[1], str(got[1]), True))
        return f"field=value;{part};diff={shape}"
    if len(actual) < len(expected):
        return "field=pairs;diff=missing-pair"
    if len(actual) > len(expected):
        return "field=pairs;diff=extra-pair"
    return "field=pairs;diff=changed"


# --- what surrounds the unit where two answers part -----------------------------------------
def difference_context(question: str, case: Case, expected: object, actual: object) -> str | None:
    """What surrounds the unit of a decoder's or form parser's input where the answers
    part, read off them alone (no call): the coarse kinds (``_coarse``) of the units
    before and after it (in its field, for a form parser), ``before|after``; None for
    other questions and for an answer of another type. Two behaviours can part from the
    reference at units of one class -- a ``%`` that starts no escape, written ``?`` by
    one code path and read as a signed number where a ``+`` follows it by another
    (hold-out 11's ``int()`` decoder) --: a known class's hit in a context new to it is
    asked of the catalogue (``checks.known``)."""
    if question == DECODE.name and isinstance(case, DecodeCase) and isinstance(actual, bytes) \
            and isinstance(expected, bytes):
        segments = _decode_segments(case.value)
        offset = 0
        for index, (_kind, segment) in enumerate(segments):
            piece = percent_decode(segment)
            if not actual.startswith(piece, offset):
                return _around(segments, index)
            offset += len(piece)
        return None
    if question == FORM_PARSE.name and isinstance(case, FormParseCase) \
            and isinstance(expected, list) and isinstance(actual, list):
        text = case.text
        sequences = form_sequences(surrogates_to_fffd(text).encode() if isinstance(text, str)
                                   else text)
        for (want, got), (name, value) in zip(zip(expected, actual, strict=False), sequences,
                                              strict=False):
            if want == got or not isinstance(got, tuple | list) or len(got) != 2:
                continue
            raw, wanted, answered = (name, want[0], got[0]) if want[0] != got[0] else (
                value, want[1], got[1])
            segments = _decode_segments(raw[:_MAX_UNITS])
            return _around(segments, _field_index(segments, wanted, str(answered)))
    return None


def _around(segments: list[tuple[str, bytes]], index: int) -> str:
    """``before|after``: the coarse kinds of the segments beside ``segments[index]``."""
    before = _coarse(segments[index - 1][0]) if 0 < index <= len(segments) else "start"
    after = _coarse(segments[index + 1][0]) if index + 1 < len(segments) else "end"
    return f"{before}|{after}"


def _coarse(kind: str) -> str:
    """A segment kind (``_decode_segments``) as few kinds as tell contexts apart: a valid
    escape of a plain character ``pct``, a raw ASCII character that is no letter or digit
    by its group (``control``, ``printable``) unless it is a delimiter or the space (its
    own), the rest as they are."""
    if kind in ("pct-upper", "pct-lower", "pct-digits"):
        return "pct"
    if kind.startswith("0x"):
        code = int(kind, 16)
        return kind if chr(code) in DELIMITERS + " " else \
            "control" if code < 0x20 or code == 0x7F else "printable"
    return kind


def _field_index(segments: list[tuple[str, bytes]], expected: str, actual: str) -> int:
    """The index of the segment of one raw field where the decoded texts part (its
    number of segments when none does)."""
    position = first_difference(expected, actual)
    decoded = b""
    for index, (_kind, segment) in enumerate(segments):
        decoded += percent_decode(segment.replace(b"+", b" "))
        if len(decoded.decode("utf-8", "replace")) > position:
            return index
    return len(segments)


# --- the last unit of a located difference, and what comes before it ----------------------
def last_unit(case: Case) -> tuple[int, str, str] | None:
    """The last unit of a decoder's or a form parser's input, where a located difference
    (the shortest differing prefix) ends: (its start in the text, its class part as the
    class names it, the context before it). The context is ``invalid-utf8`` when the
    bytes before it (in its field, for a form parser) end in invalid UTF-8,
    ``start`` when nothing is before it, else the character the unit before it decodes
    to (``0xHH``, ``non-ascii``, ``pct-invalid``, ``lone-surrogate``). None for other
    cases, and for a form parser's ``&`` or ``=`` (a separator is its own behaviour)."""
    if isinstance(case, DecodeCase) and case.value:
        segments = _decode_segments(case.value[-_MAX_UNITS:])
        kind, segment = segments[-1]
        size = 3 if _is_escape(kind) else len(segment) if isinstance(case.value, bytes) else 1
        before = b"".join(percent_decode(s) for _k, s in segments[:-1])
        previous = segments[-2][0] if len(segments) > 1 else None
        context = ("start" if previous is None else
                   "pct-invalid" if previous in INVALID_ESCAPES else
                   previous if previous == "lone-surrogate" else
                   f"0x{before[-1]:02X}" if before[-1] < 0x80 else "non-ascii")
        return len(case.value) - size, _segment_part(kind), _invalid_end(before) or context
    if isinstance(case, FormParseCase) and case.text:
        text = case.text.decode("latin-1") if isinstance(case.text, bytes) else case.text
        size = 3 if _LAST_ESCAPE.search(text) else 1
        start = len(text) - size
        if text[start:] in ("&", "="):
            return None
        sequence = text[text.rfind("&", 0, start) + 1:start]
        field = sequence.partition("=")[2] if "=" in sequence else sequence
        raw = (field.encode("latin-1") if isinstance(case.text, bytes) else
               surrogates_to_fffd(field).encode("utf-8"))
        before = percent_decode(raw.replace(b"+", b" "))
        context = _parse_unit(field) if field else "start"
        return start, f"unit={_parse_unit(text)}", _invalid_end(before) or context
    return None


def leading_units(case: Case, limit: int = 16) -> list[tuple[int, str, str]]:
    """The first ``limit`` units of a decoder's input, where a difference that loses
    its start is located: (each one's start in the text, its class part as a class
    names it, its kind: ``0xHH``, ``alnum``, ``pct-short``...). Empty for other
    cases."""
    if not isinstance(case, DecodeCase) or not case.value:
        return []
    units, start = [], 0
    for kind, segment in _decode_segments(case.value[:6 * limit])[:limit]:
        units.append((start, _segment_part(kind), kind))
        start += 3 if _is_escape(kind) else len(segment) if isinstance(case.value, bytes) else 1
    return units


def _invalid_end(data: bytes) -> str | None:
    """``invalid-utf8`` when ``data`` ends in invalid UTF-8 (Encoding Standard 4.1): inside
    a sequence the next bytes could still complete (``%C3``), or with a byte that
    starts or continues none (``%C0``, ``%80``); else None. A decoder that takes the
    byte after either as part of a sequence loses it after both."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    text = decoder.decode(data)
    invalid = bool(decoder.getstate()[0]) or (
        text.endswith("\ufffd") and not data.endswith("\ufffd".encode()))
    return "invalid-utf8" if invalid else None


def size_difference(question: str, case: Case, expected: object, actual: object, *,
                    size: str) -> str:
    """The class of a difference of size alone: ``case`` is a plain input (every unit
    a letter, every pair ``a<i>=b``) as large as the input that showed it, and differs,
    while a small one (two pairs, eight characters) agrees (``checks.locate``).
    ``size`` says what was kept: ``count`` (of pairs) or ``length`` (of units). Named
    ``size=<size>`` and the shape of the plain input's difference: a parser that keeps
    the first 1000 fields is one finding, whichever character the 1001st field starts
    with."""
    klass = difference(question, case, expected, actual)
    shape = next((part for part in klass.split(";") if part.startswith("diff=")), "diff=changed")
    return f"size={size};{shape}"


def difference(question: str, case: Case, expected: object, actual: object, *,
               surrogates: str = "strict") -> str:
    """The class of the difference between the reference's answer ``expected`` and the
    answer ``actual`` of the code under test to ``question`` on ``case``. An
    exception instance as ``expected`` means the reference refused the case."""
    if isinstance(expected, BaseException):
        if isinstance(actual, BaseException):
            return f"both-raised={qualified_type(actual)}"
        return "unit=lone-surrogate;diff=value-for-non-scalar"
    if question == ENCODE.name and isinstance(case, EncodeCase) and isinstance(actual, str):
        return _encode_class(case, str(expected), actual, surrogates)
    if question == DECODE.name and isinstance(case, DecodeCase) and isinstance(actual, bytes) \
            and isinstance(expected, bytes):
        return _decode_class(case.value, expected, actual)
    if question == FORM_SERIALIZE.name and isinstance(case, FormCase) and isinstance(actual, str):
        return _form_class(case, str(expected), actual, surrogates)
    if question == FORM_PARSE.name and isinstance(case, FormParseCase):
        return _form_parse_class(case, expected, actual)  # type: ignore[arg-type]
    return f"diff=wrong-type:{type(actual).__name__}"


