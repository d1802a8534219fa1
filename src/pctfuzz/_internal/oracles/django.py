"""Django as an implementation under test (see ``pctfuzz._internal.oracles``).

Django's URL helpers read settings (``DEFAULT_CHARSET``), so the adapter calls
``django.conf.settings.configure()`` (all defaults: UTF-8) once, unless the process has
configured Django already. Mapping onto the reference's questions:

- **encode**: ``django.utils.encoding.iri_to_uri`` (label ``iri``, RFC 3987 3.1) and
  ``django.utils.encoding.escape_uri_path`` (label ``path``); UTF-8 str, space ``%20``;
- **form_serialize**: ``django.utils.http.urlencode(pairs)``;
- **form_parse**: ``django.http.QueryDict(text)``, its ``lists()`` flattened;
- **decode**: Unsupported (``uri_to_iri`` decodes only some escapes by design, and
  Django has no other public percent-decoder).
"""

from __future__ import annotations

from typing import Any

from pctfuzz._internal.accept.reconcilers import divergence, pairs_order
from pctfuzz._internal.cases import FormParseCase
from pctfuzz._internal.operations import FORM_PARSE
from pctfuzz._internal.oracles._querystring import CITE_URLLIB, urlencode_entry
from pctfuzz._internal.oracles.function import FunctionAdapter
from pctfuzz._internal.sets import get_set

__all__ = ["DjangoAdapter"]

#: pctfuzz probe out/p.py:django_iri (iri_to_uri), Django 5.2: nearest encodeURI,
#: leaves raw %25[]; existing %HH kept, space %20, non-ASCII utf-8.
IRI_SPEC = "encodeURI-%25[]"
#: pctfuzz probe out/p.py:django_path (escape_uri_path), Django 5.2: nearest
#: rfc3986-pchar, also encodes ;=, leaves raw /; existing %HH encoded.
PATH_SPEC = "rfc3986-pchar+;=-/"


def _configured() -> Any:
    from django.conf import settings

    if not settings.configured:
        settings.configure()  # defaults: DEFAULT_CHARSET "utf-8"
    from django.http import QueryDict
    from django.utils import encoding, http

    return encoding, http, QueryDict


class DjangoAdapter(FunctionAdapter):
    """Django's iri_to_uri, escape_uri_path, urlencode and QueryDict (module docstring)."""

    distribution = "Django"
    divergences = (
        urlencode_entry(
            "django", "django/utils/http.py urlencode: 'A version of Python's "
            "urllib.parse.urlencode()', which it calls; " + CITE_URLLIB,
        ),
        divergence(
            id="django-querydict-grouped", check=FORM_PARSE.name,
            reconcile=pairs_order("grouped"),
            citation="django/utils/datastructures.py MultiValueDict: a dict of lists; "
                     "QueryDict.lists() yields each name once",
            why="QueryDict is a multi-dict: the values of one name are kept together, "
                "in the order the name first appears",
            example=FormParseCase("a=1&b=2&a=3"),
        ),
    )

    def __init__(self) -> None:
        encoding, http, query_dict = _configured()

        def parse(text: str) -> list[tuple[str, str]]:
            return [(k, v) for k, values in query_dict(text).lists() for v in values]

        def serialize(pairs: list[tuple[str, str]]) -> str:
            result: str = http.urlencode(pairs)
            return result

        super().__init__(
            "django",
            {"iri": (get_set(IRI_SPEC), encoding.iri_to_uri),
             "path": (get_set(PATH_SPEC), encoding.escape_uri_path)},
            None, serialize, parse, {"iri": IRI_SPEC, "path": PATH_SPEC}, False,
        )
        self.modules_under_test = ("django.utils.encoding", "django.utils.http",
                                   "django.http.request")
