"""Exit 3 ("a target ran 0 executions") means a target really ran nothing, at any load
(issue 22.8). libFuzzer prints no status line until its seed corpus is loaded, and a
process stopped before that (a loaded machine, a large corpus: the slice ends first)
used to count as 0 executions although it ran every seed it loaded. The count now rests
on the harness's own ``EXECUTIONS`` line, said as it ends.

The race is made deterministic with events, not time: the adapter blocks on its
tenth call (while libFuzzer is still loading the seeds) until the test has stopped the
process as a campaign's deadline does (``Supervisor.stop``: SIGTERM)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from pctfuzz._internal.fuzz.libfuzzer import command, watch
from pctfuzz._internal.fuzz.protocol import HarnessSettings
from pctfuzz._internal.fuzz.stats import CampaignResult, TargetStats
from pctfuzz._internal.fuzz.supervisor import Supervisor

pytestmark = pytest.mark.slow

#: The call the adapter blocks on.
BLOCK_AT = 10

ADAPTER = '''\
"""Blocks on call {block_at} until the file `go` exists (it writes `ready` first)."""
import time
from pathlib import Path
from urllib.parse import quote

from pctfuzz._internal.oracles import function_adapter

HERE = Path({here!r})
CALLS = [0]


def encode(text: str) -> str:
    CALLS[0] += 1
    if CALLS[0] == {block_at}:
        (HERE / "ready").write_text(str(CALLS[0]))
        while not (HERE / "go").exists():  # the test's event, not a duration
            time.sleep(0.01)
    return quote(text, safe="")


adapter = function_adapter("blocking", encode=encode, sets={{"c": "component"}})
'''


def test_a_process_stopped_while_it_loads_its_seeds_counts_what_it_ran(
        tmp_path: Path) -> None:
    (tmp_path / "blocking.py").write_text(ADAPTER.format(here=str(tmp_path),
                                                         block_at=BLOCK_AT))
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for n in range(3 * BLOCK_AT):  # more seeds than the adapter answers before it blocks
        # diff_encode's byte format: flags (set 0), encoding byte (UTF-8), the text
        (seeds / f"seed{n:03}").write_bytes(b"\x00\x00" + f"seed {n}".encode())
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    findings = tmp_path / "findings"
    findings.mkdir()
    settings = HarnessSettings(impl="blocking:adapter", findings=str(findings),
                               root=str(tmp_path))
    env = {**settings.to_env({"PATH": "/usr/bin:/bin"}), "PYTHONUNBUFFERED": "1"}
    # -timeout and -max_total_time far away: only the test's stop ends the process
    cmd = command("diff_encode", None, seeds, 3600, artifacts, 3600, 2048, [])
    supervisor = Supervisor(time.monotonic() + 3600)
    stats = TargetStats("diff_encode")
    result: list[tuple[str | None, Path | None, int]] = []
    worker = threading.Thread(target=lambda: result.append(
        watch(cmd, env, stats, 0, None, supervisor)))
    worker.start()
    try:
        while not (tmp_path / "ready").exists():  # the harness is inside input 10
            assert worker.is_alive(), "the harness ended before its tenth input"
            time.sleep(0.01)
        assert stats.execs == 0  # libFuzzer has said nothing yet: it is loading seeds
        supervisor.stop()  # the campaign's deadline: SIGTERM
    finally:
        (tmp_path / "go").write_text("")
        worker.join(timeout=600)
    (death, _artifact, execs) = result[0]
    assert death is None
    # Every input the harness ran, the blocked one included (before: 0).
    assert execs >= BLOCK_AT and stats.execs >= BLOCK_AT, (execs, stats.execs)
    campaign = CampaignResult([stats], 1.0)
    assert not campaign.incomplete, campaign.problems()
