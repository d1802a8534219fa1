"""Planted implementations with known behaviours, for issue 21 (accepted differences
that compose, findings named by the rule that explains them).

``FiveBehaviours`` is the issue's planted adapter: urllib-style form serialization
(so ``~`` left raw and ``*`` encoded, pairs sorted by name: three intended
behaviours), an encoder that truncates its output at 100 characters and a decoder that
decodes twice (two bugs). ``PlusRawSpace20`` leaves ``+`` raw and writes a space as
``%20`` (two entries that must compose).
"""

from __future__ import annotations

from urllib.parse import quote, quote_plus

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.form import form_urldecode
from pctfuzz._internal.oracles import Adapter, Unsupported
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.sets import PercentEncodeSet, get_set

__all__ = ["CutAtHash", "FiveBehaviours", "PlusRawSpace20", "TrimsC0Space", "UrlencodeSorted"]


def _utf8_str(case: EncodeCase) -> None:
    if isinstance(case.value, bytes) or case.encoding.lower() not in ("utf-8", "utf8"):
        raise Unsupported("UTF-8 str only")


class UrlencodeSorted(Adapter):
    """``urlencode(sorted(pairs))``: quote_plus(safe='') keeps ``~`` raw and encodes
    ``*`` (RFC 3986 unreserved), and the pairs are sorted by name."""

    name = "urlencode-sorted"
    distribution = "hypothesis"
    value_types = ("str",)
    encodings = ("UTF-8",)

    def form_serialize(self, case: FormCase) -> str:
        if case.encoding.lower() not in ("utf-8", "utf8"):
            raise Unsupported("UTF-8 only")
        pairs = sorted(case.pairs, key=lambda p: p[0])
        return "&".join(quote_plus(n, safe="") + "=" + quote_plus(v, safe="") for n, v in pairs)


class FiveBehaviours(UrlencodeSorted):
    """Three intended behaviours (``~`` raw, ``*`` encoded, sorted pairs: the form
    serializer above) and two bugs: ``encode`` stops after 100 characters, ``decode``
    percent-decodes twice."""

    name = "five-behaviours"
    modules_under_test = ("behaviour_impls",)

    def encode(self, case: EncodeCase) -> str:
        _utf8_str(case)
        out = percent_encode(case.value, case.set_name, space_as_plus=case.space_as_plus)
        return out[:100]

    def decode(self, case: DecodeCase) -> bytes:
        return percent_decode(percent_decode(case.value))

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        return form_urldecode(case.text)


class PlusRawSpace20(Adapter):
    """The component set without ``+``, and a space as ``%20`` whatever
    ``space_as_plus`` says."""

    name = "plus-raw-space-20"
    distribution = "hypothesis"

    def encode(self, case: EncodeCase) -> str:
        _utf8_str(case)
        base = get_set(case.set_name)
        pes = PercentEncodeSet("no +", (base.members - {ord("+")}) | {0x20}, base.source)
        safe = "".join(chr(c) for c in range(0x21, 0x7F) if c not in pes.members)
        return quote(str(case.value), safe=safe)


class CutAtHash(Adapter):
    """An encoder that reads a ``#`` as the start of a fragment: the reference's answer
    for the input up to its first ``#`` (as Go's ``url.Parse(...).RawQuery``)."""

    name = "cut-at-hash"
    distribution = "hypothesis"

    def encode(self, case: EncodeCase) -> str:
        _utf8_str(case)
        value = str(case.value).partition("#")[0]
        return percent_encode(value, case.set_name, space_as_plus=case.space_as_plus)


class TrimsC0Space(Adapter):
    """An encoder that strips C0 controls and spaces from both ends of its input first
    (the URL parser's first step, WHATWG URL 4.4 step 1), and nothing inside."""

    name = "trims-c0-space"
    distribution = "hypothesis"

    def encode(self, case: EncodeCase) -> str:
        _utf8_str(case)
        value = str(case.value).strip("".join(map(chr, range(0x21))))
        return percent_encode(value, case.set_name, space_as_plus=case.space_as_plus)


class SortedMapping(Adapter):
    """A form parser of four behaviours (hold-out 15's, planted): each name and value
    stripped of white space, a pair whose name is then empty dropped, each value
    percent-decoded twice, the pairs answered as a mapping sorted by name (one pair per
    name, its last value)."""

    name = "sorted-mapping"
    distribution = "hypothesis"

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        if not isinstance(case.text, str):
            raise Unsupported("str text only")
        kept: dict[str, str] = {}
        for name, value in form_urldecode(case.text):
            name = name.strip()
            if name:
                kept[name] = percent_decode(value.encode("utf-8", "surrogatepass")).decode(
                    "utf-8", "replace").strip()
        return sorted(kept.items())
