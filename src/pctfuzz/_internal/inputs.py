"""A case's input texts, and the kinds of input in them that an implementation may refuse.

Every check takes its input as one or more texts (an encoder's value, a serializer's
names and values, a parser's text), str or bytes; the checks, the rule catalogue and
the generalization of a finding vary those texts alike (``with_texts``). The kinds are
``refuses``' (``accept.reconcilers``): a lone surrogate, invalid UTF-8 (as given or
once percent-decoded, WHATWG URL 1.3), a ``%`` that starts no escape, an ASCII control,
a non-ASCII character.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.reference import percent_decode
from pctfuzz._internal.spec import HEX_DIGIT, HEX_PAIR
from pctfuzz._internal.text import has_lone_surrogate, strip_lone_surrogates

__all__ = ["REFUSAL_INPUTS", "input_has", "input_strs", "input_texts", "with_texts",
           "without_kind"]

_INVALID_PCT = re.compile(f"%(?!{HEX_PAIR})")
_INVALID_PCT_BYTES = re.compile(_INVALID_PCT.pattern.encode("ascii"))
REFUSAL_INPUTS = ("lone-surrogate", "invalid-utf8", "invalid-percent", "control-char",
                  "c0-control", "non-ascii")
#: ``control-char``: an ASCII control (C0 or DEL) as given, which a URL parser may
#: refuse (Go's url.Parse, against request smuggling: go.dev/issue/27302);
#: ``c0-control``: a C0 control as given, or once decoded by a decoder or form parser
#: (libcurl's URL decoding refuses a byte below 20 however written, and answers DEL);
#: ``non-ascii``: a character or byte above 7F as given (Ruby's decode_www_form: "must
#: be ASCII only string").
_CONTROL = re.compile("[\x00-\x1f\x7f]")
_CONTROL_BYTES = re.compile(b"[\x00-\x1f\x7f]")
_C0 = re.compile("[\x00-\x1f]")
_C0_BYTES = re.compile(b"[\x00-\x1f]")
#: a C0 control, or an escape of one
_C0_ANY = re.compile(f"[\x00-\x1f]|%[01]{HEX_DIGIT}")
_C0_ANY_BYTES = re.compile(_C0_ANY.pattern.encode("ascii"))


def input_texts(case: Case) -> list[str | bytes]:
    """The case's input texts, as given (str or bytes)."""
    if isinstance(case, EncodeCase | DecodeCase):
        return [case.value]
    if isinstance(case, FormCase):
        return [t for pair in case.pairs for t in pair]
    assert isinstance(case, FormParseCase)
    return [case.text]


def input_strs(case: Case) -> list[str]:
    """The case's input texts as str (bytes read as Latin-1, one character a byte)."""
    return [t if isinstance(t, str) else t.decode("latin-1") for t in input_texts(case)]


def with_texts(case: Case, change: Callable[[Any], Any]) -> Case:
    """``case`` with ``change`` applied to each of its input texts (str or bytes)."""
    if isinstance(case, EncodeCase | DecodeCase):
        return replace(case, value=change(case.value))
    if isinstance(case, FormCase):
        return replace(case, pairs=tuple((change(n), change(v)) for n, v in case.pairs))
    assert isinstance(case, FormParseCase)
    return replace(case, text=change(case.text))


#: How each kind of input ``input_has`` tells is taken out of a text (str, bytes).
_WITHOUT_KIND: dict[str, tuple[Callable[[str], str], Callable[[bytes], bytes]]] = {
    "invalid-percent": (lambda t: _INVALID_PCT.sub("", t),
                        lambda t: _INVALID_PCT_BYTES.sub(b"", t)),
    "control-char": (lambda t: _CONTROL.sub("", t), lambda t: _CONTROL_BYTES.sub(b"", t)),
    "c0-control": (lambda t: _C0_ANY.sub("", t), lambda t: _C0_ANY_BYTES.sub(b"", t)),
    "non-ascii": (lambda t: "".join(c for c in t if c.isascii()),
                  lambda t: bytes(b for b in t if b < 0x80)),
    "lone-surrogate": (strip_lone_surrogates, lambda t: t),
}


def without_kind(case: Case, kind: str) -> Case | None:
    """``case`` with every input of ``kind`` (one of ``refuses``' kinds) taken out; None
    when this kind cannot be taken out (``invalid-utf8``) or the case holds none."""
    ways = _WITHOUT_KIND.get(kind)
    if ways is None:
        return None
    variant = with_texts(case, lambda t: ways[1](t) if isinstance(t, bytes) else ways[0](t))
    return None if variant == case else variant


def input_has(case: Case, kind: str) -> bool:
    """The case's input holds ``kind`` (one of ``refuses``' classes)."""
    texts = input_texts(case)
    if kind == "lone-surrogate":
        return any(isinstance(t, str) and has_lone_surrogate(t) for t in texts)
    if kind == "invalid-percent":
        return any(_INVALID_PCT.search(t) for t in input_strs(case))
    if kind == "control-char":
        return any(_CONTROL.search(t) if isinstance(t, str) else _CONTROL_BYTES.search(t)
                   for t in texts)
    if kind == "non-ascii":
        return not all(t.isascii() for t in texts)
    if kind == "c0-control":
        return any(_C0.search(t) for t in input_strs(case)) or (
            isinstance(case, DecodeCase | FormParseCase)
            and any(_C0_BYTES.search(percent_decode(t)) for t in input_strs(case)
                    if not has_lone_surrogate(t)))
    if isinstance(case, EncodeCase | FormCase):
        return False
    for text in texts:
        try:
            if isinstance(text, bytes):  # raw bytes that are not UTF-8 (%EA then 80 80
                text.decode("utf-8")  # decodes to valid UTF-8 but is not UTF-8 text)
            percent_decode(text).decode("utf-8")
        except UnicodeDecodeError:
            return True
    return False
