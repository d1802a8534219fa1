"""The rules of the catalogue that could explain a divergence, simplest first, with
parameters read off the case and asked of the implementation (``candidates``), for
``accept.rules.find_rule`` to try.

Each operation tries its own in its own order (``_encoder``, ``_serializer``,
``_decoder``, ``_parser``), over shared steps: refusals, the set, text rewrites,
structure, rewrites of the answer, transforms of the input. Parameters are the
implementation's own where they can be asked (its set, its characters per rule, its
modes), so one behaviour is one rule whatever characters a case holds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pctfuzz._internal.accept.decoders import (
    PREDECODE_DELIMITERS,
    U_ESCAPE,
    decoded_meaning,
    utf8_pieces,
)
from pctfuzz._internal.accept.meaning import C0_SPACE, CONTROLS, DELIMITERS, WHITESPACE
from pctfuzz._internal.accept.model import REQUOTE_MODES, Model, render
from pctfuzz._internal.accept.reconcilers import (
    CUT_CHARS,
    DECODE_PARTS,
    PARTS,
    TAKEN_AS_ENCODED,
    written_templates,
)
from pctfuzz._internal.accept.reconcilers.sets import DECODING_MODES
from pctfuzz._internal.accept.rule import (
    UNPROBED,
    Chars,
    Confirm,
    Order,
    ParserMode,
    Probe,
    Rule,
    SetProbe,
    build_rule,
)
from pctfuzz._internal.cases import Case, EncodeCase, FormCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.form import form_urldecode
from pctfuzz._internal.inputs import REFUSAL_INPUTS, input_has, input_strs, input_texts
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.outcome import Outcome, refusal_type
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.sets import FORM, PercentEncodeSet, get_set, set_names
from pctfuzz._internal.spec import HEX_DIGIT, PERCENT_ENCODED_BYTE, PERCENT_ENCODED_RUN
from pctfuzz._internal.text import strip_lone_surrogates

__all__ = ["candidates"]

_UNPROBED = frozenset(map(ord, UNPROBED))


def _chars(codes: frozenset[int]) -> str:
    return "".join(map(chr, sorted(codes)))


def _inferred_set(case: Case, actual: Any) -> SetProbe:
    """The set difference as the input and the answer show it (no probe; nothing
    written otherwise)."""
    members = FORM.members if isinstance(case, FormCase) else \
        get_set(case.set_name).members if isinstance(case, EncodeCase) else frozenset()
    if not isinstance(actual, str):
        return frozenset(), frozenset(), ()
    seen = {c for text in input_texts(case) for c in
            (text.encode("latin-1", "ignore") if isinstance(text, str) else text) if c < 0x80}
    seen -= {0x20, 0x25}
    upper = actual.upper()
    raw = frozenset(c for c in seen if c in members and chr(c) in actual)
    enc = frozenset(c for c in seen if c not in members and f"%{c:02X}" in upper)
    return raw, enc, ()


_LOWER_TRIPLET = re.compile("%([0-9a-f][a-f]|[a-f][0-9a-f])")
_VALID_TRIPLET = PERCENT_ENCODED_BYTE
_REMOVED = ("\t\n\r", WHITESPACE, "\t", "\n", "\r")
#: The start of an HTML character reference (``html_unescaped``): ``&#``, or ``&`` and a
#: name ended by ``;``.
_HTML_REFERENCE = re.compile("&(?:#|[A-Za-z][A-Za-z0-9]*;)")
#: An escape a signed hex number reads: ``%+H``, ``%-0`` (``signed_escapes``).
_SIGNED = re.compile(rf"%(?:\+{HEX_DIGIT}|-0)")


def _has_legacy_encoding(case: Case) -> bool:
    label = getattr(case, "encoding", None)
    try:
        return isinstance(label, str) and not lookup(label).is_utf8
    except PctfuzzError:
        return False


def _own_chars(chars: Chars | None, rule: str, strs: Sequence[str],
               options: Sequence[str]) -> list[str]:
    """The characters of ``rule`` to try: the implementation's own (``chars``), so one
    behaviour is one rule whatever characters a case holds (none when it has none);
    each of ``options`` when it cannot be asked. Only those the input holds."""
    own = chars(rule) if chars is not None else None
    return [each for each in (options if own is None else [own] if own else [])
            if any(c in t for t in strs for c in each)]


@dataclass(frozen=True)
class _Asks:
    """What naming may ask the implementation (``find_rule``'s callables; None: it
    cannot be asked)."""

    probe: Probe | None = None
    confirm: Confirm | None = None
    order: Order | None = None
    requote: Order | None = None
    chars: Chars | None = None
    parser_mode: ParserMode | None = None

    def mode(self, rule: str) -> str | None:
        """The parser's own parameter of ``rule`` (``ParserMode``), if it can be asked."""
        return self.parser_mode(rule) if self.parser_mode is not None else None


@dataclass(frozen=True)
class _Seen:
    """A diverging case as naming reads it: the input's texts (``strs``: as str, with
    each lone surrogate's text without it too) and both answers."""

    case: Case
    texts: list[str | bytes]
    strs: list[str]
    want: Any
    got: Any

    @classmethod
    def of(cls, case: Case, want: Any, got: Any) -> _Seen:
        strs = input_strs(case)
        if input_has(case, "lone-surrogate"):  # and the text they leave when dropped (yarl
            strs += [strip_lone_surrogates(t) for t in strs]  # requotes '%54' of '%5\ud8004')
        return cls(case, input_texts(case), strs, want, got)

    def holds(self, chars: str) -> bool:
        """Some text of the input holds one of ``chars``."""
        return any(c in t for t in self.strs for c in chars)


