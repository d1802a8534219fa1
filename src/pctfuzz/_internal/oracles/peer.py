"""One peer process of the pctfuzz-peer protocol: starting it, the handshake, one
request and one answer per line, and the ways a peer fails (``PeerError``). The
protocol is documented in ``pctfuzz._internal.oracles.process`` and docs/protocol.md."""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import os
import queue
import re
import select
import shutil
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any, ClassVar

from pctfuzz._internal.errors import (
    PctfuzzError,
    PeerDied,
    PeerError,
    PeerProtocolError,
    PeerTimeout,
    PeerUnavailable,
)
from pctfuzz._internal.oracles.base import Unsupported
from pctfuzz._internal.scratch import owned_dir, remove_abandoned

__all__ = [
    "PROTOCOL",
    "PROTOCOL_VERSION",
    "PeerDied",
    "PeerError",
    "PeerProtocolError",
    "PeerTimeout",
    "PeerUnavailable",
    "RemoteError",
    "remote_error_type",
]

PROTOCOL = "pctfuzz-peer"
PROTOCOL_VERSION = 1
DEFAULT_TIMEOUT = 10.0
#: An answer longer than this is garbage, not an answer (the largest case is ~1 MiB).
MAX_LINE = 64 * 1024 * 1024


class RemoteError(PctfuzzError):
    """The implementation raised; subclasses are named after the remote type. It
    stands for the implementation's own exception, so it is defined here, not in
    ``errors`` (with the peer failures): its qualified name is part of the signature of
    a finding where the implementation raised."""

    remote_type: ClassVar[str] = "RemoteError"


_REMOTE_TYPES: dict[str, type[RemoteError]] = {}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_lock = threading.Lock()


def remote_error_type(name: str) -> type[RemoteError]:
    """The ``RemoteError`` subclass for a remote exception type (one class per name, so
    ``Outcome.same`` and finding signatures tell ``URIError`` from ``TypeError``)."""
    if not _IDENTIFIER.fullmatch(name):
        return RemoteError
    with _lock:
        cls = _REMOTE_TYPES.get(name)
        if cls is None:
            cls = type(name, (RemoteError,), {"remote_type": name, "__module__": __name__})
            _REMOTE_TYPES[name] = cls
        return cls


def _astral_split(text: str) -> bool:
    """A high surrogate followed by a low one: one character in UTF-16, two here."""
    return any(
        0xD800 <= ord(a) <= 0xDBFF and 0xDC00 <= ord(b) <= 0xDFFF
        for a, b in itertools.pairwise(text)
    )


def _text(value: str) -> str:
    if _astral_split(value):
        raise Unsupported("a lone high and low surrogate pair is one character in UTF-16")
    return value


def _value(value: str | bytes) -> Any:
    if isinstance(value, bytes):
        import base64

        return {"base64": base64.b64encode(value).decode("ascii")}
    return _text(value)


def _encoding_name(label: str) -> str:
    from pctfuzz._internal import encoding as _encoding

    return _encoding.lookup(label).name


#: The bytes of a peer's stderr kept for error messages (only its last line is shown).
STDERR_TAIL = 4096

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the kernel SIGKILL the peer when the thread that
    started it ends (Linux ``prctl(PR_SET_PDEATHSIG)``: the *thread*, not the process,
    so peers are started by threads that live as long as the process, ``_popen``), and
    exits at once if that parent is already gone. None where there is no ``prctl``: the
    kill on every exit path of the parent and the peer's own watchdog still hold."""
    import ctypes
    import signal

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (AttributeError, OSError):
        return None
    parent = os.getpid()

    def preexec() -> None:  # runs in the child, between fork and exec
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return preexec


#: The thread that starts peers for the threads other than the main one, and the
#: process it belongs to (a forked child starts its own).
_starter: tuple[int, queue.SimpleQueue[_StartJob]] | None = None
_starter_lock = threading.Lock()
_StartJob = tuple[list[str], "dict[str, str] | None", "Future[subprocess.Popen[bytes]]"]


def _start_process(command: list[str], env: dict[str, str] | None
                   ) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        bufsize=0,
        start_new_session=True,  # a Ctrl-C in the terminal is pctfuzz's to handle
        preexec_fn=_die_with_parent(),
    )


