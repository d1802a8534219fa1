"""R's ``utils::URLencode`` and ``utils::URLdecode`` through the R peer
(``pctfuzz/peers/r/peer.R``; docs/peers.md). The sets are what ``pctfuzz probe`` found
on R 4.2.2: ``reserved = TRUE`` leaves RFC 3986's unreserved characters raw,
``reserved = FALSE`` (the default) encodeURI's set with ``[`` ``]`` raw too. Both are
asked as the defaults have it, ``repeated = FALSE``."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.cases import DecodeCase, EncodeCase
from pctfuzz._internal.oracles.base import Unsupported
from pctfuzz._internal.oracles.langs import LangPeerAdapter

__all__ = ["RUrlencode"]


class RUrlencode(LangPeerAdapter):
    """utils::URLencode (encode, reserved = TRUE or FALSE), utils::URLdecode (decode)"""

    name = "r-urlencode"
    lang = "r"
    sets = MappingProxyType({"URLencode(x, reserved = TRUE)": "rfc3986-unreserved",
                             "URLencode(x)": "encodeURI-[]"})
    spaces = (False,)
    #: The peer's JSON reader gives R strings; bytes would need another reader.
    value_types = ("str",)

    def _no_nul(self, value: str | bytes) -> None:
        if isinstance(value, str) and "\x00" in value:
            # R documentation ?Quotes: "Embedded nuls are not allowed in character strings".
            raise Unsupported("R character strings cannot hold a NUL")

    def encode(self, case: EncodeCase) -> str:
        self._no_nul(case.value)
        return super().encode(case)

    def decode(self, case: DecodeCase) -> bytes:
        self._no_nul(case.value)
        return super().decode(case)
