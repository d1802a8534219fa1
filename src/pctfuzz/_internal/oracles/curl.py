"""libcurl through ctypes, in process (docs/peers.md): ``curl_easy_escape`` and
``curl_easy_unescape`` (``curl-escape``), and the URL API's ``curl_url_set`` with
``CURLU_URLENCODE`` per component, read back with ``curl_url_get`` (``curl-url``).

libcurl takes bytes (``char *``): a bytes value is passed as is and a str value as
its UTF-8 bytes, so lone surrogates and legacy encodings of str are ``Unsupported``.
``curl_url_set`` takes a NUL-terminated string, so a value with a NUL byte is too.
The sets are what ``pctfuzz probe`` found on libcurl 7.88.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from types import MappingProxyType
from typing import Any

from pctfuzz._internal.cases import DecodeCase, EncodeCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.oracles.base import Adapter, Unsupported
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.text import has_lone_surrogate

__all__ = ["CurlError", "CurlEscapeAdapter", "CurlUrlAdapter", "libcurl"]

# curl/urlapi.h: CURLUPart and the flags of curl_url_set/curl_url_get.
_PARTS = {"path": 7, "query": 8}
CURLU_URLENCODE = 1 << 7
#: curl_url_get's CURLUcode for a URL without a query: its query is read as "".
CURLUE_NO_QUERY = 16


class CurlError(PctfuzzError):
    """libcurl returned an error code (CURLUcode) or NULL. It stands for the library's
    own failure, so it is defined here, not in ``errors``: its qualified name is part
    of the signature of a finding where curl raised."""


@functools.lru_cache(maxsize=1)
def libcurl() -> Any:
    """The loaded libcurl with the prototypes used here; ImportError when absent."""
    name = ctypes.util.find_library("curl") or "libcurl.so.4"
    try:
        lib = ctypes.CDLL(name)
    except OSError as exc:
        raise ImportError(f"libcurl not found ({exc}); install libcurl4") from None
    lib.curl_version.restype = ctypes.c_char_p
    lib.curl_easy_init.restype = ctypes.c_void_p
    lib.curl_easy_escape.restype = ctypes.c_void_p
    lib.curl_easy_escape.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    lib.curl_easy_unescape.restype = ctypes.c_void_p
    lib.curl_easy_unescape.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                       ctypes.POINTER(ctypes.c_int)]
    lib.curl_free.argtypes = [ctypes.c_void_p]
    lib.curl_url.restype = ctypes.c_void_p
    lib.curl_url_cleanup.argtypes = [ctypes.c_void_p]
    lib.curl_url_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    lib.curl_url_get.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                 ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
    return lib


def _taken(lib: Any, pointer: int | None, length: int | None = None) -> bytes:
    """The bytes libcurl allocated at ``pointer``, then curl_free."""
    if not pointer:
        raise CurlError("libcurl returned NULL")
    try:
        return ctypes.string_at(pointer, length) if length is not None else ctypes.string_at(
            pointer)
    finally:
        lib.curl_free(pointer)


class _Curl(Adapter):
    """What both libcurl adapters share: the library, its version, bytes in."""

    language = "C"
    value_types = ("str", "bytes")
    encodings = ("UTF-8",)

    def __init__(self) -> None:
        self.lib = libcurl()
        # "libcurl/7.88.1 OpenSSL/..." -> "7.88.1"
        banner: str = self.lib.curl_version().decode("ascii", "replace")
        self._version = banner.split()[0].partition("/")[2]
        self.registry_names = (self.name,)
        self.handle = self.lib.curl_easy_init()

    @property
    def version(self) -> str:
        """libcurl's version, from curl_version() (what a finding records)."""
        return self._version

    def _data(self, case: EncodeCase | DecodeCase) -> bytes:
        value = case.value
        if isinstance(value, bytes):
            return value
        if has_lone_surrogate(value):
            raise Unsupported("libcurl takes bytes: a lone surrogate has no UTF-8 bytes")
        if isinstance(case, EncodeCase) and not lookup(case.encoding).is_utf8:
            raise Unsupported("libcurl takes bytes: a legacy encoding of a str is the caller's")
        return value.encode("utf-8")


class CurlEscapeAdapter(_Curl):
    """libcurl curl_easy_escape (encode), curl_easy_unescape (decode), through ctypes"""

    name = "curl-escape"
    sets = MappingProxyType({"escape": "rfc3986-unreserved"})
    spaces = (False,)

    def encode(self, case: EncodeCase) -> str:
        if get_set(case.set_name).name != get_set(self.sets["escape"]).name:
            raise Unsupported("curl_easy_escape has one set")
        data = self._data(case)
        if case.space_as_plus and b" " in data:
            raise Unsupported("curl_easy_escape writes a space as %20")
        out = _taken(self.lib, self.lib.curl_easy_escape(self.handle, data, len(data)))
        return out.decode("ascii")

    def decode(self, case: DecodeCase) -> bytes:
        data = self._data(case)
        length = ctypes.c_int(0)
        pointer = self.lib.curl_easy_unescape(self.handle, data, len(data), ctypes.byref(length))
        return _taken(self.lib, pointer, length.value)


class CurlUrlAdapter(_Curl):
    """libcurl curl_url_set(part, CURLU_URLENCODE), curl_url_get: path, query (encode)"""

    name = "curl-url"
    #: The fragment and user parts are encoded with the query's set (space as %20), so
    #: a case's set cannot say which part it asks: the path and the query are asked.
    sets = MappingProxyType({"path": "rfc3986-unreserved-/", "query": "rfc3986-unreserved"})
    spaces = (False, True)

    def encode(self, case: EncodeCase) -> str:
        wanted = get_set(case.set_name).name
        part = next((p for p, spec in self.sets.items() if get_set(spec).name == wanted), None)
        if part is None:
            raise Unsupported(f"curl_url_set encodes only the sets of {', '.join(self.sets)}")
        data = self._data(case)
        if b"\0" in data:
            raise Unsupported("curl_url_set takes a NUL-terminated string")
        plus = part == "query"  # CURLU_URLENCODE writes a query's space as '+'
        if case.space_as_plus != plus and b" " in data:
            raise Unsupported(f"curl_url_set writes a {part}'s space as {'+' if plus else '%20'}")
        handle = self.lib.curl_url()
        try:
            code = self.lib.curl_url_set(handle, _PARTS[part], data, CURLU_URLENCODE)
            if code:
                raise CurlError(f"curl_url_set returned CURLUcode {code}")
            out = ctypes.c_void_p()
            code = self.lib.curl_url_get(handle, _PARTS[part], ctypes.byref(out), 0)
            if code == CURLUE_NO_QUERY and part == "query":
                return ""  # an empty query is stored as none
            if code:
                raise CurlError(f"curl_url_get returned CURLUcode {code}")
            return _taken(self.lib, out.value).decode("ascii", "surrogateescape")
        finally:
            self.lib.curl_url_cleanup(handle)
