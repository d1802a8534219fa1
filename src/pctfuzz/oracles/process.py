"""Implementations in other languages, behind the pctfuzz-peer line protocol, version 1.

The protocol (docs/protocol.md) is JSON over a child process's stdin/stdout, one
request and one answer per line, in order:

1. **Handshake.** pctfuzz writes ``{"protocol": "pctfuzz-peer", "version": 1}``; the
   peer answers ``{"protocol": "pctfuzz-peer", "version": 1, "peer": NAME, "runtime":
   TEXT, "implementations": {IMPL: {"version": V, "questions": [...], "sets": [...]}
   or {"unavailable": REASON}}}``; ``sets`` (optional) lists the set names ``encode``
   may answer, so other sets are ``Unsupported`` without a round trip.
2. **Requests**, one per case: ``{"id": N, "impl": IMPL, "q": QUESTION, ...}`` where
   QUESTION is one of the adapter's four (``pctfuzz.oracles``):
   ``encode`` (``value``, ``set``: canonical set name, ``encoding``: WHATWG encoding
   name, ``space_as_plus``), ``decode`` (``value``), ``form_serialize`` (``pairs``:
   ``[[name, value], ...]``, ``encoding``), ``form_parse`` (``text``).
3. **Answers**, echoing ``id``: ``{"ok": VALUE}``, ``{"error": {"type": T,
   "message": M}}`` (the implementation raised), ``{"unsupported": REASON}``, or
   ``{"protocol_error": M}`` (the request was malformed).

Values: a str is a JSON string, written with ``ensure_ascii=True``, so a lone
surrogate travels as a ``\\uD800`` escape, which JavaScript's ``JSON.parse`` keeps as a
lone code unit (ECMA-262 25.5.1, JSON.parse; strings are UTF-16 code units, 6.1.4).
bytes are ``{"base64": ...}``. A str holding a high surrogate followed by a low one
cannot travel: in UTF-16 the two *are* one astral character. Such cases are
``Unsupported`` before they are sent.

Failures of the peer itself are ``PeerError``s, never a hang:

- ``PeerUnavailable``: the command cannot start (``node`` not on PATH), the handshake
  fails, or the peer reports the implementation unavailable. Raised when the adapter is
  made (``get_impl``), so the command line prints one line and the rest of pctfuzz
  still runs.
- ``PeerDied``: the peer exited while a request was outstanding, or since its last
  answer (found at the next request); exit status and the last line of its stderr are
  in the message. ``PeerTimeout``: no answer within
  ``timeout`` seconds (``PCTFUZZ_PEER_TIMEOUT``, default 10), and the peer is killed;
  ``PeerProtocolError``: an answer that is not JSON, has the wrong shape or id, or a
  handshake of another protocol or version.

Raised by a question, the differential check records them like any exception of the
implementation: a ``Divergence`` with ``impl_error``, so a finding of kind ``crash``
whose signature names ``PeerDied``/``PeerTimeout``/``PeerProtocolError`` (distinct from
the implementation's own exceptions) and keeps the input that was outstanding. The
next request starts a fresh peer; if that fails, every later request raises
``PeerUnavailable`` (one finding, counted in hits). An exception the implementation
threw is a ``RemoteError`` subclass named after its type (``URIError``), so two
different remote exceptions never share a finding.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from importlib.resources import files
from typing import IO, Any, ClassVar

from pctfuzz.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz.errors import PctfuzzError
from pctfuzz.oracles.base import Adapter, Unsupported
from pctfuzz.sets import get_set

__all__ = [
    "PROTOCOL",
    "PROTOCOL_VERSION",
    "NodeAdapter",
    "NodeQuerystringAdapter",
    "PeerDied",
    "PeerError",
    "PeerProtocolError",
    "PeerTimeout",
    "PeerUnavailable",
    "ProcessAdapter",
    "RemoteError",
    "WhatwgUrlAdapter",
    "node_peer_command",
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


class ProcessAdapter(Adapter):
    """An implementation answered by a peer process over the pctfuzz-peer protocol.

    Subclass and set ``name``, ``command`` (argv of the peer) and ``peer_impl`` (the
    implementation name the peer knows), or pass them to the constructor. The peer is
    started and the handshake done when the adapter is made; ``PeerUnavailable`` then
    says why it cannot be used.
    """

    name = "process"
    command: Sequence[str] = ()
    peer_impl: str = ""
    #: Extra environment for the peer (added to os.environ).
    peer_env: dict[str, str] | None = None

    def __init__(
        self,
        command: Sequence[str] | None = None,
        peer_impl: str | None = None,
        *,
        name: str | None = None,
        timeout: float | None = None,
    ) -> None:
        if command is not None:
            self.command = tuple(command)
        if peer_impl is not None:
            self.peer_impl = peer_impl
        if name is not None:
            self.name = name
        if not self.command:
            raise PeerUnavailable(f"{self.name}: no peer command")
        self.peer_impl = self.peer_impl or self.name
        self.timeout = timeout if timeout is not None else _env_timeout()
        self._peer: _Peer | None = None
        self._next_id = 0
        self._failed: str | None = None
        #: The handshake's answer: {"peer", "runtime", "implementations", ...}.
        self.peer_info: dict[str, Any] = {}
        self._sets: frozenset[str] | None = None
        self._start()

    # --- the process ------------------------------------------------------------------------
    def _environment(self) -> dict[str, str] | None:
        if not self.peer_env:
            return None
        return {**os.environ, **self.peer_env}

    def _start(self) -> None:
        peer = _Peer(self.command, self._environment())
        try:
            hello = json.dumps({"protocol": PROTOCOL, "version": PROTOCOL_VERSION})
            line = peer.exchange(hello.encode("ascii") + b"\n", self.timeout)
            info = self._handshake(line)
        except PeerError as exc:
            peer.close()
            raise PeerUnavailable(f"{self.name}: {exc}") from None
        except BaseException:
            peer.close()
            raise
        self._peer = peer
        self.peer_info = info
        sets = info["implementations"][self.peer_impl].get("sets")
        self._sets = frozenset(sets) if isinstance(sets, list) else None

    def _handshake(self, line: bytes) -> dict[str, Any]:
        try:
            info = json.loads(line)
        except ValueError:
            raise PeerProtocolError(f"handshake answer is not JSON: {_show(line)}") from None
        if not isinstance(info, dict):
            raise PeerProtocolError(f"handshake answer is not an object: {_show(line)}")
        if "protocol_error" in info:
            raise PeerProtocolError(f"peer refused the handshake: {info['protocol_error']}")
        if info.get("protocol") != PROTOCOL or info.get("version") != PROTOCOL_VERSION:
            raise PeerProtocolError(
                f"peer speaks {info.get('protocol')!r} version {info.get('version')!r}, "
                f"not {PROTOCOL!r} version {PROTOCOL_VERSION}"
            )
        impls = info.get("implementations")
        own = impls.get(self.peer_impl) if isinstance(impls, dict) else None
        if not isinstance(own, dict):
            raise PeerProtocolError(f"peer does not offer {self.peer_impl!r}")
        if "unavailable" in own:
            raise PeerUnavailable(f"not available: {own['unavailable']}")
        return info

    @property
    def version(self) -> str:
        """The implementation's version, as the peer reported it."""
        impls = self.peer_info.get("implementations", {})
        return str(impls.get(self.peer_impl, {}).get("version", ""))

    def close(self) -> None:
        """Stop the peer (a later request starts a new one)."""
        peer, self._peer = self._peer, None
        if peer is not None:
            peer.close()

    def __del__(self) -> None:
        try:  # noqa: SIM105 - contextlib may be gone at interpreter exit
            self.close()
        except Exception:
            pass

    # --- one request --------------------------------------------------------------------------
    def request(self, question: str, fields: dict[str, Any]) -> Any:
        """Ask the peer one question; its ``ok`` value, or raise (module docstring)."""
        peer = self._peer
        if peer is not None and peer.pid != os.getpid():
            peer = self._peer = None  # forked: the parent's peer is not ours to use
        if peer is not None and peer.proc.poll() is not None:
            # Died since its last answer: surfaced on this request, never swallowed.
            self._peer = None
            error = peer.died()
            peer.close()
            raise PeerDied(f"{error} (since its last answer)")
        if peer is None:
            if self._failed is not None:
                raise PeerUnavailable(self._failed)
            try:
                self._start()
            except PeerUnavailable as exc:
                self._failed = f"{exc} (restart after the peer failed)"
                raise PeerUnavailable(self._failed) from None
            peer = self._peer
            assert peer is not None
        self._next_id += 1
        ident = self._next_id
        message = {"id": ident, "impl": self.peer_impl, "q": question, **fields}
        line = json.dumps(message, ensure_ascii=True, separators=(",", ":"))
        try:
            raw = peer.exchange(line.encode("ascii") + b"\n", self.timeout)
            return self._answer(raw, ident)
        except PeerError:
            self.close()
            raise

    def _answer(self, raw: bytes, ident: int) -> Any:
        try:
            answer = json.loads(raw)
        except ValueError:
            raise PeerProtocolError(f"answer is not JSON: {_show(raw)}") from None
        if not isinstance(answer, dict) or answer.get("id") != ident:
            raise PeerProtocolError(f"answer to request {ident} has the wrong shape: {_show(raw)}")
        keys = answer.keys() - {"id"}
        if keys == {"ok"}:
            return answer["ok"]
        if keys == {"unsupported"} and isinstance(answer["unsupported"], str):
            raise Unsupported(answer["unsupported"])
        if keys == {"error"} and isinstance(answer["error"], dict):
            error = answer["error"]
            kind, text = error.get("type"), error.get("message")
            if isinstance(kind, str) and isinstance(text, str):
                raise remote_error_type(kind)(text)
        if keys == {"protocol_error"}:
            raise PeerProtocolError(f"peer refused request {ident}: {answer['protocol_error']}")
        raise PeerProtocolError(f"answer to request {ident} has the wrong shape: {_show(raw)}")

    # --- the four questions ---------------------------------------------------------------------
    def encode(self, case: EncodeCase) -> str:
        set_name = get_set(case.set_name).name
        if self._sets is not None and set_name not in self._sets:
            # Declared in the handshake: no round trip for a set the peer never encodes.
            raise Unsupported(f"{self.name} does not percent-encode with the {set_name} set")
        fields = {
            "value": _value(case.value),
            "set": set_name,
            "encoding": _encoding_name(case.encoding),
            "space_as_plus": case.space_as_plus,
        }
        return _expect_str(self.request("encode", fields), "encode")

    def decode(self, case: DecodeCase) -> bytes:
        import base64
        import binascii

        answer = self.request("decode", {"value": _value(case.value)})
        if isinstance(answer, dict) and isinstance(answer.get("base64"), str):
            with contextlib.suppress(binascii.Error, ValueError):
                return base64.b64decode(answer["base64"], validate=True)
        raise PeerProtocolError(f"decode answered {answer!r:.200}, not {{'base64': ...}}")

    def form_serialize(self, case: FormCase) -> str:
        fields = {
            "pairs": [[_text(n), _text(v)] for n, v in case.pairs],
            "encoding": _encoding_name(case.encoding),
        }
        return _expect_str(self.request("form_serialize", fields), "form_serialize")

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        answer = self.request("form_parse", {"text": _value(case.text)})
        if isinstance(answer, list) and all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
            for p in answer
        ):
            return [(n, v) for n, v in answer]
        raise PeerProtocolError(f"form_parse answered {answer!r:.200}, not [[name, value], ...]")


