"""Result writers never replace what is not a regular file (issue 23, item 1).

``--json``/``--sarif``/``--junit``/``--html``/``export -o`` replace a regular file
atomically; a device or FIFO (after symlinks: ``/dev/stdout``) is written in place, and
a full device is one line and exit 2. The devices are private copies made with
``mknod`` in the test's folder (root only), never the machine's own ``/dev/full``.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.store import FindingStore, new_finding
from pctfuzz._internal.store.errors import StoreError
from pctfuzz._internal.store.files import atomic_write


def _device(folder: Path, name: str, minor: int) -> Path:
    path = folder / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
        os.close(os.open(path, os.O_WRONLY))
    except (PermissionError, OSError):
        pytest.skip("mknod needs root and a mount that allows devices")
    return path


@pytest.fixture
def findings(tmp_path: Path) -> Path:
    store = FindingStore(tmp_path / "findings")
    store.record(new_finding("encode", "timeout", None, raw_input=b"\x00\xff"))
    return store.root


def _still_device(path: Path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


@pytest.mark.parametrize("option", ["--json", "--html"])
def test_report_to_a_null_device_writes_in_place(option: str, tmp_path: Path,
                                                 findings: Path) -> None:
    null = _device(tmp_path, "null", 3)
    assert main(["report", "--findings", str(findings), option, str(null)]) == ExitCode.OK
    assert _still_device(null)
    link = tmp_path / "stdout-like"
    link.symlink_to(null)  # /dev/stdout is a symlink to a device
    assert main(["report", "--findings", str(findings), option, str(link)]) == ExitCode.OK
    assert link.is_symlink() and _still_device(null)


def test_report_to_a_full_device_is_one_line_and_exit_2(
        tmp_path: Path, findings: Path, capsys: pytest.CaptureFixture[str]) -> None:
    full = _device(tmp_path, "full", 7)
    assert main(["report", "--findings", str(findings), "--json", str(full)]) == ExitCode.USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No space left" in err[0], err
    assert _still_device(full)


def test_export_to_a_fifo_writes_through_it(tmp_path: Path, findings: Path) -> None:
    (finding,) = [str(p) for p in findings.rglob("*.json")]
    fifo = tmp_path / "out.py"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as handle:
            received.append(handle.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    code = main(["export", finding, "-o", str(fifo)])
    thread.join(timeout=600)
    assert code == ExitCode.OK and not thread.is_alive()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert b"def test_" in received[0]


def test_a_regular_file_is_still_replaced_atomically(tmp_path: Path, findings: Path) -> None:
    out = tmp_path / "r.json"
    out.write_text("old")
    inode = out.stat().st_ino
    assert main(["report", "--findings", str(findings), "--json", str(out)]) == ExitCode.OK
    assert out.stat().st_ino != inode and out.read_text().startswith("{")


def test_store_atomic_write_never_replaces_a_device(tmp_path: Path) -> None:
    null = _device(tmp_path, "null", 3)
    with pytest.raises(StoreError, match="not a regular file"):
        atomic_write(null, b"data")
    assert _still_device(null)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(StoreError, match="not a regular file"):
        atomic_write(fifo, b"data")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
