"""furl as an implementation under test (see ``pctfuzz.oracles``).

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

from ..accept import divergence, encoded, left_raw
from ..cases import FormCase
from ..sets import get_set
from .function import FunctionAdapter

__all__ = ["FurlAdapter"]

#: pctfuzz probe out/p.py:furl_query (str(Query().set([("a", v)]))[2:]), furl 2.1.4:
#: exact set rfc3986-unreserved, space +, existing %HH encoded, non-ASCII utf-8.
QUERY_VALUE_SPEC = "rfc3986-unreserved"


def _query() -> Any:
    import furl

    return furl.Query


def _has(case: object, char: str) -> bool:
    """Whether a form case's names or values hold ``char``."""
    pairs = getattr(case, "pairs", ())
    return any(char in name or char in value for name, value in pairs)


class FurlAdapter(FunctionAdapter):
    """furl.Query: a query value, serializing and parsing (module docstring)."""

    distribution = "furl"
    divergences = (
        divergence(
            id="furl-urlencode-tilde", check="form", reconcile=left_raw("~"),
            citation="furl/furl.py Query.encode(dont_quote='') -> create_quote_fn: "
                     "urllib.parse.quote(s, safe='') then %20 -> +; ~ is unreserved there",
            why="RFC 3986 2.3 lists ~ as unreserved; the form set of the URL Standard "
                "(5.2, application/x-www-form-urlencoded) percent-encodes it",
            example=FormCase((("a", "~"),)),
            # Entries that model the whole output do not compose (accept.py phases).
            applies=lambda case: isinstance(case, FormCase) and _has(case, "~")
            and not _has(case, "*"),
        ),
        divergence(
            id="furl-query-star", check="form", reconcile=encoded("*"),
            citation="furl/furl.py Query.encode(dont_quote=''): urllib.parse.quote(s, "
                     "safe=''), which encodes * (dont_quote= lists characters to keep)",
            why="the form set of the URL Standard (5.2) leaves * raw; by default furl "
                "keeps only RFC 3986 unreserved characters raw",
            example=FormCase((("a", "*"),)),
            applies=lambda case: isinstance(case, FormCase) and _has(case, "*")
            and not _has(case, "~"),
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
