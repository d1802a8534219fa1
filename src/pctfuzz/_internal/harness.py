"""``python -m pctfuzz._internal.harness TARGET [libFuzzer flags]``: the atheris fuzzer of one
target, shipped inside the package (what ``pctfuzz fuzz`` starts, so an installed
wheel fuzzes from any folder). ``harness/fuzz_<target>.py`` are the same program as
OSS-Fuzz scripts.

- **Coverage.** An invariant target's code under test is pctfuzz's library (the
  package and what it re-exports: the reference, the form codec, the encoders): it
  must be imported inside ``atheris.instrument_imports`` so its code carries libFuzzer
  counters (``Target.hooks_imports``); the driver, targets and byte formats are
  imported after it, without counters (they are not under test; their counters cost
  about 15% of a form execution). ``-m`` imports the ``pctfuzz`` package before this
  module runs, where the hook cannot see it, so its modules are dropped from
  ``sys.modules`` and imported again inside the hook. A differential target's modules
  are instrumented by the driver after import (``Target.instrumented_modules``), so
  nothing is imported again.
- **Dictionary.** The target's dictionary from the package data
  (``pctfuzz/data/dicts/<target>.dict``, rendered from ``grammar``) is added unless a
  ``-dict=`` flag is given or the campaign runs ``--no-grammar``.
- **Settings.** What the campaign tells it (implementation, store, accept file, sets,
  project root: ``pctfuzz._internal.fuzz.protocol.HarnessSettings``) is read from the
  environment once, here, and passed to the driver.
- **Dies with its parent.** With ``PCTFUZZ_PARENT_PID`` set (``pctfuzz fuzz`` sets
  it), the process asks Linux for SIGKILL when its parent goes (``PR_SET_PDEATHSIG``),
  then checks that the parent is still the one named (it may have died before the
  request): a campaign killed with SIGKILL leaves no libFuzzer process writing to its
  store.

Exit 2 with a one-line usage error for a missing or unknown TARGET.
"""

import os
import signal
import sys
from importlib.resources import files
from pathlib import Path

from pctfuzz._internal.exits import ExitCode

_PR_SET_PDEATHSIG = 1
#: How the harness names itself in its messages (its module is internal: ``pctfuzz fuzz``
#: starts it).
PROG = "pctfuzz harness"
_USAGE = f"usage: {PROG} TARGET [libFuzzer flags] (the atheris harness `pctfuzz fuzz` starts)"

#: ``harness/fuzz_<target>.py``, the OSS-Fuzz script of a target: the same program as
#: ``python -m pctfuzz._internal.harness TARGET``, written as ``compile_python_fuzzer`` expects a
#: fuzzer (one self-contained file per target; for an invariant target, atheris hooked
#: before pctfuzz is imported). ``tests/unit/test_harness_scripts.py`` checks every
#: script against this text and the target registry; ``write_scripts`` writes them.
SCRIPT = """#!/usr/bin/env python3
\"\"\"atheris fuzzer for the pctfuzz `{target}` target (see `pctfuzz targets`).

Run like any OSS-Fuzz Python fuzzer:
    python harness/fuzz_{target}.py corpus/{target} \\
        -dict=harness/{target}.dict -max_total_time=30
\"\"\"

import sys

{imports}

if __name__ == "__main__":
    driver.main("{target}", sys.argv)
"""

#: ``SCRIPT``'s imports for a target that ``hooks_imports`` (an invariant target).
HOOKED_IMPORTS = """import atheris

# pctfuzz's library (the reference, the form codec, the encoders: what `import
# pctfuzz` imports) is imported inside the hook so its code carries coverage counters;
# the driver, targets and byte formats after it, without: they run on every input but
# are not under test, and their counters only cost time.
with atheris.instrument_imports(include=["pctfuzz"]):
    import pctfuzz  # noqa: F401
from pctfuzz._internal.fuzz import driver"""

#: ``SCRIPT``'s imports for a differential target.
PLAIN_IMPORTS = """# The code under test is the implementation's adapter: the driver's main
# instruments it and the reference it is compared with, not the rest of pctfuzz,
# which would only cost (Target.instrumented_modules).
from pctfuzz._internal.fuzz import driver"""


def oss_fuzz_script(target: str) -> str:
    """The text of ``harness/fuzz_<target>.py`` (see ``SCRIPT``)."""
    from pctfuzz._internal.targets import get_target

    hooked = get_target(target).hooks_imports
    return SCRIPT.format(target=target, imports=HOOKED_IMPORTS if hooked else PLAIN_IMPORTS)


def write_scripts(folder: Path) -> list[Path]:
    """Write the OSS-Fuzz script of every target into ``folder``."""
    from pctfuzz._internal.targets import TARGETS

    written = []
    for name in TARGETS:
        path = folder / f"fuzz_{name}.py"
        path.write_text(oss_fuzz_script(name))
        written.append(path)
    return written


def die_with_parent() -> None:
    """SIGKILL this process when its parent ends (Linux ``prctl``); exit at once if
    the parent named by ``PCTFUZZ_PARENT_PID`` is already gone."""
    parent = os.environ.get("PCTFUZZ_PARENT_PID")
    if not parent:
        return
    import contextlib
    import ctypes

    # Not Linux: no prctl; the parent's own stop at its deadline or signal still holds.
    with contextlib.suppress(AttributeError, OSError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if str(os.getppid()) != parent:
        os._exit(1)


def _import_instrumented() -> None:
    """Import pctfuzz again, inside the atheris hook (see the module docstring)."""
    import atheris

    for name in [m for m in sys.modules if m == "pctfuzz" or m.startswith("pctfuzz.")]:
        del sys.modules[name]
    with atheris.instrument_imports(include=["pctfuzz"]):
        import pctfuzz  # noqa: F401  (the library only: see HOOKED_IMPORTS)


def run(argv: list[str]) -> None:
    """Fuzz ``argv[1]`` with the libFuzzer flags ``argv[2:]`` (never returns normally:
    libFuzzer ends the process)."""
    args = argv[1:]
    if not args or args[0].startswith("-"):
        print(f"{_USAGE}\n{PROG}: error: TARGET is required", file=sys.stderr)
        sys.exit(ExitCode.USAGE)
    die_with_parent()
    from pctfuzz._internal.targets import TARGETS

    target, flags = args[0], args[1:]
    if target not in TARGETS:
        print(f"{PROG}: error: unknown target {target!r} "
              f"(known: {', '.join(TARGETS)})", file=sys.stderr)
        sys.exit(ExitCode.USAGE)
    if TARGETS[target].hooks_imports:
        _import_instrumented()
    from pctfuzz._internal.fuzz import driver as fuzzing
    from pctfuzz._internal.fuzz.protocol import HarnessSettings

    # The one read of what the campaign hands over (after the instrumented import, so
    # the settings take effect in the modules that run).
    try:
        settings = HarnessSettings.from_env(os.environ)
    except ValueError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        sys.exit(ExitCode.USAGE)
    dictionary = Path(str(files("pctfuzz").joinpath("data", "dicts", f"{target}.dict")))
    if settings.grammar and dictionary.is_file() \
            and not any(f.startswith("-dict=") for f in flags):
        flags.append(f"-dict={dictionary}")
    fuzzing.main(target, [argv[0], *flags], settings)


if __name__ == "__main__":
    run(sys.argv)
