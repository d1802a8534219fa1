"""Deprecated: the percent-encode sets are ``pctfuzz``'s now (``get_set``, ``SETS``,
``PercentEncodeSet``); the named sets' constants and the other helpers are no longer
public (``get_set("component")`` gives a set by name). Each old name still works, with
a ``DeprecationWarning``, until pctfuzz 0.2 (docs/api.md, "Old import paths")."""

from __future__ import annotations

from typing import Any

from pctfuzz._internal import sets as _home
from pctfuzz._internal.deprecation import forward

__all__ = [  # noqa: F822
    "ALIASES", "ALPHA_DIGIT", "C0_CONTROL", "COMPONENT", "DATA_URI", "ENCODE_URI",
    "ENCODE_URI_COMPONENT", "FORM", "FRAGMENT", "GEN_DELIMS", "PATH", "PCHAR", "QUERY",
    "QUERY_OR_FRAGMENT", "QUERY_VALUE", "RESERVED", "RFC3986_PCHAR", "RFC3986_QUERY",
    "RFC3986_UNRESERVED", "SETS", "SPECIAL_QUERY", "SUB_DELIMS", "UNRESERVED",
    "URI_RESERVED", "URI_UNESCAPED", "USERINFO", "WHATWG_DERIVATION", "PercentEncodeSet",
    "get_set", "named_set", "set_names",
]

_lookup = forward(__name__, dict.fromkeys(__all__, _home), {
    **dict.fromkeys(["SETS", "PercentEncodeSet", "get_set"], "import it from pctfuzz"),
    **dict.fromkeys([n for n in __all__ if n.isupper() and n not in ("SETS", "ALIASES",
                                                                      "WHATWG_DERIVATION")],
                    "pctfuzz.get_set(NAME) gives a named set"),
    "named_set": "pctfuzz.get_set(NAME) gives a named set",
    "set_names": "the names are pctfuzz.SETS's keys",
})


def __getattr__(name: str) -> Any:
    return _lookup(name)


def __dir__() -> list[str]:
    return sorted(__all__)
