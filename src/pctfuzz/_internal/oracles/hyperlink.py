"""hyperlink as an implementation under test (see ``pctfuzz._internal.oracles``).

hyperlink has two URL types: ``URL`` (alias ``EncodedURL``), whose parts are
percent-encoded text, and ``DecodedURL``, "the recommended type for most operations",
whose parts are plain text that it encodes and decodes itself (its docstring). Every
encoder first normalizes to NFC and encodes UTF-8 (``_url.py``: ``normalize("NFC",
text).encode("utf8")``). Mapping onto the reference's questions:

- **encode**, one label per set (``pctfuzz probe``, hyperlink 21.0.0):

  - ``DecodedURL`` (``rfc3986-unreserved``): a query value,
    ``DecodedURL().replace(query=[("a", v)]).to_text()`` after its ``?a=``; the same
    ``_encode_reserved`` serves ``child``, ``sibling`` and path and userinfo
    ``replace``;
  - ``to_uri path`` (``rfc3986-pchar-%25``): ``URL(scheme="http", path=("a",
    v)).to_uri().path[-1]``;
  - ``to_uri fragment`` (``rfc3986-query-%25``): ``URL(fragment=v).to_uri().fragment``;
    a value of odd length without ``&`` or ``#`` goes to the query value,
    ``URL(query=[("a", v)]).to_uri().query[0][1]``, which has the same set.

  ``URL`` takes percent-encoded parts (its docstring: "each percent-encoded"), so
  ``to_uri`` leaves ``%`` as it is, and its constructor refuses a raw ``/?#`` in a
  path segment and ``&#`` in a query value (ValueError): those values are
  ``Unsupported``. Space is ``%20``, str only, UTF-8 only.
- **decode**: the fragment, the one part decoded whole (no separator inside it):
  ``DecodedURL.from_text("#" + v).fragment`` for a value of odd length, and
  ``URL(fragment=v).to_iri().fragment`` for one of even length, so replay and
  minimization call the same one (the constructor, not ``from_text``: the fragment
  bug of docs/in-the-wild.md shows on the odd lengths, and each kept escape before it
  would class it as another finding). ``to_iri`` ("all but a few reserved characters
  decoded") keeps the escapes of ``#[]`` and ``%`` and gives the text back unchanged
  when the bytes are not UTF-8. str only; a value with a lone surrogate is
  ``Unsupported``: ``_percent_decode`` returns text it cannot UTF-8 encode unchanged
  (its docstring: "All characters in the input text must be encodable").
- **form_serialize**: ``DecodedURL().replace(query=pairs).to_text()`` without its
  ``?``; UTF-8.
- **form_parse**: ``DecodedURL.from_text("?" + text).query`` (``+`` is a space, as
  ``query_plus_is_space`` defaults); a name without ``=`` has the value ``None``, which
  stands for the empty string here. A ``#`` ends a URL's query, so text holding one is
  ``Unsupported``, as is a lone surrogate (above) and bytes.
"""

from __future__ import annotations

import importlib
import unicodedata
from types import MappingProxyType
from typing import Any

from pctfuzz._internal.accept.entry import REPLACE as _REPLACE
from pctfuzz._internal.accept.reconcilers import (
    Reconciler,
    divergence,
    empty_pairs,
    normalized,
)
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.form import form_urldecode_bytes
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.oracles.base import Adapter, Unsupported
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import PercentEncodeSet, get_set
from pctfuzz._internal.spec import ASCII_HEX_DIGITS
from pctfuzz._internal.text import surrogates_to_fffd

__all__ = ["HyperlinkAdapter", "rfc3986_form_model"]

#: pctfuzz probe of DecodedURL().replace(query=[("a", v)]).to_text()[3:]: exact set.
DECODED_SET = "rfc3986-unreserved"
#: pctfuzz probe of URL(scheme="http", path=("a", v)).to_uri().path[-1].
URI_PATH_SET = "rfc3986-pchar-%25"
#: pctfuzz probe of URL(fragment=v).to_uri().fragment (and of the query value).
URI_FRAGMENT_SET = "rfc3986-query-%25"
_SURROGATES = range(0xD800, 0xE000)
CITE_NFC = "hyperlink/_url.py _encode_reserved, _encode_path_part, _encode_fragment_part, " \
           "...: bytestr = normalize(\"NFC\", text).encode(\"utf8\")"


def _has_surrogate(text: str) -> bool:
    return any(ord(c) in _SURROGATES for c in text)


def _not_nfc(case: Case) -> bool:
    if isinstance(case, EncodeCase):
        return isinstance(case.value, str) and not unicodedata.is_normalized("NFC", case.value)
    if isinstance(case, FormCase):
        return any(not unicodedata.is_normalized("NFC", t) for pair in case.pairs for t in pair)
    return False


