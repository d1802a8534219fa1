"""A pctfuzz-peer that hangs at 100% CPU on its first request (issue 23, item 2).

``--impl hung_peer:HungPeer`` with ``tests/support`` on ``PYTHONPATH``. Run as a
script, it is the peer itself: it answers the handshake, then spins forever without
reading stdin again, so only a parent-death signal or a kill ends it.
"""

from __future__ import annotations

import json
import sys

from pctfuzz._internal.oracles.process import ProcessAdapter


class HungPeer(ProcessAdapter):
    """Encodes nothing: its peer never answers a request."""

    name = "hung-peer"
    peer_impl = "hung-peer"
    command = (sys.executable, __file__)


def _serve() -> None:
    sys.stdin.readline()
    impls = {"hung-peer": {"version": "0", "questions": ["encode", "decode", "form_serialize",
                                                         "form_parse"]}}
    print(json.dumps({"protocol": "pctfuzz-peer", "version": 1, "peer": "hung",
                      "runtime": "python", "implementations": impls}), flush=True)
    sys.stdin.readline()
    while True:  # hung inside a request, at full CPU
        pass


if __name__ == "__main__":
    _serve()
