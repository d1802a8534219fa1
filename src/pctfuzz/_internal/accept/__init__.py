"""Accepted differences: entries, reconcilers, their composition and the accept file.

The public face is ``pctfuzz.accept``, whose docstring is the user's guide.
"""

from __future__ import annotations

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.accept.files import (
    ACCEPT_ENV,
    accept_file,
    accepted_in_force,
    checked_entries,
    load_accept_file,
    use_accept_file,
    use_accepted,
)
from pctfuzz._internal.accept.reconcilers import (
    RECONCILERS,
    Reconciler,
    both_refuse,
    decoded_twice,
    divergence,
    empty_pairs,
    encoded,
    latin1_fallback,
    left_raw,
    lowercase_hex,
    ncr_unescaped,
    normalized,
    pairs_order,
    prefixed,
    python_codec,
    refuses,
    removed,
    replacement,
    requoted,
    semicolon_separates,
    space_as,
    suffixed,
    trimmed,
    truncated,
)

__all__ = [
    "ACCEPT_ENV",
    "RECONCILERS",
    "KnownDivergence",
    "Reconciler",
    "accept_file",
    "accepted_in_force",
    "both_refuse",
    "checked_entries",
    "decoded_twice",
    "divergence",
    "empty_pairs",
    "encoded",
    "latin1_fallback",
    "left_raw",
    "load_accept_file",
    "lowercase_hex",
    "ncr_unescaped",
    "normalized",
    "pairs_order",
    "prefixed",
    "python_codec",
    "refuses",
    "removed",
    "replacement",
    "requoted",
    "semicolon_separates",
    "space_as",
    "suffixed",
    "trimmed",
    "truncated",
    "use_accept_file",
    "use_accepted",
]
