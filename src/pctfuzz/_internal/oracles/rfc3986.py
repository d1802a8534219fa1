"""rfc3986 as an implementation under test (see ``pctfuzz._internal.oracles``).

The rfc3986 package encodes every component it parses with one public function,
``rfc3986.normalizers.encode_component(component, encoding)`` (``uri_reference()``
and ``URIReference.from_string`` call it on the scheme, authority, path, query and
fragment), and builds queries with ``rfc3986.builder.URIBuilder``:

- **encode**: ``encode_component(value, "utf-8")``: every byte outside the RFC 3986
  reserved and unreserved characters (``rfc3986.misc.NON_PCT_ENCODED``) as ``%HH``.
  ``pctfuzz probe pctfuzz._internal.oracles.rfc3986:Rfc3986Adapter --set encodeURI-[]`` reports
  ``encodeURI-[]``, space as ``%20``, str only. Its source: "Try to see if the
  component we're encoding is already percent-encoded so we can skip all '%'
  characters": when every ``%`` starts a valid ``%HH``, the escapes are kept as they
  are (an accepted entry); otherwise each ``%`` is data. Only UTF-8 is mapped here:
  the function's ``encoding`` is a Python codec, which raises on a character the
  legacy encoding lacks where WHATWG writes ``&#NNNN;``.
- **encode** (label ``userinfo``, ``rfc3986-unreserved``): the userinfo of
  ``URIBuilder().add_credentials(v, None)``, ``normalize_username``:
  ``urllib.parse.quote(v)``, whose default ``safe="/"`` leaves ``/`` raw where RFC 3986
  3.2.1's userinfo has none (a bug: docs/in-the-wild.md; the declared set is the one
  RFC 3986 allows, so campaigns find it). The password is quoted by the same call.
  ``add_path``, ``add_query`` and ``add_fragment`` encode nothing (they only normalize
  the case of existing escapes and dot segments), and ``copy_with`` takes components
  as they are: so the other components are the ``encode_component`` above;
- **form_serialize**: ``URIBuilder().add_query_from(pairs).query``:
  ``normalize_query(urlencode(pairs))``, urllib's ``quote_plus`` set (an accepted
  entry).

rfc3986 has no percent-decoder and no query parser, so decode and form_parse are
``Unsupported``.
"""

from __future__ import annotations

import dataclasses
import importlib
from types import MappingProxyType
from typing import Any

from pctfuzz._internal.accept.model import Model as _Model
from pctfuzz._internal.accept.reconcilers import divergence, left_raw, requoted
from pctfuzz._internal.accept.reconcilers import set_change as _set_change
from pctfuzz._internal.cases import Case, EncodeCase, FormCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.operations import ENCODE, FORM_SERIALIZE
from pctfuzz._internal.oracles.base import Adapter, Unsupported, library_call
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.spec import PERCENT_ENCODED_BYTE

__all__ = ["Rfc3986Adapter"]

#: ``pctfuzz probe pctfuzz._internal.oracles.rfc3986:Rfc3986Adapter --set encodeURI-[]``
#: (rfc3986 2.0.0): "spec: encodeURI-[]" (rfc3986.misc.NON_PCT_ENCODED)
COMPONENT_SET = "encodeURI-[]"
#: RFC 3986 3.2.1: userinfo = *( unreserved / pct-encoded / sub-delims / ":" ); quote()
#: keeps only the unreserved characters (and, by its default, "/": the bug).
USERINFO_SET = "rfc3986-unreserved"
_ESCAPE = PERCENT_ENCODED_BYTE


def _already_encoded(case: object) -> bool:
    """encode_component takes the value as encoded: it has a %, each a valid %HH."""
    value = getattr(case, "value", "")
    return (isinstance(value, str) and "%" in value
            and len(_ESCAPE.findall(value)) == value.count("%"))


