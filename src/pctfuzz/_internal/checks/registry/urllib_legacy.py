"""Built-in entries for ``urllib.parse`` with a legacy (non-UTF-8) encoding.

urllib encodes with a Python codec and errors="xmlcharrefreplace", then percent-encodes
the bytes with safe=. That whole behaviour is one exact model, ``_urllib_legacy_model``;
three entries say *why* it can differ from the reference, each with a narrow predicate.

The reference is the WHATWG Encoding Standard's encoder (``pctfuzz._internal.encoding``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from pctfuzz._internal import encoding
from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.cases import Case, EncodeCase, FormCase
from pctfuzz._internal.checks.registry.common import WHATWG_FORM, WHATWG_PCT, add_entry
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.operations import ENCODE, FORM_SERIALIZE
from pctfuzz._internal.oracles.base import Unsupported
from pctfuzz._internal.oracles.urllib_parse import python_codec
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import FORM, get_set
from pctfuzz._internal.text import is_surrogate

__all__ = ["ENTRIES"]


#: The last case ``_legacy`` answered, and its answer; likewise ``_urllib_legacy_model``:
#: every entry of this module asks about the same case in one ``reconcile`` (the case is
#: held, so ``is`` cannot match a new object at a reused address; cases are frozen, so
#: the answers cannot go stale).
_LAST_LEGACY: list[Any] = [None, None]
_LAST_MODEL: list[Any] = [None, None]


@dataclass(frozen=True)
class _Legacy:
    """What the predicates of this module ask about one str encode/form case with a
    legacy encoding, found in one pass over its distinct code points."""

    codec: str
    has_surrogate: bool
    #: Some scalar value is encoded differently by the Python codec and the WHATWG
    #: encoder (NCRs written alike, as ``&#N;``).
    codec_differs: bool
    #: Some non-ASCII scalar value is unencodable for both (both write ``&#N;``).
    ncr_both: bool
    #: ISO-2022-JP text with a code point that puts the encoder in its Roman state.
    roman: bool


def _legacy(case: Case) -> _Legacy | None:
    """``_Legacy`` for ``case``, or None when it is not a str case with a legacy encoding."""
    if _LAST_LEGACY[0] is not case:
        _LAST_LEGACY[:] = [case, _analyse(case)]
    found: _Legacy | None = _LAST_LEGACY[1]
    return found


def _analyse(case: Case) -> _Legacy | None:
    label = getattr(case, "encoding", None)
    if not isinstance(label, str):
        return None
    if isinstance(case, EncodeCase) and isinstance(case.value, str):
        text = case.value
    elif isinstance(case, FormCase):
        text = "".join(n + v for n, v in case.pairs)
    else:
        return None
    kinds = _char_kinds(label)
    if kinds is None:
        return None
    flags = kinds.flags(set(text))
    return _Legacy(
        kinds.codec, bool(flags & _SURROGATE), bool(flags & _DIFFERS),
        bool(flags & _NCR_BOTH),
        kinds.iso_2022_jp and ("\u00a5" in text or "\u203e" in text),
    )


#: ``_CharKinds.flags`` bits.
_DIFFERS, _NCR_BOTH, _SURROGATE = 1, 2, 4


class _CharKinds:
    """How the Python codec and the WHATWG encoder of one label treat each code point,
    compared once per code point (the fuzzer asks about the same ones again and again):
    ``plain`` holds those with no flag, so most of a case's code points are skipped by
    one set difference."""

    _MAX = 1 << 16  # code points remembered per label; then forgotten (bounded memory)

    def __init__(self, label: str, codec: str, name: str) -> None:
        self.label, self.codec = label, codec
        self.iso_2022_jp = name == "ISO-2022-JP"
        self.plain: set[str] = set()
        self.odd: dict[str, int] = {}

    def flags(self, chars: set[str]) -> int:
        """The union of the flags of ``chars``."""
        found = 0
        for char in chars - self.plain:
            flags = self.odd.get(char)
            if flags is None:
                flags = self._classify(char)
                if len(self.plain) + len(self.odd) >= self._MAX:
                    self.plain.clear()
                    self.odd.clear()
                if flags:
                    self.odd[char] = flags
                else:
                    self.plain.add(char)
            found |= flags
        return found

    def _classify(self, char: str) -> int:
        if is_surrogate(char):
            return _SURROGATE
        python = char.encode(self.codec, "xmlcharrefreplace")
        whatwg = _whatwg_char_bytes(self.label, char)
        flags = _DIFFERS if python != whatwg else 0
        if ord(char) >= 0x80 and python == whatwg == f"&#{ord(char)};".encode("ascii"):
            flags |= _NCR_BOTH
        return flags


#: label -> its ``_CharKinds``, or None for UTF-8, an unknown label or one without a
#: Python codec (no entry of this module applies then).
_KINDS: dict[str, _CharKinds | None] = {}


def _char_kinds(label: str) -> _CharKinds | None:
    try:
        return _KINDS[label]
    except KeyError:
        pass
    kinds: _CharKinds | None = None
    try:
        enc = encoding.lookup(label)
        if not enc.is_utf8:
            kinds = _CharKinds(label, python_codec(label)[0], enc.name)
    except (Unsupported, PctfuzzError):
        pass
    if len(_KINDS) >= 64:  # labels have many spellings: bounded
        _KINDS.clear()
    _KINDS[label] = kinds
    return kinds


def _whatwg_char_bytes(label: str, char: str) -> bytes:
    """The WHATWG encoder's output for one code point, an error written as ``&#N;``."""
    return b"".join(
        run if isinstance(run, bytes) else f"&#{run};".encode("ascii")
        for run in encoding.encode_runs(encoding.lookup(label), char)
    )


