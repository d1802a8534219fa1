"""``pctfuzz divergences``: list the accepted differences between the reference and the
implementations under test (the registry in ``pctfuzz.divergences``)."""

from __future__ import annotations

import argparse
from typing import Any

from ..divergences import case_text, divergences_for, render_markdown
from ..errors import PctfuzzError
from ..oracles import IMPLS, get_impl, registry_names

__all__ = ["add_command"]


def _names_for(impl: str | None) -> list[str] | None:
    """Registry names covering ``impl``: its own and its parent's (``yarl-c`` -> yarl)."""
    if impl is None:
        return None
    if impl in IMPLS:
        try:
            return list(registry_names(get_impl(impl)))
        except PctfuzzError:
            # Not installed: the registry can still be listed by name.
            return [impl]
    known = {d.impl for d in divergences_for()}
    if impl in known:
        return [impl]
    raise PctfuzzError(f"unknown implementation {impl!r}; built-in: {', '.join(IMPLS)}")


def _cmd_divergences(args: argparse.Namespace) -> int:
    names = _names_for(args.impl)
    if args.markdown:
        print(render_markdown(names), end="")
        return 0
    entries = divergences_for(names)
    if not entries:
        print(f"no registered divergences for {args.impl}")
        return 0
    for entry in entries:
        state = "" if entry.active() else "  [inactive: fixed in this Python]"
        print(f"{entry.id}  ({entry.impl}, {entry.check}){state}")
        print(f"  {entry.summary}")
        if args.verbose:
            print(f"  example:        {case_text(entry.example)}")
            print(f"  reference:      {entry.reference}")
            print(f"  implementation: {entry.implementation}")
            print(f"  citation:       {entry.citation}")
            print(f"  why accepted:   {entry.why}")
    return 0


def add_command(subparsers: Any) -> None:
    """Register ``divergences`` on the ``pctfuzz`` subparsers."""
    parser = subparsers.add_parser(
        "divergences",
        help="list accepted differences between the reference and the implementations",
        description="List the divergence registry: every accepted difference between the "
        "reference and an implementation under test, with its citation.",
    )
    parser.add_argument(
        "--impl", metavar="NAME", help=f"only this implementation ({', '.join(IMPLS)})"
    )
    parser.add_argument("--markdown", action="store_true", help="render a Markdown table")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="show example, behaviours and citation"
    )
    parser.set_defaults(func=_cmd_divergences)
