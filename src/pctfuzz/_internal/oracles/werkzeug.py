"""Werkzeug as an implementation under test (see ``pctfuzz._internal.oracles``).

Werkzeug 3 removed its own quoting functions (``url_quote``, ``url_encode``,
``url_decode``: deprecated in 2.3, gone in 3.0); ``werkzeug.urls.quote``, ``unquote``
and ``urlencode`` are urllib.parse's, imported. What it still has of its own:

- **encode**: ``werkzeug.urls.iri_to_uri(iri)``: ``urlsplit``, then ``quote`` of the
  path, query and fragment with a safe set per part (its source: "safe =
  https://url.spec.whatwg.org/#url-path-segment-string as well as percent for things
  that are already quoted"), joined by ``urlunsplit``. ``pctfuzz probe
  werkzeug.urls:iri_to_uri`` reports ``encodeURI-%25``, UTF-8, space as ``%20``, str
  only. The function takes a *URL*: it lowercases the scheme, IDNA-encodes the host and
  lets urllib strip C0 controls and space at the ends and tab and newline anywhere
  (urllib.parse's WHATWG stripping), and drop an empty ``?`` or ``#``. So the values it
  answers for are those that urllib's ``urlsplit``/``urlunsplit`` give back unchanged,
  with no authority (host): the others are ``Unsupported`` ("not a URL iri_to_uri
  keeps").
- **encode** of the path alone (label ``path``): ``iri_to_uri("/p/" + v)`` without the
  ``/p/`` (a value of its own may start with ``/``), the path's ``quote`` set (``?``
  is encoded, where the whole function's set leaves it raw). The query's and
  fragment's sets are the whole function's (``encodeURI-%25``: a value with ``?`` or
  ``#`` reaches them through the first label); the userinfo is split at ':' and '@'
  by urlsplit, so it is not asked alone. A path value with ``?`` or ``#`` (which
  would end it) is ``Unsupported``.
- **form_parse**: ``Request(environ).args.items(multi=True)``, the parsed query string
  a Werkzeug (or Flask) application reads, from a WSGI ``QUERY_STRING`` (PEP 3333: the
  bytes as latin-1; str text is first encoded as UTF-8, as a client sends it). It is
  ``parse_qsl(..., keep_blank_values=True, errors="werkzeug.url_quote")``: invalid UTF-8
  stays percent-encoded, and the ``MultiDict`` groups the pairs by name. Both are
  accepted entries below.

Werkzeug has no percent-decoder (``uri_to_iri`` keeps reserved escapes by design) and no
form serializer of its own any more, so those are ``Unsupported``.
"""

from __future__ import annotations

import urllib.parse
from types import MappingProxyType
from typing import Any

from pctfuzz._internal.accept.reconcilers import divergence, pairs_order, replacement
from pctfuzz._internal.cases import Case, EncodeCase, FormParseCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.operations import FORM_PARSE
from pctfuzz._internal.oracles.base import Adapter, Unsupported, library_call
from pctfuzz._internal.sets import get_set

__all__ = ["WerkzeugAdapter"]

#: ``pctfuzz probe werkzeug.urls:iri_to_uri`` (Werkzeug 3.1.9): "spec: encodeURI-%25"
IRI_TO_URI_SET = "encodeURI-%25"
#: label -> (prefix of the value, characters that end the component, set spec): the
#: ``quote`` safe sets of iri_to_uri, as ``pctfuzz probe`` found them per component.
COMPONENTS = {
    "iri_to_uri": ("", "", IRI_TO_URI_SET),
    "path": ("/p/", "?#", "rfc3986-pchar-/%25"),
}