def _expect_str(answer: Any, question: str) -> str:
    if not isinstance(answer, str):
        raise PeerProtocolError(f"{question} answered {answer!r:.200}, not a string")
    return answer


def _show(raw: bytes) -> str:
    return repr(raw[:120]) + ("..." if len(raw) > 120 else "")


def _env_timeout() -> float:
    text = os.environ.get("PCTFUZZ_PEER_TIMEOUT", "")
    try:
        value = float(text) if text else DEFAULT_TIMEOUT
    except ValueError:
        raise PctfuzzError(f"PCTFUZZ_PEER_TIMEOUT={text!r}: expected seconds") from None
    if not value > 0:
        raise PctfuzzError(f"PCTFUZZ_PEER_TIMEOUT={text!r}: expected a positive number")
    return value


# --- the built-in Node.js peer ------------------------------------------------------------------
def node_peer_command() -> tuple[str, ...]:
    """argv of the bundled Node.js peer (``pctfuzz/peers/node/peer.js``);
    ``PeerUnavailable("not available: node not found")`` without ``node`` on PATH."""
    node = shutil.which("node")
    if node is None:
        raise PeerUnavailable("not available: node not found on PATH (install Node.js)")
    script = files("pctfuzz").joinpath("peers", "node", "peer.js")
    return (node, str(script))


