"""Tornado as an implementation under test (see ``pctfuzz._internal.oracles``).

Mapping onto the reference's questions (tornado/escape.py):

- **encode**: ``url_escape(value, plus=True)`` (label ``query``: ``quote_plus``, space
  ``+``) and ``url_escape(value, plus=False)`` (label ``path``: ``quote``, ``/`` left
  raw, space ``%20``); str or bytes, UTF-8;
- **decode**: ``url_unescape(value, encoding=None, plus=False)``, str or bytes, exact
  bytes;
- **form_parse**: ``tornado.escape.parse_qs_bytes(text, keep_blank_values=True)``, what
  ``HTTPServerRequest`` parses query and body arguments with. Values come back as
  bytes, decoded here as UTF-8 with U+FFFD as ``RequestHandler.decode_argument`` does;
  names come back "interpreted as latin1" (its docstring), so they are re-encoded
  as latin-1 and decoded the same way, which recovers the name the client sent;
- **form_serialize**: Unsupported (Tornado has no form serializer of its own).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from pctfuzz._internal.accept.entry import REPLACE as _REPLACE
from pctfuzz._internal.accept.reconcilers import Reconciler, divergence
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormParseCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.form import form_urldecode_bytes
from pctfuzz._internal.operations import FORM_PARSE
from pctfuzz._internal.oracles.base import Adapter, Unsupported, library_call
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.sets import get_set

__all__ = ["TornadoAdapter"]

#: pctfuzz probe out/p.py:tornado_plus (url_escape(v)), tornado 6.6.1: exact set
#: rfc3986-unreserved, space +, existing %HH encoded, non-ASCII utf-8.
QUERY_SPEC = "rfc3986-unreserved"
#: pctfuzz probe out/p.py:tornado_noplus (url_escape(v, plus=False)): nearest
#: rfc3986-unreserved, leaves raw /, space %20.
PATH_SPEC = "rfc3986-unreserved-/"


def _grouped_by_raw_name() -> Reconciler:
    """The WHATWG URL 5.1 pairs, before their UTF-8 decode, grouped by the name's bytes:
    parse_qs_bytes keys its dict by the name "interpreted as latin1", so two names that
    are not UTF-8 (b"\\xdc", b"\\xff") are two keys, though each decodes to U+FFFD."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> Any:
        if expected.raised or not isinstance(case, FormParseCase) or isinstance(case.text, str):
            return None
        groups: dict[bytes, list[bytes]] = {}
        for name, value in form_urldecode_bytes(case.text):
            groups.setdefault(name, []).append(value)
        return Outcome([(name.decode("utf-8", "replace"), value.decode("utf-8", "replace"))
                        for name, values in groups.items() for value in values]), actual

    return Reconciler("grouped_by_raw_name", frozenset({FORM_PARSE.name}), reconcile,
                      "keeps the pairs in list order",
                      "pairs grouped by the name's bytes (a dict of lists)", _REPLACE)


class TornadoAdapter(Adapter):
    """tornado.escape url_escape/url_unescape/parse_qs_bytes (module docstring)."""

    name = "tornado"
    distribution = "tornado"
    modules_under_test: tuple[str, ...] = ("tornado.escape",)
    sets = MappingProxyType({"query": QUERY_SPEC, "path": PATH_SPEC})
    encodings = ("UTF-8",)
    value_types = ("str", "bytes")
    divergences = (
        divergence(
            id="tornado-arguments-grouped", check=FORM_PARSE.name,
            reconcile=_grouped_by_raw_name(),
            citation="tornado/escape.py parse_qs_bytes: 'Parses a query string like "
                     "urlparse.parse_qs' into a dict of lists; 'Keys still become type str "
                     "(interpreted as latin1 in python3!)'",
            why="arguments are a dict name -> list of values: the values of one name "
                "are kept together, in the order the name first appears; a name is its "
                "bytes, so two names that are not UTF-8 stay apart",
            example=FormParseCase(b"a=1&b=2&a=3"),
        ),
    )

    def __init__(self) -> None:
        import tornado.escape

        self._escape: Any = tornado.escape
        self._sets = {(get_set(QUERY_SPEC).members, True): True,
                      (get_set(PATH_SPEC).members, False): False}

    def encode(self, case: EncodeCase) -> str:
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("url_escape always encodes UTF-8")
        members = get_set(case.set_name).members
        plus = self._sets.get((members, case.space_as_plus))
        if plus is None:
            space = (b" " if isinstance(case.value, bytes) else " ") in case.value  # type: ignore[operator]
            if not space and (members, not case.space_as_plus) in self._sets:
                plus = self._sets[(members, not case.space_as_plus)]
            else:
                raise Unsupported("url_escape: rfc3986-unreserved with + (plus=True) or "
                                  "rfc3986-unreserved-/ with %20 (plus=False)")
        result: str = self._escape.url_escape(case.value, plus=plus)
        return result

    def reproduction(self, check: str, case: Case) -> str | None:
        imports = ("tornado.escape",)
        if isinstance(case, EncodeCase):
            members = get_set(case.set_name).members
            plus = self._sets.get((members, case.space_as_plus),
                                  self._sets.get((members, not case.space_as_plus)))
            if plus is None:
                return None
            return library_call(imports, f"tornado.escape.url_escape(value, plus={plus})",
                                value=case.value)
        if isinstance(case, DecodeCase):
            return library_call(imports, "tornado.escape.url_unescape(value, encoding=None, "
                                "plus=False)", value=case.value)
        if isinstance(case, FormParseCase):
            return library_call(imports, '[(n.encode("latin-1").decode("utf-8", "replace"), '
                                'v.decode("utf-8", "replace")) for n, values in tornado.escape.'
                                "parse_qs_bytes(text, keep_blank_values=True).items() "
                                "for v in values]", text=case.text)
        return None

    def decode(self, case: DecodeCase) -> bytes:
        result: bytes = self._escape.url_unescape(case.value, encoding=None, plus=False)
        return result

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        if isinstance(case.text, str):
            # "takes bytes" (its docstring); a str is encoded as latin-1 first.
            raise Unsupported("parse_qs_bytes takes bytes, as HTTPServerRequest gives it")
        args = self._escape.parse_qs_bytes(case.text, keep_blank_values=True)
        return [
            (name.encode("latin-1").decode("utf-8", "replace"),
             value.decode("utf-8", "replace"))
            for name, values in args.items() for value in values
        ]