def _serve(jobs: queue.SimpleQueue[_StartJob]) -> None:
    while True:
        command, env, done = jobs.get()
        try:
            done.set_result(_start_process(command, env))
        except BaseException as exc:  # handed to the thread that asked
            done.set_exception(exc)


def _popen(command: list[str], env: dict[str, str] | None) -> subprocess.Popen[bytes]:
    """Start a peer from a thread that lives as long as the process: the main thread
    itself, or else one daemon thread kept for it. A peer started by a worker thread
    (a ThreadPoolExecutor, a test runner's thread) would otherwise get its parent-death
    signal when that worker ends, while its user still asks it (issue 23, item 16)."""
    global _starter
    if threading.current_thread() is threading.main_thread():
        return _start_process(command, env)
    with _starter_lock:
        if _starter is None or _starter[0] != os.getpid():
            jobs: queue.SimpleQueue[_StartJob] = queue.SimpleQueue()
            threading.Thread(target=_serve, args=(jobs,), name="pctfuzz-peer-starter",
                             daemon=True).start()
            _starter = (os.getpid(), jobs)
        jobs = _starter[1]
    done: Future[subprocess.Popen[bytes]] = Future()
    jobs.put((command, env, done))
    return done.result()


_live: weakref.WeakSet[_Peer] = weakref.WeakSet()


@atexit.register
def _close_live_peers() -> None:
    """Interpreter exit (a normal end, ``sys.exit``): no peer outlives its user."""
    for peer in list(_live):
        with contextlib.suppress(Exception):
            peer.close()


#: The environment variable that marks a peer and everything it starts (the value
#: is one peer's token): what ``close`` kills, even processes that left the peer's
#: process group (``setsid``) or were orphaned.
TOKEN_ENV = "PCTFUZZ_PEER_TOKEN"


def kill_marked(name: str, value: str) -> None:
    """SIGKILL every process (but this one) whose environment holds ``name=value``:
    the descendants of a peer, wherever they went (Linux ``/proc``; elsewhere only the
    process group is killed). Scanned again until none is left alive, so a child
    forked during a scan is found by the next (at most a few rounds)."""
    import signal

    needle = f"{name}={value}".encode()
    me = os.getpid()
    for _round in range(20):
        try:
            entries = os.listdir("/proc")
        except OSError:
            return
        found = 0
        for entry in entries:
            if not entry.isdigit() or int(entry) == me:
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as file:
                    environ = file.read()  # a zombie's is empty
            except OSError:
                continue
            if needle in environ.split(b"\0"):
                found += 1
                with contextlib.suppress(OSError):
                    os.kill(int(entry), signal.SIGKILL)
        if not found:
            return


#: The prefix of a peer's temporary folder (``scratch.owned_dir``), in the system's.
PEER_TMP = "pctfuzz-peer-"


@functools.cache  # (once per process)
def _remove_abandoned_tmp() -> None:
    """Remove the peers' temporary folders of runs that were killed."""
    remove_abandoned(tempfile.gettempdir(), PEER_TMP)