def candidates(check: str, case: Case, expected: Outcome, actual: Outcome,
                probe: Probe | None, confirm: Confirm | None,
                order: Order | None = None,
                requote: Order | None = None,
                chars: Chars | None = None,
                parser_mode: ParserMode | None = None) -> Iterator[Rule | None]:
    """The catalogue's rules that could explain this case, simplest first: a refusal's
    when either side refused, else those of the operation, in its own order
    (``_BY_OPERATION``). The callables ask the implementation what the case alone
    cannot tell (``accept.rule``'s types)."""
    asks = _Asks(probe, confirm, order, requote, chars, parser_mode)
    if actual.error is not None and not expected.raised:
        yield from _refusals(case, chars, refusal_type(actual.error))
    elif actual.raised:
        assert actual.error is not None
        yield build_rule("both_refuse", type(actual.error).__name__)
    elif expected.raised:
        yield from _refused_by_reference(check, case, asks)
    else:
        yield from _BY_OPERATION[check](_Seen.of(case, expected.value, actual.value), asks)


def _refused_by_reference(check: str, case: Case, asks: _Asks) -> Iterator[Rule | None]:
    """What explains an answer where the reference refuses: a lone surrogate's ways, a
    legacy codec's, and the implementation's other ways with the text beside them."""
    writes = check in (ENCODE.name, FORM_SERIALIZE.name)
    legacy = writes and _has_legacy_encoding(case)
    surrogate = input_has(case, "lone-surrogate")
    yield from _surrogate_rules(case, asks.chars, refused=True)
    if legacy:  # a lone surrogate the codec writes as an NCR
        yield build_rule("python_codec")
    if (legacy or surrogate) and asks.probe is not None and writes:
        raw, enc, _written = asks.probe()  # with the implementation's set (urllib: ~ raw)
        wide = _non_ascii_raw(asks.chars, input_strs(case), _harmless(_chars(raw)))
        yield from _set_rules("left_raw", raw, input_strs(case), wide=wide == "all")
        yield from _set_rules("encoded", enc, input_strs(case))
    if surrogate and writes:  # and its other ways with the text
        strs = [t for t in input_texts(case) if isinstance(t, str)]
        yield from _part_rules(check, strs, asks.chars)
        if any(" " in t for t in strs):  # (urllib's urlencode(quote_via=quote))
            yield build_rule("space_as", "%20")
            yield build_rule("space_as", "+")
        yield from _escape_rules(check, case, strs, asks.requote, asks.chars)
    yield from _unmappable(check)
    if legacy:
        yield build_rule("whole_characters")


def _encoder(seen: _Seen, asks: _Asks) -> Iterator[Rule | None]:
    """An encoder's candidates: its set and ways of writing, its input transformed,
    its answer rewritten."""
    yield from _writer(ENCODE.name, seen, asks)
    yield from _normalizations(ENCODE.name, seen)
    yield from _dot_segments(seen, asks)
    yield from _answer_rewrites(ENCODE.name, seen, asks)
    yield from _text_transforms(ENCODE.name, seen, asks)


#: A dot, raw or escaped (``dot_segments``).
_DOT = re.compile(r"\.|%2e", re.IGNORECASE)


def _dot_segments(seen: _Seen, asks: _Asks) -> Iterator[Rule | None]:
    """An encoder that resolves a path's dot segments, where the input holds a dot
    (a segment may be one only once another rule has removed a TAB from it): as the
    implementation spells a dot (asked: ``chars("dot_segments")``), else either way.
    A raw dot and an escaped one were a class each."""
    if not any(_DOT.search(t) for t in seen.strs):
        return
    own = asks.chars("dot_segments") if asks.chars is not None else None
    past = {"past_root": True} if own and own.endswith("past-root") else {}
    if own is None or own.startswith("raw"):
        yield build_rule("dot_segments", **past)
    if own is None or own.startswith("escaped"):
        yield build_rule("dot_segments", escaped=True, **past)


def _serializer(seen: _Seen, asks: _Asks) -> Iterator[Rule | None]:
    """A form serializer's: an encoder's, and its pairs' order and empty pairs."""
    yield from _writer(FORM_SERIALIZE.name, seen, asks)
    yield from _pair_structure(seen, asks)
    yield from _normalizations(FORM_SERIALIZE.name, seen)
    yield from _answer_rewrites(FORM_SERIALIZE.name, seen, asks)
    yield from _text_transforms(FORM_SERIALIZE.name, seen, asks)


def _decoder(seen: _Seen, asks: _Asks) -> Iterator[Rule | None]:
    """A decoder's: how it reads bytes and escapes, its replacement of invalid UTF-8,
    a second decoding, its answer ended at a NUL, a cut, its answer rewritten, its
    input trimmed."""
    chars, strs = asks.chars, seen.strs
    if input_has(seen.case, "lone-surrogate"):  # held to U+FFFD (the non-scalar policy)
        yield from _unmappable(DECODE.name)
    own_replacement = yield from _reading(DECODE.name, seen, asks)
    if any(_SIGNED.search(t) for t in strs):
        yield build_rule("signed_escapes")  # (Java's %+1: one finding per segment before it)
    if any(U_ESCAPE.search(t) for t in strs):
        yield build_rule("percent_u")  # (.NET's %u0041: a model field, beside '+' as a space)
    yield from _latin1_chars(seen, asks)
    yield from _replacements(own_replacement or (None if chars is None
                                                 else chars("replacement")), asks)
    if seen.holds("+"):
        yield build_rule("plus_as_space")  # (a model field: it composes with replacement)
    if chars is not None and chars("decoded_repeatedly") and seen.holds("%"):
        yield build_rule("decoded_repeatedly")  # (asked: %252541 answered as A)
    elif seen.holds("%"):
        yield build_rule("decoded_twice")
    if isinstance(seen.want, bytes) and b"\x00" in seen.want \
            and (chars is None or chars("nul_terminated")):
        # (before the input's cut at a raw NUL: asked, as a decoded '%00' is written raw
        # before it is named, ``locate.as_unescaped``, where cut_at(NUL) explains it too)
        yield build_rule("nul_terminated")
    yield from _cuts(strs, chars, seen.want, seen.got, asks.confirm)
    yield from _answer_rewrites(DECODE.name, seen, asks)
    yield from _text_transforms(DECODE.name, seen, asks)


