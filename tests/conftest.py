"""Hypothesis profiles for the whole suite, chosen by ``HYPOTHESIS_PROFILE``.

- ``ci`` (the default when the variable is unset; ``make test`` sets it too):
  derandomized, no example database, no deadline, failures print a reproduction blob
  (``@reproduce_failure``). The same commit always runs the same examples.
- ``dev``: few examples for a fast edit-test loop; failures are saved to the example
  database and replayed first on the next run.
- ``nightly``: 20,000 examples per test, with the database.

The example database (dev and nightly) lives at ``<project root>/.hypothesis/examples``
(``.hypothesis/`` is git-ignored). Delete the folder to forget saved failures.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

#: Where dev and nightly keep failing examples (git-ignored, see .gitignore).
EXAMPLE_DATABASE = Path(__file__).resolve().parent.parent / ".hypothesis" / "examples"

# pytest imports this file once per session; registering is idempotent anyway.
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
)
settings.register_profile(
    "dev",
    max_examples=25,
    database=DirectoryBasedExampleDatabase(str(EXAMPLE_DATABASE)),
)
settings.register_profile(
    "nightly",
    max_examples=20_000,
    deadline=None,
    database=DirectoryBasedExampleDatabase(str(EXAMPLE_DATABASE)),
    suppress_health_check=[HealthCheck.too_slow],
)

settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _project_state() -> Iterator[None]:
    """Each test starts and ends with ``PCTFUZZ_ACCEPT`` as it was (the run's accept
    file itself is no setting of the process: ``settings.RunSettings``, handed down)."""
    from pctfuzz._internal.accept import ACCEPT_ENV

    old = os.environ.get(ACCEPT_ENV)
    yield
    if old is None:
        os.environ.pop(ACCEPT_ENV, None)
    else:
        os.environ[ACCEPT_ENV] = old
