"""Where a difference shows, and its class: a difference the differential check could
not explain, located on the implementation and named (``pctfuzz._internal.identity``).

The class of a finding is read off the shortest prefix of the input (encode, decode,
form-parse), or cut of its pairs (form), whose answers differ with what is in force
taken out (``_unexplained``), found by ``_first_differing`` (each of the first
``_LINEAR`` lengths, then doubling and bisection); then off the shortest end of that
prefix that still differs (the window), so that what comes before a behaviour never
changes its class. A difference that a plain input of the same size shows is one of
size (``_size_class``); a pair that differs for its repeated name, or a unit that the
other field classes alike, is said so (``_repeated_name``, ``_in_either_field``); and
the class is widened where variants of the case agree (``generalized``,
``checks.generalize``). ``located`` is the class before it is widened, ``difference``
after; ``unlocated_class`` reads it off the two answers alone, with no call.

A prefix is compared as the check compares the whole case, so that comparison lives
here, below the check: ``agree`` and ``both_refuse`` (the non-scalar policy, stated in
``checks.differential``), ``policy_reference`` (the answer an implementation is held
to), ``accepted_and_known`` (what is in force), and the implementation's own
replacement mode, in force while a difference is located. The implementation is asked
through ``checks.profile``; ``checks.differential`` imports this module, never the
other way.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.accept.entry import reconcile as reconcile_entries
from pctfuzz._internal.accept.model import Model, read_input
from pctfuzz._internal.accept.rule import rule_from
from pctfuzz._internal.accept.rules import as_entry
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.generalize import widen
from pctfuzz._internal.checks.known import KnownFindings
from pctfuzz._internal.checks.own_chars import own_chars
from pctfuzz._internal.checks.profile import own_parser_mode, run_impl
from pctfuzz._internal.checks.registry.lookup import accepted_entries, entries_for
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.errors import NotScalarValueError
from pctfuzz._internal.identity import difference as identity_difference
from pctfuzz._internal.identity import (
    form_difference,
    form_parse_difference,
    form_shape,
    pairs_shape,
    size_difference,
    unit_difference,
)
from pctfuzz._internal.identity.classes import (
    BESIDE_EARLIER,
    ESCAPED_APART,
    MERGED_NAMES,
    REORDERED,
    last_name_merged,
    reordered,
)
from pctfuzz._internal.inputs import input_has, with_texts
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.oracles.base import Impl, registry_names
from pctfuzz._internal.outcome import Outcome, reference_outcome
from pctfuzz._internal.reference import Surrogates, percent_decode
from pctfuzz._internal.settings import RunSettings
from pctfuzz._internal.spec import PERCENT_ENCODED_BYTE
from pctfuzz._internal.text import first_difference as text_first_difference
from pctfuzz._internal.text import fresh_letter, surrogates_to_fffd

__all__ = [
    "accepted_and_known",
    "agree",
    "as_read",
    "as_unescaped",
    "both_refuse",
    "difference",
    "first_difference",
    "generalized",
    "located",
    "policy_reference",
    "shortest_prefix",
    "unlocated_class",
]


def first_difference(expected: Any, actual: Any) -> int | None:
    """The first index where the answers differ (None: equal, or not sequences of one
    type): every input a known finding explains still raises a divergence that
    carries it."""
    if not (isinstance(expected, str | bytes | list) and type(expected) is type(actual)):
        return None
    if expected == actual:
        return None
    return text_first_difference(expected, actual)


def both_refuse(expected: Outcome, actual: Outcome) -> bool:
    """The reference refused a non-scalar str and the implementation refused it too
    with a ``ValueError`` (``UnicodeEncodeError`` included): agreement, whatever the
    exception's type, since neither gave an answer."""
    return isinstance(expected.error, NotScalarValueError) and isinstance(
        actual.error, ValueError)


_KEPT_SURROGATE = re.compile(rb"\xed[\xa0-\xbf][\x80-\xbf]")


def as_fffd(value: Any) -> Any:
    """An answer with every lone surrogate it kept written as U+FFFD (bytes: the
    ``surrogatepass`` UTF-8 of one, ``ED A0..BF 80..BF``)."""
    if isinstance(value, bytes):
        return _KEPT_SURROGATE.sub(b"\xef\xbf\xbd", value)
    if isinstance(value, str):
        return surrogates_to_fffd(value)
    if isinstance(value, list | tuple):
        return [as_fffd(item) if isinstance(item, str | bytes) else
                tuple(as_fffd(part) for part in item) for item in value]
    return value


def agree(check: str, case: Case, expected: Outcome, actual: Outcome) -> bool:
    """The two outcomes agree: the same, or so by the non-scalar policy
    (``checks.differential``'s docstring) when the case's input holds a lone surrogate."""
    if expected.same(actual) or both_refuse(expected, actual):
        return True
    if not input_has(case, "lone-surrogate"):
        return False
    if actual.raised:
        return isinstance(actual.error, ValueError)
    kept = as_fffd(actual.value)
    if not expected.raised:
        return bool(kept == expected.value)
    try:
        return bool(kept == reference_outcome(check, case, surrogates="replace").value)
    except Exception:
        return False


def policy_reference(check: str, case: Case, actual: Outcome, expected: Outcome) -> Outcome:
    """The reference's answer an implementation's answer is held to: where the reference
    refuses a str for its lone surrogates and the implementation answers, the answer for
    the USVString (each as U+FFFD), as the non-scalar policy compares
    (``checks.differential``'s docstring). So a behaviour of the same case (a kept
    escape beside a lone surrogate) is named as it is without the surrogate, one
    finding, not a refusal's difference. Not in a legacy encoding, where Python's
    codec writes a lone surrogate as an NCR (``python_codec`` names that)."""
    if actual.raised or not isinstance(expected.error, NotScalarValueError):
        return expected
    label = getattr(case, "encoding", None)
    if isinstance(label, str) and not lookup(label).is_utf8:
        return expected
    replaced = reference_outcome(check, case, surrogates="replace")
    return expected if replaced.raised else replaced


