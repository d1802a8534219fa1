"""Built-in entries for libcurl (adapters ``curl-escape``, ``curl-url``;
``pctfuzz._internal.oracles.curl``), each cited to the libcurl manual."""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.cases import Case, EncodeCase
from pctfuzz._internal.checks.registry.common import Pair, add_entry
from pctfuzz._internal.operations import ENCODE
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.sets import get_set

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_PATH = "rfc3986-unreserved-/"


def _empty_path(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if actual.value == "/" and expected.value == "":
        return actual, actual
    return None


_entry(
    id="curl-url-empty-path",
    impl="curl-url",
    check=ENCODE.name,
    summary="curl_url_get returns '/' for an empty path",
    applies=lambda case: isinstance(case, EncodeCase) and case.value in ("", b"")
    and get_set(case.set_name).name == get_set(_PATH).name,
    reconcile=_empty_path,
    reference="'' (nothing to encode)",
    implementation="'/' (an HTTP URL's path is at least '/')",
    citation="libcurl manual, curl_url_get CURLUPART_PATH: 'The path is returned ... always "
    "starting with a slash'; RFC 9110 4.2.1 (an empty path is '/')",
    why="the URL's path, not the encoder: the same URL",
    example=EncodeCase("", _PATH),
)
