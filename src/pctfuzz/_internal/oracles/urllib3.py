"""urllib3 as an implementation under test (see ``pctfuzz._internal.oracles``).

urllib3's one public percent-encoding entry point is ``urllib3.util.parse_url(url)``:
its docstring says it "Given a url, return a parsed Url namedtuple. Best-effort is
performed to parse incomplete urls", and it percent-encodes the characters each
component may not hold (``_encode_invalid_chars``, semi-private, so not called here).
It is what every ``PoolManager.request(url)`` goes through.

- **encode**: ``parse_url("http://h/" + value).path`` without its leading ``/``: the
  path component as urllib3 normalizes it, UTF-8, space as ``%20``, str only. ``?`` and
  ``#`` end a path in a URL, so a value holding one cannot be given as a path
  (``Unsupported``); nor can a value with a ``.`` or ``..`` segment, which parse_url
  removes (RFC 3986 5.2.4, ``_remove_path_dot_segments``). Existing escapes: when every
  ``%`` of the path starts a valid ``%HH``, the path is taken as already encoded and
  the escapes are uppercased and kept (an accepted entry); otherwise each ``%`` is data
  and encoded, as in the reference.

  A value with ``?`` or ``#`` is asked as a fragment instead, ``parse_url("http://h/#"
  + value).fragment``: the query and the fragment share the path's set and ``?``
  (``_QUERY_CHARS = _FRAGMENT_CHARS = _PATH_CHARS | {"?"}``), and a fragment holds
  both characters.
- **encode** (label ``parse_url auth``): ``parse_url("http://" + value + "@h/").auth``,
  the userinfo (``_USERINFO_CHARS``: unreserved, sub-delims and ``:``; ``@`` encoded,
  since the authority is split at its last ``@``). ``/ ? # \\`` end the authority
  (``Unsupported``).

urllib3 has no percent-decoder or form parser, and its form encoding for
``request(fields=...)`` is ``urllib.parse.urlencode``, so the other questions are
``Unsupported``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from pctfuzz._internal.accept.reconcilers import divergence, requoted
from pctfuzz._internal.cases import Case, EncodeCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.operations import ENCODE
from pctfuzz._internal.oracles.base import Adapter, Unsupported, library_call
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.spec import PERCENT_ENCODED_BYTE

__all__ = ["Urllib3Adapter"]

#: ``pctfuzz probe pctfuzz._internal.oracles.urllib3:Urllib3Adapter --set rfc3986-query``
#: (urllib3 2.8.0): "spec: rfc3986-query", the RFC 3986 3.3 path characters pchar and
#: "/" (urllib3's _PATH_CHARS); "?", which the query set also leaves raw, never
#: reaches a path (Unsupported).
PATH_SET = "rfc3986-query"
#: urllib3's _USERINFO_CHARS left raw: RFC 3986 pchar but '@'.
AUTH_SET = "rfc3986-pchar+@"
_ESCAPE = PERCENT_ENCODED_BYTE


def _already_encoded(case: object) -> bool:
    """parse_url takes the path as already encoded: it has a %, each one a valid %HH."""
    value = getattr(case, "value", "")
    return (isinstance(value, str) and "%" in value
            and len(_ESCAPE.findall(value)) == value.count("%"))


class Urllib3Adapter(Adapter):
    """urllib3: the path of ``parse_url``."""

    name = "urllib3"
    distribution = "urllib3"
    modules_under_test: tuple[str, ...] = ("urllib3.util.url",)
    sets = MappingProxyType({"parse_url path": PATH_SET, "parse_url auth": AUTH_SET})
    encodings = ("UTF-8",)
    value_types = ("str",)
    spaces = (False,)
    divergences = (
        divergence(
            id="urllib3-path-already-encoded", check=ENCODE.name, reconcile=requoted("upper"),
            citation="urllib3.util.url._encode_invalid_chars docstring: 'Percent-encodes a "
                     "URI component without reapplying onto an already percent-encoded "
                     "component' (escapes normalized to uppercase)",
            why="parse_url takes a URL that may be encoded already; RFC 3986 6.2.2.1 "
                "makes %2f and %2F equivalent",
            example=EncodeCase("%2f", PATH_SET),
            applies=_already_encoded,
        ),
    )

    def __init__(self) -> None:
        from urllib3.util import parse_url

        self._parse_url: Any = parse_url
        self._members = get_set(PATH_SET).members
        self._auth_members = get_set(AUTH_SET).members

    def reproduction(self, check: str, case: Case) -> str | None:
        if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
            return None
        if get_set(case.set_name).members == self._auth_members:
            call = 'urllib3.util.parse_url("http://" + value + "@h/").auth or ""'
        elif "?" in case.value or "#" in case.value:
            call = 'urllib3.util.parse_url("http://h/#" + value).fragment'
        else:
            call = 'urllib3.util.parse_url("http://h/" + value).path[1:]'
        return library_call(("urllib3.util",), call, value=case.value)

    def encode(self, case: EncodeCase) -> str:
        members = get_set(case.set_name).members
        if members not in (self._members, self._auth_members):
            raise Unsupported(f"parse_url encodes with {PATH_SET} and {AUTH_SET} only")
        value = case.value
        if isinstance(value, bytes):
            raise Unsupported("parse_url takes str")
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("parse_url always encodes UTF-8")
        if case.space_as_plus and " " in value:
            raise Unsupported("parse_url writes a space as %20")
        if members == self._auth_members:
            if any(c in value for c in "/?#\\"):
                raise Unsupported("/ ? # \\ end the authority of a URL")
            auth: str | None = self._parse_url("http://" + value + "@h/").auth
            return auth or ""
        if "?" in value or "#" in value:
            fragment: str = self._parse_url("http://h/#" + value).fragment
            return fragment
        if any(segment in (".", "..") for segment in value.split("/")):
            raise Unsupported("parse_url removes . and .. segments (RFC 3986 5.2.4)")
        path: str = self._parse_url("http://h/" + value).path
        return path[1:]