def accepted_and_known(check: str, adapter: Impl, known: KnownFindings | None,
                       *, settings: RunSettings
                       ) -> tuple[list[KnownDivergence], list[KnownDivergence]]:
    """The accepted entries (none under ``--no-accepted``) and the findings already made
    (``checks.known``), as entries of the adapter."""
    names = registry_names(adapter)
    accepted = list(entries_for(check, names, accepted_entries(adapter, settings), settings))
    return accepted, [] if known is None or not names else known.entries(check, names[0])


def as_read(check: str, case: Case, adapter: Impl, actual: Outcome,
            known: KnownFindings | None, *, settings: RunSettings) -> Case | None:
    """The input the implementation reads by the input transforms in force (characters
    removed or trimmed, the input cut: ``accept.model``'s step 1), when it answers that
    input as it answered ``case``; None when none changes it. A difference beyond them
    is classed there: a TAB that urlsplit removes before a name that repeats one was a
    finding per kind of name (the names differ as given, not as read)."""
    accepted, own = accepted_and_known(check, adapter, known, settings=settings)
    transforms = [entry.model for entry in (*accepted, *own)
                  if entry.model is not None and (entry.model.remove or entry.model.trim
                                                  or entry.model.cut)
                  and entry.active() and entry.applies(case)]
    if not transforms or actual.raised:
        return None
    model = Model(remove="".join(m.remove for m in transforms),
                  trim="".join(m.trim for m in transforms),
                  cut="".join(m.cut for m in transforms))
    read = read_input(model, case)
    if read == case:
        return None
    again = run_impl(check, read, adapter)
    return read if again is not None and not again.raised and again.value == actual.value \
        else None


def as_unescaped(check: str, case: Case, adapter: Impl, expected: Outcome, actual: Outcome,
                 surrogates: Surrogates) -> Case | None:
    """The decoder's or form parser's input with each escape of a plain ASCII character
    written as that character, when both sides answer it as they answered ``case``
    (then the escape is no part of the difference); None otherwise. PyYAML's tag reader
    resolves a tag that decodes to ``!``: ``%21`` and ``!`` were two findings of it. A
    delimiter's escape is never written so: a decoder that splits at ``%23`` as at
    ``#`` decodes before it splits, a bug of its own."""
    if check not in (DECODE.name, FORM_PARSE.name) or actual.raised:
        return None

    def unescaped(text: Any) -> Any:
        if isinstance(text, bytes):
            return unescaped(text.decode("latin-1")).encode("latin-1")
        return PERCENT_ENCODED_BYTE.sub(lambda m: _plain_character(m[0]) or m[0], text)

    plain = with_texts(case, unescaped)
    if plain == case or expected.raised:
        return None
    held = reference_outcome(check, plain, surrogates=surrogates)
    if held.raised or held.value != expected.value:
        return None
    again = run_impl(check, plain, adapter)
    return plain if again is not None and not again.raised and again.value == actual.value \
        else None


def _plain_character(escape: str) -> str | None:
    """The ASCII character an escape stands for, unless it is ``%`` or one kept apart
    (``identity.classes.ESCAPED_APART``)."""
    byte = percent_decode(escape)
    return None if byte[0] >= 0x80 or chr(byte[0]) in ESCAPED_APART + "%" else chr(byte[0])


def _own_replacement(check: str, case: Case, adapter: Impl) -> list[KnownDivergence]:
    """A decoder's or form parser's own ``replacement`` mode (asked once per adapter:
    ``own_chars``, ``own_parser_mode``) as an entry, in force while a difference
    is located: an answer in text writes U+FFFD where the reference answers invalid
    bytes, and the difference of a decoder losing the byte after ``%C3`` was located on
    ``%C3`` and named as its harmless U+FFFD, unless a finding of that mode had been
    made first."""
    mode = (own_chars("replacement", check, case, adapter) if check == DECODE.name else
            own_parser_mode("replacement", check, adapter) if check == FORM_PARSE.name else
            None)
    names = registry_names(adapter)
    return [_replacement_entry(check, names[0], mode)] if mode and names else []


@functools.lru_cache(maxsize=64)
def _replacement_entry(check: str, impl: str, mode: str) -> KnownDivergence:
    """``replacement(mode)`` as an entry of ``impl`` (made once: it is asked on every
    prefix a difference is located on)."""
    example = DecodeCase("%FF") if check == DECODE.name else FormParseCase("%FF")
    return as_entry(rule_from("replacement", {"mode": mode}), check, impl, example)


def difference(check: str, case: Case, adapter: Impl, expected: Outcome, actual: Outcome,
               surrogates: Surrogates, known: KnownFindings | None = None,
               *, settings: RunSettings) -> str:
    """The class of an unexplained difference (``pctfuzz._internal.identity``): the
    located class (``located``), widened where variants agree (``generalized``)."""
    where, klass, widens = located(check, case, adapter, expected, actual, surrogates, known,
                                   settings=settings)
    return generalized(check, where, adapter, klass, surrogates, known,
                       settings=settings) if widens else klass


def located(check: str, case: Case, adapter: Impl, expected: Outcome, actual: Outcome,
            surrogates: Surrogates, known: KnownFindings | None = None,
            quick: bool = False, *, settings: RunSettings) -> tuple[Case, str, bool]:
    """The class of an unexplained difference before it is widened, the case to widen it
    on, and whether it widens.

    For encode, the unit is located on the implementation's own behaviour: the
    shortest prefix of the input whose outputs differ after the registry's
    reconciliation (found by doubling, then bisection: O(log n) calls, so the class of
    a long input costs little and equals that of its minimized form). So an accepted
    difference earlier in the input (a legacy-encoding model, ``~`` left raw) never
    becomes the class, and a bug that shows only in context (``%`` before two hex
    digits) is located where it shows. A difference that a plain input of the same size
    shows too is one of size (``_size_class``), whatever characters the input holds.
    ``quick``: the prefix located by bisection alone (``_first_differing``)."""
    # (a refusal is named by what was raised, wherever and whatever the input's size:
    # no calls)
    if actual.raised:
        return case, _first_class(check, case, adapter, expected, actual, surrogates,
                                  known, settings=settings), False
    sized = _size_class(check, case, adapter, surrogates, known, settings=settings)
    if sized is not None:
        return case, sized, False
    located: tuple[Case, str] | None = None
    if check == FORM_PARSE.name and isinstance(case, FormParseCase) and case.text:
        located = _form_parse_prefix(case, adapter, surrogates, known, quick, settings=settings)
    elif check == DECODE.name and isinstance(case, DecodeCase) and case.value:
        located = _decode_prefix(case, adapter, surrogates, known, quick, settings=settings)
    if located is not None:
        # widened on the prefix that shows it: the whole input may write its unit
        # otherwise (the "A" of "%A" is the escape "%AF" once "F" follows)
        return located[0], located[1], located[1] != REORDERED
    klass = _first_class(check, case, adapter, expected, actual, surrogates, known, quick,
                         settings=settings)
    return case, klass, klass != REORDERED  # (an order has no unit to widen)


