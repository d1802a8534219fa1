"""Implementations broken on purpose, to show that the fuzzer finds real differences.

Importable as ``broken_impls:TildeEncodingUrllib`` (``--impl``) when ``tests/`` is on
the path, as in the campaign test.
"""

from __future__ import annotations

from pctfuzz.cases import EncodeCase
from pctfuzz.oracles.urllib_parse import UrllibAdapter


class TildeEncodingUrllib(UrllibAdapter):
    """urllib.parse, except that ``~`` is always percent-encoded (as Python < 3.7 did)."""

    name = "urllib-tilde-broken"

    def encode(self, case: EncodeCase) -> str:
        return super().encode(case).replace("~", "%7E")
