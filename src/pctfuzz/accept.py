"""Your accepted differences: declare what your library does differently, exactly.

An entry is a ``pctfuzz.checks.registry.KnownDivergence``, the type of the built-in
registry, so the differential check reconciles it with the same machinery
(``divergences.reconcile``/``explain``). Declare entries in either place:

- the adapter's ``divergences`` attribute, a sequence of entries built with
  ``divergence(...)``; they apply to that adapter (an entry's ``impl`` defaults to the
  adapter's name; another of its ``registry_names`` may be given);
- ``--accept FILE`` (``fuzz``, ``replay``, ``divergences``): a TOML file (entries name a
  ready-made reconciler, with parameters), a ``.py`` file or a dotted module name whose
  ``divergences`` attribute is such a sequence. The command puts the file's path in
  ``PCTFUZZ_ACCEPT``, which the campaign's libFuzzer children inherit.

Every entry has an ``id``, a ``citation``, a ``why`` and a pinned ``example`` that must
still diverge: ``pctfuzz divergences --impl MOD:CLASS --check`` runs each example and
exits 1 if one no longer diverges or is not accepted.

Ready-made reconcilers (each accepts its exact difference and nothing more):

=============================  ========================  ====================================
``left_raw(CHARS)``            encode, form              CHARS written as themselves where
                                                         the reference writes ``%HH``
``encoded(CHARS)``             encode, form              CHARS also written as ``%HH``
``space_as("%20" | "+")``      encode, form              what the implementation writes
                                                         for a space
``lowercase_hex()``            encode, form              ``%hh`` in lowercase
``both_refuse(TYPES)``         any                       the reference refuses and the
                                                         implementation raises one of TYPES
``requoted(MODE)``             encode                    an existing valid ``%HH`` of the
                                                         input is an escape, not data
``pairs_order(MODE)``          form, form-parse          pairs ``grouped`` or ``sorted``
                                                         by name (multi-dicts)
``empty_pairs(MODE)``          form, form-parse          pairs with an empty value
                                                         ``dropped``; empty sequences
                                                         ``kept`` as ("", "") (form-parse)
``latin1_fallback()``          decode, form-parse        invalid UTF-8 decoded as latin-1
=============================  ========================  ====================================

``requoted`` modes: ``keep`` (the escape is copied), ``upper`` (copied with uppercase
hex), ``decode-unreserved`` (an escape of ALPHA DIGIT ``-._~`` is written as the
character, others copied: requests' ``unquote_unreserved``), ``decode-safe`` (written
as the character when the set leaves it raw, else uppercased: yarl's requoting).

A TOML file::

    [[divergence]]
    id = "mylib-unquotes-unreserved"
    check = "encode"
    reconciler = "requoted"
    mode = "decode-unreserved"
    citation = "mylib docs: quote() normalizes escapes of unreserved characters"
    why = "RFC 3986 6.2.2.2: %41 and A are equivalent"
    example = { value = "%41", set = "encodeURI-%25[]" }

Parameters: ``chars`` (left_raw, encoded), ``space`` (space_as), ``types`` (both_refuse),
``mode`` (requoted, pairs_order, empty_pairs). Examples: encode ``{value, set,
encoding, space_as_plus}``, decode ``{value}``, form ``{pairs = [[name, value], ...],
encoding}``, form-parse ``{text}``. Optional keys: ``impl``, ``summary``.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pctfuzz.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz.checks.registry import (
    CHECKS,
    KnownDivergence,
    Outcome,
    Reconcile,
    explain,
    reference_outcome,
)
from pctfuzz.errors import NotScalarValueError, PctfuzzError
from pctfuzz.form import form_urldecode, form_urlencode
from pctfuzz.reference import percent_decode, percent_encode
from pctfuzz.sets import FORM, PercentEncodeSet, get_set

__all__ = [
    "ACCEPT_ENV",
    "RECONCILERS",
    "CheckResult",
    "Reconciler",
    "accepted_entries",
    "both_refuse",
    "check_entries",
    "divergence",
    "empty_pairs",
    "encoded",
    "latin1_fallback",
    "left_raw",
    "load_accept_file",
    "lowercase_hex",
    "pairs_order",
    "requoted",
    "space_as",
]

#: The environment variable naming the ``--accept`` file (inherited by the harness).
ACCEPT_ENV = "PCTFUZZ_ACCEPT"

_CASE_TYPES: Mapping[str, type] = {
    "encode": EncodeCase, "decode": DecodeCase, "form": FormCase, "form-parse": FormParseCase,
}
_Pair = tuple[Outcome, Outcome] | None
#: Reconcile phases (``KnownDivergence.phase``): refusals and models of the whole
#: answer first, then models of the encoder, then rewrites of the text, so they compose.
_REPLACE, _MODEL, _REWRITE = 0, 1, 2


@dataclass(frozen=True)
class Reconciler:
    """A ready-made exact statement of one difference (module docstring)."""

    name: str
    checks: frozenset[str]
    reconcile: Reconcile
    reference: str
    implementation: str
    phase: int = _MODEL


# --- text models ---------------------------------------------------------------------------
def _chars(chars: str) -> frozenset[int]:
    if not chars or not chars.isascii():
        raise PctfuzzError(f"characters {chars!r}: give one or more ASCII characters")
    return frozenset(map(ord, chars))


def _adjusted(set_name: str, add: frozenset[int], remove: frozenset[int]) -> PercentEncodeSet:
    base = get_set(set_name)
    return PercentEncodeSet(f"{base.name} (adjusted)", (base.members | add) - remove,
                            base.source, base.space_as_plus)


def _encode_model(case: EncodeCase, pes: PercentEncodeSet) -> str:
    return percent_encode(case.value, pes, encoding=case.encoding,
                          space_as_plus=case.space_as_plus)


def _form_model(case: FormCase, pes: PercentEncodeSet) -> str:
    def field(text: str) -> str:
        return percent_encode(text, pes, encoding=case.encoding, space_as_plus=True)

    return "&".join(field(n) + "=" + field(v) for n, v in case.pairs)


def _set_change(add: frozenset[int], remove: frozenset[int]) -> Reconcile:
    """The implementation's set is the case's set plus ``add`` minus ``remove``."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        if isinstance(case, EncodeCase):
            return Outcome(_encode_model(case, _adjusted(case.set_name, add, remove))), actual
        if isinstance(case, FormCase):
            return Outcome(_form_model(case, _adjusted(FORM.name, add, remove))), actual
        return None

    return reconcile


