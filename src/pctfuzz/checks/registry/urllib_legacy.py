"""Built-in entries for ``urllib.parse`` with a legacy (non-UTF-8) encoding.

urllib encodes with a Python codec and errors="xmlcharrefreplace", then percent-encodes
the bytes with safe=. That whole behaviour is one exact model, ``_urllib_legacy_model``;
three entries say *why* it can differ from the reference, each with a narrow predicate.

The reference is the WHATWG Encoding Standard's encoder (``pctfuzz.encoding``).
"""

from __future__ import annotations

import functools
from typing import Any

from pctfuzz import encoding
from pctfuzz.cases import Case, EncodeCase, FormCase
from pctfuzz.checks.registry.common import WHATWG_FORM, WHATWG_PCT, add_entry
from pctfuzz.entry import KnownDivergence
from pctfuzz.errors import PctfuzzError
from pctfuzz.oracles.base import Unsupported
from pctfuzz.oracles.urllib_parse import python_codec
from pctfuzz.outcome import Outcome
from pctfuzz.reference import percent_encode
from pctfuzz.sets import FORM, get_set
from pctfuzz.text import LONE_SURROGATE, is_surrogate

__all__ = ["ENTRIES"]


def _is_utf8_label(label: str) -> bool:
    try:
        return bool(encoding.lookup(label).is_utf8)
    except PctfuzzError:
        return False


#: The last case ``_legacy_text_case`` and ``_urllib_legacy_model`` answered, and their
#: answers: every entry of this module asks about the same case in one ``reconcile``
#: (the case is held, so ``is`` cannot match a new object at a reused address; cases
#: are frozen, so the answers cannot go stale).
_LAST_TEXT_CASE: list[Any] = [None, None]
_LAST_MODEL: list[Any] = [None, None]


def _legacy_text_case(case: Case) -> tuple[str, str] | None:
    """(value, Python codec) for a str encode/form case with a legacy encoding."""
    if _LAST_TEXT_CASE[0] is not case:
        _LAST_TEXT_CASE[:] = [case, _text_and_codec(case)]
    found: tuple[str, str] | None = _LAST_TEXT_CASE[1]
    return found


def _text_and_codec(case: Case) -> tuple[str, str] | None:
    label = getattr(case, "encoding", None)
    if not isinstance(label, str) or _is_utf8_label(label):
        return None
    try:
        codec, _ = python_codec(label)
    except (Unsupported, PctfuzzError):
        return None
    if isinstance(case, EncodeCase) and isinstance(case.value, str):
        return case.value, codec
    if isinstance(case, FormCase):
        return "".join(n + v for n, v in case.pairs), codec
    return None


@functools.lru_cache(maxsize=4096)  # per code point and label: the fuzzer asks again and again
def _whatwg_char_bytes(label: str, char: str) -> bytes:
    """The WHATWG encoder's output for one code point, an error written as ``&#N;``."""
    return b"".join(
        run if isinstance(run, bytes) else f"&#{run};".encode("ascii")
        for run in encoding.encode_runs(encoding.lookup(label), char)
    )


@functools.lru_cache(maxsize=4096)
def _python_char_bytes(codec: str, char: str) -> bytes:
    return char.encode(codec, "xmlcharrefreplace")


#: A lone surrogate (``text.has_lone_surrogate``) found by one C scan: these predicates
#: run on every legacy-encoding input of a campaign.


def _scalar_chars(text: str) -> set[str]:
    """The distinct code points of ``text`` that are not lone surrogates."""
    chars = set(text)
    if LONE_SURROGATE.search(text) is None:
        return chars
    return {c for c in chars if not is_surrogate(c)}


def _legacy_has_surrogate(case: Case) -> bool:
    found = _legacy_text_case(case)
    return found is not None and LONE_SURROGATE.search(found[0]) is not None


def _legacy_codec_differs(case: Case) -> bool:
    """Some scalar value of the input is encoded differently by the Python codec and the
    WHATWG encoder (NCRs written alike, as ``&#N;``)."""
    found = _legacy_text_case(case)
    if found is None:
        return False
    text, codec = found
    label = getattr(case, "encoding", "")
    return any(
        _python_char_bytes(codec, c) != _whatwg_char_bytes(label, c)
        for c in _scalar_chars(text)
    )


def _legacy_ncr_visible(case: Case) -> bool:
    """Some code point is unencodable for both encoders, and the set leaves one of
    ``& # ;`` as is, so urllib's ``&#N;`` is not the reference's ``%26%23N%3B``."""
    found = _legacy_text_case(case)
    if found is None or not isinstance(case, EncodeCase):
        return False
    text, codec = found
    pes = get_set(case.set_name)
    if all(ord(c) in pes for c in "&#;"):
        return False
    label = getattr(case, "encoding", "")
    for c in _scalar_chars(text):
        if ord(c) < 0x80:
            continue
        ncr = f"&#{ord(c)};".encode("ascii")
        if _python_char_bytes(codec, c) == ncr and _whatwg_char_bytes(label, c) == ncr:
            return True
    return False


def _iso_2022_jp_roman(case: Case) -> bool:
    """ISO-2022-JP input with a code point that puts the encoder in its Roman state."""
    found = _legacy_text_case(case)
    return (
        found is not None
        and _encoding_name(getattr(case, "encoding", "")) == "ISO-2022-JP"
        and any(c in found[0] for c in "\u00a5\u203e")
    )


def _encoding_name(label: str) -> str | None:
    try:
        return encoding.lookup(label).name
    except PctfuzzError:
        return None


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
    found = _legacy_text_case(case)
    if found is None:
        return None
    _, codec = found
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
    ("encode", "quote", True),
    ("form", "urlencode", False),
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
        "pctfuzz.encoding.DIFFERENCES lists the corrections",
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
    check="encode",
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
