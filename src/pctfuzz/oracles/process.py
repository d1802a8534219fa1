"""Deprecated: ``ProcessAdapter`` is ``pctfuzz.oracles``'s now; the protocol's constants
and the peer's exceptions are no longer public. Each old name still works, with a
``DeprecationWarning``, until pctfuzz 0.2 (docs/api.md, "Old import paths")."""

from __future__ import annotations

from typing import Any

from pctfuzz._internal.deprecation import forward
from pctfuzz._internal.oracles import process as _home

__all__ = ["PROTOCOL", "PROTOCOL_VERSION", "PeerDied", "PeerError",  # noqa: F822
           "PeerProtocolError", "PeerTimeout", "PeerUnavailable", "ProcessAdapter",
           "RemoteError", "remote_error_type"]

_lookup = forward(__name__, dict.fromkeys(__all__, _home),
                  {"ProcessAdapter": "import it from pctfuzz.oracles"})


def __getattr__(name: str) -> Any:
    return _lookup(name)


def __dir__() -> list[str]:
    return sorted(__all__)
