"""``pctfuzz oss-fuzz init``: OSS-Fuzz and ClusterFuzzLite files for the project's own
adapter (``[tool.pctfuzz]``).

It writes, relative to the project root:

- ``.clusterfuzzlite/fuzz_<target>.py``: one atheris fuzzer per target, the program of
  ``python -m pctfuzz._internal.harness TARGET`` with the project's settings written in as
  defaults of the harness's environment (``PCTFUZZ_IMPL``, ``PCTFUZZ_ACCEPT``,
  ``PCTFUZZ_SETS``) and the adapter's module imported by name, so that PyInstaller
  bundles it. A failed check is a crash (no findings store: crash mode).
- ``.clusterfuzzlite/build.sh``: installs pctfuzz and the project, then for each fuzzer
  ``compile_python_fuzzer`` (with pctfuzz's lazily imported modules and the accept
  file bundled), a seed corpus zip from the project's corpus, pctfuzz's dictionary and
  the libFuzzer options.
- ``.clusterfuzzlite/Dockerfile`` and ``project.yaml``: the builder image and the
  project description (OSS-Fuzz's ``projects/<name>/`` takes the same three files,
  with ``homepage``, ``main_repo`` and ``primary_contact`` added to project.yaml).
- ``.github/workflows/cflite_pr.yml`` and ``cflite_batch.yml``: ClusterFuzzLite's
  pull-request and batch fuzzing.

Every value from ``[tool.pctfuzz]`` reaches a script as a Python literal or a quoted
shell word, and ``impl`` must be a built-in name or ``module.path:Name`` of identifiers
(it is also written into the fuzzer's docstring). An existing file is kept unless
``--force``. The files are written all or none (``cli.project_files``, as ``pctfuzz
init`` writes its own): a symlink on the way to one, a FIFO or folder in place of one,
or a folder that cannot be written is one line and exit 2, and nothing is written (the
project may be a cloned repository: a committed symlink must not carry a write out of
it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
from pathlib import Path

from pctfuzz import __version__
from pctfuzz._internal.cli.project_files import (
    check_impl,
    check_places,
    project_name,
    project_table,
    write_all,
)
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.exits import ExitCode

__all__ = ["add_command", "fuzzer_script"]

#: Differential targets: what a user's adapter is fuzzed on.
_DIFFERENTIAL = ("diff_encode", "diff_decode", "diff_form", "diff_form_parse")

_SCRIPT = '''\
#!/usr/bin/env python3
"""atheris fuzzer of pctfuzz's `{target}` target for OSS-Fuzz and ClusterFuzzLite,
against {impl}
(written by `pctfuzz oss-fuzz init`; run it again after changing [tool.pctfuzz]).

A failed check is a crash: libFuzzer writes the input, and
`pctfuzz replay --target {target} --impl {impl} FILE` replays it.

