"""requests as an implementation under test (see ``pctfuzz._internal.oracles``).

requests has one percent-encoding function of its own and one form serializer, both
public:

- **encode**: ``requests.utils.requote_uri(uri)``, what ``PreparedRequest.prepare_url``
  applies to every URL. ``pctfuzz probe requests.utils:requote_uri`` reports the set
  ``encodeURI-%25[]`` (``urllib.parse.quote`` with ``safe="!#$%&'()*+,/:;=?@[]~"``),
  UTF-8, space as ``%20``, str only. Existing escapes are requoted
  (``unquote_unreserved``: an escape of an unreserved character is decoded, others
  kept); an escape whose two characters are alphanumeric but not hex raises
  ``InvalidURL`` inside, and requote_uri then quotes the whole input with ``%`` encoded
  too (its ``except InvalidURL`` fallback). Both are accepted entries below.
- **form_serialize**: ``requests.Request("POST", url, data=pairs).prepare().body``, the
  ``application/x-www-form-urlencoded`` body requests sends (``_encode_params``:
  ``urllib.parse.urlencode`` of the UTF-8 pairs, ``quote_plus``), UTF-8 only.

requests has no percent-decoder or form parser of its own (``requests.utils.unquote`` is
``urllib.parse.unquote``), so decode and form_parse are ``Unsupported``.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Any

from pctfuzz._internal.accept.model import Model as _Model
from pctfuzz._internal.accept.reconcilers import divergence, encoded, left_raw, requoted
from pctfuzz._internal.accept.reconcilers import set_change as _set_change
from pctfuzz._internal.cases import Case, EncodeCase, FormCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.operations import ENCODE, FORM_SERIALIZE
from pctfuzz._internal.oracles.base import Adapter, Unsupported, library_call
from pctfuzz._internal.sets import get_set

__all__ = ["RequestsAdapter"]

#: ``pctfuzz probe requests.utils:requote_uri`` (requests 2.34.2): "spec: encodeURI-%25[]"
REQUOTE_SET = "encodeURI-%25[]"


def _falls_back(case: object) -> bool:
    """requote_uri takes its ``except InvalidURL`` branch for this case's value."""
    from requests.exceptions import InvalidURL
    from requests.utils import unquote_unreserved

    value = getattr(case, "value", None)
    if not isinstance(value, str):
        return False
    try:
        unquote_unreserved(value)
    except InvalidURL:
        return True
    return False


class RequestsAdapter(Adapter):
    """requests: ``requote_uri`` and the form body of ``Request(data=pairs)``."""

    name = "requests"
    distribution = "requests"
    modules_under_test: tuple[str, ...] = ("requests.utils", "requests.models")
    sets = MappingProxyType({"requote_uri": REQUOTE_SET})
    encodings = ("UTF-8",)
    value_types = ("str",)
    spaces = (False,)
    divergences = (
        divergence(
            id="requests-requote-unreserved", check=ENCODE.name,
            reconcile=requoted("decode-unreserved"),
            citation="requests.utils.requote_uri docstring: 'passes the given URI through "
                     "an unquote/quote cycle'; unquote_unreserved: 'Un-escape any "
                     "percent-escape sequences in a URI that are unreserved characters'",
            why="requote_uri normalizes a URL that may already be quoted "
                "(RFC 3986 6.2.2.2); the reference treats % as data",
            example=EncodeCase("%41%2F", REQUOTE_SET),
            applies=lambda case: not _falls_back(case),
        ),
        divergence(
            id="requests-requote-invalid-fallback", check=ENCODE.name,
            reconcile=encoded("%"),
            citation="requests.utils.requote_uri source comment: 'We couldn't unquote the "
                     "given URI, so let's try quoting it, but there may be unquoted %s in "
                     "the URI' (quote with safe_without_percent)",
            why="an escape of two non-hex alphanumerics (InvalidURL) makes requote_uri "
                "quote every %, existing escapes included",
            example=EncodeCase("%zz", REQUOTE_SET),
            applies=_falls_back,
        ),
        dataclasses.replace(
            divergence(
                id="requests-form-urlencode-set", check=FORM_SERIALIZE.name,
                reconcile=left_raw("~"),
                summary="urlencode's set: ~ raw, * encoded (the RFC 3986 unreserved set)",
                citation="requests.models.RequestEncodingMixin._encode_params: "
                         "urllib.parse.urlencode (quote_plus: 'Letters, digits, and the "
                         "characters _.-~ are never quoted')",
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
        import requests
        from requests.utils import requote_uri

        self._requote: Any = requote_uri
        self._request: Any = requests.Request
        self._members = get_set(REQUOTE_SET).members

    def encode(self, case: EncodeCase) -> str:
        if get_set(case.set_name).members != self._members:
            raise Unsupported(f"requote_uri implements only {REQUOTE_SET}")
        if isinstance(case.value, bytes):
            raise Unsupported("requote_uri takes str")
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("requote_uri always encodes UTF-8")
        if case.space_as_plus and " " in case.value:
            raise Unsupported("requote_uri writes a space as %20")
        result: str = self._requote(case.value)
        return result

    def reproduction(self, check: str, case: Case) -> str | None:
        if isinstance(case, EncodeCase):
            return library_call(("requests.utils",), "requests.utils.requote_uri(value)",
                                value=case.value)
        if isinstance(case, FormCase):
            return library_call(("requests",), 'str(requests.Request("POST", "http://h/", '
                                'data=pairs).prepare().body or "")', pairs=list(case.pairs))
        return None

    def form_serialize(self, case: FormCase) -> str:
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("requests encodes form data as UTF-8")
        body = self._request("POST", "http://h/", data=list(case.pairs)).prepare().body
        return "" if body is None else str(body)