#: An input of fewer units (pairs, characters) is not tried as a difference of size;
#: the plain input of ``_SMALL`` characters (two pairs) must agree: a bug that shows
#: on two pairs (``;`` between them) is no bug of size.
_SIZE_MIN = 16
_SMALL = 8


def _plain_variants(case: Case) -> list[tuple[str, Case, Case]]:
    """(what is kept, a plain case as large as ``case``, a small plain case) for
    ``_size_class``: pairs ``a<i>=b`` (distinct names: a parser that keeps one pair per
    name is no size bug; ``i`` zero-padded, so the names sort in their order: a parser
    that sorts the pairs by name read ``a10`` before ``a2`` as a bug of size) as many
    as the case's, or letters as many as its units."""
    out: list[tuple[str, Case, Case]] = []
    if isinstance(case, FormParseCase):
        text = case.text
        is_str = isinstance(text, str)
        count = (text.count("&") if is_str else text.count(b"&")) + 1  # type: ignore[arg-type]

        def plain(value: str) -> str | bytes:
            return value if is_str else value.encode()

        if count >= _SIZE_MIN:
            out.append(("count",
                        dataclasses.replace(case, text=plain("&".join(
                            f"a{name}=b" for name in _ordered_names(count)))),
                        dataclasses.replace(case, text=plain("a0=b&a1=b"))))
        if len(text) >= _SIZE_MIN:
            out += [("length", dataclasses.replace(case, text=plain(long)),
                     dataclasses.replace(case, text=plain(short)))
                    for long, short in _plain_texts(len(text), _utf8_size(text))]
    elif isinstance(case, FormCase) and len(case.pairs) >= _SIZE_MIN:
        out.append(("count",
                    dataclasses.replace(case, pairs=tuple((f"a{name}", "b") for name
                                                          in _ordered_names(len(case.pairs)))),
                    dataclasses.replace(case, pairs=(("a0", "b"), ("a1", "b")))))
    elif isinstance(case, DecodeCase | EncodeCase) and len(case.value) >= _SIZE_MIN:
        texts = _plain_texts(len(case.value), _utf8_size(case.value))
        if isinstance(case, EncodeCase):
            texts = texts[:1]  # an encoder writes "%" as "%25" wherever it is
        for long, short in texts:
            if isinstance(case.value, bytes):
                out.append(("length", dataclasses.replace(case, value=long.encode()),
                            dataclasses.replace(case, value=short.encode())))
            else:
                out.append(("length", dataclasses.replace(case, value=long),
                            dataclasses.replace(case, value=short)))
    return out


def _utf8_size(text: str | bytes) -> int:
    """How many bytes ``text`` is as UTF-8 (bytes: as they are)."""
    return len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))


def _ordered_names(count: int) -> list[str]:
    """``count`` distinct digit strings, in their sorted order."""
    width = len(str(count - 1))
    return [f"{i:0{width}d}" for i in range(count)]


