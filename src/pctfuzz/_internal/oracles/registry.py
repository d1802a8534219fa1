"""The built-in implementations (``IMPLS``) and ``get_impl``, which resolves a name, an
import path the user gave, or an adapter object. ``pctfuzz._internal.oracles`` lists them."""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.oracles.base import METHODS, Impl, impl_name

# --- the registry ---------------------------------------------------------------------------
# One row per built-in: name, module of pctfuzz._internal.oracles, adapter class, language
# of the code under test, one line describing what is asked of it. The module is imported
# when the implementation is asked for, not before: ``pctfuzz --help`` must not import yarl
# or ada, and a missing optional package is reported for that implementation only.
# Implementations in other languages run as peers (docs/peers.md).
_BUILTINS: tuple[tuple[str, str, str, str, str], ...] = (
    ("urllib", "urllib_parse", "UrllibAdapter", "Python",
     "urllib.parse, all of it: quote*, unquote*, urlencode (both quote_via), parse_qsl"),
    ("urllib-unquote", "urllib_parse", "UrllibUnquoteAdapter", "Python",
     "urllib.parse: quote*, unquote, urlencode(quote_via=quote), unquote_plus"),
    ("yarl", "yarl_quoting", "YarlAdapter", "Python",
     "yarl: pure-Python _Quoter/_Unquoter (yarl._quoting_py), URL query API"),
    ("yarl-c", "yarl_quoting", "YarlCAdapter", "Python",
     "yarl: compiled _Quoter/_Unquoter (yarl._quoting_c), URL query API"),
    ("yarl-requote", "yarl_quoting", "YarlRequoteAdapter", "Python",
     "yarl: pure-Python _Quoter(requote=True), as yarl.URL() quotes"),
    ("ada", "ada", "AdaAdapter", "C++",
     "ada-url (WHATWG URL, C++): URL setters and URLSearchParams"),
    ("node", "node", "NodeAdapter", "JavaScript",
     "Node.js built-ins (peer protocol): encodeURIComponent, encodeURI, URLSearchParams"),
    ("node-querystring", "node", "NodeQuerystringAdapter", "JavaScript",
     "Node.js querystring through the peer protocol: escape, unescape, stringify, parse"),
    ("whatwg-url", "node", "WhatwgUrlAdapter", "JavaScript",
     "whatwg-url npm package through the peer protocol: URL setters, URLSearchParams"),
    ("requests", "requests", "RequestsAdapter", "Python",
     "requests: requote_uri (encode), Request(data=pairs) body (form)"),
    ("werkzeug", "werkzeug", "WerkzeugAdapter", "Python",
     "Werkzeug 3: iri_to_uri (encode), Request.args (form parsing)"),
    ("urllib3", "urllib3", "Urllib3Adapter", "Python",
     "urllib3: the path parse_url encodes (encode)"),
    ("rfc3986", "rfc3986", "Rfc3986Adapter", "Python",
     "rfc3986: normalizers.encode_component (encode), URIBuilder.add_query_from (form)"),
    ("w3lib", "w3lib", "W3libAdapter", "Python",
     "w3lib: safe_url_string (encode), parse_qsl_to_bytes (form parsing)"),
    ("httpx", "httpx", "HttpxAdapter", "Python",
     "httpx: QueryParams (a query value, str(QueryParams) and QueryParams(text))"),
    ("django", "django", "DjangoAdapter", "Python",
     "Django: iri_to_uri, escape_uri_path, utils.http.urlencode, QueryDict"),
    ("starlette", "starlette", "StarletteAdapter", "Python",
     "starlette: datastructures.QueryParams (a query value, str(), parsing)"),
    ("tornado", "tornado", "TornadoAdapter", "Python",
     "tornado: escape.url_escape (plus=True/False), url_unescape, parse_qs_bytes"),
    ("furl", "furl", "FurlAdapter", "Python",
     "furl: furl.Query (a query value, str(Query().set(pairs)), Query(text))"),
    ("hyperlink", "hyperlink", "HyperlinkAdapter", "Python",
     "hyperlink: URL.to_uri, DecodedURL (a query value, fragment decoding, the query)"),
    ("boltons", "boltons", "BoltonsAdapter", "Python",
     "boltons.urlutils: quote_*_part, unquote(_to_bytes), QueryParamDict"),
    ("go-queryescape", "go", "GoQueryEscape", "Go",
     "Go net/url: QueryEscape (encode), QueryUnescape (decode)"),
    ("go-pathescape", "go", "GoPathEscape", "Go",
     "Go net/url: PathEscape (encode), PathUnescape (decode)"),
    ("go-values", "go", "GoValues", "Go",
     "Go net/url: Values.Encode (form), ParseQuery (form parsing)"),
    ("go-url-path", "go", "GoUrlPath", "Go",
     "Go net/url: URL{Path}.EscapedPath()"),
    ("go-url-fragment", "go", "GoUrlFragment", "Go",
     "Go net/url: URL{Fragment}.EscapedFragment()"),
    ("go-url-userinfo", "go", "GoUrlUserinfo", "Go",
     "Go net/url: url.User(v).String()"),
    ("go-url-query", "go", "GoUrlQuery", "Go",
     "Go net/url: url.Parse(\"http://h/?\" + v).RawQuery"),
    ("java-urlencoder", "java", "JavaUrlEncoder", "Java",
     "Java: URLEncoder.encode (UTF-8 and legacy charsets), "
     "URLDecoder.decode"),
    ("java-uri", "java", "JavaUri", "Java",
     "Java: the multi-argument java.net.URI constructor (path, query, "
     "userinfo)"),
    ("php-rawurlencode", "php", "PhpRawUrlencode", "PHP",
     "PHP: rawurlencode (encode), rawurldecode (decode)"),
    ("php-urlencode", "php", "PhpUrlencode", "PHP",
     "PHP: urlencode (encode), urldecode (decode)"),
    ("php-http-query", "php", "PhpHttpQuery", "PHP",
     "PHP: http_build_query (form), parse_str (form parsing)"),
    ("ruby-www-form-component", "ruby", "RubyWwwFormComponent", "Ruby",
     "Ruby: URI.encode_www_form_component, " "URI.decode_www_form_component"),
    ("ruby-www-form", "ruby", "RubyWwwForm", "Ruby",
     "Ruby: URI.encode_www_form (form), URI.decode_www_form (parsing)"),
    ("ruby-cgi", "ruby", "RubyCgi", "Ruby",
     "Ruby: CGI.escape (encode), CGI.unescape"),
    ("ruby-erb", "ruby", "RubyErb", "Ruby",
     "Ruby: ERB::Util.url_encode (encode)"),
    ("perl-uri-escape", "perl", "PerlUriEscape", "Perl",
     "Perl URI::Escape: uri_escape (encode), uri_unescape (decode)"),
    ("perl-uri-escape-utf8", "perl", "PerlUriEscapeUtf8", "Perl",
     "Perl URI::Escape: uri_escape_utf8 (encode)"),
    ("perl-uri-query", "perl", "PerlUriQuery", "Perl",
     "Perl URI: query_form (form serialize and parse)"),
    ("curl-escape", "curl", "CurlEscapeAdapter", "C",
     "libcurl (ctypes): curl_easy_escape, curl_easy_unescape"),
    ("curl-url", "curl", "CurlUrlAdapter", "C",
     "libcurl (ctypes): curl_url_set with CURLU_URLENCODE (path, query)"),
    ("rust-url", "rust_url", "RustUrlAdapter", "Rust",
     "Rust url crate (pydantic-core Url): path, query, fragment"),
    ("lua-socket-url", "lua", "LuaSocketUrl", "Lua",
     "Lua LuaSocket: socket.url.escape (encode), socket.url.unescape (decode)"),
    ("tcl-http", "tcl", "TclHttp", "Tcl",
     "Tcl http package: ::http::quoteString (encode), ::http::formatQuery (form)"),
    ("r-urlencode", "r", "RUrlencode", "R",
     "R utils: URLencode (encode, reserved = TRUE or FALSE), URLdecode (decode)"),
    ("haskell-network-uri", "haskell", "HaskellNetworkUri", "Haskell",
     "Haskell network-uri Network.URI: escapeURIString (isUnreserved, isUnescapedInURI, "
     "isAllowedInURI), unEscapeString (decode)"),
    ("nim-uri", "nim", "NimUri", "Nim",
     "Nim std/uri: encodeUrl (encode), decodeUrl(decodePlus = false) (decode), "
     "encodeQuery (form), decodeQuery (form parsing)"),
    ("nim-uri-plus", "nim", "NimUriPlus", "Nim",
     "Nim std/uri: encodeUrl(s) and decodeUrl(s), their defaults (space as '+')"),
    ("qt-qurl", "qt", "QtQUrl", "C++",
     "Qt QtCore: QUrl::toPercentEncoding (default, exclude \"/\"), "
     "QUrl::fromPercentEncoding (decode)"),
    ("qt-qurlquery", "qt", "QtQUrlQuery", "C++",
     "Qt QtCore: QUrlQuery addQueryItem(toPercentEncoding(...)) + query(FullyEncoded) "
     "(form), setQuery + queryItems(FullyDecoded) (form parsing)"),
    ("erlang-uri-string", "erlang", "ErlangUriString", "Erlang",
     "Erlang uri_string: quote/1 and quote/2 (encode), unquote/1 (decode)"),
    ("erlang-uri-string-query", "erlang", "ErlangUriStringQuery", "Erlang",
     "Erlang uri_string: compose_query/1 (form), dissect_query/1 (form parsing)"),
    ("erlang-uri-string-recompose", "erlang", "ErlangUriStringRecompose", "Erlang",
     "Erlang uri_string: recompose/1 of a map with one component (path, query, userinfo)"),
    ("elixir-uri-encode", "elixir", "ElixirUriEncode", "Elixir",
     "Elixir URI: encode/2 (default predicate, &char_unreserved?/1), decode/1"),
    ("elixir-uri-www-form", "elixir", "ElixirUriWwwForm", "Elixir",
     "Elixir URI: encode_www_form/1 (encode), decode_www_form/1 (decode)"),
    ("elixir-uri-query", "elixir", "ElixirUriQuery", "Elixir",
     "Elixir URI: encode_query/1 (form), query_decoder/1 (form parsing)"),
    ("elixir-uri-query-rfc3986", "elixir", "ElixirUriQueryRfc3986", "Elixir",
     "Elixir URI: encode_query/2 and query_decoder/2 with :rfc3986 (form, parsing)"),
    ("elixir-uri-decode-query", "elixir", "ElixirUriDecodeQuery", "Elixir",
     "Elixir URI: decode_query/1 (form parsing into a map)"),
    ("glib-uri-escape", "glib", "GlibUriEscape", "C",
     "GLib: g_uri_escape_string/g_uri_escape_bytes (encode; reserved_chars_allowed NULL "
     "or a G_URI_RESERVED_CHARS_ALLOWED_IN_* string), g_uri_unescape_string/"
     "g_uri_unescape_bytes (decode)"),
    ("glib-uri-params", "glib", "GlibUriParams", "C",
     "GLib: g_uri_params_iter_next with G_URI_PARAMS_WWW_FORM and '&' (form parsing; the "
     "iterator under g_uri_parse_params)"),
    ("glib-uri-parse-params", "glib", "GlibUriParseParams", "C",
     "GLib: g_uri_parse_params with G_URI_PARAMS_WWW_FORM and '&' (form parsing into a "
     "hash table)"),
    ("mono-uri", "csharp", "MonoUri", "C#",
     "Mono System.Uri: EscapeDataString, EscapeUriString (encode), UnescapeDataString "
     "(decode)"),
    ("mono-httputility", "csharp", "MonoHttpUtility", "C#",
     "Mono System.Web.HttpUtility: UrlEncode (encode), UrlDecode (decode), "
     "ParseQueryString (form parsing)"),
    ("mono-webutility", "csharp", "MonoWebUtility", "C#",
     "Mono System.Net.WebUtility: UrlEncode (encode), UrlDecode (decode)"),
    ("bun", "engines", "BunBuiltins", "JavaScript",
     "Bun (JavaScriptCore, WebKit): encodeURIComponent, encodeURI, URLSearchParams, "
     "decodeURIComponent"),
    ("bun-url", "engines", "BunUrl", "JavaScript",
     "Bun's URL (WebKit): the hash, search, pathname and username setters"),
    ("deno", "engines", "DenoBuiltins", "JavaScript",
     "Deno (V8, rust-url's form_urlencoded): encodeURIComponent, encodeURI, "
     "URLSearchParams, decodeURIComponent"),
    ("deno-url", "engines", "DenoUrl", "JavaScript",
     "Deno's URL (rust-url): the hash, search, pathname and username setters"),
)