class _Peer:
    """One running peer process: write a line, read a line, with a deadline.

    Its stderr is a pipe drained whenever pctfuzz waits on the peer, keeping only the
    last ``STDERR_TAIL`` bytes: a chatty peer never fills a disk or blocks. It runs in
    its own process group, and carries a token in its environment (``TOKEN_ENV``),
    inherited by whatever it starts: ``close`` kills them all.

    Its temporary folder (``TMPDIR``, ``TMP``, ``TEMP``) is one of pctfuzz's own
    (``PEER_TMP``), removed by ``close``: a runtime killed at ``close`` never cleans
    its own (R leaves an ``Rtmp*`` folder per process), and nothing may be left
    outside the folders a user gave. A run killed before ``close`` leaves it; the next
    peer started removes it once its owner is gone."""

    def __init__(self, command: Sequence[str], env: dict[str, str] | None) -> None:
        import secrets

        _remove_abandoned_tmp()
        self.token = secrets.token_hex(8)
        self.tmp = owned_dir(PEER_TMP)
        env = {**(os.environ if env is None else env), TOKEN_ENV: self.token,
               **dict.fromkeys(("TMPDIR", "TMP", "TEMP"), str(self.tmp))}
        try:
            self.proc = _popen(list(command), env)
        except OSError as exc:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise PeerUnavailable(f"cannot start {command[0]!r}: {exc.strerror or exc}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        assert self.proc.stderr is not None
        self.stdin = self.proc.stdin
        self.fd = self.proc.stdout.fileno()
        self.in_fd = self.stdin.fileno()
        self.err_fd: int | None = self.proc.stderr.fileno()
        os.set_blocking(self.in_fd, False)
        os.set_blocking(self.err_fd, False)
        self.err_tail = b""
        self.pid = os.getpid()
        self.buffer = b""
        _live.add(self)

    def drain_stderr(self) -> None:
        """Read what the peer wrote to stderr so far, keeping the tail only."""
        while self.err_fd is not None:
            try:
                chunk = os.read(self.err_fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.err_fd = None  # closed: nothing more to select on
                return
            self.err_tail = (self.err_tail + chunk)[-STDERR_TAIL:]

    def stderr_tail(self) -> str:
        self.drain_stderr()
        lines = self.err_tail.decode("utf-8", "replace").strip().splitlines()
        return lines[-1].strip() if lines else ""

    def _wait(self, read: int | None, write: int | None, deadline: float) -> bool:
        """Wait until ``read`` is readable or ``write`` writable, draining stderr
        meanwhile (a peer blocked on a full stderr pipe would never answer); False
        at the deadline."""
        while True:
            remaining = max(0.0, deadline - time.monotonic())
            reads = [fd for fd in (read, self.err_fd) if fd is not None]
            ready = select.select(reads, [write] if write is not None else [], [], remaining)
            if self.err_fd is not None and self.err_fd in ready[0]:
                self.drain_stderr()
            if (read is not None and read in ready[0]) or ready[1]:
                return True
            if remaining <= 0:
                return False

    def died(self) -> PeerDied:
        try:
            code = self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:  # closed its pipes but lives on
            self.proc.kill()
            code = self.proc.wait()
        status = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
        tail = self.stderr_tail()
        return PeerDied(f"peer {status}" + (f": {tail}" if tail else ""))

    def exchange(self, line: bytes, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        view = memoryview(line)
        while view:
            # A peer that stops reading must not block us on a full pipe.
            if not self._wait(None, self.in_fd, deadline):
                self.close()
                raise PeerTimeout(f"peer did not read its request within {timeout:g} s; killed it")
            try:
                written = os.write(self.in_fd, view)
            except BlockingIOError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                raise self.died() from None
            view = view[written:]
        return self.read_line(deadline, timeout)

    def unsolicited(self) -> bytes:
        """What the peer wrote to stdout that no request asked for: read without
        waiting, before a request is sent (an answer always follows its request)."""
        while len(self.buffer) <= MAX_LINE and select.select([self.fd], [], [], 0)[0]:
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                break  # closed: the request finds it dead
            self.buffer += chunk
        return self.buffer

    def read_line(self, deadline: float, timeout: float) -> bytes:
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                line, self.buffer = self.buffer[:newline], self.buffer[newline + 1 :]
                return line
            if len(self.buffer) > MAX_LINE:
                raise PeerProtocolError(f"answer longer than {MAX_LINE} bytes without a newline")
            if not self._wait(self.fd, None, deadline):
                self.close()
                raise PeerTimeout(f"peer did not answer within {timeout:g} s; killed it")
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise self.died()
            self.buffer += chunk

    def close(self) -> None:
        if self.pid != os.getpid():
            return  # a forked child does not own its parent's peer
        _live.discard(self)
        with contextlib.suppress(OSError, ValueError):
            self.stdin.close()
        # The peer and what it started: its process group (it leads one,
        # start_new_session; not reaped yet, so the id is still its own), then
        # whatever carries its token (a grandchild that called setsid, or one
        # orphaned by an earlier death of the peer).
        if self.proc.poll() is None:
            import signal

            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                self.proc.kill()
        with contextlib.suppress(OSError):
            kill_marked(TOKEN_ENV, self.token)
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            self.proc.wait(timeout=5)
        with contextlib.suppress(OSError, ValueError):
            self.drain_stderr()
        for pipe in (self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError, ValueError):
                pipe.close()  # type: ignore[union-attr]
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.err_fd = None
