"""The corpus and findings store: real files in tmp_path, real exceptions, real processes."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import multiprocessing
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pctfuzz._internal import store
from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase, case_from_json
from pctfuzz._internal.errors import CaseFormatError
from pctfuzz._internal.identity import SIGNATURE_VERSION
from pctfuzz._internal.store import (
    Corpus,
    Finding,
    FindingFormatError,
    FindingNotFoundError,
    FindingStore,
    StoreError,
    StoreProblem,
    load_finding,
    new_finding,
    new_stop_finding,
)
from pctfuzz._internal.targets import TARGETS
from pctfuzz._internal.violations import Violation

T0 = "2024-05-01T12:00:00.000Z"
T1 = "2024-05-02T12:00:00.000Z"
T2 = "2024-05-03T12:00:00.000Z"
VERSIONS = {"python": "CPython 3.11", "pctfuzz": "0.1.0", "platform": "test"}


# ------------------------------------------------------------------ real exceptions


def _inner_check(text: str) -> None:
    if len(text) > 3:
        raise Violation("round-trip", text, expected=text, actual=text.upper())
    raise Violation("round-trip", text, expected=text, actual="")  # a different line


def _outer(text: str) -> None:
    _inner_check(text)


def _other_place(text: str) -> None:
    raise Violation("round-trip", text)


def _parse_bad_json() -> None:
    json.loads("{")


def _bad_case() -> None:
    case_from_json(42)


def _caught(fn: Callable[..., object], *args: Any) -> BaseException:
    try:
        fn(*args)
    except BaseException as exc:
        return exc
    raise AssertionError("did not raise")


def _finding(raw: bytes = b"\x00\xff%zz", value: str | bytes = "a\ud800b", **kw: Any) -> Finding:
    exc = _caught(_outer, "text")
    kw.setdefault("now", T0)
    return new_finding(
        "encode",
        "violation",
        exc,
        case=EncodeCase(value, "component"),
        raw_input=raw,
        versions=VERSIONS,
        **kw,
    )


# ------------------------------------------------------------- findings round trip


def test_round_trip_lone_surrogates_and_bytes(tmp_path: Path) -> None:
    findings = FindingStore(tmp_path / "findings")
    raw = bytes(range(256))
    f = _finding(raw=raw, actual="x\udc80y")
    stored, is_new = findings.record(f)
    assert is_new and stored == f
    path = findings.path_for(f)
    assert path.name == f"violation-encode-{f.id}.json"
    assert path.read_bytes().isascii()
    loaded = load_finding(path)
    assert loaded == f
    assert loaded.rebuild_case() == EncodeCase("a\ud800b", "component")
    assert loaded.raw_bytes() == raw
    assert loaded.actual == "x\udc80y"
    assert loaded.evidence["check"] == "round-trip"
    assert "_inner_check" in loaded.traceback
    assert findings.get(f.id) == f
    # bytes in the case too
    g = new_finding("decode", "crash", _caught(_bad_case), case=DecodeCase(raw), versions=VERSIONS)
    findings.record(g)
    assert findings.get(g.id).rebuild_case() == DecodeCase(raw)
    assert sorted(x.id for x in findings.iter_findings()) == sorted([f.id, g.id])
    assert findings.problems == []


def test_record_dedups_and_keeps_smaller_reproducer(tmp_path: Path) -> None:
    findings = FindingStore(tmp_path)
    first, new = findings.record(_finding(raw=b"x" * 100, now=T1))
    assert new and first.hits == 1
    smaller = _finding(raw=b"xyz", value="ab", now=T0, minimized=True)
    merged, new = findings.record(smaller)
    assert not new
    assert merged.hits == 2
    assert merged.raw_bytes() == b"xyz" and merged.minimized
    assert merged.rebuild_case() == EncodeCase("ab", "component")
    assert (merged.first_seen, merged.last_seen) == (T0, T1)
    findings.update_status(first.id, "known-divergence")
    merged, new = findings.record(_finding(raw=b"x" * 50, now=T2))
    assert not new
    assert merged.hits == 3 and merged.raw_bytes() == b"xyz"
    assert merged.status == "known-divergence" and merged.last_seen == T2
    assert findings.add_hits(first.id, 7).hits == 10
    assert [p.name for p in tmp_path.glob("*.json")] == [first.file_name]
    assert load_finding(findings.path_for(first)) == findings.get(first.id)


def test_update_status_and_missing_ids(tmp_path: Path) -> None:
    findings = FindingStore(tmp_path)
    f, _ = findings.record(_finding())
    assert findings.update_status(f.id, "fixed").status == "fixed"
    assert findings.get(f.id).status == "fixed"
    with pytest.raises(StoreError, match="status must be one of"):
        findings.update_status(f.id, "wontfix")
    with pytest.raises(FindingNotFoundError):
        findings.update_status("0123456789abcdef", "fixed")
    with pytest.raises(FindingNotFoundError):
        findings.get("../../etc/passwd")


def test_record_refuses_invalid_findings(tmp_path: Path) -> None:
    findings = FindingStore(tmp_path)
    good = _finding()
    bad_target = Finding(**{**good.to_json(), "target": "../escape"})
    with pytest.raises(FindingFormatError, match="invalid target"):
        findings.record(bad_target)
    with pytest.raises(FindingFormatError, match="id must be 16"):
        findings.record(Finding(**{**good.to_json(), "id": "../../x"}))
    with pytest.raises(FindingFormatError, match="not JSON-serializable"):
        findings.record(Finding(**{**good.to_json(), "evidence": {"x": float("nan")}}))
    assert list(tmp_path.iterdir()) == []
    assert not (tmp_path.parent / "escape").exists()


def test_record_moves_a_corrupt_record_aside(tmp_path: Path) -> None:
    findings = FindingStore(tmp_path)
    f = _finding()
    findings.path_for(f).write_text("{truncated")
    stored, new = findings.record(f)
    assert new and load_finding(findings.path_for(f)) == stored
    assert len(findings.problems) == 1 and "invalid JSON" in str(findings.problems[0])
    assert len(list(tmp_path.glob(f"{f.file_name}.corrupt-*"))) == 1


def test_new_stop_finding_rebuilds_the_case() -> None:
    class FakeTarget:
        name = "decode"

        @staticmethod
        def from_bytes(data: bytes) -> DecodeCase:
            return DecodeCase(data)

    f = new_stop_finding(target=FakeTarget(), kind="timeout", raw_input=b"%%%", now=T0)
    assert f.signature == "decode|timeout|-|-"
    assert f.rebuild_case() == DecodeCase(b"%%%") and f.raw_bytes() == b"%%%"
    g = new_stop_finding(target="decode", kind="oom", raw_input=b"")
    assert g.case is None
    with pytest.raises(CaseFormatError, match="has no case"):
        g.rebuild_case()


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_a_record_holds_a_case_of_its_target_s_type(target: str) -> None:
    """The store knows each built-in target's case type without importing
    ``pctfuzz._internal.targets`` (from ``identity.QUESTION``): here it agrees with the registry.
    A target name outside the registry takes any case."""
    for case in (EncodeCase("a", "path"), DecodeCase("%41"), FormCase((("a", "b"),)),
                 FormParseCase("a=b")):
        finding = new_finding(target, "crash", RuntimeError("x"), case=case, versions=VERSIONS)
        if type(case) is TARGETS[target].case_type:
            assert Finding.from_json(finding.to_json()) == finding
        else:
            with pytest.raises(FindingFormatError, match=f"does not belong to target {target} "):
                Finding.from_json(finding.to_json())
        mine = new_finding("mine", "crash", RuntimeError("x"), case=case, versions=VERSIONS)
        assert Finding.from_json(mine.to_json()) == mine


# ---------------------------------------------------------------- atomic writes


def _dir_names(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def test_atomic_write_leaves_no_temp_files(tmp_path: Path) -> None:
    findings = FindingStore(tmp_path)
    for raw in (b"aaaa", b"aa", b"a"):
        f, _ = findings.record(_finding(raw=raw))
    assert _dir_names(tmp_path) == [".locks", f.file_name]
    corpus = Corpus(tmp_path / "corpus")
    corpus.add("encode", b"seed")
    assert _dir_names(corpus.dir("encode")) == [hashlib.sha1(b"seed").hexdigest()]


def test_failed_write_keeps_old_record_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    findings = FindingStore(tmp_path)
    f, _ = findings.record(_finding())
    before = findings.path_for(f).read_bytes()

    def broken_replace(src: Any, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(StoreError, match="No space left"):
        findings.record(_finding())
    monkeypatch.undo()
    assert findings.path_for(f).read_bytes() == before
    assert not [n for n in _dir_names(tmp_path) if n.endswith(".tmp")]


def test_stale_temp_files_are_ignored_then_cleaned(tmp_path: Path) -> None:
    findings = FindingStore(tmp_path)
    f, _ = findings.record(_finding())
    stale = tmp_path / f".{f.file_name}.4242.0123456789ab.tmp"
    fresh = tmp_path / f".{f.file_name}.4243.0123456789ac.tmp"
    stale.write_text('{"half": ')
    fresh.write_text('{"half": ')
    old = time.time() - 7200
    os.utime(stale, (old, old))
    assert [x.id for x in findings.iter_findings()] == [f.id]
    assert findings.problems == []
    assert findings.cleanup_stale_temp(3600) == [stale]
    assert fresh.exists() and not stale.exists()

    corpus = Corpus(tmp_path / "corpus")
    corpus.add("decode", b"x")
    leftover = corpus.dir("decode") / ".abc.1.0123456789ab.tmp"
    leftover.write_bytes(b"partial")
    os.utime(leftover, (old, old))
    assert [d for _, d in corpus.iter("decode")] == [b"x"]
    assert corpus.cleanup_stale_temp(3600) == [leftover]


# ---------------------------------------------------------- malformed finding files


def _good_json() -> dict[str, Any]:
    return _finding().to_json()


def _dump(obj: object) -> bytes:
    return json.dumps(obj).encode()


def _with(**changes: Any) -> bytes:
    return _dump({**_good_json(), **changes})


def _without(name: str) -> bytes:
    data = _good_json()
    del data[name]
    return _dump(data)


def _make_dir(path: Path, outside: Path) -> None:
    path.mkdir()


def _make_symlink(path: Path, outside: Path) -> None:
    # the link points at a *valid* record outside the folder: following it would load
    target = outside / "secret.json"
    target.write_bytes(_finding().to_bytes())
    path.symlink_to(target)


def _make_fifo(path: Path, outside: Path) -> None:
    os.mkfifo(path)


def _make_huge(path: Path, outside: Path) -> None:
    path.touch()
    os.truncate(path, 200 * 1024 * 1024)  # sparse: no blocks written


_CONTENT: dict[str, tuple[bytes, str]] = {
    "truncated": (_finding().to_bytes()[:-40], "invalid JSON"),
    "utf8": (b'{"schema": 1, "target": "\xff\xfe"}', "invalid UTF-8 at byte"),
    "bom": (b"\xef\xbb\xbf" + _finding().to_bytes(), "BOM"),
    "empty": (b"", "empty file"),
    "list": (b"[1, 2, 3]", "expected a JSON object, got list"),
    "string": (b'"finding"', "expected a JSON object, got str"),
    "schema999": (_with(schema=999), "unsupported schema version 999 (written by a newer"),
    "schema-str": (_with(schema="1"), "field 'schema' must be int, not str"),
    "no-schema": (_without("schema"), "missing field 'schema'"),
    "no-hits": (_without("hits"), "missing field(s) 'hits'"),
    "hits-str": (_with(hits="3"), "field 'hits' must be int, not str"),
    "hits-bool": (_with(hits=True), "field 'hits' must be int, not bool"),
    "hits-zero": (_with(hits=0), "hits must be >= 1"),
    "case-list": (_with(case=[1]), "field 'case' must be dict or null, not list"),
    "id-dotdot": (_with(id="../../etc/passwd"), "id must be 16 lowercase hex digits"),
    "id-mismatch": (_with(id="0" * 16), "does not match its signature"),
    "kind": (_with(kind="segfault"), "kind must be one of"),
    "status": (_with(status="wontfix"), "status must be one of"),
    "target": (_with(target="a/b"), "invalid target"),
    "signature-newline": (_with(signature="encode|violation|x\ny"), "one printable line"),
    "nan": (_finding().to_bytes().replace(b'"hits": 1', b'"hits": NaN'), "NaN is not valid"),
    "infinity": (_finding().to_bytes().replace(b'"hits": 1', b'"hits": -Infinity'), "Infinity"),
    "duplicate": (
        _finding().to_bytes().replace(b'"hits": 1', b'"hits": 1, "hits": 2'),
        "duplicate",
    ),
    "unknown-field": (_with(extra=1), "unknown field(s) 'extra'"),
    "deep": (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    "case-type": (_with(case={"type": "teleport"}), "case: unknown case type"),
    "case-set": (_with(case={"type": "encode", "value": {"text": "a"}, "set": "nope"}), "case:"),
    "base64": (_with(raw_input="not base64!"), "raw_input is not valid base64"),
    "time": (_with(first_seen="2024-05-01T12:00:00"), "ISO 8601 UTC"),
    "time-order": (_with(first_seen=T2), "last_seen is before first_seen"),
    "big-int": (_finding().to_bytes().replace(b'"hits": 1', b'"hits": ' + b"9" * 5000), "JSON"),
}
_FILES: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "directory": (_make_dir, "is a directory"),
    "symlink": (_make_symlink, "is a symlink"),
    "fifo": (_make_fifo, "is not a regular file"),
    "huge": (_make_huge, "is 209715200 bytes, over the 16777216-byte limit"),
}


def _make_bad(folder: Path, outside: Path, label: str) -> tuple[Path, str]:
    path = folder / f"bad-{label}.json"
    if label in _CONTENT:
        content, fragment = _CONTENT[label]
        path.write_bytes(content)
    else:
        maker, fragment = _FILES[label]
        maker(path, outside)
    return path, fragment


@pytest.fixture
def spy_open(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    opened: list[str] = []
    real = os.open

    def spy(path: Any, *args: Any, **kwargs: Any) -> int:
        opened.append(os.fsdecode(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    return opened


@pytest.mark.parametrize("label", [*_CONTENT, *_FILES])
def test_malformed_finding_is_rejected_with_one_line(
    tmp_path: Path, label: str, spy_open: list[str]
) -> None:
    folder, outside = tmp_path / "findings", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    path, fragment = _make_bad(folder, outside, label)
    spy_open.clear()  # making the file opened it; only the store's opens count
    with pytest.raises(StoreError) as info:
        load_finding(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert fragment in message
    if label in ("huge", "symlink", "fifo", "directory"):
        assert str(path) not in spy_open  # rejected by lstat, never opened
    else:
        assert isinstance(info.value, CaseFormatError)


def test_malformed_files_are_reported_and_the_rest_still_load(tmp_path: Path) -> None:
    folder, outside = tmp_path / "findings", tmp_path / "outside"
    findings = FindingStore(folder)
    good1, _ = findings.record(_finding())
    good2, _ = findings.record(new_finding("decode", "crash", _caught(_bad_case), now=T0))
    outside.mkdir()
    bad = dict(_make_bad(folder, outside, label) for label in [*_CONTENT, *_FILES])
    misnamed = folder / "renamed.json"
    misnamed.write_bytes(good1.to_bytes())
    bad[misnamed] = "file name does not match its record"
    (folder / "README.md").write_text("not a finding")  # ignored: not *.json

    problems: list[StoreProblem] = []
    loaded = list(findings.iter_findings(problems))
    assert sorted(f.id for f in loaded) == sorted([good1.id, good2.id])
    assert len(bad) >= 15
    assert len(problems) == len(bad)
    for problem in problems:
        line = str(problem)
        assert "\n" not in line
        assert line.startswith(f"{problem.path}: ")
        assert bad[problem.path] in line, line


# ------------------------------------------------------------------------ corpus


def test_corpus_names_by_sha1_and_dedups(tmp_path: Path) -> None:
    corpus = Corpus(tmp_path)
    path = corpus.add("encode", b"%41\x00\xff")
    assert path == tmp_path.resolve() / "encode" / hashlib.sha1(b"%41\x00\xff").hexdigest()
    assert path.read_bytes() == b"%41\x00\xff"
    assert corpus.add("encode", b"%41\x00\xff") is None
    assert corpus.add("encode", b"") is not None
    assert [d for _, d in corpus.iter("encode")] == sorted(
        [b"%41\x00\xff", b""], key=lambda d: hashlib.sha1(d).hexdigest()
    )
    assert list(corpus.iter("never_written")) == []
    assert corpus.problems == []


def test_corpus_add_is_exclusive_between_threads(tmp_path: Path) -> None:
    corpus = Corpus(tmp_path)
    results: list[Path | None] = []
    threads = [
        threading.Thread(target=lambda: results.append(corpus.add("t", b"same"))) for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r is not None for r in results) == 1
    assert _dir_names(corpus.dir("t")) == [hashlib.sha1(b"same").hexdigest()]


def test_corpus_skips_and_reports_bad_entries(tmp_path: Path, spy_open: list[str]) -> None:
    corpus = Corpus(tmp_path / "corpus", max_size=64)
    good = corpus.add("decode", b"ok")
    assert good is not None
    folder = corpus.dir("decode")
    secret = tmp_path / "secret"
    secret.write_bytes(b"outside the corpus")
    (folder / "link").symlink_to(secret)
    (folder / "subdir").mkdir()
    (folder / "big").write_bytes(b"x" * 65)
    os.mkfifo(folder / "fifo")
    (folder / ".gitkeep").touch()  # hidden: ignored silently
    problems: list[StoreProblem] = []
    items = list(corpus.iter("decode", problems=problems))
    assert items == [(good, b"ok")]
    lines = {p.path.name: str(p) for p in problems}
    assert set(lines) == {"link", "subdir", "big", "fifo"}
    assert "symlink" in lines["link"] and "is a directory" in lines["subdir"]
    assert "over the 64-byte limit" in lines["big"] and "not a regular file" in lines["fifo"]
    assert all("\n" not in line and line.startswith(str(folder)) for line in lines.values())
    assert str(secret) not in spy_open and str(folder / "link") not in spy_open
    # a larger limit for one call
    assert len(list(corpus.iter("decode", max_size=1000, problems=[]))) == 2


def test_corpus_reports_read_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = Corpus(tmp_path)
    assert corpus.add("decode", b"one") is not None

    def failing_read(fd: int, n: int) -> bytes:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "read", failing_read)
    problems: list[StoreProblem] = []
    assert list(corpus.iter("decode", problems=problems)) == []
    assert len(problems) == 1 and "cannot be read: Input/output error" in str(problems[0])


@pytest.mark.parametrize("name", ["../escape", "a/b", "", ".", "..", "a b", "x\n", "é"])
def test_corpus_rejects_bad_target_names(tmp_path: Path, name: str) -> None:
    corpus = Corpus(tmp_path / "corpus")
    with pytest.raises(StoreError, match="invalid target name"):
        corpus.add(name, b"x")
    with pytest.raises(StoreError):
        list(corpus.iter(name))
    assert not (tmp_path / "escape").exists()


def test_corpus_never_follows_a_symlinked_target_dir(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f").write_bytes(b"x")
    corpus = Corpus(tmp_path / "corpus")
    corpus.root.mkdir()
    (corpus.root / "encode").symlink_to(outside)
    with pytest.raises(StoreError, match="symlink"):
        corpus.add("encode", b"y")
    problems: list[StoreProblem] = []
    assert list(corpus.iter("encode", problems=problems)) == []
    assert len(problems) == 1 and "symlink" in str(problems[0])
    assert _dir_names(outside) == ["f"]


# ------------------------------------------------------------------------- locks


def test_locks_live_in_a_hidden_folder_that_git_ignores(tmp_path: Path) -> None:
    """Lock files never sit next to the records: ``.locks/`` holds them, with a
    ``.gitignore`` of its own, so a project that commits its findings (as this one
    does) never commits a lock."""
    root = tmp_path / "findings"
    findings = FindingStore(root)
    f, _ = findings.record(_finding())
    findings.add_hits(f.id, 2)
    findings.update_status(f.id, "fixed")
    assert findings.lock_path(f.id) == root / ".locks" / f"{f.id}.lock"
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == [
        ".locks", ".locks/.gitignore", f".locks/{f.id}.lock", f.file_name]
    assert [x.id for x in findings.iter_findings()] == [f.id] and findings.problems == []
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=tmp_path, capture_output=True, text=True, check=True)
    assert status.stdout.splitlines() == [f"?? findings/{f.file_name}"]


def test_a_lock_folder_leading_out_of_the_store_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "findings", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / ".locks").symlink_to(outside)
    with pytest.raises(StoreError, match="resolves outside the store root") as info:
        FindingStore(root).record(_finding())
    assert "\n" not in str(info.value)
    assert list(outside.iterdir()) == [] and not list(root.glob("*.json"))


# ------------------------------------------------------------------- concurrency


def _record_many(root: str, times: int, ready: Any, go: Any) -> None:
    findings = FindingStore(Path(root))
    finding = _finding()
    ready.release()
    go.wait(30)  # both processes start recording together, so they contend
    for _ in range(times):
        findings.record(finding)


def test_two_processes_never_lose_hits(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    ready, go = ctx.Semaphore(0), ctx.Event()
    procs = [
        ctx.Process(target=_record_many, args=(str(tmp_path), 200, ready, go)) for _ in range(2)
    ]
    for p in procs:
        p.start()
    for _ in procs:
        assert ready.acquire(timeout=300)
    go.set()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    files = list(tmp_path.glob("*.json"))
    assert len(files) == 1
    assert load_finding(files[0]).hits == 400
    assert not list(tmp_path.glob(".*.tmp"))


def test_finding_file_is_plain_sorted_json(tmp_path: Path) -> None:
    findings = FindingStore(tmp_path)
    f, _ = findings.record(_finding(raw=b"\x00"))
    data = json.loads(findings.path_for(f).read_text())
    assert list(data) == sorted(data)
    assert data["schema"] == 2 and data["hits"] == 1 and data["status"] == "new"
    assert data["signature_version"] == SIGNATURE_VERSION
    assert base64.b64decode(data["raw_input"]) == b"\x00"
    assert data["case"] == {
        "type": "encode",
        "value": {"code_points": [0x61, 0xD800, 0x62]},
        "set": "component",
        "encoding": "utf-8",
        "space_as_plus": False,
    }


# ------------------------------------------- identity format and unreadable records


def test_schema_1_record_reads_as_signature_version_1(tmp_path: Path) -> None:
    f, _ = FindingStore(tmp_path).record(_finding(raw=b"\x01"))
    path = FindingStore(tmp_path).path_for(f)
    data = json.loads(path.read_text())
    del data["signature_version"]
    data["schema"] = 1
    path.write_text(json.dumps(data))
    old = load_finding(path)
    assert old.signature_version == 1 and old.schema == 2
    data["signature_version"] = 1  # schema 1 never had the field
    path.write_text(json.dumps(data))
    with pytest.raises(FindingFormatError, match="signature_version"):
        load_finding(path)


def test_unreadable_record_is_left_alone_not_replaced(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """EACCES on an existing record (root ignores chmod, so os.open is made to fail):
    the record is never moved aside or overwritten; record() raises StoreReadError."""
    findings = FindingStore(tmp_path)
    first, _ = findings.record(dataclasses_replace_status(findings, _finding(raw=b"\x02")))
    path = findings.path_for(first)
    before = path.read_bytes()
    real_open = os.open

    def deny(file: Any, flags: int, *args: Any, **kw: Any) -> int:
        if os.fspath(file) == os.fspath(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, flags, *args, **kw)

    monkeypatch.setattr(os, "open", deny)
    with pytest.raises(store.StoreReadError, match="Permission denied"):
        findings.record(_finding(raw=b"\x02"))
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name] == []
    assert load_finding(path).status == "known-divergence"


def dataclasses_replace_status(findings: FindingStore, finding: Finding) -> Finding:
    """``finding`` stored and triaged as known-divergence (a status worth keeping)."""
    stored, _ = findings.record(finding)
    return findings.update_status(stored.id, "known-divergence")


# ------------------------------------------------- a fixed finding back in another form
def _divergence(klass: str, behaviour: dict[str, Any] | None = None, value: str = "+",
                status: str = "new", now: str = T1) -> Finding:
    from pctfuzz._internal.identity import make_signature

    signature = make_signature("diff_encode", "divergence", "encode", klass, "lib")
    return new_finding("diff_encode", "divergence", RuntimeError("x"),
                       case=EncodeCase(value, "component"), signature=signature,
                       impl="lib", versions=VERSIONS, status=status, now=now,
                       behaviour=behaviour)


def _left_raw(chars: str) -> dict[str, Any]:
    return {"rule": "left_raw", "params": {"chars": chars}, "text": f"leaves {chars!r} as is"}


@pytest.mark.parametrize(("old", "new"), [
    # narrower, wider, another overlapping set of the same rule; a class it covers or
    # that covers it
    (("rule=left_raw(chars=+~)", _left_raw("+~")), ("rule=left_raw(chars=+)", _left_raw("+"))),
    (("rule=left_raw(chars=+)", _left_raw("+")), ("rule=left_raw(chars=+~)", _left_raw("+~"))),
    (("field=name;unit=upper;diff=changed", None), ("field=name;unit=0x42;diff=changed", None)),
    (("field=name;unit=0x42;diff=changed", None), ("field=name;unit=alnum;diff=changed", None)),
])
def test_a_fixed_finding_back_in_another_form_is_reopened(
        tmp_path: Path, old: tuple[str, Any], new: tuple[str, Any]) -> None:
    """A bug put back narrower or wider is the fixed finding reopened, not a new one:
    one record, open, with the fixed one's hits, first sighting and fix, and its id
    still resolved (issue 34: it was a new finding beside the fixed one)."""
    findings = FindingStore(tmp_path)
    fixed = dataclasses.replace(_divergence(*old, value="+~", status="fixed", now=T0),
                                hits=7, fixed_in={"version": "lib 2", "date": T1})
    findings.record(fixed)
    stored, is_new = findings.record(_divergence(*new, now=T2))
    assert is_new and findings.reopened == [(fixed.id, stored.id)]
    (only,) = findings.iter_findings()
    assert only == stored and only.id != fixed.id
    assert only.status == "new" and only.hits == 8 and only.first_seen == T0
    assert only.fixed_in == fixed.fixed_in and only.previous_ids == [fixed.id]
    assert only.signature.split("|")[3] == new[0]


@pytest.mark.parametrize(("old", "new"), [
    # another character of the same rule, another rule, another field, another shape
    (("rule=left_raw(chars=~)", _left_raw("~")), ("rule=left_raw(chars=+)", _left_raw("+"))),
    (("rule=encoded(chars=+)", {"rule": "encoded", "params": {"chars": "+"}, "text": "x"}),
     ("rule=left_raw(chars=+)", _left_raw("+"))),
    (("field=value;unit=upper;diff=changed", None), ("field=name;unit=0x42;diff=changed", None)),
    (("field=name;unit=upper;diff=changed", None), ("field=name;unit=0x42;diff=missing-output",
                                                    None)),
    (("field=name;unit=upper;diff=changed", None), ("rule=left_raw(chars=+)", _left_raw("+"))),
])
def test_another_behaviour_never_reopens_a_fixed_finding(
        tmp_path: Path, old: tuple[str, Any], new: tuple[str, Any]) -> None:
    findings = FindingStore(tmp_path)
    findings.record(_divergence(*old, status="fixed", now=T0))
    findings.record(_divergence(*new, now=T2))
    assert not findings.reopened
    assert sorted(f.status for f in findings.iter_findings()) == ["fixed", "new"]


def test_an_open_finding_is_never_taken_over(tmp_path: Path) -> None:
    findings = FindingStore(tmp_path)
    findings.record(_divergence("rule=left_raw(chars=+~)", _left_raw("+~"), now=T0))
    findings.record(_divergence("rule=left_raw(chars=+)", _left_raw("+"), now=T2))
    assert not findings.reopened and len(list(findings.iter_findings())) == 2
