"""What the catalogue-rule tests share (``test_rules_catalogue``, ``test_peer_rules``):
record each case's divergence in a fresh store, with every accepted difference
ignored (``--no-accepted``), and check that the store holds one finding per
behaviour, named by its rule."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from pctfuzz._internal.cases import Case
from pctfuzz._internal.checks.differential import (
    check_decode,
    check_encode,
    check_form,
    check_form_parse,
)
from pctfuzz._internal.oracles.base import Impl
from pctfuzz._internal.oracles.registry import get_impl
from pctfuzz._internal.settings import RunSettings
from pctfuzz._internal.store import FindingStore, new_finding
from pctfuzz._internal.violations import Divergence

__all__ = ["NO_ACCEPTED", "TARGET", "findings", "one"]

#: Every accepted difference ignored (``--no-accepted``), as a campaign names them: the
#: settings these tests hand to the checks and to the finding's identity.
NO_ACCEPTED = RunSettings(accepted=False)

#: differential check -> its fuzz target's name.
TARGET = {check_encode: "diff_encode", check_decode: "diff_decode", check_form: "diff_form",
          check_form_parse: "diff_form_parse"}


def findings(tmp_path: Path, check: Callable[..., Any], impl: str | Impl,
             cases: Sequence[Case], kind: str = "divergence",
             settings: RunSettings = NO_ACCEPTED) -> list[Any]:
    """The records a store holds once every case's divergence is recorded (with
    ``settings``: by default, every accepted difference ignored)."""
    adapter = get_impl(impl) if isinstance(impl, str) else impl
    store = FindingStore(tmp_path / "findings")
    for case in cases:
        with pytest.raises(Divergence) as caught:
            check(case, adapter, settings=settings)
        store.record(new_finding(TARGET[check], kind, caught.value, case=case,
                                 accepted=settings.accepted))
    return list(store.iter_findings())


def one(records: list[Any], rule: str, params: dict[str, Any]) -> None:
    """The store holds one finding, named by ``rule`` with ``params``."""
    assert len(records) == 1, [r.signature for r in records]
    assert records[0].behaviour["rule"] == rule and records[0].behaviour["params"] == params, \
        records[0].behaviour
