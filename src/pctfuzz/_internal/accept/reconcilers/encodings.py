"""The rules of a character encoding other than the reference's: decoded bytes that
are not UTF-8 read as latin-1 (the reference writes U+FFFD, Encoding Standard "UTF-8
decode without BOM"), and an encoder's legacy encoding: an unencodable code point's
``&#N;``, Python's codec tables (URL Standard 1.3, percent-encode after encoding;
Encoding Standard, sections 9-14).
"""

from __future__ import annotations

import re

from pctfuzz._internal.accept.decoders import LATIN1
from pctfuzz._internal.accept.entry import REPLACE
from pctfuzz._internal.accept.model import Model
from pctfuzz._internal.accept.reconcilers.base import Reconciler, _declared, _Pair, rule
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormParseCase
from pctfuzz._internal.encoding import encode_ncr, lookup
from pctfuzz._internal.errors import PctfuzzError, UsageError
from pctfuzz._internal.form import form_sequences, form_urldecode_bytes
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.spec import PERCENT_ENCODED_RUN
from pctfuzz._internal.text import surrogates_to_fffd

__all__ = ["latin1_fallback", "ncr_unescaped", "python_codec"]


_ESCAPE_RUN = re.compile(PERCENT_ENCODED_RUN.pattern.encode("ascii"))


def _escapes_as_latin1(data: bytes) -> bytes:
    """``data`` percent-decoded with each run of escapes' bytes read as latin-1 (and
    written back as UTF-8), what is not an escape kept as it is."""
    return _ESCAPE_RUN.sub(
        lambda run: percent_decode(run.group()).decode("latin-1").encode("utf-8"),
        data)


_LATIN1_SCOPES = ("not-utf8", "always", "answer")


@rule((DECODE, FORM_PARSE), "changes-data")
def latin1_fallback(scope: str = "not-utf8") -> Reconciler:
    """Decoded bytes that are not valid UTF-8 are decoded as latin-1 instead (the
    reference writes U+FFFD, Encoding Standard "UTF-8 decode without BOM");
    ``scope="always"``: every escaped byte is read as latin-1, valid UTF-8 too
    (``%C3%A9`` as ``Ã©``: a parser given ``encoding="latin-1"``); ``scope="answer"``:
    every byte of the decoded answer, a raw character's UTF-8 bytes too (``é`` as
    ``Ã©``: a WSGI native string, PEP 3333, as gunicorn's ``unquote_to_wsgi_str``).
    For decode, the implementation's text answer is compared as UTF-8 bytes."""
    if scope not in _LATIN1_SCOPES:
        raise UsageError(f"latin1_fallback: scope must be one of {', '.join(_LATIN1_SCOPES)}, "
                         f"not {scope!r}")
    if scope == "not-utf8":  # (a model: it composes with the other rules, '+' kept...)
        return _declared("latin1_fallback", {DECODE.name, FORM_PARSE.name},
                         Model(replacement=LATIN1), "U+FFFD for invalid UTF-8",
                         "latin-1 for a value that is not UTF-8")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        if isinstance(case, DecodeCase):
            if scope == "answer":
                return Outcome(expected.value.decode("latin-1").encode("utf-8")), actual
            value = case.value
            data = value if isinstance(value, bytes) else \
                surrogates_to_fffd(value).encode("utf-8")
            return Outcome(_escapes_as_latin1(data)), actual
        if isinstance(case, FormParseCase):
            text = case.text
            data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
            if scope == "answer":
                pairs = [tuple(part.decode("latin-1") for part in pair)
                         for pair in form_urldecode_bytes(data)]
            else:
                pairs = [tuple(_escapes_as_latin1(part.replace(b"+", b" ")).decode(
                    "utf-8", "replace") for part in pair) for pair in form_sequences(data)]
            return Outcome(pairs), actual
        return None

    return Reconciler("latin1_fallback", frozenset({DECODE.name, FORM_PARSE.name}), reconcile,
                      "U+FFFD for invalid UTF-8",
                      "every escaped byte read as latin-1" if scope == "always"
                      else "every byte of the answer read as latin-1",
                      REPLACE)


def _legacy_label(case: Case) -> str | None:
    """The case's encoding label when it is a legacy (not UTF-8) one, else None."""
    label = getattr(case, "encoding", None)
    if not isinstance(label, str):
        return None
    try:
        return None if lookup(label).is_utf8 else label
    except PctfuzzError:
        return None


@rule((ENCODE,), "changes-data")
def ncr_unescaped() -> Reconciler:
    """A code point the encoding cannot encode is written as ``&#N;`` and that is
    percent-encoded by the set, where the reference writes ``%26%23N%3B`` whatever the
    set (URL Standard 1.3, the encode-or-fail error branch): urllib's ``quote`` with a
    legacy encoding (``errors="xmlcharrefreplace"``)."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        label = _legacy_label(case)
        if label is None or not isinstance(case, EncodeCase) or not isinstance(case.value, str):
            return None
        try:
            data = encode_ncr(lookup(label), case.value)
        except (PctfuzzError, ValueError):
            return None
        return Outcome(percent_encode(data, case.set_name,
                                      space_as_plus=case.space_as_plus)), actual

    return Reconciler("ncr_unescaped", frozenset({ENCODE.name}), reconcile,
                      "%26%23N%3B for a code point the encoding cannot encode",
                      "&#N; percent-encoded by the set", REPLACE)


@rule((ENCODE, FORM_SERIALIZE), "changes-data")
def python_codec() -> Reconciler:
    """Encoded with Python's codec of the encoding's name, ``errors="xmlcharrefreplace"``,
    instead of the WHATWG encoder (Encoding Standard, sections 9-14: their tables differ
    for some code points; a lone surrogate becomes an NCR), then percent-encoded by the
    set (so it composes with the set models): urllib's ``quote``/``urlencode`` with a
    legacy encoding."""
    return _declared("python_codec", {ENCODE.name, FORM_SERIALIZE.name}, Model(python_codec=True),
                     "the WHATWG encoder of the encoding",
                     "Python's codec of that name (errors='xmlcharrefreplace')")
