"""urllib.parse with an emulated bug, chosen by ``PCTFUZZ_TEST_URLLIB_FAULT``, as a user
adapter module: the patch is applied when the module is imported (in the campaign's
libFuzzer children too), and ``PatchedUrllib`` is the default ``urllib`` adapter.

- ``unquote-ignore``: ``unquote``'s default ``errors`` is ``'ignore'`` (invalid UTF-8
  silently dropped instead of U+FFFD);
- ``unquote-plus-keeps-plus``: ``unquote_plus`` leaves ``+`` as is.
"""

from __future__ import annotations

import os
import urllib.parse

from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter

FAULT = os.environ.get("PCTFUZZ_TEST_URLLIB_FAULT", "")
_unquote = urllib.parse.unquote

if FAULT == "unquote-ignore":
    urllib.parse.unquote.__defaults__ = ("utf-8", "ignore")
elif FAULT == "unquote-plus-keeps-plus":

    def _keeps_plus(string: str, encoding: str = "utf-8", errors: str = "replace") -> str:
        return _unquote(string, encoding, errors)

    urllib.parse.unquote_plus = _keeps_plus
elif FAULT:
    raise RuntimeError(f"unknown PCTFUZZ_TEST_URLLIB_FAULT {FAULT!r}")


class PatchedUrllib(UrllibAdapter):
    """The default adapter, run against the patched module."""

    name = "urllib-patched"
    registry_names = ("urllib-patched", "urllib")
