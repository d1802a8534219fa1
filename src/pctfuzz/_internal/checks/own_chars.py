"""The characters an implementation applies a rule to, asked of it: ``own_chars``.

A rule of the catalogue that takes characters (``pctfuzz._internal.accept.rules``:
``Chars``) is named with the implementation's own: what it cuts at, removes, trims,
keeps escaped, refuses, leaves raw beyond ASCII; a decoder's replacement mode; a
writer's newline normalization. Each is asked of the implementation alone, on short
inputs in the case's context (its set, encoding, str or bytes), once per adapter and
context (``_OWN_CHARS``, ``_NON_ASCII``: ``checks.asked``'s one caching policy), never
read off the case. One rule's question is one small function of ``_PROBES``, given the
``_Asker`` of that context.

Of the checks it imports ``checks.profile`` (``run_impl``, the refusals, the
characters by part of a pair, a case with another text) and ``checks.asked``;
``checks.locate``, ``checks.differential`` and ``checks.probe_operations`` import it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from pctfuzz._internal.accept.meaning import C0_SPACE, WHITESPACE
from pctfuzz._internal.accept.model import Model
from pctfuzz._internal.accept.reconcilers import CUT_CHARS, SPACES
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.asked import UNASKED, Asked
from pctfuzz._internal.checks.profile import (
    form_part_chars,
    own_refusals,
    part_chars,
    renders,
    run_impl,
    with_text,
)
from pctfuzz._internal.operations import FORM_SERIALIZE
from pctfuzz._internal.oracles.base import Impl
from pctfuzz._internal.sets import get_set

__all__ = ["NON_ASCII_PROBES", "REPLACEMENT_ANSWERS", "own_chars"]


def own_chars(rule: str, check: str, case: Case, adapter: Impl) -> str | None:
    """The characters the implementation applies ``rule`` to (``pctfuzz.accept.rules``:
    ``Chars``), each asked alone in the case's context, once per adapter and context:
    the question of each rule is its function in ``_PROBES`` (its docstring says what
    is asked); a rule with a part (``left_raw:names``, ``space:values``, ...) is a form
    serializer's (``_own_part``); ``refuses`` gives the input kinds the implementation
    raises for (``checks.profile.own_refusals``); ``removed``, ``trimmed`` and its
    variants the whitespace it drops (``_own_whitespace``).

    None when it answers none of the inputs (the rule then tries every set)."""
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
    ask = _Asker(rule, check, case, adapter)
    found = _probe_of(rule, case)(ask)
    own = found if ask.answered else None
    _OWN_CHARS.put(adapter, key, own)
    return own


class _Asker:
    """The questions of one rule to one adapter in one case's context: each text asked
    once (``answer``: None when it is not answered, or raises)."""

    def __init__(self, rule: str, check: str, case: Case, adapter: Impl) -> None:
        self.rule, self.check, self.case, self.adapter = rule, check, case, adapter
        self._answers: dict[str, object] = {}

    def answer(self, text: str) -> object:
        if text not in self._answers:
            sub = with_text(self.case, text)
            got = None if sub is None else run_impl(self.check, sub, self.adapter)
            self._answers[text] = None if got is None or got.raised else got.value
        return self._answers[text]

    def drops(self, *pairs: tuple[str, str]) -> bool:
        """The answer to some ``text`` of ``pairs`` is that to its ``without``: each
        asked at two lengths, as an adapter may pick its API by the input (hyperlink's
        decode by parity) and the behaviour live in one of them only."""
        return any(self.answer(text) is not None and self.answer(text) == self.answer(without)
                   for text, without in pairs)

    @property
    def answered(self) -> bool:
        """Some question was answered (else the rule has no characters of its own)."""
        return any(value is not None for value in self._answers.values())


def _latin1_bytes(ask: _Asker) -> str:
    """"latin-1" when a decoder answers the bytes C3 A9 (in a bytes case's context) as
    the two characters U+00C3 U+00A9."""
    got = ask.answer("\xc3\xa9")  # (bytes in a bytes case's context: with_text)
    return "latin-1" if got in ([("\u00c3\u00a9", "")], "\u00c3\u00a9".encode(),
                                "\u00c3\u00a9") else ""


def _newlines_normalized(ask: _Asker) -> str:
    """"yes" when a writer answers ``a\\r\\nb``, ``a\\nb`` and ``a\\rb`` alike (HTML's
    newline normalization), so ``\\n`` alone is not named ``written_as`` when CR LF is
    one newline."""
    newlines = [ask.answer(f"a{n}b") for n in ("\r\n", "\n", "\r")]
    return "yes" if newlines[0] is not None and newlines.count(newlines[0]) == 3 \
        and newlines[0] != ask.answer("ab") else ""


def _decoded_repeatedly(ask: _Asker) -> str:
    """"yes" when a decoder decodes until nothing changes: ``%252541`` as ``A``."""
    return "yes" if ask.answer("%252541") in (b"A", "A") else ""


def _nul_terminated(ask: _Asker) -> str:
    """"yes" when a decoder answers ``ab%00cd`` as ``ab`` (a C string's end, ``%00``
    decoded too), while ``abcd`` is not."""
    return "yes" if isinstance(ask.case, DecodeCase) and ask.answer("abcd") != ask.answer("ab") \
        and ask.drops(("ab%00cd", "ab"), ("xab%00cd", "xab")) else ""


def _latin1_chars(ask: _Asker) -> str:
    """"latin-1" when a decoder answers ``%41\u00e9`` as ``A`` and the byte E9 (or its
    U+FFFD), or a form parser so in a name or a value, "" when not (Mono's
    ``UrlDecode`` and ``ParseQueryString``)."""
    got = ask.answer("%41\u00e9")
    parts = [part for pair in got for part in pair] if isinstance(got, list) else [got]
    return "latin-1" if any(part in (b"A\xe9", b"A\xef\xbf\xbd", "A\ufffd")
                            for part in parts) else ""


def _latin1_fallback(ask: _Asker) -> str:
    """Every escape read as latin-1, valid UTF-8 too: "answer" when a raw character's
    UTF-8 bytes are read so as well, "always" when escapes only, else ""."""
    read = ("\u00c3\u00a9".encode(), [("\u00c3\u00a9", "")])
    return "" if ask.answer("%C3%A9") not in read else \
        "answer" if ask.answer("\u00e9") in read else "always"


def _kept_encoded_hex(ask: _Asker) -> str:
    """"upper" when a decoder answers a kept escape asked in lowercase (``%2f``) in
    uppercase: asked of one whose hex has a letter (``%2F``, not ``%23``), where
    the hex case shows."""
    kept = own_chars("kept_encoded", ask.check, ask.case, ask.adapter) or ""
    lettered = [c for c in kept if not f"{ord(c):02X}".isdigit()]
    code = ord(lettered[0]) if lettered else 0
    return "upper" if lettered and isinstance(ask.case, DecodeCase) and any(
        _same_bytes(ask.answer(p + f"%{code:02x}"), p + f"%{code:02X}") for p in ("", "x")) \
        else ""


def _lone_surrogates(ask: _Asker) -> str:
    """The ``lone_surrogates`` mode whose model answers ``a\\ud800b`` as an encoder or a
    form serializer does ("" for none)."""
    if not isinstance(ask.case, EncodeCase | FormCase):
        return ""
    sub, got = with_text(ask.case, "a\ud800b"), ask.answer("a\ud800b")
    return next((mode for mode in _SURROGATE_MODES if sub is not None and got is not None
                 and renders(Model(surrogates=mode), ask.check, sub, got)), "")


def _kept_encoded(ask: _Asker) -> str:
    """The escapes a form parser keeps as they are (``kept_encoded``, ``-names``,
    ``-values``: ``_own_kept_escapes``), or a decoder (``_own_decoding``)."""
    if isinstance(ask.case, FormParseCase):
        return _own_kept_escapes(ask.rule.removeprefix("kept_encoded").lstrip("-"), ask.answer)
    return _decoding(ask)


def _decoding(ask: _Asker) -> str:
    """A decoder's kept escapes or replacement mode, as ``ask.rule`` says
    (``_own_decoding``)."""
    return _own_decoding(ask.rule, ask.answer, isinstance(getattr(ask.case, "value", None),
                                                          bytes)) \
        if isinstance(ask.case, DecodeCase) else ""


def _requoted_kept(ask: _Asker) -> str:
    """The escapes a requoting encoder keeps as they are (``requoted``'s ``kept``: pip
    keeps ``%2F``): ``_kept_escapes``."""
    return _kept_escapes(ask.case, ask.answer)


def _taken_as_encoded_when(ask: _Asker) -> str:
    """"escape" or "percent" when an encoder writes an input with an escape, or any
    ``%``, back as it is (``_taken_as_encoded``)."""
    return _taken_as_encoded(ask.case, ask.answer)


def _space(ask: _Asker) -> str:
    """"%20" or "+" where the implementation writes a space so and the reference the
    other way (``_own_space``)."""
    return _own_space(ask.check, ask.case, ask.adapter, ask.answer)


def _cut_at(ask: _Asker) -> str:
    """``#``, ``?`` or NUL after which nothing counts (``ab#cd`` answered as ``ab``,
    while ``abcd`` is not: no fixed truncation). A form parser's is asked with values
    too: one that drops a name alone answers no pairs for ``abcd`` and ``ab`` alike,
    and sanic's query ends at ``#`` unasked."""
    shapes = [("", "")] + ([("k=", "=ef")] if isinstance(ask.case, FormParseCase) else [])
    cuts = {c for p, s in shapes if ask.answer(f"{p}abcd") != ask.answer(f"{p}ab")
            for c in CUT_CHARS if ask.drops((f"{p}ab{c}cd{s}", f"{p}ab"),
                                            (f"{p}xab{c}cd{s}", f"{p}xab"))}
    return "".join(c for c in CUT_CHARS if c in cuts)


