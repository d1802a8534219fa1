"""Implementations under test: adapters that answer the reference's four questions.

An *implementation under test* (an "impl") is any object with a ``name`` and four
methods, each taking one case (the case types below) and answering what the reference
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
is an answer: the differential check compares it with the
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
  package, through the process line protocol (``ProcessAdapter``, docs/protocol.md).

Plug your own with ``get_impl("package.module:Name")`` (``--impl`` on the command
line): ``Name`` may be a class (instantiated without arguments), a factory function,
or a ready object. Subclass ``Adapter`` to inherit "Unsupported" for the questions
you do not answer. A minimal adapter::

    # mypkg/urls.py
    from pctfuzz import get_set
    from pctfuzz.oracles import Adapter, EncodeCase, Unsupported

    class MyAdapter(Adapter):
        name = "mypkg"

        def encode(self, case: EncodeCase) -> str:
            if isinstance(case.value, bytes) or case.encoding.lower() != "utf-8":
                raise Unsupported("my_quote takes UTF-8 text only")
            return my_quote(case.value, keep=get_set(case.set_name).printable_safe)

    # pctfuzz fuzz diff_encode --impl mypkg.urls:MyAdapter

Optional attributes:

- ``registry_names``: the names under which divergence-registry entries
  (``pctfuzz divergences``) apply to the adapter (default: just ``name``; a variant
  lists its parent too, so ``yarl-c`` shares the entries written for ``yarl``);
- ``modules_under_test``: the Python modules holding the library code the adapter
  calls, which a coverage-guided driver should instrument (empty for compiled code);
- ``modules_of(operation)``: the modules of one operation's code, when they differ
  by operation (``function_adapter``'s: each function's own); a campaign on that
  operation instruments and counts only them (default: ``modules_under_test``);
- ``divergences``: the adapter's accepted differences, entries built with
  ``divergence(...)`` and the ready-made reconcilers of
  (``pctfuzz.accept``; ``pctfuzz divergences --impl MOD:CLASS --check`` verifies them);
- ``distribution``: the installed distribution whose version findings record
  (``function_adapter(..., distribution="mylib")`` sets it; default:
  found from ``modules_under_test``, else the adapter's own module, with
  ``importlib.metadata.packages_distributions``; a stdlib module records
  ``stdlib (Python X.Y.Z)``); a ``version`` string (what a peer reports) wins.
  ``impl_version`` gives what a finding records.
"""

from __future__ import annotations

from typing import Any

from pctfuzz._internal.accept import reconcilers as _reconcilers
from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.deprecation import forward
from pctfuzz._internal.oracles import base as _base
from pctfuzz._internal.oracles import registry as _registry
from pctfuzz._internal.oracles.base import Adapter, Impl, Unsupported, impl_version, library_call
from pctfuzz._internal.oracles.codec import Codec
from pctfuzz._internal.oracles.function import function_adapter
from pctfuzz._internal.oracles.process import ProcessAdapter
from pctfuzz._internal.oracles.registry import get_impl, impl_names

__all__ = [
    "Adapter",
    "Codec",
    "DecodeCase",
    "EncodeCase",
    "FormCase",
    "FormParseCase",
    "Impl",
    "ProcessAdapter",
    "Unsupported",
    "function_adapter",
    "get_impl",
    "impl_names",
    "impl_version",
    "library_call",
]

#: Names this module exported before the public line (docs/api.md), deprecated until
#: pctfuzz 0.2: the accepted-difference helpers are ``pctfuzz.accept``'s, the rest is
#: no longer public. ``pctfuzz.oracles.process`` is the old module of ``ProcessAdapter``.
_ACCEPT_NAMES = ("both_refuse", "divergence", "empty_pairs", "encoded", "latin1_fallback",
                 "left_raw", "lowercase_hex", "pairs_order", "requoted", "space_as")
_lookup = forward(__name__, {
    **dict.fromkeys(_ACCEPT_NAMES, _reconcilers),
    **dict.fromkeys(("METHODS", "impl_name", "registry_names"), _base),
    **dict.fromkeys(("IMPLS", "impl_description", "import_user_module"), _registry),
}, dict.fromkeys(_ACCEPT_NAMES, "import it from pctfuzz.accept"))


def __getattr__(name: str) -> Any:
    return _lookup(name)
