"""``pctfuzz migrate`` from the previous signature format (issue 21: divergences named by
the rule that explains them): records re-identified automatically, their old ids still
resolved (``previous_ids``), two old findings of one behaviour merged with their hits
summed, and a record whose signature did not change kept in place."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path

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
