"""``--no-accepted``: every accepted difference ignored (the registry's, the adapter's
``divergences``, the accept file's), handed to harness processes by ``HarnessSettings``,
and its findings kept apart from a normal campaign's (docs/fuzzing.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_findings import NO_ACCEPTED

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks import differential
from pctfuzz._internal.checks.registry import get_divergence
from pctfuzz._internal.fuzz.protocol import HarnessSettings
from pctfuzz._internal.fuzz.replay import replay_open
from pctfuzz._internal.identity import made_without_accepted
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter
from pctfuzz._internal.store import FindingStore, new_finding
from pctfuzz._internal.violations import Divergence

#: A registry entry of urllib (``~`` left raw in the form set), and its example.
TILDE = get_divergence("urllib-quote-tilde")



def test_the_flag_travels_through_the_harness_settings() -> None:
    env = HarnessSettings(impl="urllib", no_accepted=True).to_env({})
    assert HarnessSettings.from_env(env).no_accepted
    assert not HarnessSettings.from_env(HarnessSettings(impl="urllib").to_env(env)).no_accepted
    # handed down: the harness binds its target with them, no setting of the process
    assert not HarnessSettings(no_accepted=True).run_settings.accepted
    assert HarnessSettings().run_settings.accepted


def _divergence(case: EncodeCase) -> Divergence:
    with pytest.raises(Divergence) as caught:
        differential.check_encode(case, UrllibAdapter(), settings=NO_ACCEPTED)
    return caught.value


def test_a_registry_entry_is_ignored_and_the_finding_is_marked() -> None:
    assert isinstance(TILDE.example, EncodeCase)
    found = _divergence(TILDE.example)
    assert found.behaviour is not None and found.behaviour["rule"] == "left_raw"
    finding = new_finding("diff_encode", "divergence", found, case=TILDE.example,
                          accepted=False)
    assert finding.signature.endswith("|impl=urllib|accepted=none")
    assert made_without_accepted(finding.signature)


def test_the_same_case_is_accepted_normally() -> None:
    assert isinstance(TILDE.example, EncodeCase)
    assert TILDE.id in (differential.check_encode(TILDE.example, UrllibAdapter()) or ())


def test_an_adapters_own_divergences_are_ignored() -> None:
    from pctfuzz._internal.accept.reconcilers import divergence, left_raw

    assert isinstance(TILDE.example, EncodeCase)
    entry = divergence(id="declares-tilde-raw", check="encode", reconcile=left_raw("~"),
                       citation="urllib.parse.quote", why="RFC 3986 unreserved",
                       example=TILDE.example)

    class Declares(UrllibAdapter):
        name = "declares-tilde"
        divergences = (entry,)

    assert isinstance(TILDE.example, EncodeCase)
    with pytest.raises(Divergence):
        differential.check_encode(TILDE.example, Declares(), settings=NO_ACCEPTED)
    assert differential.check_encode(TILDE.example, Declares()) == ("declares-tilde-raw",)


def test_a_normal_open_replay_leaves_no_accepted_findings_alone(tmp_path: Path) -> None:
    """The normal replay would mark it accepted (known-divergence) and the flag's replay
    must not touch a normal finding; each replays only its own."""
    assert isinstance(TILDE.example, EncodeCase)
    store = FindingStore(tmp_path / "findings")
    marked, _ = store.record(new_finding("diff_encode", "divergence",
                                         _divergence(TILDE.example), case=TILDE.example,
                                         accepted=False))
    assert replay_open(store.root, "urllib").verdicts == []
    assert store.get(marked.id).status == "new"
    result = replay_open(store.root, "urllib", settings=NO_ACCEPTED)
    assert result.reproduced == [marked.id] and store.get(marked.id).status == "new"
