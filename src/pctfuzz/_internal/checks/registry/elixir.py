"""Built-in entries for Elixir's ``URI`` module (adapters ``elixir-uri-*``;
``pctfuzz._internal.oracles.elixir``), each cited to Elixir 1.14.0's documentation of
``URI`` (``h URI.encode_query``...) or its source (``lib/elixir/lib/uri.ex``).

``URI.encode_www_form/1`` is RFC 3986's unreserved set with a space as ``+``, so the
query serializers leave ``~`` raw and encode ``*`` where the URL Standard's form set does
the opposite; the query parsers split on every ``&``.
"""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import MODEL, KnownDivergence
from pctfuzz._internal.accept.reconcilers import (
    empty_pairs,
    encoded,
    left_raw,
    plus_as_space,
    plus_kept,
    space_as,
)
from pctfuzz._internal.cases import Case, DecodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.registry.common import (
    WHATWG_FORM,
    WHATWG_FORM_PARSE,
    WHATWG_PCT,
    Pair,
    add_entry,
)
from pctfuzz._internal.operations import DECODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_decode

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_SRC = "Elixir 1.14.0 lib/elixir/lib/uri.ex"

_PLUS = plus_as_space()
_entry(
    id="elixir-uri-www-form-plus",
    impl="elixir-uri-www-form",
    check=DECODE.name,
    summary="URI.decode_www_form/1 reads '+' as a space",
    applies=lambda case: isinstance(case, DecodeCase),
    reconcile=_PLUS.reconcile,
    model=_PLUS.model,
    phase=MODEL,
    reference="keeps '+' (percent-decode, URL 1.3)",
    implementation="'+' is a space, then %HH decoded",
    citation="Elixir 1.14.0 URI.decode_www_form/1: 'Decodes string as "
    "\"x-www-form-urlencoded\"'; URI.decode_query/3: ':www_form ... It decodes \"+\" as "
    f"\" \"'; {WHATWG_FORM_PARSE} (step 3.3); {WHATWG_PCT}",
    why="documented: the form decoder, for what URI.encode_www_form/1 writes",
    example=DecodeCase("a+b"),
)

_ENCODE_QUERY = ("Elixir 1.14.0 URI.encode_query/2: ':www_form ... keys and values are URL "
                 "encoded as per encode_www_form/1', ':rfc3986 ... the same as :www_form "
                 "except it encodes \" \" as \"%20\"'; URI.encode_www_form/1 escapes every "
                 "byte but URI.char_unreserved?/1 ('As specified in RFC 3986, section 2.3 "
                 f"... A-Z, a-z, 0-9, ~, _, -, .'); {WHATWG_FORM}")
_QUERY_IMPLS = ("elixir-uri-query", "elixir-uri-query-rfc3986")
for _impl in _QUERY_IMPLS:
    _changes = [
        ("tilde", left_raw("~"), "'~' as %7E", "'~' raw (RFC 3986 unreserved)"),
        ("star", encoded("*"), "'*' raw", "'*' as %2A (not RFC 3986 unreserved)"),
    ]
    if _impl.endswith("rfc3986"):
        _changes.append(("space", space_as("%20"), "a space as '+'", "a space as %20"))
    for _id, _rule, _ref, _impl_text in _changes:
        _entry(
            id=f"{_impl}-{_id}",
            impl=_impl,
            check=FORM_SERIALIZE.name,
            summary=f"URI.encode_query/{'2' if _impl.endswith('rfc3986') else '1'} writes "
            f"{_impl_text}",
            applies=lambda case: isinstance(case, FormCase),
            reconcile=_rule.reconcile,
            model=_rule.model,
            phase=MODEL,
            reference=f"the form set: {_ref}",
            implementation=f"RFC 3986's unreserved set: {_impl_text}",
            citation=_ENCODE_QUERY,
            why="documented (RFC 3986's unreserved set); both forms decode to the same pairs",
            example=FormCase((({"tilde": "~", "star": "*", "space": "a b"}[_id], ""),)),
        )

