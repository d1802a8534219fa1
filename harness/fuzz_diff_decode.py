#!/usr/bin/env python3
"""atheris fuzzer for the pctfuzz `diff_decode` target (see `pctfuzz targets`).

Run like any OSS-Fuzz Python fuzzer:
    python harness/fuzz_diff_decode.py corpus/diff_decode \
        -dict=harness/diff_decode.dict -max_total_time=30
"""

import sys

import atheris

# pctfuzz is imported inside the hook so its code carries coverage counters; the
# implementation under test (urllib.parse, imported by atheris itself) is instrumented
# explicitly by the driver's main.
with atheris.instrument_imports(include=["pctfuzz"]):
    from pctfuzz.fuzz import driver

if __name__ == "__main__":
    driver.main("diff_decode", sys.argv)
