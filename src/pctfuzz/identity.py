"""What makes two failures the same bug: difference classes and finding signatures.

A finding's signature is one line (format version ``SIGNATURE_VERSION``)::

    <target>|<kind>|<check>|<class>[|impl=<implementation under test>]

``kind`` is ``violation``, ``divergence``, ``crash``, ``timeout`` or ``oom``; ``check``
the invariant or differential question (``-`` when none ran to completion). The
*class* says what differs, coarse enough that one bug is one finding and fine enough
that two bugs are two:

- **encode** (differential, and invariants on an ``EncodeCase``)
  ``unit=<unit>;diff=<shape>[;enc=<legacy encoding>]``. The reference's output is split per input
  unit (a character of a str, a byte of bytes); ``unit`` is the class of the first
  unit whose output the implementation does not reproduce: ``0xHH`` for an ASCII
  character (its byte value), ``pct-triplet`` for a ``%`` that starts ``%HH`` in the
  input, ``non-ascii``, ``lone-surrogate``, or ``end`` when the output goes on after
  the input is used up. ``shape``: ``left-raw`` (the set encodes it, the
  implementation does not), ``encoded`` (the reverse), ``hex-case``,
  ``space-as-plus`` / ``space-as-%20``, ``other-bytes`` (different ``%HH`` bytes, as
  a different character encoding gives), ``missing-output``, ``extra-output``,
  ``changed``. ``hex-case`` leaves the unit out (``unit=*``): lowercase hex is one
  bug whichever byte shows it. The set is *not* part of the class: an implementation
  that encodes ``~`` does so in every set that leaves it raw, and fifteen findings of
  one bug would bury the others (the finding's case names the set it was seen in).
  A non-ASCII unit of a str encoded with a legacy encoding adds ``enc=``: each
  encoder is its own code path (ASCII is the same in all of them).
- **decode** ``seg=<segment>;diff=<shape>``: the input is split into the segments
  percent-decode treats alike -- ``pct-upper``/``pct-lower``/``pct-digits`` (a valid
  ``%HH`` by the case of its hex letters), ``pct-invalid`` (``%`` without two hex
  digits), ``plus``, ``ascii``, ``non-ascii``, ``lone-surrogate`` -- and the first
  segment whose bytes the implementation does not reproduce is named, with the shape
  ``not-decoded``, ``plus-as-space``, ``missing-output``, ``extra-output`` or ``changed``.
- **form** (serializer) ``field=name|value|separator;unit=<unit>;diff=<shape>``: as
  encode, within the first field whose serialization differs.
- **form-parse** ``field=name|value;seg=<segment>;diff=changed`` for a pair that
  differs (segments as decode, plus ``equals`` for a ``=`` inside a value), or
  ``field=pairs;diff=missing-pair|extra-pair`` when one list is the other's prefix.
- **the implementation answers where the reference refuses** (a lone surrogate):
  ``unit=lone-surrogate;diff=value-for-non-scalar``.
- **crash** (either side raised unexpectedly): ``raised=<exception type>@<where>``,
  ``where`` the innermost frame of the code under test as ``module:qualname`` (no
  line number), or ``pctfuzz`` when the exception rose in pctfuzz's own code.
- **timeout / oom**: ``-`` (libFuzzer stopped the process; there is no exception).

Invariant violations carry the invariant as ``check`` and the class of the
difference between the codec under test and the reference on the same case (``-``
when their outputs agree, e.g. a determinism failure or a bug of the reference
itself). No pctfuzz module path or function name ever enters a signature, so
moving pctfuzz's code never re-identifies a finding; the raw input, messages and
line numbers never do either. Minimization keeps the whole signature, so it keeps
the class.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from pctfuzz.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz.encoding import lookup
from pctfuzz.errors import NotScalarValueError, PctfuzzError
from pctfuzz.form import form_urldecode, form_urlencode
from pctfuzz.reference import percent_decode, percent_encode
from pctfuzz.sets import FORM
from pctfuzz.violations import Divergence, Violation

__all__ = [
    "FINDING_KINDS",
    "SIGNATURE_VERSION",
    "TARGET_NAME",
    "classify",
    "difference",
    "finding_id",
    "make_signature",
    "signature_of",
    "stop_signature",
    "unit_difference",
]

#: Bumped when the signature format changes; stored in every record
#: (``signature_version``). Version 1 held pctfuzz module paths (see CHANGELOG in
#: ``docs/architecture.md``); ``pctfuzz migrate`` rewrites such records.
SIGNATURE_VERSION = 2

FINDING_KINDS = frozenset({"violation", "divergence", "crash", "timeout", "oom"})

#: A target name, as a regular expression (``re.fullmatch``, or a part of a larger
#: one): the first field of a signature and a part of file and folder names
#: (``<kind>-<target>-<id>.json``, ``corpus/<target>/``), so no ``|``, ``/`` or ``.``.
TARGET_NAME = "[A-Za-z0-9_-]+"

#: Units past this index are not examined: the class of a long unminimized input is
#: computed in bounded time (minimization brings the first difference near the start).
_MAX_UNITS = 4096

_HEX = frozenset(b"0123456789ABCDEFabcdef")
_TRIPLET = re.compile(r"%[0-9A-Fa-f]{2}")


def finding_id(signature: str) -> str:
    """The id of a signature: the first 16 hex digits of its sha256."""
    return hashlib.sha256(signature.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# --- which failure is it --------------------------------------------------------------------
def classify(exc: BaseException) -> tuple[str, str | None, BaseException]:
    """(kind, check name, exception whose traceback locates the bug) for a failure.

    A ``Divergence`` whose implementation *raised* is a crash of the implementation
    under test, located at the implementation's exception; any exception that is not a
    ``Violation`` is a crash of the reference or the check itself.
    """
    if isinstance(exc, Divergence) and exc.impl_error is not None:
        return "crash", exc.check, exc.impl_error
    if isinstance(exc, Violation):
        return exc.kind, exc.check, exc
    return "crash", None, exc


def _qualified_type(exc: BaseException) -> str:
    cls = type(exc)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _in(module: str, prefixes: Iterable[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def crash_location(exc: BaseException, code_under_test: Sequence[str]) -> str:
    """Where ``exc`` rose, as ``module:qualname`` of the innermost traceback frame in
    ``code_under_test`` (module-name prefixes), else of the innermost frame outside
    pctfuzz; ``pctfuzz`` if every frame is pctfuzz's own; ``-`` without a traceback."""
    tb: TracebackType | None = exc.__traceback__
    under_test: str | None = None
    outside: str | None = None
    seen = False
    while tb is not None:
        seen = True
        frame = tb.tb_frame
        module = frame.f_globals.get("__name__")
        module = module if isinstance(module, str) else ""
        qualname = frame.f_code.co_qualname
        if not module or module == "__main__":
            where = f"{Path(frame.f_code.co_filename).name}:{qualname}"
        else:
            where = f"{module}:{qualname}"
        if module and _in(module, code_under_test):
            under_test = where
        elif not _in(module, ("pctfuzz",)):
            outside = where
        tb = tb.tb_next
    if under_test is not None:
        return under_test
    if outside is not None:
        return outside
    return "pctfuzz" if seen else "-"


