"""An encoder (urllib's ``quote``) in a process that dies of SIGSEGV in C ``exit()``,
as a compiled JavaScript engine's static destructor made a held-out library's
processes die: libFuzzer ends its run with ``exit()``, and its signal handler then
writes the last input it ran as a crash (``tests/integration/test_native_crash.py``)."""
import ctypes
import os
import signal
from urllib.parse import quote

from pctfuzz.oracles import function_adapter

_libc = ctypes.CDLL("libc.so.6")
_AT_EXIT = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(
    lambda _arg: os.kill(os.getpid(), signal.SIGSEGV))
_libc.__cxa_atexit(_AT_EXIT, None, None)


def encode(text: str) -> str:
    return quote(text, safe="")


adapter = function_adapter("exit-crash", encode=encode, sets={"x": "component"})
