"""boltons.urlutils as an implementation under test (see ``pctfuzz._internal.oracles``).

``boltons.urlutils`` is "a full reimplementation of URLs" on RFC 3986 and 3987 (its
module docstring), the code hyperlink grew from. Its encoders normalize to NFC and
encode UTF-8, as hyperlink's do. Mapping onto the reference's questions:

- **encode** (``full_quote=True``, each set from ``pctfuzz probe``, boltons 26.2.0):
  ``quote_path_part`` (``rfc3986-pchar``), ``quote_query_part`` (``query-value+=``, a
  space as ``%20``), ``quote_fragment_part`` (``rfc3986-query``) and
  ``quote_userinfo_part`` (``rfc3986-pchar+:@``); str only (``to_unicode(b"a")`` is
  ``"b'a'"``), UTF-8 only;
- **decode**: ``unquote_to_bytes(v)`` for bytes and str of odd length, ``unquote(v)``
  (text, U+FFFD for bytes that are not UTF-8, compared as UTF-8) for str of even
  length, so replay and minimization call the same one;
- **form_serialize**: ``QueryParamDict(pairs).to_text(full_quote=True)``
  (``quote_query_part``), except for an odd number of pairs whose text is ASCII
  letters, digits, ``*-._%&=+#[]``: those go to ``to_text()``, its default
  (``full_quote=False``: "leave them decoded for readability", only ``&=+#[]``
  encoded), which writes that text as the form set does, apart from ``%``, which it
  leaves raw (a bug: docs/in-the-wild.md). The rest of the readable mode (a space,
  ``~``, non-ASCII written raw) is by design; a case holding it goes to
  ``full_quote=True``, because a finding's class is its first differing character, and
  each one before a ``%`` would make the one bug another finding;
- **form_parse**: ``QueryParamDict.from_text(text).items(multi=True)`` (``parse_qsl``,
  ``keep_blank_values=True``); a value ``None`` (no ``=``, or nothing after it)
  stands for the empty string; str only.
"""

from __future__ import annotations

import importlib
import string
import unicodedata
from types import MappingProxyType
from typing import Any

from pctfuzz._internal.accept.entry import REPLACE as _REPLACE
from pctfuzz._internal.accept.reconcilers import (
    Reconciler,
    divergence,
    normalized,
    semicolon_separates,
)
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.oracles.base import Adapter, Unsupported, library_call
from pctfuzz._internal.oracles.urllib_parse import unquote_text
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.sets import get_set

from .hyperlink import rfc3986_form_model

__all__ = ["BoltonsAdapter", "readable_route"]

#: pctfuzz probe boltons.urlutils:quote_*_part (boltons 26.2.0), label -> spec
SETS = MappingProxyType({
    "quote_path_part": "rfc3986-pchar",
    "quote_query_part": "query-value+=",
    "quote_fragment_part": "rfc3986-query",
    "quote_userinfo_part": "rfc3986-pchar+:@",
})
#: What to_text() (full_quote=False) writes as the form set does: ASCII letters and
#: digits and ``*-._`` raw, its delimiters ``&=+#[]`` (boltons ``_QUERY_DELIMS``)
#: encoded; and ``%``, which it writes raw (the bug of docs/in-the-wild.md).
_READABLE_AS_FORM = frozenset(string.ascii_letters + string.digits + "*-._" + "#&+=[]" + "%")
_CITE_NFC = "boltons/urlutils.py quote_*_part(full_quote=True): bytestr = " \
            "normalize('NFC', to_unicode(text)).encode('utf8')"


def _decodes_to_text() -> Reconciler:
    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> Any:
        if expected.raised or not isinstance(case, DecodeCase) or not isinstance(case.value, str):
            return None
        return Outcome(unquote_text(case.value)), actual

    return Reconciler("unquote_text", frozenset({DECODE.name}), reconcile,
                      "the decoded bytes, whatever they are",
                      "text: U+FFFD for bytes that are not UTF-8, non-ASCII text kept", _REPLACE)


def readable_route(case: FormCase) -> bool:
    """to_text() (full_quote=False) answers this case (module docstring)."""
    return len(case.pairs) % 2 == 1 and all(
        c in _READABLE_AS_FORM for pair in case.pairs for text in pair for c in text)


