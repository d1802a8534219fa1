"""urllib.parse with one injected fault each, for ``bench_ttb.py`` (``--impl
ttb_faults:<Name>`` with ``benchmarks/`` on the path). They keep urllib's registry
names, so urllib's accepted differences stay accepted and only the fault is new.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter

__all__ = ["FormPercent20", "Iso2022JpReescape", "LowercaseHex", "TildeEncoded",
           "UnquoteIgnore"]

_TRIPLET = re.compile("%[0-9A-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


class TildeEncoded(UrllibAdapter):
    """``~`` percent-encoded as ``%7E`` (Python before 3.7)."""

    name = "urllib+tilde-encoded"

    def encode(self, case: EncodeCase) -> str:
        return super().encode(case).replace("~", "%7E")


class LowercaseHex(UrllibAdapter):
    """Percent-encodings written with lowercase hex digits."""

    name = "urllib+lowercase-hex"

    def encode(self, case: EncodeCase) -> str:
        return _TRIPLET.sub(lambda m: m[0].lower(), super().encode(case))


class Iso2022JpReescape(UrllibAdapter):
    """ISO-2022-JP: the second switch to JIS X 0208 (``ESC $ B``) of an answer left out,
    as a stateful encoder that forgets it left that state. Only text that enters the
    state twice (kanji, ASCII, kanji) shows it: the fuzzer finds such text by the
    reference encoder's branches (``targets.REFERENCE_MODULES``)."""

    name = "urllib+iso2022-reescape"

    def encode(self, case: EncodeCase) -> str:
        out = super().encode(case)
        first = out.find("%1B%24B") if case.encoding == "ISO-2022-JP" else -1
        second = out.find("%1B%24B", first + 1) if first >= 0 else -1
        return out if second < 0 else out[:second] + out[second + len("%1B%24B"):]


class UnquoteIgnore(UrllibAdapter):
    """Percent-decoding through ``unquote(errors="ignore")``: bytes that are not UTF-8
    are dropped."""

    name = "urllib+unquote-ignore"

    def decode(self, case: DecodeCase) -> bytes:
        # Raw bytes survive as surrogateescape; a str's lone surrogates are U+FFFD, as
        # the spec's decode reads them: only escapes of invalid UTF-8 differ.
        value = case.value
        if isinstance(value, bytes):
            text = value.decode("utf-8", "surrogateescape")
        else:
            text = _SURROGATE.sub("\ufffd", value)
        return unquote(text, errors="ignore").encode("utf-8", "surrogateescape")


class FormPercent20(UrllibAdapter):
    """The form serializer writes space as ``%20`` (``urlencode(quote_via=quote)``)."""

    name = "urllib+form-percent20"

    def form_serialize(self, case: FormCase) -> str:
        return super().form_serialize(case).replace("+", "%20")
