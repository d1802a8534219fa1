"""An implementation whose campaign processes never get through their seed corpus
(issue 33, item 17: a corpus that takes longer to load than the slice it is given).

``--impl blocked_loading:BlockedLoading`` with ``tests/support`` on ``PYTHONPATH``:
urllib, except that in a campaign's harness process (``PCTFUZZ_CAMPAIGN_TOKEN`` set)
its first ``encode`` blocks until the process is asked to stop (SIGTERM: the harness
then waits for the input's end, ``driver._Stop``), and returns urllib's answer. The
process has then run one seed input, whatever the machine's speed: a stand-in for a
corpus too large to load in a slice, that no number of seconds can get through.
"""

from __future__ import annotations

import os
import time

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter


class BlockedLoading(UrllibAdapter):
    """urllib's encoder; in a harness process, its first call waits for SIGTERM."""

    name = "urllib-blocked-loading"
    _blocked = False

    def encode(self, case: EncodeCase) -> str:
        if os.environ.get("PCTFUZZ_CAMPAIGN_TOKEN") and not BlockedLoading._blocked:
            BlockedLoading._blocked = True
            from pctfuzz._internal.fuzz.driver import _Stop

            while not _Stop.requested:  # until SIGTERM: pure Python, its handler runs
                time.sleep(0.05)
        return super().encode(case)
