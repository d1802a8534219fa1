"""What an implementation does, asked of it: the profile of one bound adapter.

The differential check names a difference by what the implementation does beyond the
case in hand (``pctfuzz._internal.accept.rules``): the characters it leaves raw or
encodes (``set_probe``, ``form_part_chars``), the inputs it refuses (``own_refusals``), its
modes (``own_parser_mode``: a form parser's mangling, empty pairs, ``=`` scope,
U+FFFD replacement and second decoding's ``+``; ``separator``; ``requote_mode``;
``pair_order``). Each is asked here, of the
implementation alone, on short inputs of its own, never read off the case; ``pctfuzz
probe`` asks the same functions (``checks.probe_operations``), so it names a
behaviour as a campaign names its finding.

Each question is asked once per adapter (and per context where the answer depends on
one: a set, an encoding, str or bytes) and kept in its table of ``checks.asked``, the
one caching policy: ``_PROBED`` (``set_probe``), ``_REFUSALS`` (``own_refusals``,
``refused_inputs``), ``_PART_PROBES`` (``form_part_chars``, ``part_chars``),
``_PARSER_MODES`` (``own_parser_mode`` and ``separator``), ``_REPLACEMENTS``
(``parser_replacement``, whose first mode is ``own_parser_mode``'s ``replacement``),
``_REQUOTES`` (``requote_mode``), ``_ORDERS`` (``pair_order``, with the byte orders it
asks). The characters it applies a rule to are asked on top of these, in
``checks.own_chars``.
``cut_at`` is the one question of a case, not of the adapter (the case's own input
twice), and is asked each time.

``run_impl`` is the one way the checks ask an implementation anything, and
``scalar_values`` reads how it takes a lone surrogate; both are used from here up.
This module imports no other module of the checks but ``checks.asked`` and
``checks.breadcrumb`` (where ``run_impl`` writes the question it asks, in a harness):
``checks.own_chars``, ``checks.locate`` and ``checks.differential`` import it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from pctfuzz._internal.accept.model import REQUOTE_MODES, Model, render, reorder
from pctfuzz._internal.accept.reconcilers import (
    MANGLING_PROBE,
    MANGLING_STYLES,
    RECONCILERS,
    mangled_pairs,
)
from pctfuzz._internal.accept.rule import UNPROBED, SetProbe
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.asked import UNASKED, Asked
from pctfuzz._internal.checks.breadcrumb import Breadcrumb
from pctfuzz._internal.errors import AskedBefore, PctfuzzError
from pctfuzz._internal.operations import ENCODE, FORM_PARSE, FORM_SERIALIZE, OPERATIONS
from pctfuzz._internal.oracles.base import Impl, Unsupported, impl_name
from pctfuzz._internal.outcome import Outcome, reference_outcome, refusal_type
from pctfuzz._internal.reference import Surrogates

__all__ = [
    "EMPTY_PROBE",
    "ORDER_PAIRS",
    "REFUSAL_PROBES",
    "REPLACEMENT_PROBES",
    "cut_at",
    "form_part_chars",
    "own_parser_mode",
    "own_refusals",
    "pair_order",
    "parser_replacement",
    "part_chars",
    "refused_inputs",
    "renders",
    "requote_mode",
    "run_impl",
    "scalar_values",
    "set_probe",
    "with_text",
]


#: check name -> the adapter method answering it.
_METHOD = {op.name: op.method for op in OPERATIONS}


def run_impl(check: str, case: Case, impl: Impl) -> Outcome | None:
    """The implementation's outcome for ``check`` on ``case``; None if Unsupported.

    In a harness that keeps a breadcrumb (``checks.breadcrumb``), each question but the
    input's own case is written there while the implementation has it."""
    method = getattr(impl, _METHOD[check])
    crumb = Breadcrumb.current
    if crumb is not None:
        if crumb.primary:
            crumb.primary = False
        else:
            return _asked(crumb, method, check, case)
    try:
        return Outcome(method(case))
    except Unsupported:
        return None
    except Exception as exc:
        return Outcome(error=exc)