def _latin1_chars(seen: _Seen, asks: _Asks) -> Iterator[Rule | None]:
    """``latin1_chars`` where the input holds a character it writes otherwise and the
    implementation answers ``%41é`` so (Mono's raw 'é' as the byte E9, beside '+' and
    %u: asked, as what a hand-rolled UTF-8 decoder loses after '%e2%82' can look the
    same)."""
    if asks.chars is not None and any(
            re.search("[\x80-\xff\ud800-\udfff\U00010000-\U0010ffff]|%u(?:00[89a-f]|d)",
                      t, re.IGNORECASE) for t in seen.strs) and asks.chars("latin1_chars"):
        yield build_rule("latin1_chars")


def _parser(seen: _Seen, asks: _Asks) -> Iterator[Rule | None]:
    """A form parser's: its way with names, sequences and pairs, then a decoder's."""
    strs = seen.strs
    if input_has(seen.case, "lone-surrogate"):
        yield from _unmappable(FORM_PARSE.name)
    yield from _mangled_names(asks.parser_mode)
    scope = asks.mode("needs_equals")
    if scope == "text" and not seen.holds("="):
        yield build_rule("needs_equals")  # before empty_pairs(dropped), which drops "a"
    elif scope == "sequence":
        yield build_rule("needs_equals", scope=scope)
    yield from _pair_structure(seen, asks)
    if _has_empty(seen.case, "sequence"):
        yield from _empty_kept(asks.parser_mode)
    if not seen.holds("="):
        yield build_rule("needs_equals")
    if seen.holds("+"):
        yield build_rule("plus_kept")
    if seen.holds(";"):
        yield build_rule("semicolon_separates")
    own_html = asks.mode("html_unescaped") if any(
        _HTML_REFERENCE.search(t) for t in strs) else None
    if own_html:
        # (before the decoders' rules: '&#0' read as '&#' looked like data dropped). Only
        # the mode the parser is asked to read as: '&amp;' alone is read alike by both,
        # and a parser that reads numbers its own way (Erlang's dissect_query, an error
        # for '&#65' unended) met the mono mode's answer on '&#3;' by chance.
        yield build_rule("html_unescaped", own_html)
    own_replacement = yield from _reading(FORM_PARSE.name, seen, asks)
    yield from _latin1_chars(seen, asks)  # (it decodes each name and value so)
    yield from _replacements(own_replacement or None, asks)
    # (a form parser reading %2B as a space decodes a second time as a form does)
    twice = {"plus": "space"} if asks.mode("decoded_twice") == "space" else {}
    # A parser that decodes the whole text, or each sequence, before it splits: each
    # delimiter its own rule, asked of it (it decodes twice too, but an escaped '&' or
    # '=' splits there); then a second decoding of its own (a name decoded again).
    if asks.mode("decoded_before_split") is not None:
        yield from _predecoded(strs)
    if seen.holds("%"):
        yield build_rule("decoded_twice", **twice)
    yield from _cuts(strs, asks.chars, seen.want, seen.got, asks.confirm)
    yield from _text_transforms(FORM_PARSE.name, seen, asks)
    # last: each refutes nothing the rule of both parts does not, and ranked earlier
    # they would leave a lone surrogate's rule out of the combined ones
    if seen.holds("+"):
        yield from _in_each_part("plus_kept")
    if seen.holds("%"):
        yield from _in_each_part("decoded_twice", **twice)


#: Each operation's candidates, in its order (``_candidates``).
_BY_OPERATION: dict[str, Callable[[_Seen, _Asks], Iterator[Rule | None]]] = {
    ENCODE.name: _encoder, FORM_SERIALIZE.name: _serializer,
    DECODE.name: _decoder, FORM_PARSE.name: _parser}


def _writer(check: str, seen: _Seen, asks: _Asks) -> Iterator[Rule | None]:
    """An encoder's or a serializer's way of writing: lone surrogates, its set (asked
    of it), spaces, hex case, characters written otherwise, escapes of the input, a
    cut, legacy encodings."""
    case, strs, chars = seen.case, seen.strs, asks.chars
    yield from _surrogate_rules(case, chars, refused=False)
    if input_has(case, "lone-surrogate"):  # held to U+FFFD (the non-scalar policy)
        yield from _unmappable(check)
    raw, enc, written = asks.probe() if asks.probe is not None \
        else _inferred_set(case, seen.got)
    space = chars("space") if chars is not None else None
    wide = _non_ascii_raw(chars, strs, _harmless(_chars(raw)))
    yield from _set_rules("left_raw", raw, strs,
                          other=_other_set(_base_set(case), raw, enc, strs, space or None),
                          wide=wide == "all")
    yield from _set_rules("encoded", enc, strs)
    yield from _part_rules(check, strs, chars)
    if any(" " in t or "%20" in t or "+" in t for t in strs):
        yield build_rule("space_as", "%20")
        yield build_rule("space_as", "+")
    if isinstance(seen.got, str) and _LOWER_TRIPLET.search(seen.got):
        yield build_rule("lowercase_hex")
    if seen.holds("\r\n") and chars is not None and chars("newlines_normalized"):
        # (before the characters written otherwise: '\n' alone is written_as's too,
        # and then every CR LF of the input a finding of its own class)
        yield build_rule("newlines_normalized")
    yield from _written_rules(written, strs)
    yield from _escape_rules(check, case, strs, asks.requote, asks.chars)
    # A cut of the answer, confirmed on a doubled input, before the guesses about
    # '%' below (made from the case alone): a '%' at the cut is explained by both.
    yield from _cuts(strs, chars, seen.want, seen.got, asks.confirm)
    if seen.holds("%"):  # the probe leaves % out
        yield build_rule("left_raw", "%")  # boltons' form serializer
        yield build_rule("encoded", "%")  # requests' requote fallback
    if check == ENCODE.name and any(_VALID_TRIPLET.search(t) for t in strs):
        # Where several modes explain a case, the implementation's own names it.
        own_mode = asks.requote() if asks.requote is not None else None
        kept = chars("requoted-kept") if chars is not None else None
        for mode in [own_mode] if own_mode else REQUOTE_MODES:
            decoded = _decoded_by(mode, kept or "", case)
            if decoded:  # (first: without it, an input holding one is another finding)
                yield _requoted(mode, kept=decoded)
            if mode in DECODING_MODES and isinstance(case, EncodeCase):
                for meaning in _decoded_meanings(case):  # (``_escape_rules``)
                    yield build_rule("requoted", mode, decoded=meaning)
            else:
                yield _requoted(mode)
    if _has_legacy_encoding(case):
        if check == ENCODE.name:
            yield build_rule("ncr_unescaped")
        yield build_rule("python_codec")
        yield from _unmappable(check)
        yield build_rule("whole_characters")  # (an ASCII byte of a Shift_JIS character)


