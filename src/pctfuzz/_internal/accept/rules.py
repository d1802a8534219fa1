"""Identity by explanation: the simplest rule of the catalogue that explains a divergence.

When no accepted entry explains a difference, ``find_rule`` looks for ONE ready-made
reconciler (``RECONCILERS``: the catalogue), with parameters read off the case, that
together with the accepted entries turns the reference's answer into the
implementation's on this case; failing one, two or three of them (the finding is then
named by the simplest). The finding's class is that rule (``Rule.klass``, e.g.
``rule=truncated(n=100)``), so every divergence it explains is a hit of one finding,
and its ``behaviour`` is what ``pctfuzz accept`` writes as a ``[[divergence]]`` entry.

Parameters are chosen so that one behaviour gives one class whatever the input:
``truncated`` takes the length of the implementation's answer (the cut-off; ``confirm``
checks that a longer input is cut there too, so a bug that drops the last character
is not a truncation), and the
characters of ``left_raw``/``encoded`` come from ``probe``, which asks the
implementation about every printable ASCII character in the case's context (set,
encoding), so an input with ``~`` and one with ``~~`` name the same rule. Characters
left raw and characters encoded are two rules (two findings, two accept entries), as
they are two reconcilers. The characters of ``removed``, ``trimmed`` and ``cut_at``
are the implementation's own (``chars``: asked on short inputs once per context), so a
case several of them explain (LF alone: ``\t\n\r`` and ``\n``) is named as every
other case of that behaviour; ``cut_at`` comes before ``truncated``, which would name
each position of a ``#`` apart. The same holds for a decoder's own ways
(``kept_encoded``'s characters, its ``replacement`` mode, ``latin1_bytes``), a form
serializer's characters in one ``part`` (names or values), a parser's ``grouped-bytes``
order, and the kinds of input ``refuses`` names: a crash is a refusal only of input
the implementation refuses when asked it alone. Catalogue order is simplicity:
refusals, the set, text rewrites, structure, rewrites of the answer, transforms of
the input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import combinations
from typing import Any

from pctfuzz._internal.accept.candidates import candidates
from pctfuzz._internal.accept.entry import REWRITE, KnownDivergence, explain
from pctfuzz._internal.accept.reconcilers import Reconciler
from pctfuzz._internal.accept.rule import Chars, Confirm, Order, ParserMode, Probe, Rule
from pctfuzz._internal.cases import Case
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.spec import PERCENT_ENCODED_BYTE

__all__ = ["as_entry", "find_rule"]


def as_entry(rule: Rule, check: str, impl: str, case: Case) -> KnownDivergence:
    """``rule`` as an entry of ``impl`` for ``check`` that applies to every case (``case``
    is its example): how a candidate, or a finding already made, explains a case
    beside the accepted entries."""
    reconciler = rule.reconciler
    return KnownDivergence(
        id=f"rule:{rule.klass()}", impl=impl, check=check, summary=rule.text,
        applies=lambda _case: True, reconcile=reconciler.reconcile,
        reference=reconciler.reference, implementation=reconciler.implementation,
        citation="-", why="-", example=case, phase=reconciler.phase, model=reconciler.model,
    )


def _rewrite_all(rule: Rule) -> Rule | None:
    """The rule as a rewrite of the *whole* answer, for naming only: ``lowercase_hex``
    lowercases every ``%HH`` and ``space_as`` rewrites every ``%20`` or ``+``, also
    those the input held literally (where the exact model does not apply: a ``%`` the
    set leaves raw). An implementation that rewrites its output so is one behaviour
    whatever the input held."""
    if rule.name == "lowercase_hex":
        def rewrite(text: str) -> str:
            return PERCENT_ENCODED_BYTE.sub(lambda m: m.group().lower(), text)
    elif rule.name == "space_as":
        space = dict(rule.params)["space"]
        other = "+" if space == "%20" else "%20"

        def rewrite(text: str) -> str:
            return text.replace(other, space)
    else:
        return None

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> Any:
        if expected.raised or not isinstance(expected.value, str):
            return None
        return Outcome(rewrite(expected.value)), actual

    whole = Reconciler(rule.name, rule.reconciler.checks, reconcile,
                       rule.reconciler.reference, rule.reconciler.implementation, REWRITE)
    return Rule(rule.name, rule.params, whole)


#: At most this many candidates are combined, two or three at a time (the combinations
#: grow as its cube)...
_MAX_COMBINED = 8
#: ...and, whatever their rank, these: their characters or length are the
#: implementation's own answer (asked or confirmed), or the input changes under them
#: (a normalization), so they are few and never a guess, though they are yielded last
#: (a user's ``value.strip()`` before an encoder that keeps escapes was a
#: first-difference finding per mix of the two).
_ALWAYS_COMBINED = ("removed", "trimmed", "cut_at", "truncated", "normalized", "dot_segments")
#: Rules two of which (other characters) may combine; two modes of any other rule are
#: alternatives.
_SETS = ("left_raw", "encoded", "decoded_before_split", "written_as", "requoted")
#: Text added before or after the answer, read off the case alone: it explains any
#: answer that ends (or starts) longer, so it names a case alone only when no other
#: rule, nor two or three of them together, does (yarl's requoting and its bare '%'
#: as %25 made '%00%' -> '%00%25' read as "adds '25' after the answer").
_LAST_RESORT = ("prefixed", "suffixed", "answered")


def find_rule(check: str, impl_names: Sequence[str], case: Case, expected: Outcome,
              actual: Outcome, entries: Sequence[KnownDivergence],
              probe: Probe | None = None, confirm: Confirm | None = None,
              order: Order | None = None, requote: Order | None = None,
              chars: Chars | None = None,
              parser_mode: ParserMode | None = None,
              holds: Callable[[Rule, list[KnownDivergence]], bool] | None = None,
              made: Callable[[Rule], bool] | None = None
              ) -> Rule | None:
    """The simplest rule that, with ``entries`` (the accepted ones), explains the
    difference on ``case`` (module docstring); None when none does. ``holds``: the
    rule must also hold where it is checked (``checks.generalize``), else the next
    is tried: a parser trimming values only explains ``a=b `` as one trimming every
    name and value does, which the case with names and values swapped refutes.
    ``made``: the rule names a finding already made (a combination is named by its
    simplest rule that does not)."""
    if not impl_names:
        return None
    impl = impl_names[0]
    found: list[Rule] = []

    def alone(rule: Rule) -> bool:
        entry = as_entry(rule, check, impl, case)
        used = explain(check, impl_names, case, expected, actual, [*entries, entry])
        return used is not None and entry.id in used

    def held(rule: Rule, beside: list[KnownDivergence] | None = None) -> bool:
        """``rule`` holds on variants, beside the others of its combination."""
        return holds is None or holds(rule, beside or [])

    for rule in candidates(check, case, expected, actual, probe, confirm, order, requote,
                            chars, parser_mode):
        if rule is None or check not in rule.reconciler.checks or rule in found:
            continue
        found.append(rule)
        if rule.name not in _LAST_RESORT and alone(rule) and held(rule):
            return rule
    # Then the rewrites of the whole output, alone and with the others: each named by
    # the rule it is a form of (the simplest of a combination names it).
    wholes = [(rule, _rewrite_all(rule)) for rule in found]
    for rule, whole in wholes:
        if whole is not None:
            entry = as_entry(whole, check, impl, case)
            used = explain(check, impl_names, case, expected, actual, [*entries, entry])
            if used is not None and entry.id in used and held(rule):
                return rule
    pool = [(rank, rule, rule) for rank, rule in enumerate(found)
            if rank < _MAX_COMBINED or rule.name in _ALWAYS_COMBINED]
    pool += [(found.index(rule), rule, whole) for rule, whole in wholes if whole is not None]
    for size in (2, 3):
        for combined in combinations(pool, size):
            if len({rank for rank, _, _ in combined}) < size:
                continue  # a rule and its own whole-output form
            names = [rule.name for _, rule, _ in combined if rule.name not in _SETS]
            if len(set(names)) < len(names):
                continue  # two modes of one rule: alternatives (space as '+', then %20)
            added = [as_entry(used_rule, check, impl, case) for _, _, used_rule in combined]
            ids = [f"{entry.id}#{index}" for index, entry in enumerate(added)]
            added = [replace(entry, id=ident) for entry, ident in zip(added, ids, strict=True)]
            used = explain(check, impl_names, case, expected, actual, [*entries, *added])
            if used is None or not all(ident in used for ident in ids):
                continue
            # every rule of it needed: a model counts each of its entries as used, so a
            # rule that changes nothing here (lowercase_hex beside a '%' left raw, where
            # no escape is written) must not name what the other one does
            if any(explain(check, impl_names, case, expected, actual,
                           [*entries, *added[:i], *added[i + 1:]]) is not None
                   for i in range(size)):
                continue
            # (checked beside the others: alone it explains nothing, and so was never
            # refuted; '= ' with a space written %20 named left_raw('=') everywhere)
            # (named by its simplest rule that is no finding yet: a known one names
            # what the known findings already say, and the input's new behaviour, a
            # '%' raw beside a known '!', would count as its hit)
            first = min(range(size), key=lambda i: (made is not None and made(combined[i][1]),
                                                    combined[i][0]))
            simplest = combined[first][1]
            if held(simplest, [*added[:first], *added[first + 1:]]):
                return simplest
    return next((rule for rule in found if rule.name in _LAST_RESORT and alone(rule)
                 and held(rule)), None)
