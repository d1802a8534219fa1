"""User adapters with declared accepted differences, for tests/unit/test_accept.py."""

from __future__ import annotations

from urllib.parse import quote

from pctfuzz._internal.cases import EncodeCase, FormParseCase
from pctfuzz._internal.form import form_urldecode
from pctfuzz._internal.oracles import Adapter, Unsupported, divergence, empty_pairs, left_raw
from pctfuzz._internal.sets import get_set

_ENCODE_URI = get_set("encodeURI")


class BracketsRaw(Adapter):
    """encodeURI with [ ] left raw (what requests' requote_uri does with them)."""

    name = "brackets"
    distribution = "hypothesis"
    divergences = (
        divergence(
            id="brackets-left-raw", check="encode", reconcile=left_raw("[]"),
            citation="RFC 3986 3.2.2 (IP-literal) uses [ ] in the host",
            why="the library keeps IPv6 literals readable",
            example=EncodeCase("[", "encodeURI"),
        ),
    )

    def encode(self, case: EncodeCase) -> str:
        if get_set(case.set_name) is not _ENCODE_URI or isinstance(case.value, bytes):
            raise Unsupported("encodeURI, str only")
        if case.encoding.lower() not in ("utf-8", "utf8") or case.space_as_plus:
            raise Unsupported("UTF-8, space as %20")
        return quote(case.value, safe=_ENCODE_URI.printable_safe + "[]")

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        return form_urldecode(case.text)


class WrongEntry(BracketsRaw):
    """An entry whose example does not diverge: ``(`` is left raw by encodeURI itself,
    and a second entry claims empty pairs are dropped, which this parser does not do."""

    name = "wrong"
    divergences = (
        divergence(
            id="wrong-paren", check="encode", reconcile=left_raw("("),
            citation="none", why="a mistaken entry", example=EncodeCase("(", "encodeURI"),
        ),
        divergence(
            id="wrong-empty", check="form-parse", reconcile=empty_pairs("dropped"),
            citation="none", why="a mistaken entry", example=FormParseCase("a=&b=1"),
        ),
    )


class Plain(BracketsRaw):
    """The same library with no declared entries (``--accept`` supplies them)."""

    name = "plain"
    divergences = ()
