"""An implementation that hangs when its open finding is replayed (issue 33, items 6
and 17).

``--impl replay_hang:HangOnReplay`` with ``tests/support`` on ``PYTHONPATH``: urllib,
except for one value (``MAGIC``, which a short campaign never draws). Without
``PCTFUZZ_TEST_HANG_FILE`` that value raises, so a test can record a crash finding of
it (one finding per set of ``ERRORS``: each set raises its own exception type); with
it, the value writes this process's pid to that file (the event "the replay runs") and
sleeps until a signal ends it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter

MAGIC = "pctfuzz-hang-on-replay"
#: The exception ``MAGIC`` raises when recorded, by set: three findings of one value.
ERRORS: dict[str, type[Exception]] = {"component": ValueError, "path": TypeError,
                                      "query": LookupError}


class HangOnReplay(UrllibAdapter):
    """urllib's encoder, but ``MAGIC`` raises (recording) or hangs (replaying)."""

    name = "urllib-hang-on-replay"

    def encode(self, case: EncodeCase) -> str:
        if case.value == MAGIC:
            hang = os.environ.get("PCTFUZZ_TEST_HANG_FILE")
            if not hang:
                raise ERRORS.get(case.set_name, ValueError)("the magic value")
            Path(hang).write_text(str(os.getpid()))
            while True:  # until a signal: pure Python, so its handler runs
                time.sleep(0.05)
        return super().encode(case)
