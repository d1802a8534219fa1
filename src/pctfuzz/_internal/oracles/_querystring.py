"""Accepted differences shared by query APIs built on urllib (``urlencode``, ``unquote``).

``urlencode`` quotes names and values with ``quote_plus(safe="")``: the RFC 3986
unreserved characters are left raw (``~`` among them, which the form set of the URL
Standard 5.2 encodes) and everything else is encoded (``*`` too, which the form set
leaves raw). One entry states that whole set, since two set-change entries (``~``
left raw, ``*`` encoded) each model the output alone and would not compose.
"""

from __future__ import annotations

from typing import Any

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.accept.reconcilers import Reconciler, divergence
from pctfuzz._internal.cases import Case, FormCase
from pctfuzz._internal.operations import FORM_SERIALIZE
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import get_set

__all__ = ["CITE_URLLIB", "QUOTE_PLUS_SET", "query_params_functions",
           "urlencode_entry"]

#: Where Python documents the set quote_plus leaves raw.
CITE_URLLIB = ("Python docs, urllib.parse.quote: 'Changed in version 3.7: ... '~' is now "
               "included in the set of unreserved characters'")

#: What ``quote_plus(safe="")`` leaves raw: RFC 3986 2.3 unreserved (space as ``+``).
QUOTE_PLUS_SET = "rfc3986-unreserved"


def _grouped(pairs: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    first: dict[str, int] = {}
    for name, _ in pairs:
        first.setdefault(name, len(first))
    return sorted(pairs, key=lambda p: first[p[0]])


def _reconciler(grouped: bool, raw_equals: bool) -> Reconciler:
    pes = get_set(QUOTE_PLUS_SET)

    def reconcile(
        case: Case, expected: Outcome, actual: Outcome
    ) -> tuple[Outcome, Outcome] | None:
        if expected.raised or not isinstance(case, FormCase):
            return None
        pairs = _grouped(case.pairs) if grouped else list(case.pairs)

        def field(text: str) -> str:
            return percent_encode(text, pes, encoding=case.encoding, space_as_plus=True)

        def value(name: str, text: str) -> str:
            # furl: "Unquote '=' to allow queries like '?==='" after an empty name.
            out = field(text)
            return out.replace("%3D", "=") if raw_equals and not name else out

        return Outcome("&".join(field(n) + "=" + value(n, v) for n, v in pairs)), actual

    order = ", pairs grouped by name" if grouped else ""
    order += ", = raw in a value after an empty name" if raw_equals else ""
    return Reconciler("urlencode", frozenset({FORM_SERIALIZE.name}), reconcile,
                      "the form set of the URL Standard (5.2)",
                      f"urllib quote_plus(safe=''): ~ raw, * encoded{order}")


def urlencode_entry(
    lib: str, citation: str, *, grouped: bool = False, raw_equals: bool = False
) -> KnownDivergence:
    """``lib``'s form serializer writes names and values as ``quote_plus(safe="")``
    (module docstring); ``grouped``: its multi-dict also groups the pairs by name;
    ``raw_equals``: a value after an empty name keeps ``=`` raw (furl)."""
    example = ((("a", "~*"), ("b", "2"), ("a", "3")) if grouped
               else (("a", "~*"), ("", "=")) if raw_equals else (("a", "~*"),))
    return divergence(
        id=f"{lib}-urlencode-quote-plus", check=FORM_SERIALIZE.name,
        reconcile=_reconciler(grouped, raw_equals),
        citation=citation,
        why="urllib's quote_plus keeps RFC 3986 2.3 unreserved characters (~) raw and "
            "encodes the rest (*); the URL Standard 5.2 form set encodes ~ and keeps *"
            + (". QueryParams is a multi-dict: values of one name are written together"
               if grouped else "")
            + ("; furl writes = raw after an empty name, which parses back the same"
               if raw_equals else ""),
        example=FormCase(example),
    )


def query_params_functions(query_params: Any) -> tuple[Any, Any, Any]:
    """(query value encoder, form serializer, form parser) of a ``QueryParams`` class
    (httpx and starlette share this shape): a value is what ``str(QueryParams([("",
    v)]))`` writes after its ``=``; pairs serialize with ``str()``; text parses into
    ``multi_items()``."""

    def query_value(value: str) -> str:
        return str(query_params([("", value)]))[1:]

    def serialize(pairs: list[tuple[str, str]]) -> str:
        return str(query_params(pairs))

    def parse(text: str | bytes) -> list[tuple[str, str]]:
        return [(str(k), str(v)) for k, v in query_params(text).multi_items()]

    return query_value, serialize, parse