def _dot_segments(ask: _Asker) -> str:
    """"escaped" when an encoder answers ``a/%2e/b`` and ``a/./b`` as it answers
    ``a/b`` (its dot segments resolved, an escaped dot too), "raw" when ``a/./b``
    only, else ""; with " past-root" when it answers ``/../b`` as ``b`` (a ``..``
    drops the empty first segment too)."""
    if not isinstance(ask.case, EncodeCase) or not isinstance(ask.case.value, str):
        return ""
    plain = ask.answer("a/b")
    if plain is None or ask.answer("a/./b") != plain:
        return ""
    spelled = "escaped" if ask.answer("a/%2e/b") == plain else "raw"
    below = ask.answer("b")
    return spelled + (" past-root" if below is not None and ask.answer("/../b") == below
                      else "")


def _whitespace(ask: _Asker) -> str:
    return _own_whitespace(ask.rule, ask.case, ask.drops)


#: The question of each rule that takes characters: rule -> its probe.
_PROBES: dict[str, Callable[[_Asker], str]] = {
    "latin1_bytes": _latin1_bytes,
    "newlines_normalized": _newlines_normalized,
    "decoded_repeatedly": _decoded_repeatedly,
    "nul_terminated": _nul_terminated,
    "latin1_chars": _latin1_chars,
    "latin1_fallback": _latin1_fallback,
    "kept_encoded-hex": _kept_encoded_hex,
    "lone_surrogates": _lone_surrogates,
    "kept_encoded": _kept_encoded,
    "replacement": _decoding,
    "requoted-kept": _requoted_kept,
    "taken_as_encoded": _taken_as_encoded_when,
    "space": _space,
    "cut_at": _cut_at,
    "dot_segments": _dot_segments,
}