def crash_class(exc: BaseException, code_under_test: Sequence[str]) -> str:
    """``raised=<type>@<where>``: the class of a crash."""
    return f"raised={_qualified_type(exc)}@{crash_location(exc, code_under_test)}"


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


def _unit_shape(unit: str | bytes, piece: str, rest: str) -> str:
    """How the implementation's remaining output ``rest`` differs from the reference's
    ``piece`` for one input ``unit``."""
    if not rest:
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
    common = next((i for i, (a, b) in enumerate(zip(expected, actual, strict=False))
                   if a != b), min(len(expected), len(actual)))
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
    if not piece:
        unit, shape = "end", "extra-output"
    else:
        index = _unit_at(case, index, common, surrogates)
        shape = _unit_shape(value[index : index + 1], piece, rest)
        unit = _shape_unit(shape, piece, _unit_class(value, index))
    name = lookup(case.encoding).name
    legacy = (f";enc={name}" if isinstance(value, str) and name != "UTF-8"
              and unit == "non-ascii" else "")
    return f"unit={unit};diff={shape}{legacy}"


def _unit_at(case: EncodeCase, last: int, offset: int, surrogates: str) -> int:
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
            kind = ("pct-lower" if any(0x61 <= b <= 0x66 for b in hexdigits) else
                    "pct-upper" if any(0x41 <= b <= 0x46 for b in hexdigits) else "pct-digits")
            segments.append((kind, raw[i : i + 3]))
            i += 3
        else:
            kind = ("pct-invalid" if byte == 0x25 else "plus" if byte == 0x2B else
                    "ascii" if byte < 0x80 else "non-ascii")
            segments.append((kind, raw[i : i + 1]))
            i += 1
    return segments


