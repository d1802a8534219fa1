"""ada-url (the WHATWG URL Standard in C++, Python binding ``ada_url``) as an
implementation under test (see ``pctfuzz._internal.oracles``).

ada has no free-standing percent-encoder, so each question is asked only where a
WHATWG API percent-encodes the value and nothing else:

=====================  ==========================================================
set                    API (value v, UTF-8 text only)
=====================  ==========================================================
``fragment``           ``url.hash = "#" + v`` on ``https://h/``
``query``              ``url.search = "?" + v`` on ``x://h/`` (not special)
``special-query``      ``url.search = "?" + v`` on ``https://h/``
``path``               ``url.pathname = "/" + v`` on ``x://h`` (not special)
``userinfo``           ``url.username = v`` on ``https://h/`` (no parsing at all)
form, spaceAsPlus      ``URLSearchParams().append(v, "")``, serialized, minus "="
=====================  ==========================================================

The leading ``#``/``?``/``/`` keeps the setters from eating one of v's own. The URL
parser behind the hash, search and pathname setters first removes ASCII tab and
newline, and the path state treats ``/`` as a separator and resolves ``.``/``..``
segments; values where that applies are ``Unsupported``, as are other sets, bytes,
legacy encodings and decoding (ada exposes no percent-decoder).
Forms: ``URLSearchParams.append`` + ``str()``, and ``URLSearchParams(text).items()``
(prefixed with ``&`` when text starts with ``?``, which the constructor would drop).
"""

from __future__ import annotations

from typing import Any

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.oracles.base import Adapter, Unsupported
from pctfuzz._internal.sets import FORM, get_set
from pctfuzz._internal.spec import is_double_dot_segment, is_single_dot_segment

__all__ = ["AdaAdapter"]

_TAB_OR_NEWLINE = frozenset("\t\n\r")


def _is_utf8(label: str) -> bool:
    from pctfuzz._internal import encoding as _encoding

    return bool(_encoding.lookup(label).is_utf8)


class AdaAdapter(Adapter):
    """ada-url: URL setters (hash, search, pathname, username) and URLSearchParams."""

    name = "ada"
    distribution = "ada-url"
    registry_names: tuple[str, ...] = ("ada",)
    modules_under_test: tuple[str, ...] = ("ada_url.ada_adapter",)

    def __init__(self) -> None:
        import ada_url

        self._ada: Any = ada_url

    def _setter(self, base: str, attr: str, prefix: str, value: str) -> str:
        if _TAB_OR_NEWLINE.intersection(value):
            raise Unsupported("the URL parser removes ASCII tab and newline before encoding")
        url = self._ada.URL(base)
        setattr(url, attr, prefix + value)
        result: str = getattr(url, attr)
        return result[len(prefix) :] if result.startswith(prefix) else result

    def encode(self, case: EncodeCase) -> str:
        value = case.value
        if isinstance(value, bytes):
            raise Unsupported("ada takes str")
        if not _is_utf8(case.encoding):
            raise Unsupported("ada's URL API always encodes UTF-8")
        name = get_set(case.set_name).name
        if name == FORM.name:
            if not case.space_as_plus:
                raise Unsupported("URLSearchParams always writes space as '+'")
            params = self._ada.URLSearchParams("")
            params.append(value, "")
            text: str = str(params)
            return text.removesuffix("=")
        if case.space_as_plus:
            raise Unsupported("ada's URL setters never write space as '+'")
        if name == "fragment":
            return self._setter("https://h/", "hash", "#", value)
        if name == "query":
            return self._setter("x://h/", "search", "?", value)
        if name == "special-query":
            return self._setter("https://h/", "search", "?", value)
        if name == "path":
            if any(is_single_dot_segment(seg) or is_double_dot_segment(seg)
                   for seg in value.split("/")):
                raise Unsupported("the path state resolves '.' and '..' segments")
            return self._setter("x://h", "pathname", "/", value)
        if name == "userinfo":
            url = self._ada.URL("https://h/")
            url.username = value
            username: str = url.username
            return username
        raise Unsupported(f"no ada API percent-encodes with the {name!r} set alone")

    def decode(self, case: DecodeCase) -> bytes:
        raise Unsupported("ada exposes no percent-decoder")

    def form_serialize(self, case: FormCase) -> str:
        if not _is_utf8(case.encoding):
            raise Unsupported("URLSearchParams always encodes UTF-8")
        params = self._ada.URLSearchParams("")
        for name, value in case.pairs:
            params.append(name, value)
        text: str = str(params)
        return text

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        text = case.text
        if isinstance(text, bytes):
            raise Unsupported("ada_url.URLSearchParams takes str")
        # The constructor drops one leading "?" before parsing (URL 6.2); a leading "&"
        # (an empty sequence, which the parser skips) keeps it.
        if text.startswith("?"):
            text = "&" + text
        return [(str(k), str(v)) for k, v in self._ada.URLSearchParams(text).items()]
