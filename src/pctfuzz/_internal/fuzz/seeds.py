"""Seed cases for the corpus: the spec vectors and edge cases every target starts from.

``pctfuzz corpus seed`` writes them with each target's byte format, so a fresh
campaign begins at the interesting places instead of at the empty input. The strings
come from seed 002 (RFC 3986 card), the WHATWG URL Standard examples (seed 000),
the Percent-Encoding Guide (seed 001) and web-platform-tests url/resources
(percent-encoding.json, urlencoded-parser-data.json; BSD-3-Clause).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.profile import run_impl
from pctfuzz._internal.formats import FUZZ_SETS
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.oracles.base import Unsupported
from pctfuzz._internal.targets import Target

__all__ = ["EDGE_STRINGS", "PROBE_CASES", "seed_cases", "unanswered"]

#: Seed cases asked at most, before a question is said unanswered.
PROBE_CASES = 200

EDGE_STRINGS: tuple[str, ...] = (
    "",
    "a b",  # seed 002
    "café",
    "a/b?c#d&e=f",
    "AZaz09-._~",
    "caf%C3%A9",
    "~",
    "%",
    "%%",
    "%4",
    "%41",
    "%4a",
    "%zz",
    "%25",
    "'",
    "^",
    "`",
    "+",
    "1+1 ≡ 2%20‽",  # WHATWG URL 1.3 example
    "‽%25%2E",
    "¥",
    "‾\\",  # WPT percent-encoding.json
    "†",
    "\x0eA",
    "\ue5e5",
    "−",
    "á|",
    "\ufeff",
    "\ufffd",
    "\uffff",
    "\U0010ffff",
    "\U0001f4a9",
    "\x00\x1f\x7f\x80\x9f",
    " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
)

#: Legacy encodings paired with the sets the standard uses them with.
_LEGACY = ("Shift_JIS", "ISO-2022-JP", "EUC-KR", "Big5", "gb18030", "windows-1252")

_FORM_PAIRS: tuple[tuple[tuple[str, str], ...], ...] = (
    (("a", "b c"),),
    (("a b", "c"), ("", "")),
    (("=", "a"), ("b", "&")),
    (("a", "*-._"), ("a%b", "c+d")),
    (("a\x00b", "\U0001f4a9"), ("a\nb", "c\rd")),
)

_FORM_TEXTS: tuple[str, ...] = (
    "a=b&c=d&&e&&",
    "a = b &a=b&c=d%20",
    "b=%2sf%2a",
    "b=%%2a",
    "%EF%BB%BFtest=%EF%BB%BF",
    "%FE%FF",
    "%C2x",
    "a==a&a=a+b+c+d",
    "\ufefftest=\ufeff",
    "_charset_=windows-1252&test=%C2x",
)


def seed_cases(kind: str) -> Iterator[Case]:
    """Seed cases for a case type: ``encode``, ``decode``, ``form`` or ``form-parse``."""
    if kind == ENCODE.name:
        for text in EDGE_STRINGS:
            for set_name in FUZZ_SETS:
                yield EncodeCase(text, set_name)
            yield EncodeCase(text.encode("utf-8"), "component")
            yield EncodeCase(text, "application/x-www-form-urlencoded", space_as_plus=True)
            for label in _LEGACY:
                yield EncodeCase(text, "special-query", label)
        yield EncodeCase("a\ud800b", "component")  # a lone surrogate: not a scalar value
    elif kind == DECODE.name:
        for text in EDGE_STRINGS:
            yield DecodeCase(text)
            yield DecodeCase(text.encode("utf-8"))
        yield DecodeCase(b"%\xff%C3%A9\xc3")
    elif kind == FORM_SERIALIZE.name:
        for pairs in _FORM_PAIRS:
            yield FormCase(pairs)
        yield FormCase((("1+1 ≡ 2%20‽", "¥"),), "Shift_JIS")
    elif kind == FORM_PARSE.name:
        for text in _FORM_TEXTS:
            yield FormParseCase(text)
        yield FormParseCase(b"a=%FF\xff&b")
    else:
        raise ValueError(f"unknown case kind {kind!r}")


def unanswered(target: Target, impl: Any, first: Iterable[Case] = ()) -> str | None:
    """Whether ``impl`` leaves ``target``'s question unanswered: None as soon as it
    answers one of ``first``, then of the target's seed cases (each asked as a
    campaign asks it, through the byte format and the adapter's sets; a value or an
    exception is an answer), else its ``Unsupported`` reason ("" when it gave none).
    ``pctfuzz fuzz`` skips such a target, ``pctfuzz.testing`` such a test."""
    question, method = target.operation.name, target.operation.method
    reason = ""
    seeds = itertools.islice(seed_cases(target.case_type.type), PROBE_CASES)
    for case in itertools.chain(first, seeds):
        # a seed with no byte form is asked as it is
        with contextlib.suppress(Exception):
            case = target.case_from_bytes(target.to_bytes(case), impl)
        if run_impl(question, case, impl) is not None:
            return None
        reason = reason or _reason(impl, method, case)
    return reason


def _reason(impl: Any, method: str, case: Case) -> str:
    """The ``Unsupported`` reason of ``impl`` for ``case`` ("" for none)."""
    try:
        getattr(impl, method)(case)
    except Unsupported as exc:
        return str(exc)
    except Exception:
        return ""
    return ""
