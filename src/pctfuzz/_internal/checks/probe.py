"""Set inference: which percent-encode set a str -> str encoder implements (``pctfuzz probe``).

The probe calls the encoder on every ASCII character 0x00-0x7F alone and inside
``a{c}b``; an output of ``c`` means "left raw", ``%HH`` naming that byte (either hex
case; ``+`` for space) means "encoded". Anything else (an exception, another output)
is *irregular* and counted as encoded, since the byte is not left raw. The ASCII bytes
encoded are compared with every registered set (``pctfuzz._internal.sets.SETS``; bytes
0x80-0xFF are in all of them): ``exact`` is the first equal one, ``nearest`` the one
with the fewest differing bytes (ties: the same space-as-``+`` default, then registry
order), and ``spec`` the set as a ready set spec (``pctfuzz._internal.setspec``), ``nearest+X-Y``.

A battery then answers what a set cannot express: existing ``%HH`` (kept, encoded
again as ``%25HH``, upper/lowercased, decoded), invalid escapes, the hex case of the
output, space, ``+``, Unicode normalization, lone surrogates and the encoding of
non-ASCII text. Nothing here prints; ``pctfuzz._internal.cli.probe`` renders the report.

``delimiters`` warns where a set at the nearest distance differs by a character that
ends or splits its component in the URL Standard's parsers (``DELIMITERS``): an
encoder of query values that leaves ``#`` raw is one set away from ``query``, but
declaring ``query-#`` would hide its bug, since the ``#`` ends the query.
"""

from __future__ import annotations

import inspect
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.operations import ENCODE
from pctfuzz._internal.reference import percent_decode
from pctfuzz._internal.sets import SETS, PercentEncodeSet, get_set
from pctfuzz._internal.setspec import canonical_spec, format_spec, urllib_safe_spec
from pctfuzz._internal.spec import HEX_PAIR
from pctfuzz._internal.text import LONE_SURROGATE

__all__ = ["Encoder", "ProbeReport", "adapter_encoder", "load_encoder", "load_target", "probe"]

Encoder = Callable[[str], Any]

_ASCII = range(0x80)
_ALL_ASCII = frozenset(_ASCII)
_HIGH = frozenset(range(0x80, 0x100))
_ESCAPE = re.compile(f"%({HEX_PAIR})")

#: Existing escapes: unreserved (A), reserved in upper and lower hex, a UTF-8 sequence.
VALID_ESCAPES = ("%41", "%2F", "%2f", "%C3%A9")
INVALID_ESCAPES = ("%zz", "%4")
NON_ASCII = ("\u00e9", "\u0080", "\u20ac", "\U0001f600")
#: NFD e + combining acute, NFC e-acute, the "fi" ligature (NFKC: "fi"), the Angstrom
#: sign (NFC: U+00C5): together they tell the four normalization forms apart.
NORMALIZATION = ("e\u0301", "\u00e9", "\ufb01", "\u212b")
SURROGATES = ("\ud800", "a\udc80b")


#: What a raw character does to a value of a set's component, in the URL Standard's
#: basic URL parser (4.4) and application/x-www-form-urlencoded parser (5.1).
_ENDS_QUERY = "ends the query and starts the fragment (URL Standard 4.4, query state)"
_ENDS_PATH = "ends the path (URL Standard 4.4, path state)"
_FORM = {
    "&": "splits the value into two name-value pairs (URL Standard 5.1, step 1)",
    "=": "ends a name and starts its value (URL Standard 5.1, step 3)",
    "+": "decodes to a space (URL Standard 5.1, step 4)",
}
_PERCENT = {"%": "starts a percent-encoded byte, %41 reads as A (URL Standard 1.3, "
                 "percent-decode)"}
_QUERY = {"#": _ENDS_QUERY, **_PERCENT}
_PATH = {"#": _ENDS_PATH, "?": "ends the path and starts the query (URL Standard 4.4, "
                                "path state)", **_PERCENT}
_ANYWHERE = {"#": "ends the query or path (URL Standard 4.4)",
             "?": _PATH["?"], **_FORM, **_PERCENT}
