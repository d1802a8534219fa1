"""Findings that generalize: variants of a case, and what they say of a name and a class.

A finding's identity is the generalized behaviour that explains it, and what is
generalized is checked on variants of its case, as DDSET abstracts a failure-inducing
input to the widest class that keeps the failure (Gopinath et al., ISSTA 2020,
"Abstracting failure-inducing inputs"):

- ``widen``: a difference no rule names is named by its first differing unit and the
  shape of the difference (``identity``); an ASCII unit widens to its group
  (``UNIT_GROUPS``, then ``SUBGROUPS``), a valid escape's hex case to
  ``pct-letters``, a letter or digit raw or escaped to ``alnum-any``, an escape that
  every kind of escape (each delimiter's among them) gives alike to ``pct-any``, each
  only when variants give the same class; failing a named group, to the set of its
  members that each give it (``unit_set``); a non-ASCII unit is ``non-ascii`` only
  where other scripts give its class too, else its Unicode category where that does;
- ``holds_on_variants``: a rule names a finding only if it also predicts the answer on
  variants of the case (each data character written as others of its group, the input
  padded before and after);
- a refusal must need its kind of input (``inputs.without_kind``, beside
  ``input_has``, which tells the kinds).

A raw delimiter (``accept.impact.DELIMITERS``) and the space never widen: each is its
own behaviour (a rule is checked with a delimiter it does not name written as a
letter, and a delimiter's escape joins ``pct-any`` only where it is checked alike).
This module builds the variants and reads what the differential check
(``checks.differential``, ``checks.locate``) says of them, through the callables it
is given.
"""

from __future__ import annotations

import functools
import itertools
import re
import string
import unicodedata
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Any

from pctfuzz._internal.accept.meaning import DELIMITERS
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.identity import last_unit, leading_units
from pctfuzz._internal.identity.classes import WRITTEN, without_written, writings
from pctfuzz._internal.identity.units import SUBGROUPS, UNIT_GROUPS, unit_set
from pctfuzz._internal.inputs import input_strs, input_texts, with_texts
from pctfuzz._internal.spec import HEX_DIGIT, HEX_PAIR, PERCENT_ENCODED_BYTE
from pctfuzz._internal.text import fresh_letter

__all__ = ["VARIANTS", "as_any_escape", "as_lost_first", "as_victim", "holds_on_variants",
           "one_field", "widen"]

#: ``classify(variant)``: the class of the variant's difference (``identity``), None
#: when the implementation agrees with the reference on it or does not answer it.
Classify = Callable[[Case], "str | None"]
#: ``answer(variant)``: the implementation's answer to the variant (its value, or what
#: it raised), None when it does not answer it.
Answer = Callable[[Case], Any]
#: ``explained(variant)``: the rule predicts the implementation's answer on it (None:
#: not answered).
Explained = Callable[[Case], "bool | None"]

_HEX_DIGITS = string.hexdigits
_ALNUM = string.ascii_letters + string.digits
#: How many members of a group a unit is checked on before it is named by the group:
#: a name never claims more than was checked.
VARIANTS = 3

_UNIT = re.compile(r"(?:^|;)unit=0x([0-9A-F]{2})(?:;|$)")
_HEX_CASE_SEG = re.compile(r"(?:^|;)seg=(pct-upper|pct-lower)(?:;|$)")
#: A delimiter's escape, a decode segment of its own (``identity.classes.ESCAPED_APART``).
_APART_SEG = re.compile(r"(?:^|;)seg=pct-(0x[0-9A-F]{2})(?:;|$)")
#: The segments of a letter or digit, raw or escaped (``identity``'s decode segments).
_WRITTEN_SEG = re.compile(r"(?:^|;)seg=(alnum|pct-upper|pct-lower|pct-digits|pct-letters)"
                          r"(?:;|$)")
_ESCAPE_BYTES = re.compile(PERCENT_ENCODED_BYTE.pattern.encode("ascii"))
_SPLIT_ESCAPES = re.compile(f"(%{HEX_PAIR})")
_SPLIT_ESCAPES_BYTES = re.compile(_SPLIT_ESCAPES.pattern.encode("ascii"))
#: An escape of an ASCII letter or digit (%30-%39, %41-%5A, %61-%7A).
_ALNUM_ESCAPE = re.compile("%(?:3[0-9]|[46][1-9A-Fa-f]|[57][0-9Aa])")
_ALNUM_ESCAPE_BYTES = re.compile(_ALNUM_ESCAPE.pattern.encode("ascii"))


# --- variants ------------------------------------------------------------------------------
def _with_char(case: Case, old: str, new: str, *, hex_digits: bool = False) -> Case:
    """``case`` with every ``old`` of its input written ``new``, but a valid escape's
    digits (``%AD`` stays an escape); for a form parser, whose class names the
    character a unit decodes to (``identity``), its escapes too (``%0a`` as ``%0B``).
    ``hex_digits``: ``old`` and ``new`` are hex digits, written anew inside escapes
    too (``%4a`` as ``%4b``: still an escape), where the unit is an escape's digit."""
    escapes = isinstance(case, FormParseCase) and old.isascii() and new.isascii()

    def swap(text: str) -> str:
        parts = _SPLIT_ESCAPES.split(text)  # (the odd ones are escapes)
        for i, part in enumerate(parts):
            if i % 2 == 0 or hex_digits:
                parts[i] = part.replace(old, new)
            elif escapes and int(part[1:], 16) == ord(old):
                parts[i] = f"%{ord(new):02X}"
        return "".join(parts)

    return with_texts(case, lambda t: swap(t.decode("latin-1")).encode("latin-1")
                      if isinstance(t, bytes) else swap(t))


def _padded(text: Any, pad: str, before: bool) -> Any:
    """``text`` (str or bytes) with the ASCII ``pad`` before or after it."""
    extra: Any = pad.encode("ascii") if isinstance(text, bytes) else pad
    return extra + text if before else text + extra


def _beside(text: Any, pad: str, before: bool) -> Any:
    """A form-parse ``text`` with the pair ``pad=pad`` before or after it, ``&`` between:
    what ends the text ends a field only (a parser trimming each name and value is no
    parser trimming its input). A whole pair: a parser may refuse a name alone (a
    ``dict(kv.split("="))``), which refuted every rule of its other behaviours."""
    pair = f"{pad}={pad}"
    return _padded(text, pair + "&", True) if before else _padded(text, "&" + pair, False)


