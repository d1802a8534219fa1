"""The built-in Node.js peers (``pctfuzz/peers/node/peer.js``): Node's own
encodeURIComponent, encodeURI and URLSearchParams, its ``querystring``, and the
whatwg-url npm package, each an adapter over the pctfuzz-peer protocol
(``pctfuzz._internal.oracles.process``; docs/protocol.md)."""

from __future__ import annotations

import os
import shutil
from importlib.resources import files

from pctfuzz._internal.oracles.peer import PeerUnavailable
from pctfuzz._internal.oracles.process import ProcessAdapter

__all__ = ["NodeAdapter", "NodeQuerystringAdapter", "WhatwgUrlAdapter", "node_peer_command"]


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
