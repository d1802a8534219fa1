"""The encode invariants (WHATWG URL 1.3 "percent-encode after encoding", RFC 3986 2):
output alphabet, round trip, length bound, determinism, unreserved idempotence and
concatenation, and the aggregate :func:`check_encode` the ``encode`` target runs
(monotonicity, the costliest, has a module of its own: ``monotonicity``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks.invariants.expect import (
    _HEX_BYTES,
    CONCATENATION,
    DETERMINISM,
    LENGTH_BOUND,
    OUTPUT_ALPHABET,
    ROUND_TRIP,
    UNRESERVED_IDEMPOTENCE,
    _encode,
    _Expect,
    _expect,
    check_input_domain,
)
from pctfuzz._internal.checks.invariants.monotonicity import _monotonicity
from pctfuzz._internal.oracles.codec import REFERENCE, Codec
from pctfuzz._internal.sets import UNRESERVED, PercentEncodeSet
from pctfuzz._internal.spec import ASCII_UPPER_HEX, HEX_PAIR, PERCENT_ENCODED_BYTE
from pctfuzz._internal.text import first_difference
from pctfuzz._internal.violations import Violation

# --- output-alphabet ------------------------------------------------------------------

_HEX = ASCII_UPPER_HEX
_NCR_OUTPUT = r"%26%23[0-9]+%3B"


def _char_class(codes: Iterable[int]) -> str:
    return "[" + "".join(f"\\x{c:02x}" for c in codes) + "]"


@functools.lru_cache(maxsize=128)
def _alphabet_pattern(pes: PercentEncodeSet, plus: bool, legacy: bool) -> re.Pattern[str]:
    """A regex whose greedy match over an output ends at the first character that breaks
    the alphabet (WHATWG URL 1.3 "percent-encode after encoding", RFC 3986 2.1).

    Tokens: an uppercase ``%HH`` triplet of a byte in the set (never ``%20`` with
    spaceAsPlus: space is then always ``+``); an ASCII char outside the set (with
    spaceAsPlus: never a raw space, and ``+`` is allowed: it stands for space); for
    legacy encodings, an NCR ``%26%23<digits>%3B`` whatever the set. When ``%`` is
    outside the set a raw ``%`` is a token too, so only the rest can be checked.
    """
    members = pes.members
    triplet = sorted(b for b in members if not (plus and b == 0x20))
    by_high: dict[int, list[int]] = {}
    for b in triplet:
        by_high.setdefault(b >> 4, []).append(b & 0xF)
    triplets = "|".join(
        _HEX[high] + "[" + "".join(_HEX[low] for low in lows) + "]"
        for high, lows in sorted(by_high.items())
    )
    raw = {b for b in range(0x80) if b not in members}
    if plus:
        raw.discard(0x20)
        raw.add(0x2B)
    alternatives = [f"%(?:{triplets})"] if triplets else []
    if legacy:
        alternatives.insert(0, _NCR_OUTPUT)
    if raw:
        alternatives.append(_char_class(sorted(raw)))
    return re.compile("(?:" + "|".join(alternatives) + ")*")


def _alphabet_detail(out: str, pos: int, pes: PercentEncodeSet, plus: bool) -> str:
    char = out[pos]
    code = ord(char)
    if code > 0x7F:
        return f"non-ASCII output U+{code:04X}"
    if char == "%" and 0x25 in pes:
        triplet = out[pos : pos + 3]
        if PERCENT_ENCODED_BYTE.fullmatch(triplet):
            byte = int(triplet[1:], 16)
            if triplet != triplet.upper():
                return f"lowercase hex in {triplet!r} (WHATWG 1.3, RFC 3986 2.1: uppercase)"
            if plus and byte == 0x20:
                return "space written %20 although spaceAsPlus is true (it must be '+')"
            return f"{triplet!r} encodes 0x{byte:02X}, which is not in the set"
        return f"'%' not followed by two hex digits ({triplet!r}) although '%' is in the set"
    if char == " " and plus:
        return "raw space although spaceAsPlus is true"
    return f"raw {char!r} (0x{code:02X}) is in the set and must be percent-encoded"


def _alphabet(case: EncodeCase, exp: _Expect, out: str) -> None:
    end = _alphabet_pattern(exp.pes, exp.plus, exp.legacy).match(out)
    pos = end.end() if end else 0
    if pos != len(out):
        raise Violation(
            OUTPUT_ALPHABET,
            case,
            expected=f"ASCII %HH triplets of bytes in {exp.pes.name!r} and bytes outside it",
            actual=out,
            position=pos,
            detail=_alphabet_detail(out, pos, exp.pes, exp.plus),
        )


def check_output_alphabet(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """Output is ASCII; when ``%`` is in the set every ``%`` starts an uppercase ``%HH``
    triplet of a byte in the set; every other output char is outside the set; legacy
    encodings add NCRs ``%26%23<digits>%3B`` whatever the set (WHATWG URL 1.3).

    ``+`` exactly: with spaceAsPlus, space is always ``+`` (never raw, never ``%20``)
    and a ``+`` may appear whatever the set (it stands for space, or is a raw ``+`` when
    ``+`` is outside the set: the round trip then fails, see ``round_trip_holds``);
    without spaceAsPlus, ``+`` appears only when it is outside the set. When ``%`` is
    outside the set a ``%`` in the output may be raw input, so triplets are not checked.
    """
    exp = _expect(case)
    if exp is not None:
        _alphabet(case, exp, _encode(codec, case))


# --- round-trip -----------------------------------------------------------------------

_ESCAPE = re.compile(f"%{HEX_PAIR}".encode("ascii"))


def round_trip_holds(pes: PercentEncodeSet, plus: bool, data: bytes) -> bool:
    """The exact condition for ``decode(encode(x)) == data``, ``data`` the encoder's bytes.

    It holds iff (``%`` is in the set, or ``data`` has no ``%`` followed by two hex
    digits) and (spaceAsPlus is false, or ``+`` is in the set, or ``data`` has no ``+``).
    "Iff" needs the set to leave hex digits raw (every registered set does): then a raw
    ``%HH`` in the output always collapses to one byte, and a raw ``+`` always becomes
    a space, so the decoded bytes differ.
    """
    if 0x25 not in pes and _ESCAPE.search(data):
        return False
    return not (plus and 0x2B not in pes and b"+" in data)


def _round_trip(case: EncodeCase, codec: Codec, exp: _Expect, out: str) -> bytes:
    back = codec.decode(out.replace("+", " ") if exp.plus else out)
    if round_trip_holds(exp.pes, exp.plus, exp.data):
        if back != exp.data:
            raise Violation(
                ROUND_TRIP,
                case,
                expected=exp.data,
                actual=back,
                position=first_difference(exp.data, back),
                detail=f"decode(encode(x)) != x although round trip must hold (output {out!r})",
            )
    elif back == exp.data and not (_HEX_BYTES & exp.pes.members):
        raise Violation(
            ROUND_TRIP,
            case,
            expected="a lossy round trip (a raw %HH or + in the output)",
            actual=back,
            detail=f"the input has a raw '%HH' or '+' the set leaves raw, so decoding "
            f"{out!r} must not give it back; the encoder encoded more than the set",
        )
    return back


def check_round_trip(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """``decode(encode(x, P)) == bytes(x)`` (``+`` mapped back to space first when
    spaceAsPlus) holds exactly when ``%`` is in P or x has no ``%`` followed by two hex
    digits, and, with spaceAsPlus, ``+`` is in P or x has no ``+``; otherwise it fails.
    ``bytes(x)``: UTF-8 for str, the legacy encoder's bytes with each unencodable code
    point as ``&#N;`` (WHATWG URL 1.3)."""
    exp = _expect(case)
    if exp is not None:
        _round_trip(case, codec, exp, _encode(codec, case))


