"""Differential checks: run a case on the reference and on an implementation under test.

Shared by every driver (Hypothesis tests, the atheris ``diff_*`` targets, replay), like
the invariants in ``properties``. Each check:

1. asks the reference (``divergences.reference_outcome``): a value, or
   ``NotScalarValueError`` for a str that is not a scalar value string;
2. asks the implementation (an adapter, see ``pctfuzz._internal.oracles``): a value, an
   exception, or ``Unsupported`` -- then the check returns ``None`` (skipped);
3. returns ``()`` when the two agree: equal values, exceptions of the same type, or
   what the *non-scalar policy* below calls agreement. An adapter declaring
   ``scalar_values = "replace"`` is compared with the reference's
   ``surrogates="replace"`` answer (WebIDL USVString: lone surrogate -> U+FFFD);
4. returns the ids of the registry entries (``pctfuzz._internal.checks.registry``, then the
   adapter's own and ``--accept``'s, ``pctfuzz.accept``) that together explain the
   difference, when they do;
5. otherwise raises ``pctfuzz._internal.violations.Divergence`` with ``check``, ``case``,
   ``impl`` (its name), ``expected`` (the reference's value, or a description of its
   exception), ``actual`` (the implementation's value, or None) and ``impl_error``
   (the implementation's exception, if it raised), and ``difference``, the class of
   the difference (``pctfuzz._internal.identity``) that makes the finding's signature.

**The non-scalar policy (one for all four checks).** A str holding a lone surrogate is
not a scalar value string, the input type of every algorithm the reference implements
(WHATWG URL 1.3, 5.1, 5.2 take USVStrings; WebIDL converts a lone surrogate to
U+FFFD). What an implementation does with one is therefore not held against it:

- it refuses it, raising a ``ValueError`` (``UnicodeError`` included): agreement,
  whether the reference refuses the case (encode, form: ``NotScalarValueError``) or
  converts it (decode, form-parse: U+FFFD);
- it answers as for the USVString conversion (each lone surrogate as U+FFFD):
  agreement; any other answer is held to that conversion's answer, so a behaviour
  beside the surrogate is named as without it;
- it answers keeping the lone surrogate where the reference has U+FFFD (decode's
  bytes ``ED A0 80``, a form-parse name or value): the kept surrogates are compared
  as U+FFFD, so this is agreement too, and a difference elsewhere in the answer is
  compared as any other (never as ``ED A0 80`` against ``EF BF BD``).

Any other answer (dropping it, an NCR, another exception type...) is a divergence
like any other, named by its rule (``refuses`` for a refusal that is not a
``ValueError``). ``docs/divergences.md`` states the same policy.

An exception from the implementation on a case it claims to support is a finding: the
fuzzer classifies a ``Divergence`` with ``impl_error`` set as kind ``crash``, located
at that exception (``pctfuzz._internal.fuzz.driver.classify``). When the *reference* refuses a case
and the implementation refuses it too, with a different exception type, that too needs
a registry entry (unless both refuse a non-scalar str, see 3): error-versus-error
behaviour is part of what is compared.

``impl`` may be an adapter, a name or import path for ``oracles.get_impl``, or None
(``urllib``).

The check is three modules, each importing only those below it: this one judges a
case (``judge``: ``agree``, the accepted entries, then the name of a difference: a
known finding, a catalogue rule that holds on variants of the case, or its class);
``checks.locate`` locates a difference that no rule names and classes it;
``checks.profile`` asks the implementation about itself (its sets, its characters per
rule, its modes), once per adapter.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import re
from collections.abc import Iterator
from typing import Any

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.accept.entry import reconcile as reconcile_entries
from pctfuzz._internal.accept.model import Model, read_input, render
from pctfuzz._internal.accept.reconcilers import OPTIONAL_PARAMS
from pctfuzz._internal.accept.rule import Rule
from pctfuzz._internal.accept.rules import as_entry, find_rule
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks import locate
from pctfuzz._internal.checks.generalize import (
    as_any_escape,
    as_lost_first,
    as_victim,
    holds_on_variants,
    one_field,
)
from pctfuzz._internal.checks.known import KnownFindings
from pctfuzz._internal.checks.own_chars import own_chars
from pctfuzz._internal.checks.parts import joined, parts
from pctfuzz._internal.checks.profile import (
    cut_at,
    own_parser_mode,
    pair_order,
    refusal_family,
    requote_mode,
    run_impl,
    scalar_values,
    separator,
    set_probe,
)
from pctfuzz._internal.checks.registry.lookup import (
    accepted_entries,
    entries_for,
    explain,
)
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.errors import Deferred, NotModelled
from pctfuzz._internal.identity.classes import difference_context
from pctfuzz._internal.identity.signatures import RAISED_AFTER
from pctfuzz._internal.inputs import input_has, input_strs, with_texts, without_kind
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.oracles.base import Impl, impl_name, registry_names
from pctfuzz._internal.oracles.registry import get_impl
from pctfuzz._internal.outcome import Outcome, reference_outcome
from pctfuzz._internal.reference import Surrogates
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings
from pctfuzz._internal.text import fresh_letter, surrogates_to_fffd
from pctfuzz._internal.violations import Divergence

__all__ = [
    "Outcome",
    "check_decode",
    "check_encode",
    "check_form",
    "check_form_parse",
    "judge",
    "resolve_impl",
    "rule_for",
]


@functools.lru_cache(maxsize=32)
def _impl_by_name(name: str) -> Impl:
    return get_impl(name)


def resolve_impl(impl: Impl | str | None) -> Impl:
    """An adapter for ``impl`` (names are resolved once and cached)."""
    if impl is None or isinstance(impl, str):
        return _impl_by_name(impl or "urllib")
    return impl


def _as_compared(case: Case, actual: Outcome) -> Outcome:
    """``actual`` as the non-scalar policy compares it (itself when that changes
    nothing)."""
    if actual.raised or not input_has(case, "lone-surrogate"):
        return actual
    kept = locate.as_fffd(actual.value)
    return actual if kept == actual.value else Outcome(kept)


def _as_answered(case: Case, actual: Outcome) -> tuple[Outcome, ...]:
    """``actual`` as the non-scalar policy compares it, then as answered when that
    differs: bytes that look like a kept lone surrogate (``ED AA AA``) may be data the
    input escaped (``%ED%AA%AA``), which only the answer as given explains."""
    compared = _as_compared(case, actual)
    return (actual,) if compared is actual else (compared, actual)


def judge(check: str, case: Case, adapter: Impl, expected: Outcome,
          actual: Outcome, *, settings: RunSettings = DEFAULT_SETTINGS) -> tuple[str, ...] | None:
    """The differential check's verdict on two outcomes, without raising: ``()`` when
    they agree (the non-scalar policy included), the ids of the accepted entries that
    explain the difference, None when nothing does. ``pctfuzz matrix`` judges with it
    too, so a cell counts as a bug exactly when the check fails."""
    if locate.agree(check, case, expected, actual):
        return ()
    names = registry_names(adapter)
    extra = accepted_entries(adapter, settings)
    accepted = explain(check, names, case, expected, actual, extra=extra, settings=settings)
    if accepted is not None:
        return accepted
    # The non-scalar policy: a kept lone surrogate is compared as U+FFFD.
    compared = _as_compared(case, actual)
    if compared is not actual:
        return explain(check, names, case, expected, compared, extra=extra, settings=settings)
    # and where the reference refuses a lone surrogate that the implementation answers,
    # the answer is held to the USVString's (``locate.policy_reference``): the matrix judged
    # Mono's lowercase hex of U+FFFD a bug that the check, asked again, passed (lost)
    held = locate.policy_reference(check, case, actual, expected)
    return None if held is expected else judge(check, case, adapter, held, actual,
                                               settings=settings)


def _check(check: str, case: Case, impl: Impl | str | None,
           known: KnownFindings | None = None, *,
           known_only: bool = False, settings: RunSettings) -> tuple[str, ...] | None:
    """The differential check of ``case``: the ids of the accepted entries that explain
    its difference (``()`` when the answers agree), None when the implementation does
    not answer; ``Divergence`` otherwise, named by a known finding (the fast path), a
    catalogue rule or its class (``_Naming``). ``known_only``: raise only a known
    finding's hit."""
    adapter = resolve_impl(impl)
    actual = run_impl(check, case, adapter)
    if actual is None:
        return None
    surrogates = scalar_values(adapter)
    expected = reference_outcome(check, case, surrogates=surrogates)
    judged = judge(check, case, adapter, expected, actual, settings=settings)
    if judged is not None:
        return judged
    refused = expected
    expected = locate.policy_reference(check, case, actual, expected)
    if expected is not refused:
        judged = judge(check, case, adapter, expected, actual, settings=settings)
        if judged is not None:
            return judged
    _Naming(check, case, adapter, known, known_only, settings, refused, expected, actual,
            surrogates).name()
    return None


