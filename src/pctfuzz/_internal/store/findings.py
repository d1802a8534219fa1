"""The findings folder: ``<root>/<kind>-<target>-<id>.json``, one record per signature.

- Only records that ``load_finding`` accepts are ever written, atomically
  (``files.atomic_write``); readers never lock, they rely on that atomicity.
- ``record``, ``add_hits`` and ``update_status`` hold an exclusive ``flock`` on
  ``<root>/.locks/<id>.lock`` around their read-modify-write, so processes (and
  threads) sharing a findings folder never lose a hit: N records of one signature
  yield ``hits == N`` and one file. Lock files stay (``files.locked``) in their own
  hidden folder, which holds a ``.gitignore`` of ``*`` so that no project commits
  them. (Hits a driver counts in memory before it calls ``add_hits`` are the
  driver's to lose: see ``pctfuzz._internal.fuzz.recorder.Recorder`` for what a kill can cost.)
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from pctfuzz._internal.identity.units import another_form
from pctfuzz._internal.store.errors import (
    FindingFormatError,
    FindingNotFoundError,
    StoreError,
    StoreProblem,
    StoreReadError,
    printable_path,
    short,
)
from pctfuzz._internal.store.files import atomic_write, cleanup_stale_temp, inside, locked
from pctfuzz._internal.store.records import (
    DEFAULT_FINDING_MAX_SIZE,
    Finding,
    load_finding,
    seen_to_stop,
    utc_now,
)
from pctfuzz._internal.store.schema import (
    FINDING_STATUSES,
    ID_RE,
    MAX_NOTE_LEN,
    TRIAGED_STATUSES,
    dumps,
    parse_time,
    validate_note,
)

__all__ = ["LOCK_FOLDER", "FindingStore"]

#: The folder of the per-finding lock files, inside the findings folder. Hidden, so
#: ``iter_findings`` and people listing records skip it.
LOCK_FOLDER: Final = ".locks"
_LOCK_FOLDER_IGNORE: Final = b"# pctfuzz's flock files: never committed\n*\n"


class FindingStore:
    """The findings folder (see the module docstring).

    ``problems`` collects skipped files when no list is passed to ``iter_findings``,
    and corrupt records that ``record`` had to move aside.
    """

    def __init__(self, root: Path, *, max_size: int = DEFAULT_FINDING_MAX_SIZE) -> None:
        self.root = Path(root).resolve()
        self.max_size = max_size
        self.problems: list[StoreProblem] = []
        #: (fixed id, new id) of each fixed finding ``record`` reopened in another form.
        self.reopened: list[tuple[str, str]] = []

    def path_for(self, finding: Finding) -> Path:
        return self.root / finding.file_name

    def lock_path(self, ident: str) -> Path:
        """Where the lock file of finding ``ident`` is (not created)."""
        return self.root / LOCK_FOLDER / f"{ident}.lock"

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

    def _ensure_lock_folder(self) -> None:
        self._ensure_root()
        folder = self.root / LOCK_FOLDER
        try:
            folder.mkdir()
        except FileExistsError:
            return  # a symlink or a file in its place is refused when the lock opens
        except OSError as exc:
            raise StoreError(folder, f"cannot create folder: {exc.strerror}") from None
        # Best effort: without it the locks still work, a project may commit them.
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with contextlib.suppress(OSError):
            fd = os.open(folder / ".gitignore", flags, 0o644)
            try:
                os.write(fd, _LOCK_FOLDER_IGNORE)
            finally:
                os.close(fd)

    @contextlib.contextmanager
    def _locked(self, ident: str) -> Iterator[None]:
        if not ID_RE.fullmatch(ident):
            raise StoreError(self.root, f"invalid finding id {short(ident)}")
        self._ensure_lock_folder()
        with locked(inside(self.root, self.lock_path(ident))):
            yield

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """The whole folder's lock (``.locks/store.lock``, no id's name), held by
        ``pctfuzz migrate`` so that two migrations of one store run one after the other.
        ``StoreError`` (one line) when it cannot be taken: a store it cannot write."""
        self._ensure_lock_folder()
        with locked(inside(self.root, self.root / LOCK_FOLDER / "store.lock")):
            yield

    def _write(self, finding: Finding) -> None:
        data = finding.to_bytes()
        path = inside(self.root, self.path_for(finding))
        Finding.from_bytes(data, path)  # write only what load accepts
        atomic_write(path, data)

    def record(self, finding: Finding, *, absorbs: str | None = None) -> tuple[Finding, bool]:
        """Store ``finding``; returns the stored record and whether it is new.

        ``absorbs``: the id of the record ``finding`` replaces (``pctfuzz migrate``). A
        stored record that lists it in ``previous_ids`` has its hits already (a
        migration killed before it removed the old file, or run twice at once): it is
        returned unchanged, so no hit is counted twice.

        If a record with the same id exists, under its lock: ``hits`` are added,
        ``first_seen``/``last_seen`` widen, ``status`` is kept (a triage verdict of the
        new record wins over no verdict: two old records merged by ``pctfuzz
        migrate``), a note of either is kept (two different ones joined), and the smaller
        reproducer (raw input length, then case JSON length; ties keep the old one),
        but never an input not seen to stop the process over one that was
        (``records.seen_to_stop``), is kept together with its
        expected/actual/evidence/traceback/versions. An existing file that reads but
        does not parse is renamed to ``<name>.corrupt-<time>`` (reported in
        ``problems``) and replaced; one that cannot be read (``StoreReadError``:
        permission, I/O error) is left alone and the error raised, so its triage status
        and history are never lost. A returned status of ``fixed`` on a known finding
        means the bug is back: the caller decides what to do.
        """
        try:
            normalized = json.loads(dumps(finding.to_json()))
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
                fixed = self._fixed_in_another_form(finding)
                if fixed is not None:  # the bug is back, narrower or wider
                    finding = _reopened(fixed, finding)
                self._write(finding)
                if fixed is not None:
                    with self._locked(fixed.id), contextlib.suppress(FileNotFoundError):
                        os.unlink(self.path_for(fixed))
                    self.reopened.append((fixed.id, finding.id))
                return finding, True
            if absorbs is not None and absorbs in (old.previous_ids or ()):
                return old, False
            merged = _merge(old, finding)
            self._write(merged)
            return merged, False

    def _fixed_in_another_form(self, finding: Finding) -> Finding | None:
        """The fixed finding whose behaviour ``finding`` shows in another form
        (``identity.units.another_form``), the one seen last when there are several."""
        fixed = [old for old in self.iter_findings([]) if old.status == "fixed"
                 and another_form(old.signature, old.behaviour, finding.signature,
                                  finding.behaviour)]
        return max(fixed, key=lambda old: parse_time(old.last_seen), default=None)

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
        files and folders (temp files, locks) and non-JSON names (README) are ignored."""
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
        if not isinstance(ident, str) or not ID_RE.fullmatch(ident):
            raise FindingNotFoundError(self.root, f"invalid finding id {short(ident)}")
        try:
            names = [n for n in os.listdir(self.root) if n.endswith(f"-{ident}.json")]
        except OSError:
            names = []
        if len(names) != 1:
            what = "no finding" if not names else f"{len(names)} files for finding"
            raise FindingNotFoundError(self.root, f"{what} with id {ident}")
        return self.root / names[0]

    def resolve(self, ident: str) -> str:
        """The id of the finding ``ident`` names: ``ident`` itself, or the id of the one
        record whose ``previous_ids`` holds it (re-identified by ``pctfuzz migrate``).
        ``FindingNotFoundError`` if there is none."""
        try:
            self._path_of_id(ident)
            return ident
        except FindingNotFoundError as missing:
            found = {f.id for f in self.iter_findings([])
                     if f.previous_ids and ident in f.previous_ids}
            if len(found) != 1:
                raise missing from None
            return found.pop()

    def get(self, ident: str) -> Finding:
        """The finding with id ``ident``, or that had it (``resolve``);
        ``FindingNotFoundError`` if absent."""
        return self.load(self._path_of_id(self.resolve(ident)))

    def update_status(self, ident: str, status: str, note: str | None = None, *,
                      fixed_in: dict[str, str] | None = None) -> Finding:
        """Set the status of finding ``ident`` (and its ``note``, when given) under its
        lock; returns the new record. ``fixed_in`` (``{"version", "date"}``) goes with
        ``fixed``; any other status drops it."""
        if status not in FINDING_STATUSES:
            allowed = ", ".join(sorted(FINDING_STATUSES))
            raise StoreError(self.root, f"status must be one of {allowed}; got {short(status)}")
        if not validate_note(note):
            raise StoreError(self.root, "a note is one printable line of at most 2000 "
                             "characters")
        ident = self.resolve(ident)
        with self._locked(ident):
            current = self.get(ident)
            kept = (fixed_in or current.fixed_in) if status == "fixed" else None
            updated = dataclasses.replace(current, status=status, fixed_in=kept,
                                          note=current.note if note is None else note)
            self._write(updated)
            return updated

    def update(self, ident: str, change: Callable[[Finding], Finding]) -> Finding:
        """Replace finding ``ident`` by ``change(current record)`` under its lock (a
        read-modify-write that loses no concurrent hit); the id must stay. How
        ``pctfuzz migrate`` stores a re-minimized case."""
        with self._locked(ident):
            updated = change(self.get(ident))
            if updated.id != ident:
                raise StoreError(self.root, f"an update may not change the id of {ident}")
            self._write(updated)
            return updated

    def add_hits(self, ident: str, hits: int, *, now: str | None = None) -> Finding:
        """Add ``hits`` to finding ``ident`` and move its ``last_seen`` (under its lock):
        how a driver flushes hits it counted in memory for a known finding."""
        if type(hits) is not int or hits < 1:
            raise StoreError(self.root, f"hits to add must be a positive int, not {short(hits)}")
        stamp = now or utc_now()
        with self._locked(ident):
            current = self.get(ident)
            last = max(current.last_seen, stamp, key=parse_time)
            updated = dataclasses.replace(current, hits=current.hits + hits, last_seen=last)
            self._write(updated)
            return updated

    def cleanup_stale_temp(self, max_age_s: float) -> list[Path]:
        """Remove temp files older than ``max_age_s`` left by killed writers."""
        return cleanup_stale_temp(self.root, max_age_s)


