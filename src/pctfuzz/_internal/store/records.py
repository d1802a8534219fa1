"""One finding: the ``Finding`` record, how a driver builds one, how a file is loaded.

A finding is one distinct failure (its ``signature``, see ``pctfuzz._internal.identity``) in one
file ``<kind>-<target>-<id>.json``, ``id`` the first 16 hex digits of
sha256(signature). ``schema`` says which fields the file holds.
"""

from __future__ import annotations

import base64
import importlib.metadata
import os
import platform
import traceback as _traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Protocol

from pctfuzz._internal.cases import Case, case_from_json
from pctfuzz._internal.errors import CaseFormatError
from pctfuzz._internal.identity import (
    FINDING_KINDS,
    SIGNATURE_VERSION,
    finding_id,
    signature_of,
    stop_signature,
)
from pctfuzz._internal.store.errors import FindingFormatError, StoreError
from pctfuzz._internal.store.files import read_regular_file, validate_target
from pctfuzz._internal.store.schema import (
    FIELDS,
    OPTIONAL_FIELDS,
    SCHEMA_VERSION,
    decode_record,
    dumps,
    validate_record,
)
from pctfuzz._internal.text import one_line
from pctfuzz._internal.violations import Divergence, Violation

__all__ = [
    "DEFAULT_FINDING_MAX_SIZE",
    "Finding",
    "collect_versions",
    "load_finding",
    "new_finding",
    "new_stop_finding",
    "seen_to_stop",
    "utc_now",
]

DEFAULT_FINDING_MAX_SIZE: Final = 16 << 20  # 16 MiB


def utc_now() -> str:
    """The current time as ISO 8601 UTC with milliseconds, e.g. ``2024-05-01T12:00:00.123Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def collect_versions(impl: str | None = None, version: str | None = None) -> dict[str, str]:
    """Python, pctfuzz, platform, and ``impl``'s library ``version``, which the caller
    asks the adapter for (``oracles.impl_version``: the store imports no adapter);
    ``"unknown"`` when it is not given."""
    try:
        pctfuzz_version = importlib.metadata.version("pctfuzz")
    except importlib.metadata.PackageNotFoundError:
        pctfuzz_version = "unknown"
    versions = {
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "pctfuzz": pctfuzz_version,
        "platform": platform.platform(),
    }
    if impl:
        versions[impl] = version or "unknown"
    return versions


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One distinct finding (schema 2; its signature's format is ``signature_version``,
    see ``pctfuzz._internal.identity``). Build one with ``new_finding`` or
    ``new_stop_finding``; the JSON file holds exactly these fields."""

    schema: int = SCHEMA_VERSION
    id: str
    target: str
    kind: str
    signature: str
    signature_version: int = SIGNATURE_VERSION
    case: dict[str, Any] | None = None
    raw_input: str | None = None
    expected: str | None = None
    actual: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    traceback: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    impl: str | None = None
    first_seen: str = field(default_factory=utc_now)
    last_seen: str = field(default_factory=utc_now)
    hits: int = 1
    status: str = "new"
    minimized: bool = False
    note: str | None = None  # the triager's words (``pctfuzz triage --note``)
    #: The catalogue rule that explains the divergence (``pctfuzz._internal.accept.rules``):
    #: ``{"rule", "params", "text"}``, what ``pctfuzz accept`` writes; None if none does.
    behaviour: dict[str, Any] | None = None
    fixed_in: dict[str, str] | None = None  # {"version", "date"} of a verified fix
    #: Ids this finding had before (``pctfuzz migrate``), still resolved to it.
    previous_ids: list[str] | None = None

    @property
    def file_name(self) -> str:
        return f"{self.kind}-{self.target}-{self.id}.json"

    @property
    def native_crash(self) -> bool:
        """A crash that stopped the process (``new_stop_finding``: a deadly signal, an
        exit, an exception no check caught), not an exception a check raised."""
        return self.kind == "crash" and self.evidence.get("stopped") == "crash"

    @property
    def stopped_a_process(self) -> bool:
        """An input libFuzzer stopped on (``new_stop_finding``: a crash of the process, a
        timeout, an oom): replay runs it in a process of its own (``fuzz.replay.run_case``),
        which a timeout that allocates without bound cannot take the machine's memory in."""
        return "stopped" in self.evidence

    def raw_bytes(self) -> bytes | None:
        """The raw fuzzer input, decoded from base64."""
        return None if self.raw_input is None else base64.b64decode(self.raw_input)

    def rebuild_case(self) -> Case:
        """The case rebuilt from its JSON -- how replay must rebuild it, never by
        re-decoding ``raw_input``. ``CaseFormatError`` if the record has no case."""
        if self.case is None:
            raise CaseFormatError(
                f"finding {self.id} has no case; replay its raw_input against {self.target}"
            )
        return case_from_json(self.case)

    def size_key(self) -> tuple[int, int]:
        """Smaller is a better reproducer: raw input length, then case JSON length."""
        raw = self.raw_bytes()
        case_len = len(dumps(self.case)) if self.case is not None else 0
        return (len(raw) if raw is not None else case_len, case_len)

    def to_json(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in FIELDS}
        data.update({name: getattr(self, name) for name in OPTIONAL_FIELDS
                     if getattr(self, name) is not None})
        return data

    def to_bytes(self) -> bytes:
        """The file content: sorted keys, ASCII only (lone surrogates escaped), newline."""
        return (dumps(self.to_json(), indent=2) + "\n").encode("ascii")

    @classmethod
    def from_json(cls, data: object, source: os.PathLike[str] | str = "<finding>") -> Finding:
        """Validate a decoded record strictly; ``FindingFormatError`` names ``source``."""
        return cls(**validate_record(data, Path(source)))

    @classmethod
    def from_bytes(cls, raw: bytes, source: os.PathLike[str] | str = "<finding>") -> Finding:
        """The record of a file's bytes, validated as ``load_finding`` validates."""
        path = Path(source)
        return cls(**validate_record(decode_record(raw, path), path))


