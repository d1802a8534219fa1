"""Peers in other languages (docs/peers.md): the table of peer programs, how each one
is started, and ``LangPeerAdapter``, the base of their adapters.

Each program (``pctfuzz/peers/<lang>/``) answers the pctfuzz-peer protocol
(docs/protocol.md) for a few implementations. ``make peers`` installs the runtimes
from Debian's packages and builds the Go, Java, Haskell, Nim, Qt (C++), GLib (C) and C#
(Mono) peers into the build folder (``PCTFUZZ_PEER_BUILD``, default
``pctfuzz/peers/build``, git-ignored). JavaScript runtimes besides Node.js (Bun, Deno) are
npm packages that ``make peers`` installs into the same folder; they run the Node.js
peer's ``peer.js`` (``pctfuzz._internal.oracles.engines``).

Two things differ from the Node.js peer, and ``LangPeerAdapter`` handles them:

- **Byte strings.** Go, PHP, Ruby, Perl, Lua, Nim, Erlang, Elixir and C (GLib) strings are
  bytes, and their JSON readers turn a lone surrogate escape into U+FFFD or refuse it, so a str with
  a lone surrogate is ``Unsupported`` before it is sent (Java's strings are UTF-16 and
  take it). A bytes value travels as is: these functions take bytes.
- **Decoded text is bytes.** A form parser of such a language returns bytes, and the
  peer answers each name and value as ``{"base64": ...}``; the adapter decodes them as
  the URL Standard's form parser does (5.1 step 3.5: UTF-8 decode without BOM), so the
  comparison is of what the library decoded, not of a JSON writer's repair.

Each adapter declares ``sets`` (label -> set spec, as ``pctfuzz probe`` found them);
the peer's handshake must list the same sets, or the adapter is not made.
"""

from __future__ import annotations

import base64
import binascii
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, ClassVar

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.oracles.base import Unsupported
from pctfuzz._internal.oracles.peer import PeerProtocolError, PeerUnavailable, _value
from pctfuzz._internal.oracles.process import ProcessAdapter
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.text import has_lone_surrogate

__all__ = [
    "PEER_PROGRAMS",
    "LangPeerAdapter",
    "PeerProgram",
    "engine_runtime",
    "peer_build_dir",
    "peer_command",
]

BUILD_ENV = "PCTFUZZ_PEER_BUILD"


def peer_build_dir() -> Path:
    """Where ``make peers`` puts the built peers (``PCTFUZZ_PEER_BUILD`` moves it)."""
    where = os.environ.get(BUILD_ENV)
    return Path(where) if where else Path(str(files("pctfuzz").joinpath("peers", "build")))


def _source(lang: str, name: str) -> str:
    return str(files("pctfuzz").joinpath("peers", lang, name))


def _runtime(executable: str, package: str) -> str:
    found = shutil.which(executable)
    if found is None:
        raise PeerUnavailable(f"{executable} not found on PATH (make peers installs {package})")
    return found


def _go() -> tuple[str, ...]:
    binary = peer_build_dir() / "pctfuzz-go-peer"
    if not binary.is_file():
        why = "not built" if shutil.which("go") else "go not installed and peer not built"
        raise PeerUnavailable(f"the Go peer is {why}: run make peers ({binary})")
    return (str(binary),)


def _java() -> tuple[str, ...]:
    java = _runtime("java", "a JDK")
    classes = peer_build_dir() / "java"
    if not (classes / "Peer.class").is_file():
        raise PeerUnavailable(f"the Java peer is not built: run make peers ({classes})")
    # -Xshare:auto and one compiler thread: the peer is small and starts often.
    return (java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss4m", "-cp", str(classes),
            "Peer")


def _built(binary: str, compiler: str, what: str) -> tuple[str, ...]:
    """A peer that ``make peers`` compiles into the build folder (Haskell, Nim, Qt, GLib)."""
    path = peer_build_dir() / binary
    if not path.is_file():
        why = ("not built" if shutil.which(compiler)
               else f"{compiler} not installed and peer not built")
        raise PeerUnavailable(f"the {what} peer is {why}: run make peers ({path})")
    return (str(path),)