def _asked(crumb: Breadcrumb, method: Callable[[Case], Any], check: str,
           case: Case) -> Outcome | None:
    """``run_impl``'s call with the question on the breadcrumb. Only an answer or an
    ``Exception`` clears it: a process that dies, or a ``BaseException`` that ends it
    (``SystemExit`` out of the implementation), leaves the question said. A question an
    earlier process died asking is answered as refused, not asked (``AskedBefore``)."""
    if crumb.killed_before(check, case):
        return Outcome(error=AskedBefore(f"{check} question killed an earlier process"))
    crumb.ask(check, case)
    try:
        value = method(case)
    except Unsupported:
        crumb.answered()
        return None
    except Exception as exc:
        crumb.answered()
        return Outcome(error=exc)
    crumb.answered()
    return Outcome(value)


def scalar_values(impl: object) -> Surrogates:
    """How the implementation treats a str that is not a scalar value string: the
    adapter's ``scalar_values``. ``"strict"`` (the default): it refuses one, as the
    reference does. ``"replace"``: it converts lone surrogates to U+FFFD first, as
    WebIDL's USVString conversion does for JavaScript APIs; the reference is then
    asked with ``surrogates="replace"``."""
    mode = getattr(impl, "scalar_values", "strict")
    if mode not in ("strict", "replace"):
        raise PctfuzzError(f"{impl_name(impl)}: scalar_values must be 'strict' or 'replace', "
                           f"not {mode!r}")
    return "replace" if mode == "replace" else "strict"


def cut_at(check: str, case: Case, adapter: Impl, n: int) -> bool:
    """The implementation's answer to the case's input twice is ``n`` long too (a
    fixed cut, ``pctfuzz._internal.accept.rules``)."""
    longer: Case
    if isinstance(case, EncodeCase | DecodeCase):
        longer = dataclasses.replace(case, value=case.value * 2)
    elif isinstance(case, FormCase):
        longer = dataclasses.replace(case, pairs=case.pairs * 2)
    else:
        return False
    got = run_impl(check, longer, adapter)
    return got is not None and not got.raised and hasattr(got.value, "__len__") \
        and len(got.value) == n


#: Pairs each order of ``pairs_order`` answers apart (sorted a3 b2 b4 c1, grouped c1 b2
#: b4 a3, one per name c1 b4 a3 or c1 b2 a3, sorted so a3 b4 c1 or a3 b2 c1), and apart
#: from one pair per name where the name last came (c1 a3 b4), which is none of them.
ORDER_PAIRS = (("c", "1"), ("b", "2"), ("a", "3"), ("b", "4"))
_ORDERS: Asked[str | None] = Asked("pair order")


def pair_order(check: str, adapter: Impl) -> str | None:
    """``sorted``, ``sorted-bytes`` (a parser, ``_sorts_bytes``), ``sorted-pairs``,
    ``sorted-written`` (``_sorted_by``), ``grouped``, or one pair per name
    (``last-per-name``, ``first-per-name``, either sorted by name): how the
    implementation orders ``ORDER_PAIRS`` (as a form serializer or parser; once per
    adapter), so a case both explain is named by the order it has
    (``pctfuzz._internal.accept.rules``). "" when it answers them in list order or in
    an order no mode gives (no order rule names it: a serializer that reverses the
    pairs was "sorted by name" on two pairs it happened to sort); None when it does
    not answer them."""
    known = _ORDERS.get(adapter, check)
    if known is not UNASKED:
        return known
    case: Case = (FormCase(ORDER_PAIRS) if check == FORM_SERIALIZE.name
                  else FormParseCase("&".join(f"{n}={v}" for n, v in ORDER_PAIRS)))
    got = run_impl(check, case, adapter)
    if got is None and isinstance(case, FormParseCase):  # a parser of bytes only (tornado)
        got = run_impl(check, FormParseCase(str(case.text).encode()), adapter)
    found = None
    if got is not None and not got.raised:
        found = ""  # (answered: in list order, or in an order no mode gives)
        for mode in ("sorted", "grouped", "last-per-name", "first-per-name",
                     "sorted-last-per-name", "sorted-first-per-name"):
            pairs = reorder(ORDER_PAIRS, mode)
            want: object = ("&".join(f"{n}={v}" for n, v in pairs) if check == FORM_SERIALIZE.name
                            else [tuple(p) for p in pairs])
            try:
                value = got.value if check == FORM_SERIALIZE.name else [tuple(p) for p in got.value]
            except TypeError:  # not pairs: the check reports it
                break
            if value == want:
                found = mode
    if found == "grouped" and check == FORM_PARSE.name and _groups_bytes(adapter):
        found = "grouped-bytes"
    if found == "sorted":
        found = _sorted_by(check, adapter)
    if found == "sorted" and check == FORM_PARSE.name and _sorts_bytes(adapter):
        found = "sorted-bytes"
    _ORDERS.put(adapter, check, found)
    return found