def _pair_structure(seen: _Seen, asks: _Asks) -> Iterator[Rule | None]:
    """A serializer's or a parser's pair order and dropped empty pairs, where they show."""
    if _pairs_at_least_two(seen.case):
        # Where both explain a case (its names already in order), the implementation's
        # own order (``order``: asked on pairs only one of them explains) names it.
        own = asks.order() if asks.order is not None else None
        for each in ([own] if own else [] if own == "" else
                     ["sorted", "grouped", "sorted-bytes", "sorted-pairs"]):
            yield build_rule("pairs_order", each)
    if _has_empty(seen.case, "value"):
        yield build_rule("empty_pairs", "dropped")
    if _has_empty(seen.case, "name"):
        yield build_rule("empty_pairs", "names-dropped")


def _reading(check: str, seen: _Seen,
             asks: _Asks) -> Generator[Rule | None, None, str | None]:
    """How a decoder or a parser reads its input: bytes as latin-1, its own decoding
    ways, a parser's own replacement mode (returned, asked of it), lone surrogates."""
    yield from _latin1_bytes(seen.texts, asks.chars)
    yield from _decoder_rules(check, seen.strs, asks.chars)
    own_replacement = asks.mode("replacement")
    if own_replacement:  # (asked of the parser: before the guesses below)
        yield build_rule("replacement", own_replacement)
    # Node's low byte of U+D83F is '?': the decoder's own mode names it, not
    # lone_surrogates(question-mark).
    yield from _surrogate_rules(seen.case, asks.chars, refused=False)
    return own_replacement


def _replacements(known_mode: str | None, asks: _Asks) -> Iterator[Rule | None]:
    """Each replacement mode of invalid UTF-8 when the implementation's own is not
    known (``known_mode``: asked of it already, "" when it answers as none of them: a
    bytes decoder; eight guesses would push the rules after them out of the combined
    ones, '+' as a space: such a decoder that also cut at a raw NUL was a finding per
    answer), then the latin-1 fallback."""
    if known_mode is None:
        for mode in ("per-sequence", "per-byte", "dotnet", "percent-encoded", "dropped",
                     "surrogateescape", "undecoded", "low-byte"):
            yield build_rule("replacement", mode)
    scope = asks.chars("latin1_fallback") if asks.chars is not None else None
    if scope:
        # (asked: '%C3%A9' answered 'Ã©', and 'é' too for "answer"; the minimal
        # input of a latin-1 reader is often a byte that is not UTF-8, which the
        # narrower scope explains too)
        yield build_rule("latin1_fallback", scope=scope)
    yield build_rule("latin1_fallback")


def _normalizations(check: str, seen: _Seen) -> Iterator[Rule | None]:
    """Unicode normalization of the input (an input transform, but before the rewrites
    of the answer: those are candidates for most inputs and would leave it out of the
    combined ones)."""
    for form in ("NFC", "NFKC"):
        if any(isinstance(t, str) and unicodedata.normalize(form, t) != t for t in seen.texts):
            yield build_rule("normalized", form)
    yield from _normalized_escaped(check, seen.texts)


def _answer_rewrites(check: str, seen: _Seen, asks: _Asks) -> Iterator[Rule | None]:
    """A fixed answer in place of the input's, text added before or after it."""
    want, got = seen.want, seen.got
    if check != FORM_SERIALIZE.name and _fixed_answer(got, want, seen.texts, asks.confirm):
        # (not a serializer's: its answer is made of its pairs, which one keeping a
        # pair per name answers alike for the pairs twice)
        yield build_rule("answered",
                         got if isinstance(got, str) else got.decode("utf-8", "replace"))
    if isinstance(got, str | bytes) and type(want) is type(got) and len(got) > len(want):
        extra = len(got) - len(want)
        text = got if isinstance(got, str) else got.decode("utf-8", "replace")
        yield build_rule("prefixed", text[:extra] if isinstance(got, str) else None)
        yield build_rule("suffixed", text[-extra:] if isinstance(got, str) else None)