#: Set name -> {character: what it does raw}; a set not listed: ``%`` only.
DELIMITERS: Mapping[str, Mapping[str, str]] = {
    "query": _QUERY,
    "special-query": _QUERY,
    "rfc3986-query": _QUERY,
    "query-value": {**_QUERY, **_FORM},
    "path": _PATH,
    "rfc3986-pchar": _PATH,
    "application/x-www-form-urlencoded": {**_FORM, "#": _ENDS_QUERY, **_PERCENT},
    "component": _ANYWHERE,
    "encodeURIComponent": _ANYWHERE,
    "rfc3986-unreserved": _ANYWHERE,
}


def delimiter_warnings(members: frozenset[int], candidates: list[PercentEncodeSet],
                       ) -> list[str]:
    """One line per candidate set and delimiter the encoder leaves raw where the set
    encodes it (``DELIMITERS``)."""
    lines = []
    for pes in candidates:
        roles = DELIMITERS.get(pes.name, _PERCENT)
        for char, role in roles.items():
            if ord(char) in pes.members and ord(char) not in members:
                lines.append(f"{char!r} is left raw where {pes.name} encodes it, and a "
                             f"raw {char!r} {role}: a set that leaves it raw hides that, so "
                             "declare one only if the encoder means it (else it is a bug)")
    return lines


@dataclass
class ProbeReport:
    """What ``probe`` found; ``asdict`` of it is the ``--json`` object."""

    target: str
    exact: str | None
    nearest: str
    distance: int  # bytes that differ from ``nearest``
    spec: str
    same_as: list[str]  # every registered set with exactly these bytes
    urllib_safe: str | None  # the same set as urllib-safe:CHARS, when quote() can do it
    also_encoded: str  # beyond ``nearest``, in set-spec spelling
    left_raw: str
    irregular: dict[str, str]  # ASCII input -> what came back instead of c or %HH
    context: dict[str, str]  # "a{c}b" inputs whose output is not a + out(c) + b
    existing_escapes: str
    invalid_escapes: str
    hex_case: str
    space: str
    plus: str
    normalization: str
    surrogates: str
    non_ascii: str
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)  # battery -> in -> out
    set: str | None = None  # the set an adapter's encode was asked for
    #: delimiters left raw that the sets at the nearest distance encode (``DELIMITERS``)
    delimiters: list[str] = field(default_factory=list)
    #: the operation probed (``probe_operations`` reports the others)
    operation: str = ENCODE.name

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _call(fn: Encoder, text: str) -> str | BaseException:
    try:
        out = fn(text)
    except Exception as exc:  # an exception is the encoder's answer, not a probe failure
        return exc
    if not isinstance(out, str):
        return TypeError(f"returned {type(out).__name__}, not str")
    return out


def _show(result: str | BaseException) -> str:
    if isinstance(result, BaseException):
        message = str(result).splitlines()[0][:80] if str(result) else ""
        return f"raises {type(result).__name__}" + (f": {message}" if message else "")
    return result


def _escape_of(out: str, byte: int) -> bool:
    return len(out) == 3 and out[0] == "%" and _ESCAPE.fullmatch(out) is not None and (
        int(out[1:], 16) == byte
    )


def _unescaped(out: str) -> bytes:
    """The bytes an ASCII output stands for (lone surrogates kept as surrogatepass)."""
    return percent_decode(out.encode("utf-8", "surrogatepass"))


def _uniform(results: Mapping[str, str]) -> str:
    """One word if every input behaved alike, else ``mixed (input: word, ...)``."""
    kinds = set(results.values())
    if len(kinds) == 1:
        return kinds.pop()
    return "mixed (" + ", ".join(f"{k!a}: {v}" for k, v in results.items()) + ")"


def _existing(text: str, result: str | BaseException) -> str:
    if isinstance(result, BaseException):
        return _show(result).partition(":")[0]
    if result == text:
        return "kept"
    if result.upper() == text.replace("%", "%25").upper():
        return "encoded"
    if result != text and result == _ESCAPE.sub(lambda m: "%" + m[1].upper(), text):
        return "uppercased"
    if result != text and result == _ESCAPE.sub(lambda m: "%" + m[1].lower(), text):
        return "lowercased"
    if _unescaped(result) == percent_decode(text) and "%" not in result:
        return "decoded"
    return f"other ({result!a})"


