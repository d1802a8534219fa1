"""application/x-www-form-urlencoded serializer and parser (WHATWG URL Standard 5).

The serializer is what ``URLSearchParams.toString()`` and HTML form submission use;
the parser is what ``new URLSearchParams(string)`` uses.
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import InputTypeError, type_name
from .reference import Surrogates, percent_decode, percent_encode, to_scalar_value_string
from .sets import FORM

__all__ = ["form_urldecode", "form_urlencode"]


def form_urlencode(
    pairs: Iterable[tuple[str, str]],
    *,
    encoding: str = "utf-8",
    surrogates: Surrogates = "strict",
) -> str:
    """WHATWG URL 5.2 "application/x-www-form-urlencoded serializer".

    Each name and value is percent-encoded after encoding with the form set and
    spaceAsPlus true, joined as ``name=value`` with ``&``. ``encoding`` is a WHATWG
    label (its output encoding is used, so UTF-16 labels mean UTF-8).
    """
    if isinstance(pairs, str | bytes):
        raise InputTypeError(f"pairs must be an iterable of (name, value), not {type_name(pairs)}")
    out: list[str] = []
    for index, pair in enumerate(pairs):
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise InputTypeError(f"pairs[{index}] must be a (name, value) pair, not {pair!r}")
        name, value = pair
        for what, item in (("name", name), ("value", value)):
            if not isinstance(item, str):
                raise InputTypeError(f"pairs[{index}] {what} must be str, not {type_name(item)}")
        out.append(
            percent_encode(name, FORM, encoding=encoding, space_as_plus=True, surrogates=surrogates)
            + "="
            + percent_encode(
                value, FORM, encoding=encoding, space_as_plus=True, surrogates=surrogates
            )
        )
    return "&".join(out)


def form_urldecode(text: str | bytes) -> list[tuple[str, str]]:
    """WHATWG URL 5.1 "application/x-www-form-urlencoded parser".

    A str is UTF-8 encoded first (as ``new URLSearchParams(string)`` does). Sequences
    are split on ``&``, empty ones skipped; the first ``=`` separates name from value;
    ``+`` becomes space; then percent-decode and UTF-8 decode without BOM. Never raises
    for str or bytes input.
    """
    if isinstance(text, str):
        # Lone surrogates become U+FFFD, as the JS USVString conversion does.
        data = to_scalar_value_string(text, "replace").encode("utf-8")
    elif isinstance(text, bytes | bytearray | memoryview):
        data = bytes(text)
    else:
        raise InputTypeError(f"text must be str or bytes, not {type_name(text)}")
    pairs: list[tuple[str, str]] = []
    for sequence in data.split(b"&"):
        if not sequence:
            continue
        name, _, value = sequence.partition(b"=")
        pairs.append(
            (
                percent_decode(name.replace(b"+", b" ")).decode("utf-8", "replace"),
                percent_decode(value.replace(b"+", b" ")).decode("utf-8", "replace"),
            )
        )
    return pairs

