"""Implementations under test: adapters that answer the reference's four questions.

An *implementation under test* (an "impl") is any object with a ``name`` and four
methods, each taking one case (``pctfuzz.cases``) and answering what the reference
answers for it:

====================================  ===================================================
``encode(case: EncodeCase) -> str``   percent-encode ``case.value`` (str or bytes) with
                                      the set ``case.set_name``, the WHATWG encoding
                                      ``case.encoding`` and ``case.space_as_plus``
``decode(case: DecodeCase) -> bytes`` percent-decode ``case.value`` (str or bytes)
``form_serialize(case: FormCase)``    application/x-www-form-urlencoded serialization of
``-> str``                            ``case.pairs`` in ``case.encoding``
``form_parse(case: FormParseCase)``   application/x-www-form-urlencoded parsing of
``-> list[tuple[str, str]]``          ``case.text`` (str or bytes)
====================================  ===================================================

A method raises ``Unsupported(reason)`` when the implementation cannot express the
case at all, for example a set whose printable complement cannot be written as
urllib's ``safe=``, a legacy encoding the library has no codec for, or bytes given to
a str-only API. Unsupported cases are skipped, never reported. Any *other* exception
is an answer: the differential check (``pctfuzz.differential``) compares it with the
reference, and an exception that no divergence-registry entry explains is reported as
a ``Divergence`` with ``impl_error`` set, which the fuzzer records as kind ``crash``.
So raise ``Unsupported`` only for inputs outside what the library documents, never to
hide a failure.

Built-in implementations (``IMPLS``; ``pctfuzz divergences`` lists what each one is
known to do differently):

- ``urllib``: all of urllib.parse, each case picking its function by its length
  (``urllib_parse.urllib_function``): ``quote``/``quote_plus``/``quote_from_bytes``,
  ``unquote_to_bytes``/``unquote``, ``urlencode`` with ``quote_via=quote_plus``/``quote``,
  ``parse_qsl``/``unquote_plus``;
- ``urllib-unquote``: the same encoder, but always ``unquote`` (decode),
  ``urlencode(quote_via=quote)`` and ``unquote_plus`` (form parsing);
- ``yarl``: yarl's pure-Python ``_Quoter``/``_Unquoter`` and its query API;
- ``yarl-c``: the same with yarl's compiled quoter (``yarl._quoting_c``);
- ``yarl-requote``: yarl's quoter with ``requote=True`` (existing escapes normalized);
- ``ada``: ada-url (WHATWG URL in C++): URL setters and ``URLSearchParams``;
- ``node``, ``node-querystring``, ``whatwg-url``: Node.js and the whatwg-url npm
  package, through the process line protocol (``pctfuzz.oracles.process``).

Plug your own with ``get_impl("package.module:Name")`` (``--impl`` on the command
line): ``Name`` may be a class (instantiated without arguments), a factory function,
or a ready object. Subclass ``Adapter`` to inherit "Unsupported" for the questions
you do not answer. A minimal adapter::

    # mypkg/urls.py
    from pctfuzz.cases import EncodeCase
    from pctfuzz.oracles import Adapter, Unsupported
    from pctfuzz.sets import get_set

    class MyAdapter(Adapter):
        name = "mypkg"

        def encode(self, case: EncodeCase) -> str:
            if isinstance(case.value, bytes) or case.encoding.lower() != "utf-8":
                raise Unsupported("my_quote takes UTF-8 text only")
            return my_quote(case.value, keep=get_set(case.set_name).printable_safe)

    # pctfuzz fuzz diff_encode --impl mypkg.urls:MyAdapter

Optional attributes:

- ``registry_names``: the names under which divergence-registry entries
  (``pctfuzz.divergences``) apply to the adapter (default: just ``name``; a variant
  lists its parent too, so ``yarl-c`` shares the entries written for ``yarl``);
- ``modules_under_test``: the Python modules holding the library code the adapter
  calls, which a coverage-guided driver should instrument (empty for compiled code);
- ``divergences``: the adapter's accepted differences, entries built with
  ``divergence(...)`` and the ready-made reconcilers re-exported here
  (``pctfuzz.accept``; ``pctfuzz divergences --impl MOD:CLASS --check`` verifies them);
- ``distribution``: the installed distribution whose version findings record (default:
  found from ``modules_under_test``, else the adapter's own module, with
  ``importlib.metadata.packages_distributions``; a stdlib module records
  ``stdlib (Python X.Y.Z)``); a ``version`` string (what a peer reports) wins.
  ``impl_version`` gives what a finding records.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.metadata
import inspect
import os
import platform
import sys
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from ..cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from ..errors import PctfuzzError

__all__ = [
    "IMPLS",
    "METHODS",
    "Adapter",
    "Impl",
    "Unsupported",
    "both_refuse",
    "divergence",
    "empty_pairs",
    "encoded",
    "function_adapter",
    "get_impl",
    "impl_name",
    "impl_names",
    "impl_version",
    "latin1_fallback",
    "left_raw",
    "lowercase_hex",
    "pairs_order",
    "registry_names",
    "requoted",
    "space_as",
]

#: The four questions, in the order the module docstring lists them.
METHODS: tuple[str, ...] = ("encode", "decode", "form_serialize", "form_parse")


class Unsupported(PctfuzzError):
    """The implementation cannot express this case; the differential check skips it."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@runtime_checkable
