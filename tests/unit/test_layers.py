"""The layer contract (``tests/support/layers.py``, drawn in ``docs/architecture.md``):
imports point down only and no module imports itself back around a loop."""

from __future__ import annotations

import shutil
from pathlib import Path

import layers

SRC = Path(__file__).resolve().parents[2] / "src"

def test_every_module_is_in_a_layer() -> None:
    for module in layers.graph(SRC):
        layers.layer_of(module)  # LookupError names a module the contract forgot


def test_no_upward_import_and_no_cycle() -> None:
    found = layers.violations(SRC)
    assert found == [], "\n".join(found)


def _copy(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(SRC / "pctfuzz", src / "pctfuzz",
                    ignore=shutil.ignore_patterns("__pycache__", "*.dict", "node_modules"))
    return src


def test_an_added_upward_import_fails_the_check(tmp_path: Path) -> None:
    src = _copy(tmp_path)
    sets = src / "pctfuzz" / "_internal" / "sets.py"
    sets.write_text(sets.read_text() + "\n\ndef _late() -> None:\n"
                    "    from pctfuzz._internal.fuzz.campaign import run_campaign  # noqa: F401\n")
    found = set(layers.violations(src))
    assert any(line.startswith("pctfuzz._internal.sets:")
               and "imports pctfuzz._internal.fuzz.campaign: library may not import fuzzing"
               in line for line in found), found


def test_an_added_cycle_fails_the_check(tmp_path: Path) -> None:
    src = _copy(tmp_path)
    fuzz = src / "pctfuzz" / "_internal" / "fuzz"
    added = "\nfrom pctfuzz._internal.fuzz import campaign  # noqa: E402\n"
    (fuzz / "protocol.py").write_text((fuzz / "protocol.py").read_text() + added)
    found = set(layers.violations(src))
    assert any(line.startswith("import cycle:") and "pctfuzz._internal.fuzz.protocol" in line
               for line in found), found


def test_a_module_outside_every_layer_is_named(tmp_path: Path) -> None:
    src = _copy(tmp_path)
    (src / "pctfuzz" / "_internal" / "stray.py").write_text('"""Not in the contract."""\n')
    try:
        layers.violations(src)
    except LookupError as exc:
        assert "pctfuzz._internal.stray is in no layer" in str(exc)
    else:
        raise AssertionError("a module outside every layer went unnoticed")


def test_an_internal_module_importing_the_public_api_fails_the_check(tmp_path: Path) -> None:
    """The public line: the facades (docs/api.md) sit above everything they re-export."""
    src = _copy(tmp_path)
    store = src / "pctfuzz" / "_internal" / "store" / "files.py"
    store.write_text(store.read_text() + "\n\ndef _late() -> None:\n"
                     "    from pctfuzz.oracles import Adapter  # noqa: F401\n")
    found = set(layers.violations(src))
    assert any("imports pctfuzz.oracles: store may not import public API" in line
               for line in found), found
