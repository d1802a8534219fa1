"""The findings already made: the fast path of the differential check.

A diverging input first meets the behaviours found so far (this process's findings,
and its store's findings that are not fixed): each one's *exact* prediction of the
implementation's answer, its catalogue rule beside the accepted entries
(``accept.entry.predicts``, else ``explain``), most hit first, then all of them
together (``checks.differential`` asks once more without the accepted entries: a
fallback code path does none of what they say). Only an input
that none of them explains is named (``accept.rules.find_rule``, which asks the
implementation about its set, cuts, modes...) and minimized. A prediction costs one
render of a model; naming costs tens to hundreds of calls. Without this, a behaviour
that shows on most inputs (an encoder writing lowercase hex) made every later input
pay for naming, and campaigns ran at a few percent of their speed after the first
finding (``benchmarks/bench_known.py`` measures it).

The known findings also take part in naming: a new input is named by the simplest rule
that explains it *beside* them (``entries``), so a raw ``+`` that comes with an already
known raw ``~`` is a finding of its own, never a hit of the ``~`` one.

A refusal is also known by the statement that raised it (``identity.refusal_site``):
an input the implementation refuses where a known finding's input was refused is that
finding's hit, however the two inputs differ. oauthlib's ``urldecode`` refuses a control
character, a space and a non-ASCII character in one ``raise``: three findings under
three names (``refuses(input=control-char)``, its class, ``refuses(input=non-ascii)``)
for one check of the characters.

Only findings named by a rule are predicted: a difference no rule explains has no
exact prediction. Its class is worked out (``identity``: tens of calls), and an input
whose class is that of a known finding no rule names is its hit without being named
again (``unexplained``: naming tries every catalogue rule, hundreds of calls; a form
serializer keeping one pair per name ran at 40 checks a second), but for its 2nd,
4th, 8th... hit and its first hit in each new context (``names_class_hit``), which the
catalogue is asked to name: another behaviour can part from the reference at a unit of
the same class, and a rule names it there.

Naming takes a bounded share of a campaign (``NamingBudget``): where the atheris driver
gives one, an input none of the known findings explains is named only while naming has
taken at most half the process's time so far; past it, the input is deferred
(``errors.Deferred``: counted, not named), but for a refusal by a statement no known
finding's input reached, named once (``new_refusal``). An input that is a hit of a
known finding no rule names still costs a few calls to locate its class: a parser
whose every input ran into such a finding ran at 1,600 exec/s, two thirds of it
locating.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pctfuzz._internal.accept.entry import KnownDivergence, merge, predicts
from pctfuzz._internal.accept.entry import explain as _explain
from pctfuzz._internal.accept.model import Model
from pctfuzz._internal.accept.rule import Rule, rule_from
from pctfuzz._internal.accept.rules import as_entry
from pctfuzz._internal.cases import Case
from pctfuzz._internal.errors import NotModelled, PctfuzzError
from pctfuzz._internal.identity.signatures import refusal_site
from pctfuzz._internal.identity.units import covers
from pctfuzz._internal.outcome import Outcome

__all__ = ["Known", "KnownFindings", "NamingBudget"]


class NamingBudget:
    """The share of a campaign's time that naming may take (module docstring).

    Naming is what a diverging input costs once no known finding explains it: its class
    located, a rule sought, the case minimized and recorded. ``one_input`` wraps each
    input of the driver; ``may_name`` is asked where naming would begin, once per input,
    and says no while the time spent naming exceeds ``share`` of the time since the
    budget began. So a campaign on an implementation whose every input needs naming
    still runs at least ``1 - share`` of its time on fresh inputs, and the inputs it
    names are a fair sample of those it meets (a new behaviour that shows on a tenth of
    them is still met). ``clock`` is a parameter for the tests."""

    #: Half: a campaign whose every input is named runs at least half as fast as one
    #: that names nothing (``benchmarks/bench_known.py``'s goal, 0.5x).
    SHARE = 0.5

    def __init__(self, share: float = SHARE,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.share = share
        self._clock = clock
        self._began = clock()
        self.spent = 0.0  #: seconds spent naming so far
        self.deferred = 0  #: inputs left unnamed
        self._asked = True  # outside an input, or asked already: naming goes on
        self._naming_since: float | None = None

    @contextlib.contextmanager
    def one_input(self) -> Iterator[None]:
        """One input of the driver: the naming it starts (``may_name``), and the
        minimizing and recording after it, are charged to the budget."""
        self._asked, self._naming_since = False, None
        try:
            yield
        finally:
            self._asked = True
            if self._naming_since is not None:
                self.spent += self._clock() - self._naming_since

    def may_name(self) -> bool:
        """Whether the input in hand may be named: asked once per input, where naming
        would begin; every other call (the minimizer's checks, a check outside a
        driver's input) names."""
        if self._asked:
            return True
        self._asked = True
        now = self._clock()
        if self.spent > self.share * (now - self._began):
            self.deferred += 1
            return False
        self._naming_since = now
        return True


#: The contexts (``identity.difference_context``) in which a known class's first hit is
#: named, per class: a bound on the namings a class's hits cost beyond powers of two.
NEW_CONTEXTS = 16


@dataclass
class Known:
    """One finding already made, named by a rule: what it predicts, and how often it has
    explained an input in this process (the order they are tried in)."""

    check: str
    rule: Rule
    example: Case
    hits: int = 0
    _entries: dict[str, KnownDivergence] = field(default_factory=dict, repr=False)

    @functools.cached_property
    def klass(self) -> str:
        return self.rule.klass()

    @property
    def behaviour(self) -> dict[str, Any]:
        return self.rule.behaviour()

    def entry(self, impl: str) -> KnownDivergence:
        """The rule as an entry of ``impl`` (made once per name)."""
        made = self._entries.get(impl)
        if made is None:
            made = self._entries[impl] = as_entry(self.rule, self.check, impl, self.example)
        return made


@dataclass
class _Prediction:
    """Known findings tried together on a case: one alone, or every one known when an
    input first needed them together; a hit of it counts for ``credited``."""

    findings: tuple[Known, ...]
    credited: Known
    hits: int = 0


class KnownFindings:
    """The behaviours a bound differential target has met (module docstring). One per
    bound target: the atheris driver's recorder adds each finding it makes."""

    def __init__(self) -> None:
        self._known: dict[str, list[Known]] = {}
        #: per check, what is tried on a diverging case, most hit first: one render each
        self._tries: dict[str, list[_Prediction]] = {}
        #: merged models of the entries that applied, by their ids (``predicts``)
        self._models: dict[tuple[str, ...], Model] = {}
        #: per check, the classes of the findings no rule names (``unexplained``)
        self._classes: dict[str, set[str]] = {}
        #: (check, class) -> the hits of that class so far, and the contexts its hits
        #: were named in (``names_class_hit``)
        self._class_hits: dict[tuple[str, str], int] = {}
        self._class_contexts: dict[tuple[str, str], set[str]] = {}
        #: per check, the refusal sites named past the naming budget (``new_refusal``)
        self._sites_named: dict[str, set[str]] = {}
        #: per check, refusal site -> the class and behaviour of its finding (``refused``)
        self._sites: dict[str, dict[str, tuple[str, dict[str, Any] | None]]] = {}
        #: the modules whose frames locate a refusal (the bound adapter's code)
        self.code_under_test: tuple[str, ...] = ()
        #: the driver's share of naming (``NamingBudget``); None: every input is named
        self.budget: NamingBudget | None = None
        #: every hit of a class is named while above 0 (``naming_every_hit``)
        self._every_hit = 0

    def __len__(self) -> int:
        return sum(map(len, self._known.values()))

    def may_name(self) -> bool:
        """Whether an input none of the known findings explains may be named
        (``NamingBudget.may_name``; always, without a budget)."""
        return self.budget is None or self.budget.may_name()

    def add(self, check: str, behaviour: dict[str, Any] | None, example: Case) -> bool:
        """Know the finding whose ``behaviour`` (a record's field: ``{"rule", "params"}``)
        was seen on ``example``; False when it has none or the catalogue cannot build
        its rule (a record of another version), which is then named as before."""
        if not behaviour:
            return False
        try:
            rule = rule_from(str(behaviour["rule"]), dict(behaviour["params"]))
        except (KeyError, TypeError, ValueError, PctfuzzError):
            return False
        known = self._known.setdefault(check, [])
        if any(k.rule == rule for k in known):
            return True
        made = Known(check, rule, example)
        known.append(made)
        self._tries.setdefault(check, []).append(_Prediction((made,), made))
        return True

    def forget(self, check: str, behaviour: dict[str, Any] | None) -> bool:
        """No longer know the finding of ``check`` named ``behaviour`` (nor any
        prediction it takes part in); False when none is."""
        try:
            rule = rule_from(str(behaviour["rule"]), dict(behaviour["params"])) \
                if behaviour else None
        except (KeyError, TypeError, ValueError, PctfuzzError):
            return False
        gone = [k for k in self._known.get(check, ()) if k.rule == rule]
        if not gone:
            return False
        self._known[check] = [k for k in self._known[check] if k not in gone]
        self._tries[check] = [t for t in self._tries.get(check, ())
                              if not any(k in gone for k in t.findings)]
        return True

    def has_rule(self, check: str, rule: Rule) -> bool:
        """A finding of ``check`` already made is named ``rule``."""
        return any(k.rule == rule for k in self._known.get(check, ()))

    def pair_orders(self, check: str) -> list[str]:
        """The pair orders the known findings of ``check`` name (``pairs_order``)."""
        return [k.rule.reconciler.model.order for k in self._known.get(check, ())
                if k.rule.reconciler.model is not None and k.rule.reconciler.model.order]

    def add_unexplained(self, check: str, klass: str) -> None:
        """Know the finding of ``check`` that no rule names, by its class (``identity``)."""
        self._classes.setdefault(check, set()).add(klass)

    def unexplained(self, check: str) -> set[str]:
        """The classes of the known findings of ``check`` that no rule names: an input
        of one of them is its hit without naming (no rule named its first input, and the
        class is the generalized behaviour: ``checks.locate``)."""
        return self._classes.get(check, set())

    def classes(self, check: str) -> set[str]:
        """The classes of every finding of ``check``: a rule's (``rule=...``) and those
        no rule names."""
        return {known.klass for known in self._known.get(check, [])} | self.unexplained(check)

    def covering(self, check: str, klass: str) -> str | None:
        """The class of a known finding of ``check`` that no rule names and that names
        ``klass``, an input's class before it is widened (``generalize.covers``: the
        finding's ``unit=upper`` names an input's ``unit=0x42``); None when none does."""
        classes = self.unexplained(check)
        if klass in classes:
            return klass
        return next((known for known in sorted(classes) if covers(known, klass)), None)

    def names_class_hit(self, check: str, klass: str, context: str | None = None) -> bool:
        """Whether this hit of the known finding no rule names, ``klass``, is named by
        the catalogue anyway: its 2nd, 4th, 8th... hit, and its first hit in each
        ``context`` (``identity.difference_context``: what surrounds the unit where the
        answers part), up to ``NEW_CONTEXTS`` of them. A class is what the unit where
        two answers part looks like, and a behaviour a rule names can part there alike
        (a harmless invalid escape written '?' and a real bug's '%+1' read as the byte
        01 are both ``seg=pct-invalid;diff=changed``): without this, the bug's every
        input was a hit of the harmless finding, and with powers of two alone, one whose
        inputs are rare among the class's hits went unnamed (hold-out 11's signed
        escapes, in a tuning run). Powers of two and a bounded number of
        contexts cost a few namings per class, so hits stay cheap (``test_known``)."""
        if self._every_hit:
            return True
        key = (check, klass)
        hits = self._class_hits.get(key, 0) + 1
        self._class_hits[key] = hits
        seen = self._class_contexts.setdefault(key, set())
        if context is not None and context not in seen and len(seen) < NEW_CONTEXTS:
            seen.add(context)
            return True
        return hits > 1 and hits & (hits - 1) == 0

    @contextlib.contextmanager
    def naming_every_hit(self) -> Iterator[None]:
        """Every hit of a class is named by the catalogue while in it: the recorder
        minimizing what a rule named on a sampled hit (``names_class_hit``). Its smaller
        inputs, and the check of the minimal one, were hits of the class again, not
        samples, so the finding was stored under the class and the rule's never made:
        a real bug whose inputs a broad class of a harmless behaviour covers had no
        finding of its own when the campaign met the class first (a blind diagnosis of
        hold-out 19)."""
        self._every_hit += 1
        try:
            yield
        finally:
            self._every_hit -= 1

    def forget_unexplained(self, check: str, klass: str) -> None:
        """No longer know the finding of ``check`` by ``klass``: its input is named anew."""
        self._classes.get(check, set()).discard(klass)

    def add_refusal(self, check: str, error: BaseException, klass: str,
                    behaviour: dict[str, Any] | None) -> None:
        """Know the finding of ``check`` (its class and behaviour) whose input the
        implementation refused with ``error``, by the statement that raised it; an error
        that no frame locates (a peer's, pctfuzz's own) is not known so."""
        site = refusal_site(error, self.code_under_test)
        if site is not None:
            self.add_refusal_site(check, site, klass, behaviour)

    def add_refusal_site(self, check: str, site: str, klass: str,
                         behaviour: dict[str, Any] | None) -> None:
        """Know the finding of ``check`` whose input was refused by the statement at
        ``site`` (``identity.refusal_site``: ``<type>@<where>``)."""
        self._sites.setdefault(check, {}).setdefault(site, (klass, behaviour))

    def forget_refusal_site(self, check: str, site: str) -> None:
        """No longer know a finding by the statement at ``site``: its input is named anew."""
        self._sites.get(check, {}).pop(site, None)

    def refused(self, check: str, error: BaseException) -> tuple[str, dict[str, Any] | None] | None:
        """The class and behaviour of the known finding whose input was refused by the
        statement that raised ``error``; None when none was (no call of the
        implementation: the traceback is read)."""
        sites = self._sites.get(check)
        if not sites:
            return None
        site = refusal_site(error, self.code_under_test)
        return None if site is None else sites.get(site)

    def new_refusal(self, check: str, error: BaseException) -> bool:
        """Whether ``error`` was raised by a statement outside pctfuzz (of the code under
        test, where one is) that no known finding's input reached, met for the first
        time (``identity.refusal_site``): such an input is named
        even when naming has had its share (``NamingBudget``), since a program has few
        such statements and each may be a crash of its own (hold-out 11: a real bug's
        crash had no finding in a run that left 252 diverging inputs unnamed)."""
        site = refusal_site(error, self.code_under_test)
        named = self._sites_named.setdefault(check, set())
        if site is None or site in self._sites.get(check, {}) or site in named:
            return False
        named.add(site)
        return True

    def entries(self, check: str, impl: str) -> list[KnownDivergence]:
        """The known findings of ``check`` as entries of ``impl``, for naming beside them."""
        return [k.entry(impl) for k in self._known.get(check, ())]

    def entry_groups(self, check: str, impl: str) -> list[list[KnownDivergence]]:
        """``entries`` whole when their models merge into one, else the groups of them
        that do (``_groups``): what can be in force together while a difference is
        located."""
        known = sorted(self._known.get(check, ()), key=lambda k: -k.hits)
        return [[k.entry(impl) for k in group] for group in self._groups(known, impl)]

    def explain(self, check: str, impl_names: Sequence[str], case: Case, expected: Outcome,
                actual: Outcome, accepted: Sequence[KnownDivergence]) -> Known | None:
        """The known finding whose rule, beside the ``accepted`` entries, gives exactly the
        implementation's answer; failing one alone, the most hit of those it needs
        together. None when they do not. What hit most is tried first, so a campaign
        pays about one render per input its known findings explain."""
        tries = self._tries.get(check)
        if not tries or not impl_names:
            return None
        impl = impl_names[0]
        hit = next((each for each in tries if self._exact(
            check, impl_names, case, expected, actual,
            [*accepted, *(k.entry(impl) for k in each.findings)], each.findings[-1].entry(impl))),
            None)
        if hit is None and accepted:
            # A fallback path does none of what the accepted entries say (requests'
            # requote_uri quotes the whole input when one escape is invalid): its
            # finding was named alone (differential._explaining_rule), and predicts so.
            hit = next((each for each in tries if self._exact(
                check, impl_names, case, expected, actual,
                [k.entry(impl) for k in each.findings], each.findings[-1].entry(impl))),
                None)
        if hit is None and len(self._known[check]) > 1:
            hit = self._together(check, impl_names, case, expected, actual, accepted)
        if hit is None:
            return None
        hit.hits += 1
        hit.credited.hits += 1
        index = tries.index(hit)
        if index and tries[index - 1].hits < hit.hits:  # most hit first
            tries[index - 1], tries[index] = hit, tries[index - 1]
        return hit.credited

    def _exact(self, check: str, impl_names: Sequence[str], case: Case, expected: Outcome,
               actual: Outcome, entries: list[KnownDivergence],
               needed: KnownDivergence) -> bool:
        """``entries`` give exactly the implementation's answer (in one render when they
        are all models), ``needed`` among those that change it."""
        exact = predicts(check, impl_names, case, expected, actual, entries, self._models)
        if exact is None:  # (an entry written as code: reconcile in full)
            used = _explain(check, impl_names, case, expected, actual, entries)
            exact = used is not None and needed.id in used
        return exact

    def _together(self, check: str, impl_names: Sequence[str], case: Case, expected: Outcome,
                  actual: Outcome, accepted: Sequence[KnownDivergence]) -> _Prediction | None:
        """Every known finding tried together; when they explain the case, a new
        prediction of them all, credited to the most hit one it needs (without which
        the others do not explain it). Findings whose models cannot be one (two modes
        of one rule: ``requoted`` ``decode-unreserved`` named on ``%30`` and
        ``decode-utf8`` on ``%aa``) are tried in the groups that can (``_groups``): pip's
        link cleaning encoding '!' and decoding '%aa' as U+FFFD was one finding per
        character beside '%aa'."""
        impl = impl_names[0]
        known = sorted(self._known[check], key=lambda k: -k.hits)
        for group in self._groups(known, impl):
            every = [*accepted, *(k.entry(impl) for k in group)]
            used = _explain(check, impl_names, case, expected, actual, every)
            credited = next((k for k in group if k.entry(impl).id in (used or ())), None)
            if credited is not None:
                made = _Prediction(group, credited)
                self._tries[check].append(made)
                return made
        return None

    def _groups(self, known: list[Known], impl: str) -> list[tuple[Known, ...]]:
        """``known`` whole when their models merge into one; else, from each finding in
        turn, the most hit ones that merge with it (greedily), each group once."""
        def merges(group: Sequence[Known]) -> bool:
            models = [k.entry(impl).model for k in group]
            try:
                merge([m for m in models if m is not None])
            except NotModelled:
                return False
            return True

        if len(known) < 2 or merges(known):
            return [tuple(known)] if known else []
        groups: dict[tuple[int, ...], tuple[Known, ...]] = {}
        for first in known:
            group = [first]
            for other in known:
                if other is not first and merges([*group, other]):
                    group.append(other)
            if len(group) > 1:
                group.sort(key=known.index)
                groups.setdefault(tuple(map(known.index, group)), tuple(group))
        return list(groups.values())