def _legacy_has_surrogate(case: Case) -> bool:
    found = _legacy(case)
    return found is not None and found.has_surrogate


def _legacy_codec_differs(case: Case) -> bool:
    """Some scalar value of the input is encoded differently by the Python codec and the
    WHATWG encoder (NCRs written alike, as ``&#N;``)."""
    found = _legacy(case)
    return found is not None and found.codec_differs


def _legacy_ncr_visible(case: Case) -> bool:
    """Some code point is unencodable for both encoders, and the set leaves one of
    ``& # ;`` as is, so urllib's ``&#N;`` is not the reference's ``%26%23N%3B``."""
    if not isinstance(case, EncodeCase):
        return False
    found = _legacy(case)
    return found is not None and found.ncr_both and _leaves_ncr_punctuation(case.set_name)


@functools.lru_cache(maxsize=256)
def _leaves_ncr_punctuation(set_name: str) -> bool:
    pes = get_set(set_name)
    return not all(ord(c) in pes for c in "&#;")


def _iso_2022_jp_roman(case: Case) -> bool:
    """ISO-2022-JP input with a code point that puts the encoder in its Roman state."""
    found = _legacy(case)
    return found is not None and found.roman


def _urllib_legacy_model(
    case: Case, expected: Outcome, actual: Outcome
) -> tuple[Outcome, Outcome] | None:
    """urllib's answer: the reference's percent-encoding of the Python codec's bytes."""
    if _LAST_MODEL[0] is not case:
        _LAST_MODEL[:] = [case, _model(case)]
    model: str | None = _LAST_MODEL[1]
    return None if model is None else (Outcome(model), actual)