def _first_char(data: bytes, index: int) -> int:
    """The code point of the UTF-8 sequence at ``data[index]`` (valid by construction)."""
    lead = data[index]
    size = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return ord(data[index : index + size].decode("utf-8"))


def _decode_shape(kind: str, segment: bytes, piece: bytes, rest: bytes) -> str:
    if not rest:
        return "missing-output"
    if kind.startswith("pct-") and kind != "pct-invalid" and rest.startswith(segment):
        return "not-decoded"
    if kind == "plus" and rest.startswith(b" "):
        return "plus-as-space"
    return "changed"


def _decode_class(value: str | bytes, expected: bytes, actual: bytes) -> str:
    offset = 0
    for kind, segment in _decode_segments(value):
        piece = percent_decode(segment)
        if actual.startswith(piece, offset):
            offset += len(piece)
            continue
        return f"seg={kind};diff={_decode_shape(kind, segment, piece, actual[offset:])}"
    return "seg=end;diff=" + ("extra-output" if len(actual) > len(expected) else "changed")


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


def _form_sequences(text: str | bytes) -> list[bytes]:
    """The input's non-empty ``&``-separated sequences, as the parser sees them."""
    data = re.sub("[\ud800-\udfff]", "\ufffd", text).encode() if isinstance(text, str) else text
    return [s for s in data.split(b"&") if s]


def _field_segment(raw: bytes, expected: str, actual: str, is_value: bool) -> str:
    """The class of the segment of one raw field where the decoded texts part."""
    position = next((i for i, (a, b) in enumerate(zip(expected, actual, strict=False))
                     if a != b), min(len(expected), len(actual)))
    decoded = b""
    for kind, segment in _decode_segments(raw[:_MAX_UNITS]):
        decoded += percent_decode(segment.replace(b"+", b" "))
        if len(decoded.decode("utf-8", "replace")) > position:
            return "equals" if is_value and segment == b"=" else kind
    return "end"


def _form_parse_class(case: FormParseCase, expected: list[tuple[str, str]],
                      actual: Any) -> str:
    if not isinstance(actual, list):
        return "field=pairs;diff=changed"
    sequences = _form_sequences(case.text)
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want == got:
            continue
        raw = sequences[index] if index < len(sequences) else b""
        name, _, value = raw.partition(b"=")
        if not isinstance(got, tuple | list) or len(got) != 2:
            return "field=pairs;diff=changed"
        if want[0] != got[0]:
            return f"field=name;seg={_field_segment(name, want[0], str(got[0]), False)};" \
                   "diff=changed"
        return f"field=value;seg={_field_segment(value, want[1], str(got[1]), True)};" \
               "diff=changed"
    if len(actual) < len(expected):
        return "field=pairs;diff=missing-pair"
    if len(actual) > len(expected):
        return "field=pairs;diff=extra-pair"
    return "field=pairs;diff=changed"


def difference(question: str, case: Case, expected: object, actual: object, *,
               surrogates: str = "strict") -> str:
    """The class of the difference between the reference's answer ``expected`` and the
    answer ``actual`` of the code under test to ``question`` on ``case``. An
    exception instance as ``expected`` means the reference refused the case."""
    if isinstance(expected, BaseException):
        if isinstance(actual, BaseException):
            return f"both-raised={_qualified_type(actual)}"
        return "unit=lone-surrogate;diff=value-for-non-scalar"
    if question == "encode" and isinstance(case, EncodeCase) and isinstance(actual, str):
        return _encode_class(case, str(expected), actual, surrogates)
    if question == "decode" and isinstance(case, DecodeCase) and isinstance(actual, bytes) \
            and isinstance(expected, bytes):
        return _decode_class(case.value, expected, actual)
    if question == "form" and isinstance(case, FormCase) and isinstance(actual, str):
        return _form_class(case, str(expected), actual, surrogates)
    if question == "form-parse" and isinstance(case, FormParseCase):
        return _form_parse_class(case, expected, actual)  # type: ignore[arg-type]
    return f"diff=wrong-type:{type(actual).__name__}"