_DECODER = ("Elixir 1.14.0 URI.query_decoder/2 and URI.decode_query/3 ('Given a query "
            "string in the form of key1=value1&key2=value2...'); "
            f"{_SRC}, decode_next_query_pair/2: :binary.split(query, \"&\") until the rest "
            f"is \"\"; {WHATWG_FORM_PARSE}")
_EMPTY = empty_pairs("kept-but-last")
for _impl in (*_QUERY_IMPLS, "elixir-uri-decode-query"):
    _entry(
        id=f"{_impl}-empty",
        impl=_impl,
        check=FORM_PARSE.name,
        summary="the query decoder reads an empty sequence between '&' as the pair "
        "('', ''), but a final '&'",
        applies=lambda case: isinstance(case, FormParseCase),
        reconcile=_EMPTY.reconcile,
        model=_EMPTY.model,
        phase=MODEL,
        reference="skips empty sequences (URL 5.1 step 3.1)",
        implementation="a pair ('', '') for each, but after a final '&' (the rest "
        "\"\" ends the stream)",
        citation=_DECODER,
        why="a harmless extra empty pair",
        example=FormParseCase("&a=1"),
    )

_PLUS_KEPT = plus_kept()
_entry(
    id="elixir-uri-query-rfc3986-plus",
    impl="elixir-uri-query-rfc3986",
    check=FORM_PARSE.name,
    summary="URI.query_decoder(q, :rfc3986) keeps '+'",
    applies=lambda case: isinstance(case, FormParseCase),
    reconcile=_PLUS_KEPT.reconcile,
    model=_PLUS_KEPT.model,
    phase=MODEL,
    reference="reads '+' as a space (URL 5.1 step 3.3)",
    implementation="'+' as itself (URI.decode/1)",
    citation="Elixir 1.14.0 URI.query_decoder/2: ':rfc3986 - (since v1.12.0) keys and "
    "values are decoded as per decode/1. The result is the same as :www_form except for "
    f"leaving \"+\" as is in line with RFC 3986'; {WHATWG_FORM_PARSE}",
    why="documented: the option asks for RFC 3986's reading, where '+' is data",
    example=FormParseCase("a+b=1"),
)


def _name_bytes(text: str | bytes) -> list[bytes]:
    """The name of each pair as bytes, as the query decoder splits ``text``: on every
    '&' but a final one, up to the first '=', '+' a space, then percent-decoded."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    parts = data.split(b"&")
    if parts[-1] == b"":
        parts.pop()
    return [percent_decode(p.split(b"=", 1)[0].replace(b"+", b" ")) for p in parts]


def _as_map(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    """Map.put/3 of each pair in turn (a later pair of a name replaces the earlier; two
    names are one key when their bytes are), then the map's pairs sorted by the names'
    bytes, as the peer answers them."""
    if expected.raised or not isinstance(expected.value, list):
        return None
    if not isinstance(case, FormParseCase):
        return None
    names = _name_bytes(case.text)
    if len(names) != len(expected.value):
        return None
    merged: dict[bytes, tuple[str, str]] = {}
    for raw, pair in zip(names, expected.value, strict=True):
        merged[raw] = pair
    return Outcome([merged[raw] for raw in sorted(merged)]), actual


_entry(
    id="elixir-uri-decode-query-map",
    impl="elixir-uri-decode-query",
    check=FORM_PARSE.name,
    summary="URI.decode_query/1 returns a map: one value per name, the last",
    applies=lambda case: isinstance(case, FormParseCase),
    reconcile=_as_map,
    phase=MODEL,
    reference="every pair, in order",
    implementation="a map (Map.put/3 of each pair: the last value of a name wins), "
    "answered as its pairs sorted by name",
    citation="Elixir 1.14.0 URI.decode_query/3: 'Decodes query into a map ... inserts each "
    "key-value pair in the query string as one entry in the given map'; "
    f"{_SRC}, decode_query_into_map/3 (Map.put/3); URI.query_decoder/2 keeps every pair; "
    f"{WHATWG_FORM_PARSE}",
    why="documented: a map holds one value per key; URI.query_decoder/2 is the function "
    "for every pair",
    example=FormParseCase("b=1&a=2&b=3"),
)