#: Pairs that ``sorted`` (by name: a9 a-1 b2 b1), ``sorted-pairs`` (by name, then value:
#: a9 a-1 b1 b2) and ``sorted-written`` (by the text written: 'a-=1' before 'a=9', as '-'
#: is before '=') answer apart.
SORT_PAIRS = (("b", "2"), ("a-", "1"), ("b", "1"), ("a", "9"))


def _sorted_by(check: str, adapter: Impl) -> str:
    """Which sort an implementation that sorts ``ORDER_PAIRS`` by name applies
    (``SORT_PAIRS``): ``sorted``, ``sorted-pairs`` or ``sorted-written``."""
    serializer = check == FORM_SERIALIZE.name
    case: Case = FormCase(SORT_PAIRS) if serializer \
        else FormParseCase("&".join(f"{n}={v}" for n, v in SORT_PAIRS))
    got = run_impl(check, case, adapter)
    if got is None or got.raised:
        return "sorted"
    for mode in ("sorted-pairs", "sorted-written") if serializer else ("sorted-pairs",):
        written = [f"{n}={v}" for n, v in SORT_PAIRS]
        pairs = reorder(SORT_PAIRS, mode, written=written)
        want: object = "&".join(f"{n}={v}" for n, v in pairs) if serializer \
            else [tuple(p) for p in pairs]
        try:
            answered = got.value if serializer else [tuple(p) for p in got.value]
        except TypeError:
            return "sorted"
        if answered == want:
            return mode
    return "sorted"


#: Two names that are not UTF-8 and decode to U+FFFD alike; grouped by their bytes
#: (tornado's dict keyed by bytes), 1 and 3 come before 2.
_BYTES_NAMES = "%80=1&%A0=2&%80=3"


def _groups_bytes(adapter: Impl) -> bool:
    """The parser groups pairs by the name's bytes, before the UTF-8 decode
    (``pairs_order("grouped-bytes")``): asked as str, else as bytes."""
    got = run_impl(FORM_PARSE.name, FormParseCase(_BYTES_NAMES), adapter)
    if got is None:
        got = run_impl(FORM_PARSE.name, FormParseCase(_BYTES_NAMES.encode()), adapter)
    try:
        return got is not None and not got.raised and \
            [tuple(p) for p in got.value] == [("\ufffd", "1"), ("\ufffd", "3"), ("\ufffd", "2")]
    except TypeError:
        return False


#: Names whose code points (U+00E9 before U+FFFD) and decoded bytes (80 before C3 A9)
#: sort them apart, and the pairs a parser sorting by bytes answers.
_BYTE_ORDER_TEXT, _BYTE_ORDER = "%C3%A9=1&%80=2", [("\ufffd", "2"), ("\u00e9", "1")]


def _sorts_bytes(adapter: Impl) -> bool:
    """A form parser that sorts pairs by name sorts by the names' bytes (Go's map keys),
    as it answers two names whose code points sort the other way."""
    got = run_impl(FORM_PARSE.name, FormParseCase(_BYTE_ORDER_TEXT), adapter)
    try:
        return got is not None and not got.raised and \
            [tuple(p) for p in got.value] == _BYTE_ORDER
    except TypeError:  # not pairs: the check reports it
        return False


#: What ``own_parser_mode`` found, per adapter and rule.
_PARSER_MODES: Asked[str | None] = Asked("parser mode")
_REPLACEMENTS: Asked[tuple[str, ...]] = Asked("parser replacement modes")
#: A text each ``empty_pairs`` mode, and the reference, parse apart.
EMPTY_PROBE = FormParseCase("&a=&&")
#: Texts that tell a form parser's ``replacement`` modes apart: a truncated sequence
#: after an invalid byte (one U+FFFD per byte, per sequence, kept escaped, dropped), a raw
#: non-ASCII character before an escape (Node's low-byte fallback), and a value after a
#: name with two escapes (querystring.parse decodes it: its scan shares one state).
REPLACEMENT_PROBES = ("%aa%e2%82", "\x80%aa", "%aa%aa=\x80%")
_PARSER_REPLACEMENTS = ("low-byte-shared-scan", "low-byte", "per-byte", "percent-encoded",
                        "dropped", "surrogateescape")


