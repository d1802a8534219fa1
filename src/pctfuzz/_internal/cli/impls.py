"""``pctfuzz impls``: the built-in implementations, whether each is installed here, and
the version a finding against it would record (``pctfuzz._internal.oracles``).

Each adapter is made (as ``--impl NAME`` makes it), so an optional library that is not
installed, or a peer whose runtime is missing (``make peers``), shows as not available
with the reason.
Exit codes: 0 the table was printed (whatever is missing); ``--json`` prints it as JSON
(name, language, available, version, description, reason).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass

from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.oracles.base import impl_version
from pctfuzz._internal.oracles.registry import IMPLS, get_impl, impl_description, impl_language
from pctfuzz._internal.text import one_line

__all__ = ["ImplStatus", "add_command", "impl_statuses"]


@dataclass(frozen=True)
class ImplStatus:
    """One built-in implementation as this machine has it."""

    name: str
    language: str
    available: bool
    version: str | None
    description: str
    reason: str | None = None


def impl_statuses() -> list[ImplStatus]:
    """Every built-in implementation, in ``IMPLS`` order (the default first)."""
    statuses = []
    for name in IMPLS:
        description, language = impl_description(name), impl_language(name)
        try:
            impl = get_impl(name)
        except PctfuzzError as exc:  # a missing package or peer: say why, go on
            statuses.append(
                ImplStatus(name, language, False, None, description, one_line(str(exc)))
            )
            continue
        statuses.append(ImplStatus(name, language, True, impl_version(impl), description))
        close = getattr(impl, "close", None)
        if callable(close):  # a peer process: do not leave it running
            close()
    return statuses


def _cmd_impls(args: argparse.Namespace) -> int:
    statuses = impl_statuses()
    if args.json:
        print(json.dumps([asdict(s) for s in statuses], indent=2))
        return ExitCode.OK
    width = max(len(s.name) for s in statuses)
    for s in statuses:
        what = s.version if s.available else f"not available: {s.reason}"
        print(f"{s.name:<{width}}  {s.language:<10}  {what}")
        if args.verbose:
            print(f"{'':<{width}}  {s.description}")
    available = [s for s in statuses if s.available]
    languages = len({s.language for s in available})
    print(f"{len(available)} of {len(statuses)} available, in {languages} languages; "
          "use one with pctfuzz fuzz --impl NAME")
    return ExitCode.OK


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("impls", help="list the built-in implementations and versions")
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also say which functions each one calls")
    parser.set_defaults(func=_cmd_impls)