@dataclasses.dataclass
class _Naming:
    """What names one difference that no accepted entry explains, cheapest first: a
    known finding's exact answer (the fast path), the case as the implementation reads
    it, a known finding's class, a catalogue rule that holds on variants, and last the
    class of the difference. Each step either raises the case's ``Divergence`` (or
    ``Deferred``) or hands on to the next."""

    check: str
    case: Case
    adapter: Impl
    known: KnownFindings | None
    known_only: bool
    settings: RunSettings
    #: the reference's answer, and the one the implementation is held to
    refused: Outcome
    expected: Outcome
    actual: Outcome
    surrogates: Surrogates

    @property
    def runs(self) -> bool:
        """A decoder's or encoder's input: runs of units, whose parts are checked only
        before a new finding is named (a form's pairs: first)."""
        return isinstance(self.case, DecodeCase | EncodeCase)

    def diverge(self, klass: str, behaviour: dict[str, Any] | None) -> Divergence:
        return _divergence(self.check, self.case, self.adapter, self.refused, self.expected,
                           self.actual, klass, behaviour)

    def name(self) -> None:
        """Raise the case's ``Divergence``; return only when ``known_only`` and no known
        finding's hit is the case's."""
        self._known_hit()
        self._read_otherwise()
        if not self.runs:
            self._as_parts()
        unexplained = self.known is not None and bool(self.known.unexplained(self.check))
        klass = self._known_class() if unexplained else None
        if klass is None:
            plain = locate.as_unescaped(self.check, self.case, self.adapter, self.expected,
                                        self.actual, self.surrogates)
            if plain is not None:  # (its escapes of plain characters are no part of it)
                self._named_as(plain, self.known_only)
        if unexplained:
            klass = self._unexplained_class(klass)
        if self.known_only:
            return
        if self.runs and not unexplained:
            self._as_parts()
        rule = _explaining_rule(self.check, self.case, self.adapter, self.expected,
                                self.actual, self.surrogates, self.known,
                                settings=self.settings)
        if rule is not None:
            raise self.diverge(rule.klass(), rule.behaviour())
        if self.actual.raised and self.known is not None:  # (before the refusal's class)
            klass = _raised_after_known(self.check, self.case, self.adapter, self.known,
                                        settings=self.settings) or klass
        if klass is None:
            klass = locate.difference(self.check, self.case, self.adapter, self.expected,
                                      self.actual, self.surrogates, self.known,
                                      settings=self.settings)
        raise self.diverge(klass, None)

    def _known_hit(self) -> None:
        """The fast path: raise the hit of a finding already made (``checks.known``),
        or ``Deferred`` when naming had its share of the campaign."""
        known, check, actual = self.known, self.check, self.actual
        if known is None:
            return
        # Beside the accepted entries, else alone: an implementation that falls back to
        # another code path on some inputs (requote_uri quotes every '%' when an escape
        # is invalid) does there what the finding says, and nothing the entries say.
        names = registry_names(self.adapter)
        accepted = entries_for(check, names, accepted_entries(self.adapter, self.settings),
                               self.settings)
        for answer in _as_answered(self.case, actual):
            hit = known.explain(check, names, self.case, self.expected, answer, accepted)
            if hit is None and accepted:
                hit = known.explain(check, names, self.case, self.expected, answer, ())
            if hit is not None:
                raise self.diverge(hit.klass, hit.behaviour)
        if actual.error is not None:
            # A refusal by the statement that refused a known finding's input is its hit
            # (``checks.known``: one check of the characters, however many kinds of input).
            same = known.refused(check, actual.error)
            if same is not None:
                raise self.diverge(*same)
        if not known.may_name() and not (
                actual.error is not None and known.new_refusal(check, actual.error)):
            # naming had its share of the campaign: the input is counted, not named (but a
            # refusal by a statement no finding reached yet: ``KnownFindings.new_refusal``)
            raise Deferred(check)

    def _named_as(self, other: Case, only_known: bool) -> None:
        """Raise the divergence of the case named as ``other`` is, if it diverges."""
        try:
            _check(self.check, other, self.adapter, self.known, known_only=only_known,
                   settings=self.settings)
        except Divergence as exc:
            raise self.diverge(exc.difference, exc.behaviour) from None

    def _read_otherwise(self) -> None:
        """Named as the implementation reads the case, then as its USVString."""
        read = locate.as_read(self.check, self.case, self.adapter, self.actual, self.known,
                              settings=self.settings)
        if read is not None:
            # named and classed as the implementation reads it: what the transforms in
            # force take out (a known removed TAB) is no part of another behaviour's class
            self._named_as(read, self.known_only)
        if self.known is None or self.actual.raised or self.known_only:
            return
        scalar = _as_scalar_values(self.case)
        if scalar is not None:
            # A kept lone surrogate is held to U+FFFD (the non-scalar policy), but kept it
            # can still change what another behaviour does: a parser grouping pairs by
            # name sees '\ud800' and U+FFFD as two names, so no known finding predicts its
            # order, and each such input was named anew (7 findings of 9 on a grouping
            # parser). Judged as the USVString the standard's algorithms get (WebIDL), a
            # known finding's hit there is its hit. Anything else is named on the input
            # as given: a behaviour of the lone surrogate's own is never hidden behind a
            # new name for what the USVString shows.
            self._named_as(scalar, True)

    def _as_parts(self) -> None:
        """Each part alone: a combination of known findings is no new one."""
        known = self.known
        if known is not None and not self.known_only \
                and len(known) + len(known.unexplained(self.check)):
            _as_parts(self.check, self.case, self.adapter,
                      (self.refused, self.expected, self.actual), known,
                      settings=self.settings)

    def _known_class(self) -> str | None:
        """The class of a known finding that no rule names covering the case, the
        cheapest ways first: the class of the first unit where the answers part (no
        call), then located on the implementation by bisection alone (a campaign's
        inputs are long: a few calls, not one per unit of the first
        ``locate._LINEAR``)."""
        known = self.known
        assert known is not None
        klass = known.covering(self.check, locate.unlocated_class(
            self.check, self.case, self.expected, self.actual, self.surrogates))
        if klass is None and not self.actual.raised:
            klass = known.covering(self.check, locate.located(
                self.check, self.case, self.adapter, self.expected, self.actual,
                self.surrogates, known, quick=True, settings=self.settings)[1])
        return klass

    def _unexplained_class(self, klass: str | None) -> str | None:
        """With findings that no rule names known: raise the case as a hit of the class
        that covers it (located exactly, then widened: a finding of what comes before
        the unit, of a first unit there only to be lost, or of any escape), else
        return its new class (generalized), or None when only a known hit was asked."""
        known, check = self.known, self.check
        assert known is not None
        if klass is None:
            where, located, widens = locate.located(check, self.case, self.adapter,
                                                    self.expected, self.actual,
                                                    self.surrogates, known,
                                                    settings=self.settings)
            klass = known.covering(check, located)
            if klass is None and widens:
                for other in (as_victim(where, located), *as_lost_first(where, located),
                              as_any_escape(where, located)):
                    klass = klass or (None if other is None else known.covering(check, other))
            if klass is None and not self.known_only:  # (widening names a new finding)
                if self.runs:
                    self._as_parts()
                klass = locate.generalized(check, where, self.adapter, located,
                                           self.surrogates, known, settings=self.settings) \
                    if widens else located
        if klass in known.unexplained(check):
            actual, expected = self.actual, self.expected
            if not self.known_only and known.names_class_hit(check, klass, difference_context(
                    check, self.case,
                    expected.error if expected.error is not None else expected.value,
                    actual.error if actual.error is not None else actual.value)):
                # a sample of the class's hits, named: a behaviour a rule names may part
                # at a unit of the same class (``KnownFindings.names_class_hit``)
                rule = _explaining_rule(check, self.case, self.adapter, expected, actual,
                                        self.surrogates, known, settings=self.settings)
                if rule is not None:
                    raise self.diverge(rule.klass(), rule.behaviour())
            raise self.diverge(klass, None)
        return klass


