"""The question a harness process is asking its implementation, kept on disk for the
campaign that runs it: its breadcrumb.

libFuzzer knows one input per execution, the one it gave. The differential check asks
the implementation more than that input while it names or minimizes a divergence (the
set probe asks every ASCII character alone, ``own_chars``, the variants of
``generalize``, the minimizer's candidates): *questions*, each asked through
``checks.profile.run_impl``. When a question kills the process (a SIGSEGV in a C
extension, an ``abort()``, an ``os._exit``), libFuzzer's crash file holds the input
being named, which may well not crash.

So a record-mode harness of a differential target keeps a ``Breadcrumb``: a file the
campaign names (``fuzz.protocol.HarnessSettings.breadcrumb``, in the process's private
artifacts folder), mapped into memory. ``run_impl`` writes each question there (its
operation and case, JSON) before the implementation gets it and clears it when the
implementation answers or raises an ``Exception``; a process that dies inside a
question leaves it written, and the campaign records that question as the input of
the crash (``read_breadcrumb``, ``fuzz.libfuzzer.record_death``). The first question
of each input is the input's own case (``Breadcrumb.primary``, set by the driver
before each input): libFuzzer's crash file says it already, so it is not written, and
an input that asks nothing more costs one attribute set. The file also holds, once,
the adapter's ``AnswerDomain``: the campaign rebuilds a question's raw input with it,
and reads libFuzzer's own crash file as the harness read it.

Layout: bytes 0-7, the question's length (little-endian; 0: none is being asked);
bytes 8-15, the domain's length; the domain's JSON from byte 16, the question's JSON
right after it. A question is written before its length, so a length never names a
part-written question. The map is shared, so what a process that dies wrote is in
the file for the campaign to read.
"""

from __future__ import annotations

import base64
import contextlib
import json
import mmap
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii as _text
from pathlib import Path
from typing import Any, ClassVar

from pctfuzz._internal.cases import (
    Case,
    DecodeCase,
    EncodeCase,
    FormParseCase,
    case_from_json,
)
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.formats import AnswerDomain
from pctfuzz._internal.operations import get_operation

__all__ = ["MAX_SIZE", "Breadcrumb", "Trail", "crashed_questions", "read_breadcrumb",
           "remember_crashed"]

#: The map's size to begin with; a longer question grows it.
_INITIAL_SIZE = 1 << 16
#: The largest breadcrumb file the campaign reads.
MAX_SIZE = 64 << 20
_HEAD = 16
_NONE = bytes(8)
_JSON = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"))


class Breadcrumb:
    """The breadcrumb of this process (module docstring): ``current`` when armed."""

    #: The armed breadcrumb of the process (``arm``), which ``run_impl`` writes.
    current: ClassVar[Breadcrumb | None] = None

    def __init__(self, path: Path, domain: AnswerDomain | None = None) -> None:
        self.path = path
        #: The questions an earlier process of this file died asking (``crashed``).
        self.crashed: frozenset[bytes] = _crashed_before(path)
        header = _JSON.encode(None if domain is None else domain.to_json()).encode("ascii")
        self._base = _HEAD + len(header)
        size = max(_INITIAL_SIZE, self._base + 1)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600)
        try:
            os.ftruncate(fd, size)
            self._map = mmap.mmap(fd, size)  # (it keeps a descriptor of its own)
        finally:
            os.close(fd)
        self._map[8:_HEAD] = len(header).to_bytes(8, "little")
        self._map[_HEAD:self._base] = header
        #: The next question is the input's own case (the driver sets it per input).
        self.primary = False

    def arm(self) -> Breadcrumb:
        """Make this the process's breadcrumb (``current``)."""
        Breadcrumb.current = self
        return self

    @staticmethod
    def disarm() -> None:
        Breadcrumb.current = None

    def ask(self, check: str, case: Case) -> None:
        """Write ``case``, a question of operation ``check``, as being asked. Never
        raises: a question that cannot be written (no memory to grow the map) is
        written as one that cannot be read (``Trail.torn``), and asked all the same."""
        try:
            payload = _said(check, case)
            end = self._base + len(payload)
            if end > len(self._map):
                self._map[0:8] = _NONE
                self._map.resize(max(end, 2 * len(self._map)))
            self._map[self._base:end] = payload
        except Exception:
            payload = b"?"
            self._map[self._base:self._base + 1] = payload
        self._map[0:8] = len(payload).to_bytes(8, "little")

    def answered(self) -> None:
        """The question was answered (or refused): none is being asked."""
        self._map[0:8] = _NONE

    def killed_before(self, check: str, case: Case) -> bool:
        """An earlier process of this breadcrumb's file died asking this question (it
        is recorded already: ``fuzz.libfuzzer.record_death``), so it is not asked again:
        the process that restarts would die at the same question of its first naming."""
        return bool(self.crashed) and _said(check, case) in self.crashed


#: Beside a breadcrumb file, the questions earlier processes died asking, one JSON per
#: line (``crashed_questions``, ``remember_crashed``); at most this many are kept.
_CRASHED_SUFFIX = ".crashed"
_MAX_CRASHED = 256