def _text_transforms(check: str, seen: _Seen, asks: _Asks) -> Iterator[Rule | None]:
    """Characters removed from the input or trimmed at its ends (a parser's from each
    name and value, a decoder's from its decoded text), each set the implementation's
    own where it can be asked (LF alone: "\\t\\n\\r" and "\\n" explain it)."""
    strs, chars = seen.strs, asks.chars
    for removed in _own_chars(chars, "removed", strs, _REMOVED):
        yield build_rule("removed", removed)
    # (a form's names and values as decoded: '+' and %20 are spaces there)
    held = [*strs, *(f"{n}={v}" for t in strs for n, v in form_urldecode(t))] \
        if check == FORM_PARSE.name else strs
    if check == DECODE.name:
        # the decoded text stripped first: it also explains a raw space at an end, and
        # named after the input's trim it was a second finding (``%20`` alone)
        texts_decoded = [percent_decode(t).decode("utf-8", "replace") for t in strs]
        for trimmed in _own_chars(chars, "trimmed-decoded", texts_decoded,
                                  (WHITESPACE, C0_SPACE)):
            if any(t != t.strip(trimmed) for t in texts_decoded):
                yield build_rule("trimmed", trimmed, part="decoded")
    for trimmed in _own_chars(chars, "trimmed", held, (WHITESPACE, C0_SPACE)):
        if check == FORM_PARSE.name:
            # each decoded name and value first (str.strip() on each; '+' and %20 are
            # spaces there): beside another sequence, a parser trimming its whole text
            # refutes it (``generalize.holds_on_variants``), while the text-wide rule,
            # which changes nothing inside, cannot be refuted so
            yield build_rule("trimmed", trimmed, part="fields")
            # (a parser stripping only values, or only names: the swapped variant of
            # ``generalize.holds_on_variants`` refutes "fields" there)
            yield build_rule("trimmed", trimmed, part="values")
            yield build_rule("trimmed", trimmed, part="names")
        if any(t != t.strip(trimmed) for t in strs):
            yield build_rule("trimmed", trimmed)
    if check == FORM_PARSE.name:
        # each field's own: a parser removing every space of a name and trimming values
        # trims no space in both, and its value's space was a finding beside the rule
        for part in ("values", "names"):
            for trimmed in _own_chars(chars, f"trimmed-{part}", held, ()):
                yield build_rule("trimmed", trimmed, part=part)
    # (at the start only: Python's urlsplit; each C0 control and the space alike; at
    # the end only: a parser's rstrip of its query, a finding per character class
    # and field where no rule named it)
    for start in _own_chars(chars, "trimmed-start", strs, (C0_SPACE,)):
        if any(t != t.lstrip(start) for t in strs):
            yield build_rule("trimmed", start, part="start")
    for end in _own_chars(chars, "trimmed-end", strs, (C0_SPACE,)):
        if any(t != t.rstrip(end) for t in strs):
            yield build_rule("trimmed", end, part="end")


def _fixed_answer(got: Any, want: Any, texts: Sequence[str | bytes],
                  confirm: Confirm | None) -> bool:
    """``got`` may be a fixed answer (``answered``): a text that neither holds the
    input's text nor is held by it or by the reference's answer, that has a character
    none of them holds (nor U+FFFD, which decoding makes), and the answer to the input
    twice is as long (``confirm``: asked of the implementation). A decoder cutting its
    answer at a decoded NUL, its invalid UTF-8 replaced, answered the input up to
    there: a text of the input's own characters, "answered" for each input apart."""
    if not isinstance(got, str | bytes) or not got or type(got) is not type(want) \
            or confirm is None:
        return False
    if got in want or any(type(t) is type(got) and (got in t or (t and t in got))  # type: ignore[operator]
                          for t in texts):
        return False
    made = {"\ufffd"}.union(*map(_as_text, [want, *texts]))
    if set(_as_text(got)) <= made:
        return False
    return confirm(len(got))


def _as_text(text: str | bytes) -> str:
    """A text, bytes read as UTF-8 (U+FFFD where they are not)."""
    return text if isinstance(text, str) else text.decode("utf-8", "replace")


def _predecoded(strs: Sequence[str]) -> Iterator[Rule | None]:
    """``decoded_before_split`` for each delimiter whose escape the input holds, then
    for ``%`` (every other escape decoded twice)."""
    for char in sorted(chr(c) for c in PREDECODE_DELIMITERS):
        escape = re.compile(f"%{ord(char):02X}", re.IGNORECASE)
        if any(escape.search(t) for t in strs):
            yield build_rule("decoded_before_split", char)
    if any("%" in t for t in strs):
        yield build_rule("decoded_before_split", "%")


def _has_empty(case: Case, what: str) -> bool:
    """The case has a pair with an empty value (``what="value"``) or name (``"name"``;
    a name a trim empties is the trim's and this rule's together), or an empty sequence
    (``"sequence"``: form-parse), where ``empty_pairs`` can show: otherwise its modes
    only push the rules after them out of the combined ones."""
    if isinstance(case, FormCase):
        return any(not value for _, value in case.pairs) if what == "value" else \
            what == "name" and any(not name for name, _ in case.pairs)
    text = getattr(case, "text", None)
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    if not isinstance(text, str):
        return True
    sequences = text.split("&")  # (';' separates only by a rule of its own)
    if what == "sequence":
        return any(not sequence for sequence in sequences)
    if what == "name":
        return any(not name for name, _ in form_urldecode(text))
    return any(not sequence.partition("=")[2] for sequence in sequences)


def _pairs_at_least_two(case: Case) -> bool:
    """The case has two pairs or more (a form) or a separator (form-parse): an order
    of pairs can show."""
    if isinstance(case, FormCase):
        return len(case.pairs) > 1
    text = getattr(case, "text", None)
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    return not isinstance(text, str) or "&" in text or ";" in text  # (';': as '&' too)


def _surrogate_rules(case: Case, chars: Chars | None, *,
                     refused: bool) -> Iterator[Rule | None]:
    """``lone_surrogates`` when the input holds one (mdurl writes U+FFFD, yarl drops it,
    urllib3 encodes its surrogatepass bytes): the reference refuses it or writes U+FFFD,
    so the first difference is the surrogate's, and a set rule of the same case comes
    with it. The implementation's own mode (``chars("lone_surrogates")``: as it answers
    ``a\\ud800b``) when it has one: each other mode only pushes the rules after them
    out of the combined ones (yarl's requoting beside its '%' as %25)."""
    if not input_has(case, "lone-surrogate"):
        return
    own = chars("lone_surrogates") if chars is not None else None
    if own:
        yield build_rule("lone_surrogates", own)
        return
    if refused:  # else the reference's answer has U+FFFD already (non-scalar policy)
        yield build_rule("lone_surrogates", "replaced")
    for mode in ("dropped", "surrogatepass", "merged", "question-mark"):
        yield build_rule("lone_surrogates", mode)


def _shows(char: str, strs: Sequence[str]) -> bool:
    """The input holds ``char``, as itself or as its escape ``%HH``."""
    escape = f"%{ord(char):02X}"
    return any(char in t or escape in t.upper() for t in strs)


