#!/usr/bin/env python3
"""atheris fuzzer for the pctfuzz `diff_decode` target (see `pctfuzz targets`).

Run like any OSS-Fuzz Python fuzzer:
    python harness/fuzz_diff_decode.py corpus/diff_decode \
        -dict=harness/diff_decode.dict -max_total_time=30
"""

import sys

# The code under test is the implementation's adapter: the driver's main
# instruments it and the reference it is compared with, not the rest of pctfuzz,
# which would only cost (Target.instrumented_modules).
from pctfuzz._internal.fuzz import driver

if __name__ == "__main__":
    driver.main("diff_decode", sys.argv)
