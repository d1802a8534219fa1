"""The settings of one run, handed down as a value: ``RunSettings``.

An entry point resolves them once (``project.Project.run_settings``; a harness
process, ``fuzz.protocol.HarnessSettings.run_settings``) and gives them to what it
runs: the bound target carries them (``targets.Target.bind(subject, settings)``), and
the checks, the recorder, the minimizer, replay and the finding's identity take them
from it. No module holds them: two runs of one process (a test, ``pctfuzz accept``
trying a new file) cannot see each other's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

__all__ = ["DEFAULT_SETTINGS", "RunSettings"]


@dataclass(frozen=True)
class RunSettings:
    """What is in force for a run: the accept file (``--accept``, ``[tool.pctfuzz]
    accept``; None: none), whether accepted differences apply at all (False under
    ``--no-accepted``) and the sets the project declares (``--set``, ``[tool.pctfuzz]
    sets``: label -> set name or spec, in order; empty: the adapter's own). Frozen and
    hashable: a cache may key on it."""

    accept_file: str | None = None
    accepted: bool = True
    declared: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, accept_file: str | None = None, accepted: bool = True,
           sets: Mapping[str, str] | None = None) -> RunSettings:
        """The settings from the shapes the project and the hand-off hold them in."""
        return cls(accept_file or None, bool(accepted), tuple((sets or {}).items()))

    @property
    def declared_sets(self) -> Mapping[str, str]:
        """The declared sets as a mapping (empty: none declared)."""
        return dict(self.declared)


#: No accept file, accepted differences in force, no declared sets: what a one-off
#: check (a test, the library API) runs with.
DEFAULT_SETTINGS: Final = RunSettings()
