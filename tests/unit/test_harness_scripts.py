"""``harness/``: one OSS-Fuzz script per target, each exactly ``pctfuzz._internal.harness``'s
text for it, with its dictionary linked from the package data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pctfuzz._internal.harness import HOOKED_IMPORTS, oss_fuzz_script
from pctfuzz._internal.targets import TARGETS

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "harness"
REGENERATE = ("regenerate with: python -c 'from pathlib import Path; "
              "from pctfuzz._internal.harness import write_scripts; "
              "write_scripts(Path(\"harness\"))'")


def test_one_script_per_target_and_no_other() -> None:
    scripts = {p.name for p in HARNESS.glob("fuzz_*.py")}
    assert scripts == {f"fuzz_{name}.py" for name in TARGETS}, REGENERATE


def test_each_script_is_the_generated_text() -> None:
    for name in TARGETS:
        text = (HARNESS / f"fuzz_{name}.py").read_text()
        assert text == oss_fuzz_script(name), f"harness/fuzz_{name}.py differs; {REGENERATE}"
        compile(text, f"fuzz_{name}.py", "exec")
        assert f'driver.main("{name}", sys.argv)' in text


def test_each_dictionary_links_to_the_package_data() -> None:
    for name in TARGETS:
        link = HARNESS / f"{name}.dict"
        assert link.is_symlink(), link
        assert os.readlink(link) == f"../src/pctfuzz/data/dicts/{name}.dict"
        assert link.resolve().is_file() and link.read_text().strip()


def test_only_invariant_targets_import_pctfuzz_inside_the_hook() -> None:
    for name, target in TARGETS.items():
        text = oss_fuzz_script(name)
        assert ("atheris.instrument_imports" in text) is target.hooks_imports is (
            not target.differential), name


#: Run in a fresh interpreter: instrumentation cannot be undone. Prints, per function,
#: whether its code carries atheris counters.
_PROBE = """
import sys
from pctfuzz._internal.fuzz import driver
from pctfuzz._internal.targets import get_target

driver.instrument_modules(get_target(sys.argv[1]).instrumented_modules("urllib"))
import urllib.parse
from pctfuzz._internal import form, reference
from pctfuzz._internal.checks import differential
from pctfuzz._internal.encoding import encoders
from pctfuzz._internal import formats, targets
for func in (reference.percent_encode, encoders._iso_2022_jp_pieces, form.form_urlencode,
             urllib.parse.quote_from_bytes, formats.encode_from_bytes,
             targets.BoundDifferential.case_from_bytes, driver.run_input, differential._check):
    print("__ATHERIS_INSTRUMENTED__" in func.__code__.co_consts)
"""


def test_a_differential_target_instruments_the_reference_and_the_adapter_only() -> None:
    out = subprocess.run([sys.executable, "-c", _PROBE, "diff_encode"], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["True"] * 4 + ["False"] * 4, out  # reference, urllib; harness code
    # An invariant target's driver instruments nothing after import: its harness
    # imports pctfuzz inside the hook instead.
    out = subprocess.run([sys.executable, "-c", _PROBE, "encode"], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["False"] * 8, out


#: The imports of an invariant target's script, then which functions carry counters.
_HOOKED_PROBE = HOOKED_IMPORTS + """
from pctfuzz._internal import form, formats, reference, targets
from pctfuzz._internal.checks.invariants import expect
from pctfuzz._internal.encoding import encoders
for func in (reference.percent_encode, encoders.encode_inband, form.form_urlencode,
             formats.encode_from_bytes, targets.BoundInvariant.run, driver.run_input,
             expect._encoder_bytes):
    print("__ATHERIS_INSTRUMENTED__" in func.__code__.co_consts)
"""


def test_an_invariant_target_instruments_the_library_only() -> None:
    # The reference, the encoders and the form codec are its code under test; the byte
    # formats, the target registry, the driver and the checks only cost.
    out = subprocess.run([sys.executable, "-c", _HOOKED_PROBE], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["True"] * 3 + ["False"] * 4, out
