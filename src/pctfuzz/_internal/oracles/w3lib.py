"""w3lib (Scrapy's URL helpers) as an implementation under test (see ``pctfuzz._internal.oracles``).

- **encode**: ``w3lib.url.safe_url_string(url)``: "Return a URL equivalent to *url*
  that a wide range of web browsers and web servers consider valid" (its docstring):
  the URL is split and each part quoted with its own safe set, ``%`` always left as is.
  ``pctfuzz probe w3lib.url:safe_url_string`` reports ``encodeURI-%25``, UTF-8, space
  as ``%20``, str only. Like every URL-level function it strips C0 controls and space
  at the ends and tab and newline anywhere (WHATWG URL 4.4 basic URL parser, step 1-3),
  lowercases the scheme, IDNA-encodes a host and drops an empty ``?`` or ``#``
  (``urlsplit``/``urlunsplit``); and a URL of a special scheme has its query quoted
  with the special-query set (``'`` too). So the values it answers for are those
  ``urlsplit``/``urlunsplit`` and its stripping give back unchanged, with no host and
  no special scheme: the others are ``Unsupported``. Only UTF-8 is mapped: ``encoding``
  and ``path_encoding`` are Python codecs, which raise where WHATWG writes ``&#NNNN;``.
- **encode** (label ``special-query``, ``rfc3986-query+'-%25``): the query of
  ``safe_url_string("http://h/?" + v)``, which w3lib quotes with ``'`` too for a
  special scheme (``_SPECIAL_QUERY_SAFEST_CHARS``); a value with ``#`` (the fragment),
  tab or newline, or ending in a C0 control or space (stripped) is ``Unsupported``;
- **encode** (label ``userinfo``, ``userinfo+%25``): the userinfo of
  ``safe_url_string("http://" + v + "@h/")``, unquoted and quoted again with
  ``_USERINFO_SAFEST_CHARS`` (an accepted entry: ``requoted("decode-safe")``); a value
  with ``:`` (the password's separator, kept raw), ``/ ? # [ ] \\`` (they end or break
  the authority), tab or newline is ``Unsupported``. The path, a non-special query and
  the fragment share the whole URL's set (``_PATH_SAFEST_CHARS``): the whole URL asks them;
- **form_parse**: ``w3lib.url.parse_qsl_to_bytes(text, keep_blank_values=True)``
  (``keep_blank_values`` as the WHATWG parser keeps empty values), str only; the bytes
  pairs it returns are read as UTF-8 with U+FFFD, as the reference decodes.

w3lib has no percent-decoder and no form serializer (``canonicalize_url`` and
``url_query_cleaner`` rewrite a whole URL and sort or filter its query), so decode and
form_serialize are ``Unsupported``.
"""

from __future__ import annotations

import dataclasses
import importlib
import urllib.parse
from types import MappingProxyType
from typing import Any

from pctfuzz._internal.accept.meaning import C0_SPACE
from pctfuzz._internal.accept.reconcilers import Reconciler, divergence, requoted
from pctfuzz._internal.accept.reconcilers import encode_model as _encode_model
from pctfuzz._internal.cases import Case, EncodeCase, FormParseCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.operations import ENCODE
from pctfuzz._internal.oracles.base import Adapter, Unsupported, library_call
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.sets import PercentEncodeSet, get_set
from pctfuzz._internal.text import has_lone_surrogate

__all__ = ["W3libAdapter"]

#: ``pctfuzz probe w3lib.url:safe_url_string`` (w3lib 2.5.0): "spec: encodeURI-%25"
SAFE_URL_SET = "encodeURI-%25"
#: ``pctfuzz probe`` of each component's call (w3lib 2.5.0): the special-query set is
#: RFC 3986's query set plus "'" (% left raw); the userinfo set is RFC 3986's unreserved
#: and sub-delims but ";=" (WHATWG's userinfo set and %).
SPECIAL_QUERY_SET = "rfc3986-query+'-%25"
USERINFO_SET = "userinfo+%25"
_AUTHORITY_BREAKERS = frozenset(":/?#[]\\\t\n\r")
_SPECIAL = frozenset({"ftp", "file", "http", "https", "ws", "wss"})


def _kept_url(value: str) -> bool:
    """safe_url_string keeps this value's URL structure (module docstring)."""
    if value.strip(C0_SPACE) != value or any(c in value for c in "\t\n\r"):
        return False
    try:
        parts = urllib.parse.urlsplit(value)
    except ValueError:  # "Invalid IPv6 URL": an authority with an unclosed "["
        return False
    if parts.netloc or (parts.scheme in _SPECIAL and "?" in value):
        return False
    return urllib.parse.urlunsplit(parts) == value


