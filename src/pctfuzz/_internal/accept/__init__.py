"""Accepted differences: entries, reconcilers, their composition and the accept file.

The public face is ``pctfuzz.accept``, whose docstring is the user's guide; the
rules (the ready-made reconcilers) are imported from ``accept.reconcilers``.
"""

from __future__ import annotations

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.accept.files import (
    ACCEPT_ENV,
    checked_entries,
    load_accept_file,
)
from pctfuzz._internal.accept.reconcilers import (
    OPTIONAL_PARAMS,
    RECONCILERS,
    Reconciler,
    divergence,
    not_acceptable,
)

__all__ = [
    "ACCEPT_ENV",
    "OPTIONAL_PARAMS",
    "RECONCILERS",
    "KnownDivergence",
    "Reconciler",
    "checked_entries",
    "divergence",
    "load_accept_file",
    "not_acceptable",
]