def parser_replacement(adapter: Impl) -> list[str]:
    """The ``replacement`` modes whose model answers each of ``REPLACEMENT_PROBES`` as
    the parser does, simplest-first; none for one that answers them as the reference
    (one U+FFFD per sequence: no mode of the list answers the second so) or otherwise."""
    known = _REPLACEMENTS.get(adapter, FORM_PARSE.name)
    if known is not UNASKED:
        return list(known)
    modes = list(_PARSER_REPLACEMENTS)
    for text in REPLACEMENT_PROBES:
        got = _pairs_of(adapter, text)
        probe = FormParseCase(text)
        reference = reference_outcome(FORM_PARSE.name, probe)
        if got is None:
            modes = []
            break
        modes = [mode for mode in modes if _modelled(
            RECONCILERS["replacement"][0](mode).reconcile(probe, reference, Outcome(got)), got)]
    _REPLACEMENTS.put(adapter, FORM_PARSE.name, tuple(modes))
    return modes


def _modelled(pair: Any, got: list[tuple[Any, ...]]) -> bool:
    return pair is not None and [tuple(p) for p in pair[0].value] == got


def _pairs_of(adapter: Impl, text: str) -> list[tuple[Any, ...]] | None:
    """The implementation's pairs for the form-parse ``text`` (None: no pairs answer)."""
    got = run_impl(FORM_PARSE.name, FormParseCase(text), adapter)
    try:
        return None if got is None or got.raised else [tuple(p) for p in got.value]
    except TypeError:  # not pairs: the check reports it
        return None


def separator(adapter: Impl) -> str | None:
    """``&`` when the form parser splits ``a=1&b=2`` in two pairs (once per adapter);
    None when it does not (urllib's ``separator=";"``): no sequence set beside a text
    is then the same pair to it and to the reference."""
    found = _PARSER_MODES.get(adapter, "separator")
    if found is UNASKED:
        found = "&" if _pairs_of(adapter, "a=1&b=2") == [("a", "1"), ("b", "2")] else None
        _PARSER_MODES.put(adapter, "separator", found)
    return found


def own_parser_mode(rule: str, check: str, adapter: Impl) -> str | None:
    """The implementation's own parameter of a form parser's ``rule``
    (``pctfuzz._internal.accept.rules``: ``ParserMode``), as it answers a text that tells them
    apart, once per adapter: the ``names_mangled`` style whose pairs it answers for
    ``MANGLING_PROBE``, the ``empty_pairs`` mode it parses ``&a=&&`` with, ``yes`` for
    ``needs_equals`` scope when it answers no pairs for ``a`` but one for ``a=`` (and
    for ``a&b=1`` both pairs: ``text``, or the second: ``sequence``), the
    ``replacement`` mode whose model answers ``REPLACEMENT_PROBES`` as it does,
    ``space`` for ``decoded_twice``'s ``plus`` when it answers a space for ``%2B`` in a
    name or a value, ``yes`` for ``decoded_before_split`` when it answers ``a=1%26b=2``
    as two pairs or ``a%3Db`` as the pair ``('a', 'b')``, the ``html_unescaped`` mode
    that reads ``b=&#65`` as it does (``A`` in ``html5``; ``&#``, its ``&`` a separator
    then, in ``mono``). None for none."""
    if check != FORM_PARSE.name or rule not in ("names_mangled", "empty_pairs", "needs_equals",
                                             "replacement", "decoded_twice",
                                             "decoded_before_split", "html_unescaped"):
        return None
    known = _PARSER_MODES.get(adapter, rule)
    if known is not UNASKED:
        return known
    if rule == "html_unescaped":  # an unended reference: read, or its digits dropped
        parts = [part for pair in _pairs_of(adapter, "b=&#65") or () for part in pair]
        found = "html5" if "A" in parts else "mono" if "#" in parts and not any(
            "65" in part for part in parts) else None
        _PARSER_MODES.put(adapter, rule, found)
        return found
    if rule == "decoded_before_split":  # an escaped '&' splits a pair, or an escaped '='
        # a name from its value (a parser that decodes each sequence before its '=')
        found = "yes" if _pairs_of(adapter, "a=1%26b=2") == [("a", "1"), ("b", "2")] \
            or _pairs_of(adapter, "a%3Db") == [("a", "b")] else None
        _PARSER_MODES.put(adapter, rule, found)
        return found
    if rule == "decoded_twice":
        pairs = _pairs_of(adapter, "%2B=%2B")
        found = "space" if pairs and len(pairs) == 1 and " " in pairs[0] else None
        _PARSER_MODES.put(adapter, rule, found)
        return found
    if rule == "replacement":
        found = next(iter(parser_replacement(adapter)), None)
        _PARSER_MODES.put(adapter, rule, found)
        return found
    if rule == "needs_equals":  # its scope: "text", "sequence"
        answers = [_pairs_of(adapter, text) for text in ("a", "a=", "a&b=1")]
        found = "text" if answers == [[], [("a", "")], [("a", ""), ("b", "1")]] else \
            "sequence" if answers == [[], [("a", "")], [("b", "1")]] else None
        _PARSER_MODES.put(adapter, rule, found)
        return found
    probe = FormParseCase(MANGLING_PROBE) if rule == "names_mangled" else EMPTY_PROBE
    assert isinstance(probe.text, str)
    pairs = _pairs_of(adapter, probe.text)
    found = None
    if pairs is not None:
        if rule == "names_mangled":
            found = next((style for style in MANGLING_STYLES
                          if pairs == mangled_pairs(style, MANGLING_PROBE)), None)
        else:
            found = next((mode for mode in ("kept", "kept-but-last", "kept-but-trailing")
                          if pairs == render(Model(empty=mode), FORM_PARSE.name, probe)), None)
    _PARSER_MODES.put(adapter, rule, found)
    return found


