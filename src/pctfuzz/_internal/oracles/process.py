"""Implementations in other languages, behind the pctfuzz-peer line protocol, version 1.

The protocol (docs/protocol.md) is JSON over a child process's stdin/stdout, one
request and one answer per line, in order:

1. **Handshake.** pctfuzz writes ``{"protocol": "pctfuzz-peer", "version": 1}``; the
   peer answers ``{"protocol": "pctfuzz-peer", "version": 1, "peer": NAME, "runtime":
   TEXT, "implementations": {IMPL: {"version": V, "questions": [...], "sets": [...]}
   or {"unavailable": REASON}}}``; ``sets`` (optional) lists the set names ``encode``
   may answer, so other sets are ``Unsupported`` without a round trip.
2. **Requests**, one per case: ``{"id": N, "impl": IMPL, "q": QUESTION, ...}`` where
   QUESTION is one of the adapter's four (``pctfuzz._internal.oracles``):
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
- ``PeerDied``: the peer exited while a request was outstanding, and a fresh peer
  exited on the same request too; exit status and the last line of its stderr are in
  the message. A peer that died since its last answer, or once on an input a fresh
  peer then answers, or that wrote a line outside a request, is the peer's failure
  (``peer_failures``, a ``pctfuzz: PEER FAILED`` line: a campaign ends incomplete),
  never blamed on the input. ``PeerTimeout``: no answer within
  ``timeout`` seconds (``PCTFUZZ_PEER_TIMEOUT``, default 10), and the peer is killed;
  the request is asked once more of a fresh peer, and only if that one times out too
  is ``PeerTimeout`` raised (one timeout that a fresh peer then answers is the peer's
  failure, ``peer_failures``, like a single death);
  ``PeerProtocolError``: an answer that is not JSON, has the wrong shape or id, or a
  handshake of another protocol or version. A line that is not this request's answer
  (not JSON, another id, a line written before the request was sent, a second line
  after the answer) is never compared: the peer is restarted and the request sent
  once more; only a second mismatch is a ``PeerProtocolError`` (one that a fresh peer
  then answers is the peer's failure, ``peer_failures``). Ids grow by an
  unpredictable step, so a stray line cannot carry the id of the next request.

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
import json
import os
import random
import sys
from collections.abc import Sequence
from typing import Any

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.oracles.base import Adapter, Unsupported
from pctfuzz._internal.oracles.peer import (
    DEFAULT_TIMEOUT,
    PROTOCOL,
    PROTOCOL_VERSION,
    PeerDied,
    PeerError,
    PeerProtocolError,
    PeerTimeout,
    PeerUnavailable,
    RemoteError,
    _encoding_name,
    _Peer,
    _text,
    _value,
    remote_error_type,
)
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.text import one_line

__all__ = [
    "PROTOCOL",
    "PROTOCOL_VERSION",
    "PeerDied",
    "PeerError",
    "PeerProtocolError",
    "PeerTimeout",
    "PeerUnavailable",
    "ProcessAdapter",
    "RemoteError",
    "remote_error_type",
]


class ProcessAdapter(Adapter):
    """An implementation answered by a peer process over the pctfuzz-peer protocol.

    Subclass and set ``name``, ``command`` (argv of the peer) and ``peer_impl`` (the
    implementation name the peer knows), or pass them to the constructor. The peer is
    started and the handshake done when the adapter is made; ``PeerUnavailable`` then
    says why it cannot be used.
    """

    name = "process"
    #: Its library runs in the peer process: no Python line of it for a campaign to
    #: trace (``fuzz.undertest``); every peer campaign warned that its adapter's module
    #: "cannot be traced".
    in_process = False
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
        #: Failures of the peer no input was blamed for (``request``).
        self.peer_failures: list[str] = []
        self._last_good: tuple[str, dict[str, Any]] | None = None
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
        """Ask the peer one question; its ``ok`` value, or raise (module docstring).

        A failure is blamed on this input only if a fresh peer fails on it again: a
        peer that died since its last answer, died once while this input was out, or
        wrote a line nobody asked for is the peer's failure (``peer_failures``, one
        ``pctfuzz: PEER FAILED`` line), and the input is asked again."""
        peer = self._peer
        if peer is not None and peer.pid != os.getpid():
            peer = self._peer = None  # forked: the parent's peer is not ours to use
        if peer is not None and peer.proc.poll() is not None:
            # Died since its last answer: no input was out, so none is blamed.
            self._peer = None
            error = peer.died()
            peer.close()
            self._peer_failed(f"{error} (since its last answer)")
        try:
            return self._ask(self._running(), question, fields)
        except _Unsolicited as exc:
            # Lines outside a request: the peer's fault, whatever the input.
            self._peer_failed(str(exc))
            return self._again(question, fields, exc, unsolicited=True)
        except _Mismatch as exc:
            # A line that is not this request's answer (another id, not JSON): never
            # compared. A fresh peer gets the request once more; if it answers, the
            # line was the peer's failure (a stray line read after the answer it
            # followed, say), not the input's.
            return self._again(question, fields, exc, recovered=True)
        except PeerDied as exc:
            self._peer_failed(str(exc))
            return self._again(question, fields, exc)
        except PeerTimeout as exc:
            # Slow once (a loaded machine, a stall of the peer's runtime): a fresh peer
            # gets the request once more, and only a second timeout is blamed on it.
            return self._again(question, fields, exc, recovered=True)
        except PeerError:
            self.close()
            raise

    def _running(self) -> _Peer:
        """The live peer, started if there is none."""
        if self._peer is None:
            if self._failed is not None:
                raise PeerUnavailable(self._failed)
            try:
                self._start()
            except PeerUnavailable as exc:
                self._failed = f"{exc} (restart after the peer failed)"
                raise PeerUnavailable(self._failed) from None
        assert self._peer is not None
        return self._peer

    def _again(self, question: str, fields: dict[str, Any], first: PeerError, *,
               unsolicited: bool = False, recovered: bool = False) -> Any:
        """The request once more, on a fresh peer: the input is blamed only if that
        one fails on it too. ``recovered``: if the fresh peer answers (if only with a
        refusal or the library's exception), the first failure was the peer's
        (``peer_failures``), not the input's."""
        self.close()
        try:
            answer = self._ask(self._running(), question, fields)
        except PeerTimeout as exc:
            self.close()
            raise PeerTimeout(f"{exc} (again on a fresh peer; first: {first})") from None
        except _Unsolicited as exc:
            self.close()
            self._peer_failed(str(exc))
            # Two fresh peers wrote lines outside their requests: no answer of it can
            # be trusted, and none is this input's fault.
            raise Unsupported(f"{self.name}: its peer writes lines nobody asked for") \
                from None
        except _Mismatch as exc:
            self.close()
            if self._control_fails():
                # A fresh peer fails a question it answered before as well: the
                # peer went wrong, whatever the input.
                self._peer_failed(f"{exc} (also on a question it answered before)")
                raise Unsupported(f"{self.name}: its peer answers out of protocol") \
                    from None
            if unsolicited:
                raise PeerProtocolError(f"{exc} (after a restart)") from None
            raise PeerProtocolError(f"{exc} (again after a restart)") from None
        except PeerDied as exc:
            self.close()
            raise PeerDied(f"{exc} (again on a fresh peer; first: {first})") from None
        except PeerError:
            self.close()
            raise
        except (Unsupported, RemoteError):
            if recovered:  # answered, if only with a refusal or the library's exception
                self._peer_failed(f"{first} (a fresh peer answered the same request)")
            raise
        if recovered:
            self._peer_failed(f"{first} (a fresh peer answered the same request)")
        return answer

    def _control_fails(self) -> bool:
        """A fresh peer fails the last question a peer answered cleanly (none yet:
        False, the input is blamed)."""
        if self._last_good is None:
            return False
        try:
            self._ask(self._running(), *self._last_good)
        except (PeerError, Unsupported, RemoteError):
            self.close()
            return True
        return False

    def _peer_failed(self, message: str) -> None:
        """A failure of the peer that no input is blamed for: kept, and said once
        per kind on stderr (a campaign's harness turns it into an incomplete run)."""
        self.peer_failures.append(message)
        if len(self.peer_failures) <= _SAID_FAILURES:
            print(peer_failed_line(f"{self.name}: {message}"), file=sys.stderr, flush=True)

    def _ask(self, peer: _Peer, question: str, fields: dict[str, Any]) -> Any:
        # Only the request in flight is answered: a line already waiting was written
        # before the peer saw this request, whatever id it carries.
        stray = peer.unsolicited()
        if stray:
            raise _Unsolicited(f"peer wrote a line nobody asked for: {_show(stray)}")
        # Ids never repeat nor go backwards, and grow by an unpredictable step: a
        # stray line cannot carry the id of a request not yet sent.
        self._next_id += _ID_STEP.randrange(1, 1 << 16)
        ident = self._next_id
        message = {"id": ident, "impl": self.peer_impl, "q": question, **fields}
        line = json.dumps(message, ensure_ascii=True, separators=(",", ":"))
        raw = peer.exchange(line.encode("ascii") + b"\n", self.timeout)
        if peer.buffer:  # more than one line for one request: which one is the answer?
            raise _Unsolicited(f"answer to request {ident} came with another line: "
                               f"{_show(peer.buffer)}")
        answer = self._answer(raw, ident)
        self._last_good = (question, fields)  # the control of ``_control_fails``
        return answer

    def _answer(self, raw: bytes, ident: int) -> Any:
        try:
            answer = json.loads(raw)
        except ValueError:
            raise _Mismatch(f"answer is not JSON: {_show(raw)}") from None
        if not isinstance(answer, dict) or answer.get("id") != ident:
            raise _Mismatch(f"answer to request {ident} has another id: {_show(raw)}")
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


_ID_STEP = random.Random()
#: Peer failures said on stderr per adapter (the rest are only counted).
_SAID_FAILURES = 5


def peer_failed_line(message: str) -> str:
    """The line a peer's failure is said in (a campaign's harness reads it from stderr:
    ``fuzz.protocol.PEER_FAILED``); here, below the fuzzing layer that reads it."""
    return f"pctfuzz: PEER FAILED {one_line(message, 500)}"


class _Mismatch(PeerProtocolError):
    """The line read is not the answer to the request sent (not JSON, no or another
    id): the peer's stdout is out of step, so the answer is never compared."""


class _Unsolicited(_Mismatch):
    """A line written outside a request (before it was sent, or after its answer):
    the peer's failure, not the answer of any input."""


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
        raise UsageError(f"PCTFUZZ_PEER_TIMEOUT={text!r}: expected seconds") from None
    if not value > 0:
        raise UsageError(f"PCTFUZZ_PEER_TIMEOUT={text!r}: expected a positive number")
    return value