def _haskell() -> tuple[str, ...]:
    return _built("pctfuzz-haskell-peer", "ghc", "Haskell")


def _nim() -> tuple[str, ...]:
    return _built("pctfuzz-nim-peer", "nim", "Nim")


def _qt() -> tuple[str, ...]:
    return _built("pctfuzz-qt-peer", "g++", "Qt")


def _glib() -> tuple[str, ...]:
    return _built("pctfuzz-glib-peer", "gcc", "GLib")


def _csharp() -> tuple[str, ...]:
    mono = _runtime("mono", "mono-complete")
    exe = peer_build_dir() / "csharp" / "Peer.exe"
    if not exe.is_file():
        why = "not built" if shutil.which("mcs") else "mcs not installed and peer not built"
        raise PeerUnavailable(f"the C# peer is {why}: run make peers ({exe})")
    # --debug: an exception's stack trace names its file and line (stderr only).
    return (mono, "--debug", str(exe))


def _php() -> tuple[str, ...]:
    # Warnings to stderr: nothing but answers may reach stdout.
    return (_runtime("php", "php-cli"), "-d", "display_errors=stderr", "-d", "log_errors=0",
            _source("php", "peer.php"))


def _ruby() -> tuple[str, ...]:
    return (_runtime("ruby", "ruby"), "--disable-gems", _source("ruby", "peer.rb"))


def _perl() -> tuple[str, ...]:
    return (_runtime("perl", "perl"), _source("perl", "peer.pl"))


def _lua() -> tuple[str, ...]:
    return (_runtime("lua5.4", "lua5.4 and lua-socket"), _source("lua", "peer.lua"))


def _tcl() -> tuple[str, ...]:
    return (_runtime("tclsh", "tcl and tcllib"), _source("tcl", "peer.tcl"))


def _r() -> tuple[str, ...]:
    # --vanilla: no site or user profile may print to stdout or change the functions.
    return (_runtime("Rscript", "r-base-core and r-cran-jsonlite"), "--vanilla",
            _source("r", "peer.R"))


def _erlang() -> tuple[str, ...]:
    return (_runtime("escript", "erlang-base"), _source("erlang", "peer.erl"))


def _elixir() -> tuple[str, ...]:
    return (_runtime("elixir", "elixir"), _source("elixir", "peer.exs"))


def engine_runtime(executable: str) -> str:
    """A JavaScript runtime besides Node.js (``bun``, ``deno``): the npm package's binary that
    ``make peers`` installs into the build folder (``engines/node_modules/.bin``), else
    one on PATH; ``PeerUnavailable`` when neither is there."""
    local = peer_build_dir() / "engines" / "node_modules" / ".bin" / executable
    if local.is_file():
        return str(local)
    found = shutil.which(executable)
    if found is None:
        raise PeerUnavailable(f"{executable} is not installed: run make peers (npm ci of the "
                              f"{executable} npm package into {local.parents[2]})")
    return found


def _bun() -> tuple[str, ...]:
    # The Node.js peer's own file. --no-install: Bun would fetch a package that a
    # require() misses from the registry (its auto-install); the peer requires none.
    return (engine_runtime("bun"), "--no-install", _source("node", "peer.js"))


def _deno() -> tuple[str, ...]:
    # No permission flag: the peer needs none (no file, network or process access).
    # --cached-only: never fetch a module. The package.json beside peer.js says
    # "type": "commonjs", which Deno needs to give it require().
    return (engine_runtime("deno"), "run", "--no-prompt", "--cached-only",
            _source("node", "peer.js"))


@dataclass(frozen=True)
class PeerProgram:
    """One peer program: its language and the argv that starts it."""

    language: str
    command: Callable[[], tuple[str, ...]]


