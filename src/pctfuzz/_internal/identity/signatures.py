"""Finding signatures and ids: which failure it is (``classify``, the crash location) and
the one line that names a bug (``pctfuzz._internal.identity``'s docstring gives the format)."""

from __future__ import annotations

import hashlib
import linecache
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from pctfuzz._internal.accept.rule import rule_class
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.form import form_urldecode, form_urlencode
from pctfuzz._internal.identity.classes import difference
from pctfuzz._internal.operations import OPERATIONS
from pctfuzz._internal.outcome import qualified_type
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.violations import Divergence, Violation

#: Bumped when the signature format changes; stored in every record
#: (``signature_version``). Version 1 held pctfuzz module paths (see CHANGELOG in
#: ``docs/architecture.md``); version 2 named a divergence by its first differing unit
#: where version 3 names it by the catalogue rule that explains it (issue 21);
#: version 4 names a fault codec's invariant violation so too, with the operation as
#: its check (``encode|violation|encode|rule=...``), where version 3 named it by the
#: invariant and the first differing unit; version 5 adds to a crash's place the
#: statement that raised (``raise_site``), where version 4 merged every refusal of one
#: function raising one type; version 6 keeps that statement for a ``raise`` or
#: ``assert`` only, where version 5 had it for every statement (an error the
#: interpreter raised at three statements of one function was three findings).
#: ``pctfuzz migrate`` rewrites such records.
SIGNATURE_VERSION = 6

FINDING_KINDS = frozenset({"violation", "divergence", "crash", "timeout", "oom"})

#: A target name, as a regular expression (``re.fullmatch``, or a part of a larger
#: one): the first field of a signature and a part of file and folder names
#: (``<kind>-<target>-<id>.json``, ``corpus/<target>/``), so no ``|``, ``/`` or ``.``.
TARGET_NAME = "[A-Za-z0-9_-]+"