def left_raw(chars: str) -> Reconciler:
    """CHARS written as themselves where the reference writes ``%HH`` (WHATWG URL 1.3)."""
    members = _chars(chars)
    return Reconciler("left_raw", frozenset({"encode", "form"}), _set_change(frozenset(), members),
                      f"percent-encodes {chars!r} (in the set)",
                      f"leaves {chars!r} as is")


def encoded(chars: str) -> Reconciler:
    """CHARS also written as ``%HH`` (the implementation's set is larger)."""
    members = _chars(chars)
    return Reconciler("encoded", frozenset({"encode", "form"}), _set_change(members, frozenset()),
                      f"leaves {chars!r} as is (outside the set)",
                      f"percent-encodes {chars!r}")


def space_as(space: str) -> Reconciler:
    """The implementation writes a space as ``space`` (``"%20"`` or ``"+"``) where the
    reference writes the other; exact only when the reference's output has no literal
    ``+`` (resp. ``%20``) of the input, else the entry does not apply."""
    if space not in ("%20", "+"):
        raise PctfuzzError(f"space_as: give '%20' or '+', not {space!r}")
    other = "+" if space == "%20" else "%20"

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised or not isinstance(expected.value, str):
            return None
        if isinstance(case, EncodeCase):
            pes, values = get_set(case.set_name), [case.value]
        elif isinstance(case, FormCase):
            pes, values = FORM, [t for pair in case.pairs for t in pair]
        else:
            return None
        # A literal of the input in the reference's output would be rewritten too.
        literal = "+" if space == "%20" else "%"
        if ord(literal) not in pes and any(
            (literal in v) if isinstance(v, str) else (literal.encode() in v) for v in values
        ):
            return None
        return Outcome(expected.value.replace(other, space)), actual

    return Reconciler("space_as", frozenset({"encode", "form"}), reconcile,
                      f"writes a space as {other}", f"writes a space as {space}", _REWRITE)


_TRIPLET = re.compile("%[0-9A-F]{2}")


