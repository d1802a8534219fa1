"""The store: the corpus (libFuzzer layout) and the findings (one JSON record per bug).

It depends only on the vocabulary (cases, violations, identity) and the package's
errors and text helpers: whatever a record must know of a target or an adapter is
a name, a case or a version string that the caller passes in.

=====================  ===============================================================
``store.errors``       ``StoreError`` and its kin, ``StoreProblem``: one line per file
``store.files``        bounded reads, atomic writes, fsync, locks, target-name checks
``store.corpus``       ``Corpus``: ``<root>/<target>/<sha1 of the bytes>``
``store.schema``       the record's fields and its strict parser
``store.records``      ``Finding``, ``new_finding``, ``load_finding``
``store.findings``     ``FindingStore``: ``<root>/<kind>-<target>-<id>.json``, locked
=====================  ===============================================================

Guarantees (local POSIX filesystems; ``flock`` is not reliable over NFS): every write
is atomic and nothing is written outside the chosen root (``store.files``); corpus
adds are idempotent and race-free (``store.corpus``); processes sharing a findings
folder never lose a hit (``store.findings``); only records that ``load_finding``
accepts are ever written, and it accepts nothing outside the schema (``store.schema``).
Everything is importable from ``pctfuzz._internal.store``.
"""

from __future__ import annotations

from pctfuzz._internal.identity import FINDING_KINDS, finding_id
from pctfuzz._internal.store.corpus import DEFAULT_CORPUS_MAX_SIZE, Corpus, read_input
from pctfuzz._internal.store.errors import (
    FindingFormatError,
    FindingNotFoundError,
    StoreError,
    StoreProblem,
    StoreReadError,
    printable_path,
)
from pctfuzz._internal.store.files import cleanup_stale_temp, validate_target
from pctfuzz._internal.store.findings import LOCK_FOLDER, FindingStore
from pctfuzz._internal.store.records import (
    DEFAULT_FINDING_MAX_SIZE,
    Finding,
    collect_versions,
    load_finding,
    new_finding,
    new_stop_finding,
    seen_to_stop,
    utc_now,
)
from pctfuzz._internal.store.schema import (
    FINDING_STATUSES,
    ID_RE,
    OPEN_STATUSES,
    SCHEMA_VERSION,
    TRIAGED_STATUSES,
)

__all__ = [
    "DEFAULT_CORPUS_MAX_SIZE",
    "DEFAULT_FINDING_MAX_SIZE",
    "FINDING_KINDS",
    "FINDING_STATUSES",
    "ID_RE",
    "LOCK_FOLDER",
    "OPEN_STATUSES",
    "SCHEMA_VERSION",
    "TRIAGED_STATUSES",
    "Corpus",
    "Finding",
    "FindingFormatError",
    "FindingNotFoundError",
    "FindingStore",
    "StoreError",
    "StoreProblem",
    "StoreReadError",
    "cleanup_stale_temp",
    "collect_versions",
    "finding_id",
    "load_finding",
    "new_finding",
    "new_stop_finding",
    "printable_path",
    "read_input",
    "seen_to_stop",
    "utc_now",
    "validate_target",
]
