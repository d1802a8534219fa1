"""Implementations under test: the adapters, the registry that names them, the process
protocol's client.

The public face is ``pctfuzz._internal.oracles``, whose docstring is the adapter writer's guide.
"""


from __future__ import annotations

from pctfuzz._internal.accept.reconcilers import (
    both_refuse,
    divergence,
    empty_pairs,
    encoded,
    latin1_fallback,
    left_raw,
    lowercase_hex,
    pairs_order,
    requoted,
    space_as,
)
from pctfuzz._internal.oracles.base import (
    METHODS,
    Adapter,
    Impl,
    Unsupported,
    impl_name,
    impl_version,
    library_call,
    registry_names,
)
from pctfuzz._internal.oracles.function import function_adapter
from pctfuzz._internal.oracles.registry import (
    IMPLS,
    get_impl,
    impl_description,
    impl_names,
    import_user_module,
)

__all__ = [
    "IMPLS",
    "METHODS",
    "Adapter",
    "Impl",
    "Unsupported",
    "both_refuse",
    "divergence",
    "empty_pairs",
    "encoded",
    "function_adapter",
    "get_impl",
    "impl_description",
    "impl_name",
    "impl_names",
    "impl_version",
    "import_user_module",
    "latin1_fallback",
    "left_raw",
    "library_call",
    "lowercase_hex",
    "pairs_order",
    "registry_names",
    "requoted",
    "space_as",
]