def _as_parts(check: str, case: Case, adapter: Impl,
              outcomes: tuple[Outcome, Outcome, Outcome], known: KnownFindings, *,
              settings: RunSettings) -> None:
    """Raise the divergence of ``case`` as the hit of the known finding its first part
    that differs alone is, when the implementation's answer is its parts' answers put
    together (in a known pair order or not: ``checks.parts``) and every part that
    differs alone is a known finding's hit: the case is those findings together, where
    the whole, two behaviours no rule names (or two rules that do not compose), would
    be a class of its own. Else nothing:
    a part no known finding explains is named with the whole case, as before (named by
    the part, a serializer's harmless behaviour was three findings, two of them
    mixed). ``outcomes``: the reference's answer, the one the implementation is held
    to, and its own (``_divergence``)."""
    refused, expected, actual = outcomes
    pieces = parts(case)
    if pieces is None or actual.raised:
        return
    answers = [run_impl(check, piece, adapter) for piece in pieces]
    if any(answer is None for answer in answers):
        return
    together = joined(case, [a for a in answers if a is not None])
    if together is None:
        return
    if actual.value != together and actual.value not in _reordered(
            check, case, together, known.pair_orders(check)):
        return
    first: Divergence | None = None
    made = known.classes(check)
    for piece in pieces:
        # (named as any input is, widened: a known class is widened, ``non-ascii-Nd``;
        # a decoder's or an encoder's run only as a known finding's hit: a run of a new
        # behaviour is not named twice, as a run and whole)
        try:
            agreed = _check(check, piece, adapter, known, settings=settings,
                            known_only=isinstance(piece, DecodeCase | EncodeCase))
        except Divergence as exc:
            if exc.difference not in made:
                return  # (a part no known finding explains: the case is named whole)
            first = first or exc
        else:
            if agreed is None:  # (a run unanswered, or none of the known findings')
                return
    if first is not None:
        raise _divergence(check, case, adapter, refused, expected, actual,
                          first.difference, first.behaviour)


