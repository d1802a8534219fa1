"""Private corpus copies: what each libFuzzer process reads and writes.

libFuzzer never writes into ``corpus/<target>`` itself: it writes new inputs with a
plain ``fopen(dir/sha1, "wb")``, which follows a symlink of that name out of the
folder and leaves a torn file when killed. Each process gets a private copy of the
corpus (``corpus/.libfuzzer-<target>-<pid>-*``, ``stage``); afterwards its new inputs
whose sha1 matches their name are added through ``store.Corpus`` (atomic, no symlinks
followed, ``unstage``) and the copy is removed. Copies left by killed processes are
imported at the next start-up (``recover``). Processes of one target therefore share
new inputs at restarts, not live.

A copy costs one file per input: 50,000 inputs took 6 to 15 s of a 20 s campaign on
a loaded machine, and as long again to remove. So a corpus folder holding only
regular files of at most the corpus's size limit is not copied (``stage_for_reading``):
the process gets an empty private folder, where libFuzzer writes (its first folder),
and reads the corpus folder itself as a second one, which it never writes into nor
deletes from (libFuzzer writes and removes only in its first folder). A folder with
anything else (a symlink, a FIFO, a sub-folder, an oversized file) is copied as above,
only the entries ``Corpus.iter`` accepts.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pctfuzz._internal.identity import TARGET_NAME
from pctfuzz._internal.scratch import owned_dir, pid_alive, remove_abandoned

if TYPE_CHECKING:
    from pctfuzz._internal.store import Corpus, StoreProblem

__all__ = ["artifacts_dir", "recover", "stage", "stage_for_reading", "unstage"]


_STAGING = ".libfuzzer-"
_ARTIFACTS = "pctfuzz-artifacts-"
_MERGE_STAGING = ".merge-"  # fuzz.merge's folders: ``.merge-<target>-<pid>-*``
_SHA1_NAME = re.compile(r"[0-9a-f]{40}")


def stage_for_reading(store: Corpus, target: str) -> tuple[Path, tuple[Path, ...]]:
    """The folders of one libFuzzer process of ``target``: its private folder (the
    first, where it writes) and the folders it only reads. The corpus folder is read
    in place when every entry of it is a regular file within the size limit (then
    the private folder starts empty); otherwise the private folder is ``stage``'s
    filtered copy and nothing else is read (module docstring)."""
    folder = store.ensure_dir(target)  # never a symlink, never outside the root
    if _plain(folder, store.max_size):
        return stage(store, target, copy=False), (folder,)
    return stage(store, target), ()


def _plain(folder: Path, limit: int) -> bool:
    """Every entry of ``folder`` (hidden ones too: libFuzzer reads them) is a regular
    file of at most ``limit`` bytes, seen without following a symlink."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not entry.is_file(follow_symlinks=False):
                    return False
                if entry.stat(follow_symlinks=False).st_size > limit:
                    return False
    except OSError:
        return False
    return True


def stage(store: Corpus, target: str, *, copy: bool = True) -> Path:
    """A private copy of ``target``'s corpus for one libFuzzer process to read and
    write (see the module docstring). Only entries ``Corpus.iter`` accepts are copied:
    no symlinks, folders or oversized files reach libFuzzer. ``copy=False``: the
    folder only, empty (``stage_for_reading``), where a probe file must be writable
    (libFuzzer's own writes fail silently: its new inputs would be lost unsaid).

    The copy goes in the corpus root (where a killed campaign's copy is recovered
    from). If that folder is full or read-only, the partial copy is removed and the
    copy goes to the temporary folder instead: fuzzing goes on, and what it finds is
    imported through ``Corpus.add`` as far as the corpus can take it. ``StoreError``
    (one line) if no copy can be made at all."""
    from pctfuzz._internal.store import StoreError

    problems: list[StoreProblem] = []
    prefix = f"{_STAGING}{target}-{os.getpid()}-"
    for where in (store.root, Path(tempfile.gettempdir())):
        staging: Path | None = None
        try:
            staging = Path(tempfile.mkdtemp(prefix=prefix, dir=where))
            problems = []
            for path, data in store.iter(target, problems=problems) if copy else ():
                (staging / path.name).write_bytes(data)
            if not copy:
                probe = staging / ".probe"
                probe.write_bytes(bytes(_PROBE_SIZE))
                probe.unlink()
            break
        except OSError as exc:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            failure = exc
    else:
        raise StoreError(store.root, f"no private corpus copy for {target}: "
                         f"{failure.strerror or failure}")
    if staging.parent != store.root:
        print(f"pctfuzz: WARNING: [{target}] corpus folder {store.root} cannot take a "
              f"private copy ({failure.strerror}); fuzzing from {staging}",
              file=sys.stderr, flush=True)
    for problem in problems:  # a huge file or a sub-folder is not fuzzed: say so, once
        if str(problem) not in _SKIPPED:
            _SKIPPED.add(str(problem))
            print(f"pctfuzz: WARNING: [{target}] corpus entry skipped: {problem}",
                  file=sys.stderr, flush=True)
    return staging


