"""Deprecated: the fuzz targets are internal now (``pctfuzz targets`` lists them). A test
file that ``pctfuzz export`` wrote before imports ``get_target`` and ``resolve_subject``
from here: write it again, it then calls ``pctfuzz.testing.check_case``. Each old name
still works, with a ``DeprecationWarning``, until pctfuzz 0.2 (docs/api.md, "Old import
paths")."""

from __future__ import annotations

from typing import Any

from pctfuzz._internal import targets as _home
from pctfuzz._internal.deprecation import forward

__all__ = [  # noqa: F822
    "FUZZ_ENCODINGS", "FUZZ_SETS", "REFERENCE_MODULES", "TARGETS", "Bound",
    "BoundDifferential", "BoundInvariant", "DifferentialTarget", "InvariantTarget", "Target",
    "get_target", "modules_under_test", "resolve_subject",
]

_lookup = forward(__name__, dict.fromkeys(__all__, _home), dict.fromkeys(
    ["get_target", "resolve_subject"],
    "write the test file again with `pctfuzz export` (it calls pctfuzz.testing.check_case)"))


def __getattr__(name: str) -> Any:
    return _lookup(name)


def __dir__() -> list[str]:
    return sorted(__all__)
