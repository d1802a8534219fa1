"""PHP's URL functions through the PHP peer (``pctfuzz/peers/php/peer.php``;
docs/peers.md). The sets are what ``pctfuzz probe`` found on PHP 8.2."""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.oracles.langs import LangPeerAdapter

__all__ = ["PHP_ADAPTERS"]


class _Php(LangPeerAdapter):
    lang = "php"


class PhpRawUrlencode(_Php):
    """rawurlencode (encode), rawurldecode (decode)"""

    name = "php-rawurlencode"
    sets = MappingProxyType({"rawurlencode": "rfc3986-unreserved"})
    spaces = (False,)


class PhpUrlencode(_Php):
    """urlencode (encode; space as '+'), urldecode (decode)"""

    name = "php-urlencode"
    sets = MappingProxyType({"urlencode": "application/x-www-form-urlencoded+*"})
    spaces = (True,)


class PhpHttpQuery(_Php):
    """http_build_query (form serialize), parse_str (form parse)"""

    name = "php-http-query"


PHP_ADAPTERS: tuple[type[LangPeerAdapter], ...] = (PhpRawUrlencode, PhpUrlencode, PhpHttpQuery)