def _invalid(text: str, result: str | BaseException) -> str:
    if isinstance(result, BaseException):
        return _show(result).partition(":")[0]
    if result == text:
        return "kept"
    if result.upper() == text.replace("%", "%25").upper():
        return "encoded"
    return f"other ({result!a})"


def _non_ascii(text: str, result: str | BaseException) -> str:
    if isinstance(result, BaseException):
        return _show(result).partition(":")[0]
    if result == text:
        return "raw"
    if not result.isascii():
        return f"other ({result!a})"
    data = _unescaped(result)
    for codec in ("utf-8", "latin-1", "cp1252", "utf-16-le", "utf-16-be"):
        try:
            if text.encode(codec) == data:
                return codec
        except UnicodeEncodeError:
            continue
    return f"other ({result!a})"


def _normalization(results: Mapping[str, str | BaseException]) -> str:
    texts: dict[str, str] = {}
    for text, result in results.items():
        if isinstance(result, BaseException):
            return f"unknown ({_show(result).partition(':')[0]})"
        try:
            texts[text] = result if not result.isascii() else _unescaped(result).decode("utf-8")
        except UnicodeDecodeError:
            return f"unknown (output {result!a} is not UTF-8)"
    if all(out == text for text, out in texts.items()):
        return "none"
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        if all(out == unicodedata.normalize(form, text) for text, out in texts.items()):  # type: ignore[arg-type]
            return form
    return "other"


def _surrogate(text: str, result: str | BaseException) -> str:
    if isinstance(result, BaseException):
        return _show(result).partition(":")[0]
    lone = LONE_SURROGATE.search(text)[0]  # type: ignore[index]
    if lone in result:
        return "raw"
    data = _unescaped(result)
    known = {
        "U+FFFD": text.replace(lone, "\ufffd").encode("utf-8"),
        "surrogatepass": text.encode("utf-8", "surrogatepass"),
        "dropped": text.replace(lone, "").encode("utf-8"),
        "replaced with ?": text.replace(lone, "?").encode("utf-8"),
    }
    if 0xDC80 <= ord(lone) <= 0xDCFF:
        known["surrogateescape"] = text.encode("utf-8", "surrogateescape")
    for word, expected in known.items():
        if data == expected:
            return word
    return f"other ({result!a})"


def _one(result: str | BaseException, c: str, *, encoded: str, alt: Mapping[str, str] = {}) -> str:
    """How one character came out: raw, ``encoded`` (as its %HH), an ``alt`` spelling."""
    if result == c:
        return "raw"
    if isinstance(result, str) and _escape_of(result, ord(c)):
        return encoded
    if isinstance(result, str) and result in alt:
        return alt[result]
    return f"other ({_show(result)!a})"


def _membership(out: str | BaseException | None, c: str) -> bool | None:
    """True if ``out`` is ``c`` encoded (its %HH, or + for space), False if ``c`` itself,
    None for anything else."""
    if not isinstance(out, str):
        return None
    if out == c:
        return False
    if _escape_of(out, ord(c)) or (c == " " and out == "+"):
        return True
    return None


def _middle(out: str | BaseException, head: str | BaseException,
            tail: str | BaseException) -> str | None:
    """What ``fn("a{c}b")`` made of ``c``: ``out`` without ``fn("a")`` and ``fn("b")``."""
    if not (isinstance(out, str) and isinstance(head, str) and isinstance(tail, str)):
        return None
    if len(out) < len(head) + len(tail) or not out.startswith(head) or not out.endswith(tail):
        return None
    return out[len(head) : len(out) - len(tail)]


def _hex_case(outputs: list[str]) -> str:
    letters = "".join(h for out in outputs for m in _ESCAPE.finditer(out) for h in m[1])
    upper, lower = any(c in "ABCDEF" for c in letters), any(c in "abcdef" for c in letters)
    return {(True, False): "upper", (False, True): "lower", (True, True): "mixed"}.get(
        (upper, lower), "none"
    )