def _sequences(text: Any, split: bool) -> list[Any]:
    """A form-parse ``text``'s sequences: split at ``&``, or the whole text for a
    parser that does not split there (``split`` False: what '&' does is its own)."""
    return text.split(b"&" if isinstance(text, bytes) else "&") if split else [text]


def _swapped(text: Any, split: bool = True) -> Any:
    """A form-parse ``text`` with each sequence's name and value swapped (``n=v`` as
    ``v=n``; a sequence without ``=`` as the value of a plain name the text does not
    hold): what a parser does to names only or to values only is no longer done to
    the same characters. (Not an empty name: a parser that drops pairs without a name
    refuted every rule of its other behaviour on such a variant.) ``split``:
    ``_sequences``."""
    amp, eq = (b"&", b"=") if isinstance(text, bytes) else ("&", "=")
    plain = fresh_letter(text.decode("latin-1") if isinstance(text, bytes) else text) or ""
    name_of: Any = plain.encode("ascii") if isinstance(text, bytes) else plain
    return amp.join(value + eq + name if sep else name_of + eq + name if name else name
                    for name, sep, value in (s.partition(eq) for s in _sequences(text, split)))


def one_field(text: Any, part: str) -> Any:
    """A form-parse ``text`` with each sequence's name and value, each one that is not
    empty, as a name of its own (``part="names"``: an empty value) or as the value of a
    plain name the text does not hold (``"values"``): what a rule does to that part of
    the pairs alone."""
    amp, eq = (b"&", b"=") if isinstance(text, bytes) else ("&", "=")
    plain = fresh_letter(text.decode("latin-1") if isinstance(text, bytes) else text) or ""
    name_of: Any = plain.encode("ascii") if isinstance(text, bytes) else plain
    fields = [field for sequence in text.split(amp) for field in sequence.split(eq, 1)
              if field]
    return amp.join(field + eq if part == "names" else name_of + eq + field
                    for field in fields)


def _with_equals(text: Any, split: bool = True) -> Any:
    """A form-parse ``text`` whose sequences without ``=`` end in one: the same pairs
    for the reference, but not for a parser that drops what is not ``name=value`` (no
    parser dropping empty values). ``split``: ``_sequences`` (a parser splitting at
    ';' read ``a=&`` as the value '&', and "drops empty pairs" was refuted so)."""
    amp, eq = (b"&", b"=") if isinstance(text, bytes) else ("&", "=")
    return amp.join(s if not s or eq in s else s + eq for s in _sequences(text, split))


def _group_of(char: str) -> str | None:
    """The group of ``UNIT_GROUPS`` that ``char`` is a member of; None for none."""
    return next((g for g, members in UNIT_GROUPS.items() if char in members), None)