class BoltonsAdapter(Adapter):
    """boltons.urlutils: quote_*_part, unquote(_to_bytes), QueryParamDict (module
    docstring)."""

    name = "boltons"
    distribution = "boltons"
    modules_under_test: tuple[str, ...] = ("boltons.urlutils",)
    sets = SETS
    encodings = ("UTF-8",)
    value_types = ("str",)
    spaces = (False,)
    divergences = (
        divergence(
            id="boltons-nfc", check=ENCODE.name, reconcile=normalized("NFC"), citation=_CITE_NFC,
            why="urlutils follows RFC 3987 (IRIs, 5.3.2.2: NFC); canonically equivalent "
                "text gets one spelling",
            example=EncodeCase("e\u0301", SETS["quote_path_part"]),
            applies=lambda case: isinstance(case, EncodeCase) and isinstance(case.value, str)
            and not unicodedata.is_normalized("NFC", case.value),
        ),
        divergence(
            id="boltons-unquote-text", check=DECODE.name, reconcile=_decodes_to_text(),
            citation="boltons.urlutils.unquote docstring: 'invalid sequences are replaced "
                     "by a placeholder character'; its _ASCII_RE split keeps non-ASCII text",
            why="unquote returns text by design; unquote_to_bytes (the odd-length cases) "
                "gives the bytes",
            example=DecodeCase("%FFa"),
            applies=lambda case: isinstance(case, DecodeCase) and isinstance(case.value, str)
            and len(case.value) % 2 == 0,
        ),
        divergence(
            id="boltons-query-full-quote", check=FORM_SERIALIZE.name,
            reconcile=rfc3986_form_model(SETS["quote_query_part"],
                                         "quote_query_part: query-value+=, NFC, space as %20"),
            citation="boltons/urlutils.py QueryParamDict.to_text(full_quote=True) -> "
                     "quote_query_part (_QUERY_SAFE: RFC 3986 unreserved, sub-delims but "
                     "&=+, ':@/?'); " + _CITE_NFC,
            why="urlutils writes an RFC 3986 query (3.4), not an HTML form body: sub-delims "
                "and ':@/?' stay raw, a space is %20",
            example=FormCase((("a b", "~/"),)),
            applies=lambda case: isinstance(case, FormCase) and not readable_route(case),
        ),
        divergence(
            id="boltons-parse-semicolon", check=FORM_PARSE.name, reconcile=semicolon_separates(),
            citation="boltons/urlutils.py parse_qsl: pairs = [s2 for s1 in qs.split('&') for "
                     "s2 in s1.split(';')]; HTML 4.01 B.2.2 recommended ';' as a separator",
            why="urlutils keeps the old HTML 4 recommendation (CPython dropped it in 3.10, "
                "CVE-2021-23336); the URL Standard 5.1 splits on & only",
            example=FormParseCase("a=1;b=2"),
        ),
    )

    def __init__(self) -> None:
        # imported by name: boltons ships no type information, and mypy runs without it
        urlutils = importlib.import_module("boltons.urlutils")
        self._urlutils: Any = urlutils
        self._by_members = {get_set(spec).members: getattr(urlutils, label)
                            for label, spec in SETS.items()}

    def encode(self, case: EncodeCase) -> str:
        fn = self._by_members.get(get_set(case.set_name).members)
        if fn is None:
            raise Unsupported("boltons encodes " + ", ".join(SETS.values()))
        if isinstance(case.value, bytes):
            raise Unsupported("quote_*_part take text (to_unicode(bytes) is their repr)")
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("quote_*_part encode UTF-8 only")
        if case.space_as_plus and " " in case.value:
            raise Unsupported("quote_*_part write a space as %20")
        result: str = fn(case.value)
        return result

    def reproduction(self, check: str, case: Case) -> str | None:
        imports = ("boltons.urlutils",)
        if isinstance(case, EncodeCase):
            fn = self._by_members.get(get_set(case.set_name).members)
            return None if fn is None else library_call(
                imports, f"boltons.urlutils.{fn.__name__}(value)", value=case.value)
        if isinstance(case, DecodeCase):
            if isinstance(case.value, str) and len(case.value) % 2 == 0:
                return library_call(imports, 'boltons.urlutils.unquote(value).encode('
                                    '"utf-8", "surrogatepass")', value=case.value)
            return library_call(imports, "boltons.urlutils.unquote_to_bytes(value)",
                                value=case.value)
        if isinstance(case, FormParseCase):
            return library_call(imports, '[(n, "" if v is None else v) for n, v in boltons.'
                                "urlutils.QueryParamDict.from_text(text).items(multi=True)]",
                                text=case.text)
        if isinstance(case, FormCase):
            return library_call(imports, "boltons.urlutils.QueryParamDict(pairs).to_text("
                                f"full_quote={not readable_route(case)})",
                                pairs=list(case.pairs))
        return None

    def decode(self, case: DecodeCase) -> bytes:
        value = case.value
        if isinstance(value, str) and len(value) % 2 == 0:
            text: str = self._urlutils.unquote(value)
            return text.encode("utf-8", "surrogatepass")
        data: bytes = self._urlutils.unquote_to_bytes(value)
        return data

    def form_serialize(self, case: FormCase) -> str:
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("QueryParamDict.to_text encodes UTF-8 only")
        params = self._urlutils.QueryParamDict(list(case.pairs))
        text: str = params.to_text(full_quote=not readable_route(case))
        return text

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        if isinstance(case.text, bytes):
            raise Unsupported("QueryParamDict.from_text takes text")
        params = self._urlutils.QueryParamDict.from_text(case.text)
        return [(name, "" if value is None else value)
                for name, value in params.items(multi=True)]