def _split(chars: str, strs: Sequence[str], non_ascii: bool = False) -> list[str]:
    """``chars`` split by impact (``accept.impact``): each delimiter the input shows on
    its own, first (a case several of them explain is named by its most telling one),
    then the controls together, then the other characters together, each if the input
    shows one of them. So a raw ``+`` is never one finding with a harmless raw ``~``,
    whatever the input holds. ``non_ascii``: the characters above U+007F are harmless
    ones too (``left_raw``'s ``non_ascii``), so the last group is there when the input
    holds one of them, even empty."""
    groups = [c for c in chars if c in DELIMITERS and _shows(c, strs)]
    harmless = _harmless(chars)
    for group in ("".join(c for c in chars if c in CONTROLS), harmless):
        if group and any(_shows(c, strs) for c in group):
            groups.append(group)
    if non_ascii and harmless not in groups and not all(t.isascii() for t in strs):
        groups.append(harmless)
    return groups


def _harmless(chars: str) -> str:
    """The characters of ``chars`` that are neither a delimiter nor a control."""
    return "".join(c for c in chars if c not in DELIMITERS and c not in CONTROLS)


def _left_raw_rules(chars: str, strs: Sequence[str], wide: bool,
                    **options: str) -> Iterator[tuple[str, Rule | None]]:
    """``left_raw`` of ``chars`` split by impact (``_split``), each group with it; the
    harmless group with ``non_ascii`` where ``wide`` (the writer leaves every character
    above U+007F as itself there too): one finding for a raw ``é`` and a raw ``!``."""
    harmless = _harmless(chars)
    for group in _split(chars, strs, wide):
        yield group, build_rule("left_raw", group, **options,
                                **({"non_ascii": True} if wide and group == harmless else {}))


def _set_rules(name: str, codes: frozenset[int], strs: Sequence[str],
               other: Rule | None = None, wide: bool = False) -> Iterator[Rule | None]:
    """``left_raw`` or ``encoded`` of the characters ``codes``, split by impact
    (``_split``), with ``other`` (``other_set``) after the delimiters: a case holding one
    is named by it. An escaped delimiter never splits a field, but it changes what the
    component says (``a%2Fb`` is one path segment, ``a%3Bb`` no parameter), so an
    encoder escaping ``;`` beside a harmless ``!`` is two findings too. ``wide``
    (``left_raw``): every character above U+007F is left raw too (``_left_raw_rules``)."""
    groups = _left_raw_rules(_chars(codes), strs, wide) if name == "left_raw" else \
        ((group, build_rule(name, group)) for group in _split(_chars(codes), strs))
    for group, rule in groups:
        if other is not None and not (group and group[0] in DELIMITERS):
            yield other
            other = None
        yield rule
    if other is not None:
        yield other


def _non_ascii_raw(chars: Chars | None, strs: Sequence[str], harmless: str) -> str:
    """Where the writer leaves each character above U+007F as itself
    (``chars("non_ascii")``: "all", a serializer's "names" or "values", else ""), asked
    only where it can name a case: the input holds such a character, or one of the
    harmless characters the writer leaves raw."""
    if chars is None or (all(t.isascii() for t in strs)
                         and not any(_shows(c, strs) for c in harmless)):
        return ""
    return chars("non_ascii") or ""


def _written_rules(written: Sequence[tuple[int, str]],
                   strs: Sequence[str]) -> Iterator[Rule | None]:
    """``written_as`` of the characters the implementation writes as a text of their
    own (asked alone: ``Probe``), one rule per group of them split by impact as
    ``left_raw``'s are (``_split``), each if the input holds one: its text the one they
    share, else a template they share (every control as ``^``, every letter doubled as
    ``{c}{c}``), else each one's own (a list). An HTML-escaping encoder's ``<``, ``>``
    and ``"`` were a finding each (hold-out 13: seven for one behaviour)."""
    texts = dict(written)
    for group in _split(_chars(frozenset(texts)), strs):
        if any(c in t for t in strs for c in group):
            yield build_rule("written_as", group,
                             text=_shared_text(group, [texts[ord(c)] for c in group]))


def _shared_text(chars: str, texts: list[str]) -> str | list[str]:
    """What ``written_as`` says ``chars`` are written as, ``texts`` each: the one text,
    the first template all share (``written_templates``), else the list."""
    if len(set(texts)) == 1:
        return texts[0]
    shared = [template for template in written_templates(ord(chars[0]), texts[0])
              if all(template in written_templates(ord(c), text)
                     for c, text in zip(chars[1:], texts[1:], strict=True))]
    return shared[0] if shared else texts


def _in_part(strs: Sequence[str], part: str) -> list[str]:
    """The texts of a form's names (``part="names"``) or values among ``strs``, its
    input texts in order (each pair's name, then its value)."""
    return list(strs[0 if part == "names" else 1::2])


def _base_set(case: Case) -> PercentEncodeSet:
    """The set the reference holds ``case`` to: an encoder's own, a serializer's form set."""
    return get_set(case.set_name) if isinstance(case, EncodeCase) else FORM


def _other_set(base: PercentEncodeSet, raw: frozenset[int], enc: frozenset[int],
               strs: Sequence[str], space: str | None = None,
               part: str | None = None) -> Rule | None:
    """``other_set`` of the harmless characters left raw and of those encoded, when
    there are both, none of those encoded is a delimiter, the input shows one of them
    (or a space, which the set writes as ``space``: ``chars("space")``), and the set
    they make is another standard's (``_standard_set``): one finding for both
    directions and the space, whatever the input holds. A delimiter left raw stays a
    finding of its own (``_split``); two unrelated bugs, a ``<`` left raw and a ``~``
    encoded, make no standard set."""
    harmless = frozenset(c for c in raw if chr(c) not in DELIMITERS + CONTROLS)
    shows = any(_shows(c, strs) for c in _chars(harmless | enc)) or \
        (space is not None and any(" " in t for t in strs))
    if not harmless or not enc or any(chr(c) in DELIMITERS + CONTROLS for c in enc) \
            or not shows:
        return None
    if _standard_set((base.members | enc) - harmless) is None:
        return None
    return build_rule("other_set", _chars(harmless), encoded=_chars(enc),
                      **({"space": space} if space else {}), **({"part": part} if part else {}))


