"""httpx as an implementation under test (see ``pctfuzz.oracles``).

httpx's public query API is ``httpx.QueryParams``: ``str(QueryParams(pairs))``
serializes (it calls ``urllib.parse.urlencode``, httpx/_urls.py), ``QueryParams(text)``
parses (``urllib.parse.parse_qs(keep_blank_values=True)``). Its percent-encoder
(``httpx._urlparse.quote``) is private, so encode is asked through the public API too:

- **encode** (label ``query-value``): a query value, ``str(QueryParams([("", v)]))``
  without its leading ``=``; UTF-8 str, space as ``+``;
- **form_serialize**: ``str(QueryParams(pairs))``;
- **form_parse**: ``QueryParams(text).multi_items()``;
- **decode**: Unsupported (httpx has no public percent-decoder).
"""

from __future__ import annotations

from typing import Any

from ..accept import divergence, left_raw, pairs_order
from ..cases import FormCase, FormParseCase
from ..sets import get_set
from .function import FunctionAdapter

__all__ = ["HttpxAdapter"]

#: pctfuzz probe out/p.py:httpx_query (str(QueryParams([("", v)]))[1:]), httpx 0.28.1:
#: exact set rfc3986-unreserved, space +, existing %HH encoded, non-ASCII utf-8.
QUERY_VALUE_SPEC = "rfc3986-unreserved"


def _query_params() -> Any:
    import httpx

    return httpx.QueryParams


def _has(case: object, char: str) -> bool:
    """Whether a form case's names or values hold ``char``."""
    pairs = getattr(case, "pairs", ())
    return any(char in name or char in value for name, value in pairs)


def _distinct_names(case: object) -> bool:
    names = [name for name, _ in getattr(case, "pairs", ())]
    return len(names) == len(set(names))


class HttpxAdapter(FunctionAdapter):
    """httpx.QueryParams: a query value, serializing and parsing (module docstring)."""

    distribution = "httpx"
    divergences = (
        divergence(
            id="httpx-urlencode-tilde", check="form", reconcile=left_raw("~"),
            citation="QueryParams.__str__ calls urllib.parse.urlencode (quote_plus); "
                     "Python docs, urllib.parse.quote: 'Changed in version 3.7: ... '~' "
                     "is now included in the set of unreserved characters'",
            why="RFC 3986 2.3 lists ~ as unreserved; the form set of the URL Standard "
                "(5.2, application/x-www-form-urlencoded) percent-encodes it",
            example=FormCase((("a", "~"),)),
            # Entries that model the whole output do not compose (accept.py phases).
            applies=lambda case: isinstance(case, FormCase) and _has(case, "~")
            and _distinct_names(case),
        ),
        divergence(
            id="httpx-queryparams-grouped", check="form-parse",
            reconcile=pairs_order("grouped"),
            citation="httpx/_urls.py QueryParams.__init__: parse_qs(value, "
                     "keep_blank_values=True) into a dict of lists",
            why="QueryParams is a multi-dict: the values of one name are kept together, "
                "in the order the name first appears",
            example=FormParseCase("a=1&b=2&a=3"),
        ),
        divergence(
            id="httpx-queryparams-serialize-grouped", check="form",
            reconcile=pairs_order("grouped"),
            citation="httpx/_urls.py QueryParams.__init__: pairs are stored as a dict "
                     "name -> list of values; __str__ is urlencode(self.multi_items())",
            why="QueryParams is a multi-dict: the values of one name are written "
                "together, in the order the name first appears",
            example=FormCase((("a", "1"), ("b", "2"), ("a", "3"))),
        ),
    )

    def __init__(self) -> None:
        qp = _query_params()

        def query_value(value: str) -> str:
            return str(qp([("", value)]))[1:]

        def serialize(pairs: list[tuple[str, str]]) -> str:
            return str(qp(pairs))

        def parse(text: str) -> list[tuple[str, str]]:
            return [(str(k), str(v)) for k, v in qp(text).multi_items()]

        super().__init__(
            "httpx", {"query-value": (get_set(QUERY_VALUE_SPEC), query_value)},
            None, serialize, parse, {"query-value": QUERY_VALUE_SPEC}, True,
        )
        self.modules_under_test = ("httpx._urls",)
