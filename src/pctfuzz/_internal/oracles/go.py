"""Go's ``net/url`` through the Go peer (``pctfuzz/peers/go/peer.go``; docs/peers.md).

One implementation per function family; the sets are what ``pctfuzz probe`` found on
go1.19 (``shouldEscape`` in net/url/url.go decides them per mode).
"""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.oracles.langs import LangPeerAdapter

__all__ = ["GO_ADAPTERS"]


class _Go(LangPeerAdapter):
    lang = "go"


class GoQueryEscape(_Go):
    """url.QueryEscape (encode; space as '+'), url.QueryUnescape (decode)"""

    name = "go-queryescape"
    sets = MappingProxyType({"queryescape": "rfc3986-unreserved"})
    spaces = (True,)


class GoPathEscape(_Go):
    """url.PathEscape (encode), url.PathUnescape (decode)"""

    name = "go-pathescape"
    sets = MappingProxyType({"pathescape": "rfc3986-unreserved-$&%2B:=@"})
    spaces = (False,)


class GoValues(_Go):
    """url.Values.Encode (form serialize), url.ParseQuery (form parse)"""

    name = "go-values"


class GoUrlPath(_Go):
    """(&url.URL{Path: v}).EscapedPath() (encode)"""

    name = "go-url-path"
    sets = MappingProxyType({"path": "rfc3986-pchar+!'()*-/"})
    spaces = (False,)


class GoUrlFragment(_Go):
    """(&url.URL{Fragment: v}).EscapedFragment() (encode)"""

    name = "go-url-fragment"
    sets = MappingProxyType({"fragment": "rfc3986-query+'"})
    spaces = (False,)


class GoUrlUserinfo(_Go):
    """url.User(v).String(), the userinfo of a URL (encode)"""

    name = "go-url-userinfo"
    sets = MappingProxyType({"userinfo": "rfc3986-unreserved-$&%2B,;="})
    spaces = (False,)


class GoUrlQuery(_Go):
    """url.Parse("http://h/?" + v).RawQuery (encode): the query as Parse reads it.

    str values only: RawQuery keeps a value's bytes as they are, so a non-UTF-8 byte
    would come back as no text (the peer's JSON writer makes it U+FFFD)."""

    name = "go-url-query"
    sets = MappingProxyType({"query": "c0-control"})
    spaces = (False,)
    value_types = ("str",)


GO_ADAPTERS: tuple[type[LangPeerAdapter], ...] = (
    GoQueryEscape, GoPathEscape, GoValues, GoUrlPath, GoUrlFragment, GoUrlUserinfo, GoUrlQuery,
)
