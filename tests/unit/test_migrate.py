"""``pctfuzz migrate`` from the previous signature format (issue 21: divergences named by
the rule that explains them): records re-identified automatically, their old ids still
resolved (``previous_ids``), two old findings of one behaviour merged with their hits
summed, and a record whose signature did not change kept in place."""

from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks import differential
from pctfuzz._internal.cli import main
from pctfuzz._internal.fuzz.migrate import migrate_findings
from pctfuzz._internal.identity import SIGNATURE_VERSION, finding_id
from pctfuzz._internal.store import Finding, FindingStore, new_finding

SUPPORT = Path(__file__).resolve().parents[1] / "support"
IMPL = "broken_impls:TildeEncodingUrllib"
OLD = SIGNATURE_VERSION - 1


@pytest.fixture(autouse=True)
def _support() -> Iterator[None]:
    sys.path.insert(0, str(SUPPORT))
    try:
        yield
    finally:
        sys.path.remove(str(SUPPORT))


def _current(value: str) -> Finding:
    from broken_impls import TildeEncodingUrllib

    case = EncodeCase(value, "component")
    with pytest.raises(Exception) as caught:
        differential.check_encode(case, TildeEncodingUrllib())
    return new_finding("diff_encode", "divergence", caught.value, case=case, impl=IMPL)


def _old(value: str, klass: str | None, hits: int) -> Finding:
    """A record of the previous format: ``klass`` its first-difference class (None: the
    signature it has now)."""
    now = _current(value)
    signature = now.signature if klass is None else \
        f"diff_encode|divergence|encode|{klass}|impl={IMPL}"
    return dataclasses.replace(now, signature=signature, id=finding_id(signature),
                               signature_version=OLD, hits=hits)


