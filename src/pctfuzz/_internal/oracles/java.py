"""Java's ``java.net`` through the Java peer (``pctfuzz/peers/java/Peer.java``;
docs/peers.md). The sets are what ``pctfuzz probe`` found on OpenJDK 17."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.oracles.langs import LangPeerAdapter

__all__ = ["JAVA_ADAPTERS"]


class _Java(LangPeerAdapter):
    lang = "java"
    value_types = ("str",)
    #: Java strings are UTF-16: a lone surrogate reaches the library.
    byte_strings = False


class JavaUrlEncoder(_Java):
    """URLEncoder.encode(s, charset) (UTF-8, windows-1252, Shift_JIS), URLDecoder.decode"""

    name = "java-urlencoder"
    sets = MappingProxyType({"urlencoder": "application/x-www-form-urlencoded"})
    encodings = ("UTF-8", "windows-1252", "Shift_JIS")
    spaces = (True,)


class JavaUri(_Java):
    """the multi-argument java.net.URI constructor: path, query, userinfo (encode)"""

    name = "java-uri"
    sets = MappingProxyType(
        {"path": "rfc3986-pchar-/", "query": "rfc3986-query-[]", "userinfo": "rfc3986-pchar+@"}
    )
    spaces = (False,)


JAVA_ADAPTERS: tuple[type[LangPeerAdapter], ...] = (JavaUrlEncoder, JavaUri)