def _model(case: Case) -> str | None:
    """``_urllib_legacy_model``'s value for ``case``, or None when it is not a legacy one."""
    found = _legacy(case)
    if found is None:
        return None
    codec = found.codec
    if isinstance(case, EncodeCase) and isinstance(case.value, str):
        data = case.value.encode(codec, "xmlcharrefreplace")
        model = percent_encode(data, case.set_name, space_as_plus=case.space_as_plus)
    elif isinstance(case, FormCase):
        model = "&".join(
            percent_encode(n.encode(codec, "xmlcharrefreplace"), FORM, space_as_plus=True)
            + "="
            + percent_encode(v.encode(codec, "xmlcharrefreplace"), FORM, space_as_plus=True)
            for n, v in case.pairs
        )
    else:  # pragma: no cover - _legacy_text_case filters
        return None
    return model

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_LEGACY_MODEL = (
    "model: the reference's percent-encoding (same set) of value.encode(codec, "
    "'xmlcharrefreplace'), codec = the WHATWG encoding's name in Python's codec registry"
)
for _check, _fn, _example_encode in (
    (ENCODE.name, "quote", True),
    (FORM_SERIALIZE.name, "urlencode", False),
):
    _entry(
        id=f"urllib-{_fn}-legacy-lone-surrogate",
        impl="urllib",
        check=_check,
        summary=f"{_fn} with a legacy encoding writes a lone surrogate as an NCR",
        applies=_legacy_has_surrogate,
        reconcile=_urllib_legacy_model,
        reference="refuses: NotScalarValueError",
        implementation="errors='xmlcharrefreplace' accepts lone surrogates: '\\ud800' -> "
        f"&#55296; (percent-encoded by the set); {_LEGACY_MODEL}",
        citation=f"{WHATWG_PCT if _example_encode else WHATWG_FORM}; Python docs, "
        "codecs error handlers: xmlcharrefreplace",
        why="Python's error handler, not urllib, decides; the input is outside the standard's",
        example=EncodeCase("\ud800", "special-query", "windows-1252")
        if _example_encode
        else FormCase((("\ud800", ""),), "windows-1252"),
    )
    _entry(
        id=f"urllib-{_fn}-python-codec",
        impl="urllib",
        check=_check,
        summary=f"{_fn} encodes with Python's codec, whose table differs from the WHATWG "
        "encoder's for some code points",
        applies=_legacy_codec_differs,
        reconcile=_urllib_legacy_model,
        reference="the WHATWG encoder (index jis0208 / EUC-KR = cp949 / Big5-HKSCS / "
        "GBK = gb18030 two-byte / C1 controls in windows-125x ...); unencodable -> NCR",
        implementation=f"Python's codec of that name (shift_jis, euc_kr, big5, gbk, cp125x "
        f"...); {_LEGACY_MODEL}",
        citation="WHATWG Encoding Standard (indexes and encoders, sections 9-14); "
        "pctfuzz's encoding tables list the corrections (docs/guide.md, Legacy encodings)",
        why="a Python codec is not the WHATWG encoder of the same name; urllib has no "
        "other way to choose an encoding",
        example=EncodeCase("\u0081", "component", "windows-1252")
        if _example_encode
        else FormCase((("\u20ac", ""),), "GBK"),
    )
    _entry(
        id=f"urllib-{_fn}-iso-2022-jp-roman",
        impl="urllib",
        check=_check,
        summary=f"{_fn} with ISO-2022-JP leaves the Roman state (ESC ( J) before any ASCII",
        applies=_iso_2022_jp_roman,
        reconcile=_urllib_legacy_model,
        reference="after ¥ or ‾ (Roman state) ASCII other than \\ and ~ is written in "
        "that state, without switching back (ESC ( B) first",
        implementation="Python's iso2022_jp writes ESC ( B before the next ASCII "
        f"character; {_LEGACY_MODEL}",
        citation="WHATWG Encoding Standard 12.2.2 (ISO-2022-JP encoder, step 6: Roman state "
        "and ASCII code points)",
        why="both byte sequences decode to the same text; Python's encoder is simply "
        "more eager to return to ASCII",
        example=EncodeCase("\u00a5a", "special-query", "ISO-2022-JP")
        if _example_encode
        else FormCase((("\u00a5a", ""),), "ISO-2022-JP"),
    )
_entry(
    id="urllib-quote-ncr-unescaped",
    impl="urllib",
    check=ENCODE.name,
    summary="quote writes an unencodable code point as &#N; and percent-encodes that with "
    "the set; the reference always writes %26%23N%3B",
    applies=_legacy_ncr_visible,
    reconcile=_urllib_legacy_model,
    reference="%26%23 + decimal + %3B whatever the set (the encode-or-fail error branch)",
    implementation="&#N; from xmlcharrefreplace, then & and ; stay as they are when the "
    "set leaves them (special-query, query, path...); " + _LEGACY_MODEL,
    citation=f"{WHATWG_PCT}, step for a potentialError",
    why="both mean the same NCR once decoded; the form serializer (whose set encodes & # ;) "
    "agrees, so only the bare percent-encode API differs",
    example=EncodeCase("\u0100", "special-query", "windows-1252"),
)