def _reordered(check: str, case: Case, answer: Any, orders: list[str]) -> list[Any]:
    """``answer`` in each of ``orders`` (a known finding's pair order: a parser grouping
    repeated names), where the model can reorder it."""
    found = []
    for order in orders:
        with contextlib.suppress(NotModelled):
            found.append(render(Model(order=order), check, case, answer))
    return found


#: How many cuts of a refused input ``_raised_after_known`` tries from its end (and
#: six times as many in all).
_AFTER_CUTS = 16
#: A known finding that loses the end of its input: what follows is no part of its
#: answer, so a refusal there is what the cut lets through (a known U+FFFD before an
#: invalid escape that raises is no such thing).
_CUT = re.compile(r"diff=missing-output|^rule=(?:cut_at|truncated)\(")


def _raised_after_known(check: str, case: Case, adapter: Impl, known: KnownFindings,
                        *, settings: RunSettings) -> str | None:
    """The class of a refusal that comes after a known finding's cut:
    ``raised=any;after(<its class>)``, when the input with its end from some point on
    written as one plain letter (or with one after it) is answered as a known finding
    that loses the end of its input says (``_CUT``; the longest such start), and the
    same with another letter there (the end is cut: no part of the answer). PyYAML
    closes a verbatim tag at ``> `` and parses the rest of the value as YAML: each
    error of its parser and scanner there was a crash finding of its own (19 in one
    campaign), one behaviour of what the cut lets through. One finding,
    apart from the known one: accepting a harmless cut never accepts what follows it."""
    texts = input_strs(case)
    if isinstance(case, FormCase) or len(texts) != 1 or not texts[0] \
            or not any(_CUT.search(klass) for klass in known.classes(check)):
        return None
    text = texts[0]
    plain = fresh_letter(text)
    if plain is None:
        return None

    def cut(end: int, start: str = text, letter: str = plain) -> Case:
        return with_texts(case, lambda t: _as_type(t, start[:end] + letter))

    other = fresh_letter(text + plain)
    if other is None:
        return None

    def ignores_end(start: str, end: int) -> bool:
        first = run_impl(check, cut(end, start), adapter)
        second = run_impl(check, cut(end, start, other), adapter)
        return (first is not None and second is not None and not first.raised
                and not second.raised and first.value == second.value)

    def refused_alone(start: str, end: int) -> bool:
        # What the cut ignores, from where it starts, alone is refused too: the
        # refusal needs no cut before it (a reader that refuses '[[' anywhere, beside
        # a known cut at '#' earlier in a long input not minimized yet, refuses for
        # the '[[', not for what the cut lets through).
        answer = run_impl(check, cut(end, start), adapter)
        while end > 0 and answer is not None:
            shorter = run_impl(check, cut(end - 1, start), adapter)
            if shorter is None or shorter.raised or shorter.value != answer.value:
                break
            end -= 1
        alone = run_impl(check, with_texts(case, lambda t: _as_type(t, text[end:])), adapter)
        return alone is not None and alone.raised

    def cut_class(end: int, start: str = text) -> str | None:
        try:
            _check(check, cut(end, start), adapter, known, known_only=True, settings=settings)
        except Divergence as exc:
            # (and the end is no part of the answer: a name that loses a unit, as a
            # nested name '[]' answered as '', is no cut of what follows it)
            if exc.impl_error is None and _CUT.search(exc.difference or "") \
                    and ignores_end(start, end) and not refused_alone(start, end):
                return f"{RAISED_AFTER}{exc.difference})"
        return None

    # (from the input with a letter after it, the refusal's own code path then given
    # an end, to its first unit; of a long input, not minimized yet, the last cuts and
    # the first and last after a character that is no letter or digit, where a cut ends)
    stops = [i + 1 for i, c in enumerate(text[:-1]) if not c.isalnum()]
    ends = sorted({*range(len(text), max(0, len(text) - _AFTER_CUTS), -1),
                   *stops[:2 * _AFTER_CUTS], *stops[-3 * _AFTER_CUTS:]}, reverse=True)
    for end in ends:
        klass = cut_class(end)
        if klass is not None:
            return klass
    # A start answered as another known finding first hides the cut (PyYAML reads
    # '!<!>' as its non-specific tag, so '!>\n' + a letter is that finding, not the
    # cut at '>\n'): the longest start whose end the implementation ignores, each of
    # its units written as the letter where it still does, then named as above (the
    # three longest such starts).
    tried = 0
    for end in (end for end in ends if end <= _AFTER_CUTS):
        if tried == 3:
            break
        if not ignores_end(text, end):
            continue
        tried += 1
        start = text
        for i in range(end):
            if start[i] != plain and ignores_end(start[:i] + plain + start[i + 1:], end):
                start = start[:i] + plain + start[i + 1:]
        klass = None if start == text else cut_class(end, start)
        if klass is not None:
            return klass
    return None


