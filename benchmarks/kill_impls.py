"""Planted adapters and recorded findings for ``benchmarks/kill_surfaces.py``.

Each ``raw_<name>`` adapter is pctfuzz's own component-set encoder with exactly one
character of that set left raw, so each has one finding that a catalogue rule
(``left_raw``) explains: what ``pctfuzz accept`` turns into a ``[[divergence]]`` entry.
One adapter per character, so that concurrent ``pctfuzz accept`` runs each have a
finding of their own to write into the shared accept file (``--impl
benchmarks.kill_impls:raw_dollar``, from the repository root).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pctfuzz import percent_encode
from pctfuzz.oracles import EncodeCase, function_adapter

__all__ = ["RAW", "record_left_raw"]

SET = "component"

#: adapter name -> the one character it leaves raw (each is percent-encoded by the
#: component set, so leaving it raw is a divergence; none splits a field on its own).
RAW: dict[str, str] = {"raw_dollar": "$", "raw_comma": ",", "raw_semicolon": ";",
                       "raw_at": "@"}


def _leaving_raw(char: str) -> Callable[[str], str]:
    escape = f"%{ord(char):02X}"

    def encode(value: str) -> str:
        return percent_encode(value, SET).replace(escape, char)

    encode.__name__ = f"encode_leaving_{escape[1:]}_raw"
    return encode


# ``--impl benchmarks.kill_impls:<name>``: each adapter is a module attribute.
globals().update({name: function_adapter(f"kill-{name.replace('_', '-')}",
                                         encode=_leaving_raw(char), sets={SET: SET})
                  for name, char in RAW.items()})


def record_left_raw(store: Path, name: str) -> str:
    """The finding of adapter ``name`` on ``a<char>b``, recorded in the findings folder
    ``store`` as a campaign records it; its id."""
    from pctfuzz._internal.fuzz.recorder import record_case
    from pctfuzz._internal.targets import get_target

    (ident,) = set(record_case(get_target("diff_encode"), globals()[name],
                               f"benchmarks.kill_impls:{name}", store,
                               EncodeCase(f"a{RAW[name]}b", SET, "UTF-8")).values())
    return ident
