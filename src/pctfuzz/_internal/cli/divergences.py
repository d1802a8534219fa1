"""``pctfuzz divergences``: list the accepted differences between the reference and the
implementations under test (the registry in ``pctfuzz._internal.checks.registry``, plus a user
adapter's ``divergences`` and ``--accept FILE``, ``pctfuzz.accept``), and with
``--check`` verify that every pinned example still diverges and is accepted
(``pctfuzz._internal.checks.registry.examples``).

Exit codes: 0 listed / every example checks (or none to check); 1 ``--check`` found an
example that no longer diverges or is not accepted; 2 unknown implementation or unusable
``--accept``.
"""

from __future__ import annotations

import argparse
from typing import Any

from pctfuzz._internal.accept import load_accept_file
from pctfuzz._internal.checks.registry import (
    KnownDivergence,
    accepted_entries,
    case_text,
    divergences_for,
)
from pctfuzz._internal.checks.registry.examples import check_entries
from pctfuzz._internal.checks.registry.render import render_markdown
from pctfuzz._internal.errors import PctfuzzError, UsageError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.oracles.base import Impl, registry_names
from pctfuzz._internal.oracles.registry import IMPLS, get_impl
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings

__all__ = ["add_accept_option", "add_command"]


def _adapter(impl: str | None) -> tuple[list[str] | None, Impl | None]:
    """(registry names covering ``impl``, the adapter if it could be built)."""
    if impl is None:
        return None, None
    if impl in IMPLS or ":" in impl:
        try:
            adapter = get_impl(impl)
        except PctfuzzError:
            if ":" in impl:
                raise
            # Not installed: the registry can still be listed by name.
            return [impl], None
        return list(registry_names(adapter)), adapter
    known = {d.impl for d in divergences_for()}
    if impl in known:
        return [impl], None
    raise UsageError(f"unknown implementation {impl!r}; built-in: {', '.join(IMPLS)}; "
                       "or give an import path package.module:Name")


def _user_entries(adapter: Impl | None, accept: str | None,
                  settings: RunSettings = DEFAULT_SETTINGS) -> list[KnownDivergence]:
    if adapter is not None:
        return list(accepted_entries(adapter, settings))
    return list(load_accept_file(accept)) if accept else []


def _check(names: list[str] | None, adapter: Impl | None,
           user: list[KnownDivergence], settings: RunSettings = DEFAULT_SETTINGS) -> int:
    failed = checked = 0
    builtin = divergences_for(names)
    # A built-in entry's example is pinned on the implementation it was written for.
    for impl in dict.fromkeys(d.impl for d in builtin):
        try:
            own = get_impl(impl)
        except PctfuzzError as exc:
            print(f"{impl}: skipped ({exc})")
            continue
        for result in check_entries(own, [d for d in builtin if d.impl == impl], settings):
            failed += not result.ok
            checked += 1
            print(result.line())
    if user:
        if adapter is None:
            raise UsageError("--check of --accept entries needs --impl (the adapter to run)")
        for result in check_entries(adapter, user, settings):
            failed += not result.ok
            checked += 1
            print(result.line())
    # None checked is no success to claim: an adapter without entries, or whose
    # libraries are not installed, has nothing pinned (exit 0 all the same).
    print(f"{failed} failed" if failed else
          "every pinned example diverges and is accepted" if checked else
          "no pinned examples to check")
    return ExitCode.FOUND if failed else ExitCode.OK


def _cmd_divergences(args: argparse.Namespace) -> int:
    from pctfuzz._internal.project import Project

    project = Project.load(accept=args.accept, impl=args.impl)
    project.activate()
    names, adapter = _adapter(project.impl)
    user = _user_entries(adapter, project.accept_in_force, project.run_settings)
    if args.check:
        return _check(names, adapter, user, project.run_settings)
    if args.markdown:
        print(render_markdown(names), end="")
        return ExitCode.OK
    entries = divergences_for(names) + user
    if not entries:
        print(f"no registered divergences for {project.impl}")
        return ExitCode.OK
    for entry in entries:
        state = "" if entry.active() else "  [inactive: fixed in this Python]"
        print(f"{entry.id}  ({entry.impl or 'the adapter under test'}, {entry.check}){state}")
        print(f"  {entry.summary}")
        if args.verbose:
            print(f"  example:        {case_text(entry.example)}")
            print(f"  reference:      {entry.reference}")
            print(f"  implementation: {entry.implementation}")
            print(f"  citation:       {entry.citation}")
            print(f"  why accepted:   {entry.why}")
    return ExitCode.OK


def add_command(subparsers: Any) -> None:
    """Register ``divergences`` on the ``pctfuzz`` subparsers."""
    parser = subparsers.add_parser(
        "divergences",
        help="list accepted differences between the reference and the implementations",
        description="List the divergence registry: every accepted difference between the "
        "reference and an implementation under test, with its citation. Exit 0: listed, "
        "or every example checks (or there is none to check); 1: --check found an "
        "example that no longer diverges or is not accepted; 2: unknown implementation "
        "or unusable --accept file.",
    )
    parser.add_argument(
        "--impl", metavar="NAME",
        help=f"only this implementation ({', '.join(IMPLS)}, or module:Class; default: "
        "the project's [tool.pctfuzz] impl, else all)",
    )
    add_accept_option(parser)
    parser.add_argument("--check", action="store_true",
                        help="run every pinned example: it must still diverge and be accepted")
    parser.add_argument("--markdown", action="store_true", help="render a Markdown table")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="show example, behaviours and citation"
    )
    parser.set_defaults(func=_cmd_divergences)


def add_no_accepted_option(parser: argparse.ArgumentParser) -> None:
    """``--no-accepted`` (``fuzz``, ``replay``, ``matrix``)."""
    parser.add_argument(
        "--no-accepted", action="store_true",
        help="ignore every accepted difference (the registry's, the adapter's divergences, "
        "the accept file's): see all that differs from the standard; findings are marked "
        "accepted=none and kept apart from normal ones (docs/fuzzing.md)")


def add_accept_option(parser: argparse.ArgumentParser) -> None:
    """``--accept FILE`` (also on ``fuzz`` and ``replay``)."""
    parser.add_argument(
        "--accept", metavar="FILE",
        help="accepted differences of the adapter under test: a TOML file, a .py file or a "
        "module with `divergences` (pctfuzz.accept)",
    )