def _as_type(like: Any, text: str) -> Any:
    """``text`` as the type of ``like``: a bytes input stays bytes (``input_strs``
    reads them as Latin-1, one character a byte)."""
    return text.encode("latin-1") if isinstance(like, bytes) else text


def _divergence(check: str, case: Case, adapter: Impl, refused: Outcome, expected: Outcome,
                actual: Outcome, difference: str,
                behaviour: dict[str, Any] | None) -> Divergence:
    """The finding's exception: the reference's answer (``refused``, and ``expected``,
    the one the implementation is held to), the implementation's, and what names it."""
    name = impl_name(adapter)
    detail = ""
    if refused is not expected:
        detail = (f"reference {refused.describe()}; {name} returned {actual.value!r}, "
                  "held to the answer for each lone surrogate as U+FFFD")
    elif expected.raised and not actual.raised:
        detail = f"reference {expected.describe()}; {name} returned {actual.value!r}"
    elif expected.raised:
        detail = f"reference {expected.describe()}; {name} {actual.describe()}"
    return Divergence(
        check,
        case,
        impl=name,
        expected=expected.describe() if expected.raised else expected.value,
        actual=None if actual.raised else actual.value,
        impl_error=actual.error,
        position=None
        if expected.raised or actual.raised
        else functools.partial(locate.first_difference, expected.value, actual.value),
        detail=detail,
        difference=difference,
        behaviour=behaviour,
    )


