"""Rust's ``url`` crate, in process through pydantic-core's ``Url`` (docs/peers.md).

pydantic-core parses with the ``url`` crate (servo/rust-url, the WHATWG URL parser in
Rust), so a component's text is what the crate's parser percent-encodes in that state
(URL Standard 4.4: path state, query state, fragment state). Each value is put into
one URL string and read back from the parsed URL:

- path: ``http://h/{v}?`` (the ``?`` keeps trailing spaces inside the URL);
- query: ``http://h/?{v}#`` (a special URL: the special-query set);
- fragment: ``http://h/#{v}``.

What a URL string cannot hold as one component is ``Unsupported``, as for the ``ada``
adapter: ASCII tab and newline (the parser removes them), the delimiters that end the
component (``?`` and ``#``, and ``\\`` in a special URL's path), ``.``/``..`` path
segments (resolved), and a fragment ending in a C0 control or space (trimmed). The
crate takes Rust strings (UTF-8): lone surrogates and bytes are ``Unsupported``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.oracles.base import Adapter, Unsupported
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.text import has_lone_surrogate

__all__ = ["RustUrlAdapter"]

_TAB_NEWLINE = frozenset("\t\n\r")


def _url_type() -> Any:
    from pydantic_core import Url

    return Url


class RustUrlAdapter(Adapter):
    """Rust url crate (pydantic-core Url): path, query, fragment as the parser encodes"""

    name = "rust-url"
    language = "Rust"
    distribution = "pydantic-core"
    sets = MappingProxyType({"path": "path", "query": "special-query", "fragment": "fragment"})
    encodings = ("UTF-8",)
    value_types = ("str",)
    spaces = (False,)

    def __init__(self) -> None:
        self.url = _url_type()
        self.registry_names = (self.name,)

    def encode(self, case: EncodeCase) -> str:
        wanted = get_set(case.set_name).name
        part = next((p for p, spec in self.sets.items() if get_set(spec).name == wanted), None)
        if part is None:
            raise Unsupported(f"rust-url is asked for {', '.join(self.sets)} only")
        value = case.value
        if isinstance(value, bytes):
            raise Unsupported("the url crate parses str (Rust strings), not bytes")
        if has_lone_surrogate(value):
            raise Unsupported("Rust strings are UTF-8: a lone surrogate cannot reach the crate")
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("the url crate encodes UTF-8 only")
        if case.space_as_plus and " " in value:
            raise Unsupported("the URL parser writes a space as %20")
        if _TAB_NEWLINE & set(value) or "#" in value:
            raise Unsupported("the parser removes tab and newline; '#' starts the fragment")
        if part == "path":
            if "?" in value or "\\" in value:
                raise Unsupported("'?' ends the path; '\\' is '/' in a special URL's path")
            if any(s in (".", "..") or s.lower() in ("%2e", "%2e%2e", ".%2e", "%2e.")
                   for s in value.split("/")):
                raise Unsupported("the path state resolves '.' and '..' segments")
            return str(self.url(f"http://h/{value}?").path)[1:]
        if part == "query":
            return str(self.url(f"http://h/?{value}#").query or "")
        if value and (ord(value[-1]) <= 0x20):
            raise Unsupported("the parser trims C0 controls and spaces at the URL's end")
        return str(self.url(f"http://h/#{value}").fragment or "")
