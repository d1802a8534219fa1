"""The corpus (libFuzzer layout) and the findings store (one JSON record per bug).

Corpus
    ``<root>/<target>/<sha1 hex of the bytes>``, exactly what libFuzzer reads and
    writes, so ``fuzz_<target>.py corpus/<target>`` and ``Corpus`` share one folder.
    ``Corpus.iter`` skips and *reports* (``StoreProblem``) every entry it will not
    read: directories, symlinks (never followed), special files, files over the
    size limit, unreadable files. Hidden names (``.gitkeep``, temp files) are
    ignored silently.

Findings
    ``<root>/<kind>-<target>-<id>.json``, one file per distinct ``signature``
    (``id`` = first 16 hex digits of sha256(signature)). ``load_finding`` is strict:
    anything but a well-formed schema-1 record raises ``StoreError`` (or its
    subclass ``FindingFormatError``) with a one-line message naming the file, and
    the size and file type are checked with ``lstat`` *before* the file is opened.
    JSON only: nothing is ever unpickled or evaluated.

Guarantees (local POSIX filesystems; ``flock`` is not reliable over NFS)
    - Every write is atomic: a temp file ``.<name>.<pid>.<random>.tmp`` in the same
      folder is written, flushed and fsynced, renamed over the target with
      ``os.replace``, and the folder is fsynced. A reader sees the old record or the
      new one, never a mix; a killed writer leaves at most a hidden temp file, which
      readers ignore and ``cleanup_stale_temp`` removes.
    - Nothing is written outside the chosen root: target names and ids are
      validated, the destination folder is resolved and checked to lie inside the
      resolved root, and symlinks are never followed when reading.
    - Corpus adds are idempotent and race-free between processes: content-addressed
      names plus an exclusive ``link`` of the finished temp file, so of several
      processes adding the same bytes exactly one gets the path back.
    - ``FindingStore.record``, ``add_hits`` and ``update_status`` hold an exclusive
      ``fcntl.flock`` on ``<root>/.<id>.lock`` around their read-modify-write, so
      processes (and threads) sharing a findings folder never lose a hit: N records
      of one signature yield ``hits == N`` and one file. The kernel drops the lock
      of a killed holder. Lock files are left in place on purpose (unlinking a lock
      file races with its next user); readers never lock, they rely on atomicity.
      (Hits a driver counts in memory before it calls ``add_hits`` are the driver's
      to lose: see ``fuzzing.Recorder`` for what a kill can cost.)
    - Only records that ``load_finding`` accepts are ever written.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import fcntl
import hashlib
import importlib.metadata
import json
import math
import os
import platform
import re
import secrets
import stat
import time
import traceback as _traceback
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from pctfuzz.cases import Case, case_from_json
from pctfuzz.errors import CaseFormatError, PctfuzzError, type_name
from pctfuzz.identity import (
    FINDING_KINDS,
    SIGNATURE_VERSION,
    finding_id,
    signature_of,
    stop_signature,
)
from pctfuzz.text import one_line
from pctfuzz.violations import Divergence, Violation

__all__ = [
    "DEFAULT_CORPUS_MAX_SIZE",
    "DEFAULT_FINDING_MAX_SIZE",
    "FINDING_KINDS",
    "FINDING_STATUSES",
    "SCHEMA_VERSION",
    "Corpus",
    "Finding",
    "FindingFormatError",
    "FindingNotFoundError",
    "FindingStore",
    "StoreError",
    "StoreProblem",
    "StoreReadError",
    "cleanup_stale_temp",
    "collect_versions",
    "finding_id",
    "load_finding",
    "new_finding",
    "new_stop_finding",
    "printable_path",
    "read_input",
    "utc_now",
    "validate_target",
]

#: Record format. Schema 2 added ``signature_version``; schema-1 records are still read
#: (as signature version 1) so that ``pctfuzz migrate`` can rewrite them.
SCHEMA_VERSION: Final = 2
_READABLE_SCHEMAS: Final = (1, 2)
DEFAULT_CORPUS_MAX_SIZE: Final = 1 << 20  # 1 MiB: seeds may exceed libFuzzer's -max_len
DEFAULT_FINDING_MAX_SIZE: Final = 16 << 20  # 16 MiB
FINDING_STATUSES: Final = frozenset({"new", "known-divergence", "fixed"})

_TARGET_RE: Final = re.compile(r"[A-Za-z0-9_-]+")
_ID_RE: Final = re.compile(r"[0-9a-f]{16}")
_TEMP_RE: Final = re.compile(r"\..+\.[0-9]+\.[0-9a-f]{12}\.tmp")
_MAX_SIGNATURE_LEN: Final = 4096
_FIELDS: Final = (
    "schema", "id", "target", "kind", "signature", "signature_version", "case", "raw_input",
    "expected",
    "actual", "evidence", "traceback", "versions", "impl", "first_seen", "last_seen",
    "hits", "status", "minimized", "note",
)  # fmt: skip


# --------------------------------------------------------------------------- errors


def printable_path(path: os.PathLike[str] | str) -> str:
    """A path as one printable line (undecodable or control characters escaped)."""
    return one_line(os.fspath(path))


def _short(value: object, limit: int = 60) -> str:
    return one_line(repr(value), limit)


class StoreError(PctfuzzError, ValueError):
    """A corpus or findings file cannot be used; ``str()`` is one line naming it."""

    def __init__(self, path: os.PathLike[str] | str, message: str) -> None:
        self.path = Path(path)
        self.message = one_line(message, 500)
        super().__init__(f"{printable_path(path)}: {self.message}")


class StoreReadError(StoreError, OSError):
    """A file that exists could not be read (permission, I/O error): not malformed, so
    it is never moved aside or replaced; the caller reports it and leaves it alone."""


class FindingFormatError(StoreError, CaseFormatError):
    """A finding file was read but its content is not a valid schema-1 record."""


class FindingNotFoundError(StoreError, LookupError):
    """No finding with the requested id is in the store."""


@dataclass(frozen=True)
class StoreProblem:
    """A skipped file and why; ``str()`` is one line naming the file."""

    path: Path
    message: str

    @classmethod
    def from_error(cls, exc: StoreError) -> StoreProblem:
        return cls(exc.path, exc.message)

    def __str__(self) -> str:
        return f"{printable_path(self.path)}: {one_line(self.message, 500)}"


def validate_target(target: object) -> str:
    """``target`` if it matches ``^[A-Za-z0-9_-]+$``, else ``StoreError``."""
    if not isinstance(target, str) or not _TARGET_RE.fullmatch(target):
        raise StoreError("<target>", f"invalid target name {_short(target)}: use [A-Za-z0-9_-]+")
    return target


# ------------------------------------------------------------------ file primitives


def _read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    The type and size are checked with ``lstat`` before opening, so a symlink is
    never followed, a FIFO never blocks and a huge file is never read; the open uses
    ``O_NOFOLLOW`` and the checks are repeated on the descriptor in case the entry
    was swapped in between.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise StoreError(path, "vanished while being read") from None
    except OSError as exc:
        raise StoreReadError(path, f"cannot be examined: {exc.strerror}") from None
    _check_stat(path, st, limit)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise StoreReadError(path, f"cannot be read: {exc.strerror}") from None
    try:
        _check_stat(path, os.fstat(fd), limit)
        chunks: list[bytes] = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as exc:
        raise StoreReadError(path, f"cannot be read: {exc.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise StoreError(path, f"grew past the {limit}-byte limit while being read")
    return data


def read_input(path: os.PathLike[str] | str, max_size: int = DEFAULT_CORPUS_MAX_SIZE) -> bytes:
    """The bytes of one raw input file, read as ``Corpus.iter`` reads: a regular file
    (never through a symlink; a FIFO never blocks) of at most ``max_size`` bytes,
    checked before it is read. ``StoreError`` naming the file otherwise. For inputs
    named on the command line (``pctfuzz replay``)."""
    return _read_regular_file(Path(path), max_size)


def _check_stat(path: Path, st: os.stat_result, limit: int) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise StoreError(path, "is a symlink (symlinks are never followed)")
    if stat.S_ISDIR(st.st_mode):
        raise StoreError(path, "is a directory, expected a file")
    if not stat.S_ISREG(st.st_mode):
        raise StoreError(path, "is not a regular file")
    if st.st_size > limit:
        raise StoreError(path, f"is {st.st_size} bytes, over the {limit}-byte limit")


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some filesystems cannot fsync a directory; the rename still holds
        pass
    finally:
        os.close(fd)


def _temp_path(final: Path) -> Path:
    return final.parent / f".{final.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp"


def _atomic_write(final: Path, data: bytes, *, exclusive: bool = False) -> bool:
    """Write ``data`` to ``final`` atomically (temp file, fsync, rename, fsync dir).

    With ``exclusive`` the finished temp file is hard-linked to ``final``, which fails
    if ``final`` exists: returns False then, and nothing changes. Otherwise ``final``
    is replaced. True means this call created/replaced ``final``.
    """
    tmp = _temp_path(final)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(tmp, flags, 0o644)
    except OSError as exc:
        raise StoreError(tmp, f"cannot create temp file: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if exclusive:
            try:
                os.link(tmp, final)
            except FileExistsError:
                return False
            except OSError:  # no hard links here (some FUSE/SMB mounts): best effort
                if os.path.lexists(final):
                    return False
                os.replace(tmp, final)
        else:
            os.replace(tmp, final)
    except OSError as exc:
        raise StoreError(final, f"cannot be written: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    _fsync_dir(final.parent)
    return True


def cleanup_stale_temp(folder: Path, max_age_s: float) -> list[Path]:
    """Remove temp files (``.<name>.<pid>.<random>.tmp``) older than ``max_age_s``
    seconds from ``folder``: leftovers of writers killed mid-write. Returns them."""
    removed: list[Path] = []
    cutoff = time.time() - max_age_s
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not _TEMP_RE.fullmatch(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode) or st.st_mtime > cutoff:
                continue
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed


def _inside(root: Path, path: Path) -> Path:
    """``path`` (whose parent must exist) if its resolved parent lies in ``root``."""
    parent = path.parent.resolve()
    if not parent.is_relative_to(root):
        raise StoreError(path, f"resolves outside the store root {printable_path(root)}")
    return parent / path.name


@contextlib.contextmanager
def _shared_flock(folder: Path) -> Iterator[None]:
    """A shared ``flock`` on ``folder`` itself, held while one input is added, so that
    ``merge`` (which takes it exclusively around its final carry-over and swap) never
    swaps the folder between an add's temp file and its link. Best effort where a
    folder cannot be opened or locked."""
    held = None
    for _ in range(100):
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            break
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            if os.fstat(fd).st_ino == os.stat(folder).st_ino:
                held = fd  # the folder that is in place now: keep its lock
                break
        except OSError:
            pass
        os.close(fd)  # swapped meanwhile: lock the new one
    try:
        yield
    finally:
        if held is not None:
            os.close(held)


# -------------------------------------------------------------------------- corpus


class Corpus:
    """Seed and discovered inputs, one folder per target, files named by sha1.

    ``problems`` collects what ``iter`` skipped when no list is passed to it.
    """

    def __init__(self, root: Path, *, max_size: int = DEFAULT_CORPUS_MAX_SIZE) -> None:
        self.root = Path(root).resolve()
        self.max_size = max_size
        self.problems: list[StoreProblem] = []

    def dir(self, target: str) -> Path:
        """``root/target`` (validated name; not created)."""
        return self.root / validate_target(target)

    @staticmethod
    def name_for(data: bytes) -> str:
        """The libFuzzer file name of ``data``: the sha1 hex of its bytes."""
        return hashlib.sha1(data).hexdigest()

    def _target_dir(self, target: str, *, create: bool) -> Path:
        folder = self.dir(target)
        if create:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(folder, f"cannot create folder: {exc.strerror}") from None
        if folder.is_symlink():
            raise StoreError(folder, "is a symlink (symlinks are never followed)")
        if folder.exists() and not folder.is_dir():
            raise StoreError(folder, "is not a directory")
        resolved = folder.resolve()
        if resolved != self.root / folder.name or not resolved.is_relative_to(self.root):
            root = printable_path(self.root)
            raise StoreError(folder, f"resolves outside the corpus root {root}")
        return folder

    def ensure_dir(self, target: str) -> Path:
        """``root/target``, created if missing. ``StoreError`` (one line) if it is a
        symlink, not a directory, or resolves outside the root: what a campaign must
        check before it gives the folder to libFuzzer, which follows symlinks."""
        return self._target_dir(target, create=True)

    def add(self, target: str, data: bytes) -> Path | None:
        """Store ``data``; its path, or None if an identical input is already there."""
        if not isinstance(data, bytes):
            raise StoreError(self.dir(target), f"corpus data must be bytes, not {type_name(data)}")
        if len(data) > self.max_size:
            raise StoreError(
                self.dir(target), f"input of {len(data)} bytes is over the {self.max_size} limit"
            )
        folder = self._target_dir(target, create=True)
        with _shared_flock(folder):  # a merge swaps the folder under an exclusive one
            path = _inside(self.root, folder / self.name_for(data))
            if os.path.lexists(path):
                return None
            return path if _atomic_write(path, data, exclusive=True) else None

    def iter(
        self,
        target: str,
        *,
        max_size: int | None = None,
        problems: list[StoreProblem] | None = None,
    ) -> Iterator[tuple[Path, bytes]]:
        """Yield ``(path, bytes)`` for each readable input of ``target``, sorted by name.

        Skipped entries (directory, symlink, special file, over ``max_size``,
        unreadable) are appended to ``problems`` (default: ``self.problems``).
        Hidden names (``.gitkeep``, ``.*.tmp``) are ignored silently.
        """
        validate_target(target)  # a bad name is the caller's error: raised, not reported
        sink = self.problems if problems is None else problems
        limit = self.max_size if max_size is None else max_size
        try:
            folder = self._target_dir(target, create=False)
        except StoreError as exc:
            sink.append(StoreProblem.from_error(exc))
            return
        try:
            names = sorted(os.listdir(folder))
        except FileNotFoundError:
            return
        except OSError as exc:
            sink.append(StoreProblem(folder, f"cannot be listed: {exc.strerror}"))
            return
        for name in names:
            if name.startswith("."):
                continue
            path = folder / name
            try:
                data = _read_regular_file(path, limit)
            except StoreError as exc:
                sink.append(StoreProblem.from_error(exc))
                continue
            yield path, data

    def targets(self) -> list[str]:
        """Names of the target folders present under the root."""
        try:
            entries = list(os.scandir(self.root))
        except OSError:
            return []
        return sorted(
            e.name
            for e in entries
            if _TARGET_RE.fullmatch(e.name) and e.is_dir(follow_symlinks=False)
        )

    def cleanup_stale_temp(self, max_age_s: float) -> list[Path]:
        """``cleanup_stale_temp`` over every target folder."""
        removed: list[Path] = []
        for target in self.targets():
            removed += cleanup_stale_temp(self.root / target, max_age_s)
        return removed


# ------------------------------------------------------------------------ findings


def utc_now() -> str:
    """The current time as ISO 8601 UTC with milliseconds, e.g. ``2024-05-01T12:00:00.123Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse_time(text: str) -> datetime:
    stamp = datetime.fromisoformat(text)
    if stamp.tzinfo is None or stamp.utcoffset() != UTC.utcoffset(None):
        raise ValueError("not UTC")
    return stamp


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
    see ``pctfuzz.identity``). Build one with ``new_finding`` or
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

    @property
    def file_name(self) -> str:
        return f"{self.kind}-{self.target}-{self.id}.json"

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
        case_len = len(_dumps(self.case)) if self.case is not None else 0
        return (len(raw) if raw is not None else case_len, case_len)

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _FIELDS}

    def to_bytes(self) -> bytes:
        """The file content: sorted keys, ASCII only (lone surrogates escaped), newline."""
        return (_dumps(self.to_json(), indent=2) + "\n").encode("ascii")

    @classmethod
    def from_json(cls, data: object, source: os.PathLike[str] | str = "<finding>") -> Finding:
        """Validate a decoded record strictly; ``FindingFormatError`` names ``source``."""
        return _finding_from_obj(data, Path(source))


