"""The finding record's schema and its strict parser: what a ``findings/*.json`` holds.

A record is one JSON object with exactly the fields of ``FIELDS``, plus those of
``OPTIONAL_FIELDS`` that are not null (schema 2; schema 1, without
``signature_version`` and ``note``, is still read so that ``pctfuzz migrate`` can
rewrite it; ``behaviour``, the rule that explains a divergence, may be absent:
null). JSON only, nothing is ever unpickled or evaluated, and the parser
refuses what could not be written back or printed safely: NaN and Infinity (and
literals like ``1e999``), duplicate keys, a mistyped field (a bool is not an int),
an id that is not its signature's, control characters in name fields, timestamps
other than ISO 8601 UTC, and a case of another target's type. Every refusal is a
``FindingFormatError`` naming the file in one line.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from pctfuzz._internal.accept.reconcilers import OPTIONAL_PARAMS, RECONCILERS
from pctfuzz._internal.cases import CASE_TYPES, case_from_json
from pctfuzz._internal.errors import PctfuzzError, type_name
from pctfuzz._internal.identity import (
    FINDING_KINDS,
    QUESTION,
    SIGNATURE_VERSION,
    TARGET_NAME,
    finding_id,
)
from pctfuzz._internal.store.errors import FindingFormatError, short
from pctfuzz._internal.store.files import is_target_name

__all__ = [
    "FIELDS",
    "FINDING_STATUSES",
    "ID_RE",
    "MAX_NOTE_LEN",
    "OPEN_STATUSES",
    "OPTIONAL_FIELDS",
    "SCHEMA_VERSION",
    "TRIAGED_STATUSES",
    "behaviour_problem",
    "decode_record",
    "dumps",
    "parse_time",
    "validate_note",
    "validate_record",
]

#: Record format. Schema 2 added ``signature_version`` (and ``note``); ``behaviour``
#: (issue 21) is optional: a record without it reads as ``null``.
SCHEMA_VERSION: Final = 2
_READABLE_SCHEMAS: Final = (1, 2)
#: A finding is open (``new``) until it is triaged or verified fixed, as ClusterFuzz
#: keeps a testcase open: an open finding that still reproduces fails a campaign
#: (``pctfuzz fuzz --fail-on open``). A triaged one never fails a run: the behaviour is
#: intended (``known-divergence``), not a bug (``false-positive``), the adapter's own
#: mistake (``adapter-bug``) or a bug nobody will fix (``wont-fix``). ``fixed``: a
#: replay no longer reproduces it (``fixed_in`` says in which version and when).
OPEN_STATUSES: Final = frozenset({"new"})
TRIAGED_STATUSES: Final = frozenset({"known-divergence", "false-positive", "adapter-bug",
                                     "wont-fix"})
FINDING_STATUSES: Final = OPEN_STATUSES | TRIAGED_STATUSES | {"fixed"}
ID_RE: Final = re.compile(r"[0-9a-f]{16}")
FIELDS: Final = (
    "schema", "id", "target", "kind", "signature", "signature_version", "case", "raw_input",
    "expected",
    "actual", "evidence", "traceback", "versions", "impl", "first_seen", "last_seen",
    "hits", "status", "minimized", "note", "behaviour",
)  # fmt: skip
#: Fields written only when not null (a record without one reads as null), so records
#: without them stay byte for byte what they were: ``fixed_in`` (``{"version",
#: "date"}``: the implementation's version when a replay verified the fix) and
#: ``previous_ids`` (the ids it had before ``pctfuzz migrate`` re-identified it, or
#: of the records merged into it: ``replay``, ``triage`` and ``accept`` resolve them).
OPTIONAL_FIELDS: Final = ("fixed_in", "previous_ids")
#: Most previous ids one record keeps (a bound, not a limit met in practice).
_MAX_PREVIOUS_IDS: Final = 64

_MAX_SIGNATURE_LEN: Final = 4096
_MAX_LABEL_LEN: Final = 300
MAX_NOTE_LEN: Final = 2000
#: ``first_seen``/``last_seen`` as ``records.utc_now`` writes them (``+00:00`` accepted
#: for "Z"). ``datetime.fromisoformat`` alone takes any character between date and
#: time, a newline included.
_UTC_STAMP: Final = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|\+00:00)")

_OptStr = (str, type(None))
_TYPES: Final[Mapping[str, tuple[type, ...]]] = {
    "id": (str,),
    "target": (str,),
    "kind": (str,),
    "signature": (str,),
    "signature_version": (int,),
    "case": (dict, type(None)),
    "raw_input": _OptStr,
    "expected": _OptStr,
    "actual": _OptStr,
    "evidence": (dict,),
    "traceback": (str,),
    "versions": (dict,),
    "impl": _OptStr,
    "first_seen": (str,),
    "last_seen": (str,),
    "hits": (int,),
    "status": (str,),
    "minimized": (bool,),
    "note": _OptStr,
    "behaviour": (dict, type(None)),
    "fixed_in": (dict, type(None)),
    "previous_ids": (list, type(None)),
}


def dumps(obj: object, indent: int | None = None) -> str:
    """The record's JSON: sorted keys, ASCII only (lone surrogates escaped), no NaN."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=True, allow_nan=False, indent=indent)