# --- invariants: the codec under test against the reference -----------------------------
#: target name -> the question its cases ask.
QUESTION = {"encode": "encode", "decode": "decode", "form": "form", "form_parse": "form-parse"}


def _reference(question: str, case: Case) -> Any:
    if isinstance(case, EncodeCase):
        return percent_encode(case.value, case.set_name, encoding=case.encoding,
                              space_as_plus=case.space_as_plus)
    if isinstance(case, DecodeCase):
        return percent_decode(case.value)
    if isinstance(case, FormCase):
        return form_urlencode(case.pairs, encoding=case.encoding)
    if isinstance(case, FormParseCase):
        return form_urldecode(case.text)
    raise PctfuzzError(f"no reference answer for {type(case).__name__}")


def _codec_answer(codec: Any, case: Case) -> Any:
    if isinstance(case, EncodeCase):
        return codec.encode(case.value, case.set_name, encoding=case.encoding,
                            space_as_plus=case.space_as_plus)
    if isinstance(case, DecodeCase):
        return codec.decode(case.value)
    if isinstance(case, FormCase):
        return codec.form_encode(case.pairs, encoding=case.encoding)
    if isinstance(case, FormParseCase):
        return codec.form_decode(case.text)
    raise PctfuzzError(f"no codec answer for {type(case).__name__}")


def _answer(call: Callable[[], Any]) -> object:
    try:
        return call()
    except Exception as exc:
        return exc


def codec_difference(question: str, case: Case, codec: Any) -> str:
    """The class of the difference between ``codec`` (a ``properties.Codec``; None is
    the reference) and the reference on ``case``: ``-`` when they agree."""
    if codec is None:
        return "-"
    expected = _answer(lambda: _reference(question, case))
    actual = _answer(lambda: _codec_answer(codec, case))
    if isinstance(expected, BaseException) and isinstance(actual, BaseException):
        return "-" if type(expected) is type(actual) else f"both-raised={_qualified_type(actual)}"
    if not isinstance(expected, BaseException) and not isinstance(actual, BaseException) \
            and expected == actual:
        return "-"
    if isinstance(actual, BaseException):
        return crash_class(actual, ())
    return difference(question, case, expected, actual)


# --- signatures ----------------------------------------------------------------------------
def _clean(part: str) -> str:
    text = part if part.isprintable() else repr(part)[1:-1]
    return text[:300].replace("|", "%7C")


def make_signature(target: str, kind: str, check: str | None, klass: str,
                   impl: str | None = None) -> str:
    """The signature line from its parts (see the module docstring)."""
    if kind not in FINDING_KINDS:
        raise PctfuzzError(f"kind must be one of {sorted(FINDING_KINDS)}, not {kind!r}")
    parts = [target, kind, check or "-", klass or "-"]
    if impl:
        # The same check failing for two implementations is two bugs, not one.
        parts.append(f"impl={impl}")
    return "|".join(map(_clean, parts))


def stop_signature(target: str, kind: str, impl: str | None = None) -> str:
    """A finding for an input libFuzzer stopped on (timeout, oom, process crash): no
    exception to classify, so one such finding per target, kind and implementation."""
    return make_signature(target, kind, None, "-", impl)


def signature_of(target: str, exc: BaseException | None, *, case: Case | None = None,
                 subject: Any = None, impl: str | None = None,
                 code_under_test: Sequence[str] = (), kind: str | None = None,
                 check: str | None = None) -> str:
    """The signature of ``exc``, raised by ``target``'s check on ``case``.

    ``subject`` is what an invariant target's check ran against (a
    ``properties.Codec``; None is the reference): the class is then the difference
    between it and the reference on ``case``. A ``Divergence`` carries its class.
    ``code_under_test`` are the module prefixes whose frames locate a crash (the
    adapter's ``modules_under_test``). ``exc`` None is a stop (timeout/oom) of
    ``kind``; ``kind``/``check`` otherwise default to ``classify(exc)``'s.
    """
    if exc is None:
        return make_signature(target, kind or "crash", check, "-", impl)
    found_kind, found_check, located = classify(exc)
    kind, check = kind or found_kind, check or found_check
    if kind == "crash":
        klass = crash_class(located, code_under_test)
    elif isinstance(exc, Divergence):
        klass = exc.difference
    elif case is not None and subject is not None:
        klass = codec_difference(QUESTION.get(target, ""), case, subject)
    else:
        klass = "-"
    return make_signature(target, kind, check, klass, impl)
