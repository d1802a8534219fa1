"""One peer process of the pctfuzz-peer protocol: starting it, the handshake, one
request and one answer per line, and the ways a peer fails (``PeerError``). The
protocol is documented in ``pctfuzz.oracles.process`` and docs/protocol.md."""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import select
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import IO, Any, ClassVar

from pctfuzz.errors import PctfuzzError
from pctfuzz.oracles.base import Unsupported

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


class PeerError(PctfuzzError):
    """The peer process failed: it is not the implementation's answer."""


class PeerUnavailable(PeerError):
    """The peer cannot be started or does not offer the implementation."""


class PeerDied(PeerError):
    """The peer exited while a request was outstanding."""


class PeerTimeout(PeerError):
    """The peer did not answer in time; it has been killed."""


class PeerProtocolError(PeerError):
    """The peer answered something that is not a protocol answer."""


class RemoteError(PctfuzzError):
    """The implementation raised; subclasses are named after the remote type."""

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
    from pctfuzz import encoding as _encoding

    return _encoding.lookup(label).name


class _Peer:
    """One running peer process: write a line, read a line, with a deadline."""

    def __init__(self, command: Sequence[str], env: dict[str, str] | None) -> None:
        # A file, not a pipe: a peer writing much to stderr must never block on it.
        self.stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        try:
            self.proc = subprocess.Popen(
                list(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                env=env,
                bufsize=0,
                start_new_session=True,  # a Ctrl-C in the terminal is pctfuzz's to handle
            )
        except OSError as exc:
            self.stderr.close()
            raise PeerUnavailable(f"cannot start {command[0]!r}: {exc.strerror or exc}") from None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin
        self.fd = self.proc.stdout.fileno()
        self.in_fd = self.stdin.fileno()
        os.set_blocking(self.in_fd, False)
        self.pid = os.getpid()
        self.buffer = b""

    def stderr_tail(self) -> str:
        try:
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - 4096))
            lines = self.stderr.read().decode("utf-8", "replace").strip().splitlines()
        except (OSError, ValueError):
            return ""
        return lines[-1].strip() if lines else ""

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
            if not select.select([], [self.in_fd], [], max(0.0, deadline - time.monotonic()))[1]:
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

    def read_line(self, deadline: float, timeout: float) -> bytes:
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                line, self.buffer = self.buffer[:newline], self.buffer[newline + 1 :]
                return line
            if len(self.buffer) > MAX_LINE:
                raise PeerProtocolError(f"answer longer than {MAX_LINE} bytes without a newline")
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
                self.close()
                raise PeerTimeout(f"peer did not answer within {timeout:g} s; killed it")
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise self.died()
            self.buffer += chunk

    def close(self) -> None:
        if self.pid != os.getpid():
            return  # a forked child does not own its parent's peer
        with contextlib.suppress(OSError, ValueError):
            self.stdin.close()
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.kill()
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            self.proc.wait(timeout=5)
        with contextlib.suppress(OSError, ValueError):
            self.proc.stdout.close()  # type: ignore[union-attr]
        self.stderr.close()