def crashed_questions(path: Path) -> list[bytes]:
    """The questions listed beside the breadcrumb file ``path``, and the one its file
    says was being asked as its process died (the campaign reads them after a death,
    ``fuzz.campaign``, and hands them to the next process: ``remember_crashed``)."""
    listed = path.with_name(path.name + _CRASHED_SUFFIX)
    try:
        known = listed.read_bytes().splitlines()[:_MAX_CRASHED] if listed.is_file() else []
    except OSError:
        known = []
    trail = read_breadcrumb(path)
    if trail is not None and trail.question is not None:
        said = _said(*trail.question)
        if said not in known:
            known.append(said)
    return known[:_MAX_CRASHED]


def remember_crashed(path: Path, questions: list[bytes]) -> None:
    """List ``questions`` beside the breadcrumb file ``path`` of a process to come, which
    answers them as refused (``Breadcrumb.killed_before``). Never raises: unlisted, a
    question is asked, and the process dies again."""
    with contextlib.suppress(OSError):
        path.with_name(path.name + _CRASHED_SUFFIX).write_bytes(
            b"".join(q + b"\n" for q in questions[:_MAX_CRASHED]))


def _crashed_before(path: Path) -> frozenset[bytes]:
    """The questions earlier processes died asking, for a process about to use ``path``:
    those listed beside it, and the one its file says was being asked (listed in turn,
    for a next process on the same file)."""
    known = crashed_questions(path)
    if known:
        remember_crashed(path, known)
    return frozenset(known)


def _said(check: str, case: Case) -> bytes:
    """The question's JSON, ``{"check": ..., "case": <case.to_json()>}``; a str as
    its text whatever it holds (JSON's escapes keep a lone surrogate, which
    ``case_from_json`` reads back as it was). For the cases of one value, the
    questions naming asks most, the JSON around the value is kept (``_HEADS``): a
    JSON encoder costs more than the rest of the question (``ask``)."""
    kind = type(case)
    key: tuple[Any, ...]
    if kind is EncodeCase:
        assert isinstance(case, EncodeCase)
        key, field, value = (check, case.set_name, case.encoding, case.space_as_plus), \
            "value", case.value
    elif kind is DecodeCase:
        assert isinstance(case, DecodeCase)
        key, field, value = (check, kind), "value", case.value
    elif kind is FormParseCase:
        assert isinstance(case, FormParseCase)
        key, field, value = (check, kind), "text", case.text
    else:
        return _JSON.encode({"check": check, "case": case.to_json()}).encode("ascii")
    head = _HEADS.get(key)
    if head is None:
        if len(_HEADS) >= 256:
            _HEADS.clear()
        # the value last, so that what follows it is the same for every case
        fields = {name: data for name, data in case.to_json().items() if name != field}
        text = _JSON.encode({"check": check, "case": {**fields, field: None}})
        head = _HEADS[key] = text.removesuffix("null}}").encode("ascii")
    if isinstance(value, str):
        return head + b'{"text":' + _text(value).encode("ascii") + b"}}}"
    return head + b'{"base64":"' + base64.b64encode(value) + b'"}}}'


#: The JSON of a question before its value, per operation and the case's other fields
#: (``_said``; a pure cache, bounded).
_HEADS: dict[tuple[Any, ...], bytes] = {}


@dataclass(frozen=True)
class Trail:
    """What a breadcrumb file says (``read_breadcrumb``): the adapter's answer domain
    (None: not said) and the question being asked as the process died, ``(operation,
    case)`` (None: none was). ``torn``: a question was being asked, but what the file
    holds of it cannot be read (the process died as it wrote it: its input is not
    known)."""

    domain: AnswerDomain | None
    question: tuple[str, Case] | None = None
    torn: bool = False


def read_breadcrumb(path: Path) -> Trail | None:
    """The trail of a breadcrumb file; None when there is none (the process died before
    it wrote one, or does not keep one) or it is no breadcrumb (a regular file of at
    most ``MAX_SIZE`` bytes with a readable domain)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_SIZE:
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        data = b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) < _HEAD:
        return None
    asked = int.from_bytes(data[0:8], "little")
    said = int.from_bytes(data[8:_HEAD], "little")
    base = _HEAD + said
    if base > len(data):
        return None
    try:
        domain_json = json.loads(data[_HEAD:base])
        domain = None if domain_json is None else AnswerDomain.from_json(domain_json)
    except (ValueError, PctfuzzError):
        return None
    if asked == 0:
        return Trail(domain)
    try:
        if base + asked > len(data):
            raise ValueError("cut short")
        return Trail(domain, _question(json.loads(data[base:base + asked])))
    except (ValueError, PctfuzzError):
        return Trail(domain, torn=True)


def _question(data: Any) -> tuple[str, Case]:
    if not isinstance(data, Mapping) or not isinstance(data.get("check"), str):
        raise ValueError("no question")
    operation = get_operation(data["check"])
    case = case_from_json(data.get("case"))
    if operation.name != data["check"] or not isinstance(case, operation.case_type):
        raise ValueError(f"no {data['check']} question")
    return operation.name, case