def _chars(bytes_: set[int]) -> str:
    """Bytes in set-spec spelling (``format_spec`` with an empty base, operator dropped)."""
    return format_spec("", bytes_)[1:] if bytes_ else ""


def probe(fn: Encoder, target: str = "", *, set_name: str | None = None) -> ProbeReport:
    """Probe ``fn`` (str -> str) as the module docstring describes.

    ``PctfuzzError`` if it answers no ASCII character at all (every call raised or
    returned a non-str): there is nothing to infer a set from."""
    singles = {chr(b): _call(fn, chr(b)) for b in _ASCII}
    if all(isinstance(r, BaseException) for r in singles.values()):
        first = _show(singles["a"])
        raise UsageError(f"{target or 'the encoder'} answered no ASCII character: {first}")
    encoded: set[int] = set()
    unknown: set[int] = set()
    irregular: dict[str, str] = {}
    context: dict[str, str] = {}
    # Context answers count only when "a" and "b" alone were answered.
    judged = isinstance(singles["a"], str) and isinstance(singles["b"], str)
    for c, result in singles.items():
        alone = _membership(result, c)
        inner = _call(fn, f"a{c}b")
        within = _membership(_middle(inner, singles["a"], singles["b"]), c)
        if alone is None:
            irregular[c] = _show(result)
        elif judged and within != alone:
            context[f"a{c}b"] = _show(inner)
        answer = alone if alone is not None else within  # "a{c}b" decides what c alone did not
        if answer is None:
            unknown.add(ord(c))
        elif answer:
            encoded.add(ord(c))

    # Bytes with no answer match any set: the nearest set decides them in ``spec``.
    known = _ALL_ASCII - unknown
    plus_space = singles[" "] == "+"
    members = frozenset(encoded) | _HIGH
    ranked = sorted(
        enumerate(SETS.values()),
        key=lambda item: (
            len((item[1].members ^ members) & known),
            item[1].space_as_plus != plus_space,
            item[0],
        ),
    )
    nearest = ranked[0][1]
    members |= nearest.members & unknown
    distance = len((nearest.members ^ members) & known)
    tied = [pes for _, pes in ranked if len((pes.members ^ members) & known) == distance]
    same_as = [pes.name for pes in SETS.values() if pes.members == members]
    exact = nearest.name if nearest.members == members and not irregular and not context else None

    battery = {
        "existing_escapes": {t: _call(fn, t) for t in VALID_ESCAPES},
        "invalid_escapes": {t: _call(fn, t) for t in INVALID_ESCAPES},
        "non_ascii": {t: _call(fn, t) for t in NON_ASCII},
        "normalization": {t: _call(fn, t) for t in NORMALIZATION},
        "surrogates": {t: _call(fn, t) for t in SURROGATES},
    }
    # Hex case from the encoder's own escapes: inputs holding "%" may come back as given.
    produced = [
        r
        for name, group in (("singles", singles), *battery.items())
        if "escapes" not in name
        for r in group.values()
    ]
    return ProbeReport(
        target=target,
        exact=exact,
        nearest=nearest.name,
        distance=len(nearest.members ^ members),  # unknown bytes already agree
        spec=format_spec(nearest.name, members - nearest.members, nearest.members - members),
        same_as=same_as,
        urllib_safe=urllib_safe_spec(members),
        also_encoded=_chars(set(members - nearest.members)),
        left_raw=_chars(set(nearest.members - members)),
        delimiters=[] if exact else delimiter_warnings(members, tied),
        irregular=irregular,
        context=context,
        existing_escapes=_uniform(
            {t: _existing(t, r) for t, r in battery["existing_escapes"].items()}
        ),
        invalid_escapes=_uniform(
            {t: _invalid(t, r) for t, r in battery["invalid_escapes"].items()}
        ),
        hex_case=_hex_case([r for r in produced if isinstance(r, str)]),
        space=_one(singles[" "], " ", encoded="%20", alt={"+": "+"}),
        plus=_one(singles["+"], "+", encoded="encoded"),
        normalization=_normalization(battery["normalization"]),
        surrogates=_uniform({t: _surrogate(t, r) for t, r in battery["surrogates"].items()}),
        non_ascii=_uniform({t: _non_ascii(t, r) for t, r in battery["non_ascii"].items()}),
        outputs={
            name: {t: _show(r) for t, r in group.items()} for name, group in battery.items()
        },
        set=set_name,
    )