#: Bytes written to a private folder that starts empty, to see that it takes files.
_PROBE_SIZE = 4096
#: Corpus entries already reported as skipped by ``stage`` (one warning each).
_SKIPPED: set[str] = set()
#: Corpus folders already reported as unable to take new inputs (one warning each).
_UNSAVED: set[str] = set()


def unstage(store: Corpus, target: str, staging: Path, *, known: set[str] | None = None,
            remove: bool = True, lost: list[str] | None = None) -> int:
    """Add the new inputs libFuzzer wrote to ``staging`` (whole files only: the name
    must be the sha1 of the bytes) to the corpus, then remove ``staging`` (unless
    ``remove`` is false). Names in ``known`` (already in the corpus) are not read
    again; the names imported are added to it. Inputs the corpus refused (full,
    read-only) are said once per line in ``lost`` (``TargetStats.lost``: the run is
    then incomplete, exit 3, as for a lost finding) and not tried again."""
    from pctfuzz._internal.store import StoreError

    added = 0
    refused = 0
    reason = ""
    try:
        entries = list(os.scandir(staging))
    except OSError:
        return 0
    for entry in entries:
        if known is not None and entry.name in known:
            continue
        if not (_SHA1_NAME.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)):
            continue
        try:
            data = Path(entry.path).read_bytes()
        except OSError:
            continue
        if hashlib.sha1(data).hexdigest() == entry.name and len(data) <= store.max_size:
            try:
                added += store.add(target, data) is not None
            except StoreError as exc:  # a full or read-only corpus: say so once, go on
                if str(store.root) not in _UNSAVED:
                    _UNSAVED.add(str(store.root))
                    print(f"pctfuzz: WARNING: [{target}] new inputs not added to the "
                          f"corpus: {exc}", file=sys.stderr, flush=True)
                refused += 1
                reason = str(exc)
            if known is not None:
                known.add(entry.name)  # added, or refused and counted once
    if refused and lost is not None:
        lost.append(f"{refused} new corpus input(s): {reason}")
    if remove:
        shutil.rmtree(staging, ignore_errors=True)
    return added


def recover(store: Corpus, names: Sequence[str] = ()) -> None:
    """Start-up of any command on the corpus ``store`` (``fuzz``, ``corpus seed``,
    ``corpus merge``, ``coverage``): import the private corpus copies that killed
    campaigns left in its root (of every target, not only ``names``), remove the merge
    folders of killed merges and the artifact folders of killed campaigns, and stale
    temp files of killed writers. Says so in one line when it removed anything."""
    from pctfuzz._internal.targets import TARGETS

    pattern = re.compile(rf"{re.escape(_STAGING)}(?P<target>{TARGET_NAME}?)-(?P<pid>\d+)-")
    try:
        entries = list(os.scandir(store.root))
    except OSError:
        entries = []
    removed = imported = 0
    for entry in entries:
        m = pattern.match(entry.name)
        if m and (m["target"] in names or m["target"] in TARGETS) and entry.is_dir(
                follow_symlinks=False) and not pid_alive(int(m["pid"])):
            imported += unstage(store, m["target"], Path(entry.path))
            removed += 1
    for target in TARGETS:
        removed += len(remove_abandoned(store.root, f"{_MERGE_STAGING}{target}-"))
    remove_abandoned(tempfile.gettempdir(), _ARTIFACTS)
    store.cleanup_stale_temp(3600)
    if removed:
        print(f"pctfuzz: removed {removed} folder(s) that killed runs left in "
              f"{store.root} ({imported} new input(s) of them kept in the corpus)",
              file=sys.stderr, flush=True)


@contextlib.contextmanager
def artifacts_dir() -> Iterator[str]:
    """A ``pctfuzz-artifacts-<pid>-*`` folder with its owner file, removed afterwards."""
    folder = owned_dir(_ARTIFACTS)
    try:
        yield str(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)