def test_two_old_findings_of_one_behaviour_merge_and_keep_their_ids(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = FindingStore(tmp_path / "findings")
    first, second = _old("a~b", "unit=0x7E;diff=encoded", 3), _old("~~", "unit=end;diff=x", 4)
    store.record(first)
    store.record(second)
    store.update_status(second.id, "wont-fix")
    migrations = list(migrate_findings(store.root, impl=IMPL))
    assert [m.outcome for m in migrations] == ["migrated", "migrated"], migrations
    (merged,) = store.iter_findings()
    assert merged.signature == _current("~").signature
    assert merged.signature_version == SIGNATURE_VERSION
    assert merged.behaviour is not None and merged.behaviour["rule"] == "encoded"
    assert merged.hits == 7
    assert sorted(merged.previous_ids or ()) == sorted((first.id, second.id))
    # Each old id resolves to the merged record: get, triage, replay.
    assert store.get(first.id).id == store.get(second.id).id == merged.id
    monkeypatch.chdir(tmp_path)
    assert main(["triage", first.id, "--status", "false-positive"]) == 0
    assert store.get(merged.id).status == "false-positive"
    assert main(["replay", second.id, "--impl", IMPL]) == 1  # it still reproduces
    assert main(["replay", "0123456789abcdef"]) == 2  # no such record: unusable


def test_an_old_record_whose_signature_is_the_same_is_kept(tmp_path: Path) -> None:
    store = FindingStore(tmp_path / "findings")
    old = _old("~", None, 5)
    store.record(old)
    (migration,) = migrate_findings(store.root, impl=IMPL)
    assert migration.outcome == "migrated", migration
    (kept,) = store.iter_findings()
    assert (kept.id, kept.hits, kept.previous_ids) == (old.id, 5, None)
    assert kept.signature_version == SIGNATURE_VERSION


def _later_and_earlier(store: FindingStore, *records: Finding) -> list[Finding]:
    """``records`` stored, in the order migrate reads them (file name)."""
    for record in records:
        store.record(record)
    return sorted(records, key=lambda r: r.file_name)


def test_a_merge_keeps_the_triage_verdict_and_note_of_either_record(tmp_path: Path) -> None:
    """Issue 33, item 3: the verdict was the first file's, the other's lost."""
    store = FindingStore(tmp_path / "findings")
    _first, second = _later_and_earlier(
        store, _old("a~b", "unit=0x7E;diff=encoded", 3), _old("~~", "unit=end;diff=x", 4))
    # the record read second is the triaged one: the merge starts from the first
    store.update_status(second.id, "wont-fix", "upstream will not change it")
    list(migrate_findings(store.root, impl=IMPL))
    (merged,) = store.iter_findings()
    assert (merged.status, merged.note, merged.hits) == (
        "wont-fix", "upstream will not change it", 7)


def test_a_merge_of_two_notes_keeps_both(tmp_path: Path) -> None:
    store = FindingStore(tmp_path / "findings")
    first, second = _later_and_earlier(
        store, _old("a~b", "unit=0x7E;diff=encoded", 3), _old("~~", "unit=end;diff=x", 4))
    store.update_status(first.id, "known-divergence", "as documented")
    store.update_status(second.id, "wont-fix", "upstream #12")
    list(migrate_findings(store.root, impl=IMPL))
    (merged,) = store.iter_findings()
    assert merged.status == "known-divergence"  # both triaged: the first's stays
    assert merged.note is not None
    assert "as documented" in merged.note and "upstream #12" in merged.note


def test_migrate_leaves_the_records_of_another_implementation_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33, item 4: ``--impl A`` replayed B's record against A and merged it into
    A's finding. A here fails exactly as B does, so a replay would merge them."""
    (tmp_path / "tilde_twin.py").write_text(
        "from broken_impls import TildeEncodingUrllib as TildeTwin\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    twin = "tilde_twin:TildeTwin"
    store = FindingStore(tmp_path / "findings")
    theirs = _old("a~b", "unit=0x7E;diff=encoded", 3)
    store.record(theirs)
    before = store.path_for(theirs).read_bytes()
    mine = dataclasses.replace(_current("~"), impl=twin)
    mine = dataclasses.replace(mine, signature=mine.signature.replace(IMPL, twin),
                               id=finding_id(mine.signature.replace(IMPL, twin)), hits=2)
    store.record(mine)
    outcomes = {m.path.name: m.outcome for m in migrate_findings(store.root, impl=twin)}
    assert outcomes[theirs.file_name] == "skipped", outcomes
    assert store.path_for(theirs).read_bytes() == before
    assert store.get(mine.id).hits == 2 and store.get(mine.id).previous_ids is None
    monkeypatch.chdir(tmp_path)
    assert main(["migrate", "--findings", str(store.root), "--impl", twin]) == 0
    out = capsys.readouterr().out
    assert f"{theirs.file_name}: skipped" in out and "1 record(s) skipped" in out, out


@pytest.mark.parametrize("kind", ["file", "missing"])
def test_migrate_of_a_findings_path_that_is_no_folder_is_a_usage_error(
        tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33, item 16: a file or a missing path exited 0 in silence."""
    path = tmp_path / "findings"
    if kind == "file":
        path.write_text("not a folder\n")
    assert main(["migrate", "--findings", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "findings" in err and "Traceback" not in err, err
    assert kind == "file" or not path.exists()  # nothing created


def test_migrate_of_a_store_it_cannot_write_is_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 33, item 16: a read-only store exited 0. Tests run as root, whom permission
    bits do not stop: every open for writing under the store fails with EROFS, as on a
    read-only mount."""
    import errno

    store = FindingStore(tmp_path / "findings")
    old = _old("a~b", "unit=0x7E;diff=encoded", 3)
    store.record(old)
    before = store.path_for(old).read_bytes()
    real_open = os.open
    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT

    def read_only(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & writing and str(path).startswith(str(store.root)):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    code = main(["migrate", "--findings", str(store.root), "--impl", IMPL])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err, err
    assert "Read-only file system" in err and len(err.splitlines()) == 1, err
    monkeypatch.undo()
    assert store.path_for(old).read_bytes() == before


#: A ``pctfuzz migrate`` child. ``--pause``: at its first removal of an old record (the
#: new record written, the old one still there) it writes ``paused`` and waits for
#: ``go``; every child writes ``locking`` when it first asks for a lock.
_CHILD = """
import fcntl, os, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
work, root, impl, pause = Path(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5] == "1"
real_unlink, real_flock = os.unlink, fcntl.flock

def unlink(path, *args, **kwargs):
    if pause and str(path).startswith(root) and str(path).endswith(".json"):
        (work / "paused").write_text("")
        while not (work / "go").exists():
            time.sleep(0.02)
    return real_unlink(path, *args, **kwargs)

def flock(fd, op):
    (work / "locking").touch()
    return real_flock(fd, op)

os.unlink, fcntl.flock = unlink, flock
from pctfuzz._internal.cli import main
sys.exit(main(["migrate", "--findings", root, "--impl", impl]))
"""


def _child(work: Path, root: Path, *, pause: bool) -> subprocess.Popen[bytes]:
    work.mkdir()
    return subprocess.Popen([sys.executable, "-c", _CHILD, str(SUPPORT), str(work),
                             str(root), IMPL, "1" if pause else "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_for(path: Path, child: subprocess.Popen[bytes], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert child.poll() is None, child.communicate()[1]
        assert time.monotonic() < deadline, f"no {path.name} after {seconds} s"
        time.sleep(0.02)


def _two_old_records(tmp_path: Path) -> tuple[FindingStore, list[Finding]]:
    """Two old records of one behaviour (3 and 4 hits): one finding of 7 hits, migrated."""
    store = FindingStore(tmp_path / "findings")
    records = [_old("a~b", "unit=0x7E;diff=encoded", 3), _old("~~", "unit=end;diff=x", 4)]
    for record in records:
        store.record(record)
    return store, records


def _one_finding_of_seven_hits(store: FindingStore, records: list[Finding]) -> None:
    (merged,) = store.iter_findings()
    assert merged.hits == 7, merged
    assert sorted(merged.previous_ids or ()) == sorted(r.id for r in records)


def test_a_migration_killed_before_it_removes_an_old_record_counts_no_hit_twice(
        tmp_path: Path) -> None:
    """Issue 33, item 2: a kill -9 between writing the new record and removing the old
    one, then migrate again: the old record's hits were added a second time."""
    store, records = _two_old_records(tmp_path)
    child = _child(tmp_path / "a", store.root, pause=True)
    try:
        _wait_for(tmp_path / "a" / "paused", child)
        child.kill()
    finally:
        child.kill()
        child.wait(timeout=60)
    assert len(list(store.iter_findings())) == 3  # the new record, both old ones
    list(migrate_findings(store.root, impl=IMPL))
    _one_finding_of_seven_hits(store, records)


def test_two_migrations_of_one_store_at_once_count_each_hit_once(tmp_path: Path) -> None:
    """Issue 33, item 2: two migrations at once doubled every hit. The first pauses with
    the new record written; the second starts meanwhile, then the first goes on."""
    store, records = _two_old_records(tmp_path)
    first = _child(tmp_path / "a", store.root, pause=True)
    second = None
    try:
        _wait_for(tmp_path / "a" / "paused", first)
        second = _child(tmp_path / "b", store.root, pause=False)
        _wait_for(tmp_path / "b" / "locking", second)
        time.sleep(0.5)  # in the lock's wait now (or done, without a store lock)
        (tmp_path / "a" / "go").touch()
        assert first.wait(timeout=300) == 0, first.communicate()[1]
        assert second.wait(timeout=300) == 0, second.communicate()[1]
    finally:
        for child in (first, second):
            if child is not None:
                child.kill()
                child.wait(timeout=60)
    _one_finding_of_seven_hits(store, records)


@pytest.mark.slow
def test_a_migration_killed_at_random_moments_keeps_every_hit_once(tmp_path: Path) -> None:
    """Issue 33, item 2: killed at random moments, then run again (1,372 hits for
    1,368). Twenty kills of a migration of 24 old records of one behaviour (hits 1 to
    24), then one run to the end: one finding of every hit once. Seeded, so a failure
    replays; whatever moment a kill hits, the totals hold."""
    rng = random.Random(33)
    store = FindingStore(tmp_path / "findings")
    records = [_old("a~" + "b" * i, f"unit=0x7E;diff=n{i}", i + 1) for i in range(24)]
    for record in records:
        store.record(record)
    for round_ in range(20):
        child = _child(tmp_path / f"k{round_}", store.root, pause=False)
        try:
            # A child starts in about a second here and migrates for about as long:
            # most kills land while it migrates, some before it starts or after it ends.
            time.sleep(rng.uniform(0.5, 2.5))
        finally:
            child.kill()
            child.wait(timeout=60)
    list(migrate_findings(store.root, impl=IMPL))
    (merged,) = store.iter_findings()
    assert merged.hits == sum(range(1, 25)), merged
    assert sorted(merged.previous_ids or ()) == sorted(r.id for r in records)