def load_finding(
    path: Path, *, max_size: int = DEFAULT_FINDING_MAX_SIZE, check_name: bool = True
) -> Finding:
    """Read and strictly validate one finding file.

    Raises ``StoreError`` (symlink, directory, special file, over ``max_size`` --
    checked before reading -- unreadable) or ``FindingFormatError`` (anything
    ``pctfuzz._internal.store.schema`` refuses, and with ``check_name`` a file name other than
    ``<kind>-<target>-<id>.json``).
    """
    path = Path(path)
    finding = Finding.from_bytes(read_regular_file(path, max_size), path)
    if check_name and path.name != finding.file_name:
        raise FindingFormatError(path, f"file name does not match its record ({finding.file_name})")
    return finding


def new_finding(
    target: str,
    kind: str,
    exc: BaseException | None = None,
    *,
    case: Case | Mapping[str, Any] | None = None,
    signature: str | None = None,
    raw_input: bytes | None = None,
    check: str | None = None,
    impl: str | None = None,
    impl_modules: Iterable[str] = (),
    expected: str | None = None,
    actual: str | None = None,
    evidence: Mapping[str, Any] | None = None,
    traceback: str | None = None,
    versions: Mapping[str, str] | None = None,
    status: str = "new",
    minimized: bool = False,
    now: str | None = None,
    behaviour: Mapping[str, Any] | None = None,
    accepted: bool = True,
) -> Finding:
    """A new finding (``hits=1``) for ``exc`` raised while checking ``case``, with the
    ``signature`` that ``pctfuzz._internal.identity`` gave the failure (default:
    ``identity.signature_of`` from ``exc`` alone, which knows no codec under test).

    For a ``Violation``, ``expected``/``actual``/``evidence`` default to its own
    (reprs), and for a ``Divergence`` ``impl`` and ``behaviour`` default to its own.
    """
    if isinstance(exc, Divergence) and impl is None:
        impl = exc.impl
    if isinstance(exc, Violation) and behaviour is None:
        behaviour = exc.behaviour
    if isinstance(exc, Violation):
        expected = repr(exc.expected) if expected is None else expected
        actual = repr(exc.actual) if actual is None else actual
        evidence = exc.evidence() if evidence is None else evidence
    elif exc is not None and evidence is None:
        evidence = {"exception": one_line(f"{type(exc).__name__}: {exc}", 1000)}
    validate_target(target)
    if kind not in FINDING_KINDS:
        raise StoreError("<finding>", f"kind must be one of {sorted(FINDING_KINDS)}, not {kind!r}")
    if signature is None:
        signature = signature_of(target, exc, kind=kind, check=check, impl=impl,
                                 code_under_test=tuple(impl_modules), accepted=accepted)
    if traceback is None:
        traceback = "".join(_traceback.format_exception(exc)) if exc is not None else ""
    case_json: dict[str, Any] | None
    if case is None:
        case_json = None
    elif isinstance(case, Mapping):
        case_json = dict(case)
    else:
        case_json = case.to_json()
    stamp = now or utc_now()
    return Finding(
        id=finding_id(signature),
        target=target,
        kind=kind,
        signature=signature,
        signature_version=SIGNATURE_VERSION,
        case=case_json,
        raw_input=None if raw_input is None else base64.b64encode(raw_input).decode("ascii"),
        expected=expected,
        actual=actual,
        evidence=dict(evidence or {}),
        traceback=traceback,
        versions=dict(versions) if versions is not None else collect_versions(impl),
        impl=impl,
        first_seen=stamp,
        last_seen=stamp,
        status=status,
        minimized=minimized,
        behaviour=None if behaviour is None else dict(behaviour),
    )


