"""Percent-encode sets: ``get_set`` resolves any set by name, alias or spec.

The sets themselves are data in ``pctfuzz._internal.named_sets`` (WHATWG URL 1.3, RFC 3986 2,
ECMA-262 19.2.6), re-exported here; a spec such as ``encodeURI-[]`` names any other
set (``pctfuzz._internal.setspec``). Import from this module: it is the public path.
"""

from __future__ import annotations

from pctfuzz._internal.errors import InputTypeError, type_name
from pctfuzz._internal.named_sets import (  # re-exported: the public path
    ALIASES,
    ALPHA_DIGIT,
    C0_CONTROL,
    COMPONENT,
    DATA_URI,
    ENCODE_URI,
    ENCODE_URI_COMPONENT,
    FORM,
    FRAGMENT,
    GEN_DELIMS,
    PATH,
    PCHAR,
    QUERY,
    QUERY_OR_FRAGMENT,
    QUERY_VALUE,
    RESERVED,
    RFC3986_PCHAR,
    RFC3986_QUERY,
    RFC3986_UNRESERVED,
    SETS,
    SPECIAL_QUERY,
    SUB_DELIMS,
    UNRESERVED,
    URI_RESERVED,
    URI_UNESCAPED,
    USERINFO,
    WHATWG_DERIVATION,
    PercentEncodeSet,
    named_set,
    set_names,
)
from pctfuzz._internal.setspec import parse_spec

__all__ = [
    "ALIASES",
    "ALPHA_DIGIT",
    "C0_CONTROL",
    "COMPONENT",
    "DATA_URI",
    "ENCODE_URI",
    "ENCODE_URI_COMPONENT",
    "FORM",
    "FRAGMENT",
    "GEN_DELIMS",
    "PATH",
    "PCHAR",
    "QUERY",
    "QUERY_OR_FRAGMENT",
    "QUERY_VALUE",
    "RESERVED",
    "RFC3986_PCHAR",
    "RFC3986_QUERY",
    "RFC3986_UNRESERVED",
    "SETS",
    "SPECIAL_QUERY",
    "SUB_DELIMS",
    "UNRESERVED",
    "URI_RESERVED",
    "URI_UNESCAPED",
    "USERINFO",
    "WHATWG_DERIVATION",
    "PercentEncodeSet",
    "get_set",
    "named_set",
    "set_names",
]


def get_set(name: str | PercentEncodeSet) -> PercentEncodeSet:
    """Look a set up by canonical name, alias (case-sensitive names, case-free aliases)
    or set spec such as ``encodeURI-[]`` (``pctfuzz._internal.setspec``; cached)."""
    if isinstance(name, PercentEncodeSet):
        return name
    if not isinstance(name, str):
        raise InputTypeError(f"encode_set must be a set name (str), not {type_name(name)}")
    # Not a name: a set spec (``pctfuzz._internal.setspec``), which raises UnknownSetError.
    return named_set(name) or parse_spec(name)
