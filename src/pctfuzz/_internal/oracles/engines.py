"""JavaScript runtimes besides Node.js, each running the Node.js peer's ``peer.js``
(docs/peers.md): Bun, whose JavaScriptCore holds ``encodeURIComponent`` and whose
``URL`` and ``URLSearchParams`` are WebKit's WebCore code; Deno, whose V8 holds
``encodeURIComponent`` and whose ``URL`` and ``URLSearchParams`` are Rust's ``url`` and
``form_urlencoded`` crates (servo/rust-url, Deno's ``ext/url``).

Each runtime answers two implementations, as the Node.js peer splits them:

- ``bun``, ``deno``: the built-ins asked as the ``node`` adapter asks Node.js's:
  ``encodeURIComponent`` (``component``, ``encodeURIComponent``), ``encodeURI``,
  ``URLSearchParams`` (the form set, spaceAsPlus; form serialize and parse) and
  ``decodeURIComponent`` (decode, answered as UTF-8 bytes);
- ``bun-url``, ``deno-url``: the runtime's ``URL`` setters, asked as the ``whatwg-url``
  adapter asks its URL: ``username`` (userinfo), ``hash`` (fragment), ``search`` on a
  non-special and a special URL (query, special-query), ``pathname`` on a non-special
  URL (path). Encode only: the URL API has no percent-decoder.

JavaScript strings are UTF-16 code units: a str with a lone surrogate travels as a
``\\uD800`` escape and reaches the API as a lone code unit; bytes values are
``Unsupported`` (the APIs take strings), as are legacy encodings.
"""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.oracles.langs import LangPeerAdapter
from pctfuzz._internal.sets import FORM

__all__ = ["BunBuiltins", "BunUrl", "DenoBuiltins", "DenoUrl"]

_BUILTIN_SETS = MappingProxyType({
    "encodeURIComponent (component)": "component",
    "encodeURIComponent": "encodeURIComponent",
    "encodeURI": "encodeURI",
    "URLSearchParams": FORM.name,
})
_URL_SETS = MappingProxyType({
    "username": "userinfo",
    "hash": "fragment",
    "search (non-special URL)": "query",
    "search": "special-query",
    "pathname (non-special URL)": "path",
})


class _JsEngine(LangPeerAdapter):
    """A JavaScript runtime's implementation: strings are UTF-16, never bytes."""

    byte_strings = False
    value_types = ("str",)
    encodings = ("UTF-8",)


class BunBuiltins(_JsEngine):
    """Bun: encodeURIComponent, encodeURI, URLSearchParams, decodeURIComponent."""

    name = "bun"
    lang = "bun"
    sets = _BUILTIN_SETS


class BunUrl(_JsEngine):
    """Bun's URL (WebKit): the hash, search, pathname and username setters."""

    name = "bun-url"
    lang = "bun"
    sets = _URL_SETS
    spaces = (False,)
    #: The setters take a WebIDL USVString: a lone surrogate is U+FFFD before WebKit's
    #: URL code sees it (WebIDL 3.2.12), as for whatwg-url.
    scalar_values = "replace"


#: Deno checks for a newer release on start; colours would reach error messages.
_DENO_ENV = {"DENO_NO_UPDATE_CHECK": "1", "NO_COLOR": "1"}


class DenoBuiltins(_JsEngine):
    """Deno: encodeURIComponent, encodeURI, URLSearchParams, decodeURIComponent."""

    name = "deno"
    lang = "deno"
    sets = _BUILTIN_SETS
    peer_env = _DENO_ENV


class DenoUrl(_JsEngine):
    """Deno's URL (rust-url): the hash, search, pathname and username setters."""

    name = "deno-url"
    lang = "deno"
    sets = _URL_SETS
    spaces = (False,)
    peer_env = _DENO_ENV
    #: WebIDL USVString, as for Bun's URL.
    scalar_values = "replace"