class Impl(Protocol):
    """What ``get_impl`` returns and the differential checks call."""

    name: str

    def encode(self, case: EncodeCase) -> str: ...

    def decode(self, case: DecodeCase) -> bytes: ...

    def form_serialize(self, case: FormCase) -> str: ...

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]: ...


class Adapter:
    """Convenience base: every question is ``Unsupported`` until a subclass answers it."""

    name: str = "adapter"
    #: Names whose divergence-registry entries apply to this adapter (``name`` first).
    registry_names: tuple[str, ...] = ()
    #: Python modules of the library under test, for coverage instrumentation.
    modules_under_test: tuple[str, ...] = ()

    def encode(self, case: EncodeCase) -> str:
        raise Unsupported(f"{self.name} does not percent-encode")

    def decode(self, case: DecodeCase) -> bytes:
        raise Unsupported(f"{self.name} does not percent-decode")

    def form_serialize(self, case: FormCase) -> str:
        raise Unsupported(f"{self.name} does not serialize forms")

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        raise Unsupported(f"{self.name} does not parse forms")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


# --- the registry ---------------------------------------------------------------------------
# Factories import lazily: ``pctfuzz --help`` must not import yarl or ada, and a missing
# optional package is reported when that implementation is asked for, not before.


def _urllib() -> Impl:
    """urllib.parse, all of it: quote*, unquote*, urlencode (both quote_via), parse_qsl"""
    from .urllib_parse import UrllibAdapter

    return UrllibAdapter()


def _urllib_unquote() -> Impl:
    """urllib.parse: quote*, unquote, urlencode(quote_via=quote), unquote_plus"""
    from .urllib_parse import UrllibUnquoteAdapter

    return UrllibUnquoteAdapter()


def _yarl() -> Impl:
    """yarl: pure-Python _Quoter/_Unquoter (yarl._quoting_py), URL query API"""
    from .yarl_quoting import YarlAdapter

    return YarlAdapter()


def _yarl_requote() -> Impl:
    """yarl: pure-Python _Quoter(requote=True), as yarl.URL() quotes"""
    from .yarl_quoting import YarlRequoteAdapter

    return YarlRequoteAdapter()


def _yarl_c() -> Impl:
    """yarl: compiled _Quoter/_Unquoter (yarl._quoting_c), URL query API"""
    from .yarl_quoting import YarlCAdapter

    return YarlCAdapter()


def _ada() -> Impl:
    """ada-url (WHATWG URL, C++): URL setters and URLSearchParams"""
    from .ada import AdaAdapter

    return AdaAdapter()