class _ByteFormat(Protocol):
    """What ``new_stop_finding`` needs of a ``targets.Target`` (the store imports none)."""

    @property
    def name(self) -> str: ...

    def from_bytes(self, data: bytes, /) -> Any: ...


def new_stop_finding(
    *,
    target: _ByteFormat | str,
    kind: str,
    raw_input: bytes | None,
    impl: str | None = None,
    traceback: str = "",
    now: str | None = None,
    accepted: bool = True,
    case: Case | None = None,
    evidence: Mapping[str, Any] | None = None,
) -> Finding:
    """A finding for an input libFuzzer stopped on (timeout, oom, crash of the process).

    ``target`` is a ``targets.Target`` (anything with ``name`` and ``from_bytes``) or
    a target name. There is no Python exception, so the signature is
    ``identity.stop_signature``: one such finding per target, kind and
    implementation. ``case``: the input's case; by default rebuilt with
    ``target.from_bytes`` when possible (None if that fails too). ``evidence``: what
    the caller knows beside ``stopped`` and ``raw_length`` (``died_on``: the input was
    seen to stop the process, ``FindingStore.record``).
    """
    name = target if isinstance(target, str) else str(target.name)
    case_json: Mapping[str, Any] | None = None if case is None else case.to_json()
    if case_json is None and raw_input is not None and not isinstance(target, str):
        try:
            case_json = target.from_bytes(raw_input).to_json()
        except Exception:
            case_json = None
    said: dict[str, Any] = {"stopped": kind}
    if raw_input is not None:
        said["raw_length"] = len(raw_input)
    said.update(evidence or {})
    return new_finding(
        name,
        kind,
        None,
        signature=stop_signature(name, kind, impl, accepted=accepted),
        case=case_json,
        raw_input=raw_input,
        impl=impl,
        traceback=traceback,
        evidence=said,
        now=now,
    )


def seen_to_stop(finding: Finding) -> bool:
    """Whether the input of ``finding`` was seen to stop the process itself: always for
    a finding that is no stop (a raised exception names its input), and for a stop
    when the campaign knew that no other question was being asked of the
    implementation then, or that it was this one (evidence ``died_on``,
    ``fuzz.libfuzzer.record_death``). A stop recorded without that knowledge (an older
    campaign; a harness without a breadcrumb) may hold an input that was only being
    named as another question stopped it."""
    return "stopped" not in finding.evidence or finding.evidence.get("died_on") in (
        "input", "question")