def _probe_of(rule: str, case: Case) -> Callable[[_Asker], str]:
    """``rule``'s probe: its own, a form parser's escapes kept in one part
    (``kept_encoded-names``), else the whitespace dropped (``removed``, ``trimmed``,
    ``trimmed-start``, ``-end``, ``-names``, ``-values``, ``-decoded``)."""
    if rule in _PROBES:
        return _PROBES[rule]
    if rule.startswith("kept_encoded") and isinstance(case, FormParseCase):
        return _kept_encoded
    return _whitespace


#: What ``own_chars`` found, per adapter and (rule, check, context).
_OWN_CHARS: Asked[str | None] = Asked("own characters")
#: The whitespace beyond ASCII that Python's ``str.strip()`` and ``str.split()`` take
#: (``str.isspace``): an adapter that strips its input with it trims these too.
_UNICODE_SPACE = "".join(c for c in map(chr, range(0x80, 0x3001)) if c.isspace())


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
    trims = rule in ("trimmed", "trimmed-decoded", "trimmed-start", "trimmed-end",
                     "trimmed-names", "trimmed-values")
    text = getattr(case, "value", getattr(case, "text", ""))
    found = ""
    for char in (C0_SPACE if trims else WHITESPACE) + (
            _UNICODE_SPACE if isinstance(text, str) else ""):
        c = "".join(f"%{b:02X}" for b in char.encode("utf-8")) \
            if rule == "trimmed-decoded" else char
        inner, ends, start, end = False, False, False, False
        for p, s in fields:
            inside = drops((f"{p}a{c}b{s}", f"{p}ab{s}"), (f"{p}xa{c}b{s}", f"{p}xab{s}"))
            lead = drops((f"{p}{c}a{s}", f"{p}a{s}"), (f"{p}{c}ax{s}", f"{p}ax{s}"))
            trail = drops((f"{p}a{c}{s}", f"{p}a{s}"), (f"{p}xa{c}{s}", f"{p}xa{s}"))
            inner = inner or inside
            ends = ends or (lead and trail and not inside)
            start = start or (lead and not trail and not inside)
            # (an end's trim strips every one there, not one: hyperlink's pattern
            # ends before a last LF, and raises for two)
            end = end or (trail and not lead and not inside and rule == "trimmed-end"
                          and drops((f"{p}a{c}{c}{s}", f"{p}a{s}"),
                                    (f"{p}xa{c}{c}{s}", f"{p}xa{s}")))
        # "removed" is removed in the middle too: a character stripped at the start
        # only (httplib2's and urlsplit's leading C0 and space) is "trimmed-start"
        if rule == "trimmed-start":
            found += char if start and not inner else ""
        elif rule == "trimmed-end":
            found += char if end and not inner else ""
        elif (rule == "removed" and inner) or (trims and ends and not inner):
            found += char
    return found


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

    - ``kept_encoded``: the ASCII characters whose escape ``%HH`` it answers as is (and
      the non-ASCII bytes whose escape it keeps, where it keeps every ASCII one);
    - ``replacement``: its mode, as it answers ``%41%e2%82`` (a truncated sequence):
      ``A`` then U+FFFD once or twice, ``A%E2%82``, or the input undecoded; and
      ``%FF\u00e9``: U+FFFD twice is Node's low-byte fallback ("": none), asked of
      text only (``of_bytes``: as bytes, FF E9 is U+FFFD twice per sequence too).
    """
    def same(text: str, want: str) -> bool:
        return _same_bytes(answer(text), want)

    def kept(code: int) -> bool:
        return any(same(p + f"%{code:02X}", p + f"%{code:02X}") for p in ("", "x"))

    if rule == "kept_encoded":
        found = [code for code in range(0x80) if kept(code)]
        # A non-ASCII byte's escape alone is invalid UTF-8, which a decoder may keep as
        # its replacement mode: counted only where every ASCII one is kept (a decoder
        # that decodes nothing: its valid UTF-8 escapes were a class of their own, as
        # the form parser's, ``_own_kept_escapes``)
        if len(found) == 0x80:
            found += [code for code in range(0x80, 0x100) if kept(code)]
        return "".join(map(chr, found))
    for mode, text, want in REPLACEMENT_ANSWERS:
        if of_bytes and mode == "low-byte":
            continue
        if any(same(p + text, p + want) for p in ("", "x")):
            return mode
    return ""