def _node_env() -> dict[str, str] | None:
    """NODE_PATH for ``PCTFUZZ_NODE_MODULES`` (a node_modules folder holding whatwg-url,
    for an install whose package folder is read-only; docs/protocol.md)."""
    modules = os.environ.get("PCTFUZZ_NODE_MODULES")
    if not modules:
        return None
    old = os.environ.get("NODE_PATH")
    return {"NODE_PATH": modules + (os.pathsep + old if old else "")}


class _NodePeerAdapter(ProcessAdapter):
    def __init__(self, *, timeout: float | None = None) -> None:
        self.peer_env = _node_env()
        try:
            command = node_peer_command()
        except PeerUnavailable as exc:
            raise PeerUnavailable(f"{self.name}: {exc}") from None
        super().__init__(command, timeout=timeout)


class NodeAdapter(_NodePeerAdapter):
    """Node.js built-ins: encodeURIComponent, encodeURI, URLSearchParams, decodeURIComponent."""

    name = "node"
    peer_impl = "node"
    registry_names: tuple[str, ...] = ("node",)


class NodeQuerystringAdapter(_NodePeerAdapter):
    """Node.js ``querystring``: escape, unescape, stringify, parse."""

    name = "node-querystring"
    peer_impl = "node-querystring"
    registry_names: tuple[str, ...] = ("node-querystring",)


class WhatwgUrlAdapter(_NodePeerAdapter):
    """The whatwg-url npm package: URL setters, URLSearchParams, percentDecodeString/Bytes."""

    name = "whatwg-url"
    peer_impl = "whatwg-url"
    registry_names: tuple[str, ...] = ("whatwg-url",)
    #: Every argument is a WebIDL USVString: lone surrogates become U+FFFD before the
    #: library sees them (WebIDL 3.2.12), so the answer is the reference's with
    #: surrogates="replace".
    scalar_values = "replace"
