"""Built-in entries for Nim's std/uri (adapters ``nim-uri`` and ``nim-uri-plus``;
``pctfuzz._internal.oracles.nim``), each cited to Nim 1.6.10's ``lib/pure/uri.nim`` and
its documentation.

``encodeQuery`` escapes with ``encodeUrl`` (RFC 3986's unreserved set, a space ``+``)
and, by default (``omitEq = true``), writes a pair with an empty value as its name
alone: entries. A pair ``("", "")`` is then written as nothing at all, and as the first
pair it also takes the ``&`` of the next (``if result.len > 0: result.add('&')``): the
pair is lost, a real bug (docs/in-the-wild.md) that no entry accepts.
"""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import MODEL, REWRITE, KnownDivergence
from pctfuzz._internal.accept.reconcilers import (
    empty_pairs,
    encoded,
    left_raw,
    plus_as_space,
)
from pctfuzz._internal.cases import Case, DecodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.registry.common import WHATWG_FORM, WHATWG_FORM_PARSE, Pair, add_entry
from pctfuzz._internal.checks.registry.langs_common import contains
from pctfuzz._internal.operations import DECODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.outcome import Outcome

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_SRC = "Nim 1.6.10 lib/pure/uri.nim"
_ENCODE_URL = (f"{_SRC}, encodeUrl: 'characters in the set {{'a'..'z', 'A'..'Z', '0'..'9', "
               "'-', '.', '_', '~'}} are carried over to the result. All other characters "
               "are encoded as %xx'")
_ENCODE_QUERY = (f"{_SRC}, encodeQuery: 'Every (key, value) pair is URL-encoded and written "
                 "as key=value. If the value is an empty string then the = is omitted, "
                 "unless omitEq is false' (omitEq = true and usePlus = true, the defaults; "
                 "'The usePlus parameter is passed down to the encodeUrl function')")

for _id, _rule, _what, _example in (
    ("tilde", left_raw("~"), ("'~' as %7E", "'~' raw (RFC 3986 unreserved)"),
     FormCase((("~", ""),))),
    ("star", encoded("*"), ("'*' raw", "'*' as %2A (not RFC 3986 unreserved)"),
     FormCase((("*", "*"),))),
):
    _entry(
        id=f"nim-uri-encodequery-{_id}",
        impl="nim-uri",
        check=FORM_SERIALIZE.name,
        summary=f"encodeQuery escapes with encodeUrl's set: {_what[1]}",
        applies=lambda case: isinstance(case, FormCase),
        reconcile=_rule.reconcile,
        model=_rule.model,
        phase=MODEL,
        reference=f"the form set: {_what[0]}",
        implementation=f"RFC 3986's unreserved set: {_what[1]}",
        citation=f"{_ENCODE_URL}; {_ENCODE_QUERY}; {WHATWG_FORM}",
        why="both forms decode to the same pairs",
        example=_example,
    )


def _named_empty_value(case: Case) -> bool:
    return isinstance(case, FormCase) and any(n and not v for n, v in case.pairs)


def _eq_omitted(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    """Each pair of a non-empty name and an empty value without its '=': the reference's
    text with each such 'name=' segment so (a pair ("", "") keeps its '=': its loss is
    the bug)."""
    if expected.raised or not isinstance(expected.value, str):
        return None
    segments = expected.value.split("&")
    return Outcome("&".join(s[:-1] if len(s) > 1 and s.endswith("=") else s
                            for s in segments)), actual


_entry(
    id="nim-uri-encodequery-omiteq",
    impl="nim-uri",
    check=FORM_SERIALIZE.name,
    summary="encodeQuery writes a pair with an empty value as its name alone (omitEq, the "
    "default)",
    applies=_named_empty_value,
    reconcile=_eq_omitted,
    phase=REWRITE,
    reference="name=",
    implementation="name (no '=')",
    citation=f"{_ENCODE_QUERY}; the runnable example "
    "'assert encodeQuery({\"a\": \"1\", \"b\": \"\"}) == \"a=1&b\"'; WHATWG URL Standard "
    "5.1 (a sequence without '=' is a name with the empty value); " + WHATWG_FORM,
    why="documented: a name without '=' parses as the name with an empty value, the same "
    "pair",
    example=FormCase((("a", "1"), ("b", ""))),
)

_EMPTY = empty_pairs("kept-but-last")
_entry(
    id="nim-uri-decodequery-empty",
    impl="nim-uri",
    check=FORM_PARSE.name,
    summary="decodeQuery yields an empty sequence as the pair ('', ''), but the one after a "
    "final '&'",
    applies=lambda case: isinstance(case, FormParseCase),
    reconcile=_EMPTY.reconcile,
    model=_EMPTY.model,
    phase=MODEL,
    reference="skips empty sequences (URL 5.1 step 3.1)",
    implementation="an empty sequence is the pair ('', '')",
    citation=f"{_SRC}, decodeQuery and its runnable example 'toSeq(decodeQuery(\"&a&=b&=&&\")) "
    "== @[(\"\", \"\"), (\"a\", \"\"), (\"\", \"b\"), (\"\", \"\"), (\"\", \"\")]'; "
    + WHATWG_FORM_PARSE,
    why="documented; a harmless extra empty pair",
    example=FormParseCase("&a"),
)

_PLUS = plus_as_space()
_entry(
    id="nim-uri-plus-decodeurl-plus",
    impl="nim-uri-plus",
    check=DECODE.name,
    summary="decodeUrl(s) decodes '+' as a space (decodePlus = true, the default)",
    applies=lambda case: isinstance(case, DecodeCase) and contains(case, "+"),
    reconcile=_PLUS.reconcile,
    model=_PLUS.model,
    phase=MODEL,
    reference="keeps '+' (percent-decode, URL 1.3)",
    implementation="'+' is a space, then percent-decodes",
    citation=f"{_SRC}, decodeUrl: 'As a special rule, when the value of decodePlus is true, "
    "+ characters are converted to a space' (decodePlus = true by default)",
    why="documented; decodeUrl(s, decodePlus = false) keeps '+' (the nim-uri adapter)",
    example=DecodeCase("+"),
)