def _factory(module: str, cls: str, doc: str) -> Callable[[], Impl]:
    """A factory of the adapter ``cls`` of ``pctfuzz._internal.oracles.<module>``."""

    def factory() -> Impl:
        loaded = importlib.import_module(f"pctfuzz._internal.oracles.{module}")
        adapter: Impl = getattr(loaded, cls)()
        return adapter

    factory.__doc__ = doc
    return factory


#: name -> factory (no arguments) of a built-in implementation. ``urllib`` is the default.
IMPLS: Mapping[str, Callable[[], Impl]] = MappingProxyType(
    {name: _factory(module, cls, doc) for name, module, cls, _, doc in _BUILTINS}
)

#: name -> language of a built-in's code (``impl_language``).
_LANGUAGES: Mapping[str, str] = MappingProxyType(
    {name: language for name, _, _, language, _ in _BUILTINS}
)


def impl_language(name: str) -> str:
    """The language of a built-in implementation's code (``pctfuzz impls --json``)."""
    return _LANGUAGES.get(name, "Python")


def impl_names() -> list[str]:
    """Built-in implementation names, default first."""
    return list(IMPLS)


def impl_description(name: str) -> str:
    """One line describing a built-in implementation."""
    doc = IMPLS[name].__doc__ or ""
    return doc.strip().splitlines()[0] if doc.strip() else name


