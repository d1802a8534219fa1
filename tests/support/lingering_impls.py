"""An implementation under test whose library leaves a thread running: importable as
``lingering_impls:adapter`` when ``tests/support/`` is on ``PYTHONPATH``.

Its encoder is ``quote(text, safe="")``, and its first call starts a non-daemon
thread that waits forever, as a library's worker pool does. The interpreter waits for
such a thread at exit: ``pctfuzz fuzz`` printed its summary and never exited
(``tests/integration/test_exit.py``)."""

from __future__ import annotations

import threading
from urllib.parse import quote

from pctfuzz.oracles import function_adapter

_started = threading.Event()


def encode(text: str) -> str:
    if not _started.is_set():
        _started.set()
        threading.Thread(target=threading.Event().wait, name="library-worker").start()
    return quote(text, safe="")


adapter = function_adapter("lingering-thread", encode=encode, sets={"c": "component"})
