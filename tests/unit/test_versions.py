"""Every finding records the real version of the code under test,
asked of the adapter (``oracles.impl_version``: ``distribution``, else the
distribution holding its ``modules_under_test``, else what a peer reports)."""

from __future__ import annotations

import importlib.metadata
import json
import platform
import re
import shutil
from pathlib import Path

import pytest

from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.fuzz.recorder import Recorder
from pctfuzz._internal.oracles import IMPLS, Adapter, function_adapter, get_impl, impl_version
from pctfuzz._internal.store import collect_versions
from pctfuzz._internal.targets import get_target

STDLIB = f"stdlib (Python {platform.python_version()})"


def _recorded_version(impl: object, name: str, tmp_path: Path) -> str:
    """The version a finding of ``impl`` records, through the harness's Recorder."""
    target = get_target("diff_encode")
    recorder = Recorder(target, impl, name, tmp_path / "findings", None)
    recorder.record(b"\x00\x00a", RuntimeError("stand-in failure"))
    (path,) = (tmp_path / "findings").glob("*.json")
    versions = json.loads(path.read_text())["versions"]
    assert versions["python"].endswith(platform.python_version())
    return str(versions[name])


@pytest.mark.parametrize(
    ("name", "distribution"),
    [("urllib", None), ("yarl", "yarl"), ("yarl-c", "yarl"), ("yarl-requote", "yarl"),
     ("ada", "ada-url")],
)
def test_builtin_python_adapters_record_their_distribution(
        name: str, distribution: str | None, tmp_path: Path) -> None:
    want = STDLIB if distribution is None else (
        f"{distribution} {importlib.metadata.version(distribution)}")
    assert _recorded_version(get_impl(name), name, tmp_path) == want


@pytest.mark.parametrize("name", list(IMPLS))
def test_every_installed_builtin_adapter_records_a_real_version(
        name: str, tmp_path: Path) -> None:
    """Issue 11: each adapter says where its version comes from -- a declared
    ``distribution``, the ``version`` its peer reports, or the standard library --
    and the store keeps no table of adapter names. Adapters whose library or runtime
    is not installed here are skipped, with the reason."""
    try:
        impl = get_impl(name)
    except PctfuzzError as exc:  # an optional package, or node, is missing
        pytest.skip(str(exc))
    try:
        version = _recorded_version(impl, name, tmp_path)
    finally:
        getattr(impl, "close", lambda: None)()  # a peer's process
    declared = getattr(impl, "distribution", None)
    if declared is not None:
        assert version == f"{declared} {importlib.metadata.version(declared)}"
    elif getattr(type(impl), "version", None) is not None:  # a peer's property
        assert re.fullmatch(rf"{re.escape(name)} v?\d+(\.\d+)+\S*", version), version
    else:
        assert version == STDLIB


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_peer_adapter_records_the_version_it_reports(tmp_path: Path) -> None:
    node = get_impl("node")
    try:
        version = _recorded_version(node, "node", tmp_path)
    finally:
        node.close()  # type: ignore[attr-defined]
    assert version.startswith("node v") and version[6].isdigit(), version


class DeclaresDistribution(Adapter):
    name = "mine"
    distribution = "hypothesis"


class FoundFromModules(Adapter):
    name = "mine-too"
    modules_under_test = ("yarl._quoting_py",)


class PlainModule(Adapter):
    name = "mine-plain"  # its module, tests/unit/test_versions.py, is in no distribution


def test_user_adapters_record_a_real_version(tmp_path: Path) -> None:
    hypothesis = f"hypothesis {importlib.metadata.version('hypothesis')}"
    assert _recorded_version(DeclaresDistribution(), "mine", tmp_path / "a") == hypothesis
    yarl = f"yarl {importlib.metadata.version('yarl')}"
    assert _recorded_version(FoundFromModules(), "mine-too", tmp_path / "b") == yarl
    from urllib.parse import quote

    adapter = function_adapter("q", encode=quote, sets={"q": "urllib-safe:/"})
    assert _recorded_version(adapter, "q", tmp_path / "c") == STDLIB
    assert impl_version(PlainModule()).startswith(
        "unknown: test_versions is in no installed distribution")


def test_function_adapter_takes_the_distribution_its_unknown_version_asks_for() -> None:
    """``unknown ... (declare distribution=)`` names a keyword ``function_adapter``
    takes: a function of the user's own module records its package's version; a thin
    wrapper's, the version of the library it calls."""
    import sys
    import types

    own = types.ModuleType("user_module_q8")  # in no installed distribution
    exec("def quote_here(text):\n    return text\n", vars(own))
    wrapper = types.ModuleType("user_wrapper_q8")
    exec("import json\nimport hypothesis\n\ndef quote_here(text):\n    return text\n",
         vars(wrapper))
    sys.modules.update({"user_module_q8": own, "user_wrapper_q8": wrapper})
    try:
        plain = function_adapter("q", encode=own.quote_here, sets={"q": "urllib-safe:/"})
        assert "(declare distribution=)" in impl_version(plain)
        wrapped = function_adapter("q", encode=wrapper.quote_here,
                                   sets={"q": "urllib-safe:/"})
        assert impl_version(wrapped) == \
            f"hypothesis {importlib.metadata.version('hypothesis')}"
    finally:
        del sys.modules["user_module_q8"], sys.modules["user_wrapper_q8"]
    declared = function_adapter("q", encode=own.quote_here, sets={"q": "urllib-safe:/"},
                                distribution="hypothesis")
    assert impl_version(declared) == f"hypothesis {importlib.metadata.version('hypothesis')}"


def test_store_records_what_it_is_given() -> None:
    assert collect_versions("x", "x 1.0")["x"] == "x 1.0"
    assert collect_versions("x")["x"] == "unknown"
    assert set(collect_versions()) == {"python", "pctfuzz", "platform"}


def test_pctfuzz_has_one_version_source() -> None:
    """The version is written once, as ``pctfuzz.__version__``; pyproject reads it
    (``dynamic``) and the installed metadata agrees."""
    import tomllib

    import pctfuzz

    root = Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "pctfuzz.__version__"}
    assert importlib.metadata.version("pctfuzz") == pctfuzz.__version__


def test_a_report_says_version_unknown_and_the_record_keeps_why(tmp_path: Path) -> None:
    """A user's adapter of a module in no installed distribution: the record keeps why
    (``declare distribution=``), while each row of a report said it in full, beside the
    adapter's name; a report now says "version unknown"."""
    from pctfuzz._internal.reports.results import finding_entry
    from pctfuzz._internal.store import FindingStore

    recorder = Recorder(get_target("diff_encode"), PlainModule(), "mine-plain",
                        tmp_path / "findings", None)
    recorder.record(b"\x00\x00a", RuntimeError("stand-in failure"))
    (path,) = (tmp_path / "findings").glob("*.json")
    finding = FindingStore(tmp_path / "findings").load(path)
    assert "(declare distribution=)" in finding.versions["mine-plain"]
    assert finding_entry(finding, None)["version"] == "version unknown"