def _node() -> Impl:
    """Node.js built-ins (peer protocol): encodeURIComponent, encodeURI, URLSearchParams"""
    from .process import NodeAdapter

    return NodeAdapter()


def _node_querystring() -> Impl:
    """Node.js querystring through the peer protocol: escape, unescape, stringify, parse"""
    from .process import NodeQuerystringAdapter

    return NodeQuerystringAdapter()


def _whatwg_url() -> Impl:
    """whatwg-url npm package through the peer protocol: URL setters, URLSearchParams"""
    from .process import WhatwgUrlAdapter

    return WhatwgUrlAdapter()


def _requests() -> Impl:
    """requests: requote_uri (encode), Request(data=pairs) body (form)"""
    from .requests import RequestsAdapter

    return RequestsAdapter()


def _werkzeug() -> Impl:
    """Werkzeug 3: iri_to_uri (encode), Request.args (form parsing)"""
    from .werkzeug import WerkzeugAdapter

    return WerkzeugAdapter()


def _urllib3() -> Impl:
    """urllib3: the path parse_url encodes (encode)"""
    from .urllib3 import Urllib3Adapter

    return Urllib3Adapter()


def _rfc3986() -> Impl:
    """rfc3986: normalizers.encode_component (encode), URIBuilder.add_query_from (form)"""
    from .rfc3986 import Rfc3986Adapter

    return Rfc3986Adapter()


def _w3lib() -> Impl:
    """w3lib: safe_url_string (encode), parse_qsl_to_bytes (form parsing)"""
    from .w3lib import W3libAdapter

    return W3libAdapter()
def _httpx() -> Impl:
    """httpx: QueryParams (a query value, str(QueryParams) and QueryParams(text))"""
    from .httpx import HttpxAdapter

    return HttpxAdapter()


def _django() -> Impl:
    """Django: iri_to_uri, escape_uri_path, utils.http.urlencode, QueryDict"""
    from .django import DjangoAdapter

    return DjangoAdapter()


def _starlette() -> Impl:
    """starlette: datastructures.QueryParams (a query value, str(), parsing)"""
    from .starlette import StarletteAdapter

    return StarletteAdapter()


def _tornado() -> Impl:
    """tornado: escape.url_escape (plus=True/False), url_unescape, parse_qs_bytes"""
    from .tornado import TornadoAdapter

    return TornadoAdapter()


def _furl() -> Impl:
    """furl: furl.Query (a query value, str(Query().set(pairs)), Query(text))"""
    from .furl import FurlAdapter

    return FurlAdapter()


def _hyperlink() -> Impl:
    """hyperlink: URL.to_uri, DecodedURL (a query value, fragment decoding, the query)"""
    from .hyperlink import HyperlinkAdapter

    return HyperlinkAdapter()


def _boltons() -> Impl:
    """boltons.urlutils: quote_*_part, unquote(_to_bytes), QueryParamDict"""
    from .boltons import BoltonsAdapter

    return BoltonsAdapter()


#: name -> factory (no arguments) of a built-in implementation. ``urllib`` is the default.
IMPLS: Mapping[str, Callable[[], Impl]] = MappingProxyType(
    {
        "urllib": _urllib,
        "urllib-unquote": _urllib_unquote,
        "yarl": _yarl,
        "yarl-c": _yarl_c,
        "yarl-requote": _yarl_requote,
        "ada": _ada,
        "node": _node,
        "node-querystring": _node_querystring,
        "whatwg-url": _whatwg_url,
        "requests": _requests,
        "werkzeug": _werkzeug,
        "urllib3": _urllib3,
        "rfc3986": _rfc3986,
        "w3lib": _w3lib,
        "httpx": _httpx,
        "django": _django,
        "starlette": _starlette,
        "tornado": _tornado,
        "furl": _furl,
        "hyperlink": _hyperlink,
        "boltons": _boltons,
    }
)


def impl_names() -> list[str]:
    """Built-in implementation names, default first."""
    return list(IMPLS)


