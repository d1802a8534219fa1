"""Built-in entries for the JavaScript runtimes besides Node.js (adapters ``bun``,
``bun-url``, ``deno``, ``deno-url``; ``pctfuzz._internal.oracles.engines``), each cited to
ECMA-262 and the runtime's source. ``deno-url`` has none: its one difference, ``^``
left raw in a path, is a real bug (docs/in-the-wild.md), a finding.

``encodeURIComponent``, ``encodeURI`` and ``decodeURIComponent`` are ECMA-262's
(19.2.6), the same in every engine: they refuse what the URL Standard's percent-encode
and percent-decode take (a lone surrogate; a ``%`` without two hex digits, bytes that
are not UTF-8). The models are the ``node`` entries' (``checks.registry.node``).
"""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.accept.javascript import decode_uri_component
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase
from pctfuzz._internal.checks.registry.common import (
    WHATWG_PCT,
    Pair,
    add_entry,
    str_value_with_surrogate,
)
from pctfuzz._internal.operations import DECODE, ENCODE
from pctfuzz._internal.oracles.process import remote_error_type
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.sets import FORM, get_set

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_ECMA_ENCODE = "ECMA-262 19.2.6.5 Encode (an unpaired surrogate throws URIError)"
_ECMA_DECODE = "ECMA-262 19.2.6.6 Decode (a malformed escape or UTF-8 sequence throws URIError)"

#: runtime -> (its name, where its encodeURIComponent and decodeURIComponent are, the
#: messages of the URIErrors they throw).
_ENGINES = {
    "bun": ("Bun", "WebKit Source/JavaScriptCore/runtime/JSGlobalObjectFunctions.cpp, encode() "
            "and decode()", "'String contained an illegal UTF-16 sequence.'", "'URI error'"),
    "deno": ("Deno", "V8 src/strings/uri.cc, Uri::Encode and Uri::Decode "
             "(MessageTemplate::kURIMalformed)", "'URI malformed'", "'URI malformed'"),
}


def _uri_error(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if isinstance(actual.error, remote_error_type("URIError")):
        return actual, actual
    return None


def _not_form_set(case: Case) -> bool:
    return get_set(getattr(case, "set_name", "component")).name != FORM.name


def _ecma_decode_throws(case: Case) -> bool:
    return isinstance(case, DecodeCase) and isinstance(case.value, str) and (
        decode_uri_component(case.value) is None
    )


for _impl, (_name, _source, _encode_message, _decode_message) in _ENGINES.items():
    _entry(
        id=f"{_impl}-encodeuricomponent-lone-surrogate",
        impl=_impl,
        check=ENCODE.name,
        summary=f"{_name}'s encodeURIComponent and encodeURI throw URIError for a lone "
        "surrogate",
        applies=lambda case: str_value_with_surrogate(case) and _not_form_set(case),
        reconcile=_uri_error,
        reference="refuses: NotScalarValueError",
        implementation=f"refuses: URIError: {_encode_message.strip(chr(39))}",
        citation=f"{_ECMA_ENCODE}; {_source} ({_encode_message}); {WHATWG_PCT} takes a "
        "scalar value string",
        why="both refuse the input; only the exception type differs",
        example=EncodeCase("\ud800", "component"),
    )
    _entry(
        id=f"{_impl}-decodeuricomponent-malformed",
        impl=_impl,
        check=DECODE.name,
        summary=f"{_name}'s decodeURIComponent throws URIError for a malformed escape or "
        "non-UTF-8 bytes",
        applies=_ecma_decode_throws,
        reconcile=_uri_error,
        reference="percent-decodes: a % without two hex digits is kept; any bytes result",
        implementation=f"throws URIError ({_decode_message}) where Decode does ('%', "
        "'%zz', '%FF', '%C3' alone, '%ED%A0%80')",
        citation=f"{_ECMA_DECODE}; {_source}; WHATWG URL Standard 1.3 (percent-decode)",
        why="decodeURIComponent decodes what encodeURIComponent wrote and refuses the rest; "
        "on every input it accepts the bytes are the reference's",
        example=DecodeCase("%"),
    )
