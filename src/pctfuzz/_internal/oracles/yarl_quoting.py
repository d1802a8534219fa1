"""yarl as an implementation under test (see ``pctfuzz._internal.oracles``).

yarl quotes every URL part with one configurable class, ``_Quoter(safe=, protected=,
qs=, requote=)``, and decodes with ``_Unquoter``. Both exist twice: in pure Python
(``yarl._quoting_py``) and compiled (``yarl._quoting_c``, used by default when it
imports). ``yarl`` tests the pure-Python pair (atheris can instrument it), ``yarl-c``
the compiled one, ``yarl-requote`` the pure-Python quoter with ``requote=True`` (what
``yarl.URL("...")`` does to a path, query or fragment); the variants share the
entries written for ``yarl``.

Mapping onto the reference's questions:

- **encode**: ``_Quoter(safe=P.printable_safe, qs=space_as_plus, requote=False)``.
  The quoter always leaves the RFC 3986 unreserved characters and ``!$'()*,``
  unencoded, and ``+&=;`` too unless ``qs``; a set that encodes one of those cannot be
  expressed (``Unsupported``), nor can bytes values or legacy encodings (the quoter
  takes str and always writes UTF-8). ``requote=False``: a ``%`` in the input is data,
  as in the reference (``yarl-requote`` normalizes existing escapes instead).
- **decode**: ``_Unquoter(replace_invalid=True)`` (str only): yarl decodes to text, so
  escapes that are not UTF-8 come back as U+FFFD; the answer is that text as UTF-8
  (lone surrogates as their ``surrogatepass`` bytes).
- **form_serialize**: ``URL.build(..., query=pairs).raw_query_string``, i.e. yarl's
  public query API (its ``QUERY_PART_QUOTER``); UTF-8 only.
- **form_parse**: ``URL.build(..., query_string=text, encoded=True).query`` items,
  i.e. yarl's own parser (str only).

The two form questions go through yarl's public API, so they run whichever quoter yarl
selected at import (compiled unless ``YARL_NO_EXTENSIONS`` is set), for every variant.
"""

from __future__ import annotations

import importlib
from typing import Any

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.oracles.base import Adapter, Unsupported, library_call
from pctfuzz._internal.sets import get_set

__all__ = ["ALWAYS_SAFE", "QS_CHARS", "YarlAdapter", "YarlCAdapter", "YarlRequoteAdapter"]

#: Characters every yarl quoter leaves as is (yarl._quoting_py.ALLOWED).
ALWAYS_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~" + "!$'()*,"
#: Query-string delimiters yarl leaves as is unless ``qs=True`` (yarl._quoting_py.QS).
QS_CHARS = "+&=;"


def _is_utf8(label: str) -> bool:
    from pctfuzz._internal import encoding as _encoding

    return bool(_encoding.lookup(label).is_utf8)


class YarlAdapter(Adapter):
    """yarl's pure-Python quoter and unquoter, and its URL query API."""

    name = "yarl"
    distribution = "yarl"  # and its variants: yarl-c, yarl-requote
    registry_names: tuple[str, ...] = ("yarl",)
    modules_under_test: tuple[str, ...] = (
        "yarl._quoting_py",
        "yarl._quoters",
        "yarl._query",
        "yarl._parse",
    )
    quoting_module = "yarl._quoting_py"
    requote = False

    def __init__(self) -> None:
        module = importlib.import_module(self.quoting_module)
        self._quoter_cls: Any = module._Quoter
        self._unquoter: Any = module._Unquoter(replace_invalid=True)
        self._quoters: dict[tuple[str, bool], Any] = {}
        from yarl import URL

        self._url: Any = URL

    def _quoter(self, set_name: str, plus: bool) -> Any:
        key = (set_name, plus)
        quoter = self._quoters.get(key)
        if quoter is None:
            pes = get_set(set_name)
            always = ALWAYS_SAFE + ("" if plus else QS_CHARS)
            clash = "".join(c for c in always if ord(c) in pes)
            if clash:
                raise Unsupported(
                    f"yarl's quoter always leaves {clash!r} unencoded"
                    f"{'' if plus else ' (qs=False)'}; set {pes.name!r} encodes them"
                )
            safe = pes.printable_safe
            if plus:
                safe = safe.replace(" ", "")
            if self.requote:
                # yarl refuses a safe "%" when requoting: "%" then starts an escape.
                safe = safe.replace("%", "")
            quoter = self._quoter_cls(safe=safe, qs=plus, requote=self.requote)
            self._quoters[key] = quoter
        return quoter

    def encode(self, case: EncodeCase) -> str:
        if isinstance(case.value, bytes):
            raise Unsupported("yarl's quoter takes str")
        if not _is_utf8(case.encoding):
            raise Unsupported("yarl's quoter always encodes UTF-8")
        result: str = self._quoter(case.set_name, case.space_as_plus)(case.value)
        return result

    def decode(self, case: DecodeCase) -> bytes:
        if isinstance(case.value, bytes):
            raise Unsupported("yarl's unquoter takes str")
        text: str = self._unquoter(case.value)
        return text.encode("utf-8", "surrogatepass")

    def reproduction(self, check: str, case: Case) -> str | None:
        imports = ("yarl",)
        if isinstance(case, FormCase):
            return library_call(imports, 'yarl.URL.build(scheme="http", host="h", '
                                "query=pairs).raw_query_string", pairs=list(case.pairs))
        if isinstance(case, FormParseCase):
            return library_call(imports, '[(str(k), str(v)) for k, v in yarl.URL.build('
                                'scheme="http", host="h", query_string=text, encoded=True)'
                                ".query.items()]", text=case.text)
        return None  # the quoters are private classes: see encode and decode

    def form_serialize(self, case: FormCase) -> str:
        if not _is_utf8(case.encoding):
            raise Unsupported("yarl's query API always encodes UTF-8")
        url = self._url.build(scheme="http", host="h", query=list(case.pairs))
        result: str = url.raw_query_string
        return result

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        if isinstance(case.text, bytes):
            raise Unsupported("yarl's query API takes str")
        url = self._url.build(scheme="http", host="h", query_string=case.text, encoded=True)
        return [(str(k), str(v)) for k, v in url.query.items()]


class YarlRequoteAdapter(YarlAdapter):
    """yarl's pure-Python quoter with ``requote=True`` (how ``yarl.URL()`` quotes)."""

    name = "yarl-requote"
    registry_names: tuple[str, ...] = ("yarl-requote", "yarl")
    requote = True


class YarlCAdapter(YarlAdapter):
    """yarl's compiled quoter and unquoter (``yarl._quoting_c``)."""

    name = "yarl-c"
    registry_names: tuple[str, ...] = ("yarl-c", "yarl")
    modules_under_test: tuple[str, ...] = ("yarl._query", "yarl._parse")
    quoting_module = "yarl._quoting_c"