def finding_id(signature: str) -> str:
    """The id of a signature: the first 16 hex digits of its sha256."""
    return hashlib.sha256(signature.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# --- which failure is it --------------------------------------------------------------------
def classify(exc: BaseException) -> tuple[str, str | None, BaseException]:
    """(kind, check name, exception whose traceback locates the bug) for a failure.

    A ``Divergence`` whose implementation *raised* is a crash of the implementation
    under test, located at the implementation's exception; any exception that is not a
    ``Violation`` is a crash of the reference or the check itself.
    """
    if isinstance(exc, Divergence) and exc.impl_error is not None:
        return "crash", exc.check, exc.impl_error
    if isinstance(exc, Violation):
        return exc.kind, exc.check, exc
    return "crash", None, exc


def _in(module: str, prefixes: Iterable[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def crash_location(exc: BaseException, code_under_test: Sequence[str]) -> str:
    """Where ``exc`` rose, as ``module:qualname+site`` of the innermost traceback frame
    in ``code_under_test`` (module-name prefixes), else of the innermost frame outside
    pctfuzz; ``pctfuzz`` if every frame is pctfuzz's own; ``-`` without a traceback.

    ``site`` (``raise_site``) tells apart the statements of one function that raise: a
    parser refusing ``[`` in one line and a bad port in another, both ``ValueError``,
    are two behaviours (one of them may be a bug), not one finding."""
    tb: TracebackType | None = exc.__traceback__
    under_test: str | None = None
    outside: str | None = None
    seen = False
    while tb is not None:
        seen = True
        frame = tb.tb_frame
        module = frame.f_globals.get("__name__")
        module = module if isinstance(module, str) else ""
        qualname = frame.f_code.co_qualname
        if not module or module == "__main__":
            where = f"{Path(frame.f_code.co_filename).name}:{qualname}"
        else:
            where = f"{module}:{qualname}"
        where += raise_site(frame.f_code.co_filename, tb.tb_lineno)
        if module and _in(module, code_under_test):
            under_test = where
        elif not _in(module, ("pctfuzz",)):
            outside = where
        tb = tb.tb_next
    if under_test is not None:
        return under_test
    if outside is not None:
        return outside
    return "pctfuzz" if seen else "-"


def raise_site(filename: str, lineno: int) -> str:
    """``+`` and 6 hex digits of the ``raise`` (or ``assert``) statement's source line
    (whitespace collapsed): which deliberate refusal of a function raised. Its text, not
    its number, so an upgrade that only moves the line keeps the finding.

    ``""`` for any other statement: an error the interpreter or a call raised there
    (a ``TypeError`` indexing a str, an ``int()`` refusing ``²``) is located by its type
    and function alone, as one wrong assumption of a function fails at each statement
    that relies on it (a merge walk meeting a str where it expects a dict raised at
    three statements: three findings for one bug). Also ``""`` when the source cannot
    be read."""
    line = " ".join(linecache.getline(filename, lineno).split())
    if line.split(" ", 1)[0].split("(", 1)[0] not in ("raise", "assert"):
        return ""
    return "+" + hashlib.sha256(line.encode("utf-8", "surrogatepass")).hexdigest()[:6]


def refusal_site(exc: BaseException, code_under_test: Sequence[str]) -> str | None:
    """``<type>@<where>`` of a refusal, when a frame outside pctfuzz locates it (the
    statement that raised: ``crash_location``); None for an error without a traceback
    (a peer's answer) or raised in pctfuzz's own code, whose place tells nothing."""
    where = crash_location(exc, code_under_test)
    if where in ("-", "pctfuzz"):
        return None
    return f"{qualified_type(exc)}@{where}"


#: The class of a refusal of what a known finding's cut lets through, whatever raised
#: it: ``raised=any;after(<the known finding's class>)`` (``checks.differential``).
RAISED_AFTER = "raised=any;after("


def crash_class(exc: BaseException, code_under_test: Sequence[str]) -> str:
    """``raised=<type>@<where>``: the class of a crash."""
    return f"raised={qualified_type(exc)}@{crash_location(exc, code_under_test)}"


# --- invariants: the codec under test against the reference -----------------------------
#: target name -> the question its cases ask.
QUESTION = {op.ident: op.name for op in OPERATIONS}


def _reference(question: str, case: Case) -> Any:
    if isinstance(case, EncodeCase):
        return percent_encode(case.value, case.set_name, encoding=case.encoding,
                              space_as_plus=case.space_as_plus)
    if isinstance(case, DecodeCase):
        return percent_decode(case.value)
    if isinstance(case, FormCase):
        return form_urlencode(case.pairs, encoding=case.encoding)
    if isinstance(case, FormParseCase):
        return form_urldecode(case.text)
    raise PctfuzzError(f"no reference answer for {type(case).__name__}")


def _codec_answer(codec: Any, case: Case) -> Any:
    if isinstance(case, EncodeCase):
        return codec.encode(case.value, case.set_name, encoding=case.encoding,
                            space_as_plus=case.space_as_plus)
    if isinstance(case, DecodeCase):
        return codec.decode(case.value)
    if isinstance(case, FormCase):
        return codec.form_encode(case.pairs, encoding=case.encoding)
    if isinstance(case, FormParseCase):
        return codec.form_decode(case.text)
    raise PctfuzzError(f"no codec answer for {type(case).__name__}")


def _answer(call: Callable[[], Any]) -> object:
    try:
        return call()
    except Exception as exc:
        return exc


def codec_difference(question: str, case: Case, codec: Any) -> str:
    """The class of the difference between ``codec`` (a ``oracles.codec.Codec``; None is
    the reference) and the reference on ``case``: ``-`` when they agree."""
    if codec is None:
        return "-"
    expected = _answer(lambda: _reference(question, case))
    actual = _answer(lambda: _codec_answer(codec, case))
    if isinstance(expected, BaseException) and isinstance(actual, BaseException):
        return "-" if type(expected) is type(actual) else f"both-raised={qualified_type(actual)}"
    if not isinstance(expected, BaseException) and not isinstance(actual, BaseException) \
            and expected == actual:
        return "-"
    if isinstance(actual, BaseException):
        return crash_class(actual, ())
    return difference(question, case, expected, actual)


# --- signatures ----------------------------------------------------------------------------
def _clean(part: str) -> str:
    text = part if part.isprintable() else repr(part)[1:-1]
    return text[:300].replace("|", "%7C")


def make_signature(target: str, kind: str, check: str | None, klass: str,
                   impl: str | None = None, *, accepted: bool = True) -> str:
    """The signature line from its parts (see the module docstring); ``accepted``
    False: made under ``--no-accepted`` (the run's ``settings.RunSettings.accepted``)."""
    if kind not in FINDING_KINDS:
        raise PctfuzzError(f"kind must be one of {sorted(FINDING_KINDS)}, not {kind!r}")
    parts = [target, kind, check or "-", klass or "-"]
    if impl:
        # The same check failing for two implementations is two bugs, not one.
        parts.append(f"impl={impl}")
        if not accepted:
            # --no-accepted: a finding of its own, which a normal campaign (whose
            # accepted differences may explain it) never closes or reopens.
            parts.append(NO_ACCEPTED)
    return "|".join(map(_clean, parts))


#: The last part of the signature of a finding made under ``--no-accepted``.
NO_ACCEPTED = "accepted=none"


def made_without_accepted(signature: str) -> bool:
    """The finding was made under ``--no-accepted`` (its signature ends so)."""
    return signature.endswith("|" + NO_ACCEPTED)


def without_accepted_mode(signature: str) -> str:
    """``signature`` without its ``--no-accepted`` mark: the failure it names."""
    return signature.removesuffix("|" + NO_ACCEPTED)


def stop_signature(target: str, kind: str, impl: str | None = None, *,
                   accepted: bool = True) -> str:
    """A finding for an input libFuzzer stopped on (timeout, oom, process crash): no
    exception to classify, so one such finding per target, kind and implementation."""
    return make_signature(target, kind, None, "-", impl, accepted=accepted)


#: The stops of an input that takes more than a run allows, one behaviour whichever it
#: meets: an input that allocates without bound meets the time limit or the memory
#: limit first as the machine's speed and load decide (a held-out parser's unbounded
#: list was a timeout finding and an oom finding).
RESOURCE_STOPS = ("timeout", "oom")


def other_resource_stop(kind: str) -> str | None:
    """The other kind of ``RESOURCE_STOPS`` than ``kind``; None for any other kind."""
    return next((other for other in RESOURCE_STOPS if other != kind), None) \
        if kind in RESOURCE_STOPS else None


def resource_stop(signature: str) -> str | None:
    """A stop signature (``stop_signature``) of a kind of ``RESOURCE_STOPS`` with its
    kind written ``resources``, so a timeout and an oom of one target and
    implementation compare equal; None for any other signature."""
    fields = signature.split("|")
    if len(fields) < 5 or fields[1] not in RESOURCE_STOPS or fields[2:4] != ["-", "-"]:
        return None
    return "|".join([fields[0], "resources", *fields[2:]])


def signature_of(target: str, exc: BaseException | None, *, case: Case | None = None,
                 subject: Any = None, impl: str | None = None,
                 code_under_test: Sequence[str] = (), kind: str | None = None,
                 check: str | None = None, accepted: bool = True) -> str:
    """The signature of ``exc``, raised by ``target``'s check on ``case``, in a run
    with (``accepted``) or without (``--no-accepted``) the accepted differences.

    ``subject`` is what an invariant target's check ran against (a
    ``oracles.codec.Codec``; None is the reference): the class is then the difference
    between it and the reference on ``case``. A ``Divergence`` carries its class.
    ``code_under_test`` are the module prefixes whose frames locate a crash (the
    adapter's ``modules_under_test``). ``exc`` None is a stop (timeout/oom) of
    ``kind``; ``kind``/``check`` otherwise default to ``classify(exc)``'s.
    """
    if exc is None:
        return make_signature(target, kind or "crash", check, "-", impl, accepted=accepted)
    found_kind, found_check, located = classify(exc)
    kind, check = kind or found_kind, check or found_check
    if kind == "crash" and isinstance(exc, Divergence) and (
            exc.behaviour is not None or exc.difference.startswith(RAISED_AFTER)):
        # A refusal a rule explains (refuses(input=invalid-utf8)) is one behaviour
        # whichever code path raised; so is one after a known cut (``RAISED_AFTER``).
        klass = exc.difference
    elif kind == "crash":
        klass = crash_class(located, code_under_test)
    elif isinstance(exc, Divergence):
        klass = exc.difference
    elif isinstance(exc, Violation) and exc.behaviour is not None:
        # A codec's violation a rule explains (``targets.BoundInvariant``): one
        # behaviour breaks several invariants, so the operation is the check and the
        # rule the class, whichever invariant saw it.
        check = QUESTION.get(target, check)
        klass = rule_class(exc.behaviour["rule"], exc.behaviour["params"])
    elif case is not None and subject is not None:
        klass = codec_difference(QUESTION.get(target, ""), case, subject)
    else:
        klass = "-"
    return make_signature(target, kind, check, klass, impl, accepted=accepted)
