"""The URL Standard's percent-encoding algorithms, transcribed step by step.

This module is the readable twin of the fast reference (``reference.py``, ``form.py``):
each function follows one algorithm of the WHATWG URL Standard line by line, one byte
at a time, with the step numbers in comments. It is slow on purpose and is never on a
fuzzing path but for ``percent_decode`` (see there); ``tests/unit/test_spec.py`` holds
the fast reference equal to it on random inputs, the way yarl tests its C quoter
against ``_quoting_py.py``.

The grammar's constants live here once: ``ASCII_HEX_DIGITS`` (Infra "ASCII hex digit"),
``PERCENT_ENCODED_BYTE`` (a "%" followed by two ASCII hex digits, URL Standard 1.3),
and ``percent_encode_byte`` ("%" and two *uppercase* hex digits, 1.3).

The algorithms (URL Standard section 1.3, "Percent-encoded bytes", and section 5,
"application/x-www-form-urlencoded"):

- ``percent_encode_after_encoding(encoding, input, set, space_as_plus)`` (1.3);
- ``percent_decode(bytes)`` and ``percent_decode_string(str)`` (1.3);
- ``form_urlencoded_serialize(tuples, encoding)`` (5.2);
- ``form_urlencoded_parse(bytes)`` (5.1).

It is the only statement of these algorithms in the package besides the fast twins:
the checks and the accepted-difference models call it (or the fast twin) instead of
restating a step, and ``tests/unit/test_spec.py`` fails on a new copy of the "%HH"
pattern or of the percent-decode loop elsewhere. A model of an implementation that
*deviates* (decodes twice, reads UTF-16 code units) is its own code, and says so.

Inputs are what the standard says they are (a scalar value string, a byte sequence);
argument checking is the fast reference's job.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pctfuzz._internal import encoding as _encoding
from pctfuzz._internal.sets import FORM, PercentEncodeSet, get_set

__all__ = [
    "ASCII_HEX",
    "ASCII_HEX_DIGITS",
    "ASCII_UPPER_HEX",
    "HEX_DIGIT",
    "HEX_PAIR",
    "PERCENT_ENCODED_BYTE",
    "PERCENT_ENCODED_RUN",
    "form_urlencoded_parse",
    "form_urlencoded_serialize",
    "is_double_dot_segment",
    "is_single_dot_segment",
    "percent_decode",
    "percent_decode_string",
    "percent_encode_after_encoding",
    "percent_encode_byte",
]

#: Infra: an ASCII hex digit is an ASCII digit or U+0041-U+0046 or U+0061-U+0066
#: (``ASCII_HEX``, the text; ``ASCII_HEX_DIGITS``, the bytes).
ASCII_HEX = "0123456789ABCDEFabcdef"
ASCII_HEX_DIGITS = frozenset(ASCII_HEX.encode("ascii"))
#: Infra: an ASCII upper hex digit, what percent-encode writes (URL Standard 1.3).
ASCII_UPPER_HEX = ASCII_HEX[:16]

#: An ASCII hex digit, and two, as a regular expression: the part of every "%HH"
#: pattern (a capture, a look-ahead, a bytes pattern are built from it).
HEX_DIGIT = "[0-9A-Fa-f]"
HEX_PAIR = HEX_DIGIT + "{2}"
#: URL Standard 1.3: a percent-encoded byte is "%" followed by two ASCII hex digits.
PERCENT_ENCODED_BYTE = re.compile("%" + HEX_PAIR)
#: One or more percent-encoded bytes in a row (the escapes of one character's UTF-8).
PERCENT_ENCODED_RUN = re.compile(f"(?:{PERCENT_ENCODED_BYTE.pattern})+")


def percent_encode_byte(byte: int) -> str:
    """1.3 "percent-encode": U+0025 (%), followed by two ASCII upper hex digits."""
    return "%" + format(byte, "02X")


def percent_encode_after_encoding(
    encoding: str, input: str, percent_encode_set: str | PercentEncodeSet,
    space_as_plus: bool = False,
) -> str:
    """1.3 "percent-encode after encoding", given an encoding label, a scalar value
    string, a percent-encode set (or its name) and spaceAsPlus."""
    members = get_set(percent_encode_set).members
    # 1. Let encoder be the result of getting an encoder from encoding (Encoding 4.3:
    #    get an output encoding first, so UTF-16 labels mean UTF-8).
    encoder = _encoding.lookup(encoding)
    # 2-4. The input as an I/O queue, output the empty string, potentialError 0.
    output = ""
    # 5. While potentialError is non-null: run the encoder in "fatal" mode; it stops at
    #    each code point it cannot encode. ``encode_runs`` is the Encoding Standard's
    #    loop: byte chunks, and each such code point as an int, in order.
    for run in _encoding.encode_runs(encoder, input):
        if isinstance(run, int):
            # 5.4. Append "%26%23", the error's code point in decimal, and "%3B",
            #      whatever the set: the "&#" and ";" of an HTML numeric reference.
            output += "%26%23" + str(run) + "%3B"
            continue
        # 5.3. For each byte of the encoder's output:
        for byte in run:
            # 5.3.1. spaceAsPlus and 0x20 (SP): append U+002B (+) and continue.
            if space_as_plus and byte == 0x20:
                output += "+"
                continue
            # 5.3.2. Let isomorph be the code point whose value is byte's value.
            isomorph = chr(byte)
            # 5.3.4. If the set includes isomorph, append byte, percent-encoded;
            # 5.3.5. otherwise append isomorph.
            output += percent_encode_byte(byte) if byte in members else isomorph
    # 6. Return output.
    return output


def percent_decode(input: bytes) -> bytes:
    """1.3 "percent-decode" a byte sequence.

    Step 2 runs from one 0x25 (%) to the next, not byte by byte: a byte that is not "%"
    is appended as it is (2.1), so a run of them is appended at once. The one algorithm
    of this module on a fuzzing path: the decode invariant's expected value
    (``checks.invariants.decode``), where a Python step per byte would cost the run."""
    # 1. Let output be an empty byte sequence.
    output = bytearray()
    # 2. For each byte in input:
    position = 0
    while (percent := input.find(b"%", position)) >= 0:
        # 2.1. If byte is not 0x25 (%), append byte to output (every byte up to "%").
        output += input[position:percent]
        following = input[percent + 1 : percent + 3]
        # 2.2. If byte is 0x25 (%) and the next two bytes are not both ASCII hex digits,
        #      append byte to output.
        if len(following) < 2 or not all(b in ASCII_HEX_DIGITS for b in following):
            output.append(0x25)
            position = percent + 1
            continue
        # 2.3. Otherwise: the two bytes after byte, decoded, read as a hexadecimal
        #      number, appended; skip the next two bytes.
        output.append(int(following.decode("ascii"), 16))
        position = percent + 3
    output += input[position:]  # (2.1 for the bytes after the last "%")
    # 3. Return output.
    return bytes(output)


def percent_decode_string(input: str) -> bytes:
    """1.3 "percent-decode" a scalar value string: UTF-8 encode it, then decode."""
    return percent_decode(input.encode("utf-8"))


def form_urlencoded_parse(input: bytes) -> list[tuple[str, str]]:
    """5.1 "application/x-www-form-urlencoded parser", given a byte sequence."""
    # 1. Let sequences be the result of splitting input on 0x26 (&).
    sequences = input.split(b"&")
    # 2. Let output be an initially empty list of name-value tuples.
    output: list[tuple[str, str]] = []
    # 3. For each byte sequence bytes in sequences:
    for sequence in sequences:
        # 3.1. If bytes is the empty byte sequence, then continue.
        if not sequence:
            continue
        # 3.2-3.3. Name up to the first 0x3D (=), value after it; no "=": value empty.
        if b"=" in sequence:
            name, value = sequence[: sequence.index(b"=")], sequence[sequence.index(b"=") + 1 :]
        else:
            name, value = sequence, b""
        # 3.4. Replace any 0x2B (+) in name and value with 0x20 (SP).
        name, value = name.replace(b"+", b" "), value.replace(b"+", b" ")
        # 3.5. "UTF-8 decode without BOM" of the percent-decoding of each (Encoding 6:
        #      each maximal invalid subpart becomes one U+FFFD, as CPython's "replace").
        output.append((_utf8_decode_without_bom(percent_decode(name)),
                       _utf8_decode_without_bom(percent_decode(value))))
    # 4. Return output.
    return output


def _utf8_decode_without_bom(data: bytes) -> str:
    """Encoding Standard 6 "UTF-8 decode without BOM": a leading BOM is kept as U+FEFF."""
    return data.decode("utf-8", "replace")


def form_urlencoded_serialize(
    tuples: Iterable[tuple[str, str]], encoding: str = "utf-8",
) -> str:
    """5.2 "application/x-www-form-urlencoded serializer", given a list of name-value
    tuples (scalar value strings) and an optional encoding (default UTF-8)."""
    # 1. Set encoding to the result of getting an output encoding (in
    #    percent_encode_after_encoding's step 1).
    # 2. Let output be the empty string.
    output = ""
    # 3. For each tuple of tuples:
    for name, value in tuples:
        # 3.2-3.3. Name and value, percent-encoded after encoding with the
        #          application/x-www-form-urlencoded set and spaceAsPlus true.
        name = percent_encode_after_encoding(encoding, name, FORM, True)
        value = percent_encode_after_encoding(encoding, value, FORM, True)
        # 3.4. If output is not the empty string, append U+0026 (&).
        if output:
            output += "&"
        # 3.5. Append name, U+003D (=), and value.
        output += name + "=" + value
    # 4. Return output.
    return output


def is_single_dot_segment(segment: str) -> bool:
    """URL Standard 4.1: a single-dot URL path segment is "." or an ASCII
    case-insensitive match for "%2e"."""
    return segment == "." or (segment.isascii() and segment.lower() == "%2e")


def is_double_dot_segment(segment: str) -> bool:
    """URL Standard 4.1: a double-dot URL path segment is ".." or an ASCII
    case-insensitive match for ".%2e", "%2e." or "%2e%2e"."""
    return segment == ".." or (segment.isascii()
                               and segment.lower() in (".%2e", "%2e.", "%2e%2e"))