def lowercase_hex() -> Reconciler:
    """``%hh`` with lowercase hex digits (RFC 3986 2.1: equivalent, uppercase SHOULD).
    A ``%`` of the input that the set leaves raw could be read as a triplet, so the
    entry does not apply then."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised or not isinstance(expected.value, str):
            return None
        if isinstance(case, EncodeCase):
            value = case.value
            has_pct = ("%" in value) if isinstance(value, str) else (b"%" in value)
            if has_pct and 0x25 not in get_set(case.set_name):
                return None
        return Outcome(_TRIPLET.sub(lambda m: m.group().lower(), expected.value)), actual

    return Reconciler("lowercase_hex", frozenset({"encode", "form"}), reconcile,
                      "uppercase hex digits (%2F)", "lowercase hex digits (%2f)", _REWRITE)


def both_refuse(types: str | Sequence[str]) -> Reconciler:
    """The reference refuses the case and the implementation raises one of ``types``
    (exception class names, or ``module.Name``)."""
    names = (types,) if isinstance(types, str) else tuple(types)
    if not names or not all(isinstance(n, str) and n for n in names):
        raise PctfuzzError("both_refuse: give one or more exception type names")

    def named(exc: BaseException) -> bool:
        return any(f"{c.__module__}.{c.__qualname__}" in names or c.__name__ in names
                   for c in type(exc).__mro__)

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised and actual.error is not None and named(actual.error):
            return actual, actual
        return None

    return Reconciler("both_refuse", frozenset(CHECKS), reconcile, "refuses the case",
                      f"raises {' or '.join(names)}", _REPLACE)


_VALID_TRIPLET = re.compile("%[0-9A-Fa-f]{2}")
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_REQUOTE_MODES = ("keep", "upper", "decode-unreserved", "decode-safe")


def requoted(mode: str) -> Reconciler:
    """A valid ``%HH`` already in the input is an escape, not data (RFC 3986 2.4); the
    rest is encoded as the reference encodes it. ``mode``: module docstring."""
    if mode not in _REQUOTE_MODES:
        raise PctfuzzError(f"requoted: mode must be one of {', '.join(_REQUOTE_MODES)}")

    def escape(triplet: str, pes: PercentEncodeSet) -> str:
        byte = int(triplet[1:], 16)
        if mode == "keep":
            return triplet
        if mode == "decode-unreserved" and byte in _UNRESERVED:
            return chr(byte)
        if mode == "decode-safe" and byte not in pes:
            return chr(byte)
        return triplet if mode == "decode-unreserved" else triplet.upper()

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
            return None
        if expected.raised:
            return None
        pes = get_set(case.set_name)
        out: list[str] = []
        pos = 0
        for match in _VALID_TRIPLET.finditer(case.value):
            data = EncodeCase(case.value[pos:match.start()], case.set_name, case.encoding,
                              case.space_as_plus)
            out += [_encode_model(data, pes), escape(match.group(), pes)]
            pos = match.end()
        rest = EncodeCase(case.value[pos:], case.set_name, case.encoding, case.space_as_plus)
        out.append(_encode_model(rest, pes))
        return Outcome("".join(out)), actual

    return Reconciler("requoted", frozenset({"encode"}), reconcile,
                      "an existing %HH is data: its % is encoded as %25 when in the set",
                      f"an existing %HH is an escape ({mode})")


_ORDER_MODES = ("grouped", "sorted")


def _reorder(pairs: Iterable[tuple[str, str]], mode: str) -> list[tuple[str, str]]:
    listed = list(pairs)
    if mode == "sorted":
        return sorted(listed, key=lambda p: p[0])  # stable: values keep their order
    first: dict[str, int] = {}
    for name, _ in listed:
        first.setdefault(name, len(first))
    return sorted(listed, key=lambda p: first[p[0]])


def pairs_order(mode: str) -> Reconciler:
    """Pairs ``grouped`` by name (in order of first appearance, as a multi-dict keeps
    them) or ``sorted`` by name, values in input order (WHATWG URL 5.1/5.2 keep the
    list's order)."""
    if mode not in _ORDER_MODES:
        raise PctfuzzError(f"pairs_order: mode must be one of {', '.join(_ORDER_MODES)}")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        if isinstance(case, FormCase):
            pairs = tuple(_reorder(case.pairs, mode))
            return Outcome(form_urlencode(pairs, encoding=case.encoding)), actual
        if isinstance(case, FormParseCase):
            return Outcome(_reorder(expected.value, mode)), actual
        return None

    return Reconciler("pairs_order", frozenset({"form", "form-parse"}), reconcile,
                      "keeps the pairs in list order", f"pairs {mode} by name", _REPLACE)


_EMPTY_MODES = ("dropped", "kept")


def empty_pairs(mode: str) -> Reconciler:
    """``dropped``: pairs whose value is empty are left out (``parse_qsl`` without
    ``keep_blank_values``); ``kept``: an empty sequence between ``&`` is a pair
    ("", "") (the WHATWG parser skips it, 5.1 step 3.1)."""
    if mode not in _EMPTY_MODES:
        raise PctfuzzError(f"empty_pairs: mode must be one of {', '.join(_EMPTY_MODES)}")

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        if mode == "dropped" and isinstance(case, FormCase):
            pairs = [p for p in case.pairs if p[1]]
            return Outcome(form_urlencode(pairs, encoding=case.encoding)), actual
        if mode == "dropped" and isinstance(case, FormParseCase):
            return Outcome([p for p in expected.value if p[1]]), actual
        if mode == "kept" and isinstance(case, FormParseCase):
            text = case.text
            sep: Any = b"&" if isinstance(text, bytes) else "&"
            model: list[tuple[str, str]] = []
            for sequence in text.split(sep):
                model += form_urldecode(sequence) if sequence else [("", "")]
            return Outcome(model), actual
        return None

    checks = {"form", "form-parse"} if mode == "dropped" else {"form-parse"}
    return Reconciler("empty_pairs", frozenset(checks), reconcile,
                      "keeps pairs with an empty value; skips empty sequences",
                      f"empty pairs {mode}", _REPLACE)


def _utf8_or_latin1(data: bytes) -> bytes:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1").encode("utf-8")
    return data


def latin1_fallback() -> Reconciler:
    """Decoded bytes that are not valid UTF-8 are decoded as latin-1 instead (the
    reference writes U+FFFD, Encoding Standard "UTF-8 decode without BOM"). For decode,
    the implementation's text answer is compared as UTF-8 bytes."""

    def reconcile(case: Case, expected: Outcome, actual: Outcome) -> _Pair:
        if expected.raised:
            return None
        if isinstance(case, DecodeCase):
            return Outcome(_utf8_or_latin1(expected.value)), actual
        if isinstance(case, FormParseCase):
            text = case.text
            data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
            pairs = []
            for sequence in data.split(b"&"):
                if sequence:
                    name, _, value = sequence.partition(b"=")
                    pairs.append(tuple(
                        _utf8_or_latin1(percent_decode(part.replace(b"+", b" "))).decode("utf-8")
                        for part in (name, value)))
            return Outcome(pairs), actual
        return None

    return Reconciler("latin1_fallback", frozenset({"decode", "form-parse"}), reconcile,
                      "U+FFFD for invalid UTF-8", "latin-1 for a value that is not UTF-8",
                      _REPLACE)


#: Ready-made reconcilers by the name a TOML entry gives, with their parameter.
RECONCILERS: Mapping[str, tuple[Callable[..., Reconciler], str | None]] = {
    "left_raw": (left_raw, "chars"),
    "encoded": (encoded, "chars"),
    "space_as": (space_as, "space"),
    "lowercase_hex": (lowercase_hex, None),
    "both_refuse": (both_refuse, "types"),
    "requoted": (requoted, "mode"),
    "pairs_order": (pairs_order, "mode"),
    "empty_pairs": (empty_pairs, "mode"),
    "latin1_fallback": (latin1_fallback, None),
}


# --- entries -------------------------------------------------------------------------------
def divergence(
    *,
    id: str,
    check: str,
    reconcile: Reconciler,
    citation: str,
    why: str,
    example: Case,
    impl: str = "",
    summary: str = "",
    applies: Callable[[Case], bool] | None = None,
) -> KnownDivergence:
    """An accepted difference for your adapter (module docstring). ``impl`` defaults to
    the adapter that declares it (or is under test, for ``--accept``); ``applies``
    narrows the cases it applies to (default: every case of ``check``).
    ``PctfuzzError`` for an empty field, a check the reconciler cannot explain, or an
    example of another check."""
    for label, text in (("id", id), ("citation", citation), ("why", why)):
        if not isinstance(text, str) or not text.strip():
            raise PctfuzzError(f"divergence {id!r}: {label} must be a non-empty string")
    if check not in CHECKS:
        raise PctfuzzError(f"divergence {id!r}: unknown check {check!r} "
                           f"(one of {', '.join(CHECKS)})")
    if check not in reconcile.checks:
        raise PctfuzzError(f"divergence {id!r}: {reconcile.name} explains "
                           f"{', '.join(sorted(reconcile.checks))}, not {check}")
    case_type = _CASE_TYPES[check]
    if not isinstance(example, case_type):
        raise PctfuzzError(f"divergence {id!r}: the example of a {check} entry must be a "
                           f"{case_type.__name__}")
    return KnownDivergence(
        id=id, impl=impl, check=check,
        summary=summary or f"{reconcile.implementation} ({reconcile.name})",
        applies=applies or (lambda case: isinstance(case, case_type)),
        reconcile=reconcile.reconcile,
        reference=reconcile.reference, implementation=reconcile.implementation,
        citation=citation, why=why, example=example, phase=reconcile.phase,
    )


# --- --accept files ------------------------------------------------------------------------
def _example(check: str, data: object, where: str) -> Case:
    if not isinstance(data, dict):
        raise PctfuzzError(f"{where}: example must be a table")
    try:
        if check == "encode":
            return EncodeCase(data["value"], data.get("set", "component"),
                              data.get("encoding", "utf-8"), bool(data.get("space_as_plus")))
        if check == "decode":
            return DecodeCase(data["value"])
        if check == "form":
            return FormCase(tuple((str(n), str(v)) for n, v in data["pairs"]),
                            data.get("encoding", "utf-8"))
        return FormParseCase(data["text"])
    except (KeyError, TypeError, ValueError) as exc:
        raise PctfuzzError(f"{where}: bad example for {check}: {type(exc).__name__}: {exc}") \
            from None


def _toml_entries(path: Path) -> list[KnownDivergence]:
    import tomllib

    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PctfuzzError(f"--accept {path}: {exc}") from None
    tables = document.get("divergence", [])
    if not isinstance(tables, list) or not tables:
        raise PctfuzzError(f"--accept {path}: expected [[divergence]] tables")
    entries = []
    for index, table in enumerate(tables):
        where = f"--accept {path}, divergence {index + 1}"
        if not isinstance(table, dict):
            raise PctfuzzError(f"{where}: not a table")
        name = str(table.get("reconciler"))
        if name not in RECONCILERS:
            raise PctfuzzError(f"{where}: reconciler {name!r} is not one of "
                               f"{', '.join(RECONCILERS)}")
        factory, param = RECONCILERS[name]
        try:
            reconciler = factory(table[param]) if param else factory()
        except KeyError:
            raise PctfuzzError(f"{where}: {name} needs {param!r}") from None
        check = str(table.get("check", ""))
        try:
            entries.append(divergence(
                id=table.get("id", ""), check=check, reconcile=reconciler,
                citation=table.get("citation", ""), why=table.get("why", ""),
                example=_example(check, table.get("example"), where),
                impl=str(table.get("impl", "")), summary=str(table.get("summary", "")),
            ))
        except PctfuzzError as exc:
            raise PctfuzzError(f"{where}: {exc}") from None
    return entries


def _module_entries(spec: str) -> list[KnownDivergence]:
    try:
        if spec.endswith(".py"):
            path = Path(spec)
            module_spec = importlib.util.spec_from_file_location(
                f"pctfuzz_accept_{path.stem}", path)
            if module_spec is None or module_spec.loader is None or not path.is_file():
                raise PctfuzzError(f"--accept {spec}: no such Python file")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[module_spec.name] = module
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(spec)
    except PctfuzzError:
        raise
    except Exception as exc:
        raise PctfuzzError(f"--accept {spec}: cannot load: {type(exc).__name__}: {exc}") \
            from None
    return _checked(getattr(module, "divergences", None), f"--accept {spec}")


def _checked(entries: object, where: str) -> list[KnownDivergence]:
    if entries is None:
        return []
    if isinstance(entries, str | bytes) or not isinstance(entries, Iterable):
        raise PctfuzzError(f"{where}: divergences must be a sequence of entries")
    listed = list(entries)
    for entry in listed:
        if not isinstance(entry, KnownDivergence):
            raise PctfuzzError(f"{where}: {entry!r} is not a divergence "
                               "(build entries with pctfuzz.accept.divergence)")
    return listed


_FILES: dict[str, list[KnownDivergence]] = {}


def load_accept_file(spec: str) -> list[KnownDivergence]:
    """The entries of an ``--accept`` file (module docstring), loaded once per path.
    ``PctfuzzError`` with one line for a file that cannot be read or a bad entry."""
    if spec not in _FILES:
        is_file = spec.endswith((".toml", ".py")) or os.sep in spec
        if spec.endswith(".toml"):
            _FILES[spec] = _toml_entries(Path(spec))
        elif is_file and not spec.endswith(".py"):
            raise PctfuzzError(f"--accept {spec}: give a .toml file, a .py file or a module")
        else:
            _FILES[spec] = _module_entries(spec)
    return _FILES[spec]


_ADAPTERS: dict[int, tuple[object, str | None, tuple[KnownDivergence, ...]]] = {}


def accepted_entries(impl: object) -> tuple[KnownDivergence, ...]:
    """The user entries that apply to ``impl``: its ``divergences`` and those of the
    ``PCTFUZZ_ACCEPT`` file, each with ``impl`` filled in (the adapter's name), in
    reconcile order. Cached per adapter object and file."""
    from pctfuzz.oracles.base import impl_name

    accept = os.environ.get(ACCEPT_ENV) or None
    cached = _ADAPTERS.get(id(impl))
    if cached is not None and cached[0] is impl and cached[1] == accept:
        return cached[2]
    name = impl_name(impl)
    own = _checked(getattr(impl, "divergences", None), f"{name}.divergences")
    extra = load_accept_file(accept) if accept else []
    entries = [e if e.impl else dataclasses.replace(e, impl=name) for e in (*own, *extra)]
    ordered = tuple(sorted(entries, key=lambda e: e.phase))
    _ADAPTERS[id(impl)] = (impl, accept, ordered)
    return ordered


# --- --check -------------------------------------------------------------------------------
@dataclass(frozen=True)
class CheckResult:
    """What ``check_entries`` found for one entry's pinned example."""

    entry: KnownDivergence
    ok: bool
    problem: str = ""

    def line(self) -> str:
        state = "ok" if self.ok else f"FAILED: {self.problem}"
        return f"{self.entry.id} ({self.entry.impl}, {self.entry.check}): {state}"


def check_entries(impl: object, entries: Sequence[KnownDivergence]) -> list[CheckResult]:
    """Run each entry's pinned example on ``impl``: it must still diverge from the
    reference, and the registry (built-in and user entries) must accept it with this
    entry among those used. An inactive entry (fixed upstream) is skipped as ok."""
    from pctfuzz.checks.differential import both_refuse as refuse_alike
    from pctfuzz.checks.differential import run_impl, scalar_values
    from pctfuzz.oracles.base import registry_names

    names = registry_names(impl)
    extra = accepted_entries(impl)
    results = []
    for entry in entries:
        if not entry.active():
            results.append(CheckResult(entry, True, "inactive"))
            continue
        try:
            expected = reference_outcome(entry.check, entry.example,
                                         surrogates=scalar_values(impl))
        except NotScalarValueError as exc:  # pragma: no cover - reference_outcome catches
            expected = Outcome(error=exc)
        actual = run_impl(entry.check, entry.example, impl)  # type: ignore[arg-type]
        if actual is None:
            results.append(CheckResult(entry, False, "the implementation does not support "
                                       "the example (Unsupported)"))
        elif expected.same(actual) or refuse_alike(expected, actual):
            results.append(CheckResult(entry, False, "the example no longer diverges "
                                       f"(both give {actual.describe()})"))
        else:
            used = explain(entry.check, names, entry.example, expected, actual, extra=extra)
            if used is not None and entry.id not in used:
                results.append(CheckResult(
                    entry, False, f"redundant: the example is accepted by {', '.join(used)} "
                    "before this entry applies"))
            elif used is None:
                results.append(CheckResult(
                    entry, False, f"the example diverges but is not accepted: reference "
                    f"{expected.describe()}, implementation {actual.describe()}"))
            else:
                results.append(CheckResult(entry, True))
    return results