# --- loading the target ------------------------------------------------------------------


def _import(target: str) -> object:
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise UsageError(f"target {target!r}: expected module:function or module:Class")
    try:
        from pctfuzz._internal.oracles.registry import import_user_module

        obj: object = import_user_module(module_name)
    except Exception as exc:  # the user's module failed to import: say why, in one line
        raise UsageError(
            f"target {target!r}: cannot import {module_name!r}: {type(exc).__name__}: {exc}"
        ) from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(
                f"target {target!r}: module {module_name!r} has no attribute {attr!r}"
            ) from None
    return obj


def _is_adapter(obj: object) -> bool:
    if isinstance(obj, (str, bytes)):  # str.encode is not an adapter's encode
        return False
    return inspect.isclass(obj) or callable(getattr(obj, "encode", None))


def _adapter_set(impl: object, set_name: str) -> str:
    """``--set NAME``: a label of the adapter's declared ``sets``, or any set spec."""
    declared = getattr(impl, "sets", None)
    if isinstance(declared, Mapping) and set_name in declared:
        value = declared[set_name]
        if isinstance(value, (str, PercentEncodeSet)):
            return canonical_spec(value)
    get_set(set_name)  # UnknownSetError (exit 2) for a bad name or spec
    return set_name


def load_target(target: str) -> tuple[Callable[..., Any] | None, Any]:
    """What ``target`` names: ``(function, None)`` for ``module:function``, ``(None,
    adapter)`` for ``module:Class`` (or an object with ``encode``) or the name of a
    built-in adapter (``pctfuzz._internal.oracles``). ``PctfuzzError`` (one line) when
    it does not import or is neither."""
    from pctfuzz._internal.oracles import (
        IMPLS,
        get_impl,  # oracles import this package's cases, not the reverse
    )

    if ":" not in target and target in IMPLS:
        return None, get_impl(target)
    obj = _import(target)
    if not _is_adapter(obj):
        if not callable(obj):
            raise UsageError(f"target {target!r} is {type(obj).__name__}, not a function")
        return obj, None
    return None, get_impl(target)


def adapter_encoder(impl: Any, set_name: str) -> tuple[Encoder, str]:
    """The str -> str function that asks ``impl.encode`` for ``EncodeCase(text, set)``,
    and that set: ``set_name`` is a label of its declared ``sets`` or any set spec.
    spaceAsPlus is False, unless the adapter refuses ``"a"`` so and answers it with
    True, which its ``spaces`` allow (``URLSearchParams`` of a JavaScript runtime,
    whose encoder also answers sets without '+')."""
    spec = _adapter_set(impl, set_name)
    plus = False
    if True in tuple(getattr(impl, "spaces", ()) or ()):
        from pctfuzz._internal.oracles.base import Unsupported

        try:
            impl.encode(EncodeCase("a", spec))
        except Unsupported:
            try:
                impl.encode(EncodeCase("a", spec, space_as_plus=True))
                plus = True
            except Exception:
                plus = False
        except Exception:
            plus = False
    return (lambda text: impl.encode(EncodeCase(text, spec, space_as_plus=plus))), spec


def load_encoder(target: str, set_name: str | None = None) -> tuple[Encoder, str | None]:
    """The str -> str function ``target`` names, and the set an adapter is asked for.

    ``module:function`` is called as is; ``module:Class`` (or an object with ``encode``)
    is an adapter (``pctfuzz._internal.oracles``) whose ``encode`` gets ``EncodeCase(text,
    set_name)``. ``PctfuzzError`` (one line) when the target does not import, is
    neither, or an adapter comes without ``set_name``."""
    fn, impl = load_target(target)
    if fn is not None:
        if set_name is not None:
            raise UsageError(f"target {target!r} is a function: --set applies to adapters")
        return fn, None
    if set_name is None:
        raise UsageError(f"target {target!r} is an adapter: give --set NAME to probe")
    return adapter_encoder(impl, set_name)
