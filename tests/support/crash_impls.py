"""An implementation under test that kills its process natively, on a question only.

For ``tests/unit/test_breadcrumb.py`` and ``tests/integration/test_native_crash.py``:
importable as ``crash_impls:adapter`` (``--impl``) when ``tests/support/`` is on
``PYTHONPATH``.

Its encoder is ``quote(text, safe="")`` over the component set, so most inputs differ
from the reference (``!'()*~`` are escaped) and are named; and it dies of SIGSEGV (a
read of address 0 through ``ctypes``, as a C extension's bug would) on a value of
exactly one BEL (U+0007). libFuzzer's own inputs all but never are that; the set probe
(``checks.profile.set_probe``) asks it of every implementation it names a difference
of, as it asks every ASCII character alone. ``make_adapter`` gives a fresh adapter (the
probe's answers are kept per adapter object; ``dies=False``, one that survives BEL, for
a test that lets the probe run in its own process).
"""

from __future__ import annotations

import ctypes
from typing import Any
from urllib.parse import quote

from pctfuzz.oracles import function_adapter

#: The one value it dies on.
DEADLY = "\x07"


def die() -> None:
    """SIGSEGV, as a C extension's bug: a read of address 0."""
    ctypes.string_at(0)


def encode(text: str) -> str:
    if text == DEADLY:
        die()
    return quote(text, safe="")


def make_adapter(*, dies: bool = True) -> Any:
    """A fresh adapter; ``dies=False``: the same encoder, which answers BEL too."""
    return function_adapter("probe-segv", encode=encode if dies else _survives,
                            sets={"c": "component"})


def _survives(text: str) -> str:
    return quote(text, safe="")


adapter = make_adapter()
