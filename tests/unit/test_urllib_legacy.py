"""The urllib legacy-encoding entries (``pctfuzz._internal.checks.registry.urllib_legacy``) answer
exactly as their definitions: each predicate, computed from a cached classification of
the case's code points, equals the predicate written out from its docstring (every
code point compared afresh), and ``check_encode``/``check_form`` accept exactly what the
engine accepts over the whole registry with those definitions in place of the
predicates (``pctfuzz._internal.accept.entry``). Both run on generated cases (encodings by label and
alias, every fuzz set, text mixing what the two encoders treat differently)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from broken_impls import LosesLastChar
from hypothesis import given, settings
from hypothesis import strategies as st

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.accept.entry import explain as engine_explain
from pctfuzz._internal.cases import Case, EncodeCase, FormCase
from pctfuzz._internal.checks.differential import check_encode, check_form
from pctfuzz._internal.checks.locate import both_refuse
from pctfuzz._internal.checks.profile import run_impl
from pctfuzz._internal.checks.registry import DIVERGENCES, reference_outcome, urllib_legacy
from pctfuzz._internal.encoding import DIFFERENCES, encode_runs, lookup
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.formats import FUZZ_ENCODINGS, FUZZ_SETS
from pctfuzz._internal.oracles.base import Unsupported, registry_names
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter, python_codec
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import FORM, get_set
from pctfuzz._internal.violations import Divergence

#: Labels as cases carry them: every fuzz encoding, aliases, one Python has no codec
#: of that name for (windows-874 -> cp874), none at all (x-user-defined), UTF-8 by
#: another name, and no encoding.
LABELS = (*FUZZ_ENCODINGS, "latin1", "sjis", "csiso2022jp", "windows-874", "utf-16le",
          "no-such-label")

#: Code points the codecs and the WHATWG encoders treat differently (``DIFFERENCES``),
#: NCRs of both (U+0100, emoji, U+FFFD in most), ISO-2022-JP's Roman and shift code
#: points, & # ;, ~, kanji, Latin-1, lone surrogates.
_SPECIAL = "".join(chr(cp) for d in DIFFERENCES for cp in d.code_points
                   if not 0xD800 <= cp <= 0xDFFF)
_SHIFTS_AND_MORE = ("\x0e\x0f\x1b\\~\u00a5\u203e&#;%+ a0\u4e00\uff71\u00e9\u0100"
                    "\U0001f600\ufffd\x81\u20ac\ud800\udfff")
_ALPHABET = st.one_of(
    st.sampled_from(_SPECIAL), st.sampled_from(_SHIFTS_AND_MORE),
    st.sampled_from(_SHIFTS_AND_MORE), st.characters(),
)
#: (An unknown label is a usage error of the check, raised before any entry is asked.)
KNOWN_LABELS = LABELS[:-1]
TEXTS = st.text(_ALPHABET, max_size=24)
SETS = st.sampled_from(FUZZ_SETS)


@st.composite
def legacy_cases(draw: st.DrawFn, labels: tuple[str, ...] = LABELS) -> Case:
    label = draw(st.sampled_from(labels))
    if draw(st.integers(0, 3)):  # mostly encode cases, mostly str
        value: str | bytes = draw(st.one_of(TEXTS, TEXTS, TEXTS, st.binary(max_size=8)))
        return EncodeCase(value, draw(SETS), label, draw(st.booleans()))
    pairs = draw(st.lists(st.tuples(TEXTS, TEXTS), max_size=3))
    return FormCase(tuple(pairs), label)


# --- the predicates by their definitions (no cache, one code point at a time) ------------
def _text_and_codec(case: Case) -> tuple[str, str] | None:
    label = getattr(case, "encoding", None)
    if not isinstance(label, str):
        return None
    try:
        if lookup(label).is_utf8:
            return None
        codec, _ = python_codec(label)
    except (Unsupported, PctfuzzError):
        return None
    if isinstance(case, EncodeCase) and isinstance(case.value, str):
        return case.value, codec
    if isinstance(case, FormCase):
        return "".join(n + v for n, v in case.pairs), codec
    return None


def _whatwg(label: str, char: str) -> bytes:
    return b"".join(run if isinstance(run, bytes) else b"&#%d;" % run
                    for run in encode_runs(lookup(label), char))


def _scalars(text: str) -> set[str]:
    return {c for c in text if not 0xD800 <= ord(c) <= 0xDFFF}


def has_surrogate(case: Case) -> bool:
    found = _text_and_codec(case)
    return found is not None and any(0xD800 <= ord(c) <= 0xDFFF for c in found[0])


def codec_differs(case: Case) -> bool:
    found = _text_and_codec(case)
    if found is None:
        return False
    text, codec = found
    label = getattr(case, "encoding", "")
    return any(c.encode(codec, "xmlcharrefreplace") != _whatwg(label, c) for c in _scalars(text))


def ncr_visible(case: Case) -> bool:
    found = _text_and_codec(case)
    if found is None or not isinstance(case, EncodeCase):
        return False
    if all(ord(c) in get_set(case.set_name) for c in "&#;"):
        return False
    text, codec = found
    return any(
        c.encode(codec, "xmlcharrefreplace") == _whatwg(case.encoding, c) == b"&#%d;" % ord(c)
        for c in _scalars(text) if ord(c) >= 0x80)


def roman(case: Case) -> bool:
    found = _text_and_codec(case)
    return (found is not None and lookup(getattr(case, "encoding", "")).name == "ISO-2022-JP"
            and any(c in found[0] for c in "\u00a5\u203e"))


DEFINITIONS: dict[str, Callable[[Case], bool]] = {
    "legacy-lone-surrogate": has_surrogate,
    "python-codec": codec_differs,
    "iso-2022-jp-roman": roman,
    "ncr-unescaped": ncr_visible,
}
PREDICATES: dict[str, Callable[[Case], bool]] = {
    "legacy-lone-surrogate": urllib_legacy._legacy_has_surrogate,
    "python-codec": urllib_legacy._legacy_codec_differs,
    "iso-2022-jp-roman": urllib_legacy._iso_2022_jp_roman,
    "ncr-unescaped": urllib_legacy._legacy_ncr_visible,
}


@settings(max_examples=3_000, deadline=None)
@given(case=legacy_cases())
def test_predicates_equal_their_definitions(case: Case) -> None:
    for name, definition in DEFINITIONS.items():
        assert PREDICATES[name](case) is definition(case), name


@pytest.mark.parametrize(("name", "case", "applies"), [
    ("legacy-lone-surrogate", EncodeCase("\ud800", "special-query", "windows-1252"), True),
    ("legacy-lone-surrogate", EncodeCase("\ud800", "special-query", "UTF-8"), False),
    ("python-codec", EncodeCase("\u0081", "component", "windows-1252"), True),
    ("python-codec", EncodeCase("\u00e9", "component", "windows-1252"), False),
    ("python-codec", FormCase((("\u20ac", ""),), "GBK"), True),
    ("iso-2022-jp-roman", EncodeCase("\u00a5a", "special-query", "csiso2022jp"), True),
    ("iso-2022-jp-roman", EncodeCase("\u00a5a", "special-query", "Shift_JIS"), False),
    ("ncr-unescaped", EncodeCase("\u0100", "special-query", "windows-1252"), True),
    ("ncr-unescaped", EncodeCase("\u0100", "component", "windows-1252"), False),
    ("ncr-unescaped", EncodeCase("\u0100", "special-query", "x-user-defined"), False),
])
def test_predicates_on_known_cases(name: str, case: Case, applies: bool) -> None:
    assert PREDICATES[name](case) is DEFINITIONS[name](case) is applies


# --- whole checks: the registry as it is, and with the definitions -----------------------
def _model(case: Case, expected: object, actual: object) -> object:
    found = _text_and_codec(case)
    if found is None:
        return None
    codec = found[1]
    if isinstance(case, EncodeCase) and isinstance(case.value, str):
        data = case.value.encode(codec, "xmlcharrefreplace")
        value = percent_encode(data, case.set_name, space_as_plus=case.space_as_plus)
    else:
        assert isinstance(case, FormCase)
        value = "&".join(
            percent_encode(n.encode(codec, "xmlcharrefreplace"), FORM, space_as_plus=True) + "="
            + percent_encode(v.encode(codec, "xmlcharrefreplace"), FORM, space_as_plus=True)
            for n, v in case.pairs)
    return type(expected)(value), actual


def _by_definition(entry: KnownDivergence) -> KnownDivergence:
    for name, definition in DEFINITIONS.items():
        if entry.id.endswith(name) and entry in urllib_legacy.ENTRIES:
            return dataclasses.replace(entry, applies=definition, reconcile=_model)  # type: ignore[arg-type]
    return entry


SLOW_REGISTRY = tuple(_by_definition(d) for d in DIVERGENCES)


def _slow_check(check: str, case: Case, impl: UrllibAdapter) -> tuple[str, ...] | str | None:
    actual = run_impl(check, case, impl)
    if actual is None:
        return None
    expected = reference_outcome(check, case)
    if expected.same(actual) or both_refuse(expected, actual):
        return ()
    return engine_explain(check, registry_names(impl), case, expected, actual,
                          SLOW_REGISTRY) or "divergence"


def _fast_check(check: str, case: Case, impl: UrllibAdapter) -> tuple[str, ...] | str | None:
    try:
        if check == "encode":
            return check_encode(case, impl)  # type: ignore[arg-type]
        return check_form(case, impl)  # type: ignore[arg-type]
    except Divergence:
        return "divergence"


# The lossy adapter differs on nearly every case, each one explained by the whole
# registry: ten times urllib's cost (about 40 s), so its run is make test-slow's.
@pytest.mark.parametrize("impl", [UrllibAdapter(),
                                  pytest.param(LosesLastChar(), marks=pytest.mark.slow)],
                         ids=lambda i: i.name)
@settings(max_examples=1_000, deadline=None)
@given(case=legacy_cases(KNOWN_LABELS))
def test_checks_accept_exactly_what_the_definitions_accept(impl: UrllibAdapter,
                                                          case: Case) -> None:
    check = "encode" if isinstance(case, EncodeCase) else "form"
    assert _fast_check(check, case, impl) == _slow_check(check, case, impl)
