"""furl as an implementation under test (see ``pctfuzz._internal.oracles``).

furl's query is ``furl.Query``: ``str(Query().set(pairs))`` serializes and
``Query(text).params.allitems()`` parses. Mapping onto the reference's questions:

- **encode** (label ``query-value``): a query value, ``str(Query().set([("a", v)]))``
  without its leading ``a=``; UTF-8 str, space ``+``;
- **form_serialize**: ``str(Query().set(pairs))``;
- **form_parse**: ``Query(text).params.allitems()``. furl gives ``None`` as the value of
  a name without ``=`` (so that ``str()`` writes it back without one); the reference's
  answer for that name is the empty string, which is what ``None`` stands for here;
- **decode**: Unsupported (furl has no public percent-decoder).

furl's path quoting normalizes existing escapes in a way no reconciler states yet
(``pctfuzz probe``: ``%41`` decoded, ``%2F`` kept, ``%2f`` uppercased), so paths are
not asked.
"""

from __future__ import annotations

from typing import Any

from pctfuzz._internal.accept import divergence, empty_pairs
from pctfuzz._internal.cases import FormParseCase
from pctfuzz._internal.oracles._querystring import CITE_URLLIB, urlencode_entry
from pctfuzz._internal.oracles.function import FunctionAdapter
from pctfuzz._internal.sets import get_set

__all__ = ["FurlAdapter"]

#: pctfuzz probe out/p.py:furl_query (str(Query().set([("a", v)]))[2:]), furl 2.1.4:
#: exact set rfc3986-unreserved, space +, existing %HH encoded, non-ASCII utf-8.
QUERY_VALUE_SPEC = "rfc3986-unreserved"


def _query() -> Any:
    import furl

    return furl.Query


class FurlAdapter(FunctionAdapter):
    """furl.Query: a query value, serializing and parsing (module docstring)."""

    distribution = "furl"
    divergences = (
        urlencode_entry(
            "furl", "furl/furl.py Query.encode(dont_quote='') -> create_quote_fn: "
            "urllib.parse.quote(s, safe='') then %20 -> +; after an empty name, "
            '"Unquote \'=\' to allow queries like \'?===\'"; ' + CITE_URLLIB,
            raw_equals=True,
        ),
        divergence(
            id="furl-query-empty-kept", check="form-parse", reconcile=empty_pairs("kept"),
            citation="furl/furl.py Query._extract_items_from_querystr: every '&'-separated "
                     "item becomes a param, so that str(Query(text)) gives text back",
            why="the URL Standard 5.1 skips empty sequences; furl keeps each as an empty "
                "name with an empty value",
            example=FormParseCase("a=1&&b=2"),
        ),
    )

    def __init__(self) -> None:
        query = _query()

        def query_value(value: str) -> str:
            return str(query().set([("a", value)]))[2:]

        def serialize(pairs: list[tuple[str, str]]) -> str:
            return str(query().set(pairs))

        def parse(text: str) -> list[tuple[str, str]]:
            return [(k, "" if v is None else v) for k, v in query(text).params.allitems()]

        super().__init__(
            "furl", {"query-value": (get_set(QUERY_VALUE_SPEC), query_value)},
            None, serialize, parse, {"query-value": QUERY_VALUE_SPEC}, True,
        )
        self.modules_under_test = ("furl.furl",)
