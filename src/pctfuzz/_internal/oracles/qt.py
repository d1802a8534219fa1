"""Qt 6's QtCore (``QUrl``, ``QUrlQuery``) through the C++ Qt peer
(``pctfuzz/peers/qt/peer.cpp``, compiled by ``make peers``; docs/peers.md).

The sets are what ``pctfuzz probe`` found on Qt 6.4.2: ``QUrl::toPercentEncoding(v)``
leaves RFC 3986's unreserved characters raw ("ALPHA, DIGIT, '-', '.', '_' and '~'",
doc.qt.io/qt-6/qurl.html#toPercentEncoding) and writes every other byte of the UTF-8
as ``%HH``; with ``exclude = "/"`` it leaves ``/`` raw too. ``QUrlQuery`` has no set of
its own to declare: its form output (each name and value encoded by
``toPercentEncoding`` first) is compared with the form serializer's.

A QString is UTF-16 and the peer's JSON reader (``QJsonDocument``) keeps a lone
surrogate escape as that code unit, so a lone surrogate reaches the library; the
functions take a QString, so bytes values are ``Unsupported`` but for
``fromPercentEncoding``, which takes a QByteArray (its QString answer comes back as its
UTF-8 bytes).
"""

from __future__ import annotations

from types import MappingProxyType

from pctfuzz._internal.cases import DecodeCase
from pctfuzz._internal.oracles.base import Unsupported
from pctfuzz._internal.oracles.langs import LangPeerAdapter
from pctfuzz._internal.text import has_lone_surrogate

__all__ = ["QT_ADAPTERS", "QtQUrl", "QtQUrlQuery"]


class _Qt(LangPeerAdapter):
    lang = "qt"
    encodings = ("UTF-8",)
    spaces = (False,)
    #: QString is UTF-16: a lone surrogate reaches the library as one code unit.
    byte_strings = False


class QtQUrl(_Qt):
    """QUrl::toPercentEncoding(v) and toPercentEncoding(v, "/") (encode),
    QUrl::fromPercentEncoding (decode)"""

    name = "qt-qurl"
    sets = MappingProxyType({"QUrl::toPercentEncoding(v)": "rfc3986-unreserved",
                             'QUrl::toPercentEncoding(v, "/")': "rfc3986-unreserved-/"})
    #: toPercentEncoding takes a QString (fromPercentEncoding bytes: see ``decode``).
    value_types = ("str",)

    def decode(self, case: DecodeCase) -> bytes:
        if isinstance(case.value, str) and has_lone_surrogate(case.value):
            # fromPercentEncoding takes a QByteArray: the peer's toUtf8 of a lone
            # surrogate ('?') would be the peer's, not the library's.
            raise Unsupported("QUrl::fromPercentEncoding takes bytes: a lone surrogate "
                              "has no UTF-8")
        return super().decode(case)


class QtQUrlQuery(_Qt):
    """QUrlQuery::addQueryItem of each name and value encoded by QUrl::toPercentEncoding
    (its setters take encoded forms only, as its documentation says), then
    query(QUrl::FullyEncoded) (form); setQuery and queryItems(QUrl::FullyDecoded) (form
    parsing)"""

    name = "qt-qurlquery"
    value_types = ("str",)


QT_ADAPTERS: tuple[type[LangPeerAdapter], ...] = (QtQUrl, QtQUrlQuery)