def rfc3986_form_model(spec: str, describe: str) -> Reconciler:
    """Names and values NFC-normalized and encoded with the set ``spec``, a space as
    ``%20``, joined with ``=`` and ``&`` (the URL Standard 5.2 uses the form set and
    ``+``)."""
    pes: PercentEncodeSet = get_set(spec)

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> Any:
        if expected.raised or not isinstance(case, FormCase):
            return None

        def field(text: str) -> str:
            return percent_encode(unicodedata.normalize("NFC", text), pes,
                                  encoding=case.encoding, space_as_plus=False)

        return Outcome("&".join(field(n) + "=" + field(v) for n, v in case.pairs)), actual

    return Reconciler("rfc3986_form", frozenset({FORM_SERIALIZE.name}), reconcile,
                      "the form set of the URL Standard (5.2), space as +", describe)


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _query_parts(text: str) -> list[bytes]:
    """Each name and value of a query, percent-decoded with + as space (5.1, before
    its UTF-8 decode; lone surrogates as U+FFFD, as ``percent_decode`` reads a str)."""
    return [part for pair in form_urldecode_bytes(surrogates_to_fffd(text).encode("utf-8"))
            for part in pair]


def _raises_on_invalid_utf8() -> Reconciler:
    """UnicodeDecodeError exactly where the decoded bytes are not UTF-8 (the reference
    writes U+FFFD, Encoding Standard "UTF-8 decode without BOM")."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> Any:
        if expected.raised or not isinstance(actual.error, UnicodeDecodeError):
            return None
        if isinstance(case, DecodeCase):
            invalid = not _utf8(expected.value)
        elif isinstance(case, FormParseCase) and isinstance(case.text, str):
            invalid = not all(_utf8(part) for part in _query_parts(case.text))
        else:
            return None
        return (actual, actual) if invalid else None

    return Reconciler("raises_on_invalid_utf8", frozenset({DECODE.name, FORM_PARSE.name}),
                      reconcile,
                      "U+FFFD for bytes that are not UTF-8",
                      "raises UnicodeDecodeError (DecodedURL decodes text strictly)", _REPLACE)


#: What URL.to_iri keeps encoded in a fragment: _make_decode_map(_FRAGMENT_DELIMS)
#: leaves out the RFC 3986 delimiters a fragment cannot hold raw, and "%".
IRI_FRAGMENT_KEPT = frozenset(b"#[]%")


def _to_iri_fragment(value: str) -> bytes:
    """URL(fragment=value).to_iri().fragment, as UTF-8 (module docstring)."""
    data = value.encode("utf-8")
    pieces = data.split(b"%")
    out = [pieces[0]]
    for piece in pieces[1:]:
        pair = piece[:2]
        if len(pair) == 2 and all(c in ASCII_HEX_DIGITS for c in pair) \
                and int(pair, 16) not in IRI_FRAGMENT_KEPT:
            out += [bytes([int(pair, 16)]), piece[2:]]
        else:
            out += [b"%", piece]
    decoded = b"".join(out)
    return decoded if _utf8(decoded) else data


def _to_iri_model() -> Reconciler:
    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> Any:
        if expected.raised or not isinstance(case, DecodeCase) or not isinstance(case.value, str):
            return None
        return Outcome(_to_iri_fragment(case.value)), actual

    return Reconciler("to_iri", frozenset({DECODE.name}), reconcile,
                      "decodes every %HH to its byte",
                      "keeps %23 %5B %5D %25 (any hex case) and, when the bytes are not "
                      "UTF-8, the whole text", _REPLACE)


def _to_iri_route(case: Case) -> bool:
    return isinstance(case, DecodeCase) and isinstance(case.value, str) \
        and len(case.value) % 2 == 0


_CITE_STRICT = ("hyperlink DecodedURL docstring: 'Where applicable, a UTF-8 encoding is "
                "presumed. Be advised that some interactions can raise ... "
                "UnicodeDecodeErrors'; python-hyper/hyperlink#173 (maintainer: the %F6 "
                "is 'invalid text when decoded from UTF-8'; use decoded=False)")


class HyperlinkAdapter(Adapter):
    """hyperlink: URL.to_uri, URL.to_iri and DecodedURL (module docstring)."""

    name = "hyperlink"
    distribution = "hyperlink"
    modules_under_test: tuple[str, ...] = ("hyperlink._url",)
    sets = MappingProxyType({"DecodedURL": DECODED_SET, "to_uri path": URI_PATH_SET,
                             "to_uri fragment": URI_FRAGMENT_SET})
    encodings = ("UTF-8",)
    value_types = ("str",)
    spaces = (False,)
    divergences = (
        divergence(
            id="hyperlink-nfc", check=ENCODE.name, reconcile=normalized("NFC"), citation=CITE_NFC,
            why="hyperlink treats a URL as an IRI (RFC 3987 5.3.2.2: NFC); canonically "
                "equivalent text gets one spelling",
            example=EncodeCase("e\u0301", DECODED_SET), applies=_not_nfc,
        ),
        divergence(
            id="hyperlink-query-rfc3986", check=FORM_SERIALIZE.name,
            reconcile=rfc3986_form_model(DECODED_SET, "rfc3986-unreserved, NFC, space as %20"),
            citation="hyperlink DecodedURL.replace: query names and values go through "
                     "_encode_reserved (RFC 3986 2.3 unreserved kept, NFC, UTF-8); " + CITE_NFC,
            why="hyperlink writes an RFC 3986 query, not an HTML form body: everything but "
                "unreserved characters is encoded, and a space is %20",
            example=FormCase((("a b", "~*"),)),
        ),
        divergence(
            id="hyperlink-decode-strict-utf8", check=DECODE.name,
            reconcile=_raises_on_invalid_utf8(), citation=_CITE_STRICT,
            why="DecodedURL gives text, and escapes of bytes that are not UTF-8 are not "
                "text; hyperlink refuses them rather than guess",
            example=DecodeCase("%FF"),
            applies=lambda case: not _to_iri_route(case),
        ),
        divergence(
            id="hyperlink-to-iri-keeps-reserved", check=DECODE.name, reconcile=_to_iri_model(),
            citation="hyperlink URL.to_iri docstring: 'all but a few reserved characters "
                     "decoded into human-readable format'; _url.py _FRAGMENT_DECODE_MAP = "
                     "_make_decode_map(_FRAGMENT_DELIMS) (without '%' too); _percent_decode "
                     "docstring: 'If a non-subencoding-valid string is passed, the original "
                     "text is returned with no changes applied'",
            why="an IRI is for display: decoding %23 or %25 would change what the URL "
                "says, and bytes that are not text stay escaped",
            example=DecodeCase("%23%41"), applies=_to_iri_route,
        ),
        divergence(
            id="hyperlink-query-strict-utf8", check=FORM_PARSE.name,
            reconcile=_raises_on_invalid_utf8(), citation=_CITE_STRICT,
            why="as for decode: a query name or value whose bytes are not UTF-8 is refused",
            example=FormParseCase("a=%FF"),
        ),
        divergence(
            id="hyperlink-query-empty-kept", check=FORM_PARSE.name, reconcile=empty_pairs("kept"),
            citation="hyperlink/_url.py URL.from_text: query = tuple(qe.split('=', 1) if "
                     "'=' in qe else (qe, None) for qe in query.split('&'))",
            why="every '&'-separated item is a parameter, so that to_text() gives the text "
                "back; the URL Standard 5.1 skips empty sequences",
            example=FormParseCase("a=1&&b=2"),
        ),
    )

    def __init__(self) -> None:
        # imported by name, so that mypy runs without hyperlink installed
        hyperlink = importlib.import_module("hyperlink")
        self._url: Any = hyperlink.URL
        self._decoded: Any = hyperlink.DecodedURL
        self._members = {get_set(spec).members: label for label, spec in self.sets.items()}

    def encode(self, case: EncodeCase) -> str:
        label = self._members.get(get_set(case.set_name).members)
        if label is None:
            raise Unsupported("hyperlink encodes " + ", ".join(self.sets.values()))
        value = case.value
        if isinstance(value, bytes):
            raise Unsupported("hyperlink URL parts are text")
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("hyperlink encodes UTF-8 only")
        if case.space_as_plus and " " in value:
            raise Unsupported("hyperlink writes a space as %20")
        if label == "DecodedURL":
            text: str = self._decoded().replace(query=[("a", value)]).to_text()
            return text[len("?a="):]
        if label == "to_uri path":
            if any(c in value for c in "/?#"):
                raise Unsupported("URL(path=...) takes percent-encoded segments: a raw "
                                  "'/', '?' or '#' is refused (ValueError)")
            segment: str = self._url(scheme="http", path=("a", value)).to_uri().path[-1]
            return segment
        if len(value) % 2 and not any(c in value for c in "&#"):
            query: str = self._url(query=[("a", value)]).to_uri().query[0][1]
            return query
        fragment: str = self._url(fragment=value).to_uri().fragment
        return fragment

    def decode(self, case: DecodeCase) -> bytes:
        value = case.value
        if isinstance(value, bytes):
            raise Unsupported("DecodedURL.from_text takes text")
        if _has_surrogate(value):
            raise Unsupported("hyperlink decodes only text it can UTF-8 encode")
        if len(value) % 2 == 0:
            iri: str = self._url(fragment=value).to_iri().fragment
            return iri.encode("utf-8")
        text: str = self._decoded.from_text("#" + value).fragment
        return text.encode("utf-8")

    def form_serialize(self, case: FormCase) -> str:
        if not lookup(case.encoding).is_utf8:
            raise Unsupported("hyperlink encodes UTF-8 only")
        text: str = self._decoded().replace(query=list(case.pairs)).to_text()
        return text[1:]

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        text = case.text
        if isinstance(text, bytes):
            raise Unsupported("DecodedURL.from_text takes text")
        if "#" in text:
            raise Unsupported("a '#' ends a URL's query: no query string holds one")
        if _has_surrogate(text):
            raise Unsupported("hyperlink decodes only text it can UTF-8 encode")
        query = self._decoded.from_text("?" + text).query
        return [(name, "" if value is None else value) for name, value in query]