_REQUOTES: Asked[str | None] = Asked("requote mode")
#: What tells the ``requoted`` modes apart (``accept.model.REQUOTE_MODES``): escapes of
#: an unreserved character, of a reserved one in lowercase hex, of one that the
#: common sets leave raw ('!'), and of a byte that is not UTF-8.
_REQUOTE_PROBES = ("%41", "%2f", "%21", "%E9")
#: A valid segment and one with a bare '%', each holding an escape: requoted as one
#: text (``A/%25A``), or the second encoded as data (``A/%25%2541``: furl's path). (No
#: space, which a spaceAsPlus context writes '+'.)
_SEGMENTS_PROBE = "%41/%%41"


def requote_mode(case: Case, adapter: Impl) -> str | None:
    """The ``requoted`` mode of the implementation: the narrowest mode whose model
    gives its answers to ``_REQUOTE_PROBES`` in the case's set (so the set decides what
    ``decode-safe`` decodes), once per adapter and set."""
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return None
    key = (case.set_name, case.space_as_plus)
    known = _REQUOTES.get(adapter, key)
    if known is not UNASKED:
        return known
    # Asked in UTF-8, whatever the case's encoding: the answer is kept per set (and
    # spaceAsPlus, which some adapters take one way only), and a first case in an
    # encoding the adapter does not take made it None for every case of that set
    # (furl's requoting was named by five modes).
    asked = []
    for value in _REQUOTE_PROBES:
        probe = EncodeCase(value, case.set_name, "utf-8", case.space_as_plus)
        got = run_impl(ENCODE.name, probe, adapter)
        asked.append((probe, None if got is None or got.raised else got.value))
    # Each mode whole, then each '/'-separated segment on its own (furl's path: a
    # decoded '/' written %2F); where both give the escapes' answers, the segments
    # probe tells (a segment with a bare '%' encoded as data).
    found = next(((mode, segments) for mode in REQUOTE_MODES for segments in (False, True)
                  if all(answer is not None and renders(
                      Model(requote=mode, requote_segments=segments), ENCODE.name, probe, answer)
                      for probe, answer in asked)), None)
    if found is not None and not found[1]:
        probe = EncodeCase(_SEGMENTS_PROBE, case.set_name, "utf-8", case.space_as_plus)
        got = run_impl(ENCODE.name, probe, adapter)
        found = (found[0], got is not None and not got.raised and renders(
            Model(requote=found[0], requote_segments=True), ENCODE.name, probe, got.value)
            and not renders(Model(requote=found[0]), ENCODE.name, probe, got.value))
    mode = None if found is None else found[0] + " segments" * found[1]
    _REQUOTES.put(adapter, key, mode)
    return mode




