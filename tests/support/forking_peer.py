"""A pctfuzz-peer that forks a grandchild which outlives it (issue 33, item 18).

``--impl forking_peer:ForkingPeer`` (or ``forking_peer:SetsidPeer``, whose grandchild
calls ``setsid`` and so leaves the peer's process group) with ``tests/support`` on
``PYTHONPATH``. Run as a script, it is the peer: it forks a grandchild that appends
its pid to the file named by ``PCTFUZZ_TEST_GRANDCHILDREN`` (if set) and sleeps for
an hour, then answers like urllib's ``quote(value, safe="")``, except ``"boom"``,
which raises (a crash finding to replay). ``forking_peer:DyingPeer`` forks nothing
and exits on its fourth request, whatever it is: a failure of the peer, no input's.
``forking_peer:VanishingPeer`` does the same, but once it has exited it cannot be
started again (the file named by ``PCTFUZZ_TEST_VANISHED`` says so): the peer is
unavailable in the middle of a run.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.parse
from types import MappingProxyType

from pctfuzz._internal.oracles.process import ProcessAdapter


class ForkingPeer(ProcessAdapter):
    """Its peer leaves a grandchild in its process group."""

    name = "forking-peer"
    peer_impl = "forking-peer"
    command = (sys.executable, __file__, "group")


class DyingPeer(ProcessAdapter):
    """Its peer forks nothing, and exits after every third request, whatever it is.
    It declares what it answers (str values in UTF-8 with the component set, space
    as %20), so every case a campaign or matrix draws for it is a request."""

    name = "dying-peer"
    peer_impl = "dying-peer"
    command = (sys.executable, __file__, "dies")
    sets = MappingProxyType({"quote": "component"})
    encodings = ("UTF-8",)
    value_types = ("str",)
    spaces = (False,)


class VanishingPeer(DyingPeer):
    """Its peer exits on its fourth request, and no peer starts after that."""

    name = "vanishing-peer"
    peer_impl = "vanishing-peer"
    command = (sys.executable, __file__, "vanishes")


class SetsidPeer(ProcessAdapter):
    """Its peer leaves a grandchild in a session of its own."""

    name = "setsid-peer"
    peer_impl = "setsid-peer"
    command = (sys.executable, __file__, "setsid")


def _grandchild(setsid: bool) -> None:
    # The peer goes on once the grandchild has recorded itself (an event, not a race:
    # a peer closed at once used to kill the grandchild before it wrote its pid).
    recorded, done = os.pipe()
    if os.fork() == 0:
        os.close(recorded)
        if setsid:
            os.setsid()
        record = os.environ.get("PCTFUZZ_TEST_GRANDCHILDREN")
        if record:
            with open(record, "a") as file:
                file.write(f"{os.getpid()}\n")
        os.write(done, b"1")
        os.close(done)
        for fd in (0, 1, 2):  # never holds the peer's pipes open
            os.close(fd)
        time.sleep(3600)
        os._exit(0)
    os.close(done)
    os.read(recorded, 1)
    os.close(recorded)


def _serve(mode: str) -> None:
    vanished = os.environ.get("PCTFUZZ_TEST_VANISHED", "")
    if mode == "vanishes" and vanished and os.path.exists(vanished):
        sys.exit("gone for good")  # before the handshake: the restart fails
    if mode not in ("dies", "vanishes"):
        _grandchild(mode == "setsid")
    sys.stdin.readline()
    name = {"setsid": "setsid-peer", "dies": "dying-peer",
            "vanishes": "vanishing-peer"}.get(mode, "forking-peer")
    impls = {name: {"version": "0", "questions": ["encode"], "sets": ["component"]}}
    print(json.dumps({"protocol": "pctfuzz-peer", "version": 1, "peer": "forking",
                      "runtime": "python", "implementations": impls}), flush=True)
    for count, line in enumerate(sys.stdin, 1):
        if mode in ("dies", "vanishes") and count > 3:
            if mode == "vanishes" and vanished:
                open(vanished, "w").close()
            os._exit(7)
        request = json.loads(line)
        value = request["value"]
        if not isinstance(value, str) or any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            answer = {"unsupported": "strings of scalar values only"}
        elif value == "boom":
            answer = {"error": {"type": "Boom", "message": "boom"}}
        else:
            answer = {"ok": urllib.parse.quote(value, safe="")}
        print(json.dumps({"id": request["id"], **answer}), flush=True)


if __name__ == "__main__":
    _serve(sys.argv[1])
