"""docs/cli.md, rendered from the parser: each command's ``--help``, as printed.

``make docs`` writes the file and ``tests/unit/test_docs.py`` fails when it is stale, so
the reference never drifts from the command line. The width is fixed (``COLUMNS``) so
the text does not depend on the terminal of whoever renders it.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from pathlib import Path

from pctfuzz._internal.cli.main import build_parser

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
WIDTH = "100"

HEAD = """# Command-line reference

Every `pctfuzz` command, with its `--help` exactly as printed (`make docs` renders this
file from the parser; a test fails when it is stale). Exit codes are the same for every
command: see the end of `pctfuzz --help` and [guide.md](guide.md#running-commands).
"""


def _commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield words, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*words, name))


def render() -> str:
    """The whole of docs/cli.md."""
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        parts = [HEAD]
        for words, parser in _commands(build_parser()):
            title = " ".join(("pctfuzz", *words))
            parts.append(f"\n## `{title}`\n\n```\n{parser.format_help().rstrip()}\n```\n")
        return "".join(parts)
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


if __name__ == "__main__":
    DOC.write_text(render(), encoding="utf-8")
