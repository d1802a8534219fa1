"""The harness instruments a library's functions without touching what merely looks
like an attribute: botocore's vendored ``six.moves`` imports a module on attribute
access (``dbm.gnu``, which needs ``_gdbm``), and the raised ``ModuleNotFoundError`` ended
every harness before its first input (a user trial: 0 executions, 214 restarts)."""

from __future__ import annotations

import sys
import types

from pctfuzz._internal.fuzz.driver import _functions_of, instrument_modules


class _Lazy:
    """An attribute that imports when it is looked at, as six's lazy moves do."""

    def __getattr__(self, name: str) -> object:
        raise ModuleNotFoundError("No module named '_gdbm'")


def test_a_lazy_attribute_is_no_function_and_no_crash() -> None:
    module = types.ModuleType("lazy_library")

    def quote(text: str) -> str:
        return text

    quote.__module__ = "lazy_library"

    class Holder:
        lazy = _Lazy()

        def method(self) -> None:
            return None

    Holder.__module__ = "lazy_library"
    module.quote, module.moves, module.Holder = quote, _Lazy(), Holder  # type: ignore[attr-defined]
    sys.modules["lazy_library"] = module
    try:
        assert list(_functions_of(module.moves, "lazy_library")) == []  # type: ignore[attr-defined]
        assert instrument_modules(["lazy_library"]) == 2  # quote and Holder.method
    finally:
        del sys.modules["lazy_library"]
