"""``harness/``: one OSS-Fuzz script per target, each exactly ``pctfuzz.harness``'s
text for it, with its dictionary linked from the package data."""

from __future__ import annotations

import os
from pathlib import Path

from pctfuzz.harness import oss_fuzz_script
from pctfuzz.targets import TARGETS

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "harness"
REGENERATE = ("regenerate with: python -c 'from pathlib import Path; from pctfuzz.harness "
              "import write_scripts; write_scripts(Path(\"harness\"))'")


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
