"""Open findings, triage and accept: the statuses, the optional record fields, the
replay of the open findings (``replay.replay_open``) and how SARIF, JUnit and the
results document report it, and the TOML that ``pctfuzz accept`` writes."""

from __future__ import annotations

import json
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks import differential
from pctfuzz._internal.cli import main
from pctfuzz._internal.cli.accept import toml_string
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.fuzz.replay import replay_open
from pctfuzz._internal.fuzz.stats import CampaignResult, TargetStats
from pctfuzz._internal.reports import fuzz_results, to_junit, to_sarif
from pctfuzz._internal.store import (
    FINDING_STATUSES,
    Finding,
    FindingFormatError,
    FindingStore,
    new_finding,
)

SUPPORT = Path(__file__).resolve().parents[1] / "support"
IMPL = "broken_impls:TildeEncodingUrllib"


def _finding(value: str = "a~b") -> Finding:
    """A real divergence of the tilde-encoding adapter, recorded against ``IMPL``."""
    from broken_impls import TildeEncodingUrllib

    case = EncodeCase(value, "component")
    with pytest.raises(Exception) as caught:
        differential.check_encode(case, TildeEncodingUrllib())
    return new_finding("diff_encode", "divergence", caught.value, case=case, impl=IMPL)


@pytest.fixture
def store(tmp_path: Path) -> FindingStore:
    store = FindingStore(tmp_path / "findings")
    store.record(_finding())
    return store


def test_triage_statuses_and_optional_fields_round_trip(store: FindingStore) -> None:
    assert {"new", "known-divergence", "false-positive", "adapter-bug", "wont-fix",
            "fixed"} == FINDING_STATUSES
    (finding,) = store.iter_findings()
    path = store.path_for(finding)
    before = path.read_bytes()
    assert b"fixed_in" not in before  # written only when set
    for status in ("false-positive", "adapter-bug", "wont-fix", "new"):
        assert store.update_status(finding.id, status).status == status
    assert path.read_bytes() == before  # back to new: the same bytes
    fixed = store.update_status(finding.id, "fixed",
                                fixed_in={"version": "lib 2.0", "date": finding.last_seen})
    assert Finding.from_bytes(path.read_bytes()).fixed_in == fixed.fixed_in
    assert store.update_status(finding.id, "new").fixed_in is None  # reopened
    behaviour = {"rule": "encoded", "params": {"chars": "~"}, "text": "'~' encoded"}
    data = {**json.loads(before), "behaviour": behaviour}
    assert Finding.from_json(data).behaviour == behaviour


@pytest.mark.parametrize("field, value", [
    ("behaviour", {"rule": "left_raw", "params": {"chars": "~"}}),
    ("behaviour", {"rule": "os.system", "params": {}, "text": "x"}),
    ("behaviour", {"rule": "left_raw", "params": {"chars": {"a": 1}}, "text": "x"}),
    ("behaviour", {"rule": "left_raw", "params": {}, "text": "two\nlines"}),
    ("fixed_in", {"version": "1.0", "date": "yesterday"}),
    ("fixed_in", {"version": "1.0"}),
    ("status", "closed"),
])
def test_bad_optional_fields_and_statuses_are_refused(store: FindingStore, field: str,
                                                      value: Any) -> None:
    (finding,) = store.iter_findings()
    data = {**finding.to_json(), field: value}
    with pytest.raises(FindingFormatError):
        Finding.from_json(data)


def test_triage_takes_several_ids_and_changes_nothing_on_a_typo(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = FindingStore(tmp_path / "findings")
    first, _ = store.record(_finding("a~b"))
    second, _ = store.record(new_finding("encode", "timeout", None, raw_input=b"x"))
    assert first.id != second.id
    folder = str(store.root)
    assert main(["triage", first.id, "0123456789abcdef", "--status", "wont-fix",
                 "--findings", folder]) == 2
    assert store.get(first.id).status == "new"
    assert main(["triage", first.id, second.id, "--status", "adapter-bug", "--note",
                 "our adapter's mistake", "--findings", folder]) == 0
    assert {store.get(i).status for i in (first.id, second.id)} == {"adapter-bug"}
    assert "our adapter's mistake" in capsys.readouterr().out


def _replay_open(store: FindingStore, **kwargs: Any) -> Any:
    sys.path.insert(0, str(SUPPORT))
    try:
        return replay_open(store.root, IMPL, **kwargs)
    finally:
        sys.path.remove(str(SUPPORT))


def test_an_open_finding_that_reproduces_stays_open_and_a_fixed_one_is_marked(
        store: FindingStore, monkeypatch: pytest.MonkeyPatch) -> None:
    (finding,) = store.iter_findings()
    result = _replay_open(store)
    assert result.reproduced == [finding.id] and not result.fixed
    assert store.get(finding.id).status == "new"

    import broken_impls

    from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter

    monkeypatch.setattr(broken_impls.TildeEncodingUrllib, "encode", UrllibAdapter.encode)
    result = _replay_open(store)
    assert result.fixed == [finding.id] and not result.reproduced
    fixed = store.get(finding.id)
    assert fixed.status == "fixed" and fixed.fixed_in is not None
    assert fixed.fixed_in["version"].startswith("stdlib")  # the adapter's library
    # Fixed findings are not replayed again; a campaign that hits one reopens it.
    assert _replay_open(store).verdicts == []
    monkeypatch.undo()
    result = _replay_open(store, seen=[finding.id])
    assert result.reopened == [finding.id] and result.reproduced == [finding.id]


def test_triaged_findings_and_other_implementations_are_not_replayed(
        store: FindingStore) -> None:
    (finding,) = store.iter_findings()
    store.update_status(finding.id, "wont-fix")
    assert _replay_open(store).verdicts == []
    store.update_status(finding.id, "new")
    assert replay_open(store.root, "urllib").verdicts == []  # not urllib's finding


def _document(store: FindingStore, verdicts: Any) -> dict[str, Any]:
    (finding,) = store.iter_findings()
    stats = TargetStats("diff_encode")
    stats.known_findings.append(finding.id)
    return fuzz_results(CampaignResult([stats], 1.0), settings={}, findings_dir=store.root,
                        started="2026-01-01T00:00:00.000Z", exit_code=1, verified=verdicts)


def test_an_open_finding_that_reproduces_is_in_sarif_junit_and_json(
        store: FindingStore) -> None:
    (finding,) = store.iter_findings()
    document = _document(store, _replay_open(store).verdicts)
    (entry,) = document["findings"]
    assert entry["reproduces"] is True and entry["new"] is False
    assert document["replays"][0]["outcome"] == "reproduces"
    (result,) = to_sarif(document)["runs"][0]["results"]
    assert result["fingerprints"] == {"pctfuzzFindingId/v1": finding.id}
    assert result["partialFingerprints"] == {"pctfuzzSignature/v1": finding.signature}
    assert ET.fromstring(to_junit(document).split("\n", 1)[1]).get("failures") == "1"
    # Without the replay (today's campaign) a known finding is in neither.
    document = _document(store, [])
    assert to_sarif(document)["runs"][0]["results"] == []
    assert ET.fromstring(to_junit(document).split("\n", 1)[1]).get("failures") == "0"


@given(st.text(st.characters(exclude_categories=("Cs",))))
def test_toml_string_reads_back_as_the_same_text(text: str) -> None:
    assert tomllib.loads(f"x = {toml_string(text)}")["x"] == text
    assert toml_string(text).isascii() and "\n" not in toml_string(text)


def test_toml_string_refuses_a_lone_surrogate() -> None:
    with pytest.raises(UsageError, match="lone surrogate"):
        toml_string("a\ud800")
