"""A rule of the catalogue with its parameters (``Rule``), as a finding is named by it,
and what naming may ask the implementation while it looks for one (the callables
``accept.candidates`` and ``accept.rules.find_rule`` are given).

The catalogue itself is ``accept.reconcilers.CATALOGUE``; a ``Rule`` is one of its
entries with the parameters read off a case, its class ``rule=NAME(KEY=VALUE,...)``
the finding's identity (``identity``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pctfuzz._internal.accept.reconcilers import OPTIONAL_PARAMS, RECONCILERS, Reconciler
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.text import one_line

__all__ = ["BEHAVIOUR_TEXT_LIMIT", "UNPROBED", "Chars", "Confirm", "Order", "ParserMode",
           "Probe", "Rule", "SetProbe", "build_rule", "rule_class", "rule_from"]

#: (characters the implementation leaves raw that the reference encodes, characters it
#: encodes that the reference leaves raw, as code points; the characters it writes as
#: a text of their own, with that text: ``written_as``).
SetProbe = tuple[frozenset[int], frozenset[int], tuple[tuple[int, str], ...]]
#: ``probe()`` -> the implementation's ``SetProbe``, asked of it.
Probe = Callable[[], SetProbe]
#: ``confirm(n)`` -> whether the implementation's answer to a longer input (the case's
#: input twice) is cut at ``n`` too: a cut that moves with the input is no truncation.
Confirm = Callable[[int], bool]
#: ``order()`` -> the implementation's pair order, ``sorted``, ``sorted-bytes`` or
#: ``grouped``, as it answers pairs that tell them apart (None: none of them, or it does
#: not answer).
Order = Callable[[], str | None]
#: ``requote()`` (also an ``Order``) -> the implementation's ``requoted`` mode, as it
#: answers ``%41`` and ``%2f`` in the case's context (None: none of them), then
#: `` segments`` when it requotes each '/'-separated segment on its own.
#: ``chars(rule)`` -> the characters the implementation applies ``rule`` (``cut_at``,
#: ``removed``, ``trimmed``, ``kept_encoded``) to, as it answers short inputs holding
#: each candidate character alone in the case's context ("" when it applies it to none;
#: None when it answers none of them); for ``replacement``, a decoder's own mode; for
#: ``refuses``, the kinds of input it raises for, space-separated.
Chars = Callable[[str], str | None]
#: ``parser_mode(rule)`` -> the implementation's own parameter of a form parser's ``rule``, as
#: it answers a text that tells the parameters apart (None: none of them):
#: ``names_mangled`` (its style; tried first, as its pieces, a leading space dropped or
#: the text cut at NUL, are rules that would each name some of its cases) and
#: ``empty_pairs`` (``kept``, ``kept-but-last`` or ``kept-but-trailing``: "&a" is
#: each), ``needs_equals`` ("yes" when it answers no pairs for "a" but one for "a=") and
#: ``decoded_twice`` ("space" when it reads ``%2B`` as a space: its ``plus``) and
#: ``decoded_before_split`` ("yes" when an escaped ``&`` splits a pair).
ParserMode = Callable[[str], str | None]

#: The characters the set probe never asks (``checks.profile.set_probe``): a space
#: (``space_as``'s) and ``%`` (the escapes' rules).
UNPROBED = " %"
_UNPROBED = frozenset(map(ord, UNPROBED))


#: The longest ``behaviour`` text a record holds (``store.schema``'s label limit).
BEHAVIOUR_TEXT_LIMIT = 300


@dataclass(frozen=True)
class Rule:
    """One catalogue entry with its parameters (a TOML entry's ``reconciler`` and keys)."""

    name: str
    params: tuple[tuple[str, Any], ...]
    reconciler: Reconciler = field(repr=False, compare=False)

    @property
    def text(self) -> str:
        return self.reconciler.implementation

    def klass(self) -> str:
        """The finding's class: ``rule=NAME(KEY=VALUE,...)``, stable text."""
        return rule_class(self.name, dict(self.params))

    def behaviour(self) -> dict[str, Any]:
        """The finding's ``behaviour`` field (``store.schema``): its text one printable
        line the record can hold (a decoder that keeps every escape is described by
        128 characters, each written as an escape)."""
        return {"rule": self.name, "params": dict(self.params),
                "text": one_line(self.text, BEHAVIOUR_TEXT_LIMIT)}


def rule_class(name: str, params: dict[str, Any]) -> str:
    def shown(value: Any) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, list | tuple):
            return "+".join(map(str, value))
        return str(value)

    return f"rule={name}(" + ",".join(f"{k}={shown(v)}" for k, v in params.items()) + ")"


def rule_from(name: str, params: dict[str, Any]) -> Rule:
    """The rule a finding's ``behaviour`` names (``{"rule": name, "params": params}``), as
    ``find_rule`` made it: the reconciler's parameter and its optional keys
    (``OPTIONAL_PARAMS``). ``PctfuzzError`` (``KeyError`` for an unknown rule) when the
    catalogue cannot build it."""
    factory, param = RECONCILERS[name]
    options = {key: params[key] for key in OPTIONAL_PARAMS.get(name, ()) if key in params}
    reconciler = factory(params[param], **options) if param else factory(**options)
    ordered = tuple((key, params[key]) for key in ([param] if param else []) + list(options))
    return Rule(name, ordered, reconciler)


def build_rule(name: str, value: Any = None, **options: Any) -> Rule | None:
    """The rule ``name`` with its parameter ``value`` and optional keys ``options``
    (``OPTIONAL_PARAMS``), in ``rule_from``'s order; None when the catalogue cannot
    build it."""
    factory, param = RECONCILERS[name]
    try:
        reconciler = factory(value, **options) if param else factory(**options)
    except PctfuzzError:
        return None
    return Rule(name, (((param, value),) if param else ()) + tuple(options.items()),
                reconciler)