def impl_description(name: str) -> str:
    """One line describing a built-in implementation."""
    doc = IMPLS[name].__doc__ or ""
    return doc.strip().splitlines()[0] if doc.strip() else name


def impl_name(impl: object) -> str:
    """The name findings and divergences use for ``impl``."""
    name = getattr(impl, "name", None)
    return name if isinstance(name, str) and name else type(impl).__name__


def registry_names(impl: object) -> tuple[str, ...]:
    """Names under which divergence-registry entries apply to ``impl``."""
    names = getattr(impl, "registry_names", None)
    own = impl_name(impl)
    if isinstance(names, tuple) and all(isinstance(n, str) for n in names) and names:
        return names if own in names else (own, *names)
    return (own,)


@functools.lru_cache(maxsize=1)
def _distributions() -> Mapping[str, list[str]]:
    return importlib.metadata.packages_distributions()


def _distribution_version(dist: str) -> str:
    try:
        return f"{dist} {importlib.metadata.version(dist)}"
    except importlib.metadata.PackageNotFoundError:
        return f"{dist} (not installed)"


def impl_version(impl: object) -> str:
    """What a finding records as the version of the code under test (module
    docstring, ``distribution``): ``"yarl 1.9.4"``, ``"stdlib (Python 3.11.7)"``, a
    peer's reported version, or ``"unknown: ..."`` naming the module that no installed
    distribution holds."""
    with contextlib.suppress(Exception):  # a peer that cannot start has no version
        reported = getattr(impl, "version", None)
        if isinstance(reported, str) and reported:
            name = impl_name(impl)
            return reported if reported.startswith(name) else f"{name} {reported}"
    declared = getattr(impl, "distribution", None)
    if isinstance(declared, str) and declared:
        return _distribution_version(declared)
    modules = tuple(getattr(impl, "modules_under_test", ()) or ()) or (type(impl).__module__,)
    for module in modules:
        top = module.partition(".")[0]
        if top in sys.stdlib_module_names:
            return f"stdlib (Python {platform.python_version()})"
        dists = _distributions().get(top)
        if dists:
            return _distribution_version(dists[0])
    return f"unknown: {modules[0]} is in no installed distribution (declare distribution=)"


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
        raise PctfuzzError(
            f"implementation {spec!r}: expected a built-in name ({', '.join(IMPLS)}) "
            "or an import path package.module:Name"
        )
    try:
        module = import_user_module(module_name)
    except ImportError as exc:
        raise PctfuzzError(
            f"implementation {spec!r}: cannot import {module_name!r}: {exc}"
        ) from None
    obj: object = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PctfuzzError(
                f"implementation {spec!r}: module {module_name!r} has no attribute {attr!r}"
            ) from None
    if inspect.isclass(obj) or (callable(obj) and _missing_methods(obj)):
        try:
            obj = obj()
        except Exception as exc:
            raise PctfuzzError(
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
                raise PctfuzzError(
                    f"implementation {spec!r} needs a package that is not installed ({exc}); "
                    "install the 'impls' extra: pip install 'pctfuzz[impls]'"
                ) from None
        if ":" not in spec:
            raise PctfuzzError(
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
        raise PctfuzzError(
            f"implementation {label!r} ({type(obj).__name__}) lacks "
            f"{', '.join(missing)}; an adapter needs {', '.join(METHODS)} "
            "(subclass pctfuzz.oracles.Adapter for Unsupported defaults)"
        )
    if not isinstance(getattr(obj, "name", None), str) or not obj.name:  # type: ignore[attr-defined]
        with contextlib.suppress(AttributeError, TypeError):
            obj.name = label  # type: ignore[attr-defined]
    return obj  # type: ignore[return-value]


# Re-exported last: oracles.function subclasses Adapter from this module.
from ..accept import (  # noqa: E402
    both_refuse,
    divergence,
    empty_pairs,
    encoded,
    latin1_fallback,
    left_raw,
    lowercase_hex,
    pairs_order,
    requoted,
    space_as,
)
from .function import function_adapter  # noqa: E402
