"""``pctfuzz coverage``: replay the corpus under coverage.py (branch coverage).

The replay runs in a child ``python -m coverage run`` so that import-time code is
measured too (code imported before coverage starts would count as missed). Two figures
come out: the code under test (the adapter's ``modules_under_test``, for the
differential targets) and the reference (``pctfuzz``'s percent-encoder, form codec,
sets and encoders), apart from each other and from the rest of pctfuzz, with the
statements each reference module ran.

Each input runs against its target's subject (``targets.resolve_subject``): ``--impl``
for a differential target, the reference for an invariant one. An input that fails
still covers code, so it is counted and named (``FAILS: path: Type: message``), never
hidden. Exit 0 when coverage was measured (failing inputs included), 2 for a usage
error or an unusable corpus or ``--impl``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from pctfuzz._internal.cli.args import folder_path
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.oracles.registry import impl_names
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings
from pctfuzz._internal.targets import TARGETS, get_target
from pctfuzz._internal.text import one_line

#: The reference's own modules: what the invariant targets are about.
REFERENCE_MODULES = ("pctfuzz._internal.reference", "pctfuzz._internal.form",
                     "pctfuzz._internal.sets", "pctfuzz._internal.named_sets",
                     "pctfuzz._internal.setspec", "pctfuzz._internal.encoding")


#: How many failing corpus inputs the child names, one line each, before it counts.
SHOWN_FAILURES = 20


def replay_corpus(names: list[str], corpus: Path, impl_name: str,
                  settings: RunSettings = DEFAULT_SETTINGS) -> tuple[int, int]:
    """Run every corpus input of ``names`` through its target, each against what its
    target checks (``Target.bind``: ``impl_name`` for a differential target, the
    reference for an invariant one; the run's ``settings``); returns (inputs, inputs that fail).

    A failing input still covers code, so the replay goes on, but it is never hidden:
    the first ``SHOWN_FAILURES`` are printed as ``FAILS: path: Type: message``."""
    count = failing = 0
    for target in map(get_target, names):
        folder = corpus / target.name
        if not folder.is_dir():
            continue
        # Resolved once, outside the inputs' loop: an unusable --impl is an error of
        # the whole run, not a failure of every input.
        bound = target.bind(impl_name if target.differential else None, settings)
        for path in sorted(folder.iterdir()):
            if not path.is_file() or path.is_symlink() or path.name.startswith("."):
                continue
            count += 1
            try:
                bound.check(bound.case_from_bytes(path.read_bytes()))
            except Exception as exc:  # a check failure or a crash of the code under test
                failing += 1
                if failing <= SHOWN_FAILURES:
                    print(one_line(f"FAILS: {path}: {type(exc).__name__}: {exc}", 300))
    if failing > SHOWN_FAILURES:
        print(f"FAILS: ... and {failing - SHOWN_FAILURES} more")
    return count, failing


def _modules_under_test(names: list[str], impl_name: str) -> tuple[str, ...]:
    """The adapter's modules, when a differential target is among ``names``."""
    for target in map(get_target, names):
        if target.differential:
            return target.code_under_test(impl_name)
    return ()


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


def _statements_run(cov: Any, modules: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """module -> (statements run, statements) for each plain module of ``modules``."""
    import coverage

    found = {}
    for module in modules:
        run = total = 0
        for pattern in _files(cov, (module,)):
            # A package counts as the sum of its modules (pctfuzz._internal.encoding is four).
            paths = sorted(Path(pattern).parent.glob("*.py")) if pattern.endswith("*") \
                else [Path(pattern)]
            for path in paths:
                try:
                    _name, statements, _excluded, missing, _text = cov.analysis2(str(path))
                except coverage.exceptions.CoverageException:  # not measured: nothing to say
                    continue
                run, total = run + len(statements) - len(missing), total + len(statements)
        if total:
            found[module] = (run, total)
    return found


def _cmd_coverage(args: argparse.Namespace) -> int:
    import coverage

    from pctfuzz._internal.fuzz.staging import recover
    from pctfuzz._internal.project import Project
    from pctfuzz._internal.store import Corpus

    project = Project.load(corpus=args.corpus, impl=args.impl)
    project.activate()
    args.impl = project.impl_name
    names = args.targets or list(TARGETS)
    for name in names:
        get_target(name)
    # as the user gave it, so the inputs it names read as they were given
    corpus = Path(args.corpus) if args.corpus else project.corpus
    if not corpus.is_dir():
        raise PctfuzzError(f"corpus folder {corpus} does not exist")
    recover(Corpus(corpus))  # leftovers of killed runs on this corpus: removed, and said
    if not any((corpus / name).is_dir() for name in names):
        raise PctfuzzError(f"corpus folder {corpus} has no folder for {', '.join(names)}")
    under_test = _modules_under_test(names, args.impl)
    with tempfile.TemporaryDirectory(prefix="pctfuzz-cov-") as tmp:
        data_file = Path(tmp) / ".coverage"
        child = subprocess.run(
            [sys.executable, "-m", "coverage", "run", "--branch",
             f"--source={','.join(('pctfuzz', *under_test))}",
             f"--data-file={data_file}", "-m", "pctfuzz._internal.cli.coverage",
             str(corpus), args.impl, *names],
            capture_output=True, text=True, check=False,
            env=project.handoff().to_env(os.environ))  # the project's root, accept, sets
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
        statements = _statements_run(cov, REFERENCE_MODULES)
        cov.html_report(directory=args.html)
    print(child.stdout.strip())
    for label, total in figures:
        print(f"{label}: {total:.1f}% branch coverage")
    for module, (run, total) in statements.items():
        print(f"  {module}: {run} of {total} statements run")
    print(f"HTML report: {args.html}/index.html")
    return ExitCode.OK


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser("coverage", help="replay the corpus under coverage.py")
    cmd.add_argument("targets", nargs="*", metavar="TARGET", help="default: all targets")
    cmd.add_argument("--corpus", type=folder_path, metavar="DIR",
                     help="default: the project's corpus folder")
    cmd.add_argument("--impl", metavar="NAME",
                     help="the implementation of the diff_* targets: "
                          f"{', '.join(impl_names())} or MOD:CLASS (default: the "
                          "project's, else urllib); "
                          "the invariant targets check the reference")
    cmd.add_argument("--html", default="htmlcov", metavar="DIR")
    cmd.set_defaults(func=_cmd_coverage)


if __name__ == "__main__":  # the child process of _cmd_coverage
    from pctfuzz._internal.fuzz.protocol import HarnessSettings

    handoff = HarnessSettings.from_env(os.environ)  # the parent's hand-off
    handoff.activate()
    corpus_arg, impl_arg, *target_args = sys.argv[1:]
    n, bad = replay_corpus(target_args, Path(corpus_arg), impl_arg, handoff.run_settings)
    print(f"replayed {n} corpus inputs of {len(target_args)} target(s); {bad} fail "
          "(`pctfuzz replay` says why)")