def _spread(members: list[str], count: int = VARIANTS) -> list[str]:
    """``count`` of ``members``, spread over them (an unlucky pick of neighbours
    must not widen a class)."""
    step = max(1, len(members) // count)
    return members[::step][:count]


# --- a class widened -----------------------------------------------------------------------
def widen(case: Case, klass: str, classify: Classify, known: Collection[str] = (),
          answer: Answer | None = None) -> str:
    """``klass``, the class of an unexplained difference on ``case``, widened where its
    variants agree: a unit that is only what comes after the behaviour (``_victim``)
    or only there to be lost before it (``_lost_first``), a valid escape's hex case
    (``pct-letters``), a letter or digit however written (``alnum-any``), an ASCII
    unit to its group or narrower group, a form parser's unit however written
    (``_any_writing``). An encoder that leaves every control raw is one finding, not
    one per control. ``known``: the classes of findings made, which a non-ASCII unit's
    category may be among (``_non_ascii``); ``answer``: the implementation's answer."""
    chance = _by_chance(case, klass, classify)
    if chance is not None:
        variant, other = chance
        return widen(variant, other, classify, known, answer)
    victim = _victim(case, klass, classify) or _lost_first(case, klass, classify) \
        or _any_escape(case, klass, classify) or _any_invalid_escape(case, klass, classify)
    if victim is not None:
        return victim
    if _APART_SEG.search(klass):
        return _hex_case_of_apart(case, klass, classify)
    if _HEX_CASE_SEG.search(klass):
        klass = _either_hex_case(case, klass, classify)
    if _WRITTEN_SEG.search(klass):
        return _however_written(case, klass, classify)
    if _NON_ASCII_UNIT.search(klass):
        return _non_ascii(case, klass, classify, known)
    match = _UNIT.search(klass)
    if match is None:
        return klass
    char = chr(int(match.group(1), 16))
    return _any_writing(case, char, _in_group(case, klass, char, classify), answer)


#: The shapes a difference has where an answer's unit matches an input's by chance (an
#: answer aligned on the input's text): ``_by_chance``.
_ALIGNED = re.compile(r";diff=(?:missing-output|extra-output)$")
#: How many of a character's neighbours ``_by_chance`` asks: more than ``VARIANTS``, as a
#: chance match can be one byte value in sixteen ('%2,', '%2<', '%2\\' all decode to '%').
_BY_CHANCE = 5


def _by_chance(case: Case, klass: str, classify: Classify) -> tuple[Case, str] | None:
    """(a variant, its class) when ``klass`` is the implementation's answer matching the
    reference's by chance: for one character of the input (ASCII, no delimiter, no
    escape's hex digit), most of ``_BY_CHANCE`` others of its group give one other class
    and the rest its own. A decoder reading an escape's second digit wrong decodes
    ``%2,`` to ``%``, which reads as the input's own ``%`` kept and ``2,`` lost
    (``missing-output`` at ``2``), where ``%2;``, ``%2!`` and ``%2.`` are each an escape
    read wrong (``seg=pct-short;diff=changed``): one behaviour, two findings, the first
    named by a coincidence. So for an input's one non-ASCII character, written as the
    other non-ASCII characters of ``_non_ascii``: a parser writing a character as several
    whose last is that character again (for every character below some code point) had
    its ``extra-output`` beside the ``changed`` of every other character, two findings of
    one behaviour (hold-out 17)."""
    if not _ALIGNED.search(klass):
        return None
    present = set("".join(input_strs(case)))
    digits = {t[i] for t in input_strs(case) for i in range(len(t))
              if "%" in t[max(0, i - 2):i] and t[i] in _HEX_DIGITS}
    for char in sorted(c for c in present if c.isascii() and c not in DELIMITERS
                       and c not in digits):
        group = _group_of(char)
        if group is None:
            continue
        others = _spread([c for c in UNIT_GROUPS[group] if c not in present
                          and (char in _HEX_DIGITS or c not in _HEX_DIGITS)], _BY_CHANCE)
        if len(others) < _BY_CHANCE:
            continue
        found = _most_other(case, char, others, klass, classify)
        if found is not None:
            return found
    wide = {c for c in present if ord(c) >= 0x80 and not 0xD800 <= ord(c) <= 0xDFFF}
    if len(wide) == 1 and not any(isinstance(t, bytes) for t in input_texts(case)):
        (char,) = wide
        others = [c for c in (*_NON_ASCII_VARIANTS, *_ASTRAL_VARIANTS) if c not in present]
        return _most_other(case, char, others[:_BY_CHANCE], klass, classify)
    return None


def _most_other(case: Case, char: str, others: Sequence[str], klass: str,
                classify: Classify) -> tuple[Case, str] | None:
    """(a variant, its class) when most of ``case`` with ``char`` written as each of
    ``others`` give one class other than ``klass``, not aligned, and the rest ``klass``
    (``_by_chance``)."""
    variants = [_with_char(case, char, other) for other in others]
    classes = [classify(variant) for variant in variants]
    # (most of them: a neighbour may match by chance too, '%2\\' decodes to '%')
    for variant, other_class in zip(variants, classes, strict=True):
        if other_class not in (None, klass) and not _ALIGNED.search(other_class) \
                and classes.count(other_class) * 2 > len(classes) \
                and set(classes) <= {klass, other_class}:
            return variant, other_class
    return None


def _in_group(case: Case, klass: str, char: str, classify: Classify) -> str:
    """``klass``, whose unit is the ASCII ``char``, widened to ``char``'s group, a
    narrower group or the set of its members that give the same class (``widen``)."""
    match = _UNIT.search(klass)
    assert match is not None
    group = next((name for name, members in UNIT_GROUPS.items() if char in members), None)
    if group is None:
        return klass
    strs = input_strs(case)
    present = set("".join(strs))
    # after a "%", a hex digit and another character make an escape or not: a variant
    # keeps the input's escapes as they are
    after_pct = any(t[i] == char for t in strs for i in range(len(t))
                    if "%" in t[max(0, i - 2):i])
    # (an escape's digit is varied inside its escapes too: kept out of them, a serializer
    # keeping "%HH" in names was one finding per hex digit)
    in_escapes = after_pct and char in _HEX_DIGITS and not isinstance(case, FormParseCase)

    def alike(other: str) -> bool:
        return classify(_with_char(case, char, other, hex_digits=in_escapes)) == \
            klass.replace(f"unit=0x{ord(char):02X}", f"unit=0x{ord(other):02X}")

    def usable(members: str) -> list[str]:
        return [c for c in members if c not in present  # (a variant keeps its structure)
                and not (after_pct and (c in _HEX_DIGITS) != (char in _HEX_DIGITS))]

    others = usable(UNIT_GROUPS[group])
    if in_escapes:
        # not into a new "%25": the reference writes "%" so, and an answer that keeps
        # the escape agrees with it there (a class of its own on some inputs only)
        def pct_escapes(variant: Case) -> int:
            return sum(t.count("%25") for t in input_strs(variant))
        others = [c for c in others if pct_escapes(_with_char(case, char, c, hex_digits=True))
                  <= pct_escapes(case)]
    # A hex digit after a "%" is varied among hex digits only: that is all it can claim
    # (a parser reading "%a" as a byte was named unit=alnum).
    picked = None if after_pct and char in _HEX_DIGITS else _representatives(group, others)
    if picked is not None and all(alike(other) for other in picked):
        return klass.replace(f"unit=0x{match.group(1)}", f"unit={group}")
    # Not the whole group: the members that behave alike, each one checked, named by the
    # narrower group they are when they are one (``upper``), else as a set (a parser
    # that strips what str.strip strips: TAB to CR and 0x1C-0x1F, no other control).
    # Whichever of them an input shows first, the name is the same.
    same = {char, *(c for c in others if alike(c))}
    checked = {char, *others}
    for name, members in sorted(SUBGROUPS.get(group, {}).items(), key=lambda nm: len(nm[1])):
        if len(checked & set(members)) > VARIANTS and same == checked & set(members):
            return klass.replace(f"unit=0x{match.group(1)}", f"unit={name}")
    if len(same) == 1:
        return klass
    return klass.replace(f"unit=0x{match.group(1)}", f"unit={unit_set(*same)}")


def _any_writing(case: Case, char: str, klass: str, answer: Answer | None) -> str:
    """A form parser's ``klass`` without its ``written=`` part (``identity.WRITTEN``)
    when the implementation answers the case with each ``char`` written each other way
    (``identity.writings``) as it answers the case, also with a letter after each
    ``char`` (what a unit does to what follows it is part of it: a raw ``[`` that cuts
    a name and a ``%5B`` dropped alone part at the same unit of the shortest prefix).
    The reference reads every way alike, so the answers tell whether the code under
    test does: a parser that strips a space does so to `` ``, ``+`` and ``%20`` alike,
    one finding; one that reads a raw ``[`` as an array index and mishandles ``%5B``
    otherwise is two (hold-out 14: two real bugs and a harmless behaviour were one
    class of the character however written)."""
    written = WRITTEN.search(klass)
    if written is None or answer is None or not isinstance(case, FormParseCase):
        return klass
    ways = writings(char)
    located = ways[written.group().partition("=")[2]]
    letter = fresh_letter(*input_strs(case)) or ""
    for after in ("", letter):
        given = _written_as(case, char, located + after)
        if given is None:
            return klass
        wanted = answer(given)
        for text in ways.values():
            if text == located:
                continue
            variant = _written_as(case, char, text + after)
            if variant is None or answer(variant) != wanted:
                return klass
    return without_written(klass)


def _written_as(case: FormParseCase, char: str, text: str) -> Case | None:
    """A form-parse ``case`` with each way of writing ``char`` (``identity.writings``) in
    its input written ``text``; None when that would make or unmake another escape (a
    hex digit decoded after a ``%``)."""
    ways = writings(char)

    def written(chars: str) -> str:
        parts = _SPLIT_ESCAPES.split(chars)  # (the odd ones are escapes)
        for i, part in enumerate(parts):
            if i % 2:
                parts[i] = text if part.upper() == ways["escaped"] else part
            else:
                parts[i] = "".join(text if c in ways.values() else c for c in part)
        return "".join(parts)

    def escapes(chars: str) -> int:
        return sum(1 for m in PERCENT_ENCODED_BYTE.finditer(chars)
                   if m.group().upper() != ways["escaped"])

    given = case.text.decode("latin-1") if isinstance(case.text, bytes) else case.text
    made = written(given)
    if escapes(made) != escapes(given):
        return None
    return replace(case, text=made.encode("latin-1") if isinstance(case.text, bytes) else made)


_NON_ASCII_UNIT = re.compile(r"(?:^|;)unit=non-ascii(?:;|$)")
#: Non-ASCII characters of other scripts, categories and UTF-8 lengths: a difference
#: is named by ``non-ascii`` only where each of them gives its class too...
_NON_ASCII_VARIANTS = ("\u00e9", "\u4e2d", "\u20ac", "\u0416")
#: ... and by ``astral`` (an astral character's) where these, of other planes and
#: blocks, do.
_ASTRAL_VARIANTS = ("\U0001f600", "\U00020000", "\U0001d400", "\U00010400")


def _non_ascii(case: Case, klass: str, classify: Classify, known: Collection[str] = ()) -> str:
    """``klass`` (``unit=non-ascii``) where other non-ASCII characters in place of the
    input's one give it too; else ``unit=astral`` for an astral character where others
    of other planes do (an encoder dropping U+1F600 keeps ``é``); else, where three
    others of its Unicode general category do, that category and every other whose
    characters do (``_categories_name``: ``unit=non-ascii-Nd``, a parser reading ``\u07c1``,
    an NKo digit, as ``1`` does so for every decimal digit, not for ``é``;
    ``unit=non-ascii-L,Nd,No``, an encoder leaving raw what ``str.isalnum`` accepts);
    else as it was. A class of ``known`` (classes of findings made) of categories that
    hold the character's is its class at once. An input of several non-ASCII
    characters, or of bytes, is not varied."""
    chars = {c for t in input_strs(case) for c in t
             if ord(c) >= 0x80 and not 0xD800 <= ord(c) <= 0xDFFF}
    if len(chars) != 1 or any(isinstance(t, bytes) for t in input_texts(case)):
        return klass
    (char,) = chars
    category = unicodedata.category(char)
    for made in known:
        if category in _categories_of(made, klass):
            return made

    def alike(other: str) -> bool:
        return classify(_with_char(case, char, other)) == klass

    if all(alike(other) for other in [c for c in _NON_ASCII_VARIANTS if c != char][:VARIANTS]):
        return klass
    if ord(char) > 0xFFFF and all(
            alike(other) for other in [c for c in _ASTRAL_VARIANTS if c != char][:VARIANTS]):
        return klass.replace("unit=non-ascii", "unit=astral")
    # (``VARIANTS`` of them, or all there are: U+2028 is the only Zl)
    found = _category_members(category)
    members = [c for c in found if c != char][:VARIANTS]
    if not (members or found == (char,)) or not all(alike(other) for other in members):
        return klass
    # A category of one block (Cc: U+0080-U+009F) must also part from another category
    # there: a decoder reading U+0080-U+00FF as their low bytes does so for 'é' too,
    # and named Cc its 'é' was a second finding.
    neighbour = _neighbour(category)
    if neighbour is not None and alike(neighbour):
        return klass
    # Each other category joins where its first and last of ``_category_members`` do:
    # one finding whichever category an input shows first (one per category was two
    # findings of an encoder's letters, Ll and Lu, and two of its symbols).
    same = [c for c in _CATEGORIES if c == category or (
        (them := _category_members(c)) and all(alike(other) for other in {them[0], them[-1]}))]
    return klass.replace("unit=non-ascii", f"unit=non-ascii-{_categories_name(same)}")


#: The Unicode general categories a non-ASCII character of a case can be (not Cs, the
#: surrogates, nor Cn), in ``unicodedata``'s order of major classes.
_CATEGORIES = ("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd",
               "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc",
               "Cf", "Co")
_NON_ASCII_CATEGORIES = re.compile(r"unit=non-ascii-([A-Za-z,]+)(?=;|$)")


def _categories_name(categories: list[str]) -> str:
    """``categories`` as a unit names them: a major class whose every category is among
    them by its letter (``L``), the others each (``L,Nd,No``)."""
    majors = {c[0] for c in _CATEGORIES}
    whole = {m for m in majors if all(c in categories for c in _CATEGORIES if c[0] == m)}
    return ",".join(dict.fromkeys(c[0] if c[0] in whole else c for c in categories))


def _categories_of(made: str, klass: str) -> frozenset[str]:
    """The categories the class ``made`` names where it is ``klass`` with its
    ``non-ascii`` unit narrowed to categories (``_categories_name``); none otherwise."""
    found = _NON_ASCII_CATEGORIES.search(made)
    if found is None or made.replace(found.group(0), "unit=non-ascii") != klass:
        return frozenset()
    return frozenset(c for part in found.group(1).split(",") for c in _CATEGORIES
                     if c == part or c[0] == part)


@functools.lru_cache(maxsize=64)
def _neighbour(category: str) -> str | None:
    """A letter of the one 256-code-point block that holds every BMP member of
    ``category`` (None when they are in several blocks, or the block has no letter)."""
    blocks = {ord(c) >> 8 for c in _category_members(category)}
    if len(blocks) != 1:
        return None
    (block,) = blocks
    return next((chr(c) for c in range(max(block << 8, 0x80), (block + 1) << 8)
                 if unicodedata.category(chr(c)) in ("Ll", "Lu", "Lo")), None)


@functools.lru_cache(maxsize=64)
def _category_members(category: str) -> tuple[str, ...]:
    """Characters of a Unicode general category from several blocks of the BMP (the
    first of each 256 code points that has one), at most ``VARIANTS`` + 1; a category
    of fewer blocks (Cc: U+0080-U+009F only) is filled from within them (its controls
    were never checked, and each was the catch-all ``non-ascii``)."""
    found: list[str] = []
    for block in range(0x0080, 0xD800, 0x100):
        char = next((chr(c) for c in range(block, block + 0x100)
                     if unicodedata.category(chr(c)) == category), None)
        if char is not None:
            found.append(char)
            if len(found) > VARIANTS:
                return tuple(found)
    rest = (chr(c) for c in range(0x0080, 0xD800)
            if unicodedata.category(chr(c)) == category and chr(c) not in found)
    return tuple(found + list(itertools.islice(rest, VARIANTS + 1 - len(found))))


#: What a located difference's last unit is replaced with to tell whether it matters
#: (``_victim``): a letter, marks, a control. (No escape: a variant's difference is
#: located on its own shortest prefix, which may end at the escape's ``%``.)
_VICTIMS = ("q", "*", "\x01", "~", "\u00e9")
_UNIT_PART = re.compile(r"(?:^|;)((?:unit|seg)=[^;]*)")
_DIFF = re.compile(r";diff=[^;]*")


def as_victim(case: Case, klass: str) -> str | None:
    """``klass``, located on ``case`` (its last unit the class's), as the class of a
    behaviour of what comes before that unit: ``unit=any;after=<context>`` in place of
    the unit (``identity.last_unit``). None when the class does not name the last unit
    (a separator, a difference of size or of a pair), and at the start of a field: what
    comes before is then the structure around it (a sequence without ``=`` dropped), and
    such a class would take in every behaviour that shows on a field's first unit."""
    found = last_unit(case)
    part = _UNIT_PART.search(klass)
    if found is None or found[2] == "start" or part is None or part.group(1) != found[1] \
            or ";diff=" not in klass:
        return None
    # Any shape: the unit after an invalid sequence lost (a letter, the bytes of an "é"
    # after a three-byte lead) or turned to U+FFFD (the lead byte of an "é" after a
    # two-byte one) is one behaviour, whose shape the unit and the lead decide.
    return _DIFF.sub(f";after={found[2]};diff=any",
                     without_written(klass.replace(part.group(1), "unit=any", 1)))


def _victim(case: Case, klass: str, classify: Classify) -> str | None:
    """``as_victim(case, klass)`` when the difference does not depend on its unit: with
    the last unit replaced by each of the others of another class (``_VICTIMS``, at
    least ``VARIANTS``), the difference is at that unit, in the same field. A decoder
    that loses the byte after an incomplete UTF-8 sequence lost a letter, a ``/``, a
    space, an escape: one finding per neighbour (25 in a 60 s campaign of a tuning
    decoder and parser), where the behaviour is what comes before them. The shortest
    differing prefix and window (``checks.locate``) hold the cause: without it
    the unit agrees."""
    if not isinstance(case, DecodeCase | FormParseCase):
        return None
    named = as_victim(case, klass)
    found = last_unit(case)
    if named is None or found is None:
        return None
    start, part, _context = found

    def with_last(unit: str) -> Case:
        return with_texts(case, lambda t: t[:start] + (
            unit.encode("latin-1") if isinstance(t, bytes) else unit))

    variants = [(v, last_unit(with_last(v))) for v in _VICTIMS]
    others = [(with_last(v), got[1]) for v, got in variants
              if got is not None and got[1] != part]
    if len(others) < VARIANTS:
        return None
    for variant, other in others:
        got = classify(variant)
        if got is None or _DIFF.sub("", without_written(got)) != _DIFF.sub(
                "", without_written(klass.replace(part, other, 1))):
            return None
    return named


_LOST = ";diff=missing-output"


def as_lost_first(case: Case, klass: str) -> list[str]:
    """``klass``, located on ``case`` (its first unit the class's, lost), as the classes
    of what may come after the units there only to be lost:
    ``unit=any;before=<unit>;diff=missing-output``, one per unit after the first
    (``identity.leading_units``), the last first. Empty when the class names another
    unit or shape."""
    units = leading_units(case)
    part = _UNIT_PART.search(klass)
    if len(units) < 2 or part is None or part.group(1) != units[0][1] \
            or not klass.endswith(_LOST):
        return []
    return [klass.replace(part.group(1), f"unit=any;before={kind}", 1)
            for _start, _part, kind in reversed(units[1:])]


def _lost_first(case: Case, klass: str, classify: Classify) -> str | None:
    """The class of what comes after the units there only to be lost: the longest
    start of the input that, replaced by one unit of another class (each of
    ``_VICTIMS`` that the decoder answers alone as the reference does, at least
    ``VARIANTS``), is lost the same way. The shortest differing window
    (``checks.locate``) keeps a first unit when what follows it wipes out what comes
    before (an RFC 2231 ``filename*`` value followed by ``;filename``): without a unit
    before, there is nothing to lose, and the class named it, one finding per class of
    the character (7 in one campaign), and one per whitespace before the ``;``. The
    start is the DDSET "any" of the generalized input; what follows it is the
    behaviour."""
    named = as_lost_first(case, klass)
    if not named or not isinstance(case, DecodeCase):
        return None
    units = leading_units(case)
    part = units[0][1]

    def replaced(unit: str, start: int) -> Case:
        return with_texts(case, lambda t: (
            unit.encode("latin-1") if isinstance(t, bytes) else unit) + t[start:])

    victims = []
    for victim in _VICTIMS:
        alone = replaced(victim, len(case.value))
        other = leading_units(alone)
        # (a unit that differs alone shows its own behaviour first: a decoder writing
        # U+FFFD for a raw "é" is no decoder losing the "é")
        if other and other[0][1] != part and classify(alone) is None:
            victims.append((victim, other[0][1]))
    if len(victims) < VARIANTS:
        return None
    for (start, _part, _kind), klass_after in zip(reversed(units[1:]), named, strict=True):
        if all(classify(replaced(victim, start)) == klass.replace(part, other, 1)
               for victim, other in victims):
            return klass_after
    return None


def _representatives(group: str, others: list[str]) -> list[str] | None:
    """The members of ``group`` a unit is checked on before it is named by the group:
    ``VARIANTS`` of ``others`` (those the input allows), spread, and one of each
    narrower group (``alnum`` only after a lowercase letter, an uppercase one and a
    digit); None when ``others`` cannot give them (an input holding every lowercase
    letter cannot show that they behave alike)."""
    if len(others) < VARIANTS:
        return None
    picked = _spread(others)
    for members in SUBGROUPS.get(group, {}).values():
        inside = [c for c in others if c in members]
        if not inside:
            return None
        if not set(picked) & set(inside):
            picked.append(inside[len(inside) // 2])
    return picked


#: A decode segment that is a valid escape (``identity``: by its hex case, or a
#: delimiter's or the dot's by its byte).
_ESCAPE_SEG = re.compile(r"(?:^|;)seg=(pct-(?:upper|lower|digits|letters|0x[0-9A-F]{2}))(?:;|$)")
#: What every escape of a decoder's input is written as, each in turn, to tell whether
#: the decoder does alike to every escape (``_any_escape``): a letter's in each hex
#: case, a digit's, the space's, each delimiter's and the dot's (not ``%25``: the ``%``
#: it decodes to is read with what follows it, so no segment of the answer is its own).
_ANY_ESCAPES = ("%4A", "%4a", "%35", "%20", "%23", "%26", "%2B", "%2F", "%3B", "%3D", "%3F",
                "%2E")


#: A form parser's located unit when it is an escape: the last one of its prefix, with
#: at most the plain value ``locate`` gives a name after it (``=q``).
_LAST_ESCAPE = re.compile(f"%{HEX_PAIR}(?==?[g-z]?\\Z)")
_LAST_ESCAPE_BYTES = re.compile(_LAST_ESCAPE.pattern.encode("ascii"))
#: A form-parse class's unit, and its field.
_UNIT_ANY = re.compile(r"(?:^|;)unit=([^;]*)(?:;|$)")
_ANY_FIELD = re.compile(r"^field=(?:name|value|any)(?=;)")


def _any_escape(case: Case, klass: str, classify: Classify) -> str | None:
    """A decoder's escape segment as ``seg=pct-any``, a form parser's located escape as
    ``unit=pct-any``, when the case with its escapes (a decoder's every one, a form
    parser's located one) written as each of ``_ANY_ESCAPES`` in turn gives the same
    class but that segment or unit: the code does alike to every escape there (a decoder
    that keeps every escape after a raw ``#`` was one finding per delimiter's escape,
    and one for letters', digits'). Kept apart, a delimiter's escape is a finding of its
    own only where it is handled otherwise; where every escape is, one finding says so
    (checked on each delimiter)."""
    if isinstance(case, DecodeCase):
        part = _ESCAPE_SEG.search(klass)
        pattern, pattern_bytes, key = PERCENT_ENCODED_BYTE, _ESCAPE_BYTES, "seg"
    elif isinstance(case, FormParseCase):
        part = _UNIT_ANY.search(klass)
        pattern, pattern_bytes, key = _LAST_ESCAPE, _LAST_ESCAPE_BYTES, "unit"
        text = case.text.decode("latin-1") if isinstance(case.text, bytes) else case.text
        if part is None or not _LAST_ESCAPE.search(text):
            return None
    else:
        return None
    if part is None:
        return None
    found_part = _ESCAPE_SEG if key == "seg" else _UNIT_ANY

    def anyhow(klass: str, part: str) -> str:
        # (a variant is classed as located, in one field: ``field=any`` was found
        # on the case already)
        return _ANY_FIELD.sub("field=*", without_written(
            klass.replace(f"{key}={part}", f"{key}=*", 1)), 1)

    anywise = anyhow(klass, part.group(1))
    for escape in _ANY_ESCAPES:
        def written(text: Any, escape: str = escape) -> Any:
            return pattern_bytes.sub(escape.encode("ascii"), text) if isinstance(text, bytes) \
                else pattern.sub(escape, text)

        found = classify(with_texts(case, written))
        other = None if found is None else found_part.search(found)
        if found is None or other is None or anyhow(found, other.group(1)) != anywise:
            return None
    return without_written(klass.replace(f"{key}={part.group(1)}", f"{key}=pct-any", 1))


_INVALID_SEG = re.compile(r"(?:^|;)seg=(pct-short|pct-nonhex)(?:;|$)")
#: Where a ``%`` that starts no escape is written as the other kind, and how: a non-hex
#: letter after it (``%a`` as ``%za``), or a hex digit and a non-hex letter (``%+1`` as
#: ``%az+1``: not a space, which Python's ``int()`` reads beside a digit).
_OTHER_INVALID = {
    "pct-short": (re.compile(f"%(?={HEX_DIGIT}(?!{HEX_DIGIT}))"), "%z"),
    "pct-nonhex": (re.compile(f"%(?!{HEX_DIGIT})"), "%az"),
}


def _any_invalid_escape(case: Case, klass: str, classify: Classify) -> str | None:
    """A decoder's ``%`` that starts no escape as ``seg=pct-invalid`` when the case with
    each such ``%`` written as the other kind (``identity.classes.INVALID_ESCAPES``)
    gives the same class but that segment: the code does alike to every bad escape (a
    decoder writing ``?`` for each). Where it does not, a one-digit escape read as a
    byte and a sign read in an escape are two findings (hold-out 11: one took the
    other's every input)."""
    part = _INVALID_SEG.search(klass)
    if part is None or not isinstance(case, DecodeCase):
        return None
    kind = part.group(1)
    other = next(k for k in _OTHER_INVALID if k != kind)
    pattern, written = _OTHER_INVALID[kind]

    def change(text: Any) -> Any:
        if isinstance(text, bytes):
            return re.sub(pattern.pattern.encode("ascii"), written.encode("ascii"), text)
        return pattern.sub(written, text)

    if classify(with_texts(case, change)) != klass.replace(f"seg={kind}", f"seg={other}", 1):
        return None
    return klass.replace(f"seg={kind}", "seg=pct-invalid", 1)


def as_any_escape(case: Case, klass: str) -> str | None:
    """``klass``, located on ``case``, as ``_any_escape`` names it when its unit is an
    escape (``seg=pct-any``, ``unit=pct-any``): no call, for the fast path of a known
    finding that every kind of escape was checked to give (each input's widening asked
    12 variants, and a form parser's minimizations ran out of time)."""
    if isinstance(case, DecodeCase):
        part = _ESCAPE_SEG.search(klass)
        return None if part is None else klass.replace(f"seg={part.group(1)}", "seg=pct-any", 1)
    if isinstance(case, FormParseCase):
        text = case.text.decode("latin-1") if isinstance(case.text, bytes) else case.text
        part = _UNIT_ANY.search(klass)
        if part is None or not _LAST_ESCAPE.search(text):
            return None
        return without_written(klass.replace(f"unit={part.group(1)}", "unit=pct-any", 1))
    return None


def _hex_case_swapped(case: Case) -> Case:
    """``case`` with the hex letters of every escape in its input in the other case."""
    return with_texts(case, lambda t: _ESCAPE_BYTES.sub(
        lambda m: m.group().swapcase(), t) if isinstance(t, bytes) else
        PERCENT_ENCODED_BYTE.sub(lambda m: m.group().swapcase(), t))


def _either_hex_case(case: Case, klass: str, classify: Classify) -> str:
    """``seg=pct-upper``/``pct-lower`` as ``pct-letters`` when the case with every
    escape's letters in the other case gives the same class with the other segment: a
    decoder that reads ``%2B`` and ``%2b`` as a space is one finding."""
    seg = _HEX_CASE_SEG.search(klass)
    assert seg is not None
    variant = _hex_case_swapped(case)
    if variant == case:
        return klass
    other = "pct-lower" if seg.group(1) == "pct-upper" else "pct-upper"
    if classify(variant) != klass.replace(f"seg={seg.group(1)}", f"seg={other}"):
        return klass
    return klass.replace(f"seg={seg.group(1)}", "seg=pct-letters")


def _hex_case_of_apart(case: Case, klass: str, classify: Classify) -> str:
    """A delimiter's escape (``seg=pct-0x2F``, ``identity.classes.ESCAPED_APART``) as
    the hex case it is written in (``pct-lower``/``pct-upper``) when the case with every
    escape's letters in the other case agrees: the behaviour is the hex case's, not the
    delimiter's. A decoder of uppercase escapes only made one finding per delimiter
    (``%2b``, ``%2e``, ``%2f``, ``%3b``...) beside the letters' ``pct-lower``."""
    seg = _APART_SEG.search(klass)
    assert seg is not None
    variant = _hex_case_swapped(case)
    if variant == case or classify(variant) is not None:
        return klass
    escape = f"%{seg.group(1)[2:]}"
    written = next((m.group() for t in input_strs(case) for m in PERCENT_ENCODED_BYTE.finditer(t)
                    if m.group().upper() == escape), escape)
    kind = "pct-lower" if any(c in "abcdef" for c in written) else "pct-upper"
    return klass.replace(f"seg=pct-{seg.group(1)}", f"seg={kind}", 1)


def _escaped(text: Any) -> Any:
    """Each ASCII letter and digit of ``text`` as its escape (an escape's own digits
    stay as they are)."""
    if isinstance(text, bytes):
        return b"".join(part if i % 2 else b"".join(
            b"%%%02X" % c if chr(c) in _ALNUM else bytes([c]) for c in part)
            for i, part in enumerate(_SPLIT_ESCAPES_BYTES.split(text)))
    return "".join(part if i % 2 else "".join(
        f"%{ord(c):02X}" if c in _ALNUM else c for c in part)
        for i, part in enumerate(_SPLIT_ESCAPES.split(text)))


def _decoded(text: Any) -> Any:
    """Each escape of an ASCII letter or digit of ``text`` decoded."""
    if isinstance(text, bytes):
        return _ALNUM_ESCAPE_BYTES.sub(lambda m: bytes([int(m.group()[1:], 16)]), text)
    return _ALNUM_ESCAPE.sub(lambda m: chr(int(m.group()[1:], 16)), text)


def _however_written(case: Case, klass: str, classify: Classify) -> str:
    """A decoder's or parser's segment as ``alnum-any`` (a letter or digit, raw or
    escaped) when the case with its letters and digits written the other way (each
    escaped, each escape of one decoded) gives the same difference, in a segment
    written the other way at least once: a parser that lowercases names was one
    finding per way the letter was written (``A``, ``%41``, ``%4a``...)."""
    seg = _WRITTEN_SEG.search(klass)
    assert seg is not None
    anywise = _WRITTEN_SEG.sub(";seg=*;", f";{klass};")
    rewritten = False
    for change in (_escaped, _decoded):
        variant = with_texts(case, change)
        if variant == case:
            continue
        found = classify(variant)
        if found is None or _WRITTEN_SEG.sub(";seg=*;", f";{found};") != anywise:
            return klass
        written = _WRITTEN_SEG.search(found)
        rewritten |= written is not None and \
            (written.group(1) == "alnum") != (seg.group(1) == "alnum")
    return klass.replace(f"seg={seg.group(1)}", "seg=alnum-any") if rewritten else klass


# --- a name checked ------------------------------------------------------------------------
#: At most this many of a rule's own characters are each tried in the padded case.
CLAIMED = 8


def holds_on_variants(case: Case, explained: Explained, claimed: str = "",
                      beside: bool = True, part: str | None = None) -> bool:
    """A name never claims more than was checked: ``explained`` (the rule, beside the
    entries in force, predicts the implementation's answer) holds on the case padded
    with two letters it does not hold, before and after (two: hyperlink picks its code
    path by the parity of the input's length), a form-parse text beside another
    sequence (``_beside``; not ``beside`` a parser that does not split at ``&``: one
    splitting at ';' only read ``xx=xx&= `` as one pair), a form's names alone and its values
    alone padded (a serializer writing ``a`` for the pair ``a``/empty is not one that
    drops empty pairs, though both write nothing for an empty name and value), each of
    its pairs alone (one keeping the last pair of a name drops the first of two, not
    every pair with an empty value), and on the case with each ASCII
    character that is no delimiter, nor an escape's digit, written as ``VARIANTS``
    members of its group the input does not hold, and with its escapes' hex letters in
    the other case (``%aa`` kept is no non-UTF-8 escape kept when ``%AA`` is decoded).
    An encoder that doubles every
    letter answers ``a`` with ``aa``, which "adds 'a' before the answer" explains, and
    ``b`` with ``bb``, which it does not; a parser that strips a leading space is not
    one that removes every space. ``claimed``, the rule's own characters, are each
    tried alone between the padding (``CLAIMED`` of them, spread): "removes every
    whitespace" holds only if a space and a VT in the middle of a text are removed; and
    so are up to ``CLAIMED`` of the input's own characters, non-ASCII first ("normalizes
    with NFKC" holds only if a fullwidth digit alone is normalized). A rule of a form's
    ``part`` (``names`` or ``values``) is tried on its characters there only: what the
    other part does with them is another behaviour (a serializer leaving a space raw in
    names and writing it ``%20`` in values)."""
    strs = input_strs(case)
    escaped = {t[i] for t in strs for i in range(len(t)) if "%" in t[max(0, i - 2):i]}
    present = set("".join(strs))
    pad = next((c + c for c in "xqzjkvwy" if c not in present), None)
    variants: list[Case] = []
    if pad is not None:
        variants += [with_texts(case, lambda t: _padded(t, pad, True)),
                     with_texts(case, lambda t: _padded(t, pad, False))]
        if isinstance(case, FormParseCase) and beside:
            # the text as one sequence among others
            variants += [with_texts(case, lambda t: _beside(t, pad, True)),
                         with_texts(case, lambda t: _beside(t, pad, False))]
        if isinstance(case, FormCase):  # each field alone: an empty value beside a name
            variants += [replace(case, pairs=tuple((_padded(n, pad, True), v)
                                                   for n, v in case.pairs)),
                         replace(case, pairs=tuple((n, _padded(v, pad, True))
                                                   for n, v in case.pairs))]
        step = max(1, len(claimed) // CLAIMED)
        alone = claimed[::step][:CLAIMED]
        # and each character of the input alone: a rule that acts on it there must
        # hold there ("normalizes with NFKC" for int() reading the fullwidth digit in
        # '%\uff14a' is refuted by '\uff14' alone, kept; where the rule does not act,
        # ``explained`` says nothing)
        # (non-ASCII first, then punctuation, then letters and digits: a minimized
        # input keeps what a name needs, and the ASCII letters are varied below)
        # (not a form parser's '&': alone in a name it leaves the pad before it a name
        # alone, which a parser refusing a sequence without '=' refused, or joins the
        # two, for a parser splitting at ';' only: "drops empty pairs" was refuted so
        # on '=&=' and 'a&'; the text beside another pair (``_beside``) sets it apart)
        apart = {"&"} if isinstance(case, FormParseCase) else set()
        own = sorted(present - set(alone) - set(pad) - apart,
                     key=lambda c: (c.isascii(), c.isascii() and c.isalnum(), c))
        alone += "".join(own[:CLAIMED])
        # (a form-parse text's: in a name, and in a value, as far as the rule's part
        # goes: a parser removing spaces from names and trimming values is no parser
        # removing every space, though a space in a name alone says so)
        fields = {"names": ("name",), "values": ("value",)}.get(part or "", ("name", "value")) \
            if isinstance(case, FormParseCase) else ("",)
        variants += [_in_fields(case, _between(char, pad, field), part)
                     for char in alone for field in fields
                     if ord(char) < 0x100 or all(isinstance(t, str) for t in input_texts(case))]
    if isinstance(case, DecodeCase | EncodeCase) and pad is not None:
        # each delimiter the rule does not name written as a letter (not '%', nor one
        # after a '%': Java's '%+1' is an escape): what the rule claims holds without a
        # unit it says nothing of ("the input undecoded when it is not UTF-8" for a
        # decoder that keeps every escape after a raw '#' is refuted by 'x%aa')
        delimiters = (present & set(DELIMITERS)) - set(claimed) - escaped - {"%"}
        variants += [_with_char(case, char, pad[0]) for char in sorted(delimiters)]
    if isinstance(case, FormParseCase):  # each name as the value, each value as the name
        variants += [with_texts(case, functools.partial(_swapped, split=beside)),
                     with_texts(case, functools.partial(_with_equals, split=beside))]
    swapped = _hex_case_swapped(case)
    if swapped != case:  # a rule of escapes holds for their digits in either case
        variants.append(swapped)
    if isinstance(case, FormCase) and any(n != v for n, v in case.pairs):
        # each name as the value, each value as the name: a serializer leaving '=' raw
        # in names only is not one leaving it raw everywhere, though on ('= ', '') both
        # write the same (two findings for one behaviour, the first without its part).
        # An empty field stays empty where it was, the other side a plain letter: an
        # empty value moved is another behaviour (a serializer dropping such pairs)
        plain = fresh_letter("".join(present)) or "q"
        variants.append(replace(case, pairs=tuple(
            (v, n) if n and v else (n, v) if not n and not v else (plain, n) if n
            else (v, plain) for n, v in case.pairs)))
    if isinstance(case, FormCase) and len(case.pairs) > 1:  # each pair alone
        # (beside a plain pair where the case has an even number of pairs: an adapter
        # may pick its code path by their count's parity, as urllib's does)
        plain = fresh_letter("".join(present)) or "q"
        extra = ((plain, plain),) if len(case.pairs) % 2 == 0 else ()
        variants += [replace(case, pairs=(pair, *extra)) for pair in dict.fromkeys(case.pairs)]
    for char in sorted({c for c in present if c.isascii()} - escaped):
        group = _group_of(char)
        if group is not None:
            variants += [_with_char(case, char, other) for other in
                         _spread([c for c in UNIT_GROUPS[group] if c not in present])]
    return all(explained(variant) is not False for variant in variants)


def _in_fields(case: Case, change: Callable[[Any], Any], part: str | None) -> Case:
    """``case`` with ``change`` applied to each input text, or to a form's names only
    (``part="names"``) or its values only (``"values"``)."""
    if isinstance(case, FormCase) and part in ("names", "values"):
        return replace(case, pairs=tuple((change(n), v) if part == "names" else (n, change(v))
                                         for n, v in case.pairs))
    return with_texts(case, change)


def _between(char: str, pad: str, field: str = "") -> Callable[[Any], Any]:
    """A text's replacement: ``char`` alone between ``pad`` (str or bytes, as the text),
    as long as the text is odd or even (one more pad letter at the end: an adapter may
    pick its code path by the parity of the input's length, as urllib's does);
    ``field`` (a form-parse text): ``name``, in a name with the value ``pad`` (a parser
    may refuse a name alone, which refuted every rule of its other behaviours there),
    or ``value``, in a value after the name ``pad``."""
    def change(text: Any) -> Any:
        middle: Any = char.encode("latin-1") if isinstance(text, bytes) else char
        before = f"{pad}={pad}" if field == "value" else pad
        after = pad + f"={pad}" * (field == "name")
        after += pad[0] * ((len(text) - len(after) - len(before) - 1) % 2)
        return _padded(_padded(middle, before, True), after, False)
    return change
