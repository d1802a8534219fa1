"""``pctfuzz coverage``: replay the corpus under coverage.py (branch coverage).

The replay runs in a child ``python -m coverage run`` so that pctfuzz's own import is
measured too (code imported before coverage starts would count as missed).
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile
from pathlib import Path

from ..cli import EXIT_OK
from ..errors import PctfuzzError


def replay_corpus(names: list[str], corpus: Path, impl_name: str) -> int:
    """Run every corpus input of ``names`` through its target; returns the input count."""
    from ..oracles import get_impl
    from ..targets import get_target

    impl = get_impl(impl_name)
    count = 0
    for target in map(get_target, names):
        folder = corpus / target.name
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if not path.is_file() or path.is_symlink() or path.name.startswith("."):
                continue
            count += 1
            # A failing input still covers code; `pctfuzz replay` reports failures.
            with contextlib.suppress(Exception):
                target.run_bytes(path.read_bytes(), impl)
    return count


def _cmd_coverage(args: argparse.Namespace) -> int:
    import coverage

    from ..targets import TARGETS, get_target

    names = args.targets or list(TARGETS)
    for name in names:
        get_target(name)
    with tempfile.TemporaryDirectory(prefix="pctfuzz-cov-") as tmp:
        data_file = Path(tmp) / ".coverage"
        child = subprocess.run(
            [sys.executable, "-m", "coverage", "run", "--branch", "--source=pctfuzz",
             f"--data-file={data_file}", "-m", "pctfuzz.commands.coverage",
             args.corpus, args.impl, *names],
            capture_output=True, text=True, check=False)
        if child.returncode != 0:
            raise PctfuzzError(f"coverage replay failed: {child.stderr.strip()[-500:]}")
        cov = coverage.Coverage(data_file=str(data_file))
        cov.load()
        with open(Path(tmp) / "report.txt", "w") as sink:
            total = cov.report(file=sink)
        cov.html_report(directory=args.html)
    print(child.stdout.strip())
    print(f"src/pctfuzz branch coverage: {total:.1f}%  (HTML report: {args.html}/index.html)")
    return EXIT_OK


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser("coverage", help="replay the corpus under coverage.py")
    cmd.add_argument("targets", nargs="*", metavar="TARGET", help="default: all targets")
    cmd.add_argument("--corpus", default="corpus", metavar="DIR")
    cmd.add_argument("--impl", default="urllib", metavar="NAME")
    cmd.add_argument("--html", default="htmlcov", metavar="DIR")
    cmd.set_defaults(func=_cmd_coverage)


if __name__ == "__main__":  # the child process of _cmd_coverage
    corpus_arg, impl_arg, *target_args = sys.argv[1:]
    n = replay_corpus(target_args, Path(corpus_arg), impl_arg)
    print(f"replayed {n} corpus inputs of {len(target_args)} target(s)")