def with_text(case: Case, text: str) -> Case | None:
    """A case of the same kind and context as ``case`` whose one input text is
    ``text`` (bytes when the case's are); None for a shape it has no such case for."""
    if isinstance(case, EncodeCase | DecodeCase):
        value = text.encode("latin-1") if isinstance(case.value, bytes) else text
        return dataclasses.replace(case, value=value)
    if isinstance(case, FormCase):
        return dataclasses.replace(case, pairs=((text, ""),))
    if isinstance(case, FormParseCase):
        data = text.encode("latin-1") if isinstance(case.text, bytes) else text
        return dataclasses.replace(case, text=data)
    return None




#: refuses' input kinds -> inputs of that kind alone, at two lengths and with the bad
#: part inside and at the end (an implementation may refuse one shape only).
REFUSAL_PROBES = {"lone-surrogate": ("\ud800", "x\ud800", "\ud800x"),
                   # (raw bytes in a bytes case's context: with_text)
                   "invalid-utf8": ("%FF", "x%FF", "%C3x", "\xff", "x\xff"),
                   "invalid-percent": ("%zz", "x%zz", "%", "x%"),
                   "control-char": ("a\x01b", "\x01", "x\x01"),
                   # valid UTF-8 in a bytes case's context too (C3 A9)
                   "non-ascii": ("\u00c3\u00a9", "x\u00c3\u00a9")}
_REFUSALS: Asked[dict[str, str]] = Asked("refusals")
#: What a probe's control writes as a plain letter: a probe without what makes it of
#: its kind (``%FF`` as ``xFF``, ``a\x01b`` as ``axb``; a field's ``=`` is kept).
_PLAIN = re.compile("[^A-Za-z0-9=]")


def _refuses(check: str, case: Case, adapter: Impl, text: str) -> bool:
    """The implementation raises for ``text`` alone in the case's context."""
    try:
        sub = with_text(case, text)
    except UnicodeEncodeError:  # a lone surrogate in a bytes input: no such case
        return False
    got = None if sub is None else run_impl(check, sub, adapter)
    return got is not None and got.raised


def own_refusals(check: str, case: Case, adapter: Impl) -> str:
    """The input kinds of ``refuses`` the implementation raises for, each asked on short
    inputs of that kind alone in the case's context (once per adapter and context),
    space-separated: a crash on ``"#\n%a"`` (hyperlink's newline bug) is no refusal of
    an invalid ``%`` when ``"%zz"`` is answered. A probe counts only when the same text
    without its kind (``xFF`` for ``%FF``) is answered: a parser refusing every text
    without ``=`` refuses ``%FF`` too, and is asked ``k=%FF``."""
    return " ".join(refused_inputs(check, case, adapter))


def refusal_family(check: str, case: Case, adapter: Impl, kind: str) -> str | None:
    """The family of what the implementation raises for ``kind``'s probe text alone in
    the case's context (``outcome.refusal_type``; ``refused_inputs``); None when it
    refuses no such probe."""
    text = refused_inputs(check, case, adapter).get(kind)
    sub = None if text is None else with_text(case, text)
    got = None if sub is None else run_impl(check, sub, adapter)
    return None if got is None or got.error is None else refusal_type(got.error)


