"""``pctfuzz._internal.fuzz.undertest``: lines of the code under test reached, sampled."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from pctfuzz._internal.fuzz import undertest
from pctfuzz._internal.fuzz.undertest import UnderTest, function_lines

SOURCE = '''\
LIMIT = 3


def classify(n):
    if n > LIMIT:
        return "big"
    return "small"


class Box:
    def twice(self, n):
        return n * 2
'''


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "lib_under_test.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("lib_under_test")
    yield "lib_under_test"
    sys.modules.pop("lib_under_test", None)


def test_function_lines_are_the_bodies_only(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    # the lines a tracer sees in function bodies: not def lines, class or module code
    assert function_lines(path) == {5, 6, 7, 12}
    assert function_lines(tmp_path / "missing.py") == set()


def test_lines_reached_by_traced_executions(module: str) -> None:
    lib = sys.modules[module]
    under_test = UnderTest([module, "a_module_not_imported"])
    assert under_test.total == 4
    assert under_test.run(lambda: lib.classify(1)) == "small"
    assert under_test.count == 2  # the if and the second return
    under_test.run(lambda: lib.classify(9))
    assert under_test.count == 3
    assert sys.gettrace() is None  # the tracer is removed after each execution


def test_after_the_start_only_one_execution_in_every_is_traced(
        module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = sys.modules[module]
    monkeypatch.setattr(undertest, "FULL", 2)
    monkeypatch.setattr(undertest, "EVERY", 4)
    under_test = UnderTest([module])
    under_test.run(lambda: lib.classify(1))
    under_test.run(lambda: lib.classify(1))
    under_test.run(lambda: lib.classify(9))  # execution 3: not traced
    assert under_test.count == 2
    under_test.run(lambda: lib.classify(9))  # execution 4: traced
    assert under_test.count == 3
