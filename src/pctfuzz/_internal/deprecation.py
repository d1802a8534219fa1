"""The old import paths that users' adapters and exported tests used before pctfuzz's
modules moved under ``pctfuzz._internal``: they keep working, with a
``DeprecationWarning`` naming the new place, until pctfuzz ``REMOVED_IN``.

A shim module (``pctfuzz.cases``, ``pctfuzz.sets``, ``pctfuzz.targets``,
``pctfuzz.oracles.process``, and the names ``pctfuzz.oracles`` used to export) defines
none of those names: its module ``__getattr__`` (PEP 562) warns on each name looked up
and returns the very object of its new home, so ``isinstance`` and identity hold. The
warning is raised at the lookup, which ``from pctfuzz.cases import EncodeCase`` makes
from the importing module, so it points at the user's line.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

__all__ = ["NOT_PUBLIC", "REMOVED_IN", "forward"]

#: The release that removes the old paths (deprecated in 0.1, for one minor version).
REMOVED_IN = "0.2"


#: What the warning says of a name that has no public home.
NOT_PUBLIC = "it is no longer public API (docs/api.md lists what is)"


def forward(old: str, homes: Mapping[str, ModuleType], advice: Mapping[str, str],
            default: str = NOT_PUBLIC) -> Callable[[str], Any]:
    """The lookup behind the deprecated module ``old``'s ``__getattr__``: each name of
    ``homes`` is that module's object, returned with a warning that says where to get
    it now (``advice``: name -> ``"import it from pctfuzz.oracles"``; else ``default``).
    Any other name is an ``AttributeError``. Call it from the module's ``__getattr__``
    (the warning's ``stacklevel`` counts that frame)."""

    def lookup(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(f"{old}.{name} is deprecated and will be removed in pctfuzz "
                      f"{REMOVED_IN}: {advice.get(name, default)}", DeprecationWarning,
                      stacklevel=3)
        return getattr(home, name)

    return lookup
