"""starlette as an implementation under test (see ``pctfuzz._internal.oracles``).

starlette's query API is ``starlette.datastructures.QueryParams``: ``str(QueryParams(
pairs))`` serializes (``urllib.parse.urlencode``), ``QueryParams(text)`` parses
(``urllib.parse.parse_qsl(keep_blank_values=True)``; bytes, what an ASGI server puts
in ``scope["query_string"]``, are first decoded as latin-1: starlette/datastructures.py):

- **encode** (label ``query-value``): a query value, ``str(QueryParams([("", v)]))``
  without its leading ``=``; UTF-8 str, space as ``+``;
- **form_serialize**: ``str(QueryParams(pairs))``;
- **form_parse**: ``QueryParams(text).multi_items()``, str or bytes;
- **decode**: Unsupported (starlette has no public percent-decoder).
"""

from __future__ import annotations

from typing import Any

from pctfuzz._internal.cases import Case, FormParseCase
from pctfuzz._internal.oracles._querystring import (
    CITE_URLLIB,
    query_params_functions,
    urlencode_entry,
)
from pctfuzz._internal.oracles.base import library_call
from pctfuzz._internal.oracles.function import FunctionAdapter
from pctfuzz._internal.sets import get_set

__all__ = ["StarletteAdapter"]

#: pctfuzz probe out/p.py:starlette_query (str(QueryParams([("", v)]))[1:]),
#: starlette 1.10.0: exact set rfc3986-unreserved, space +, existing %HH encoded.
QUERY_VALUE_SPEC = "rfc3986-unreserved"


def _query_params() -> Any:
    from starlette.datastructures import QueryParams

    return QueryParams


class StarletteAdapter(FunctionAdapter):
    """starlette.datastructures.QueryParams (module docstring)."""

    distribution = "starlette"
    divergences = (
        urlencode_entry(
            "starlette", "starlette/datastructures.py QueryParams.__str__: "
            "urlencode(self._list); " + CITE_URLLIB,
        ),
    )

    def __init__(self) -> None:
        qp = _query_params()
        self._qp = qp

        query_value, serialize, parse = query_params_functions(qp)

        super().__init__(
            "starlette", {"query-value": (get_set(QUERY_VALUE_SPEC), query_value)},
            None, serialize, parse, {"query-value": QUERY_VALUE_SPEC}, True,
        )
        self.modules_under_test = ("starlette.datastructures",)

    def reproduction(self, check: str, case: Case) -> str | None:
        """A form-parse case through ``QueryParams`` itself, str or bytes (what an ASGI
        server's ``query_string`` is); else FunctionAdapter's."""
        if isinstance(case, FormParseCase):
            return library_call(("starlette.datastructures",), "[(str(k), str(v)) for k, v "
                                "in starlette.datastructures.QueryParams(text).multi_items()]",
                                text=case.text)
        return super().reproduction(check, case)

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        # QueryParams documents bytes too (the ASGI query_string): asked as they are.
        return [(str(k), str(v)) for k, v in self._qp(case.text).multi_items()]