def _dumps(obj: object, indent: int | None = None) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=True, allow_nan=False, indent=indent)


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
) -> Finding:
    """A new finding (``hits=1``) for ``exc`` raised while checking ``case``, with the
    ``signature`` that ``pctfuzz.identity`` gave the failure (default:
    ``identity.signature_of`` from ``exc`` alone, which knows no codec under test).

    For a ``Violation``, ``expected``/``actual``/``evidence`` default to its own
    (reprs), and for a ``Divergence`` ``impl`` defaults to ``exc.impl``.
    """
    if isinstance(exc, Divergence) and impl is None:
        impl = exc.impl
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
                                 code_under_test=tuple(impl_modules))
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
    )


def new_stop_finding(
    *,
    target: Any,
    kind: str,
    raw_input: bytes,
    impl: str | None = None,
    traceback: str = "",
    now: str | None = None,
) -> Finding:
    """A finding for an input libFuzzer stopped on (timeout, oom, crash of the process).

    ``target`` is a ``targets.Target`` (anything with ``name`` and ``from_bytes``) or
    a target name. There is no Python exception, so the signature is
    ``identity.stop_signature``: one such finding per target, kind and
    implementation. The case is
    rebuilt with ``target.from_bytes`` when possible (None if that fails too).
    """
    name = target if isinstance(target, str) else str(target.name)
    case: Mapping[str, Any] | None = None
    if not isinstance(target, str):
        try:
            case = target.from_bytes(raw_input).to_json()
        except Exception:
            case = None
    return new_finding(
        name,
        kind,
        None,
        signature=stop_signature(name, kind, impl),
        case=case,
        raw_input=raw_input,
        impl=impl,
        traceback=traceback,
        evidence={"stopped": kind, "raw_length": len(raw_input)},
        now=now,
    )