def _hash_in_fragment() -> Reconciler:
    """The fragment quoted with "#" too: RFC 3986 3.5 has no "#" in a fragment."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> Any:
        if expected.raised or not isinstance(case, EncodeCase):
            return None
        head, _, fragment = str(case.value).partition("#")
        pes = get_set(case.set_name)
        with_hash = PercentEncodeSet(f"{pes.name}+#", pes.members | {ord("#")},
                                     pes.source, pes.space_as_plus)
        model = (_encode_model(dataclasses.replace(case, value=head), pes) + "#"
                 + _encode_model(dataclasses.replace(case, value=fragment), with_hash))
        return Outcome(model), actual

    return Reconciler("hash_in_fragment", frozenset({ENCODE.name}), reconcile,
                      "leaves a # after the first raw (WHATWG fragment set)",
                      "percent-encodes a # inside the fragment")


def _special_query(value: str) -> str:
    if "#" in value or any(c in value for c in "\t\n\r") \
            or value.rstrip(C0_SPACE) != value:
        raise Unsupported("a '#', tab or newline, or a trailing C0 control or space: the "
                          "URL's fragment, or removed")
    url = importlib.import_module("w3lib.url")
    result: str = url.safe_url_string("http://h/?" + value)
    return result.partition("?")[2]


def _userinfo(value: str) -> str:
    if any(c in _AUTHORITY_BREAKERS for c in value):
        raise Unsupported("one of ': / ? # [ ] \\', tab or newline separates, ends or "
                          "breaks the authority")
    url = importlib.import_module("w3lib.url")
    result: str = url.safe_url_string("http://" + value + "@h/")
    return result[len("http://"):].rpartition("@")[0]


#: label -> (the function, its call for a library-only reproduction)
_COMPONENTS = {
    SPECIAL_QUERY_SET: (_special_query,
                        'w3lib.url.safe_url_string("http://h/?" + value).partition("?")[2]'),
    USERINFO_SET: (_userinfo, 'w3lib.url.safe_url_string("http://" + value + "@h/")'
                              '[len("http://"):].rpartition("@")[0]'),
}


def _component(case: Case) -> str | None:
    """The set of ``_COMPONENTS`` an encode case asks, if any."""
    if not isinstance(case, EncodeCase):
        return None
    members = get_set(case.set_name).members
    return next((name for name in _COMPONENTS if get_set(name).members == members), None)


class W3libAdapter(Adapter):
    """w3lib: ``safe_url_string`` and ``parse_qsl_to_bytes``."""

    name = "w3lib"
    distribution = "w3lib"
    modules_under_test: tuple[str, ...] = ("w3lib.url", "w3lib._url")
    sets = MappingProxyType({"safe_url_string": SAFE_URL_SET,
                             "special-query": SPECIAL_QUERY_SET, "userinfo": USERINFO_SET})
    encodings = ("UTF-8",)
    value_types = ("str",)
    spaces = (False,)
    divergences = (
        divergence(
            id="w3lib-hash-in-fragment", check=ENCODE.name, reconcile=_hash_in_fragment(),
            citation="w3lib.url.safe_url_string docstring: the URL 'should be valid by *all* "
                     "of' the URL living standard, RFC 3986 and RFC 2396 (RFC 3986 3.5: "
                     "fragment = *( pchar / \"/\" / \"?\" ), no \"#\")",
            why="a # inside the fragment is valid WHATWG but not RFC 3986, so w3lib quotes it",
            example=EncodeCase("a#b#c", SAFE_URL_SET),
            applies=lambda case: str(getattr(case, "value", "")).count("#") > 1
            and _component(case) is None,
        ),
        divergence(
            id="w3lib-userinfo-requoted", check=ENCODE.name, reconcile=requoted("decode-safe"),
            citation="w3lib/url.py _safe_url_split: _quote_into(_unquote(parts.username), "
                     "tmp_buf, _USERINFO_SAFEST_CHARS) (the password too)",
            why="the userinfo of a URL is taken as encoded: unquoted to bytes, then quoted "
                "again, so %41 is A and %2f is %2F",
            example=EncodeCase("%41%2f", USERINFO_SET),
            applies=lambda case: _component(case) == USERINFO_SET,
        ),
    )

    def __init__(self) -> None:
        # w3lib ships type information, but the module is imported by name like the
        # other optional libraries so that mypy runs without it installed
        url = importlib.import_module("w3lib.url")
        self._safe_url_string: Any = url.safe_url_string
        self._parse_qsl: Any = url.parse_qsl_to_bytes
        self._members = get_set(SAFE_URL_SET).members

    def encode(self, case: EncodeCase) -> str:
        component = _component(case)
        if get_set(case.set_name).members != self._members and component is None:
            raise Unsupported(f"safe_url_string's components: {', '.join(self.sets.values())}")
        if isinstance(case.value, bytes):
            raise Unsupported("safe_url_string is given str here (bytes are decoded first)")
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("only UTF-8 is mapped (a Python codec is not a WHATWG encoder)")
        if case.space_as_plus and " " in case.value:
            raise Unsupported("safe_url_string writes a space as %20")
        if component is not None:
            return _COMPONENTS[component][0](case.value)
        if not _kept_url(case.value):
            raise Unsupported("not a URL safe_url_string keeps (stripped, split or "
                              "rejoined differently, a host, or a special scheme's query)")
        result: str = self._safe_url_string(case.value)
        return result

    def reproduction(self, check: str, case: Case) -> str | None:
        if isinstance(case, EncodeCase):
            component = _component(case)
            call = (_COMPONENTS[component][1] if component is not None
                    else "w3lib.url.safe_url_string(value)")
            return library_call(("w3lib.url",), call, value=case.value)
        if isinstance(case, FormParseCase):
            return library_call(("w3lib.url",), '[(k.decode("utf-8", "replace"), v.decode('
                                '"utf-8", "replace")) for k, v in w3lib.url.'
                                "parse_qsl_to_bytes(text, keep_blank_values=True)]",
                                text=case.text)
        return None

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        if isinstance(case.text, bytes):
            raise Unsupported("parse_qsl_to_bytes takes str")
        if has_lone_surrogate(case.text):
            raise Unsupported("parse_qsl_to_bytes encodes its str as UTF-8: a lone "
                              "surrogate has none (UnicodeEncodeError)")
        pairs = self._parse_qsl(case.text, keep_blank_values=True)
        return [(k.decode("utf-8", "replace"), v.decode("utf-8", "replace")) for k, v in pairs]
