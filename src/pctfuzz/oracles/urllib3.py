"""urllib3 as an implementation under test (see ``pctfuzz.oracles``).

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

urllib3 has no percent-decoder or form parser, and its form encoding for
``request(fields=...)`` is ``urllib.parse.urlencode``, so the other questions are
``Unsupported``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from pctfuzz.accept import divergence, requoted
from pctfuzz.cases import Case, EncodeCase
from pctfuzz.encoding import lookup
from pctfuzz.oracles.base import Adapter, Unsupported, library_call
from pctfuzz.sets import get_set
from pctfuzz.spec import PERCENT_ENCODED_BYTE

__all__ = ["Urllib3Adapter"]

#: ``pctfuzz probe pctfuzz.oracles.urllib3:Urllib3Adapter --set rfc3986-query``
#: (urllib3 2.8.0): "spec: rfc3986-query", the RFC 3986 3.3 path characters pchar and
#: "/" (urllib3's _PATH_CHARS); "?", which the query set also leaves raw, never
#: reaches a path (Unsupported).
PATH_SET = "rfc3986-query"
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
    sets = MappingProxyType({"parse_url path": PATH_SET})
    encodings = ("UTF-8",)
    value_types = ("str",)
    spaces = (False,)
    divergences = (
        divergence(
            id="urllib3-path-already-encoded", check="encode", reconcile=requoted("upper"),
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

    def reproduction(self, check: str, case: Case) -> str | None:
        if isinstance(case, EncodeCase):
            return library_call(("urllib3.util",), 'urllib3.util.parse_url("http://h/" + '
                                "value).path[1:]", value=case.value)
        return None

    def encode(self, case: EncodeCase) -> str:
        if get_set(case.set_name).members != self._members:
            raise Unsupported(f"parse_url encodes a path with {PATH_SET} only")
        value = case.value
        if isinstance(value, bytes):
            raise Unsupported("parse_url takes str")
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("parse_url always encodes UTF-8")
        if case.space_as_plus and " " in value:
            raise Unsupported("parse_url writes a space as %20")
        if "?" in value or "#" in value:
            raise Unsupported("? and # end the path of a URL")
        if any(segment in (".", "..") for segment in value.split("/")):
            raise Unsupported("parse_url removes . and .. segments (RFC 3986 5.2.4)")
        path: str = self._parse_url("http://h/" + value).path
        return path[1:]
