"""Which side of each of the URL Standard's dated set changes an implementation is on
(``spec_changes.CHANGES``; ``pctfuzz matrix``'s change columns, docs/peers.md).

Decided by asking, never by a table of versions: the implementation encodes the
change's probe (``a^b`` for ``^`` joining the path set) with the changed set, through
its adapter, and its answer is compared with what the set writes now (``new``) and
before the change (``old``). Anything else is ``other`` (an error too); ``n/a`` when
it has no function for that set (``Unsupported``), or when it applies whatever set it
is given (``urllib.parse.quote`` with pctfuzz's safe characters): its answer would be
pctfuzz's own set, not the library's. The second is told by a set no library has, the
old set with ``!`` added: an implementation that answers that exactly as the set
says takes the set as an argument.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks.profile import run_impl
from pctfuzz._internal.operations import ENCODE
from pctfuzz._internal.oracles.base import Impl
from pctfuzz._internal.spec import percent_encode_after_encoding
from pctfuzz._internal.spec_changes import CHANGES, SetChange

__all__ = ["SIDES", "Follows", "follows", "sides"]

#: What a change column can read, in the order the pages explain them.
SIDES = ("new", "old", "other", "n/a")


@dataclass(frozen=True)
class Follows:
    """One implementation's side of one change, and what it answered (or why not)."""

    side: str
    answer: str


def _ask(impl: Impl, value: str, set_spec: str) -> str | None:
    """The implementation's encoding of ``value`` with ``set_spec`` as it answered
    (``raises T: ...`` for an error); None when it says ``Unsupported``."""
    outcome = run_impl(ENCODE.name, EncodeCase(value, set_spec, "UTF-8", False), impl)
    if outcome is None:
        return None
    return outcome.describe() if outcome.raised else str(outcome.value)


def follows(impl: Impl, change: SetChange) -> Follows:
    """Ask ``impl`` about ``change`` (module docstring): its side and its answer."""
    answer = _ask(impl, change.probe, change.set_name)
    if answer is None:
        return Follows("n/a", f"no function for the {change.set_name} set")
    odd_spec, odd_value = change.old_spec + "+%21", "!" + change.probe
    if _ask(impl, odd_value, odd_spec) == percent_encode_after_encoding(
            "UTF-8", odd_value, odd_spec):
        return Follows("n/a", "applies the set it is given")
    if answer == change.answer():
        return Follows("new", answer)
    return Follows("old" if answer == change.answer(old=True) else "other", answer)


def sides(impls: Mapping[str, Impl]) -> dict[str, dict[str, Follows]]:
    """implementation -> change id -> ``follows``, for every change of ``CHANGES``."""
    return {name: {change.id: follows(impl, change) for change in CHANGES}
            for name, impl in impls.items()}