def refused_inputs(check: str, case: Case, adapter: Impl) -> dict[str, str]:
    """``own_refusals``' kinds, each with the first text of ``REFUSAL_PROBES`` that the
    implementation refused alone in the case's context (``pctfuzz probe`` shows it)."""
    bytes_input = isinstance(getattr(case, "value", getattr(case, "text", "")), bytes)
    key = (check, (type(case), getattr(case, "set_name", None),
                                getattr(case, "encoding", None), bytes_input))
    known = _REFUSALS.get(adapter, key)
    if known is not UNASKED:
        return known
    refused: dict[str, str] = {}
    # (a form parser's also as a value: one refusing a text without '=' refuses each
    # probe alone, and is asked where the probe is a field)
    shapes = ("", "k=") if isinstance(case, FormParseCase) else ("",)
    for kind, texts in REFUSAL_PROBES.items():
        for text in (before + text for text in texts for before in shapes):
            if kind == "invalid-utf8" and not text.isascii() and not bytes_input:
                continue  # in a str, "\xff" is U+00FF: valid UTF-8, non-ASCII
            # (refused because of its kind: the same text without it is answered)
            if _refuses(check, case, adapter, text) \
                    and not _refuses(check, case, adapter, _PLAIN.sub("x", text)):
                refused[kind] = text
                break
    if "control-char" in refused and not any(
            _refuses(check, case, adapter, before + text)
            for text in ("a\x7fb", "\x7f") for before in shapes):
        # DEL answered: a refusal of C0 controls, as given and (a decoder's, a parser's)
        # once decoded, where '%01' is refused too (libcurl's URL decoding: its refusal
        # was "control char", DEL and all, and '%0a' a finding of its own)
        decodes = isinstance(case, DecodeCase | FormParseCase)
        text = refused.pop("control-char")
        if not decodes or any(_refuses(check, case, adapter, before + escaped)
                              and not _refuses(check, case, adapter, before + "x01")
                              for escaped in ("%01", "x%01") for before in shapes):
            refused["c0-control"] = text
        else:
            refused["control-char"] = text  # (C0 as given only: no kind says just that)
    if "non-ascii" in refused and "invalid-utf8" in refused and not any(
            _refuses(check, case, adapter, text) for text in ("%FF", "x%FF", "%C3x")):
        # Only raw bytes 80-FF were refused, which are non-ASCII: one refusal (Ruby's
        # decode_www_form refuses every non-ASCII text; urllib's parse_qsl refuses an
        # escape of invalid UTF-8 too, and is named so for a raw byte 80 as well).
        del refused["invalid-utf8"]
    return _REFUSALS.put(adapter, key, refused)



_PART_PROBES: Asked[dict[str, frozenset[str]]] = Asked("characters by part")


def form_part_chars(adapter: Impl, encoding: str = "utf-8") -> dict[str, frozenset[str]]:
    """The ASCII characters a form serializer leaves raw (or encodes) where the
    reference does not, by where they were seen (a space left raw where the
    reference writes ``+``): ``left_raw:names``,
    ``left_raw:values``, ``left_raw:empty-name-values``, the same with ``encoded``. Each
    is asked alone as a name (beside an empty and a non-empty value), as a value after a
    name, and as a value after an empty name; once per adapter and encoding."""
    key = (encoding)
    known = _PART_PROBES.get(adapter, key)
    if known is not UNASKED:
        return known
    surrogates = scalar_values(adapter)
    found: dict[str, set[str]] = {f"{n}:{p}": set() for n in ("left_raw", "encoded")
                                  for p in ("names", "values", "empty-name-values")}
    # (the controls too, and '%': a name written as given holds them, and a finding of
    # its own named by no rule cannot be in force beside the others: each input
    # holding one with another behaviour was named again, the slow path)
    for code in range(0x80):
        char = chr(code)
        for part, shapes in (("names", ((char, ""), (char, "a"))),
                             ("values", (("a", char),)),
                             ("empty-name-values", (("", char),))):
            for pair in shapes:
                sub = FormCase((pair,), encoding)
                got = run_impl(FORM_SERIALIZE.name, sub, adapter)
                want = reference_outcome(FORM_SERIALIZE.name, sub, surrogates=surrogates)
                if got is None or got.raised or want.raised:
                    continue
                mine, theirs = str(want.value), str(got.value).upper()

                def pair_text(field: str, pair: tuple[str, str] = pair,
                              part: str = part) -> str:
                    return (field + "=" + pair[1] if part == "names"
                            else pair[0] + "=" + field).upper()

                raw, triplet = pair_text(char), pair_text(f"%{code:02X}")
                escaped = pair_text("+") if char == " " else triplet  # (the reference's)
                if mine.upper() == escaped and theirs == raw:
                    found[f"left_raw:{part}"].add(char)
                elif mine.upper() == raw and theirs == triplet:
                    found[f"encoded:{part}"].add(char)
    chars = {name: frozenset(value) for name, value in found.items()}
    _PART_PROBES.put(adapter, key, chars)
    return chars



