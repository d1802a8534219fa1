"""What an implementation does, asked of it: the profile of one bound adapter.

The differential check names a difference by what the implementation does beyond the
case in hand (``pctfuzz._internal.accept.rules``): the characters it leaves raw or
encodes (``set_probe``, ``form_part_chars``), its own characters of a rule (``own_chars``:
what it cuts at, removes, trims, keeps escaped, refuses: ``own_refusals``), its
modes (``own_parser_mode``: a form parser's mangling, empty pairs, ``=`` scope,
U+FFFD replacement and second decoding's ``+``; ``separator``; ``requote_mode``;
``pair_order``). Each is asked here, of the
implementation alone, on short inputs of its own, never read off the case; ``pctfuzz
probe`` asks the same functions (``checks.probe_operations``), so it names a
behaviour as a campaign names its finding.

Each question is asked once per adapter (and per context where the answer depends on
one: a set, an encoding, str or bytes) and kept in its table of ``checks.asked``, the
one caching policy: ``_PROBED`` (``set_probe``), ``_OWN_CHARS`` (``own_chars``),
``_REFUSALS`` (``own_refusals``, ``refused_inputs``), ``_PART_PROBES``
(``form_part_chars``, ``part_chars``), ``_PARSER_MODES`` (``own_parser_mode`` and
``separator``), ``_REPLACEMENTS`` (``parser_replacement``, whose first mode is
``own_parser_mode``'s ``replacement``),
``_REQUOTES`` (``requote_mode``), ``_ORDERS`` (``pair_order``, with the byte orders it
asks), ``_NON_ASCII`` (``own_chars("non_ascii")``).
``cut_at`` is the one question of a case, not of the adapter (the case's own input
twice), and is asked each time.

``run_impl`` is the one way the checks ask an implementation anything, and
``scalar_values`` reads how it takes a lone surrogate; both are used from here up.
This module imports no other module of the checks but ``checks.asked`` and
``checks.breadcrumb`` (where ``run_impl`` writes the question it asks, in a harness):
``checks.locate`` and ``checks.differential`` import it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from pctfuzz._internal.accept.model import REQUOTE_MODES, Model, render, reorder
from pctfuzz._internal.accept.reconcilers import (
    CUT_CHARS,
    MANGLING_PROBE,
    MANGLING_STYLES,
    RECONCILERS,
    SPACES,
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
from pctfuzz._internal.sets import get_set

__all__ = [
    "EMPTY_PROBE",
    "ORDER_PAIRS",
    "REFUSAL_PROBES",
    "REPLACEMENT_ANSWERS",
    "REPLACEMENT_PROBES",
    "cut_at",
    "form_part_chars",
    "own_chars",
    "own_parser_mode",
    "own_refusals",
    "pair_order",
    "parser_replacement",
    "part_chars",
    "refused_inputs",
    "requote_mode",
    "run_impl",
    "scalar_values",
    "set_probe",
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
                  if all(answer is not None and _renders(
                      Model(requote=mode, requote_segments=segments), ENCODE.name, probe, answer)
                      for probe, answer in asked)), None)
    if found is not None and not found[1]:
        probe = EncodeCase(_SEGMENTS_PROBE, case.set_name, "utf-8", case.space_as_plus)
        got = run_impl(ENCODE.name, probe, adapter)
        found = (found[0], got is not None and not got.raised and _renders(
            Model(requote=found[0], requote_segments=True), ENCODE.name, probe, got.value)
            and not _renders(Model(requote=found[0]), ENCODE.name, probe, got.value))
    mode = None if found is None else found[0] + " segments" * found[1]
    _REQUOTES.put(adapter, key, mode)
    return mode


def _kept_escapes(case: Case, answer: Callable[[str], object]) -> str:
    """The printable ASCII characters the case's set leaves raw whose escape the
    implementation answers as itself (uppercased), alone and in a text, while it answers
    the character raw (``answer``: in the case's context): escapes a requoting keeps
    (pip's ``%2F``)."""
    if not isinstance(case, EncodeCase):
        return ""
    members = get_set(case.set_name).members
    found = ""
    for code in range(0x21, 0x7F):
        char, escape = chr(code), f"%{code:02X}"
        if code in members or char == "%":
            continue
        if answer(escape.lower()) == escape and answer(f"a{escape}b") == f"a{escape}b" \
                and answer(char) == char:
            found += char
    return found


def _taken_as_encoded(case: Case, answer: Callable[[str], object]) -> str:
    """``taken_as_encoded``'s ``when``: "escape" when the implementation answers a
    character its set encodes followed by a valid escape (``<%41``) as that text itself,
    "percent" when it does so with a bare ``%`` too (``<%zz``), else ""."""
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return ""
    members = get_set(case.set_name).members
    encoded = next((c for c in '<"\x01' if ord(c) in members), None)
    if encoded is None or answer(f"{encoded}%41") != f"{encoded}%41":
        return ""
    return "percent" if answer(f"{encoded}%zz") == f"{encoded}%zz" else "escape"


def _own_space(check: str, case: Case, adapter: Impl, answer: Callable[[str], object]) -> str:
    """``%20`` or ``+``: how the implementation writes a space alone where the
    reference writes the other (``answer``: in the case's context; a serializer's in a
    name and in a value, alike), else ""."""
    if isinstance(case, EncodeCase) and isinstance(case.value, str):
        reference = "+" if case.space_as_plus else "%20"
        got = answer(" ")
        return next((s for s in SPACES if s != reference and got == s), "")
    if isinstance(case, FormCase):
        name = answer(" ")  # (a name with an empty value: "%20=")
        value = run_impl(check, FormCase((("a", " "),), case.encoding), adapter)
        return "%20" if name == "%20=" and value is not None and not value.raised \
            and value.value == "a=%20" else ""
    return ""


#: What ``own_chars`` found, per adapter and (rule, check, context).
_OWN_CHARS: Asked[str | None] = Asked("own characters")
_C0_SPACE = "".join(map(chr, range(0x21)))
#: The whitespace beyond ASCII that Python's ``str.strip()`` and ``str.split()`` take
#: (``str.isspace``): an adapter that strips its input with it trims these too.
_UNICODE_SPACE = "".join(c for c in map(chr, range(0x80, 0x3001)) if c.isspace())


def _with_text(case: Case, text: str) -> Case | None:
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


def own_chars(rule: str, check: str, case: Case, adapter: Impl) -> str | None:
    """The characters the implementation applies ``rule`` to (``pctfuzz.accept.rules``:
    ``Chars``), each asked alone in the case's context, once per adapter and context:

    - ``cut_at``: ``#``, ``?`` or NUL after which nothing counts (``ab#cd`` answered as
      ``ab``, while ``abcd`` is not: no fixed truncation);
    - ``removed``: whitespace dropped inside (``a\nb`` as ``ab``) or at one end only
      (hyperlink drops a last LF: its pattern's ``$`` matches before it);
    - ``trimmed``: a C0 control or space dropped at both ends but kept inside;
    - ``requoted-kept``: the characters the set leaves raw whose escape an encoder
      answers as itself (``requoted``'s ``kept``: pip keeps ``%2F``);
    - ``taken_as_encoded``: "escape" or "percent" when an encoder writes an input with
      an escape, or any ``%``, back as it is (``_taken_as_encoded``);
    - ``space``: "%20" or "+" where the implementation writes a space so and the
      reference the other way (``_own_space``);
    - ``trimmed-names``, ``trimmed-values``: ``trimmed`` in a form parser's names
      alone, values alone;
    - ``trimmed-decoded``: the same, written as its escape (a decoder's decoded text
      stripped: ``%20a`` and ``a%20`` answered as ``a``, ``a%20b`` not as ``ab``).
    - ``decoded_repeatedly``: "yes" when a decoder answers ``%252541`` as ``A``.
    - ``newlines_normalized``: "yes" when a writer answers ``a\r\nb``, ``a\nb`` and
      ``a\rb`` alike (HTML's newline normalization), so ``\n`` alone is not named
      ``written_as`` when CR LF is one newline.
    - ``latin1_chars``: "latin-1" when a decoder answers ``%41é`` as ``A`` and the byte E9
      (or its U+FFFD), or a form parser so in a name or value, "" when not (Mono's
      ``UrlDecode`` and ``ParseQueryString``).
    - ``non_ascii``: where a writer leaves each character above U+007F as itself
      (``left_raw``'s ``non_ascii``, ``_own_non_ascii``): "all", a serializer's "names"
      or "values", else "".

    None when it answers none of the inputs (the rule then tries every set).
    ``refuses``, ``kept_encoded`` and ``replacement``: ``own_refusals``,
    ``_own_decoding``; ``lone_surrogates``: the mode whose model answers ``a\\ud800b``
    as an encoder does ("" for none).
    """
    if rule == "refuses":
        return own_refusals(check, case, adapter)
    if ":" in rule:  # left_raw:names, encoded:values, ...
        return _own_part(rule, check, case, adapter)
    if rule == "non_ascii":
        return _own_non_ascii(check, case, adapter)
    context = (type(case), getattr(case, "set_name", None), getattr(case, "encoding", None),
               getattr(case, "space_as_plus", None),
               isinstance(getattr(case, "value", getattr(case, "text", "")), bytes))
    key = (rule, check, context)
    known = _OWN_CHARS.get(adapter, key)
    if known is not UNASKED:
        return known
    answers: dict[str, object] = {}

    def answer(text: str) -> object:
        if text not in answers:
            sub = _with_text(case, text)
            got = None if sub is None else run_impl(check, sub, adapter)
            answers[text] = None if got is None or got.raised else got.value
        return answers[text]

    def drops(*pairs: tuple[str, str]) -> bool:
        """The answer to some ``text`` of ``pairs`` is that to its ``without``: each
        asked at two lengths, as an adapter may pick its API by the input (hyperlink's
        decode by parity) and the behaviour live in one of them only."""
        return any(answer(text) is not None and answer(text) == answer(without)
                   for text, without in pairs)

    found = ""
    if rule == "latin1_bytes":
        got = answer("\xc3\xa9")  # (bytes in a bytes case's context: _with_text)
        found = "latin-1" if got in ([("\u00c3\u00a9", "")], "\u00c3\u00a9".encode(),
                                     "\u00c3\u00a9") else ""
    elif rule == "newlines_normalized":  # CR, LF and CR LF all written as one CR LF
        newlines = [answer(f"a{n}b") for n in ("\r\n", "\n", "\r")]
        found = "yes" if newlines[0] is not None and newlines.count(newlines[0]) == 3 \
            and newlines[0] != answer("ab") else ""
    elif rule == "decoded_repeatedly":  # decoded until nothing changes
        found = "yes" if answer("%252541") in (b"A", "A") else ""
    elif rule == "latin1_chars":  # a raw 'é' beside an escape written as the byte E9
        got = answer("%41\u00e9")  # (a form parser's: in a name or a value)
        parts = [part for pair in got for part in pair] if isinstance(got, list) else [got]
        found = "latin-1" if any(part in (b"A\xe9", b"A\xef\xbf\xbd", "A\ufffd")
                                 for part in parts) else ""
    elif rule == "latin1_fallback":  # every escape read as latin-1, valid UTF-8 too
        read = ("\u00c3\u00a9".encode(), [("\u00c3\u00a9", "")])
        # and every byte of the answer: a raw character's UTF-8 bytes too
        found = "" if answer("%C3%A9") not in read else \
            "answer" if answer("\u00e9") in read else "always"
    elif rule == "kept_encoded-hex":  # a kept escape asked in lowercase: %2f
        kept = own_chars("kept_encoded", check, case, adapter) or ""
        # one whose hex has a letter (%2F, not %23): the hex case shows only there
        lettered = [c for c in kept if not f"{ord(c):02X}".isdigit()]
        code = ord(lettered[0]) if lettered else 0
        found = "upper" if lettered and isinstance(case, DecodeCase) and any(
            _same_bytes(answer(p + f"%{code:02x}"), p + f"%{code:02X}") for p in ("", "x")) \
            else ""
    elif rule == "lone_surrogates":  # encode and form: as it answers a\ud800b
        sub = _with_text(case, "a\ud800b")
        got = answer("a\ud800b")
        found = next((mode for mode in _SURROGATE_MODES if sub is not None and got is not None
                      and _renders(Model(surrogates=mode), check, sub, got)), "") \
            if isinstance(case, EncodeCase | FormCase) else ""
    elif rule.startswith("kept_encoded") and isinstance(case, FormParseCase):
        found = _own_kept_escapes(rule.removeprefix("kept_encoded").lstrip("-"), answer)
    elif rule in ("kept_encoded", "replacement"):
        found = _own_decoding(rule, answer, isinstance(getattr(case, "value", None), bytes)) \
            if isinstance(case, DecodeCase) else ""
    elif rule == "requoted-kept":  # escapes a requoting encoder keeps as they are
        found = _kept_escapes(case, answer)
    elif rule == "taken_as_encoded":  # an input with an escape written back as it is
        found = _taken_as_encoded(case, answer)
    elif rule == "space":  # a space written otherwise than the reference writes it
        found = _own_space(check, case, adapter, answer)
    elif rule == "cut_at":
        # (a form parser's asked with values too: one that drops a name alone answers
        # no pairs for 'abcd' and 'ab' alike, and sanic's query ends at '#' unasked)
        shapes = [("", "")] + ([("k=", "=ef")] if isinstance(case, FormParseCase) else [])
        cuts = {c for p, s in shapes if answer(f"{p}abcd") != answer(f"{p}ab")
                for c in CUT_CHARS if drops((f"{p}ab{c}cd{s}", f"{p}ab"),
                                            (f"{p}xab{c}cd{s}", f"{p}xab"))}
        found = "".join(c for c in CUT_CHARS if c in cuts)
    else:
        found = _own_whitespace(rule, case, drops)
    own = None if all(value is None for value in answers.values()) else found
    _OWN_CHARS.put(adapter, key, own)
    return own


def _own_whitespace(rule: str, case: Case, drops: Callable[..., bool]) -> str:
    """``own_chars`` of ``removed``, ``trimmed`` and its variants: each whitespace
    character (each C0 control and space, for a trim) asked inside a text and at each
    end, in a form parser's names (given a value) and then its values: one that strips
    values only keeps a name's space, and one that drops a name alone answers no pairs
    for 'a b' and 'ab' alike, which is no space removed. ``trimmed-names``,
    ``trimmed-values``: that field alone (a parser removing every space of a name and
    trimming values trims no space in both fields); ``trimmed-decoded``: each written
    as its escape, so only what decoding gives (a raw space is the input's trim too)."""
    fields = {"trimmed-names": (("", "=v"),), "trimmed-values": (("k=", ""),)}.get(
        rule, (("", "=v"), ("k=", ""))) if isinstance(case, FormParseCase) else (("", ""),)
    trims = rule in ("trimmed", "trimmed-decoded", "trimmed-start", "trimmed-names",
                     "trimmed-values")
    text = getattr(case, "value", getattr(case, "text", ""))
    found = ""
    for char in (_C0_SPACE if trims else " \t\n\r\x0b\x0c") + (
            _UNICODE_SPACE if isinstance(text, str) else ""):
        c = "".join(f"%{b:02X}" for b in char.encode("utf-8")) \
            if rule == "trimmed-decoded" else char
        inner, ends, start = False, False, False
        for p, s in fields:
            inside = drops((f"{p}a{c}b{s}", f"{p}ab{s}"), (f"{p}xa{c}b{s}", f"{p}xab{s}"))
            lead = drops((f"{p}{c}a{s}", f"{p}a{s}"), (f"{p}{c}ax{s}", f"{p}ax{s}"))
            trail = drops((f"{p}a{c}{s}", f"{p}a{s}"), (f"{p}xa{c}{s}", f"{p}xa{s}"))
            inner = inner or inside
            ends = ends or (lead and trail and not inside)
            start = start or (lead and not trail and not inside)
        # "removed" is removed in the middle too: a character stripped at the start
        # only (httplib2's and urlsplit's leading C0 and space) is "trimmed-start"
        if rule == "trimmed-start":
            found += char if start and not inner else ""
        elif (rule == "removed" and inner) or (trims and ends and not inner):
            found += char
    return found


#: refuses' input kinds -> inputs of that kind alone, at two lengths and with the bad
#: part inside and at the end (an implementation may refuse one shape only).
REFUSAL_PROBES = {"lone-surrogate": ("\ud800", "x\ud800", "\ud800x"),
                   # (raw bytes in a bytes case's context: _with_text)
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
        sub = _with_text(case, text)
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
    sub = None if text is None else _with_text(case, text)
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


#: Characters above U+007F of each UTF-8 length, a C1 control first: a writer that
#: leaves each of them alone as itself leaves every one (``_own_non_ascii``).
NON_ASCII_PROBES = ("\u0080", "\u00e9", "\u4e2d", "\U0001f600")


_NON_ASCII: Asked[str] = Asked("non-ASCII left raw")


def _own_non_ascii(check: str, case: Case, adapter: Impl) -> str:
    """"all" when the writer answers each of ``NON_ASCII_PROBES`` alone as itself
    (the reference writes its bytes' escapes), a serializer's "names" or "values"
    when only there (asked beside a plain field: a pair may be dropped), else "";
    once per adapter and context."""
    key = (check, getattr(case, "set_name", None), getattr(case, "encoding", None),
           getattr(case, "space_as_plus", None))
    known = _NON_ASCII.get(adapter, key)
    if known is UNASKED:
        known = _NON_ASCII.put(adapter, key, _non_ascii_where(check, case, adapter))
    return known


def _non_ascii_where(check: str, case: Case, adapter: Impl) -> str:
    def raw(make: Callable[[str], Case], before: str, after: str) -> bool:
        for char in NON_ASCII_PROBES:
            got = run_impl(check, make(char), adapter)
            if got is None or got.raised or got.value != before + char + after:
                return False
        return True

    if isinstance(case, EncodeCase) and isinstance(case.value, str):
        return "all" if raw(lambda c: dataclasses.replace(case, value=c), "", "") else ""
    if not isinstance(case, FormCase):
        return ""
    names = raw(lambda c: FormCase(((c, "1"),), case.encoding), "", "=1")
    values = raw(lambda c: FormCase((("1", c),), case.encoding), "1=", "")
    return "all" if names and values else "names" if names else "values" if values else ""


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


def _own_part(rule: str, check: str, case: Case, adapter: Impl) -> str | None:
    """``left_raw:names``, ``encoded:values``, ...: the printable ASCII characters a form
    serializer leaves raw (or encodes) where the reference does not, in that part of a
    pair only (``form_part_chars``): ``names`` those of names alone, ``values`` those of
    values after a name and after an empty name alike, ``empty-name-values`` those of
    the last only (furl leaves ``=`` raw in a value after an empty name only);
    ``left_raw-all:values`` (``encoded-all:``) those of that part whether the other
    shows them or not; ``space:names``, ``space:values``: ``%20`` when a space alone
    there is written so. None when the case is no form."""
    if check != FORM_SERIALIZE.name or not isinstance(case, FormCase):
        return None
    name, _, part = rule.partition(":")
    if name == "space" and part in ("names", "values"):
        # ``%20`` where that part writes a space so (the reference: ``+``), else ""
        pair = (" ", "") if part == "names" else ("a", " ")
        got = run_impl(check, FormCase((pair,), case.encoding), adapter)
        written = "%20=" if part == "names" else "a=%20"
        return "%20" if got is not None and not got.raised and got.value == written else ""
    if name not in ("left_raw", "encoded", "left_raw-all", "encoded-all"):
        return None
    if name.endswith("-all"):
        found = form_part_chars(adapter, case.encoding)
        key = f"{name.removesuffix('-all')}:{part}"
        return "".join(sorted(found[key])) if key in found else None
    own = part_chars(adapter, name, case.encoding)
    return "".join(sorted(own[part])) if part in own and part != "everywhere" else None


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


#: (replacement mode, a probe of ``_own_decoding``, its answer in that mode), first
#: match wins: Node's low-byte fallback answers the second probe as per-sequence does.
REPLACEMENT_ANSWERS = (("low-byte", "%FF\u00e9", "\ufffd\ufffd"),
                        ("dotnet", "%41%e0%80", "A\ufffd"),
                        ("per-sequence", "%41%e2%82", "A\ufffd"),
                        ("per-byte", "%41%e2%82", "A\ufffd\ufffd"),
                        ("percent-encoded", "%41%e2%82", "A%E2%82"),
                        ("dropped", "%41%e2%82", "A"),
                        ("surrogateescape", "%41%e2%82", "A\udce2\udc82"),
                        ("undecoded", "%41%e2%82", "%41%e2%82"))


def _same_bytes(got: object, want: str) -> bool:
    """A decoder's answer (bytes, or text compared as UTF-8) is ``want``."""
    return got is not None and (got if isinstance(got, bytes) else str(got).encode(
        "utf-8", "surrogatepass")) == want.encode("utf-8", "surrogatepass")


#: ``lone_surrogates`` modes an encoder's answer to ``a\ud800b`` tells apart.
_SURROGATE_MODES = ("dropped", "surrogatepass", "merged", "replaced")


def _renders(model: Model, check: str, case: Case, got: object) -> bool:
    """The model's answer to ``case`` is ``got`` (False where it has none)."""
    try:
        return bool(render(model, check, case) == got)
    except Exception:  # NotModelled, or an input the model's encoder refuses
        return False


def _own_kept_escapes(part: str, answer: Callable[[str], object]) -> str:
    """The bytes (as U+0000-U+00FF) whose escape ``%HH`` a form parser answers as is in
    its names and its values (``part`` ""), in its names only (``names``) or its values
    only (``values``): each asked as a name and as a value, at two lengths."""
    def kept(code: int) -> tuple[bool, bool]:
        escape = f"%{code:02X}"
        # (a name beside a value: a parser may drop a pair with an empty value)
        return (any(answer(f"{p}{escape}=1") == [(p + escape, "1")] for p in ("", "x")),
                any(answer(f"k={p}{escape}") == [("k", p + escape)] for p in ("", "x")))

    wanted = {"": (True, True), "names": (True, False), "values": (False, True)}[part]
    found = [code for code in range(0x80) if kept(code) == wanted]
    # A non-ASCII byte's escape alone is invalid UTF-8, which a parser may keep encoded
    # as its replacement mode (Werkzeug): counted only where every ASCII one is kept.
    if len(found) == 0x80:
        found += [code for code in range(0x80, 0x100) if kept(code) == wanted]
    return "".join(map(chr, found))


def _own_decoding(rule: str, answer: Callable[[str], object], of_bytes: bool = False) -> str:
    """A decoder's own parameter of ``rule`` (``own_chars``), each input asked at two
    lengths (hyperlink picks its API by the parity of the input):

    - ``kept_encoded``: the ASCII characters whose escape ``%HH`` it answers as is;
    - ``replacement``: its mode, as it answers ``%41%e2%82`` (a truncated sequence):
      ``A`` then U+FFFD once or twice, ``A%E2%82``, or the input undecoded; and
      ``%FF\u00e9``: U+FFFD twice is Node's low-byte fallback ("": none), asked of
      text only (``of_bytes``: as bytes, FF E9 is U+FFFD twice per sequence too).
    """
    def same(text: str, want: str) -> bool:
        got = answer(text)
        return got is not None and (got if isinstance(got, bytes) else str(got).encode(
            "utf-8", "surrogatepass")) == want.encode("utf-8", "surrogatepass")

    if rule == "kept_encoded":
        return "".join(chr(code) for code in range(0x80)
                       if any(same(p + f"%{code:02X}", p + f"%{code:02X}") for p in ("", "x")))
    for mode, text, want in REPLACEMENT_ANSWERS:
        if of_bytes and mode == "low-byte":
            continue
        if any(same(p + text, p + want) for p in ("", "x")):
            return mode
    return ""


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