def _plain_texts(length: int, size: int = 0) -> list[tuple[str, str]]:
    """(a plain text of ``length`` characters, the same of ``_SMALL`` characters):
    letters, then escapes of a letter at each of the three alignments (a decoder that
    works in blocks splits an escape only where one straddles a block's end), then a
    two-byte character at both (a parser that UTF-8-decodes in chunks of bytes splits
    one only where it straddles a chunk's end; as many bytes as the input's ``size``
    in bytes, where that is more than ``length``). An escape cut at the end is letters:
    ``%4`` is no plain input (a decoder that reads ``%a`` as a byte was named a bug of
    size on it)."""
    two_byte = max(length, (size + 1) // 2)  # (as many bytes as the input's UTF-8)
    return [(_whole_escapes(text[:length]), _whole_escapes(text[:_SMALL])) for text in
            ("a" * length, *((pad + "%41" * length) for pad in ("", "a", "aa")))] + [
        ((pad + "\u00e9" * two_byte)[:two_byte], "\u00e9" * _SMALL) for pad in ("", "a")]


def _whole_escapes(text: str) -> str:
    """``text`` with an escape cut short at its end (``%`` or ``%4``) as letters."""
    cut = text.rfind("%", len(text) - 2)
    return text if cut < 0 else text[:cut] + "a" * (len(text) - cut)


def _size_class(check: str, case: Case, adapter: Impl, surrogates: Surrogates,
                known: KnownFindings | None, *, settings: RunSettings) -> str | None:
    """The class of a difference of size alone (``identity.size_difference``): a plain
    input as large as ``case`` differs unexplained, a small one (two pairs, eight
    characters) agrees. Tried on large inputs only (``_SIZE_MIN``); the large plain
    input first, which agrees for any bug of a character (one call)."""
    names = registry_names(adapter)
    for size, large, small in _plain_variants(case):
        answers = _unexplained(check, large, adapter, names, surrogates, known, settings=settings)
        if answers is None:
            continue
        if _unexplained(check, small, adapter, names, surrogates, known,
                        settings=settings) is None \
                and run_impl(check, small, adapter) is not None:
            return size_difference(check, large, *answers[0], size=size)
    return None


def _first_class(check: str, case: Case, adapter: Impl, expected: Outcome, actual: Outcome,
                 surrogates: Surrogates, known: KnownFindings | None,
                 quick: bool = False, *, settings: RunSettings) -> str:
    """The class of the first unit where the answers part (``difference``): located
    on the shortest prefix that shows it; a refusal's, of what was raised, with no call
    of the implementation (a prefix shows no answer to compare)."""
    located = None if actual.raised else _prefix_class_of(check, case, adapter, surrogates,
                                                          known, quick, settings=settings)
    if located is not None:
        return located
    return unlocated_class(check, case, expected, actual, surrogates)


def unlocated_class(check: str, case: Case, expected: Outcome, actual: Outcome,
                    surrogates: Surrogates) -> str:
    """The class of the first unit where the two answers part, read off them alone (no
    call of the implementation; ``identity.difference``)."""
    return identity_difference(
        check, case,
        expected.error if expected.error is not None else expected.value,
        actual.error if actual.error is not None else actual.value,
        surrogates=surrogates,
    )


def _prefix_class_of(check: str, case: Case, adapter: Impl, surrogates: Surrogates,
                     known: KnownFindings | None, quick: bool = False,
                     *, settings: RunSettings) -> str | None:
    """The class of the shortest prefix of ``case`` (or cut of its pairs) that differs
    unexplained; None when none does. ``quick``: located by bisection alone."""
    if check == ENCODE.name and isinstance(case, EncodeCase) and case.value:
        found = shortest_prefix(case, adapter, surrogates, known, quick, settings=settings)
        return None if found is None else found[1]
    if check == FORM_SERIALIZE.name and isinstance(case, FormCase) and case.pairs:
        return _form_prefix_class(case, adapter, surrogates, known, quick, settings=settings)
    if check == FORM_PARSE.name and isinstance(case, FormParseCase) and case.text:
        parsed = _form_parse_prefix(case, adapter, surrogates, known, quick, settings=settings)
        return None if parsed is None else parsed[1]
    if check == DECODE.name and isinstance(case, DecodeCase) and case.value:
        decoded = _decode_prefix(case, adapter, surrogates, known, quick, settings=settings)
        return None if decoded is None else decoded[1]
    return None


def generalized(check: str, case: Case, adapter: Impl, klass: str, surrogates: Surrogates,
                known: KnownFindings | None, *, settings: RunSettings) -> str:
    """``klass`` widened where variants of the case agree (``checks.generalize``)."""
    def classify(variant: Case) -> str | None:
        got = run_impl(check, variant, adapter)
        if got is None:
            return None
        want = reference_outcome(check, variant, surrogates=surrogates)
        if agree(check, variant, want, got):
            return None
        want = policy_reference(check, variant, got, want)
        return _first_class(check, variant, adapter, want, got, surrogates, known,
                            settings=settings)

    def answer(variant: Case) -> Any:
        got = run_impl(check, variant, adapter)
        return None if got is None else type(got.error) if got.raised else got.value

    return widen(case, klass, classify, () if known is None else known.unexplained(check),
                 answer)


def shortest_prefix(case: EncodeCase, adapter: Impl, surrogates: Surrogates,
                    known: KnownFindings | None = None,
                    quick: bool = False, *, settings: RunSettings) -> tuple[EncodeCase, str] | None:
    """The window of the input that shows its first difference, and the class of that
    difference on it: the shortest prefix whose outputs differ after reconciliation
    (``_first_differing``), then the shortest end of that prefix that still differs,
    as a decoder's (``_decode_prefix``). So what comes before the behaviour never
    changes its class: requote_uri's non-ASCII digit after '%' ('%\u06630' read as
    '0') was classed five ways after five different starts ('%%30', '%7a%', '%2E%2'),
    and minimizing, which keeps the class, kept each start. None if no prefix shows
    one."""
    names = registry_names(adapter)
    value = case.value
    seen: dict[tuple[int, int], str | None] = {}

    def differs(start: int, end: int) -> str | None:
        """The class if ``value[start:end]`` shows an unexplained difference."""
        if (start, end) not in seen:
            seen[start, end] = _window_class(case, value[start:end], adapter, names,
                                             surrogates, known, settings=settings)
        return seen[start, end]

    ends = unit_ends(value)
    end = _first_unit_end(ends, lambda n: differs(0, n), quick)
    if end is None:
        return None
    size = _shortest_tail(ends, end, lambda n: differs(end - n, end))
    found = differs(end - size, end)
    assert found is not None
    return EncodeCase(value[end - size:end], case.set_name, case.encoding,
                      case.space_as_plus), found


def unit_ends(value: str | bytes) -> list[int]:
    """Where a prefix of ``value`` may end (1..len, ascending): never inside a valid
    escape, nor inside a run of escapes that spells one UTF-8 character (``%C3%A9``),
    nor, in bytes, inside a raw UTF-8 sequence. A cut there makes an input the case
    does not hold (an escape cut short, an incomplete sequence), and the difference it
    shows is another behaviour's: a latin-1 decoder's ``%C3%A9`` was located on
    ``%C3%A``, a short escape, and named after a real bug it does not show."""
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    ends: list[int] = []
    at = 0
    while at < len(text):
        if PERCENT_ENCODED_BYTE.match(text, at) is not None:
            after: list[int] = []  # (the escapes right after it, up to three)
            while len(after) < 3 and PERCENT_ENCODED_BYTE.match(text, at + 3 + 3 * len(after)):
                start = at + 4 + 3 * len(after)
                after.append(int(text[start:start + 2], 16))
            size = 3 * _sequence_length(int(text[at + 1:at + 3], 16), after)
        else:
            size = 1
            if isinstance(value, bytes) and value[at] >= 0x80:
                size = _sequence_length(value[at], list(value[at + 1:at + 4]))
        at += size
        ends.append(at)
    return ends


def _sequence_length(lead: int, after: list[int]) -> int:
    """How many bytes from ``lead`` make one UTF-8 character with the bytes ``after``
    it (1 where they make none: the lead alone is a unit)."""
    size = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else \
        4 if 0xF0 <= lead <= 0xF4 else 1
    if size > 1 and len(after) >= size - 1 and \
            all(0x80 <= b <= 0xBF for b in after[:size - 1]):
        try:
            bytes([lead, *after[:size - 1]]).decode("utf-8")
            return size
        except UnicodeDecodeError:
            return 1
    return 1


def _first_unit_end(ends: list[int], differs: Callable[[int], object],
                    quick: bool = False) -> int | None:
    """``_first_differing`` over the prefixes that end at ``ends`` (``unit_ends``)."""
    found = _first_differing(len(ends), lambda n: differs(ends[n - 1]), quick)
    return None if found is None else ends[found - 1]


def _shortest_tail(ends: list[int], end: int, differs: Callable[[int], object]) -> int:
    """The size of the shortest end of ``value[:end]`` that ``differs(size)`` (it
    starts where a unit does: ``unit_ends``); ``end`` when none shorter does."""
    sizes = sorted(end - start for start in [0, *ends] if start < end)
    found = _first_differing(len(sizes), lambda n: differs(sizes[n - 1]))
    return end if found is None else sizes[found - 1]


#: Prefixes up to this length are tried one by one (``_first_differing``).
_LINEAR = 32


def _first_differing(count: int, differs: Callable[[int], object],
                     quick: bool = False) -> int | None:
    """The smallest ``n`` of 1..``count`` for which ``differs(n)`` is not None: each of
    the first ``_LINEAR`` in turn, then by doubling and bisection (O(log n) calls, so
    the class of a long input costs little). Linear first because a difference need
    not keep showing as the input grows (``%A`` differs, ``%Aa`` is an escape and
    agrees, ``%AaX`` differs again): a short input, as minimized ones are, is then
    located exactly, whatever its length.

    ``quick``: bisection of 1..``count`` alone, the first ``n`` after one that agrees
    (exact where a difference, once shown, keeps showing): what a campaign's input is
    located by to meet a known finding's class, before the exact search names it."""
    if count < 1:
        return None
    if quick:  # (0 is the empty input, which agrees)
        return None if differs(count) is None else _bisected(0, count, differs)
    for n in range(1, min(count, _LINEAR) + 1):
        if differs(n) is not None:
            return n
    if count <= _LINEAR:
        return None
    low, high = _LINEAR, 2 * _LINEAR  # differs(low) is None
    high = min(high, count)
    while high < count and differs(high) is None:
        low, high = high, min(2 * high, count)
    if differs(high) is None:
        return None
    return _bisected(low, high, differs)


def _bisected(low: int, high: int, differs: Callable[[int], object]) -> int:
    """The first ``n`` of ``low+1..high`` that differs after one that does not, where
    ``differs(low)`` is None and ``differs(high)`` is not."""
    while high - low > 1:
        middle = (low + high) // 2
        if differs(middle) is None:
            low = middle
        else:
            high = middle
    return high


def _window_class(case: EncodeCase, window: str | bytes, adapter: Impl,
                  names: tuple[str, ...], surrogates: Surrogates,
                  known: KnownFindings | None = None, *, settings: RunSettings) -> str | None:
    """The class of ``case`` with the value ``window``, located at its last unit, if
    it differs unexplained."""
    sub = EncodeCase(window, case.set_name, case.encoding, case.space_as_plus)
    pairs = _unexplained(ENCODE.name, sub, adapter, names, surrogates, known, settings=settings)
    return None if pairs is None else unit_difference(
        sub, len(window) - 1, [(str(want), str(got)) for want, got in pairs], surrogates)


def _unexplained(check: str, case: Case, adapter: Impl, names: tuple[str, ...],
                 surrogates: Surrogates, known: KnownFindings | None, *, settings: RunSettings
                 ) -> list[tuple[Any, Any]] | None:
    """The (reference's, implementation's) answers to ``case`` -- with what is in force
    taken out, then as answered -- when they differ and nothing in force explains it;
    None when they agree, or the implementation does not answer.

    In force are the accepted entries and the findings already made, or the accepted
    entries alone where the findings explain nothing more: a known finding's model
    that does not hold on this input (a fallback path the input does not take) would
    otherwise rewrite the reference's answer, and the class of a new behaviour would
    depend on which finding came first (requote_uri's non-ASCII digit after '%' was
    named four ways beside its known fallback, one finding each)."""
    got = run_impl(check, case, adapter)
    if got is None:
        return None
    want = reference_outcome(check, case, surrogates=surrogates)
    if agree(check, case, want, got):
        return None
    want = policy_reference(check, case, got, want)  # (as ``differential._check`` holds it)
    accepted, _ = accepted_and_known(check, adapter, None, settings=settings)  # (known: below)
    # (the findings whose models cannot be one, two modes of a rule, in the groups that
    # can: pip's encoded '=' beside its U+FFFD for '%aa' was the class of what its kept
    # '%2F' does, one finding per delimiter before it)
    groups = [] if known is None or not names else known.entry_groups(check, names[0])
    # (and each finding of a group alone: a model written as code, replacing the
    # reference's answer, is rendered over by the group's composed model, and a
    # decoder's known latin1_fallback beside its signed_escapes explained no input, so
    # each of its inputs with a second known behaviour was a finding of its own)
    alone = {entry.id: [entry] for group in groups if len(group) > 1 for entry in group}
    groups = [*groups, *alone.values()]
    replacement = _own_replacement(check, case, adapter)
    fixed: tuple[Outcome, Outcome] | None = None
    for entries in [*([*accepted, *own, *replacement] for own in groups),
                    [*accepted, *replacement]]:
        _used, fixed_want, fixed_got = reconcile_entries(check, names, case, want, got,
                                                         entries, needs=False)
        if fixed_want.same(fixed_got):
            return None
        # (the accepted entries alone unless the findings explain a longer start)
        if fixed is None or _agreeing(fixed_want, fixed_got) >= _agreeing(*fixed):
            fixed = fixed_want, fixed_got
    assert fixed is not None
    fixed_want, fixed_got = fixed
    # A refusal reconciled into a model of the implementation's answer (a lone
    # surrogate in a legacy encoding) is compared as the model's value.
    pairs = [(w.value, g.value) for w, g in
             ((fixed_want, fixed_got), (want, got)) if not (w.raised or g.raised)]
    return pairs or None


def _agreeing(want: Outcome, got: Outcome) -> int:
    """How long a start the two answers share (-1: either raised, or not comparable)."""
    if want.raised or got.raised:
        return -1
    at = first_difference(want.value, got.value)
    return -1 if at is None else at


def _form_cuts(case: FormCase, named: frozenset[int] = frozenset()
               ) -> list[tuple[str, int, int]]:
    """How a form's input grows, in order: each pair first empty, then its name one
    character at a time, then its value: (``pair``/``name``/``value``, pair index,
    characters). A pair is first empty only where the input's name or value is: a
    pair of a name and a value grows without either empty (``_form_cut``), or a
    serializer's behaviour on empty names would be where every input first differs,
    and every difference its hit (one finding of empty names hid five delimiters left
    raw in names). ``named``: the pairs with an empty value whose name differs beside
    a plain value too (``_named_alone``): their name grows as a full pair's does."""
    cuts: list[tuple[str, int, int]] = []
    for index, (name, value) in enumerate(case.pairs):
        if (not name or not value) and index not in named:
            cuts.append(("pair", index, 0))
        cuts += [("name", index, n) for n in range(1, len(name) + 1)]
        cuts += [("value", index, n) for n in range(1, len(value) + 1)]
        if len(cuts) >= _MAX_CUTS:
            break
    return cuts[:_MAX_CUTS]


#: The cuts of a form examined: a long unminimized input is classed in bounded time.
_MAX_CUTS = 4096


def _form_cut(case: FormCase, cut: tuple[str, int, int],
              named: frozenset[int] = frozenset()) -> FormCase:
    """``case`` cut at ``cut`` (``_form_cuts``): the pairs before it whole; while a
    name grows, its value is a plain letter the case does not hold (or empty, where
    the input's is, but for ``named`` pairs)."""
    field, index, length = cut
    name, value = case.pairs[index]
    filler = (fresh_letter(*(n + v for n, v in case.pairs)) or "") \
        if value or index in named else ""
    last = (("", "") if field == "pair" else (name[:length], filler) if field == "name"
            else (name, value[:length]))
    return dataclasses.replace(case, pairs=(*case.pairs[:index], last))


def _form_prefix_class(case: FormCase, adapter: Impl, surrogates: Surrogates,
                       known: KnownFindings | None, quick: bool = False,
                       *, settings: RunSettings) -> str | None:
    """The class of a form serializer's difference, located as encode's is: the
    shortest cut of the input (``_form_cuts``) that shows an unexplained difference,
    named by its last character (``identity.form_difference``); None when no cut does.
    Two variants say what the character does not: a pair that differs only because its
    name repeats an earlier one (it does not once renamed) is ``unit=repeated-name``
    (a serializer keeping one pair per name, whatever the name), and a character
    whose class is the same in the other field is ``field=any``."""
    names = registry_names(adapter)
    by_name = _named_alone(case, adapter, names, surrogates, known, settings=settings)
    cuts = _form_cuts(case, by_name)
    seen: dict[int, list[tuple[Any, Any]] | None] = {}

    def differs(n: int) -> list[tuple[Any, Any]] | None:
        if n not in seen:
            seen[n] = _unexplained(FORM_SERIALIZE.name, _form_cut(case, cuts[n - 1], by_name),
                                   adapter, names, surrogates, known, settings=settings)
        return seen[n]

    n = _first_differing(len(cuts), differs, quick)
    if n is None:
        return None
    field, index, length = cuts[n - 1]
    sub = _form_cut(case, cuts[n - 1], by_name)
    answers = seen[n]
    assert answers is not None
    if any(reordered(*each) for each in answers):
        return REORDERED
    name, value = sub.pairs[-1]
    fresh = fresh_letter(*(p + v for p, v in sub.pairs))
    if field == "value" and name and fresh is not None:
        # The value's first characters may only reveal the name's difference, hidden
        # while the value was empty by what is in force (empty pairs dropped): with a
        # plain value, the name's shortest differing cut names it ('*' encoded, not the
        # 'a' of '*=a': one finding per kind of value character, 14 in a tuning
        # serializer's 60 s campaign).
        asked: dict[int, list[tuple[Any, Any]] | None] = {}

        def named(k: int) -> list[tuple[Any, Any]] | None:
            if k not in asked:
                asked[k] = _unexplained(FORM_SERIALIZE.name, dataclasses.replace(
                    sub, pairs=(*sub.pairs[:-1], (name[:k], fresh))), adapter, names,
                    surrogates, known, settings=settings)
            return asked[k]

        k = _first_differing(len(name), named) if named(len(name)) is not None else None
        if k is not None:
            field, length, answers = "name", k, asked[k]
            sub = dataclasses.replace(sub, pairs=(*sub.pairs[:-1], (name[:k], fresh)))
            name, value = sub.pairs[-1]
    assert answers is not None
    klass = form_difference(sub, field, index, length, *answers[0])
    if field != "value" and fresh is not None \
            and any(name == earlier for earlier, _ in sub.pairs[:-1]):
        renamed = dataclasses.replace(sub, pairs=(*sub.pairs[:-1], (fresh, value)))
        if _unexplained(FORM_SERIALIZE.name, renamed, adapter, names, surrogates, known,
                        settings=settings) is None:
            # the shape as answered: what is in force may have rewritten either answer
            return f"field=pair;unit=repeated-name;diff={form_shape(*answers[-1])}"
    if field in ("name", "value"):
        text = name if field == "name" else value[:length]
        other = "value" if field == "name" else "name"
        def to_other(text: str) -> FormCase:
            return dataclasses.replace(sub, pairs=(
                *sub.pairs[:-1], ("", text) if other == "value" else (text, "")))

        moved = to_other(text)
        got = _unexplained(FORM_SERIALIZE.name, moved, adapter, names, surrogates, known,
                           settings=settings)
        if got is not None and form_difference(moved, other, index, len(text), *got[0]) \
                == klass.replace(f"field={field};", f"field={other};", 1) \
                and (len(text) < 2 or _unexplained(FORM_SERIALIZE.name, to_other(text[:-1]),
                                                   adapter, names, surrogates, known,
                                                   settings=settings) is None):
            # (located there too: in the other field, the text without its last
            # character shows no difference. A name's '!%' raw '%' moved to a value
            # that leaves '!' raw was named there by its '%', field=any: a second
            # finding of the name's raw '%')
            return klass.replace(f"field={field};", "field=any;", 1)
    return klass


#: The pairs with an empty value ``_named_alone`` asks about (one call each).
_NAMED_ALONE = 16


def _named_alone(case: FormCase, adapter: Impl, names: tuple[str, ...],
                 surrogates: Surrogates, known: KnownFindings | None,
                 *, settings: RunSettings) -> frozenset[int]:
    """The pairs with a name and an empty value whose name differs beside a plain value
    too (the pairs before them whole): the name's own behaviour, located on the name,
    not the empty pair's (a serializer's known finding of empty names took a name's
    raw delimiter with an empty value as its hit, and a real bug went unreported)."""
    fresh = fresh_letter(*(n + v for n, v in case.pairs))
    if fresh is None:
        return frozenset()
    return frozenset(
        index for index, (name, value) in enumerate(case.pairs[:_NAMED_ALONE])
        if name and not value and _unexplained(
            FORM_SERIALIZE.name,
            dataclasses.replace(case, pairs=(*case.pairs[:index], (name, fresh))),
            adapter, names, surrogates, known, settings=settings) is not None)


def _form_parse_prefix(case: FormParseCase, adapter: Impl, surrogates: Surrogates,
                       known: KnownFindings | None,
                       quick: bool = False,
                       *, settings: RunSettings) -> tuple[FormParseCase, str] | None:
    """A form parser's difference located as encode's is: the shortest prefix of the
    input whose parses differ unexplained, and the class of that difference, named by
    the character its last unit decodes to (``identity.form_parse_difference``); None
    when no prefix shows one."""
    names = registry_names(adapter)
    text = case.text
    # Each prefix first with its last pair given a plain value where it has none: a
    # parser that drops a pair with an empty value shows what it does to a name only
    # once a value follows, and the value's first unit, whatever it is, was the class
    # (one finding per kind of unit for one behaviour of the names, or of '&'); a pair
    # grows as its name beside a plain value, as a serializer's does. Then, where no
    # such prefix differs (a behaviour of empty values), as given.
    for complete in (True, False):
        seen: dict[int, list[tuple[Any, Any]] | None] = {}

        def ask(piece: Any, complete: bool = complete) -> list[tuple[Any, Any]] | None:
            return _unexplained(FORM_PARSE.name, dataclasses.replace(
                case, text=piece + _plain_value(piece) if complete else piece), adapter,
                names, surrogates, known, settings=settings)

        def differs(end: int, ask: Callable[[Any], list[tuple[Any, Any]] | None] = ask,
                    seen: dict[int, list[tuple[Any, Any]] | None] = seen
                    ) -> list[tuple[Any, Any]] | None:
            if end not in seen:
                seen[end] = ask(text[:end])
            return seen[end]

        # (O(log n) calls: no bound needed)
        end = _first_unit_end(unit_ends(text), differs, quick)
        if end is not None:
            break
    if end is None:
        return None
    answers = seen[end]
    assert answers is not None
    prefix = dataclasses.replace(case, text=text[:end])
    # Then its last sequences alone, the fewest that still differ: what comes before
    # them (a ';' that a known finding separates at, a pair) never changes the class
    # (';%3D' and '%3D' were two findings of one parser's decoding before it splits).
    chars = text[:end].decode("latin-1") if isinstance(text, bytes) else text[:end]
    starts = [at + 1 for at, char in enumerate(chars) if char in "&;" and at + 1 < end]
    for start in reversed(starts[-_WINDOW_SEQUENCES:]):
        got = ask(text[start:end])
        if got is not None:
            prefix, answers = dataclasses.replace(case, text=text[start:end]), got
            break
    if any(reordered(*each) for each in answers):
        return prefix, REORDERED
    klass = form_parse_difference(prefix.text, *answers[0])
    repeated = _repeated_name(prefix, answers[0], adapter, surrogates, known, settings=settings) \
        or _merged_name(prefix, answers[0], adapter, surrogates, known, settings=settings) \
        or _beside_earlier(prefix, klass, answers[0], ask)
    klass = repeated or _in_either_field(prefix, klass, adapter, surrogates, known,
                                         settings=settings)
    # Widened on the prefix as it is where it shows a difference alone, else as given
    # its plain value (a parser may refuse a name alone: each variant was a refusal)
    if complete and _plain_value(prefix.text) and _unexplained(
            FORM_PARSE.name, prefix, adapter, names, surrogates, known, settings=settings) is None:
        prefix = dataclasses.replace(prefix, text=prefix.text + _plain_value(prefix.text))
    return prefix, klass


#: The last sequences a form parser's difference is tried on alone (one call each).
_WINDOW_SEQUENCES = 4


def _plain_value(piece: str | bytes) -> Any:
    """What gives the last sequence of ``piece`` a plain value where it has none: ``=q``
    after a name alone, ``q`` after a ``=`` (as ``piece``'s type). A sequence ends at
    a ``&``, or at a ``;`` that a parser may separate at too (where it does not, the
    value is only longer)."""
    chars = piece.decode("latin-1") if isinstance(piece, bytes) else piece
    sequence = chars[max(chars.rfind("&"), chars.rfind(";")) + 1:]
    added = "=q" if "=" not in sequence else "" if sequence.partition("=")[2] else "q"
    return added.encode("ascii") if isinstance(piece, bytes) else added


def _repeated_name(case: FormParseCase, answers: tuple[Any, Any], adapter: Impl,
                   surrogates: Surrogates, known: KnownFindings | None,
                   *, settings: RunSettings) -> str | None:
    """``field=pair;unit=repeated-name`` and ``klass``'s shape when ``case`` (a shortest
    differing prefix) differs only because its last pair's name repeats an earlier one:
    it agrees once that name is another. A parser keeping one pair per name was one
    finding per kind of name (a letter, a digit, ``%26``, a space, a control: 15 in a
    60 s campaign of a tuning parser); as a serializer's (``_form_prefix_class``)."""
    expected = answers[0]
    if not isinstance(expected, list) or len(expected) < 2 \
            or expected[-1][0] not in [name for name, _ in expected[:-1]]:
        return None
    variants = _last_name_variants(case)
    if variants is None or _unexplained(
            FORM_PARSE.name, variants[0], adapter, registry_names(adapter), surrogates, known,
            settings=settings) is not None:
        return None
    return "field=pair;unit=repeated-name;diff=" + pairs_shape(*answers)


def _beside_earlier(case: FormParseCase, klass: str, answers: tuple[Any, Any],
                    ask: Callable[[Any], list[tuple[Any, Any]] | None]) -> str | None:
    """``identity.classes.BESIDE_EARLIER`` and the pairs' shape when ``case`` (a
    shortest differing prefix, its fewest last sequences that differ) holds pairs
    before its last ``&`` and that last pair alone agrees (``ask``: as the prefixes
    were asked): the pairs differ together, not by a unit of the last one. A parser
    answering a mapping whose slot two names share (a nested ``a[b]`` and a plain
    ``a``) was a class per unit of whichever name ended the prefix, each alone read
    right. A separator's difference is the separator's (``field=separator``)."""
    if klass.startswith("field=separator;"):
        return None
    raw = case.text
    text = raw.decode("latin-1") if isinstance(raw, bytes) else raw
    start = text.rfind("&") + 1
    if start == 0 or start == len(text) or ask(raw[start:]) is not None:
        return None
    return BESIDE_EARLIER + pairs_shape(*answers)


def _last_name_variants(case: FormParseCase) -> tuple[FormParseCase, FormParseCase] | None:
    """``case`` with its last pair's name written as a letter it does not hold, and its
    last pair alone (None when it has one pair, or no such letter): what tells a name
    that repeats or joins an earlier one from a change of the name itself."""
    raw = case.text
    text = raw.decode("latin-1") if isinstance(raw, bytes) else raw
    start = text.rfind("&") + 1
    fresh = fresh_letter(text)
    if start == 0 or fresh is None:
        return None
    _name, equals, value = text[start:].partition("=")

    def written(variant: str) -> FormParseCase:
        return dataclasses.replace(
            case, text=variant.encode("latin-1") if isinstance(raw, bytes) else variant)

    return written(text[:start] + fresh + equals + value), written(text[start:])


def _merged_name(case: FormParseCase, answers: tuple[Any, Any], adapter: Impl,
                 surrogates: Surrogates, known: KnownFindings | None,
                 *, settings: RunSettings) -> str | None:
    """``identity.classes.MERGED_NAMES`` when ``case`` (a shortest differing prefix)
    reads its last pair's name as an earlier pair's (``last_name_merged``): it agrees
    with that name renamed, and that pair alone agrees. The earlier name took it, not a
    change of the name's own units (a trim that gives an earlier name is the trim's)."""
    if not last_name_merged(*answers):
        return None
    variants = _last_name_variants(case)
    if variants is None or any(
            _unexplained(FORM_PARSE.name, variant, adapter, registry_names(adapter),
                         surrogates, known, settings=settings) is not None
            for variant in variants):
        return None
    return MERGED_NAMES


def _in_either_field(case: FormParseCase, klass: str, adapter: Impl, surrogates: Surrogates,
                     known: KnownFindings | None, *, settings: RunSettings) -> str:
    """``klass``, located on ``case`` (a shortest differing prefix) in a name or a value,
    as ``field=any`` when its last sequence moved to the other field gives the same
    class there: a parser that reads ``%a`` as a byte does so in a name and in a value,
    one behaviour (it was one finding per field)."""
    field = klass.partition(";")[0].removeprefix("field=")
    if field not in ("name", "value"):
        return klass
    raw = case.text
    text = raw.decode("latin-1") if isinstance(raw, bytes) else raw
    start = text.rfind("&") + 1
    head, sequence = text[:start], text[start:]
    if field == "name":
        moved = head + "=" + sequence
    else:
        value = sequence.partition("=")[2]
        if "=" in value:  # (a second "=" would end the name there)
            return klass
        moved = head + value
    other = "value" if field == "name" else "name"
    # (a value moved to a name alone is given a plain value, as prefixes are: a parser
    # may refuse a name alone, or drop it)
    asked = moved + (_plain_value(moved) if other == "name" else "")
    got = _unexplained(FORM_PARSE.name, dataclasses.replace(
        case, text=asked.encode("latin-1") if isinstance(raw, bytes) else asked), adapter,
        registry_names(adapter), surrogates, known, settings=settings)
    if got is not None and form_parse_difference(moved, *got[0]) == klass.replace(
            f"field={field};", f"field={other};", 1):
        return klass.replace(f"field={field};", "field=any;", 1)
    return klass


def _decode_prefix(case: DecodeCase, adapter: Impl, surrogates: Surrogates,
                   known: KnownFindings | None,
                   quick: bool = False, *, settings: RunSettings) -> tuple[DecodeCase, str] | None:
    """A decoder's difference located as a form parser's is: the shortest prefix of the
    input whose answers differ unexplained, then the shortest end of it that still
    differs (the window), and the class of that difference on the window
    (``identity``'s decode segments); None when no prefix shows one. An escape written
    in lowercase at the end of a long input is that escape's finding, not one of the
    input's end (``seg=end``: ``identity`` reads the first units only) or of an invalid
    ``%`` before it."""
    names = registry_names(adapter)
    value = case.value
    seen: dict[int, list[tuple[Any, Any]] | None] = {}

    def differs(end: int) -> list[tuple[Any, Any]] | None:
        if end not in seen:
            seen[end] = _unexplained(DECODE.name, dataclasses.replace(case, value=value[:end]),
                                     adapter, names, surrogates, known, settings=settings)
        return seen[end]

    ends = unit_ends(value)
    end = _first_unit_end(ends, differs, quick)  # (O(log n) calls: no bound needed)
    if end is None:
        return None
    # Then the shortest end of that prefix that still differs: the class is read off
    # the few units where the answers part, however long the input before them.
    tails: dict[int, list[tuple[Any, Any]] | None] = {end: seen[end]}

    def tail_differs(size: int) -> list[tuple[Any, Any]] | None:
        if size not in tails:
            tails[size] = _unexplained(
                DECODE.name, dataclasses.replace(case, value=value[end - size:end]),
                adapter, names, surrogates, known, settings=settings)
        return tails[size]

    size = _shortest_tail(ends, end, tail_differs)
    answers = tail_differs(size)
    assert answers is not None
    window = dataclasses.replace(case, value=value[end - size:end])
    return window, identity_difference(DECODE.name, window, *answers[0], surrogates=surrogates)