def _in_force(check: str, adapter: Impl,
              known: KnownFindings | None, *, settings: RunSettings) -> list[KnownDivergence]:
    """What explains a difference before a new rule is sought: the accepted entries,
    then the findings already made, so a new behaviour beside a known one is named by
    its own rule."""
    accepted, own = locate.accepted_and_known(check, adapter, known, settings=settings)
    return [*accepted, *own]


def _explaining_rule(check: str, case: Case, adapter: Impl, expected: Outcome,
                     actual: Outcome, surrogates: Surrogates,
                     known: KnownFindings | None = None, *, settings: RunSettings) -> Rule | None:
    """The catalogue rule that, with the accepted entries and the findings already made,
    explains the difference (``pctfuzz._internal.accept.rules``), asking the
    implementation what the case alone cannot tell (its set, cut, order, requoting,
    characters); None if none does."""
    names = registry_names(adapter)

    def named(entries: list[KnownDivergence]) -> Rule | None:
        return next(filter(None, (find_rule(
            check, names, case, expected, answer, entries,
            probe=lambda: set_probe(check, case, adapter, surrogates),
            confirm=lambda n: cut_at(check, case, adapter, n),
            order=lambda: pair_order(check, adapter),
            requote=lambda: requote_mode(case, adapter),
            chars=lambda rule_name: own_chars(rule_name, check, case, adapter),
            parser_mode=lambda rule_name: own_parser_mode(rule_name, check, adapter),
            holds=lambda rule, beside: _holds_on_variants(check, case, adapter, rule,
                                                          surrogates, [*entries, *beside]),
            made=None if known is None else lambda rule: known.has_rule(check, rule))
            for answer in _as_answered(case, actual))), None)

    # Beside the accepted entries and the known findings first, so a new behaviour is
    # named by its own rule; then beside the accepted entries alone (a behaviour that
    # does not compose with a known one: a '~' written %7E by code that runs after the
    # known lowercasing); then beside the known findings alone (a fallback path does
    # none of what the accepted entries say; the known findings' ``explain`` tries the
    # same), or before any finding is made, alone.
    accepted, own = locate.accepted_and_known(check, adapter, known, settings=settings)
    rule, entries = None, accepted
    if not _raises_on_plain(check, case, adapter, actual):
        tries = [[*accepted, *own], accepted, own] if own and accepted else \
            [own, []] if own else [accepted, []] if accepted else [[]]
        for entries in tries:
            rule = named(entries)  # (a rule that holds on variants of the case)
            if rule is not None:
                break
    if rule is None and isinstance(case, EncodeCase) and case.value and not actual.raised:
        # (a refusal is of the whole input: a prefix's rule does not name it)
        found = _prefix_rule(case, adapter, surrogates, known, settings=settings)
        if found is not None and _holds_on_variants(check, found[0], adapter, found[1],
                                                    surrogates,
                                                    _in_force(check, adapter, known,
                                                              settings=settings)):
            rule = found[1]
    return rule


def _answered_after_letters(check: str, case: Case, adapter: Impl) -> bool:
    """A fixed answer (``answered``) stands for the input whatever follows it: the input
    with three letters after it is answered the same. Where the rule does not act it
    says nothing on a variant, so no other variant refutes it: a decoder dropping a
    '%' with the two characters after it answered ' ' for '+%' and for '+%+%'."""
    text = "".join(input_strs(case))
    letter = fresh_letter(text)
    if letter is None:
        return False
    variant = with_texts(case, lambda t: t + _as_type(t, letter * 3))
    got, first = run_impl(check, variant, adapter), run_impl(check, case, adapter)
    return got is not None and first is not None and not got.raised and not first.raised \
        and got.value == first.value