# ------------------------------------------------------------ strict record parsing


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


#: ``first_seen``/``last_seen`` as ``utc_now`` writes them (``+00:00`` accepted for
#: "Z"). ``datetime.fromisoformat`` alone takes any character between date and time,
#: a newline included.
_UTC_STAMP: Final = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|\+00:00)")
_MAX_LABEL_LEN: Final = 300


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


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {_short(key)}")
        result[key] = value
    return result


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
}


def _finding_from_obj(data: object, source: Path) -> Finding:
    def bad(message: str) -> FindingFormatError:
        return FindingFormatError(source, message)

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
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        raise bad(f"unknown field(s) {', '.join(map(_short, unknown))}")
    missing = [name for name in _FIELDS if name not in data]
    if missing:
        raise bad(f"missing field(s) {', '.join(map(repr, missing))}")
    for name, types in _TYPES.items():
        value = data[name]
        # exact type checks: a bool is not an int here
        if type(value) not in types:
            allowed = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise bad(f"field {name!r} must be {allowed}, not {type_name(value)}")

    target, kind, status = data["target"], data["kind"], data["status"]
    if not _TARGET_RE.fullmatch(target):
        raise bad(f"invalid target {_short(target)}: use [A-Za-z0-9_-]+")
    if kind not in FINDING_KINDS:
        raise bad(f"kind must be one of {', '.join(sorted(FINDING_KINDS))}; got {_short(kind)}")
    if status not in FINDING_STATUSES:
        allowed = ", ".join(sorted(FINDING_STATUSES))
        raise bad(f"status must be one of {allowed}; got {_short(status)}")
    if not _ID_RE.fullmatch(data["id"]):
        raise bad(f"id must be 16 lowercase hex digits, got {_short(data['id'])}")
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
    if _non_finite(data):
        raise bad("holds a non-finite number (NaN, Infinity, or a literal like 1e999)")
    for name, value in (("impl", data["impl"]), ("evidence.check", data["evidence"].get("check"))):
        problem = None if value is None else _label_problem(value)
        if problem:
            raise bad(f"field {name!r} {problem}")
    if data["note"] is not None and (len(data["note"]) > 2000 or not data["note"].isprintable()):
        raise bad("field 'note' must be one printable line of at most 2000 characters")
    for key, value in data["versions"].items():
        problem = _label_problem(key) or _label_problem(value)
        if problem:
            raise bad(f"versions[{_short(key)}] {problem}")
    if not all(_UTC_STAMP.fullmatch(data[name]) for name in ("first_seen", "last_seen")):
        raise bad("first_seen/last_seen must be ISO 8601 UTC timestamps")
    try:
        first = _parse_time(data["first_seen"])
        last = _parse_time(data["last_seen"])
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
        from pctfuzz.targets import TARGETS

        known = TARGETS.get(target)
        if known is not None and type(case) is not known.case_type:
            # e.g. a decode case under diff_encode: replaying it would run the wrong check
            raise bad(f"case: a {type(case).__name__} does not belong to target {target} "
                      f"(expects {known.case_type.__name__})")
    return Finding(**data)


