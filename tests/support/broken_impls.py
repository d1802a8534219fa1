"""Implementations broken on purpose, to show that the fuzzer finds real differences.

Importable as ``broken_impls:TildeEncodingUrllib`` (``--impl``) when ``tests/`` is on
the path, as in the campaign test.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any

from pctfuzz._internal.cases import EncodeCase, FormCase
from pctfuzz._internal.oracles import Unsupported
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter


class TildeEncodingUrllib(UrllibAdapter):
    """urllib.parse, except that ``~`` is always percent-encoded (as Python < 3.7 did)."""

    name = "urllib-tilde-broken"

    def encode(self, case: EncodeCase) -> str:
        _utf8_or_bytes(case)
        return super().encode(case).replace("~", "%7E")


class LosesLastChar(UrllibAdapter):
    """urllib with one more bug: the answer's last character dropped (encode and the
    form serializer), for the registry's tests: accepted differences must not hide it."""

    name = "urllib-lossy"
    registry_names = ("urllib-lossy", "urllib")

    def encode(self, case: EncodeCase) -> str:
        return super().encode(case)[:-1]

    def form_serialize(self, case: FormCase) -> str:
        return super().form_serialize(case)[:-1]


def _utf8_or_bytes(case: EncodeCase) -> None:
    """Planted bugs answer UTF-8 and bytes only: a bug stacked on urllib's accepted
    legacy-encoding differences (ISO-2022-JP's Roman mode...) is a composite that no
    registry entry models, and would be a second finding of the same planted bug."""
    if isinstance(case.value, str) and case.encoding.upper() not in ("UTF-8", "UTF8"):
        raise Unsupported("this planted-bug adapter answers UTF-8 and bytes only")


class PlantedBugsUrllib(UrllibAdapter):
    """urllib.parse with the bugs named in ``PCTFUZZ_TEST_BUGS`` (comma-separated),
    so one campaign can plant several bugs and a later one "fix" some:

    - ``hex``: percent-encodings written with lowercase hex digits;
    - ``tilde``: ``~`` percent-encoded as ``%7E``;
    - ``plus``: space written as ``+`` where the set wants ``%20``;
    - ``lt``: ``<`` left raw.

    It answers UTF-8 and bytes only (see ``_utf8_or_bytes``).
    """

    name = "urllib-planted"

    def encode(self, case: EncodeCase) -> str:
        _utf8_or_bytes(case)
        bugs = set(os.environ.get("PCTFUZZ_TEST_BUGS", "").split(","))
        out = self._lowercase_own_escapes(case) if "hex" in bugs else super().encode(case)
        if "tilde" in bugs:
            out = out.replace("~", "%7E")
        if "plus" in bugs and not case.space_as_plus:
            out = out.replace("%20", "+")
        if "lt" in bugs:
            out = out.replace("%3C", "<").replace("%3c", "<")
        return out

    def _lowercase_own_escapes(self, case: EncodeCase) -> str:
        """urllib's answer with the escapes it writes in lowercase; an escape of the
        input that a set leaving '%' raw keeps is kept as it is (lowercasing those too
        is another behaviour, which the catalogue names otherwise)."""
        value = case.value
        pattern: Any = re.compile(b"(%[0-9A-Fa-f]{2})" if isinstance(value, bytes)
                                  else "(%[0-9A-Fa-f]{2})")
        parts = pattern.split(value)
        kept = super().encode(dataclasses.replace(case, value=value[:0] + (
            b"%" if isinstance(value, bytes) else "%"))) == "%"
        if not kept:
            return re.sub("%[0-9A-F]{2}", lambda m: m[0].lower(), super().encode(case))
        out = []
        for i, part in enumerate(parts):
            if i % 2:  # an escape of the input, kept
                out.append(part.decode("ascii") if isinstance(part, bytes) else part)
            elif part:
                out.append(re.sub("%[0-9A-F]{2}", lambda m: m[0].lower(),
                                  super().encode(dataclasses.replace(case, value=part))))
        return "".join(out)


class FailsInHarness(UrllibAdapter):
    """Loads in the ``pctfuzz fuzz`` process but not in its libFuzzer children (which
    have ``PCTFUZZ_CORPUS`` set): a target whose harness cannot start."""

    name = "fails-in-harness"

    def __init__(self) -> None:
        if "PCTFUZZ_CORPUS" in os.environ:
            raise RuntimeError("this adapter cannot start in a harness")


def query_value_leaving_hash(value: str) -> str:
    """A query-value encoder (encodeURI's set plus # & +, space as +) that leaves ``#``
    raw: a library function with a planted bug, for ``report --upstream``."""
    import urllib.parse

    return urllib.parse.quote_plus(value, safe="-_.!~*'();/?:@=$,#")


def _hash_raw_adapter() -> object:
    from pctfuzz._internal.oracles import function_adapter

    return function_adapter("hash-raw", encode=query_value_leaving_hash,
                            sets={"query-value": "query-value"}, space_as_plus=True)


#: ``broken_impls:HASH_RAW``: a function adapter of ``query_value_leaving_hash``.
HASH_RAW = _hash_raw_adapter()
