"""pctfuzz's benchmarks: each module runs as a script (``python benchmarks/bench_fuzz.py``,
``make bench``) and imports as ``benchmarks.<name>`` (the reliability tests reuse
``kill_test`` and ``bench_memory``). Speed is measured here, as ratios against a
baseline timed in the same run, never asserted in tests."""
