"""What ``pctfuzz probe`` reports of a decoder, a form serializer and a form parser
(``probe.py`` is the encoder's set inference).

Each operation has a few questions (``QUESTIONS``): a plus sign, invalid escapes,
invalid UTF-8, separators, empty pairs... Each is asked of the implementation and of
pctfuzz's reference alike, and each answer is put in one word, so the two read side by
side (``Fact``). Where the implementation's answer to a question's input differs from
the reference's (as the differential check judges it: ``locate.agree``), the
fact names what explains it: the accepted entries in force (``differential.judge``),
else the catalogue rule a finding of it would be named by, which is what
``pctfuzz accept`` would write (``differential.rule_for``).

The probing is the differential check's own, not a copy (``checks.profile``): a pair order
(``pair_order``), a parser's modes (``own_parser_mode``, ``parser_replacement``), a
decoder's kept escapes and replacement (``own_chars``), the inputs it refuses
(``own_refusals``), a form serializer's characters in names and values
(``form_part_chars``). So the probe names a behaviour as a campaign names its finding.
Nothing here prints; ``pctfuzz._internal.cli.probe`` renders the reports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pctfuzz._internal.accept.rule import rule_class
from pctfuzz._internal.cases import Case, DecodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.differential import judge, rule_for
from pctfuzz._internal.checks.locate import agree
from pctfuzz._internal.checks.own_chars import REPLACEMENT_ANSWERS, own_chars
from pctfuzz._internal.checks.probe import _hex_case
from pctfuzz._internal.checks.profile import (
    EMPTY_PROBE,
    ORDER_PAIRS,
    REPLACEMENT_PROBES,
    form_part_chars,
    own_parser_mode,
    pair_order,
    parser_replacement,
    part_chars,
    refused_inputs,
    run_impl,
    scalar_values,
)
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.operations import DECODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.oracles.base import Impl
from pctfuzz._internal.oracles.codec import REFERENCE, as_adapter
from pctfuzz._internal.outcome import Outcome, reference_outcome
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings

__all__ = ["OPERATIONS", "Fact", "OperationReport", "probe_operation"]

#: The operations probed here, by their records' names (``cases.*.type``).
OPERATIONS = (DECODE.name, FORM_SERIALIZE.name, FORM_PARSE.name)

_REFERENCE: Impl = as_adapter(REFERENCE)

#: A ``replacement`` mode (``pctfuzz.accept``) in words.
_REPLACEMENT_WORDS = {
    "per-sequence": "one U+FFFD per invalid sequence",
    "per-byte": "one U+FFFD per invalid byte",
    "dotnet": "one U+FFFD per invalid sequence, a lead byte and a byte out of its range one "
              "(.NET)",
    "percent-encoded": "kept percent-encoded",
    "dropped": "dropped",
    "undecoded": "the whole input left undecoded",
    "low-byte": "the low byte of each code unit (Node's unescapeBuffer fallback)",
    "low-byte-shared-scan": "the low byte of each code unit, a value after a name with "
                            "two escapes decoded too (Node's querystring.parse)",
}
_EMPTY_WORDS = {
    "kept": "empty sequences kept as ('', '')",
    "kept-but-last": "empty sequences kept as ('', ''), but the last after a final &",
    "kept-but-trailing": "empty sequences kept as ('', ''), but those at the end",
}


@dataclass
class Fact:
    """One question's answer: the implementation's ``word`` beside the reference's,
    and what explains a difference (``rule``, the catalogue rule's class such as
    ``rule=plus_kept()``; ``accepted``, the entries in force that do)."""

    key: str  # the --json key
    label: str  # the text's
    word: str
    reference: str
    #: False when an input of the question is answered otherwise than the reference
    #: answers it (the differential check's verdict: a finding, or an accepted entry)
    agrees: bool = True
    rule: str | None = None
    accepted: list[str] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)  # input -> answer, as shown


@dataclass
class OperationReport:
    """What ``probe_operation`` found; ``to_json`` is its ``--json`` object."""

    target: str
    operation: str  # "decode", "form" or "form-parse"
    facts: list[Fact]

    def to_json(self) -> dict[str, Any]:
        """The facts by key, as the encoder's report spells its own (one word each),
        then the reference's words, the rules and accepted entries of the facts that
        differ, and every answer (``outputs``)."""
        return {
            "target": self.target,
            "operation": self.operation,
            **{fact.key: fact.word for fact in self.facts},
            "reference": {fact.key: fact.reference for fact in self.facts},
            "rules": {fact.key: fact.rule for fact in self.facts if fact.rule},
            "accepted": {fact.key: fact.accepted for fact in self.facts if fact.accepted},
            "differs": [fact.key for fact in self.facts if not fact.agrees],
            "outputs": {fact.key: fact.outputs for fact in self.facts},
        }


# --- asking ------------------------------------------------------------------------------


class _Asker:
    """One adapter asked one operation's cases: str inputs, or their UTF-8 bytes for an
    adapter that takes bytes only (a parser of a raw query: tornado)."""

    def __init__(self, check: str, adapter: Impl,
                 settings: RunSettings = DEFAULT_SETTINGS) -> None:
        self.check = check
        self.adapter = adapter
        self.settings = settings  # the run's: its accept file's entries are in force
        self.takes = _takes(check, adapter)
        self.as_bytes = self.takes == "bytes"

    def case(self, given: Any) -> Case | None:
        """The case of ``given`` (a text, or pairs for a form serializer)."""
        if self.check == FORM_SERIALIZE.name:
            return FormCase(tuple(given))
        data: str | bytes = given
        if self.as_bytes:
            try:
                data = given.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate: no such bytes input
                return None
        return DecodeCase(data) if self.check == DECODE.name else FormParseCase(data)

    def outcome(self, given: Any) -> Outcome | None:
        case = self.case(given)
        return None if case is None else run_impl(self.check, case, self.adapter)

    def value(self, given: Any) -> Any:
        """The answer (decoder's bytes, a str answer as its UTF-8; pairs as tuples), or
        the exception raised, or None (``Unsupported``)."""
        got = self.outcome(given)
        if got is None:
            return None
        if got.raised:
            return got.error
        if self.check == DECODE.name and isinstance(got.value, str):
            return got.value.encode("utf-8", "surrogatepass")
        if self.check == FORM_PARSE.name:
            try:
                return [tuple(pair) for pair in got.value]
            except TypeError:
                return got.value
        return got.value


def _takes(check: str, adapter: Impl) -> str:
    """What input a decoder or a parser answers: ``str and bytes``, ``str``, ``bytes``
    (``nothing``: not this operation); ``str`` for a form serializer that answers a
    pair (its names and values are str)."""
    if check == FORM_SERIALIZE.name:
        return "str" if run_impl(check, FormCase((("a", "b"),)), adapter) is not None \
            else "nothing"
    make = DecodeCase if check == DECODE.name else FormParseCase
    text = "a" if check == DECODE.name else "a=b"
    kinds = [kind for kind, given in (("str", text), ("bytes", text.encode()))
             if run_impl(check, make(given), adapter) is not None]
    return " and ".join(kinds) or "nothing"


def _shown(value: Any) -> str:
    if isinstance(value, BaseException):
        message = str(value).splitlines()[0][:80] if str(value) else ""
        return f"raises {type(value).__name__}" + (f": {message}" if message else "")
    if value is None:
        return "unsupported"
    return ascii(value)


def _other(value: Any) -> str:
    if isinstance(value, BaseException):
        return f"raises {type(value).__name__}"
    if value is None:
        return "unsupported"
    return f"other ({value!a})"


def _uniform(words: dict[str, str]) -> str:
    """One word if every input gave it, else ``mixed (input: word, ...)``."""
    kinds = set(words.values())
    if len(kinds) == 1:
        return kinds.pop()
    return "mixed (" + ", ".join(f"{k!a}: {v}" for k, v in words.items()) + ")"


# --- the questions -----------------------------------------------------------------------

#: ``question(asker) -> (word, inputs, rule)``: the answer in one word, the inputs that
#: show it (shown in ``outputs``, and where a difference is looked for), and a rule when
#: the question names it itself (a serializer's characters: one rule per part).
Question = Callable[[_Asker], tuple[str, Sequence[Any], str | None]]


def _refusals(asker: _Asker, plain: Any) -> tuple[str, Sequence[Any], str | None]:
    """The kinds of input it raises for, each asked alone (``own_refusals``)."""
    case = asker.case(plain)
    if case is None:
        return "unsupported", (), None
    refused = refused_inputs(asker.check, case, asker.adapter)
    inputs = [((text, ""),) if asker.check == FORM_SERIALIZE.name else text
              for text in refused.values()]
    return " ".join(refused) or "nothing", inputs, None


def _order(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    """``sorted``, ``sorted-bytes``, ``grouped`` (``pair_order``), else as given."""
    given: Any = (ORDER_PAIRS if asker.check == FORM_SERIALIZE.name
                  else "&".join(f"{n}={v}" for n, v in ORDER_PAIRS))
    mode = pair_order(asker.check, asker.adapter)
    if mode:
        said = mode if mode.endswith("per-name") or mode in ("sorted-pairs", "sorted-written") \
            else f"{mode} by name"
        return said, [given], None
    got = asker.value(given)
    want = ("&".join(f"{n}={v}" for n, v in ORDER_PAIRS) if asker.check == FORM_SERIALIZE.name
            else list(ORDER_PAIRS))
    return ("as given" if got == want else _other(got)), [given], None


# decode


def _decode_plus(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    got = asker.value("a+b")
    return {b"a+b": "kept", b"a b": "space"}.get(got, _other(got)) \
        if isinstance(got, bytes) else _other(got), ["a+b"], None


def _decode_invalid(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    inputs = ("%zz", "%4", "%")
    words = {}
    for text in inputs:
        got = asker.value(text)
        words[text] = "kept" if got == text.encode() else _other(got)
    return _uniform(words), inputs, None


def _decode_utf8(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    text = "%41%E2%82"  # (uppercase: lowercase escapes are a question of their own)
    got = asker.value(text)
    if got == b"A\xe2\x82":
        return "kept as bytes", [text], None
    case = asker.case("a")
    mode = None if case is None else own_chars("replacement", DECODE.name, case, asker.adapter)
    return (_REPLACEMENT_WORDS[mode] if mode else _other(got)), [text], None


def _decode_kept(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    case = asker.case("a")
    kept = (own_chars("kept_encoded", DECODE.name, case, asker.adapter) or "") if case else ""
    if not kept:
        return "none", ["%23"], None
    return kept, ["".join(f"%{ord(c):02X}" for c in kept)], None


def _decode_lowercase(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    got = asker.value("%2f%c3%a9")
    return {b"/\xc3\xa9": "decoded", b"%2f%c3%a9": "kept"}.get(got, _other(got)) \
        if isinstance(got, bytes) else _other(got), ["%2f%c3%a9"], None


def _decode_others(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    """The escapes of ASCII bytes answered neither as their byte nor kept as they are
    (``_decode_kept``): ``%2B`` as a space..."""
    others = {}
    for code in range(0x80):
        text = f"%{code:02X}"
        got = asker.value(text)
        if got not in (bytes([code]), text.encode()):
            others[text] = got
    if not others:
        return "none", (), None
    word = ", ".join(f"{text} as {_shown(got)}" for text, got in list(others.items())[:8])
    return word + (f" (and {len(others) - 8} more)" if len(others) > 8 else ""), \
        list(others)[:1], None


def _decode_surrogates(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    text = "a\ud800b"
    if asker.as_bytes:
        return "n/a (takes bytes)", (), None
    got = asker.value(text)
    if isinstance(got, ValueError):
        return "refused (ValueError)", [text], None
    words = {b"a\xef\xbf\xbdb": "U+FFFD", b"a\xed\xa0\x80b": "kept (surrogatepass)",
             b"ab": "dropped", b"a?b": "'?'"}
    return (words.get(got, _other(got)) if isinstance(got, bytes) else _other(got)), \
        [text], None


def _non_ascii_bytes(text: str, got: Any) -> str:
    if not isinstance(got, bytes):
        return _other(got)
    for codec in ("utf-8", "latin-1", "cp1252"):
        try:
            if text.encode(codec) == got:
                return codec.upper() if codec == "utf-8" else codec
        except UnicodeEncodeError:
            continue
    return _other(got)


def _decode_non_ascii(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    if asker.as_bytes:
        return "n/a (takes bytes)", (), None
    return _non_ascii_bytes("\u00e9", asker.value("\u00e9")), ["\u00e9"], None


def _decode_twice(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    got = asker.value("%2541")
    return {b"%41": "once", b"A": "twice"}.get(got, _other(got)) \
        if isinstance(got, bytes) else _other(got), ["%2541"], None


# form serializer


def _form_space(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    given = (("a b", "c d"),)
    got = asker.value(given)
    return {"a+b=c+d": "+", "a%20b=c%20d": "%20"}.get(got, _other(got)) \
        if isinstance(got, str) else _other(got), [given], None


def _form_separator(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    given = (("a", "1"), ("b", "2"))
    got = asker.value(given)
    return {"a=1&b=2": "&", "a=1;b=2": ";"}.get(got, _other(got)) \
        if isinstance(got, str) else _other(got), [given], None


def _form_percent(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    given = (("%", "%"),)
    got = asker.value(given)
    return {"%25=%25": "encoded", "%=%": "raw"}.get(got, _other(got)) \
        if isinstance(got, str) else _other(got), [given], None


def _form_chars(name: str, part: str) -> Question:
    """The characters a form serializer leaves raw (``left_raw``) or encodes
    (``encoded``) beyond the reference in names or values (``form_part_chars``), and the
    rules that accept them: one for those of both parts, one per part for the rest."""

    def question(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
        found = form_part_chars(asker.adapter)
        mine = found[f"{name}:{part}"]
        if part == "empty-name-values" and mine == found[f"{name}:values"]:
            return "as in other values", (), None
        if not mine:
            return "none", (), None
        chars = "".join(sorted(mine))
        split = part_chars(asker.adapter, name)
        rules = [rule_class(name, {"chars": "".join(sorted(chars_))} | extra)
                 for chars_, extra in ((mine & split["everywhere"], {}),
                                       (split[part], {"part": part}))
                 if chars_]
        given = ([(chars, "")] if part == "names" else
                 [("a", chars)] if part == "values" else [("", chars)])
        return chars, [tuple(given)], " and ".join(rules) or None

    return question


def _form_hex(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    given = (("\u00e9", "\u00e9"),)  # (nothing but escapes: no other question's difference)
    got = asker.value(given)
    return (_hex_case([got]) if isinstance(got, str) else _other(got)), [given], None


def _form_empty(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    given = (("a", ""), ("b", "1"))
    got = asker.value(given)
    return {"a=&b=1": "kept", "b=1": "dropped"}.get(got, _other(got)) \
        if isinstance(got, str) else _other(got), [given], None


def _form_surrogates(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    given = (("a\ud800b", ""),)
    got = asker.value(given)
    if isinstance(got, ValueError):
        return "refused (ValueError)", [given], None
    case = asker.case(given)
    mode = own_chars("lone_surrogates", FORM_SERIALIZE.name, case, asker.adapter) if case else None
    return (mode or _other(got)), [given], None


# form parser


def _parse_separators(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    text = "a=1&b=2;c=3"
    got = asker.value(text)
    if not isinstance(got, list):
        return _other(got), [text], None
    names = [pair[0] for pair in got if isinstance(pair, tuple) and pair]
    separators = [sep for sep, name in (("&", "b"), (";", "c")) if name in names]
    return " ".join(separators) or "none", [text], None


def _parse_plus(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    text = "a=b+c"  # (in a value: a name may be rewritten for other reasons, PHP's)
    got = asker.value(text)
    words = {("a", "b c"): "space", ("a", "b+c"): "kept"}
    return (words.get(got[0], _other(got)) if isinstance(got, list) and len(got) == 1
            else _other(got)), [text], None


def _parse_empty(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    text = EMPTY_PROBE.text
    got = asker.value(text)
    mode = own_parser_mode("empty_pairs", FORM_PARSE.name, asker.adapter)
    if mode is not None:
        return _EMPTY_WORDS[mode], [text], None
    words = {(("a", ""),): "empty sequences skipped", (): "pairs with an empty value dropped"}
    return (words.get(tuple(got), _other(got)) if isinstance(got, list) else _other(got)), \
        [text], None


def _parse_no_equals(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    scope = own_parser_mode("needs_equals", FORM_PARSE.name, asker.adapter)
    if scope == "text":
        return "no pair (a text without = is no form)", ["a", "a="], None
    if scope == "sequence":
        return "no pair (each sequence without = is dropped)", ["a", "a=", "a&b=1"], None
    got = asker.value("a")
    words = {(("a", ""),): "a name with an empty value", (): "no pair"}
    return (words.get(tuple(got), _other(got)) if isinstance(got, list) else _other(got)), \
        ["a"], None


def _parse_names(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    from pctfuzz._internal.accept.reconcilers import MANGLING_PROBE

    style = own_parser_mode("names_mangled", FORM_PARSE.name, asker.adapter)
    if style:
        return f"mangled ({style})", [MANGLING_PROBE], None
    for text in ("A=b", MANGLING_PROBE):  # case, '.', spaces
        got = asker.value(text)
        if got != _REFERENCE.form_parse(FormParseCase(text)):
            return _other(got), [text], None
    return "as given", ["A=b", MANGLING_PROBE], None


def _parse_invalid(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    text = "a=%zz&%4=b"
    got = asker.value(text)
    return ("kept" if got == [("a", "%zz"), ("%4", "b")] else _other(got)), [text], None


def _parse_utf8(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    """The ``replacement`` mode the differential check names a parser's by
    (``parser_replacement``); failing one, as a value after a name decodes a truncated
    sequence (``REPLACEMENT_ANSWERS``: a parser that drops a name without a value
    answers none of the first)."""
    texts = list(REPLACEMENT_PROBES)
    if all(asker.value(text) == _REFERENCE.form_parse(FormParseCase(text))
           for text in texts):
        return _REPLACEMENT_WORDS["per-sequence"], texts, None
    modes = parser_replacement(asker.adapter)
    if modes:
        return _REPLACEMENT_WORDS[modes[0]], texts, None
    for mode, text, want in REPLACEMENT_ANSWERS:
        if asker.value(f"x={text}") == [("x", want)]:
            return _REPLACEMENT_WORDS[mode], [f"x={text}"], None
    return _other(asker.value(texts[0])), texts, None


def _parse_surrogates(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    text = "a=\ud800"
    if asker.as_bytes:
        return "n/a (takes bytes)", (), None
    got = asker.value(text)
    if isinstance(got, ValueError):
        return "refused (ValueError)", [text], None
    # (pairs compared in a list: a dict with the surrogate key and U+FFFD's is one
    # that linters read as two equal keys)
    words = [(("a", "\ufffd"), "U+FFFD"), (("a", "\ud800"), "kept"), (("a", "?"), "'?'"),
             (("a", ""), "dropped")]
    pair = got[0] if isinstance(got, list) and len(got) == 1 else None
    return next((word for answer, word in words if pair == answer), _other(got)), [text], None


def _input(asker: _Asker) -> tuple[str, Sequence[Any], str | None]:
    return asker.takes, (), None


#: Operation -> (json key, text label, question), in the order the report lists them.
QUESTIONS: dict[str, tuple[tuple[str, str, Question], ...]] = {
    DECODE.name: (
        ("input", "input", _input),
        ("plus", "plus sign", _decode_plus),
        ("invalid_escapes", "invalid %zz, %4, %", _decode_invalid),
        ("invalid_utf8", "invalid UTF-8 (%E2%82)", _decode_utf8),
        ("kept_escapes", "escapes kept as they are", _decode_kept),
        ("other_escapes", "escapes decoded otherwise", _decode_others),
        ("lowercase_escapes", "lowercase escapes (%2f%c3%a9)", _decode_lowercase),
        ("decoded_twice", "%2541 decoded", _decode_twice),
        ("surrogates", "lone surrogates", _decode_surrogates),
        ("non_ascii", "non-ASCII text as", _decode_non_ascii),
        ("refuses", "refuses", lambda asker: _refusals(asker, "a")),
    ),
    FORM_SERIALIZE.name: (
        ("space", "space", _form_space),
        ("separator", "separator", _form_separator),
        ("percent", "percent sign", _form_percent),
        ("left_raw_names", "left raw in names", _form_chars("left_raw", "names")),
        ("left_raw_values", "left raw in values", _form_chars("left_raw", "values")),
        ("left_raw_empty_name_values", "left raw in values after an empty name",
         _form_chars("left_raw", "empty-name-values")),
        ("encoded_names", "also encoded in names", _form_chars("encoded", "names")),
        ("encoded_values", "also encoded in values", _form_chars("encoded", "values")),
        ("hex_case", "hex case", _form_hex),
        ("pairs_order", "pairs order", _order),
        ("empty_values", "pairs with an empty value", _form_empty),
        ("surrogates", "lone surrogates", _form_surrogates),
        ("refuses", "refuses", lambda asker: _refusals(asker, (("a", "b"),))),
    ),
    FORM_PARSE.name: (
        ("input", "input", _input),
        ("separators", "separators", _parse_separators),
        ("plus", "plus sign", _parse_plus),
        ("empty_pairs", "empty pairs (&a=&&)", _parse_empty),
        ("no_equals", "a name without =", _parse_no_equals),
        ("names", "names", _parse_names),
        ("invalid_escapes", "invalid %zz, %4", _parse_invalid),
        ("invalid_utf8", "invalid UTF-8", _parse_utf8),
        ("pairs_order", "pairs order", _order),
        ("surrogates", "lone surrogates", _parse_surrogates),
        ("refuses", "refuses", lambda asker: _refusals(asker, "a=b")),
    ),
}


# --- the report --------------------------------------------------------------------------


def _explain(asker: _Asker, inputs: Sequence[Any]) -> tuple[bool, list[str], str | None]:
    """(every input agrees with the reference, the accepted entries that explain the
    first that does not, the rule that names it when none does)."""
    surrogates = scalar_values(asker.adapter)
    for given in inputs:
        case = asker.case(given)
        actual = None if case is None else run_impl(asker.check, case, asker.adapter)
        if case is None or actual is None:
            continue
        expected = reference_outcome(asker.check, case, surrogates=surrogates)
        if agree(asker.check, case, expected, actual):
            continue
        accepted = judge(asker.check, case, asker.adapter, expected, actual,
                         settings=asker.settings)
        if accepted:
            return False, list(accepted), None
        rule = rule_for(asker.check, case, asker.adapter, settings=asker.settings)
        return False, [], None if rule is None else rule.klass()
    return True, [], None


def probe_operation(adapter: Impl, operation: str, target: str = "",
                    settings: RunSettings = DEFAULT_SETTINGS) -> OperationReport:
    """Ask ``adapter`` the questions of ``operation`` (``decode``, ``form``,
    ``form-parse``) and the reference the same, with the run's ``settings`` (the
    entries in force). ``UsageError`` when the adapter answers none of its inputs."""
    if operation not in QUESTIONS:
        raise UsageError(f"probe: no questions for {operation!r}; one of {', '.join(QUESTIONS)}")
    asker, reference = _Asker(operation, adapter, settings), _Asker(operation, _REFERENCE)
    if asker.takes == "nothing":
        raise UsageError(f"{target or 'the adapter'} does not answer {operation}")
    facts = []
    for key, label, question in QUESTIONS[operation]:
        word, inputs, own_rule = question(asker)
        reference.as_bytes = asker.as_bytes  # the same inputs, as the adapter takes them
        ref_word = question(reference)[0] if key != "input" else "str and bytes"
        agrees, accepted, rule = _explain(asker, inputs)
        if own_rule is not None:  # the question's own rules, unless entries accept it
            agrees, rule = False, None if accepted else own_rule
        facts.append(Fact(key, label, word, ref_word, agrees, rule, accepted,
                          {ascii(given) if not isinstance(given, str) else given:
                           _shown(asker.value(given)) for given in inputs}))
    return OperationReport(target, operation, facts)