#: lang -> program. The Node.js peer is ``pctfuzz._internal.oracles.node``.
PEER_PROGRAMS: Mapping[str, PeerProgram] = {
    "go": PeerProgram("Go", _go),
    "java": PeerProgram("Java", _java),
    "php": PeerProgram("PHP", _php),
    "ruby": PeerProgram("Ruby", _ruby),
    "perl": PeerProgram("Perl", _perl),
    "lua": PeerProgram("Lua", _lua),
    "tcl": PeerProgram("Tcl", _tcl),
    "r": PeerProgram("R", _r),
    "haskell": PeerProgram("Haskell", _haskell),
    "nim": PeerProgram("Nim", _nim),
    "qt": PeerProgram("C++", _qt),
    "erlang": PeerProgram("Erlang", _erlang),
    "elixir": PeerProgram("Elixir", _elixir),
    "glib": PeerProgram("C", _glib),
    "csharp": PeerProgram("C#", _csharp),
    "bun": PeerProgram("JavaScript", _bun),
    "deno": PeerProgram("JavaScript", _deno),
}


def peer_command(lang: str) -> tuple[str, ...]:
    """argv of the peer of ``lang``; ``PeerUnavailable`` saying why it cannot start."""
    return PEER_PROGRAMS[lang].command()


def _bytes(item: Any) -> bytes:
    if isinstance(item, dict) and isinstance(item.get("base64"), str):
        try:
            return base64.b64decode(item["base64"], validate=True)
        except (binascii.Error, ValueError):
            pass
    raise PeerProtocolError(f"expected {{'base64': ...}}, got {item!r:.100}")


def _text_of(item: Any) -> str:
    """A name or value a form parser answered: a str, or bytes decoded as URL 5.1 does."""
    if isinstance(item, str):
        return item
    return _bytes(item).decode("utf-8", "replace")


class LangPeerAdapter(ProcessAdapter):
    """An implementation answered by one of the ``PEER_PROGRAMS`` (module docstring)."""

    lang: ClassVar[str] = ""
    #: label -> set spec of each function ``encode`` calls (what ``pctfuzz probe`` found).
    sets: Mapping[str, str] = {}
    #: What campaigns draw for it (``formats.AnswerDomain``).
    encodings: tuple[str, ...] = ("UTF-8",)
    value_types: tuple[str, ...] = ("str", "bytes")
    spaces: tuple[bool, ...] = (False, True)
    #: The runtime's strings are bytes: a lone surrogate cannot reach the library.
    byte_strings: ClassVar[bool] = True

    def __init__(self, *, timeout: float | None = None) -> None:
        self.registry_names = (self.name,)
        try:
            command = peer_command(self.lang)
        except PeerUnavailable as exc:
            raise PeerUnavailable(f"{self.name}: not available: {exc}") from None
        super().__init__(command, timeout=timeout)
        declared = {get_set(spec).name for spec in self.sets.values()}
        offered = set(self._sets or ())
        if declared != offered:
            self.close()
            raise PeerUnavailable(
                f"{self.name}: the peer's sets {sorted(offered)} are not the declared "
                f"{sorted(declared)}"
            )

    @property
    def language(self) -> str:
        return PEER_PROGRAMS[self.lang].language

    def _no_surrogates(self, *texts: str | bytes) -> None:
        if self.byte_strings and any(isinstance(t, str) and has_lone_surrogate(t) for t in texts):
            raise Unsupported(
                f"{self.language} strings are bytes: a lone surrogate cannot reach the library"
            )

    def encode(self, case: EncodeCase) -> str:
        self._no_surrogates(case.value)
        return super().encode(case)

    def decode(self, case: DecodeCase) -> bytes:
        self._no_surrogates(case.value)
        return super().decode(case)

    def form_serialize(self, case: FormCase) -> str:
        self._no_surrogates(*(t for pair in case.pairs for t in pair))
        return super().form_serialize(case)

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        self._no_surrogates(case.text)
        answer = self.request("form_parse", {"text": _value(case.text)})
        if isinstance(answer, list) and all(isinstance(p, list) and len(p) == 2 for p in answer):
            return [(_text_of(n), _text_of(v)) for n, v in answer]
        raise PeerProtocolError(f"form_parse answered {answer!r:.200}, not [[name, value], ...]")