def _merge(old: Finding, new: Finding) -> Finding:
    # The smaller reproducer, but never an input not seen to stop the process over one
    # that was (``seen_to_stop``: a crash in a question asked while naming an input
    # says nothing of that input).
    keep = new if (not seen_to_stop(new), new.size_key()) < \
        (not seen_to_stop(old), old.size_key()) else old
    first = min(old.first_seen, new.first_seen, key=parse_time)
    # Two records that name one behaviour now (pctfuzz migrate): every old id resolves.
    previous = [i for i in dict.fromkeys((*(old.previous_ids or ()), *(new.previous_ids or ())))
                if i != old.id]
    last = max(old.last_seen, new.last_seen, key=parse_time)
    # A triage verdict is a person's decision: it wins over none (new, fixed), whichever
    # record holds it; the old record's wins if both have one.
    triaged = new.status in TRIAGED_STATUSES and old.status not in TRIAGED_STATUSES
    verdict = new if triaged else old
    return dataclasses.replace(
        old,
        status=verdict.status,
        fixed_in=verdict.fixed_in,
        note=_merged_note(old.note, new.note),
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
        previous_ids=previous or None,
    )


def _reopened(fixed: Finding, new: Finding) -> Finding:
    """``new``, the behaviour of the ``fixed`` finding come back in another form, as the
    fixed one reopened: the new case, signature and behaviour (what reproduces now), the
    fixed one's history (first seen, hits, note, the fix it regressed from,
    ``fixed_in``), and its ids in ``previous_ids``, so ``replay``, ``triage`` and
    ``accept`` of the old id find it."""
    previous = [i for i in dict.fromkeys((fixed.id, *(fixed.previous_ids or ()),
                                          *(new.previous_ids or ()))) if i != new.id]
    return dataclasses.replace(
        new,
        status="new",
        fixed_in=fixed.fixed_in,
        note=_merged_note(fixed.note, new.note),
        first_seen=min(fixed.first_seen, new.first_seen, key=parse_time),
        hits=fixed.hits + new.hits,
        previous_ids=previous or None,
    )


def _merged_note(old: str | None, new: str | None) -> str | None:
    """Both triagers' words: one note, or two different ones joined (cut to the
    schema's length rather than refused)."""
    if not old or not new or new in old:
        return old or new
    joined = f"{old}; {new}"
    return joined if validate_note(joined) else joined[:MAX_NOTE_LEN - 3] + "..."
