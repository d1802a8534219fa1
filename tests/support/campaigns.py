"""Run a real campaign until an event, never for a fixed time (issue 23, item 16).

A test that needs a campaign to find something, or to run some executions, starts it
with a generous ``--max-time`` cap, watches for the event (a finding saved, a status
line with enough executions) and then stops it with SIGINT: the campaign then ends as
a stopped one (its summary and result files written; exit 1 with a new finding, 130
without, 3 if something was lost). On a loaded machine this takes longer, never fails.
The cap is a safety net against a hang, not a time budget.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["CAP", "Watched", "execs_at_least", "finding_saved", "harness_said", "run_until",
           "wait_until"]

#: Seconds before a campaign that never shows its event is given up (a hang).
CAP = 600


def finding_saved(findings: Path, count: int = 1) -> Callable[[str], bool]:
    """The event: at least ``count`` finding records in ``findings``."""
    return lambda _output: len(list(findings.glob("*.json"))) >= count


def harness_said(tmpdir: Path, pattern: str) -> Callable[[str], bool]:
    """The event: a harness wrote a line matching ``pattern`` (a regex) to its libFuzzer
    log. Needs ``-v`` and ``TMPDIR=tmpdir`` (``-v`` keeps the logs in a
    ``pctfuzz-logs-*`` folder there): what a harness says is not shown live otherwise
    (a lost finding, for instance, only in the summary)."""
    regex = re.compile(pattern, re.M)

    def seen(_output: str) -> bool:
        for log in tmpdir.glob("pctfuzz-logs-*/*.log"):
            try:
                if regex.search(log.read_text(errors="replace")):
                    return True
            except OSError:
                continue
        return False

    return seen


def execs_at_least(count: int, target: str | None = None, *, corpus: int = 0,
                   cov: int = 0) -> Callable[[str], bool]:
    """The event: a status line (``PlainStatus``) of ``target`` shows at least
    ``count`` executions, ``corpus`` corpus units and ``cov`` coverage edges."""
    name = re.escape(target) if target else r"[\w-]+"
    pattern = re.compile(rf"\[{name}\] \S+ execs=(\d+) exec/s=\d+ cov=(\d+)\S* .*?"
                         r"corpus=(\d+)")

    def seen(output: str) -> bool:
        return any(int(e) >= count and int(c) >= cov and int(u) >= corpus
                   for e, c, u in pattern.findall(output))

    return seen


def wait_until(predicate: Callable[[], bool], what: str, cap: float = CAP) -> None:
    """Poll ``predicate`` until true; ``cap`` is a safety net against a hang, not a time
    budget: past it, an ``AssertionError`` says which event (``what``) never came."""
    end = time.monotonic() + cap
    while not predicate():
        assert time.monotonic() < end, f"no {what} within {cap:.0f} s (a hang?)"
        time.sleep(0.1)


class Watched:
    """A running process whose stdout and stderr are read as they come, so a test can
    wait for what it prints (``wait_for``) and still get everything at the end."""

    def __init__(self, command: Sequence[str], *, cwd: Path,
                 env: dict[str, str] | None = None, new_session: bool = False) -> None:
        """``new_session``: the process leads a process group of its own, for a signal
        to the whole group (``os.killpg``), as ^C sends it to make and its children."""
        self.command = list(command)
        self.proc = subprocess.Popen(self.command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, errors="replace",
                                     start_new_session=new_session)
        self.out: list[str] = []
        self.err: list[str] = []
        self.pumps = [threading.Thread(target=self._pump, args=(self.proc.stdout, self.out),
                                       daemon=True),
                      threading.Thread(target=self._pump, args=(self.proc.stderr, self.err),
                                       daemon=True)]
        for thread in self.pumps:
            thread.start()

    @staticmethod
    def _pump(stream: object, into: list[str]) -> None:
        for line in stream:  # type: ignore[attr-defined]
            into.append(line)

    def output(self) -> str:
        """stdout and stderr so far."""
        return "".join(self.out) + "".join(self.err)

    def wait_for(self, event: Callable[[str], bool], what: str, cap: float = CAP) -> None:
        """Until ``event`` (given the output so far) is true; an ``AssertionError``
        naming ``what`` if the process ends first or ``cap`` seconds pass (a hang)."""
        end = time.monotonic() + cap
        while not event(self.output()):
            if self.proc.poll() is not None:
                time.sleep(0.2)  # the pumps' last lines
                if event(self.output()):
                    return
                raise AssertionError(f"the process ended (exit {self.proc.returncode}) "
                                     f"before {what}:\n{self.output()[-3000:]}")
            if time.monotonic() > end:
                raise AssertionError(f"no {what} within {cap:.0f} s (a hang?):\n"
                                     f"{self.output()[-3000:]}")
            time.sleep(0.1)

    def finish(self, cap: float = 300) -> subprocess.CompletedProcess[str]:
        """Wait for the end (killed after ``cap`` s: a hang) and return everything."""
        try:
            self.proc.wait(timeout=cap)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        for thread in self.pumps:
            thread.join(timeout=30)
        return subprocess.CompletedProcess(self.command, self.proc.returncode,
                                           "".join(self.out), "".join(self.err))


def run_until(args: Sequence[str], until: Callable[[str], bool], *, cwd: Path,
              env: dict[str, str] | None = None, cap: float = CAP
              ) -> subprocess.CompletedProcess[str]:
    """``python -m pctfuzz fuzz ARGS --max-time CAP``, stopped by SIGINT once ``until``
    (given the output so far) is true. The campaign's own end (exit) also ends the
    wait. Returns the completed process with its whole output."""
    command = [sys.executable, "-m", "pctfuzz", "fuzz", "--max-time", str(int(cap)), *args]
    watched = Watched(command, cwd=cwd, env=env)
    try:
        end = time.monotonic() + cap + 60
        while watched.proc.poll() is None and time.monotonic() < end:
            if until(watched.output()):
                watched.proc.send_signal(signal.SIGINT)
                break
            time.sleep(0.1)
    finally:
        result = watched.finish(120)
    return result


def pctfuzz_env(*paths: Path) -> dict[str, str]:
    """os.environ with ``paths`` in front of PYTHONPATH."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        [*map(str, paths), os.environ.get("PYTHONPATH", "")]))
