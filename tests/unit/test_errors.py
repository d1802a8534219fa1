"""Exceptions in one module (``pctfuzz._internal.errors``): every exception class of the
package is defined there, except the few its docstring names with their reason; the
names they had elsewhere are the same classes, so ``isinstance`` and pickles hold."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

from pctfuzz._internal import errors

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "pctfuzz"

#: Defined outside errors.py on purpose (errors.py's docstring says why): control flow
#: inside one module, the pytest plugin's own, and the implementation's own failures
#: whose qualified names are in finding signatures.
ELSEWHERE = {
    ("fuzz/replay.py", "_Timeout"), ("fuzz/replay.py", "ReplayStopped"),
    ("fuzz/hypothesis_driver.py", "_Stop"), ("fuzz/hypothesis_driver.py", "_Timeout"),
    ("fuzz/minimize.py", "_OutOfBudget"),
    ("oracles/process.py", "_Mismatch"), ("oracles/process.py", "_Unsolicited"),
    ("pytest_plugin.py", "FindingFailed"),
    ("oracles/peer.py", "RemoteError"), ("oracles/curl.py", "CurlError"),
}
_EXCEPTION_BASES = {"Exception", "BaseException", *errors.__all__, *(n for _, n in ELSEWHERE)}


def _exception_classes() -> set[tuple[str, str]]:
    found = set()
    for path in (PACKAGE / "_internal").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(b, ast.Name) and (b.id in _EXCEPTION_BASES or b.id.endswith("Error"))
                    for b in node.bases):
                found.add((path.relative_to(PACKAGE / "_internal").as_posix(), node.name))
    return found


def test_every_exception_is_defined_in_errors_or_named_as_an_exception() -> None:
    outside = {c for c in _exception_classes() if c[0] != "errors.py"}
    assert outside == ELSEWHERE, outside ^ ELSEWHERE
    for name in errors.__all__:
        value = getattr(errors, name)
        if isinstance(value, type):
            assert value.__module__ == "pctfuzz._internal.errors", name


def test_the_old_homes_name_the_same_classes() -> None:
    import pctfuzz
    import pctfuzz.oracles
    from pctfuzz._internal import project, violations
    from pctfuzz._internal.accept import model
    from pctfuzz._internal.oracles import base, peer
    from pctfuzz._internal.store import errors as store_errors

    assert pctfuzz.PctfuzzError is errors.PctfuzzError
    assert pctfuzz.oracles.Unsupported is base.Unsupported is errors.Unsupported
    assert peer.PeerUnavailable is errors.PeerUnavailable
    assert store_errors.FindingFormatError is errors.FindingFormatError
    assert violations.Divergence is errors.Divergence
    assert project.ConfigError is errors.ConfigError
    assert model.NotModelled is errors.NotModelled
    # the built-in bases a caller catches
    assert issubclass(errors.FindingFormatError, errors.CaseFormatError | ValueError)
    assert issubclass(errors.StoreReadError, OSError)
    assert issubclass(errors.Divergence, errors.Violation | AssertionError)
    assert issubclass(peer.RemoteError, errors.PctfuzzError)


@pytest.mark.parametrize("exc", [
    errors.Unsupported("bytes"), errors.PeerDied("gone"), errors.ConfigError("bad key"),
    errors.UnknownSetError("nope"), errors.NotModelled("x"),
])
def test_pickles_round_trip_and_old_paths_still_load(exc: Exception) -> None:
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc) and str(back) == str(exc)
    # A pickle written before the move names the class's old module.
    old = {"Unsupported": "pctfuzz._internal.oracles.base",
           "PeerDied": "pctfuzz._internal.oracles.peer",
           "ConfigError": "pctfuzz._internal.project",
           "NotModelled": "pctfuzz._internal.accept.model"}.get(type(exc).__name__)
    if old:
        text = pickle.dumps(exc, protocol=0).replace(
            b"pctfuzz._internal.errors\n", old.encode() + b"\n")
        assert old.encode() in text
        assert type(pickle.loads(text)) is type(exc)