def _label(case: object) -> str | None:
    """The label of ``Rfc3986Adapter.sets`` an encode case asks, if any."""
    if not isinstance(case, EncodeCase):
        return None
    members = get_set(case.set_name).members
    return next((label for label, name in Rfc3986Adapter.sets.items()
                 if get_set(name).members == members), None)


class Rfc3986Adapter(Adapter):
    """rfc3986: ``normalizers.encode_component`` and ``URIBuilder.add_query_from``."""

    name = "rfc3986"
    distribution = "rfc3986"
    modules_under_test: tuple[str, ...] = ("rfc3986.normalizers", "rfc3986.builder")
    sets = MappingProxyType({"encode_component": COMPONENT_SET, "userinfo": USERINFO_SET})
    encodings = ("UTF-8",)
    value_types = ("str",)
    spaces = (False,)
    divergences = (
        divergence(
            id="rfc3986-component-already-encoded", check=ENCODE.name,
            reconcile=requoted("keep"),
            citation="rfc3986.normalizers.encode_component source comment: 'Try to see if "
                     "the component we're encoding is already percent-encoded so we can "
                     "skip all '%' characters but still encode all others.'",
            why="a component that parses as encoded is not encoded twice",
            example=EncodeCase("%41", COMPONENT_SET),
            applies=lambda case: _already_encoded(case) and _label(case) == "encode_component",
        ),
        dataclasses.replace(
            divergence(
                id="rfc3986-query-urlencode-set", check=FORM_SERIALIZE.name,
                reconcile=left_raw("~"),
                summary="urlencode's set: ~ raw, * encoded (the RFC 3986 unreserved set)",
                citation="rfc3986.builder.URIBuilder.add_query_from: "
                         "normalizers.normalize_query(compat.urlencode(query_items)) "
                         "(urllib.parse.quote_plus: 'Letters, digits, and the characters "
                         "_.-~ are never quoted')",
                why="urlencode keeps RFC 3986's unreserved set, where the WHATWG "
                    "urlencoded set encodes ~ and leaves * raw",
                example=FormCase((("~*", "~*"),)),
            ),
            # one entry for both characters: the set urlencode uses
            reconcile=_set_change(frozenset({ord("*")}), frozenset({ord("~")})),
            model=_Model(raw=frozenset({ord("~")}), encoded=frozenset({ord("*")})),
        ),
    )

    def __init__(self) -> None:
        # rfc3986 ships no type information: imported by name, typed Any
        self._encode: Any = importlib.import_module("rfc3986.normalizers").encode_component
        self._builder: Any = importlib.import_module("rfc3986.builder").URIBuilder
        self._members = get_set(COMPONENT_SET).members

    def encode(self, case: EncodeCase) -> str:
        label = _label(case)
        if label is None:
            raise Unsupported(f"rfc3986 encodes only the sets {COMPONENT_SET}, {USERINFO_SET}")
        if isinstance(case.value, bytes):
            raise Unsupported("encode_component is given str here")
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("only UTF-8 is mapped (a Python codec is not a WHATWG encoder)")
        if case.space_as_plus and " " in case.value:
            raise Unsupported("encode_component writes a space as %20")
        if label == "userinfo":
            userinfo: str = self._builder().add_credentials(case.value, None).userinfo
            return userinfo
        result: str = self._encode(case.value, "utf-8")
        return result

    def reproduction(self, check: str, case: Case) -> str | None:
        if isinstance(case, EncodeCase) and _label(case) == "userinfo":
            return library_call(("rfc3986.builder",), "rfc3986.builder.URIBuilder()."
                                "add_credentials(value, None).userinfo", value=case.value)
        if isinstance(case, EncodeCase):
            return library_call(("rfc3986.normalizers",), 'rfc3986.normalizers.'
                                'encode_component(value, "utf-8")', value=case.value)
        return None  # the form goes through URIBuilder: see form_serialize

    def form_serialize(self, case: FormCase) -> str:
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("add_query_from encodes UTF-8 (urlencode)")
        query = self._builder().add_query_from(list(case.pairs)).query
        return "" if query is None else str(query)
