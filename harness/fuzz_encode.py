#!/usr/bin/env python3
"""atheris fuzzer for the pctfuzz `encode` target (see `pctfuzz targets`).

Run like any OSS-Fuzz Python fuzzer:
    python harness/fuzz_encode.py corpus/encode \
        -dict=harness/encode.dict -max_total_time=30
"""

import sys

import atheris

# pctfuzz's library (the reference, the form codec, the encoders: what `import
# pctfuzz` imports) is imported inside the hook so its code carries coverage counters;
# the driver, targets and byte formats after it, without: they run on every input but
# are not under test, and their counters only cost time.
with atheris.instrument_imports(include=["pctfuzz"]):
    import pctfuzz  # noqa: F401
from pctfuzz._internal.fuzz import driver

if __name__ == "__main__":
    driver.main("encode", sys.argv)
