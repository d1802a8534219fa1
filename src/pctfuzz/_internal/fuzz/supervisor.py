"""Process management: the parent holds the deadline and the stop signals.

A process still running ``DEADLINE_GRACE`` seconds after the deadline (libFuzzer's
clock starts after its start-up) is sent SIGTERM, and SIGKILL ``KILL_AFTER`` seconds
later. SIGINT, SIGTERM and SIGHUP to the campaign stop the processes the same way;
the campaign then imports their new inputs and returns normally
(``CampaignResult.stopped_by``), so the summary and result files are still written.
The processes run in their own session (a terminal's Ctrl-C reaches the campaign
only) and die with it if it is killed (``PR_SET_PDEATHSIG``, set by
``pctfuzz._internal.harness``). A stopped process loses the hits it counted since its last
flush (at most ``PCTFUZZ_FLUSH_SECONDS``), like a kill -9.

A process may also have a slice end of its own (``start(until=)``): libFuzzer's
``-max_total_time`` is not checked while it runs its seed corpus, so a large corpus
would hold the slot past the slice, and the targets still waiting for their first
turn would get none. A process still loading its corpus (``loading``, until
``loaded``) ``DEADLINE_GRACE`` seconds after its slice end is stopped like at the
deadline; the campaign says how much of the corpus it ran.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import threading
import time
from collections.abc import Iterator

__all__ = ["DEADLINE_GRACE", "KILL_AFTER", "STOP_SIGNALS", "Supervisor", "stop_on_signals"]


#: Seconds after the deadline before the processes still running get SIGTERM.
DEADLINE_GRACE = 1.0
#: Seconds after SIGTERM before SIGKILL.
KILL_AFTER = 2.0


class Supervisor:
    """The live libFuzzer processes of a campaign: started in their own session,
    stopped together (SIGTERM, then SIGKILL) at the deadline or on a signal."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.stop_signal: int | None = None
        self.stopped_at: float | None = None
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen[str]] = set()
        self._stopped: set[int] = set()  # pids this supervisor signalled
        self._until: dict[subprocess.Popen[str], float] = {}  # slice ends (``start``)
        self._loading: set[subprocess.Popen[str]] = set()  # running their seed corpus
        self._cut: dict[subprocess.Popen[str], float] = {}  # stopped at a slice end, when

    def remaining(self) -> float:
        return 0.0 if self.stopped_at is not None else self.deadline - time.monotonic()

    def start(self, cmd: list[str], env: dict[str, str], *,
              until: float | None = None) -> subprocess.Popen[str] | None:
        """Start ``cmd``, or None once the campaign is stopping. Called from the slot's
        thread, which waits for the process: ``PR_SET_PDEATHSIG`` fires when the
        *thread* that started a process ends, not only the whole campaign. ``until``:
        the end of its slice, which applies while it loads its corpus (module
        docstring)."""
        with self._lock:
            if self.stopped_at is not None:
                return None
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    stdin=subprocess.DEVNULL, env=env, text=True,
                                    errors="replace", start_new_session=True)
            self._live.add(proc)
            if until is not None:
                self._until[proc] = until
            return proc

    def loading(self, proc: subprocess.Popen[str]) -> None:
        """``proc`` has begun to run its seed corpus (libFuzzer: ``N files found``)."""
        with self._lock:
            if proc in self._live:
                self._loading.add(proc)

    def loaded(self, proc: subprocess.Popen[str]) -> None:
        """``proc`` has run its whole seed corpus (libFuzzer's ``INITED``): from here
        its own ``-max_total_time`` ends it."""
        with self._lock:
            self._loading.discard(proc)
            self._until.pop(proc, None)

    def finished(self, proc: subprocess.Popen[str]) -> bool:
        """Forget ``proc`` (it has exited); True if this supervisor stopped it."""
        with self._lock:
            self._live.discard(proc)
            self._loading.discard(proc)
            self._until.pop(proc, None)
            self._cut.pop(proc, None)
            return proc.pid in self._stopped

    def stop(self, signum: int | None = None) -> None:
        """No new process; SIGTERM to the running ones (libFuzzer exits at once)."""
        with self._lock:
            if signum is not None and self.stop_signal is None:
                self.stop_signal = signum
            if self.stopped_at is None:
                self.stopped_at = time.monotonic()
            self._signal_all(signal.SIGTERM)

    def kill(self) -> None:
        with self._lock:
            self._signal_all(signal.SIGKILL)

    def _signal_all(self, signum: int) -> None:
        for proc in self._live:
            self._stopped.add(proc.pid)
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signum)

    def tick(self) -> None:
        """Enforce the deadline, and the slice ends of processes still loading their
        corpus: called by the main thread a few times a second."""
        now = time.monotonic()
        if self.stopped_at is None and now >= self.deadline + DEADLINE_GRACE:
            self.stop()
        elif self.stopped_at is not None and now >= self.stopped_at + KILL_AFTER:
            self.kill()
        with self._lock:
            for proc in list(self._loading):
                until = self._until.get(proc)
                if until is not None and proc not in self._cut and \
                        now >= until + DEADLINE_GRACE:
                    self._cut[proc] = now
                    self._stopped.add(proc.pid)
                    with contextlib.suppress(ProcessLookupError):
                        proc.send_signal(signal.SIGTERM)
            for proc, when in self._cut.items():
                if now >= when + KILL_AFTER and proc.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        proc.send_signal(signal.SIGKILL)


#: What a campaign does on these signals: stop (see the module docstring).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def stop_on_signals(supervisor: Supervisor) -> Iterator[None]:
    """SIGINT/SIGTERM/SIGHUP stop the campaign (a second one kills the processes at
    once). Handlers can only be set from the main thread; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, _frame: object) -> None:
        if supervisor.stopped_at is not None and supervisor.stop_signal is not None:
            supervisor.kill()
        supervisor.stop(signum)

    previous = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)

