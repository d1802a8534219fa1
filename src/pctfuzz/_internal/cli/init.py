"""``pctfuzz init``: pctfuzz set up in the user's project, around the functions named.

It writes, relative to the project root (the folder of the pyproject.toml whose
``[tool.pctfuzz]`` the other commands find; else the current folder):

- ``pyproject.toml``: a ``[tool.pctfuzz]`` table naming the adapter (``impl``), the
  accept file (``accept``) and the store (``corpus``, ``findings`` under ``fuzz/``),
  appended to the file (created if missing), its text kept (``cli.tool_table``);
- ``pctfuzz_adapter.py``: ``function_adapter`` over the functions of ``--encode``,
  ``--decode``, ``--form-serialize`` and ``--form-parse``, or a commented skeleton
  that says what to fill in;
- ``pctfuzz-accept.toml``: the accept file, no entries yet (``pctfuzz accept ID`` adds
  them); one that exists is kept, ``--force`` or not;
- ``tests/test_pctfuzz.py``: a Hypothesis test per function (``pctfuzz.testing``);
- ``.github/workflows/pctfuzz.yml``: a bounded campaign on each push and pull request,
  its SARIF uploaded to code scanning, its findings in the job summary.

The set an ``--encode`` function implements: ``MOD:FN=SET`` names it. Otherwise the
probe (``pctfuzz probe``) finds it: the named set it implements exactly, or its spec,
except where it leaves raw a delimiter that the nearest set encodes (``#`` in a query,
``&`` in a form value): then the nearest set, so that the first campaign reports it (a
delimiter left raw is usually the bug; declaring the spec would hide it). The probe's
verdict is a comment beside the set.

Every name is checked before it reaches a file (``module.path:name`` of identifiers, a
set spec, a requirement of printable characters) and each function is imported, so a
typo is one line now, not at the first campaign. The files are written all or none,
never through a symlink (``cli.project_files``). A project whose table exists, or a
file init writes that exists, is exit 2 with nothing written; ``--force`` writes the
files again and keeps the table as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from pctfuzz import __version__
from pctfuzz._internal.cli.project_files import (
    check_places,
    check_reference,
    project_name,
    project_table,
    write_all,
)
from pctfuzz._internal.cli.tool_table import ACCEPT_FILE, table_text, with_table
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.operations import OPERATIONS
from pctfuzz._internal.text import one_line

__all__ = ["ADAPTER", "TESTS", "WORKFLOW", "add_command"]

#: Where the files go, relative to the root.
ADAPTER = "pctfuzz_adapter.py"
TESTS = "tests/test_pctfuzz.py"
WORKFLOW = ".github/workflows/pctfuzz.yml"
#: The table init writes (relative folders: the workflow names them too).
_CORPUS, _FINDINGS = "fuzz/corpus", "fuzz/findings"
_IMPL = f"{ADAPTER.removesuffix('.py')}:adapter"
#: The campaign of the workflow, in seconds.
_CI_SECONDS = 60
#: A path of the table the workflow may name (a YAML word needing no quoting).
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*")


@dataclass(frozen=True)
class _Function:
    """One function under test: its question, ``module:name``, and for an encoder the
    set declared, whether it writes a space as ``+`` and why (a comment)."""

    role: str  # function_adapter's keyword: encode, decode, form_serialize, form_parse
    module: str
    attr: str
    set_spec: str = ""
    plus: bool = False
    note: str = ""

    @property
    def label(self) -> str:
        return self.attr.rpartition(".")[2]


#: role (the adapter method) -> the question of ``pctfuzz.testing.differential_tests``
_QUESTIONS = {op.method: op.ident for op in OPERATIONS}


def _encoder(text: str) -> _Function:
    """``--encode MOD:FN[=SET]``: checked, imported and probed."""
    from pctfuzz._internal.checks.probe import load_encoder, probe
    from pctfuzz._internal.sets import get_set

    ref, equals, spec = text.partition("=")
    module, attr = check_reference(ref, "--encode")
    if equals:
        get_set(spec)  # UnknownSetError (exit 2) with the character at fault
    fn, _ = load_encoder(ref)
    try:
        report = probe(fn, ref)
    except UsageError:
        if not equals:
            raise
        return _Function("encode", module, attr, spec, note=f"declared: {ref}={spec}")
    plus = report.space == "+"
    found = report.exact or report.spec
    if equals:
        return _Function("encode", module, attr, spec, plus,
                         f"declared with --encode {ref}={spec}; the probe found {found}")
    if report.exact:
        return _Function("encode", module, attr, report.exact, plus,
                         f"the probe found exactly {report.exact}")
    guard = _guarding_set(report.spec, report.distance) if report.delimiters else None
    if guard is not None:
        return _Function("encode", module, attr, guard, plus,
                         f"the probe found {report.spec}: it leaves raw a delimiter that "
                         f"{guard} encodes, so {guard} is declared and the campaign "
                         f"reports it; if that is intended, declare {report.spec}")
    return _Function("encode", module, attr, report.spec, plus,
                     f"the probe found {report.spec} (nearest named set: {report.nearest})")


def _guarding_set(spec: str, distance: int) -> str | None:
    """The first named set at ``distance`` from ``spec`` that encodes a delimiter
    ``spec`` leaves raw (``checks.probe.DELIMITERS``): the probe's nearest set may be
    another one at the same distance (``query-#`` is also ``fragment-```)."""
    from pctfuzz._internal.checks.probe import delimiter_warnings
    from pctfuzz._internal.sets import SETS, get_set

    members = get_set(spec).members
    return next((pes.name for pes in SETS.values()
                 if len(pes.members ^ members) == distance
                 and delimiter_warnings(members, [pes])), None)


def _other(role: str, flag: str, ref: str) -> _Function:
    """``--decode`` and the form functions: checked and imported."""
    from pctfuzz._internal.checks.probe import load_encoder

    module, attr = check_reference(ref, flag)
    load_encoder(ref)  # imports it: a typo is one line now, not at the first campaign
    return _Function(role, module, attr)


def _imports(functions: list[_Function]) -> tuple[list[str], dict[_Function, str]]:
    """The import lines of the adapter, one per module, and the expression of each
    function (a name imported from two modules gets a second name)."""
    names: dict[tuple[str, str], str] = {}
    by_module: dict[str, list[str]] = {}
    used: set[str] = {"function_adapter", "adapter"}
    exprs: dict[_Function, str] = {}
    for fn in functions:
        head, dot, rest = fn.attr.partition(".")
        key = (fn.module, head)
        if key not in names:
            name, counter = head, 2
            while name in used:
                name, counter = f"{head}_{counter}", counter + 1
            used.add(name)
            names[key] = name
            by_module.setdefault(fn.module, []).append(
                head if name == head else f"{head} as {name}")
        exprs[fn] = names[key] + dot + rest
    lines = [f"from {module} import {', '.join(imported)}"
             for module, imported in by_module.items()]
    return lines, exprs


def _adapter_text(name: str, functions: list[_Function]) -> str:
    head = (f'"""The adapter pctfuzz fuzzes for {name} (written by `pctfuzz init`; edit it '
            'freely).\n\n'
            "Each function answers one question of the reference encoder "
            "(docs/adapters.md),\nand a question with no function is not asked:\n"
            "  encode:         str -> str, percent-encoding with one set (sets=)\n"
            "  decode:         str -> bytes or str, percent-decoding\n"
            "  form_serialize: a list of (name, value) pairs -> str "
            "(application/x-www-form-urlencoded)\n"
            "  form_parse:     str -> an iterable of (name, value) pairs\n"
            "A set is a name or a set spec (`pctfuzz sets`); `pctfuzz probe MODULE:FUNCTION` "
            "finds\nwhat an encoder does.\n"
            '"""\n\nfrom pctfuzz.oracles import function_adapter\n')
    if not functions:
        return head + _SKELETON.format(name=_py(name))
    lines, exprs = _imports(functions)
    body = [head, *lines, "", "adapter = function_adapter(", f"    {_py(name)},"]
    encoders = [f for f in functions if f.role == "encode"]
    if len(encoders) == 1:
        (fn,) = encoders
        body += [f"    encode={exprs[fn]},", f"    # {_comment(fn.note)}",
                 f"    sets={{{_py(fn.label)}: {_py(fn.set_spec)}}},"]
        if fn.plus:
            body.append("    space_as_plus=True,  # it writes a space as '+'")
    elif encoders:
        labels = _labels(encoders)
        body.append("    encode={" + ", ".join(f"{_py(labels[f])}: {exprs[f]}" for f in encoders)
                    + "},")
        body.append("    sets={")
        for fn in encoders:
            body += [f"        # {_comment(fn.note)}",
                     f"        {_py(labels[fn])}: {_py(fn.set_spec)},"]
        body.append("    },")
        if any(f.plus for f in encoders):
            body.append("    spaces={" + ", ".join(f"{_py(labels[f])}: {f.plus}" for f in encoders)
                        + "},  # True: it writes a space as '+'")
    body += [f"    {f.role}={exprs[f]}," for f in functions if f.role != "encode"]
    body.append(")")
    return "\n".join(body) + "\n"


def _labels(encoders: list[_Function]) -> dict[_Function, str]:
    """A label per encoder for ``sets=``: its name, numbered when two share one."""
    labels: dict[_Function, str] = {}
    for fn in encoders:
        label, counter = fn.label, 2
        while label in labels.values():
            label, counter = f"{fn.label}_{counter}", counter + 1
        labels[fn] = label
    return labels


def _py(text: str) -> str:
    """``text`` as a Python string literal in double quotes (JSON's escapes are
    Python's)."""
    return json.dumps(text)


def _comment(text: str) -> str:
    """``text`` as one line of a Python comment."""
    return one_line(text, 400).encode("ascii", "backslashreplace").decode("ascii")


_SKELETON = '''
# Name the functions under test (then run `pctfuzz fuzz`), for example:
# from mypkg.urls import quote_value, unquote_value, build_query, parse_query

adapter = function_adapter(
    {name},
    # encode=quote_value,
    # sets={{"quote_value": "component"}},  # the set it must implement
    # space_as_plus=True,                 # if it writes a space as "+"
    # decode=unquote_value,
    # form_serialize=build_query,         # a builder of a dict: wrap it in a function
    #                                     # of pairs that calls build_query(dict(pairs))
    # form_parse=parse_query,
)
'''

_TESTS_TEXT = '''\
"""pctfuzz's differential tests of {name} (written by `pctfuzz init`): each function of
{adapter} against the reference encoder, as Hypothesis tests under this suite's
profile (pctfuzz.testing, docs/api.md), with the accepted differences of {accept}.
With a plain `pytest`, the findings in {findings}/ run as test items too (pctfuzz's
pytest plugin): each fails while it reproduces, until it is fixed or accepted."""

from pctfuzz.testing import differential_tests

# The questions the adapter answers, of "encode", "decode", "form", "form_parse".
QUESTIONS = {questions}
globals().update(differential_tests(questions=QUESTIONS))
'''

_ACCEPT_TEXT = '''\
# Accepted differences of {name} from the URL Standard's percent-encoding (written by
# `pctfuzz init`): what the code under test does differently on purpose, one
# [[divergence]] table each. `pctfuzz accept ID` appends a finding's; the format is
# pctfuzz.accept's (docs/adapters.md). Until an entry is here, every difference is a
# finding.
'''

_WORKFLOW_TEXT = '''\
# pctfuzz for {name} (written by `pctfuzz init`): a {seconds} s campaign on each push and
# pull request against the adapter that [tool.pctfuzz] names. The job fails while an
# open finding reproduces (pctfuzz fuzz exits 1); the findings go to code scanning
# (SARIF), to the job summary, and as an artifact to replay with `pctfuzz replay`.
name: pctfuzz
on:
  push:
  pull_request:
  workflow_dispatch:
permissions:
  contents: read
jobs:
  fuzz:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      security-events: write  # the SARIF upload
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "{python}"
      - name: Install pctfuzz and the project
        run: |
          python -m pip install --upgrade pip
          # pctfuzz is not on PyPI yet: `pctfuzz init --pctfuzz-requirement SPEC` names
          # what to install (a wheel committed to this repository, a git URL).
          python -m pip install {requirement}
          {install}
      - name: Restore the corpus of earlier runs
        uses: actions/cache@v4
        with:
          path: {corpus}
          key: pctfuzz-corpus-${{{{ github.run_id }}}}
          restore-keys: pctfuzz-corpus-
      - name: Fuzz for {seconds} s
        run: pctfuzz fuzz --max-time {seconds} --sarif pctfuzz.sarif
      - name: Upload the findings to code scanning
        if: always()
        # Code scanning needs a public repository or GitHub Advanced Security; the
        # job's verdict is the campaign's.
        continue-on-error: true
        uses: github/codeql-action/upload-sarif@v3
        with:
          sarif_file: pctfuzz.sarif
          category: pctfuzz
      - name: Job summary
        if: always()
        run: pctfuzz report --markdown - >> "$GITHUB_STEP_SUMMARY"
      - name: Keep the findings
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: pctfuzz-findings
          path: {findings}
          if-no-files-found: ignore
'''


def _requirement(spec: str) -> str:
    """``--pctfuzz-requirement`` as one shell word of the workflow's run block:
    printable ASCII without ``$`` (an Actions expression), quotes or backslashes."""
    if not spec or not all(" " <= c <= "~" and c not in "$`'\"\\" for c in spec):
        raise UsageError(f"--pctfuzz-requirement {one_line(repr(spec), 80)}: expected "
                         "printable ASCII without $ ` ' \" \\")
    return shlex.quote(spec)


def _root() -> tuple[Path, Path, bool]:
    """The root, its pyproject.toml and whether that has ``[tool.pctfuzz]``: the
    project's (as every command finds it), else the current folder; ``UsageError`` if a
    pyproject.toml is above the current folder and none here (init would start a
    project inside another one)."""
    from pctfuzz._internal.project import load_config

    config = load_config()
    if config.pyproject is not None:
        return config.root, config.pyproject, True
    here = Path.cwd()
    pyproject = here / "pyproject.toml"
    if not pyproject.is_file():
        above = next((f for f in here.parents if (f / "pyproject.toml").is_file()), None)
        if above is not None:
            raise UsageError(f"{one_line(os.fspath(above / 'pyproject.toml'))} is above this "
                             "folder: run pctfuzz init in the project's root")
    return here, pyproject, False


def _cmd_init(args: argparse.Namespace) -> int:
    requirement = _requirement(args.pctfuzz_requirement)
    root, pyproject, has_table = _root()
    if has_table and not args.force:
        raise UsageError(f"{one_line(os.path.relpath(pyproject))} has [tool.pctfuzz] already; "
                         "nothing written (--force writes the other files again and keeps "
                         "the table)")
    if str(root) not in sys.path:  # the project's modules, as every command has them
        sys.path.insert(0, str(root))
    functions = [_encoder(text) for text in args.encode or ()]
    for role, flag in (("decode", "--decode"), ("form_serialize", "--form-serialize"),
                       ("form_parse", "--form-parse")):
        ref = getattr(args, role)
        if ref is not None:
            functions.append(_other(role, flag, ref))
    table = project_table(pyproject)
    name = project_name(root, table)
    files: dict[Path, str] = {}
    values = {"corpus": _CORPUS, "findings": _FINDINGS}
    if has_table:
        from pctfuzz._internal.project import load_config

        table_values = load_config(root).values
        values = {"corpus": str(table_values.get("corpus", "corpus")),
                  "findings": str(table_values.get("findings", "findings"))}
        for key, value in values.items():
            if not _PLAIN_PATH.fullmatch(value):
                raise UsageError(f"[tool.pctfuzz] {key} {value!r}: the workflow takes a "
                                 "relative path of letters, digits, _ . -")
    else:
        text = pyproject.read_text(encoding="utf-8") if pyproject.is_file() else ""
        files[pyproject] = with_table(text, table_text(
            {"impl": _IMPL, "accept": ACCEPT_FILE, **values},
            {"impl": f"the adapter: {ADAPTER}", "accept": "pctfuzz accept ID adds to it"}),
            pyproject.name)
    files[root / ADAPTER] = _adapter_text(name, functions)
    files[root / TESTS] = _TESTS_TEXT.format(
        name=name, adapter=ADAPTER, accept=ACCEPT_FILE, findings=values["findings"],
        questions=json.dumps(list(dict.fromkeys(_QUESTIONS[f.role] for f in functions))))
    install = ("python -m pip install .  # the project, with its dependencies" if table else
               "# no [project] table in pyproject.toml: the project runs from the checkout")
    files[root / WORKFLOW] = _WORKFLOW_TEXT.format(
        name=name, seconds=_CI_SECONDS, requirement=requirement, install=install,
        python=f"{sys.version_info.major}.{sys.version_info.minor}", **values)
    accept = root / ACCEPT_FILE
    if not os.path.lexists(accept):  # its entries are the user's: never replaced
        files[accept] = _ACCEPT_TEXT.format(name=name)
    check_places(root, files, "pctfuzz init")
    existing = [p for p in files if p != pyproject and os.path.lexists(p)]
    if existing and not args.force:
        raise UsageError(f"{one_line(os.fspath(existing[0].relative_to(root)))} exists; "
                         "nothing written (--force replaces it)")
    write_all(root, files)
    _said(root, pyproject, files, functions, args)
    return ExitCode.OK


def _said(root: Path, pyproject: Path, files: dict[Path, str], functions: list[_Function],
          args: argparse.Namespace) -> None:
    """What was written (stdout), and what the user does next (stderr)."""
    from pctfuzz._internal.project import load_config

    for path in files:
        extra = " ([tool.pctfuzz])" if path == pyproject else ""
        print(f"wrote {one_line(os.fspath(path.relative_to(root)))}{extra}")
    for fn in functions:
        if fn.role == "encode":
            print(f"pctfuzz init: {fn.module}:{fn.attr}: set {fn.set_spec}; "
                  f"{_comment(fn.note)}", file=sys.stderr)
    impl = load_config(root).values.get("impl")
    if impl != _IMPL:
        print(f"pctfuzz init: [tool.pctfuzz] kept as it was: impl is {impl!r}, not the "
              f"adapter of {ADAPTER} ({_IMPL})", file=sys.stderr)
    if args.pctfuzz_requirement == _DEFAULT_REQUIREMENT:
        print(f"pctfuzz init: {WORKFLOW} installs {_DEFAULT_REQUIREMENT}, which is not on "
              "PyPI yet: give --pctfuzz-requirement a wheel committed to the repository "
              "or a git URL", file=sys.stderr)
    if functions:
        print("pctfuzz init: next: pctfuzz fuzz (from any folder of the project), then "
              "pctfuzz report", file=sys.stderr)
    else:
        print(f"pctfuzz init: next: name your functions in {ADAPTER} and the questions "
              f"in {TESTS} (or run pctfuzz init --force --encode MODULE:FUNCTION ...)",
              file=sys.stderr)


_DEFAULT_REQUIREMENT = f"pctfuzz=={__version__}"


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "init", help="set pctfuzz up in your project: [tool.pctfuzz], an adapter, a test "
        "file and a CI workflow",
        description="Write, in the project root (the current folder, or the project "
        "[tool.pctfuzz] is found in): a [tool.pctfuzz] table in pyproject.toml (created "
        f"if missing), {ADAPTER} (function_adapter over the functions named, or a "
        f"commented skeleton), {ACCEPT_FILE} (kept if it exists), {TESTS} "
        f"(pctfuzz.testing) and {WORKFLOW} (a {_CI_SECONDS} s campaign, SARIF to code "
        "scanning, a job summary). An encoder's set is SET of --encode MOD:FN=SET, else "
        "what `pctfuzz probe` finds, except that a delimiter it leaves raw is left to the "
        "campaign to report (the nearest named set is declared). Exit 2, with nothing "
        "written: a name that is not module.path:name of identifiers, a function that does "
        "not import, a table or file that exists (without --force; --force keeps the "
        "table), a symlink or a file that is not regular on the way, a pyproject.toml "
        "above the current folder and none in it.")
    parser.add_argument("--encode", action="append", metavar="MOD:FN[=SET]",
                        help="a percent-encoder, str -> str (repeatable); SET: the set it "
                        "must implement, a name or spec (default: the probe's finding)")
    parser.add_argument("--decode", metavar="MOD:FN",
                        help="a percent-decoder, str -> bytes or str")
    parser.add_argument("--form-serialize", dest="form_serialize", metavar="MOD:FN",
                        help="a query or form builder: a list of (name, value) pairs -> str")
    parser.add_argument("--form-parse", dest="form_parse", metavar="MOD:FN",
                        help="a query or form parser: str -> (name, value) pairs")
    parser.add_argument("--pctfuzz-requirement", metavar="SPEC",
                        default=_DEFAULT_REQUIREMENT,
                        help="what the workflow installs as pctfuzz: a wheel's path in the "
                        "repository or a git URL (default: this version, not on PyPI yet)")
    parser.add_argument("--force", action="store_true",
                        help="replace the files init writes (the accept file and an "
                        "existing [tool.pctfuzz] are kept)")
    parser.set_defaults(func=_cmd_init)
