"""Deprecated: the case types are ``pctfuzz.oracles``'s now (``EncodeCase``,
``DecodeCase``, ``FormCase``, ``FormParseCase``); the rest of this module is no longer
public. Each old name still works, with a ``DeprecationWarning``, until pctfuzz 0.2
(docs/api.md, "Old import paths"). A test file that ``pctfuzz export`` wrote before
imports ``case_from_json`` from here: write it again, it then calls
``pctfuzz.testing.check_case``."""

from __future__ import annotations

from typing import Any

from pctfuzz._internal import cases as _home
from pctfuzz._internal.deprecation import forward

__all__ = ["CASE_TYPES", "Case", "DecodeCase", "EncodeCase", "FormCase",  # noqa: F822
           "FormParseCase", "case_from_json", "value_from_json", "value_to_json"]

_lookup = forward(__name__, dict.fromkeys(__all__, _home), {
    **dict.fromkeys(["DecodeCase", "EncodeCase", "FormCase", "FormParseCase"],
                    "import it from pctfuzz.oracles"),
    "case_from_json": "write the test file again with `pctfuzz export` (it calls "
                      "pctfuzz.testing.check_case)",
})


def __getattr__(name: str) -> Any:
    return _lookup(name)


def __dir__() -> list[str]:
    return sorted(__all__)
