"""Implementations under test that hang, blow up memory, or fail on every input.

For the reliability tests (``tests/integration/test_reliability.py``) and
``benchmarks/kill_test.py``: importable as ``slow_impls:QuadraticDecoder`` etc. (``--impl``)
when ``tests/support/`` is on
``PYTHONPATH``. Each is urllib.parse (``UrllibAdapter``) with one deliberate defect in
``decode``, so the ``diff_decode`` target reaches it; every other answer is urllib's.

- ``QuadraticDecoder``: time quadratic in the number of ``%`` once there are at least
  ``FLOOD`` of them (a "percent flood"): ``HANG_STEP * count**2`` seconds of pure-Python
  busy work, so 4 ``%`` already take 8 s. libFuzzer's ``-timeout`` stops it; replay's
  SIGALRM timeout interrupts it (pure Python, so the signal handler gets to run).
- ``MemoryHog``: on a percent flood, allocates ``HOG_MB`` MiB (default 512, env
  ``PCTFUZZ_TEST_HOG_MB``) of *touched* memory and holds it ``HOG_HOLD`` seconds, so
  libFuzzer's RSS thread (it samples once a second) blames this input, then returns the
  right answer. Only ``-rss_limit_mb`` turns it into a finding.
- ``CountingCrash``: raises on every input, and appends one byte to the file named by
  ``PCTFUZZ_TEST_COUNT_FILE`` for every call that is a *hit* (a libFuzzer execution),
  not for the recorder's own re-runs while it minimizes a new finding. The file's size
  is then exactly the number of hits the findings store should hold.
- ``StallsOnce``: decodes ``+`` as a space (a difference to name), and the first time
  the file named by ``PCTFUZZ_TEST_STALL_FILE`` is missing when it is asked a short
  value with a ``+`` (a question of the naming, not a seed), creates it and busy-waits
  ``STALL`` seconds: a stall of one naming, as a loaded machine makes it, not a hang.
- ``SlowToName``: decodes ``+`` as a space, and takes ``SLOW_CALL`` seconds to answer
  any call: an input is answered well within a second, but naming its difference asks
  a few hundred questions (a library slow on long inputs).
"""

from __future__ import annotations

import os
import sys
import time

from pctfuzz._internal.cases import DecodeCase
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter

#: How many ``%`` make a flood.
FLOOD = 4
#: Seconds of busy work per ``%`` squared.
HANG_STEP = 0.5
#: MiB allocated by ``MemoryHog`` on a flood.
HOG_MB = int(os.environ.get("PCTFUZZ_TEST_HOG_MB", "512"))
#: Seconds ``MemoryHog`` holds the memory.
HOG_HOLD = 1.5


def percent_count(case: DecodeCase) -> int:
    value = case.value
    return value.count(b"%") if isinstance(value, bytes) else value.count("%")


class QuadraticDecoder(UrllibAdapter):
    """urllib's decoder, but quadratic-time (with a large constant) on percent floods."""

    name = "urllib-quadratic"

    def decode(self, case: DecodeCase) -> bytes:
        count = percent_count(case)
        if count >= FLOOD:
            deadline = time.monotonic() + HANG_STEP * count * count
            spins = 0
            while time.monotonic() < deadline:  # pure Python: signals are handled
                spins += 1
        return super().decode(case)


class MemoryHog(UrllibAdapter):
    """urllib's decoder, but a percent flood allocates ``HOG_MB`` MiB for a while."""

    name = "urllib-memory-hog"

    def decode(self, case: DecodeCase) -> bytes:
        if percent_count(case) >= FLOOD:
            # bytes * n fills every page, so all of it is resident (a bytearray(n) of
            # zeros would be mapped lazily and never count against the RSS limit).
            ballast = b"\xa5" * (HOG_MB << 20)
            time.sleep(HOG_HOLD)
            del ballast
        return super().decode(case)


class CountedError(RuntimeError):
    """What ``CountingCrash`` raises."""


_count_fd: int | None = None


def _is_hit() -> bool:
    """True unless called from the recorder's minimization or re-run of a new finding,
    or by the differential check's probe that names a crash (is a plain case refused
    too?): those ask the implementation again, they are not the fuzzer's inputs."""
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        # By qualified name, not file: the recorder has moved between modules before.
        if code.co_qualname in ("Recorder.record", "_raises_on_plain") \
                and "pctfuzz" in code.co_filename:
            return False
        frame = frame.f_back  # type: ignore[assignment]
    return True


def _count_hit() -> None:
    global _count_fd
    path = os.environ.get("PCTFUZZ_TEST_COUNT_FILE")
    if not path or not _is_hit():
        return
    if _count_fd is None:
        _count_fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(_count_fd, b".")  # one O_APPEND write: atomic between processes


class CountingCrash(UrllibAdapter):
    """Raises ``CountedError`` from ``decode`` on every input, counting its hits."""

    name = "urllib-counting-crash"

    def decode(self, case: DecodeCase) -> bytes:
        _count_hit()
        raise CountedError("counted")


#: Seconds ``StallsOnce`` stalls, once.
STALL = 3.0


class StallsOnce(UrllibAdapter):
    """urllib's decoder with ``+`` as a space; one stall of ``STALL`` s (module
    docstring)."""

    name = "urllib-stalls-once"

    def decode(self, case: DecodeCase) -> bytes:
        value = case.value if isinstance(case.value, bytes) else case.value.encode("utf-8")
        marker = os.environ.get("PCTFUZZ_TEST_STALL_FILE")
        if marker and b"+" in value and len(value) <= 2 and not os.path.exists(marker):
            with open(marker, "w") as handle:
                handle.write(f"stalled on {value!r}\n")
            deadline = time.monotonic() + STALL
            while time.monotonic() < deadline:  # busy, as a loaded machine is
                pass
        return super().decode(DecodeCase(value.replace(b"+", b" ")))


#: Seconds ``SlowToName`` takes per call.
SLOW_CALL = 0.05


class SlowToName(UrllibAdapter):
    """urllib's decoder with ``+`` as a space, ``SLOW_CALL`` s a call (module
    docstring)."""

    name = "urllib-slow-to-name"

    def decode(self, case: DecodeCase) -> bytes:
        time.sleep(SLOW_CALL)
        value = case.value if isinstance(case.value, bytes) else case.value.encode("utf-8")
        return super().decode(DecodeCase(value.replace(b"+", b" ")))


def touch_marker() -> None:
    """Not an implementation: a zero-argument function with a side effect (it creates
    the file named by ``PCTFUZZ_TEST_MARKER``). A finding record naming it as its
    ``impl`` must not make replay call it."""
    path = os.environ.get("PCTFUZZ_TEST_MARKER")
    if path:
        with open(path, "w") as handle:
            handle.write("touch_marker was called\n")