The harness reads its settings from the environment; each is set here unless the
environment gives it: PCTFUZZ_IMPL (the adapter under test), PCTFUZZ_ACCEPT (the
accept file, bundled beside the fuzzer), PCTFUZZ_SETS (the sets diff_encode draws
from, JSON).
"""

import os
import sys

_HERE = getattr(sys, "_MEIPASS", os.path.dirname(os.path.abspath(__file__)))
if not hasattr(sys, "_MEIPASS"):  # run as a script: the project root is importable
    sys.path.insert(0, os.path.dirname(_HERE))
os.environ.setdefault("PCTFUZZ_IMPL", {impl_literal})
{settings}
{imports}from pctfuzz.testing import atheris_main  # noqa: E402

if __name__ == "__main__":
    atheris_main({target_literal}, sys.argv)
'''

_BUILD = '''\
#!/bin/bash -eu
# Build the pctfuzz fuzzers of {name} for ClusterFuzzLite or OSS-Fuzz (written by
# `pctfuzz oss-fuzz init`). Runs in gcr.io/oss-fuzz-base/base-builder-python from the
# project root (the Dockerfile's WORKDIR), $OUT set; compile_python_fuzzer is the
# builder's (PyInstaller onefile, then a launcher named after the fuzzer). For every
# .clusterfuzzlite/fuzz_<target>.py it writes to $OUT the fuzzer, its seed corpus zip
# (the files of {corpus}/<target>), pctfuzz's dictionary and the libFuzzer options.

pip3 install {requirement}
{install}
dicts=$(python3 -c 'import os, pctfuzz
print(os.path.join(os.path.dirname(pctfuzz.__file__), "data", "dicts"))')

built=0
for fuzzer in .clusterfuzzlite/fuzz_*.py; do
  [ -f "$fuzzer" ] || continue
  name=$(basename -s .py "$fuzzer")
  target=${{name#fuzz_}}
  # pctfuzz imports its checks and adapters lazily: bundle the whole package; the
  # project root is on the analysis path, so the adapter's modules are found.
  compile_python_fuzzer "$fuzzer" --collect-submodules pctfuzz --paths "$PWD"{add_data}
  if [ -d "{corpus}/$target" ]; then
    python3 - "{corpus}/$target" "$OUT/${{name}}_seed_corpus.zip" <<'PY'
import os
import sys
import zipfile

folder, archive = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if not entry.name.startswith(".") and entry.is_file(follow_symlinks=False):
            out.write(entry.path, entry.name)
PY
  fi
  if [ -f "$dicts/$target.dict" ]; then
    cp "$dicts/$target.dict" "$OUT/$name.dict"
  fi
  printf '[libfuzzer]\\nmax_len = 4096\\n' > "$OUT/$name.options"
  built=$((built + 1))
done
if [ "$built" -eq 0 ]; then
  echo "build.sh: no .clusterfuzzlite/fuzz_*.py in $PWD" >&2
  exit 1
fi
echo "build.sh: built $built fuzzer(s) into $OUT"
'''

_DOCKERFILE = '''\
# The ClusterFuzzLite / OSS-Fuzz build image of {name} (written by `pctfuzz oss-fuzz
# init`): the Python builder (atheris preinstalled), the project at $SRC/{name}, and
# build.sh where the builder looks for it.
FROM gcr.io/oss-fuzz-base/base-builder-python
COPY . $SRC/{name}
WORKDIR $SRC/{name}
COPY .clusterfuzzlite/build.sh $SRC/
'''

_PROJECT_YAML = '''\
# ClusterFuzzLite project description of {name} (written by `pctfuzz oss-fuzz init`).
# For OSS-Fuzz, copy build.sh, Dockerfile and this file to projects/{name}/ there and
# add homepage, main_repo and primary_contact.
language: python
fuzzing_engines:
  - libfuzzer
sanitizers:
  - address
  - undefined
'''

_PR_WORKFLOW = '''\
# ClusterFuzzLite code-change fuzzing of {name} (written by `pctfuzz oss-fuzz init`):
# builds .clusterfuzzlite/fuzz_*.py with .clusterfuzzlite/build.sh and fuzzes the PR.
name: ClusterFuzzLite PR fuzzing
on:
  pull_request:
permissions: read-all
jobs:
  PR:
    runs-on: ubuntu-latest
    concurrency:
      group: ${{{{ github.workflow }}}}-${{{{ matrix.sanitizer }}}}-${{{{ github.ref }}}}
      cancel-in-progress: true
    strategy:
      fail-fast: false
      matrix:
        sanitizer:
          - address
    steps:
      - name: Build Fuzzers (${{{{ matrix.sanitizer }}}})
        id: build
        uses: google/clusterfuzzlite/actions/build_fuzzers@v1
        with:
          language: python
          github-token: ${{{{ secrets.GITHUB_TOKEN }}}}
          sanitizer: ${{{{ matrix.sanitizer }}}}
      - name: Run Fuzzers (${{{{ matrix.sanitizer }}}})
        id: run
        uses: google/clusterfuzzlite/actions/run_fuzzers@v1
        with:
          github-token: ${{{{ secrets.GITHUB_TOKEN }}}}
          fuzz-seconds: 300
          mode: code-change
          sanitizer: ${{{{ matrix.sanitizer }}}}
'''

_BATCH_WORKFLOW = '''\
# ClusterFuzzLite batch fuzzing of {name} (builds up a corpus) and daily corpus pruning
# (written by `pctfuzz oss-fuzz init`).
name: ClusterFuzzLite batch fuzzing
on:
  schedule:
    - cron: "0 1 * * *"  # daily
  workflow_dispatch:
permissions: read-all
jobs:
  BatchFuzzing:
    runs-on: ubuntu-latest
    steps:
      - name: Build Fuzzers
        id: build
        uses: google/clusterfuzzlite/actions/build_fuzzers@v1
        with:
          language: python
      - name: Run Fuzzers
        id: run
        uses: google/clusterfuzzlite/actions/run_fuzzers@v1
        with:
          github-token: ${{{{ secrets.GITHUB_TOKEN }}}}
          fuzz-seconds: 3600
          mode: batch
  Pruning:
    needs: BatchFuzzing
    runs-on: ubuntu-latest
    steps:
      - name: Build Fuzzers
        id: build
        uses: google/clusterfuzzlite/actions/build_fuzzers@v1
        with:
          language: python
      - name: Run Fuzzers
        id: run
        uses: google/clusterfuzzlite/actions/run_fuzzers@v1
        with:
          github-token: ${{{{ secrets.GITHUB_TOKEN }}}}
          fuzz-seconds: 600
          mode: prune
'''


def fuzzer_script(target: str, impl: str, *, accept: str | None = None,
                  accept_fallback: str | None = None, sets: dict[str, str] | None = None
                  ) -> str:
    """The fuzzer of ``target`` against ``impl`` (``module:Name`` or a built-in name):
    ``accept`` is the accept file's name in the bundle, ``accept_fallback`` its path
    relative to the script when it runs unbundled."""
    check_impl(impl)
    settings = []
    if accept:
        where = (f"os.path.join(_HERE, {accept!r}) if hasattr(sys, '_MEIPASS') else "
                 f"os.path.join(_HERE, {accept_fallback or accept!r})")
        settings.append(f'os.environ.setdefault("PCTFUZZ_ACCEPT", {where})')
    if sets:
        settings.append(f'os.environ.setdefault("PCTFUZZ_SETS", {json.dumps(sets)!r})')
    module, colon, _ = impl.partition(":")
    imports = ""
    if colon:
        imports = ("# the adapter's module, imported by name so that PyInstaller bundles it\n"
                   f"import {module}  # noqa: E402, F401\n")
    return _SCRIPT.format(impl=impl, target=target, impl_literal=repr(impl),
                          target_literal=repr(target), settings="\n".join(settings),
                          imports=imports)


def _targets(values: dict[str, object]) -> list[str]:
    from pctfuzz._internal.targets import TARGETS

    named = values.get("targets")
    targets = [str(t) for t in named] if isinstance(named, list) else list(_DIFFERENTIAL)
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        raise UsageError(f"[tool.pctfuzz] targets: unknown target {unknown[0]!r}")
    return targets


def _cmd_init(args: argparse.Namespace) -> int:
    from pctfuzz._internal.project import Project
    from pctfuzz._internal.store import printable_path

    project = Project.load(impl=args.impl)
    if project.pyproject is None:
        raise UsageError("no pyproject.toml with [tool.pctfuzz] here or above: run it in "
                         "your project")
    values = dict(project.values)
    impl = project.impl
    if not impl:
        raise UsageError("[tool.pctfuzz] has no impl: name your adapter (impl = "
                         "\"package.module:Adapter\") or give --impl")
    check_impl(impl, "--impl" if project.impl_flag else "[tool.pctfuzz] impl")
    root = project.root
    table = project_table(project.pyproject)
    name = project_name(root, table)
    targets = _targets(values)
    accept_rel: str | None = None
    if project.accept is not None:
        accept = Path(project.accept)
        if accept.suffix != ".toml" or not accept.is_file():
            raise UsageError(f"accept file {project.accept}: the fuzzers bundle a .toml file")
        try:
            accept_rel = accept.relative_to(root).as_posix()
        except ValueError:
            raise UsageError(f"accept file {accept} is outside the project root") from None
        if not re.fullmatch(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*", accept_rel):
            raise UsageError(f"accept file {accept_rel!r}: build.sh takes a relative path "
                             "of letters, digits, _ . -")
    sets = dict(project.sets)
    corpus = str(values.get("corpus", "corpus"))
    if not re.fullmatch(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*", corpus):
        raise UsageError(f"[tool.pctfuzz] corpus {corpus!r}: build.sh takes a relative "
                         "path of letters, digits, _ . -")
    folder = root / ".clusterfuzzlite"
    files: dict[Path, str] = {}
    for target in targets:
        fallback = (str(Path("..") / accept_rel) if accept_rel else None)
        files[folder / f"fuzz_{target}.py"] = fuzzer_script(
            target, str(impl), accept=Path(accept_rel).name if accept_rel else None,
            accept_fallback=fallback, sets=sets or None)
    install = ("pip3 install .  # the project, with its dependencies" if table else
               "# no [project] table: the project root is put on the analysis path below")
    add_data = (f" \\\n    --add-data {shlex.quote(accept_rel + ':.')}" if accept_rel else "")
    files[folder / "build.sh"] = _BUILD.format(
        name=name, corpus=corpus, install=install,
        requirement=shlex.quote(args.pctfuzz_requirement), add_data=add_data)
    files[folder / "Dockerfile"] = _DOCKERFILE.format(name=name)
    files[folder / "project.yaml"] = _PROJECT_YAML.format(name=name)
    workflows = root / ".github" / "workflows"
    files[workflows / "cflite_pr.yml"] = _PR_WORKFLOW.format(name=name)
    files[workflows / "cflite_batch.yml"] = _BATCH_WORKFLOW.format(name=name)
    check_places(root, files, "oss-fuzz init")
    existing = [p for p in files if os.path.lexists(p)]
    if existing and not args.force:
        raise UsageError(f"{printable_path(existing[0])} exists; --force replaces it")
    write_all(root, files, scripts=[p for p in files if p.suffix in (".sh", ".py")])
    for path in files:
        print(f"wrote {printable_path(path.relative_to(root))}")
    print(f"{len(targets)} fuzzer(s) of {impl}: {', '.join(targets)}; build them with the "
          "OSS-Fuzz builder (docs/oss-fuzz.md)", file=sys.stderr)
    return ExitCode.OK


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "oss-fuzz", help="OSS-Fuzz and ClusterFuzzLite files for your adapter",
        description="Write OSS-Fuzz / ClusterFuzzLite build files for the project's "
        "adapter ([tool.pctfuzz]): see docs/oss-fuzz.md.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    init = actions.add_parser(
        "init", help="write .clusterfuzzlite/ (fuzzers, build.sh, Dockerfile, "
        "project.yaml) and the ClusterFuzzLite workflows",
        description="Write one fuzzer per target of the project ([tool.pctfuzz] targets, "
        "default the differential targets) against its adapter ([tool.pctfuzz] impl), "
        "with the accept file and sets, and build.sh, Dockerfile and project.yaml in "
        ".clusterfuzzlite/, and .github/workflows/cflite_pr.yml and cflite_batch.yml. "
        "Exit 2, with nothing written, if a file exists (without --force), the project has "
        "no adapter, its impl is not a built-in name or module:Name, or a file or its "
        "folder is a symlink, not a regular file, or cannot be written.")
    init.add_argument("--impl", metavar="NAME", help="the adapter (default: [tool.pctfuzz] impl)")
    init.add_argument("--force", action="store_true", help="replace existing files")
    init.add_argument("--pctfuzz-requirement", metavar="SPEC",
                      default=f"pctfuzz=={__version__}",
                      help="what build.sh installs as pctfuzz (default: this version)")
    init.set_defaults(func=_cmd_init)