def _standard_set(members: frozenset[int]) -> str | None:
    """The name of a set of the catalogue (``pctfuzz sets``) whose ASCII characters are
    ``members``' (space and ``%`` aside, which the probe does not ask)."""
    ascii_members = {c for c in members if c < 0x80} - _UNPROBED
    return next((name for name in set_names()
                 if {c for c in get_set(name).members if c < 0x80} - _UNPROBED
                 == ascii_members), None)


def _in_each_part(name: str, **options: str) -> Iterator[Rule | None]:
    """A form parser's decoding rule in its names only, then its values only: tried
    after the rule of both (``find_rule``'s ``holds`` refutes that one where names and
    values are decoded by two functions: ``unquote_plus`` and ``unquote``)."""
    for part in DECODE_PARTS:
        yield build_rule(name, part=part, **options)


def _part_rules(check: str, strs: Sequence[str],
                chars: Chars | None) -> Iterator[Rule | None]:
    """``left_raw``/``encoded`` in one ``part`` of a form (names or values) only, with
    the characters the serializer treats so there and not in the other part
    (``chars("left_raw:values")``, ...), when the input holds one: furl's ``=`` raw in
    values was one first-difference finding per character beside it. Before them,
    ``other_set`` in a part, when the characters that part leaves raw and those it
    encodes (whether the other part does too: ``chars("left_raw-all:values")``) and its
    space make another standard's set, and the input's texts of that part show one."""
    if check != FORM_SERIALIZE.name or chars is None:
        return
    for part in ("names", "values"):  # first another standard's set there, as a whole
        raw, enc = chars(f"left_raw-all:{part}"), chars(f"encoded-all:{part}")
        if raw and enc:
            yield _other_set(FORM, frozenset(map(ord, raw)), frozenset(map(ord, enc)),
                             _in_part(strs, part), chars(f"space:{part}") or None, part)
    for part in PARTS:
        own = chars(f"left_raw:{part}") or ""
        wide = part in ("names", "values") and \
            _non_ascii_raw(chars, _in_part(strs, part), _harmless(own)) == part
        yield from (rule for _, rule in _left_raw_rules(own, strs, wide, part=part))
    for part in PARTS:
        escaped = chars(f"encoded:{part}")
        if escaped and any(c in t for t in strs for c in escaped):
            yield build_rule("encoded", escaped, part=part)


def _refusals(case: Case, chars: Chars | None, raised: str) -> Iterator[Rule | None]:
    """``refuses`` for each kind of input the case holds and the implementation refuses
    when asked a short input of that kind alone (``chars("refuses")``: the kinds,
    space-separated): a crash that is no refusal of such input (hyperlink raises for a
    newline in a fragment, ``"\n%a"``, and answers ``"%a"``) keeps its own finding. Each
    of the type ``raised`` (pycurl's ``ValueError`` for a NUL and libcurl's refusal of
    every control, ``pycurl.error``, were one finding)."""
    own = chars("refuses") if chars is not None else None
    kinds = [k for k in REFUSAL_INPUTS if own is None or k in own.split()]
    for kind in kinds:
        if input_has(case, kind):
            yield build_rule("refuses", kind, raised=raised)


def _decoded_meanings(case: EncodeCase) -> list[str]:
    """What the case's valid escapes mean once decoded as UTF-8 and encoded with its
    set (``decoders.decoded_meaning``), in the order they come."""
    if not isinstance(case.value, str):
        return []
    pes = get_set(case.set_name)

    def run(text: str, _plus: bool = False) -> str:
        return percent_encode(text, pes, encoding=case.encoding,
                              space_as_plus=case.space_as_plus)

    return list(dict.fromkeys(decoded_meaning(text, valid, run)
                              for match in PERCENT_ENCODED_RUN.finditer(case.value)
                              for _escapes, text, valid in utf8_pieces(match.group())))


def _escape_rules(check: str, case: Case, strs: Sequence[str], requote: Order | None,
                  chars: Chars | None) -> Iterator[Rule | None]:
    """The rules about the input's own ``%HH``, before the guesses about ``%`` (made from
    the case alone: ``left_raw("%")`` explains ``%00`` kept as it is too):

    - ``taken_as_encoded`` when the encoder writes an input with an escape back as it
      is (``chars("taken_as_encoded")``: ``<%41`` answered so), before ``requoted``,
      whose ``keep`` explains an input of escapes alone alike (uritemplate's ``{+var}``
      was a finding per character before its escape);
    - ``requoted`` in the implementation's own mode, when it has one (urllib3 keeps an
      all-escapes path: ``%00`` is then requoted(upper), not a second finding);
    - ``escapes_uppercased`` when the input holds a ``%hh`` with a lowercase hex
      letter: urllib3 uppercases ``%aa`` before it encodes its ``%`` as data, which
      was one first-difference finding per hex letter a-f.
    """
    when = chars("taken_as_encoded") if chars is not None and check == ENCODE.name \
        and any("%" in t for t in strs) else None
    if when and any(TAKEN_AS_ENCODED[when].search(t) for t in strs):
        yield build_rule("taken_as_encoded", when)
    if not any(_VALID_TRIPLET.search(t) for t in strs):
        return
    own_mode = requote() if requote is not None and check == ENCODE.name else None
    if own_mode in DECODING_MODES and isinstance(case, EncodeCase):
        # what this case's escapes mean once decoded, each its own finding: a harmless
        # requoting, the data it loses, a delimiter it lets out (one rule covered all
        # three; accepting it accepted data loss)
        for meaning in _decoded_meanings(case):
            yield build_rule("requoted", own_mode, decoded=meaning)
    elif own_mode:
        yield _requoted(own_mode)
    if any(m.group() != m.group().upper() for t in strs for m in _VALID_TRIPLET.finditer(t)):
        yield build_rule("escapes_uppercased")  # (%aa, %Ae, %dA: any lowercase hex letter)