class WerkzeugAdapter(Adapter):
    """Werkzeug 3: ``iri_to_uri`` and ``Request.args``."""

    name = "werkzeug"
    distribution = "werkzeug"
    modules_under_test: tuple[str, ...] = ("werkzeug.urls", "werkzeug.sansio.request")
    sets = MappingProxyType({label: spec for label, (_, _, spec) in COMPONENTS.items()})
    encodings = ("UTF-8",)
    value_types = ("str",)
    spaces = (False,)
    divergences = (
        divergence(
            id="werkzeug-args-invalid-utf8-kept", check=FORM_PARSE.name,
            reconcile=replacement("percent-encoded"),
            citation="werkzeug.sansio.request.Request.args docstring: 'versionchanged 2.3: "
                     "Invalid bytes remain percent encoded' (errors='werkzeug.url_quote')",
            why="Werkzeug keeps undecodable bytes visible instead of U+FFFD",
            example=FormParseCase("a=%FF"),
        ),
        divergence(
            id="werkzeug-args-grouped", check=FORM_PARSE.name, reconcile=pairs_order("grouped"),
            citation="werkzeug.datastructures.MultiDict docs: 'items(multi=True)' "
                     "returns the values of a key together, keys in insertion order",
            why="Request.args is a MultiDict: pairs are grouped by name",
            example=FormParseCase("a=1&b=2&a=3"),
        ),
    )

    def __init__(self) -> None:
        import werkzeug.urls
        from werkzeug.wrappers import Request

        self._iri_to_uri: Any = werkzeug.urls.iri_to_uri
        self._request: Any = Request
        self._labels = {get_set(spec).members: label for label, (_, _, spec) in
                        COMPONENTS.items()}

    def _component(self, case: EncodeCase) -> tuple[str, str]:
        """(label, prefix) of the component the case's set is; Unsupported if none."""
        label = self._labels.get(get_set(case.set_name).members)
        if label is None:
            raise Unsupported(f"iri_to_uri implements only {', '.join(self.sets.values())}")
        prefix, ends, _ = COMPONENTS[label]
        if isinstance(case.value, str) and any(c in case.value for c in ends):
            raise Unsupported(f"{' or '.join(ends)} would end the {label}")
        return label, prefix

    def encode(self, case: EncodeCase) -> str:
        _, prefix = self._component(case)
        if isinstance(case.value, bytes):
            raise Unsupported("iri_to_uri takes str (Werkzeug 3)")
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("iri_to_uri always encodes UTF-8")
        if case.space_as_plus and " " in case.value:
            raise Unsupported("iri_to_uri writes a space as %20")
        text = prefix + case.value
        try:
            parts = urllib.parse.urlsplit(text)
        except ValueError:  # "Invalid IPv6 URL": an authority with an unclosed "["
            parts = urllib.parse.SplitResult("", "[", "", "", "")
        if parts.netloc or urllib.parse.urlunsplit(parts) != text:
            raise Unsupported("not a URL iri_to_uri keeps (urlsplit/urlunsplit change it, "
                              "or it has a host, which is IDNA-encoded)")
        result: str = self._iri_to_uri(text)
        return result[len(prefix):]

    def reproduction(self, check: str, case: Case) -> str | None:
        if isinstance(case, EncodeCase):
            try:
                _, prefix = self._component(case)
            except Unsupported:
                return None
            return library_call(("werkzeug.urls",),
                                f"werkzeug.urls.iri_to_uri({prefix!r} + value)[{len(prefix)}:]",
                                value=case.value)
        return None  # form-parse goes through a WSGI request: see form_parse

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        text = case.text
        try:
            data = text if isinstance(text, bytes) else text.encode("utf-8")
        except UnicodeEncodeError:
            raise Unsupported("a WSGI QUERY_STRING holds bytes: a lone surrogate has "
                              "none") from None
        environ = {
            "REQUEST_METHOD": "GET", "QUERY_STRING": data.decode("latin-1"),
            "SERVER_NAME": "h", "SERVER_PORT": "80", "PATH_INFO": "/",
            "wsgi.url_scheme": "http",
        }
        return [(str(k), str(v)) for k, v in self._request(environ).args.items(multi=True)]
