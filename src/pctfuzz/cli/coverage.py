"""``pctfuzz coverage``: replay the corpus under coverage.py (branch coverage).

The replay runs in a child ``python -m coverage run`` so that import-time code is
measured too (code imported before coverage starts would count as missed). Two figures
come out: the code under test (the adapter's ``modules_under_test``, for the
differential targets) and the reference (``pctfuzz``'s percent-encoder, form codec,
sets and encoders), apart from each other and from the rest of pctfuzz.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from pctfuzz.cli.args import folder_path
from pctfuzz.cli.exits import EXIT_OK
from pctfuzz.errors import PctfuzzError

#: The reference's own modules: what the invariant targets are about.
REFERENCE_MODULES = ("pctfuzz.reference", "pctfuzz.form", "pctfuzz.sets",
                     "pctfuzz.setspec", "pctfuzz.encoding")


def replay_corpus(names: list[str], corpus: Path, impl_name: str) -> tuple[int, int]:
    """Run every corpus input of ``names`` through its target, each against what its
    target checks (the implementation for a differential target, the reference for
    an invariant one); returns (inputs, inputs that fail)."""
    from pctfuzz.oracles.registry import get_impl
    from pctfuzz.targets import get_target

    impl = get_impl(impl_name)
    count = failing = 0
    for target in map(get_target, names):
        folder = corpus / target.name
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if not path.is_file() or path.is_symlink() or path.name.startswith("."):
                continue
            count += 1
            try:
                target.run_bytes(path.read_bytes(), impl if target.differential else None)
            except Exception:  # a failing input still covers code; counted, not hidden
                failing += 1
    return count, failing


def _modules_under_test(impl_name: str) -> tuple[str, ...]:
    from pctfuzz.fuzz.driver import modules_under_test
    from pctfuzz.oracles.registry import get_impl

    return modules_under_test(get_impl(impl_name))


def _files(cov: object, modules: tuple[str, ...]) -> list[str]:
    """The measured files that belong to ``modules`` (module name prefixes)."""
    import importlib

    wanted = []
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        where = getattr(module, "__file__", None)
        if where:
            base = Path(where)
            wanted.append(str(base.parent / "*") if base.name == "__init__.py" else str(base))
    return wanted


def _cmd_coverage(args: argparse.Namespace) -> int:
    import coverage

    from pctfuzz.targets import TARGETS, get_target

    names = args.targets or list(TARGETS)
    for name in names:
        get_target(name)
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        raise PctfuzzError(f"corpus folder {corpus} does not exist")
    if not any((corpus / name).is_dir() for name in names):
        raise PctfuzzError(f"corpus folder {corpus} has no folder for {', '.join(names)}")
    under_test = _modules_under_test(args.impl) if any(
        get_target(n).differential for n in names) else ()
    with tempfile.TemporaryDirectory(prefix="pctfuzz-cov-") as tmp:
        data_file = Path(tmp) / ".coverage"
        child = subprocess.run(
            [sys.executable, "-m", "coverage", "run", "--branch",
             f"--source={','.join(('pctfuzz', *under_test))}",
             f"--data-file={data_file}", "-m", "pctfuzz.cli.coverage",
             str(corpus), args.impl, *names],
            capture_output=True, text=True, check=False)
        if child.returncode != 0:
            raise PctfuzzError(f"coverage replay failed: {child.stderr.strip()[-500:]}")
        cov = coverage.Coverage(data_file=str(data_file))
        cov.load()
        figures = []
        for label, modules in (("code under test (" + ", ".join(under_test) + ")", under_test),
                               ("reference", REFERENCE_MODULES)):
            include = _files(cov, modules)
            if not include:
                continue
            with open(Path(tmp) / "report.txt", "w") as sink:
                try:
                    figures.append((label, cov.report(file=sink, include=include)))
                except coverage.exceptions.NoDataError:
                    figures.append((label, 0.0))
        cov.html_report(directory=args.html)
    print(child.stdout.strip())
    for label, total in figures:
        print(f"{label}: {total:.1f}% branch coverage")
    print(f"HTML report: {args.html}/index.html")
    return EXIT_OK


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser("coverage", help="replay the corpus under coverage.py")
    cmd.add_argument("targets", nargs="*", metavar="TARGET", help="default: all targets")
    cmd.add_argument("--corpus", type=folder_path, default="corpus", metavar="DIR")
    cmd.add_argument("--impl", default="urllib", metavar="NAME")
    cmd.add_argument("--html", default="htmlcov", metavar="DIR")
    cmd.set_defaults(func=_cmd_coverage)


if __name__ == "__main__":  # the child process of _cmd_coverage
    corpus_arg, impl_arg, *target_args = sys.argv[1:]
    n, bad = replay_corpus(target_args, Path(corpus_arg), impl_arg)
    print(f"replayed {n} corpus inputs of {len(target_args)} target(s); {bad} fail "
          "(`pctfuzz replay` says why)")