def _missing_methods(obj: object) -> list[str]:
    return [m for m in METHODS if not callable(getattr(obj, m, None))]


def import_user_module(name: str) -> Any:
    """Import a module the *user* named (``--impl``, ``pctfuzz probe``): as ``python -m``
    would, the current folder is searched too, after the import path, so a module
    beside the user's shell works with the ``pctfuzz`` console script. Never used for
    a name that comes from a record (see ``replay``)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name.partition(".")[0] or os.getcwd() in sys.path:
            raise
    sys.path.append(os.getcwd())
    return importlib.import_module(name)


def _from_import_path(spec: str) -> object:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise UsageError(
            f"implementation {spec!r}: expected a built-in name ({', '.join(IMPLS)}) "
            "or an import path package.module:Name"
        )
    try:
        module = import_user_module(module_name)
    except ImportError as exc:
        raise UsageError(
            f"implementation {spec!r}: cannot import {module_name!r}: {exc}"
        ) from None
    except Exception as exc:  # the user's module failed as it ran: theirs to fix (exit 2)
        raise UsageError(
            f"implementation {spec!r}: importing {module_name!r} raised "
            f"{type(exc).__name__}: {exc}"
        ) from None
    obj: object = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(
                f"implementation {spec!r}: module {module_name!r} has no attribute {attr!r}"
            ) from None
    if inspect.isclass(obj) or (callable(obj) and _missing_methods(obj)):
        try:
            obj = obj()
        except Exception as exc:
            raise UsageError(
                f"implementation {spec!r}: calling {attr} without arguments failed: "
                f"{type(exc).__name__}: {exc}"
            ) from None
    return obj


def get_impl(spec: str | Impl | None = None) -> Impl:
    """The implementation named ``spec``: a built-in name (default ``urllib``), an
    import path ``package.module:Name``, or an adapter object (returned as is once it
    has been checked). ``PctfuzzError`` for an unknown name, a path that does not
    import, or an object that lacks one of the four methods."""
    if spec is None:
        spec = "urllib"
    if isinstance(spec, str):
        factory = IMPLS.get(spec) or IMPLS.get(spec.lower())
        if factory is not None:
            try:
                return factory()
            except ImportError as exc:
                raise UsageError(
                    f"implementation {spec!r} needs a package that is not installed ({exc}); "
                    "install the 'impls' extra: pip install 'pctfuzz[impls]'"
                ) from None
        if ":" not in spec:
            raise UsageError(
                f"unknown implementation {spec!r}; built-in: {', '.join(IMPLS)}; "
                "or give an import path package.module:Name"
            )
        obj = _from_import_path(spec)
        label = spec
    else:
        obj = spec
        label = impl_name(spec)
    missing = _missing_methods(obj)
    if missing:
        raise UsageError(
            f"implementation {label!r} ({type(obj).__name__}) lacks "
            f"{', '.join(missing)}; an adapter needs {', '.join(METHODS)} "
            "(subclass pctfuzz.oracles.Adapter for Unsupported defaults)"
        )
    if not isinstance(getattr(obj, "name", None), str) or not obj.name:  # type: ignore[attr-defined]
        with contextlib.suppress(AttributeError, TypeError):
            obj.name = label  # type: ignore[attr-defined]
    return obj  # type: ignore[return-value]