def parse_time(text: str) -> datetime:
    """A record's timestamp; ``ValueError`` unless it is UTC."""
    stamp = datetime.fromisoformat(text)
    if stamp.tzinfo is None or stamp.utcoffset() != UTC.utcoffset(None):
        raise ValueError("not UTC")
    return stamp


def _param_value_ok(value: object) -> bool:
    if type(value) in (str, int, bool):
        return not isinstance(value, str) or len(value) <= _MAX_LABEL_LEN
    return type(value) is list and all(type(v) is str for v in value)


def behaviour_problem(behaviour: object) -> str | None:
    """Why ``behaviour`` cannot be a finding's ``behaviour`` field, or None: null, or
    ``{"rule": NAME, "params": {...}, "text": TEXT}`` with NAME a ready-made reconciler
    (``pctfuzz._internal.accept.RECONCILERS``), params exactly its TOML keys, with its
    optional ones (strings, ints, bools, lists of strings), TEXT one printable line."""
    if behaviour is None:
        return None
    if not isinstance(behaviour, dict) or set(behaviour) != {"rule", "params", "text"}:
        return "must be null or an object with exactly 'rule', 'params' and 'text'"
    rule, params, text = behaviour["rule"], behaviour["params"], behaviour["text"]
    if not isinstance(rule, str) or rule not in RECONCILERS:
        return f"rule must be one of {', '.join(RECONCILERS)}"
    param = RECONCILERS[rule][1]
    required = {param} if param else set()
    if not isinstance(params, dict) or not required <= set(params) <= \
            required | set(OPTIONAL_PARAMS.get(rule, ())):
        return f"params of {rule} must be exactly {{{param or ''}}}" + "".join(
            f" and may hold {key!r}" for key in OPTIONAL_PARAMS.get(rule, ()))
    if not all(_param_value_ok(v) for v in params.values()):
        return "params must be strings, integers, booleans or lists of strings"
    problem = _label_problem(text)
    return None if problem is None else f"text {problem}"


def validate_note(note: str | None) -> bool:
    """A triager's note is absent or one printable line of at most 2000 characters."""
    return note is None or (len(note) <= MAX_NOTE_LEN and note.isprintable())


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {short(key)}")
        result[key] = value
    return result


