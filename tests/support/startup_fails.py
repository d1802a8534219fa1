"""An implementation whose harness dies before its first input, every time.

In a campaign's harness process (the hand-off names its parent,
``PCTFUZZ_PARENT_PID``) importing this module raises, as botocore's lazy
``six.moves`` attributes once ended every harness while the driver instrumented
them: the campaign restarted it 214 times in 40 s and ran no input. In the
campaign's own process it imports, so the campaign starts. Importable as
``startup_fails:StartupFails`` when ``tests/support`` is on the path."""

from __future__ import annotations

import os

from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter

if "PCTFUZZ_PARENT_PID" in os.environ:
    raise ImportError("startup_fails: a dependency is missing in the harness (planted)")


class StartupFails(UrllibAdapter):
    """urllib.parse, in a module a harness cannot import."""

    name = "startup-fails"