def _finding_from_bytes(raw: bytes, source: Path) -> Finding:
    if not raw:
        raise FindingFormatError(source, "empty file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FindingFormatError(source, f"invalid UTF-8 at byte {exc.start}") from None
    try:
        obj = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise FindingFormatError(source, f"invalid JSON: {exc.msg} at line {exc.lineno} "
                                 f"column {exc.colno}") from None  # fmt: skip
    except RecursionError:
        raise FindingFormatError(source, "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # NaN/Infinity, duplicate keys, oversized int literals
        raise FindingFormatError(source, f"invalid JSON: {exc}") from None
    return _finding_from_obj(obj, source)


def load_finding(
    path: Path, *, max_size: int = DEFAULT_FINDING_MAX_SIZE, check_name: bool = True
) -> Finding:
    """Read and strictly validate one finding file.

    Raises ``StoreError`` (symlink, directory, special file, over ``max_size`` --
    checked before reading -- unreadable) or ``FindingFormatError`` (invalid UTF-8
    or JSON, NaN/Infinity, duplicate keys, wrong or future schema, missing, unknown
    or mistyped fields, bad id/kind/status/timestamps/case, and with ``check_name``
    a file name other than ``<kind>-<target>-<id>.json``).
    """
    path = Path(path)
    finding = _finding_from_bytes(_read_regular_file(path, max_size), path)
    if check_name and path.name != finding.file_name:
        raise FindingFormatError(path, f"file name does not match its record ({finding.file_name})")
    return finding


class FindingStore:
    """The findings folder: ``<root>/<kind>-<target>-<id>.json`` (see module docstring).

    ``problems`` collects skipped files when no list is passed to ``iter_findings``,
    and corrupt records that ``record`` had to move aside.
    """

    def __init__(self, root: Path, *, max_size: int = DEFAULT_FINDING_MAX_SIZE) -> None:
        self.root = Path(root).resolve()
        self.max_size = max_size
        self.problems: list[StoreProblem] = []

    def path_for(self, finding: Finding) -> Path:
        return self.root / finding.file_name

    def load(self, path: Path) -> Finding:
        return load_finding(path, max_size=self.max_size)

    def _ensure_root(self) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(self.root, f"cannot create folder: {exc.strerror}") from None

    def ensure_root(self) -> Path:
        """The findings folder, created if missing; ``StoreError`` (one line) if it
        cannot be (a file in the way, no permission). For start-up checks."""
        self._ensure_root()
        if not self.root.is_dir():
            raise StoreError(self.root, "is not a directory")
        return self.root

    @contextlib.contextmanager
    def _locked(self, ident: str) -> Iterator[None]:
        if not _ID_RE.fullmatch(ident):
            raise StoreError(self.root, f"invalid finding id {_short(ident)}")
        self._ensure_root()
        lock = _inside(self.root, self.root / f".{ident}.lock")
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(lock, flags, 0o644)
        except OSError as exc:
            raise StoreError(lock, f"cannot open lock file: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the flock

    def _write(self, finding: Finding) -> None:
        data = finding.to_bytes()
        path = _inside(self.root, self.path_for(finding))
        _finding_from_bytes(data, path)  # write only what load accepts
        _atomic_write(path, data)

    def record(self, finding: Finding) -> tuple[Finding, bool]:
        """Store ``finding``; returns the stored record and whether it is new.

        If a record with the same id exists, under its lock: ``hits`` are added,
        ``first_seen``/``last_seen`` widen, ``status`` is kept, and the smaller
        reproducer (raw input length, then case JSON length; ties keep the old one)
        is kept together with its expected/actual/evidence/traceback/versions. An
        existing file that reads but does not parse is renamed to
        ``<name>.corrupt-<time>`` (reported in ``problems``) and replaced; one that
        cannot be read (``StoreReadError``: permission, I/O error) is left alone and
        the error raised, so its triage status and history are never lost. A returned
        status of ``fixed`` on a known finding means the bug is back: the caller
        decides what to do.
        """
        try:
            normalized = json.loads(_dumps(finding.to_json()))
        except (TypeError, ValueError) as exc:
            raise FindingFormatError("<new finding>", f"not JSON-serializable: {exc}") from None
        finding = Finding.from_json(normalized, "<new finding>")
        with self._locked(finding.id):
            path = self.path_for(finding)
            old: Finding | None = None
            if os.path.lexists(path):
                try:
                    old = self.load(path)
                except StoreReadError:
                    raise  # unreadable, not malformed: left alone, the finding is unsaved
                except StoreError as exc:
                    self._move_aside(path, exc)
            if old is None:
                self._write(finding)
                return finding, True
            merged = _merge(old, finding)
            self._write(merged)
            return merged, False

    def _move_aside(self, path: Path, exc: StoreError) -> None:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        aside = path.with_name(f"{path.name}.corrupt-{stamp}")
        try:
            os.replace(path, aside)
        except OSError as err:
            raise StoreError(
                path, f"unreadable record cannot be moved aside: {err.strerror}"
            ) from exc
        moved = printable_path(aside.name)
        self.problems.append(StoreProblem(path, f"{exc.message}; moved to {moved}"))

    def iter_findings(self, problems: list[StoreProblem] | None = None) -> Iterator[Finding]:
        """Yield every valid ``*.json`` record, sorted by file name; each invalid one
        is appended to ``problems`` (default: ``self.problems``) and skipped. Hidden
        files (temp files, locks) and non-JSON names (README) are ignored."""
        sink = self.problems if problems is None else problems
        try:
            names = sorted(os.listdir(self.root))
        except FileNotFoundError:
            return
        except OSError as exc:
            sink.append(StoreProblem(self.root, f"cannot be listed: {exc.strerror}"))
            return
        for name in names:
            if name.startswith(".") or not name.endswith(".json"):
                continue
            try:
                finding = self.load(self.root / name)
            except StoreError as exc:
                sink.append(StoreProblem.from_error(exc))
                continue
            yield finding

    def _path_of_id(self, ident: str) -> Path:
        if not isinstance(ident, str) or not _ID_RE.fullmatch(ident):
            raise FindingNotFoundError(self.root, f"invalid finding id {_short(ident)}")
        try:
            names = [n for n in os.listdir(self.root) if n.endswith(f"-{ident}.json")]
        except OSError:
            names = []
        if len(names) != 1:
            what = "no finding" if not names else f"{len(names)} files for finding"
            raise FindingNotFoundError(self.root, f"{what} with id {ident}")
        return self.root / names[0]

    def get(self, ident: str) -> Finding:
        """The finding with id ``ident`` (``FindingNotFoundError`` if absent)."""
        return self.load(self._path_of_id(ident))

    def update_status(self, ident: str, status: str, note: str | None = None) -> Finding:
        """Set the status of finding ``ident`` (and its ``note``, when given) under its
        lock; returns the new record."""
        if status not in FINDING_STATUSES:
            allowed = ", ".join(sorted(FINDING_STATUSES))
            raise StoreError(self.root, f"status must be one of {allowed}; got {_short(status)}")
        if note is not None and (len(note) > 2000 or not note.isprintable()):
            raise StoreError(self.root, "a note is one printable line of at most 2000 "
                             "characters")
        with self._locked(ident):
            current = self.get(ident)
            updated = dataclasses.replace(current, status=status,
                                          note=current.note if note is None else note)
            self._write(updated)
            return updated

    def add_hits(self, ident: str, hits: int, *, now: str | None = None) -> Finding:
        """Add ``hits`` to finding ``ident`` and move its ``last_seen`` (under its lock):
        how a driver flushes hits it counted in memory for a known finding."""
        if type(hits) is not int or hits < 1:
            raise StoreError(self.root, f"hits to add must be a positive int, not {_short(hits)}")
        stamp = now or utc_now()
        with self._locked(ident):
            current = self.get(ident)
            last = max(current.last_seen, stamp, key=_parse_time)
            updated = dataclasses.replace(current, hits=current.hits + hits, last_seen=last)
            self._write(updated)
            return updated

    def cleanup_stale_temp(self, max_age_s: float) -> list[Path]:
        """Remove temp files older than ``max_age_s`` left by killed writers."""
        return cleanup_stale_temp(self.root, max_age_s)


def _merge(old: Finding, new: Finding) -> Finding:
    keep = new if new.size_key() < old.size_key() else old
    first = min(old.first_seen, new.first_seen, key=_parse_time)
    last = max(old.last_seen, new.last_seen, key=_parse_time)
    return dataclasses.replace(
        old,
        case=keep.case,
        raw_input=keep.raw_input,
        expected=keep.expected,
        actual=keep.actual,
        evidence=keep.evidence,
        traceback=keep.traceback,
        versions=keep.versions,
        minimized=keep.minimized,
        first_seen=first,
        last_seen=last,
        hits=old.hits + new.hits,
    )
