"""The ONE registry of accepted differences between the reference and an implementation.

An implementation under test agrees with the reference on a case when both give the
same answer, or both raise, and a difference is accepted only when an entry explains
it (``pctfuzz._internal.accept.entry`` describes an entry and how entries explain a case; a user's
own
entries are built with ``pctfuzz.accept``). The built-in entries, one module per
library, each entry with its citation and a pinned example:

- ``urllib``: ``urllib.parse`` with UTF-8 (adapters ``urllib``, ``urllib-unquote``);
- ``urllib_legacy``: ``urllib.parse`` with a legacy encoding (one model, three reasons);
- ``yarl``: yarl's quoters; ``ada``: ada-url's binding; ``node``: Node.js and whatwg-url;
- ``common``: what they share (phases, citations, lone-surrogate predicates).

``lookup`` orders them into ``DIVERGENCES`` and answers ``explain``/``reconcile`` with
them; this package re-exports it. Two modules run implementations and so are imported
by their own path, not from here: ``examples`` runs the pinned examples (``pctfuzz
divergences --check``; it needs the differential check, which itself needs
``lookup``), ``render`` writes the table (``pctfuzz divergences --markdown``,
``make docs``).
"""

from __future__ import annotations

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.checks.registry.lookup import (
    DIVERGENCES,
    accepted_entries,
    divergences_for,
    explain,
    get_divergence,
    reconcile,
)
from pctfuzz._internal.outcome import (
    CHECKS,
    Outcome,
    Reconcile,
    case_text,
    reference_answer,
    reference_outcome,
)

__all__ = [
    "CHECKS",
    "DIVERGENCES",
    "KnownDivergence",
    "Outcome",
    "Reconcile",
    "accepted_entries",
    "case_text",
    "divergences_for",
    "explain",
    "get_divergence",
    "reconcile",
    "reference_answer",
    "reference_outcome",
]