def _holds_on_variants(check: str, case: Case, adapter: Impl, rule: Rule,
                       surrogates: Surrogates, entries: list[KnownDivergence]) -> bool:
    """A name never claims more than was checked: ``rule``, beside ``entries`` (those it
    was named beside), predicts the implementation's answer on variants of the case too
    (``generalize.holds_on_variants``); ``refuses(kind)`` needs the input of its kind
    (``' %'`` refused for its space is no refusal of an invalid ``%``). A rule that
    explains the case only with others (``find_rule``'s combinations) is not asked."""
    names = registry_names(adapter)
    if not names:
        return True
    if rule.name == "refuses":
        params = dict(rule.params)
        kind, raised = str(params["input"]), params.get("raised")
        # (and what was raised is what a probe of its kind alone raises: pycurl's
        # ValueError for a NUL is no refusal of every C0 control, which libcurl refuses)
        if raised is not None and refusal_family(check, case, adapter, kind) != raised:
            return False
        variant = without_kind(case, kind)
        got = None if variant is None else run_impl(check, variant, adapter)
        return got is None or not got.raised
    if rule.name == "answered" and not _answered_after_letters(check, case, adapter):
        return False
    entry = as_entry(rule, check, names[0], case)

    def acts_on(variant: Case, beside: list[KnownDivergence] = entries) -> bool:
        """The rule, beside ``beside``, changes the reference's answer to ``variant``."""
        want = reference_outcome(check, variant, surrogates=surrogates)
        if want.raised:
            return False
        used, _, _ = reconcile_entries(check, names, variant, want, Outcome(want.value),
                                       [*beside, entry])
        return entry.id in used

    def excusing(variant: Case) -> Iterator[Case]:
        """The inputs whose refusal is the variant's: its shape where the rule does
        nothing, and the input the rule says the implementation reads."""
        shape = _shape_of(check, variant)
        if shape != variant and not acts_on(shape):
            yield shape
        read = variant if entry.model is None else read_input(entry.model, variant)
        if read != variant:
            yield read

    def explained(variant: Case) -> bool | None:
        got = run_impl(check, variant, adapter)
        if got is None:
            return None
        want = locate.policy_reference(check, variant, got,
                                       reference_outcome(check, variant, surrogates=surrogates))
        # Only a variant the rule changes the answer of can refute it: another
        # difference of the implementation there ('!' encoded beside a '~' encoded)
        # says nothing of this rule.
        # (An implementation that raises where the rule changes the answer refutes it,
        # unless it refuses the variant's shape, on which the rule does nothing, or the
        # input the rule says it reads: a parser refusing a name alone refuted every
        # rule of its characters so, and its cut at '#' where the cut left a name.)
        if got.raised and any(refused.raised for other in excusing(variant)
                              if (refused := run_impl(check, other, adapter)) is not None):
            return None
        answer = Outcome(want.value) if got.raised and not want.raised else got
        verdicts = []
        for given in _as_answered(variant, answer):
            used, fixed_want, fixed_got = reconcile_entries(
                check, names, variant, want, given, [*entries, entry])
            if entry.id in used:
                verdicts.append(not got.raised and fixed_want.same(fixed_got))
        return None if not verdicts else any(verdicts)

    if check == FORM_PARSE.name and entries and rule.name != "trimmed" \
            and "part" in OPTIONAL_PARAMS.get(rule.name, ()) and "part" not in dict(rule.params):
        # A rule of names and values acts in each beside what is in force, or its
        # own part names it: a '+' kept in values beside names decoded twice as a
        # form (the second decoding makes their kept '+' a space) was "keeps + as +".
        # (trimmed without a part is of the whole text, not of both fields.)
        for part in ("names", "values"):
            alone = with_texts(case, functools.partial(one_field, part=part))
            if acts_on(alone, []) and not acts_on(alone):
                return False
    params = dict(rule.params)
    claimed, scope = params.get("chars"), params.get("part")
    return not explained(case) or holds_on_variants(
        case, explained, claimed if isinstance(claimed, str) else "",
        check != FORM_PARSE.name or separator(adapter) is not None,
        scope if isinstance(scope, str) else None)


#: What a case keeps of its shape (``_shape_of``): ASCII letters and
#: digits, and a form's separators; every other character is written ``x``.
_NOT_SHAPE = {FORM_PARSE.name: re.compile("[^0-9A-Za-z=&]")}
_NOT_LETTER = re.compile("[^0-9A-Za-z]")


def _shape_of(check: str, case: Case) -> Case:
    """``case`` with its characters other than ASCII letters and digits (and a form's
    ``=`` and ``&``) written ``x``: its shape ('xx\\t' is 'xxx'). A refusal of a variant
    that its shape shares is the shape's (``_holds_on_variants``)."""
    pattern = _NOT_SHAPE.get(check, _NOT_LETTER)

    def plain(text: Any) -> Any:
        if isinstance(text, bytes):
            return pattern.sub("x", text.decode("latin-1")).encode("latin-1")
        return pattern.sub("x", text)

    return with_texts(case, plain)


def rule_for(check: str, case: Case, adapter: Impl,
             *, settings: RunSettings = DEFAULT_SETTINGS) -> Rule | None:
    """The catalogue rule that explains how ``adapter`` answers ``case`` differently
    from the reference; None when they agree or no rule does. The invariant targets
    name a fault codec's violations with it (``oracles.codec.as_adapter``)."""
    actual = run_impl(check, case, adapter)
    if actual is None:
        return None
    surrogates = scalar_values(adapter)
    expected = reference_outcome(check, case, surrogates=surrogates)
    if locate.agree(check, case, expected, actual):
        return None
    return _explaining_rule(check, case, adapter, expected, actual, surrogates, settings=settings)