def decode_record(raw: bytes, source: Path) -> object:
    """The JSON value of a record file's bytes (strict UTF-8 and JSON)."""
    if not raw:
        raise FindingFormatError(source, "empty file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FindingFormatError(source, f"invalid UTF-8 at byte {exc.start}") from None
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise FindingFormatError(source, f"invalid JSON: {exc.msg} at line {exc.lineno} "
                                 f"column {exc.colno}") from None  # fmt: skip
    except RecursionError:
        raise FindingFormatError(source, "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # NaN/Infinity, duplicate keys, oversized int literals
        raise FindingFormatError(source, f"invalid JSON: {exc}") from None


def _label_problem(value: object) -> str | None:
    """Why ``value`` cannot be a name field of a record (impl, check, versions): these
    are printed and exported, so they must be one printable line. None if it can."""
    if not isinstance(value, str):
        return f"must be str, not {type_name(value)}"
    if not 0 < len(value) <= _MAX_LABEL_LEN:
        return f"must be 1..{_MAX_LABEL_LEN} characters"
    if not value.isprintable():
        return "must be one printable line (no control characters)"
    return None


def _non_finite(value: object) -> bool:
    """``value`` (decoded JSON) holds a float that is not finite, as ``1e999`` decodes
    to: such a record could never be written back (``allow_nan=False``). Iterative,
    so any depth the JSON decoder accepted is fine here."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _fixed_in_problem(value: dict[str, Any] | None) -> str | None:
    """Why ``fixed_in`` is unusable: ``{"version": label, "date": UTC timestamp}``."""
    if value is None:
        return None
    if set(value) != {"version", "date"} or _label_problem(value["version"]) \
            or not isinstance(value["date"], str) or not _UTC_STAMP.fullmatch(value["date"]):
        return "field 'fixed_in' must be {version: one line, date: ISO 8601 UTC}"
    return None


def _case_type_of(target: str) -> type | None:
    """The case type of a built-in target's records (None for any other name). A
    built-in target is named after the question its cases ask (``identity.QUESTION``),
    with ``diff_`` in front for its differential twin; tests/unit/test_store.py checks
    this against ``targets.TARGETS``, which the store does not import."""
    question = QUESTION.get(target.removeprefix("diff_"))
    return None if question is None else CASE_TYPES[question]


def validate_record(data: object, source: Path) -> dict[str, Any]:
    """The fields of a valid record, as keyword arguments of ``records.Finding``
    (a schema-1 record is brought to schema 2); ``FindingFormatError`` otherwise:
    its shape (schema, fields, types), its identity (target, kind, status, id and
    signature), its labels and its contents (times, input, case), checked in turn."""

    def bad(message: str) -> FindingFormatError:
        return FindingFormatError(source, message)

    data = _shaped(data, bad)
    _check_identity(data, bad)
    _check_labels(data, bad)
    _check_contents(data, bad)
    return data


def _shaped(data: object, bad: Callable[[str], FindingFormatError]) -> dict[str, Any]:
    """``data`` as a record's fields (schema 1 brought to 2, optional fields filled),
    each of its type."""
    if not isinstance(data, dict):
        raise bad(f"expected a JSON object, got {type_name(data)}")
    if "schema" not in data:
        raise bad("missing field 'schema'")
    schema = data["schema"]
    if type(schema) is not int:
        raise bad(f"field 'schema' must be int, not {type_name(schema)}")
    if schema not in _READABLE_SCHEMAS:
        newer = " (written by a newer pctfuzz)" if schema > SCHEMA_VERSION else ""
        raise bad(
            f"unsupported schema version {schema}{newer}; this pctfuzz reads "
            f"{', '.join(map(str, _READABLE_SCHEMAS))}"
        )
    if schema == 1:  # before signature_version: its signatures are of format 1
        if "signature_version" in data:
            raise bad("unknown field(s) 'signature_version'")
        data = {**data, "schema": SCHEMA_VERSION, "signature_version": 1, "note": None}
    if "behaviour" not in data:  # written before the field existed (issue 21)
        data = {**data, "behaviour": None}
    data = {**{name: None for name in OPTIONAL_FIELDS}, **data}
    unknown = sorted(set(data) - set(FIELDS) - set(OPTIONAL_FIELDS))
    if unknown:
        raise bad(f"unknown field(s) {', '.join(map(short, unknown))}")
    missing = [name for name in FIELDS if name not in data]
    if missing:
        raise bad(f"missing field(s) {', '.join(map(repr, missing))}")
    for name, types in _TYPES.items():
        value = data[name]
        # exact type checks: a bool is not an int here
        if type(value) not in types:
            allowed = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise bad(f"field {name!r} must be {allowed}, not {type_name(value)}")
    return data


def _check_identity(data: dict[str, Any], bad: Callable[[str], FindingFormatError]) -> None:
    """Its target, kind and status are known; its id is its signature's, which names
    them; its hits and signature version are in range."""
    target, kind, status = data["target"], data["kind"], data["status"]
    if not is_target_name(target):
        raise bad(f"invalid target {short(target)}: use {TARGET_NAME}")
    if kind not in FINDING_KINDS:
        raise bad(f"kind must be one of {', '.join(sorted(FINDING_KINDS))}; got {short(kind)}")
    if status not in FINDING_STATUSES:
        allowed = ", ".join(sorted(FINDING_STATUSES))
        raise bad(f"status must be one of {allowed}; got {short(status)}")
    if not ID_RE.fullmatch(data["id"]):
        raise bad(f"id must be 16 lowercase hex digits, got {short(data['id'])}")
    signature: str = data["signature"]
    if not signature or len(signature) > _MAX_SIGNATURE_LEN or not signature.isprintable():
        raise bad(f"signature must be one printable line of 1..{_MAX_SIGNATURE_LEN} characters")
    if not signature.startswith(f"{target}|{kind}|"):
        raise bad(f"signature must start with '{target}|{kind}|'")
    if data["id"] != finding_id(signature):
        raise bad(
            f"id {data['id']} does not match its signature (expected {finding_id(signature)})"
        )
    if data["hits"] < 1:
        raise bad(f"hits must be >= 1, got {data['hits']}")
    if not 1 <= data["signature_version"] <= SIGNATURE_VERSION:
        raise bad(f"signature_version must be 1..{SIGNATURE_VERSION}, "
                  f"got {data['signature_version']}")


def _check_labels(data: dict[str, Any], bad: Callable[[str], FindingFormatError]) -> None:
    """Its numbers are finite; its texts (implementation, check, behaviour, note,
    versions, fixes, previous ids) are what they may be: data, one line each."""
    if _non_finite(data):
        raise bad("holds a non-finite number (NaN, Infinity, or a literal like 1e999)")
    for name, value in (("impl", data["impl"]), ("evidence.check", data["evidence"].get("check"))):
        problem = None if value is None else _label_problem(value)
        if problem:
            raise bad(f"field {name!r} {problem}")
    problem = behaviour_problem(data["behaviour"])
    if problem:
        raise bad(f"field 'behaviour' {problem}")
    if not validate_note(data["note"]):
        raise bad("field 'note' must be one printable line of at most 2000 characters")
    for key, value in data["versions"].items():
        problem = _label_problem(key) or _label_problem(value)
        if problem:
            raise bad(f"versions[{short(key)}] {problem}")
    problem = _fixed_in_problem(data["fixed_in"])
    if problem:
        raise bad(problem)
    previous = data["previous_ids"]
    if previous is not None and (
            not previous or len(previous) > _MAX_PREVIOUS_IDS or data["id"] in previous
            or not all(isinstance(i, str) and ID_RE.fullmatch(i) for i in previous)):
        raise bad(f"field 'previous_ids' must be 1..{_MAX_PREVIOUS_IDS} other finding ids")


def _check_contents(data: dict[str, Any], bad: Callable[[str], FindingFormatError]) -> None:
    """Its times are UTC and in order; its input is base64; its case reads as a case
    of its target."""
    if not all(_UTC_STAMP.fullmatch(data[name]) for name in ("first_seen", "last_seen")):
        raise bad("first_seen/last_seen must be ISO 8601 UTC timestamps")
    try:
        first = parse_time(data["first_seen"])
        last = parse_time(data["last_seen"])
    except ValueError:
        raise bad("first_seen/last_seen must be ISO 8601 UTC timestamps") from None
    if last < first:
        raise bad("last_seen is before first_seen")
    if data["raw_input"] is not None:
        try:
            base64.b64decode(data["raw_input"].encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):
            raise bad("raw_input is not valid base64") from None
    if data["case"] is not None:
        try:
            case = case_from_json(data["case"])
        except PctfuzzError as exc:
            raise bad(f"case: {exc}") from None
        target = data["target"]
        expected = _case_type_of(target)
        if expected is not None and type(case) is not expected:
            # e.g. a decode case under diff_encode: replaying it would run the wrong check
            raise bad(f"case: a {type(case).__name__} does not belong to target {target} "
                      f"(expects {expected.__name__})")