def _decoded_by(mode: str, chars: str, case: Case) -> str:
    """The characters of ``chars`` whose escape ``requoted(mode)`` decodes in the case's
    set: only those can be kept (a mode that keeps every escape keeps them anyway)."""
    if not isinstance(case, EncodeCase):
        return ""
    model = Model(requote=mode.partition(" ")[0])
    return "".join(c for c in chars if render(model, ENCODE.name, replace(
        case, value=f"%{ord(c):02X}", encoding="utf-8")) == c)


def _requoted(own: str, kept: str = "") -> Rule | None:
    """``requoted`` in the mode ``requote()`` answered: ``MODE`` or ``MODE segments``
    (each '/'-separated segment on its own: furl's path, which was a first-difference
    finding or another mode's per mix of valid and invalid segments); ``kept``: the
    characters whose escapes it keeps as they are (pip keeps ``%2F``: three
    first-difference findings before)."""
    mode, _, scope = own.partition(" ")
    params = {**({"scope": scope} if scope else {}), **({"kept": kept} if kept else {})}
    return build_rule("requoted", mode, **params)


def _latin1_bytes(texts: Sequence[str | bytes],
                  chars: Chars | None) -> Iterator[Rule | None]:
    """``latin1_bytes`` for raw non-ASCII bytes, when the implementation reads them so
    (``chars("latin1_bytes")``: ``b"\xc3\xa9"`` answered as ``Ã©``), before
    ``latin1_fallback``, which explains a lone ``\x80`` too (starlette's one behaviour
    was that and a first-difference finding for a name and for a value)."""
    if chars is not None and any(isinstance(t, bytes) and not t.isascii() for t in texts) \
            and chars("latin1_bytes"):
        yield build_rule("latin1_bytes")


def _decoder_rules(check: str, strs: Sequence[str],
                   chars: Chars | None) -> Iterator[Rule | None]:
    """A decoder's own ways, asked of it (``chars``), before the replacement modes:

    - ``kept_encoded`` with the characters whose escapes it keeps, when the input holds
      one (hyperlink's ``to_iri`` keeps ``%23 %25 %5B %5D``: a first-difference finding
      per segment kind of what followed, ``seg=alnum``, ``seg=plus``, ...);
    - ``replacement`` in its own mode: where several modes explain a case (``%A0``
      answered ``%A0``: ``percent-encoded`` and ``undecoded``), its own names it.
    """
    if check == FORM_PARSE.name and chars is not None:
        # a parser that decodes nothing, or only its values (each escape it keeps was
        # a finding per kind of character: alnum, each delimiter, non-ASCII)
        for part in ("", *DECODE_PARTS):
            kept = chars("-".join(filter(None, ("kept_encoded", part))))
            if kept and any(f"%{ord(c):02x}" in t.lower() for t in strs for c in kept):
                yield build_rule("kept_encoded", kept, **({"part": part} if part else {}))
    if check != DECODE.name or chars is None:
        return
    kept = chars("kept_encoded")
    if kept and any(f"%{ord(c):02x}" in t.lower() for t in strs for c in kept):
        if chars("kept_encoded-hex") == "upper":  # (asked with a lowercase escape)
            yield build_rule("kept_encoded", kept, hex="upper")
        else:
            yield build_rule("kept_encoded", kept)
    mode = chars("replacement")
    if mode:
        yield build_rule("replacement", mode)


def _mangled_names(parser_mode: ParserMode | None) -> Iterator[Rule | None]:
    """``names_mangled`` in the implementation's own style, if it has one."""
    style = parser_mode("names_mangled") if parser_mode is not None else None
    if style:
        yield build_rule("names_mangled", style)


_KEPT = ("kept", "kept-but-last", "kept-but-trailing")


def _empty_kept(parser_mode: ParserMode | None) -> Iterator[Rule | None]:
    """``empty_pairs`` that keep empty sequences: the implementation's own mode, else
    each (a case without a final empty sequence is explained by both)."""
    mode = parser_mode("empty_pairs") if parser_mode is not None else None
    for each in ([mode] if mode in _KEPT else _KEPT):
        yield build_rule("empty_pairs", each)


def _normalized_escaped(check: str, texts: Sequence[str | bytes]) -> Iterator[Rule | None]:
    """``normalized_escaped``: a normalization of the escaped text, where it changes
    the text or a combining mark follows (one that composes with the last hex digit of
    an escape before it: %0E then U+0300)."""
    if check == ENCODE.name:
        for form in ("NFC", "NFKC"):
            if any(isinstance(t, str) and not t.isascii() and (
                    unicodedata.normalize(form, t) != t
                    or any(unicodedata.combining(c) for c in t)) for t in texts):
                yield build_rule("normalized_escaped", form)


def _unmappable(check: str) -> Iterator[Rule | None]:
    """``unmappable_replaced``: a lone surrogate, or a character a legacy encoding
    cannot encode, written as the byte '?' (Java's String.getBytes)."""
    if check in (ENCODE.name, FORM_SERIALIZE.name):
        yield build_rule("unmappable_replaced")


def _cuts(strs: Sequence[str], chars: Chars | None, want: Any, got: Any,
          confirm: Confirm | None) -> Iterator[Rule | None]:
    """``cut_at`` and ``truncated``: the answer cut short. A cut at a delimiter comes
    first: it is also a cut at its position, one n per position (Go's RawQuery ends at
    '#')."""
    firsts = sorted((min(t.find(c) for t in strs if c in t), c) for c in CUT_CHARS
                    if any(c in t for t in strs))
    for cut in _own_chars(chars, "cut_at", strs, [c for _, c in firsts]):
        yield build_rule("cut_at", cut)
    if isinstance(want, str | bytes | list) and type(want) is type(got) \
            and 0 < len(got) < len(want) and (confirm is None or confirm(len(got))):
        yield build_rule("truncated", len(got))