# --- length-bound and determinism -----------------------------------------------------


def _length(case: EncodeCase, exp: _Expect, out: str) -> None:
    low, high = exp.raw_len + exp.ncr_len, 3 * exp.raw_len + exp.ncr_len
    if not low <= len(out) <= high:
        raise Violation(
            LENGTH_BOUND,
            case,
            expected=f"{low} <= len <= {high}",
            actual=len(out),
            detail=f"each of the {exp.raw_len} encoder bytes is 1 or 3 chars; NCRs are "
            f"{exp.ncr_len} chars in all; output {out!r}",
        )


def check_length_bound(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """``n <= |output| <= 3n + NCRs``: each of the encoder's n bytes becomes one char or a
    ``%HH`` triplet; each unencodable code point N becomes ``%26%23N%3B``."""
    exp = _expect(case)
    if exp is not None:
        _length(case, exp, _encode(codec, case))


def _determinism(case: EncodeCase, codec: Codec, out: str) -> None:
    again = _encode(codec, case)
    if again != out:
        raise Violation(
            DETERMINISM,
            case,
            expected=out,
            actual=again,
            position=first_difference(out, again),
            detail="the same call gave a different output the second time",
        )


def check_determinism(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """The same call twice gives the same output (no hidden state)."""
    if _expect(case) is not None:
        _determinism(case, codec, _encode(codec, case))


# --- unreserved-idempotence -----------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _not_unreserved(pes: PercentEncodeSet) -> tuple[re.Pattern[str], re.Pattern[bytes]]:
    """Regexes for runs of characters that are not unreserved-and-outside-the-set."""
    pattern = "[^" + _char_class(sorted(UNRESERVED - pes.members))[1:] + "+"
    return re.compile(pattern), re.compile(pattern.encode("ascii"))


def _unreserved(case: EncodeCase, codec: Codec, exp: _Expect, out: str, back: bytes) -> None:
    # 1. RFC 3986 2.3: unreserved characters are never encoded. One registered set
    # disagrees by definition: the WHATWG form set encodes "~" (URL 1.3: component set +
    # ! ' ( ) ~), so the check covers the unreserved characters outside the set.
    value = case.value
    as_text, as_bytes = _not_unreserved(exp.pes)
    only = as_bytes.sub(b"", value) if isinstance(value, bytes) else as_text.sub("", value)
    if only:
        text = only.decode("ascii") if isinstance(only, bytes) else only
        got = _encode(codec, case, value=only)
        if got != text:
            raise Violation(
                UNRESERVED_IDEMPOTENCE,
                case,
                expected=text,
                actual=got,
                position=first_difference(text, got),
                detail="encoding unreserved characters must be the identity (RFC 3986 2.3)",
            )
        # 2. RFC 3986 6.2.2.2: %HH of an unreserved character decodes to it, either case.
        distinct = sorted(set(text))
        escaped = "".join(f"%{ord(c):02X}%{ord(c):02x}" for c in distinct)
        want = "".join(c + c for c in distinct).encode("ascii")
        decoded = codec.decode(escaped)
        if decoded != want:
            raise Violation(
                UNRESERVED_IDEMPOTENCE,
                case,
                expected=want,
                actual=decoded,
                position=first_difference(want, decoded),
                detail=f"decoding {escaped!r}: %HH of an unreserved character is that "
                "character (RFC 3986 6.2.2.2)",
            )
    # 3. encode(decode(encode(x))) == encode(x) where the round trip holds. Re-encoding
    # the decoded bytes equals the output only without NCRs (their & # ; are encoded
    # whatever the set).
    if exp.ncr_len == 0 and back == exp.data and round_trip_holds(exp.pes, exp.plus, exp.data):
        again = _encode(codec, case, value=back)
        if again != out:
            raise Violation(
                UNRESERVED_IDEMPOTENCE,
                case,
                expected=out,
                actual=again,
                position=first_difference(out, again),
                detail="encode(decode(encode(x))) != encode(x) although the round trip holds",
            )


def check_unreserved_idempotence(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """The unreserved characters of x (RFC 3986 2.3) encode to themselves under every set
    (except "~" under the WHATWG form set, which lists it: URL 1.3);
    ``%HH``/``%hh`` of each decodes to it (RFC 3986 6.2.2.2); and
    ``encode(decode(encode(x))) == encode(x)`` wherever the round trip holds."""
    exp = _expect(case)
    if exp is not None:
        out = _encode(codec, case)
        back = codec.decode(out.replace("+", " ") if exp.plus else out)
        _unreserved(case, codec, exp, out, back)


# --- concatenation --------------------------------------------------------------------


def _concatenation(case: EncodeCase, codec: Codec, exp: _Expect, out: str) -> None:
    if exp.legacy:
        return  # a legacy encoder has state (ISO-2022-JP) and NCRs: not a homomorphism
    value = case.value
    size = len(value)
    for cut in sorted({size // 2, size - 1}):
        if 0 < cut < size:
            joined = _encode(codec, case, value=value[:cut]) + _encode(
                codec, case, value=value[cut:]
            )
            if joined != out:
                raise Violation(
                    CONCATENATION,
                    case,
                    expected=out,
                    actual=joined,
                    position=first_difference(out, joined),
                    detail=f"encode(x[:{cut}]) + encode(x[{cut}:]) != encode(x)",
                )


def check_concatenation(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """``encode(a + b) == encode(a) + encode(b)`` for UTF-8 (scalar values) and bytes,
    checked at a few cut points of x: the encoder works byte by byte (WHATWG URL 1.3)."""
    exp = _expect(case)
    if exp is not None:
        _concatenation(case, codec, exp, _encode(codec, case))


# --- the encode aggregate ---------------------------------------------------------------


def check_encode(case: EncodeCase, codec: Codec = REFERENCE) -> None:
    """Every encode invariant on one case (the check the encode target runs).

    Order: cheapest and most specific first; determinism last, so other calls have run
    in between its two calls. Monotonicity looks at one neighbouring set per case
    (``check_monotonicity`` looks at all of them) to keep a case near 30 µs.
    """
    exp = _expect(case)
    if exp is None:
        check_input_domain(case, codec)
        return
    out = _encode(codec, case)
    _alphabet(case, exp, out)
    _length(case, exp, out)
    back = _round_trip(case, codec, exp, out)
    _unreserved(case, codec, exp, out, back)
    _concatenation(case, codec, exp, out)
    _monotonicity(case, codec, exp, out, every_edge=False)
    _determinism(case, codec, out)


def _encode_rotating(case: EncodeCase, codec: Codec, turn: int) -> None:
    """:func:`check_encode` with one costly invariant per ``turn`` (5 turns: every one).

    Every turn encodes once and checks the output alphabet and (but for a legacy
    encoding: turn 0) the length bound, without a codec call; then round trip (one
    decode), or round trip and unreserved idempotence, or concatenation, or one
    monotonicity edge, or determinism.
    """
    exp = _expect(case)
    if exp is None:
        check_input_domain(case, codec)
        return
    out = _encode(codec, case)
    _alphabet(case, exp, out)
    pick = turn % 5
    if pick == 0 or not exp.legacy:  # a legacy encoder's bytes are costly: turn 0 only
        _length(case, exp, out)
    if pick == 0:
        _round_trip(case, codec, exp, out)
    elif pick == 1:
        _unreserved(case, codec, exp, out, _round_trip(case, codec, exp, out))
    elif pick == 2:
        _concatenation(case, codec, exp, out)
    elif pick == 3:
        _monotonicity(case, codec, exp, out, every_edge=False)
    else:
        _determinism(case, codec, out)