#: question -> a plain case of its type (a letter, one pair), asked with the case's own
#: set and encoding.
_PLAIN: dict[str, dict[str, Any]] = {ENCODE.name: {"value": "a"}, DECODE.name: {"value": "a"},
          FORM_SERIALIZE.name: {"pairs": (("a", "b"),)}, FORM_PARSE.name: {"text": "a=b"}}


def _raises_on_plain(check: str, case: Case, adapter: Impl, actual: Outcome) -> bool:
    """The implementation raised for ``case`` and raises for a plain case of its type
    too: it fails whatever the input, so no refusal rule (``refuses``: raises for an
    input *with* a lone surrogate, invalid UTF-8 or an invalid ``%``) may name it; its
    finding is its exception type, one finding for every input."""
    if not actual.raised:
        return False
    try:
        plain = run_impl(check, dataclasses.replace(case, **_PLAIN[check]), adapter)
    except Exception:
        return True
    return plain is not None and plain.raised


def _as_scalar_values(case: Case) -> Case | None:
    """``case`` with each lone surrogate of its str input as U+FFFD: the input the URL
    Standard's algorithms get (WebIDL USVString); None when it holds none, or in a
    legacy encoding, where Python's codec writes a lone surrogate as an NCR of its own
    (``python_codec`` names that, as ``locate.policy_reference`` says)."""
    label = getattr(case, "encoding", None)
    if not input_has(case, "lone-surrogate") or (
            isinstance(label, str) and not lookup(label).is_utf8):
        return None
    if isinstance(case, EncodeCase | DecodeCase) and isinstance(case.value, str):
        return dataclasses.replace(case, value=surrogates_to_fffd(case.value))
    if isinstance(case, FormCase):
        return dataclasses.replace(case, pairs=tuple(
            (surrogates_to_fffd(name), surrogates_to_fffd(value))
            for name, value in case.pairs))
    if isinstance(case, FormParseCase) and isinstance(case.text, str):
        return dataclasses.replace(case, text=surrogates_to_fffd(case.text))
    return None


def _prefix_rule(case: EncodeCase, adapter: Impl, surrogates: Surrogates,
                 known: KnownFindings | None = None,
                 *, settings: RunSettings) -> tuple[EncodeCase, Rule] | None:
    """The rule that explains the shortest prefix of the input showing a difference
    (with that prefix):
    a case of several behaviours that no combination of rules explains is named by the
    first one its input shows."""
    found = locate.shortest_prefix(case, adapter, surrogates, known, settings=settings)
    if found is None or found[0] == case:
        return None
    sub = found[0]
    got = run_impl(ENCODE.name, sub, adapter)
    if got is None:
        return None
    want = reference_outcome(ENCODE.name, sub, surrogates=surrogates)
    rule = find_rule(ENCODE.name, registry_names(adapter), sub, want, _as_compared(sub, got),
                     _in_force(ENCODE.name, adapter, known, settings=settings),
                     probe=lambda: set_probe(ENCODE.name, sub, adapter, surrogates),
                     confirm=lambda n: cut_at(ENCODE.name, sub, adapter, n),
                     chars=lambda rule_name: own_chars(rule_name, ENCODE.name, sub, adapter))
    return None if rule is None else (sub, rule)


def check_encode(case: EncodeCase, impl: Impl | str | None = None,
                 known: KnownFindings | None = None,
                 *, settings: RunSettings = DEFAULT_SETTINGS) -> tuple[str, ...] | None:
    """Percent-encoding: ``impl.encode(case)`` against ``percent_encode``."""
    return _check(ENCODE.name, case, impl, known, settings=settings)


def check_decode(case: DecodeCase, impl: Impl | str | None = None,
                 known: KnownFindings | None = None,
                 *, settings: RunSettings = DEFAULT_SETTINGS) -> tuple[str, ...] | None:
    """Percent-decoding: ``impl.decode(case)`` against ``percent_decode``."""
    return _check(DECODE.name, case, impl, known, settings=settings)


def check_form(case: FormCase, impl: Impl | str | None = None,
               known: KnownFindings | None = None,
               *, settings: RunSettings = DEFAULT_SETTINGS) -> tuple[str, ...] | None:
    """Form serialization: ``impl.form_serialize(case)`` against ``form_urlencode``."""
    return _check(FORM_SERIALIZE.name, case, impl, known, settings=settings)


def check_form_parse(case: FormParseCase, impl: Impl | str | None = None,
                     known: KnownFindings | None = None,
                     *, settings: RunSettings = DEFAULT_SETTINGS) -> tuple[str, ...] | None:
    """Form parsing: ``impl.form_parse(case)`` against ``form_urldecode``."""
    return _check(FORM_PARSE.name, case, impl, known, settings=settings)
