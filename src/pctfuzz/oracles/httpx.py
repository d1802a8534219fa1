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

from pctfuzz.accept import divergence, pairs_order
from pctfuzz.cases import FormParseCase
from pctfuzz.oracles._querystring import (
    CITE_URLLIB,
    query_params_functions,
    urlencode_entry,
)
from pctfuzz.oracles.function import FunctionAdapter
from pctfuzz.sets import get_set

__all__ = ["HttpxAdapter"]

#: pctfuzz probe out/p.py:httpx_query (str(QueryParams([("", v)]))[1:]), httpx 0.28.1:
#: exact set rfc3986-unreserved, space +, existing %HH encoded, non-ASCII utf-8.
QUERY_VALUE_SPEC = "rfc3986-unreserved"


def _query_params() -> Any:
    import httpx

    return httpx.QueryParams


class HttpxAdapter(FunctionAdapter):
    """httpx.QueryParams: a query value, serializing and parsing (module docstring)."""

    distribution = "httpx"
    divergences = (
        urlencode_entry(
            "httpx", "httpx/_urls.py: QueryParams stores a dict name -> list of values and "
            "__str__ is urlencode(self.multi_items()); " + CITE_URLLIB, grouped=True,
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
    )

    def __init__(self) -> None:
        qp = _query_params()

        query_value, serialize, parse = query_params_functions(qp)

        super().__init__(
            "httpx", {"query-value": (get_set(QUERY_VALUE_SPEC), query_value)},
            None, serialize, parse, {"query-value": QUERY_VALUE_SPEC}, True,
        )
        self.modules_under_test = ("httpx._urls",)