def part_chars(adapter: Impl, rule: str, encoding: str = "utf-8") -> dict[str, frozenset[str]]:
    """The characters of ``rule`` (``left_raw`` or ``encoded``) a form serializer shows
    in each part of a pair (``form_part_chars``), split as the rules name them:
    ``everywhere`` (in names, values and values after an empty name: the rule without
    a part), and those of one part only (the rule with ``part=``): ``names``, ``values``
    (after a name and after an empty name alike), ``empty-name-values``."""
    found = form_part_chars(adapter, encoding)
    names, values = found[f"{rule}:names"], found[f"{rule}:values"]
    empty = found[f"{rule}:empty-name-values"]
    return {"everywhere": names & values & empty, "names": names - values - empty,
            "values": (values & empty) - names, "empty-name-values": empty - values - names}




def renders(model: Model, check: str, case: Case, got: object) -> bool:
    """The model's answer to ``case`` is ``got`` (False where it has none)."""
    try:
        return bool(render(model, check, case) == got)
    except Exception:  # NotModelled, or an input the model's encoder refuses
        return False



#: (adapter, check, set, encoding, space_as_plus) -> what ``set_probe`` found.
_PROBED: Asked[SetProbe] = Asked("raw, encoded and written ASCII")


def set_probe(check: str, case: Case, adapter: Impl, surrogates: Surrogates) -> SetProbe:
    """The characters the implementation leaves raw where the reference encodes them,
    those it encodes where the reference does not, and those it writes as a text of
    their own (``&`` as ``&amp;``, by code point), in the case's context: each ASCII
    character but space and ``%`` asked alone (once per context, as str or bytes like
    the case's value), so a rule's characters do not depend on the input that showed
    it (``pctfuzz._internal.accept.rules``)."""
    as_bytes = isinstance(case, EncodeCase) and isinstance(case.value, bytes)
    if isinstance(case, EncodeCase):
        key = (check + ("-bytes" if as_bytes else ""), case.set_name,
               case.encoding, case.space_as_plus)
    elif isinstance(case, FormCase):
        key = (check, "", case.encoding, True)
    else:
        return frozenset(), frozenset(), ()
    known = _PROBED.get(adapter, key)
    if known is not UNASKED:
        return known
    raw: set[int] = set()
    enc: set[int] = set()
    written: list[tuple[int, str]] = []
    for code in range(0x80):  # (the controls too: an encoder may leave them raw)
        char = chr(code)
        if char in UNPROBED:
            continue
        value: str | bytes = char.encode("ascii") if as_bytes else char
        # A serializer's character is asked in a name and in a value: a rule without a
        # ``part`` holds in both (one of a part alone is its ``part`` rule's:
        # ``own_chars``), so '~' raw everywhere is not refuted with '!' raw in names.
        subs: list[tuple[Case, str, str]] = \
            [(EncodeCase(value, case.set_name, case.encoding, case.space_as_plus), "", "")] \
            if isinstance(case, EncodeCase) else \
            [(FormCase(((char, "1"),), case.encoding), "", "=1"),  # (not an empty value:
             (FormCase((("1", char),), case.encoding), "1=", "")]  # one may be dropped)
        kinds = set()
        for sub, before, after in subs:
            got = run_impl(check, sub, adapter)
            want = reference_outcome(check, sub, surrogates=surrogates)
            if got is None or got.raised or want.raised or not isinstance(got.value, str):
                kinds.add("")
                continue
            mine = str(want.value).removeprefix(before).removesuffix(after)
            theirs = got.value.removeprefix(before).removesuffix(after)
            triplet = f"%{code:02X}"
            kinds.add("raw" if mine == triplet and theirs == char else
                      "encoded" if mine == char and theirs.upper() == triplet else
                      # (not the reference's escape in the other hex case: lowercase_hex)
                      "" if theirs.upper() in (mine.upper(), char.upper(), triplet)
                      or not got.value.startswith(before) or not got.value.endswith(after)
                      else f"written:{theirs}")
        if kinds == {"raw"}:
            raw.add(code)
        elif kinds == {"encoded"}:
            enc.add(code)
        elif len(kinds) == 1 and next(iter(kinds)).startswith("written:"):
            written.append((code, next(iter(kinds)).removeprefix("written:")))
    return _PROBED.put(adapter, key, (frozenset(raw), frozenset(enc), tuple(written)))
