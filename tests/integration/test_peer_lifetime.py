"""No peer and no harness outlives its campaign (issue 23, item 2).

A peer that hangs at full CPU inside a request (``tests/support/hung_peer.py``) is
started by the campaign's harness; the campaign then ends normally, by SIGTERM, by
SIGKILL, or with its whole process group killed. Every process started for the test
carries a marker in its environment; the test waits (a bounded poll of ``/proc``,
never a fixed sleep) until none is left.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import IO

import pytest

SUPPORT = Path(__file__).resolve().parents[1] / "support"
ROOT = Path(__file__).resolve().parents[2]
PEER_JS = ROOT / "src" / "pctfuzz" / "peers" / "node" / "peer.js"

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")


def _marked(marker: str) -> dict[int, bytes]:
    """Live (not zombie) processes whose environment holds ``marker``: pid -> cmdline."""
    needle = f"PCTFUZZ_TEST_MARK={marker}".encode()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in environ and state != "Z":
            found[int(entry.name)] = cmdline
    return found


def _wait_until(predicate: object, cap: float, what: str) -> None:
    """Poll ``predicate`` every 0.1 s; the cap is a safety net, not a time budget."""
    assert callable(predicate)
    end = time.monotonic() + cap
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(what)


def _kill_leftovers(marker: str) -> None:
    for pid in _marked(marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
@pytest.mark.parametrize("ending", ["normal", "sigterm", "sigkill", "sigkill-group"])
def test_a_hung_peer_never_outlives_its_campaign(tmp_path: Path, ending: str) -> None:
    marker = uuid.uuid4().hex
    env = dict(os.environ, PCTFUZZ_TEST_MARK=marker, PCTFUZZ_PEER_TIMEOUT="3600",
               PYTHONPATH=os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")]))
    # The deadline only matters for "normal"; the others stop the campaign themselves
    # once the peer hangs (an event), long before it. A "normal" campaign whose deadline
    # passed before its harness started the peer (a starved machine) proves nothing: skip.
    max_time = "30" if ending == "normal" else "600"
    command = [sys.executable, "-m", "pctfuzz", "fuzz", "diff_encode", "--impl",
               "hung_peer:HungPeer", "--max-time", max_time, "--timeout", "3600",
               "--jobs", "1", "--corpus", str(tmp_path / "corpus"),
               "--findings", str(tmp_path / "findings")]
    campaign = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        def peer_hangs() -> bool:
            return any(b"hung_peer.py" in c and _busy(pid)
                       for pid, c in _marked(marker).items())

        _wait_until(lambda: peer_hangs() or campaign.poll() is not None, 600,
                    "the harness never started its peer (a hang?)")
        if campaign.poll() is not None:
            assert ending == "normal", "the campaign ended before it was stopped"
            pytest.skip("the deadline passed before the harness started its peer")
        if ending == "sigterm":
            campaign.send_signal(signal.SIGTERM)
        elif ending == "sigkill":
            campaign.kill()
        elif ending == "sigkill-group":
            os.killpg(campaign.pid, signal.SIGKILL)
        campaign.wait(timeout=300)
        _wait_until(lambda: not _marked(marker), 120,
                    f"left running after the campaign: {_marked(marker)}")
    finally:
        if campaign.poll() is None:
            campaign.kill()
            campaign.wait()
        _kill_leftovers(marker)


def _busy(pid: int) -> bool:
    """The process has used CPU time (it is past its handshake, spinning)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return int(fields[11]) + int(fields[12]) > 10  # utime + stime, in clock ticks


@pytest.mark.skipif(shutil.which("node") is None, reason="not available: node not on PATH")
def test_node_peer_watchdog_exits_when_its_parent_dies(tmp_path: Path) -> None:
    """The Node peer's own watchdog: its parent dies without a parent-death signal set
    and someone else still holds its stdin open, so only the watchdog can end it."""
    marker = uuid.uuid4().hex
    read_end, write_end = os.pipe()
    starter = _starter(PEER_JS, read_end)
    parent = subprocess.Popen([sys.executable, "-c", starter], pass_fds=(read_end,),
                              env=dict(os.environ, PCTFUZZ_TEST_MARK=marker),
                              stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        peer = int(_line(parent.stdout))
        os.close(read_end)
        # The peer is up once it has answered a handshake written by us.
        os.write(write_end, b'{"protocol": "pctfuzz-peer", "version": 1}\n')
        assert _line(parent.stdout).startswith('{"protocol"')
        parent.kill()
        parent.wait()
        _wait_until(lambda: not Path(f"/proc/{peer}").exists() or _zombie(peer), 60,
                    "the node peer outlived its parent")
    finally:
        os.close(write_end)
        if parent.poll() is None:
            parent.kill()
        _kill_leftovers(marker)


def _line(stream: IO[str]) -> str:
    """One line, or a failure if none comes (a safety cap, not a time budget)."""
    assert select.select([stream], [], [], 120)[0], "no line from the peer"
    return stream.readline()


def _starter(script: Path, stdin_fd: int) -> str:
    """Python source: start ``node script`` with stdin ``stdin_fd`` and its stdout on
    ours, print its pid, then wait forever (to be killed)."""
    return (
        "import subprocess, sys, time\n"
        f"p = subprocess.Popen(['node', {str(script)!r}], stdin={stdin_fd}, "
        "stdout=sys.stdout, start_new_session=True)\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(3600)\n"
    )


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


#: A process that starts the Node peer from a thread that then ends (as a worker of a
#: ThreadPoolExecutor would), waits until the kernel has seen that thread go, asks the
#: peer once more and prints "<peer pid> <answer> <peer pid now>"; then waits.
_FROM_A_THREAD = """
import os, sys, threading, time
from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.oracles.node import NodeAdapter
box = []
starter = threading.Thread(target=lambda: box.append(NodeAdapter()))
starter.start()
starter.join()
end = time.monotonic() + 120
while os.path.exists(f"/proc/self/task/{starter.native_id}") and time.monotonic() < end:
    time.sleep(0.01)
adapter = box[0]
pid = adapter._peer.proc.pid
answer = adapter.encode(EncodeCase("a b~", "component"))
print(pid, answer, adapter._peer.proc.pid, flush=True)
sys.stdin.readline()
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="not available: node not on PATH")
def test_a_peer_started_from_a_thread_outlives_the_thread_not_the_process() -> None:
    """``PR_SET_PDEATHSIG`` fires when the *thread* that started a child ends: a peer
    started from a worker thread must still answer after that thread is gone (the same
    process, not a restarted one), and still die with its process on SIGKILL."""
    marker = uuid.uuid4().hex
    user = subprocess.Popen([sys.executable, "-c", _FROM_A_THREAD], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PCTFUZZ_TEST_MARK=marker))
    try:
        assert user.stdout is not None
        assert select.select([user.stdout], [], [], 300)[0], "the peer never answered"
        line = user.stdout.readline().split()
        assert len(line) == 3, (line, user.stderr.read() if user.poll() is not None else "")
        pid, answer, pid_after = line
        assert answer == "a%20b~" and pid == pid_after
        assert _marked(marker).keys() >= {int(pid)}
        user.kill()  # SIGKILL: no atexit, no close; the kernel and the watchdog remain
        user.wait()
        _wait_until(lambda: int(pid) not in _marked(marker), 120,
                    f"the peer {pid} outlived its process killed by SIGKILL")
    finally:
        if user.poll() is None:
            user.kill()
            user.wait()
        _kill_leftovers(marker)


# --- grandchildren of a peer (issue 33, item 18) ------------------------------------------
def _gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists() or _zombie(pid)


def _grandchildren(record: Path) -> list[int]:
    try:
        return [int(line) for line in record.read_text().split()]
    except OSError:
        return []


@pytest.mark.parametrize("impl", ["ForkingPeer", "SetsidPeer"])
def test_closing_a_peer_kills_its_grandchildren(tmp_path: Path, impl: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A grandchild in the peer's process group, or one that left it (``setsid``), dies
    with the peer when the adapter closes; so does one orphaned by the peer's death."""
    from pctfuzz._internal.cases import EncodeCase

    record = tmp_path / "grandchildren"
    monkeypatch.setenv("PCTFUZZ_TEST_GRANDCHILDREN", str(record))
    monkeypatch.syspath_prepend(str(SUPPORT))
    import forking_peer

    adapter = getattr(forking_peer, impl)()
    try:
        assert adapter.encode(EncodeCase("a b", "component")) == "a%20b"
        _wait_until(lambda: len(_grandchildren(record)) == 1, 60, "no grandchild started")
        peer = adapter._peer
        assert peer is not None
        os.kill(peer.proc.pid, signal.SIGKILL)  # the peer dies: its grandchild orphaned
        peer.proc.wait()
        assert adapter.encode(EncodeCase("c d", "component")) == "c%20d"  # a fresh peer
        _wait_until(lambda: len(_grandchildren(record)) == 2, 60, "no second grandchild")
    finally:
        adapter.close()
    pids = _grandchildren(record)
    try:
        _wait_until(lambda: all(_gone(pid) for pid in pids), 60,
                    f"grandchildren left after close: {[p for p in pids if not _gone(p)]}")
    finally:
        for pid in pids:
            with contextlib.suppress(OSError):
                if b"forking_peer" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(pid, signal.SIGKILL)


@pytest.mark.slow  # a campaign, then a replay, per peer
@pytest.mark.parametrize("impl", ["ForkingPeer", "SetsidPeer"])
def test_no_grandchild_of_a_peer_outlives_a_campaign_or_replay(tmp_path: Path,
                                                               impl: str) -> None:
    """``pctfuzz fuzz`` then ``pctfuzz replay --open`` on a peer that forks: when each
    command has ended, no process it or its peers started is left (the marker in the
    environment finds them, wherever they were reparented)."""
    from pctfuzz._internal.cases import EncodeCase
    from pctfuzz._internal.checks.differential import check_encode
    from pctfuzz._internal.store import FindingStore, new_finding

    marker = uuid.uuid4().hex
    record = tmp_path / "grandchildren"
    env = dict(os.environ, PCTFUZZ_TEST_MARK=marker, PCTFUZZ_TEST_GRANDCHILDREN=str(record),
               PYTHONPATH=os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")]))
    findings = tmp_path / "findings"
    sys.path.insert(0, str(SUPPORT))
    try:
        import forking_peer
    finally:
        sys.path.remove(str(SUPPORT))
    adapter = getattr(forking_peer, impl)()
    case = EncodeCase("boom", "component")
    with pytest.raises(Exception) as caught:
        check_encode(case, adapter)
    adapter.close()
    FindingStore(findings).record(new_finding("diff_encode", "crash", caught.value,
                                              case=case, impl=f"forking_peer:{impl}"))
    try:
        for command in (["fuzz", "diff_encode", "--max-time", "2", "--jobs", "1",
                         "--corpus", str(tmp_path / "corpus")], ["replay", "--open"]):
            before = len(_grandchildren(record))
            run = subprocess.run([sys.executable, "-m", "pctfuzz", *command, "--impl",
                                  f"forking_peer:{impl}", "--findings", str(findings)],
                                 cwd=tmp_path, env=env, capture_output=True, text=True,
                                 timeout=600)
            assert "Traceback" not in run.stderr, run.stderr
            assert len(_grandchildren(record)) > before, (command, run.stdout, run.stderr)
            _wait_until(lambda: not _marked(marker), 60,
                        f"left running after {command[0]}: {_marked(marker)}")
    finally:
        _kill_leftovers(marker)


@pytest.mark.parametrize("driver", [pytest.param("hypothesis", marks=pytest.mark.slow),
                                    "libfuzzer"])
def test_a_peer_that_keeps_dying_is_its_own_failure_not_a_finding(tmp_path: Path,
                                                                  driver: str) -> None:
    """Issue 33, item 18: a peer that exits every few requests, whatever the input,
    makes no finding on the inputs it happened to hold: the campaign says the peer
    failed and ends incomplete (exit 3), with either driver."""
    from campaigns import CAP, Watched, harness_said

    (tmpdir := tmp_path / "tmp").mkdir()
    env = dict(os.environ, TMPDIR=str(tmpdir),
               PYTHONPATH=os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")]))
    findings = tmp_path / "findings"
    # Until the peer has failed (the event: its line, from the harness's log with -v),
    # then SIGINT: the budget is only a safety cap.
    campaign = Watched([sys.executable, "-m", "pctfuzz", "fuzz", "diff_encode", "--impl",
                        "forking_peer:DyingPeer", "--driver", driver, "--max-time", str(CAP),
                        "--jobs", "1", "--corpus", str(tmp_path / "corpus"),
                        "--findings", str(findings), *(["-v"] if driver == "libfuzzer" else [])],
                       cwd=tmp_path, env=env)
    said = harness_said(tmpdir, r"^pctfuzz: PEER FAILED ")

    def blamed() -> bool:  # what the campaign must not do: a finding on the input
        return any("PeerDied" in p.read_text() for p in findings.glob("*.json"))

    try:
        campaign.wait_for(lambda out: "pctfuzz: PEER FAILED " in out or said(out)
                          or blamed(), "a PEER FAILED line")
    finally:
        if campaign.proc.poll() is None:
            campaign.proc.send_signal(signal.SIGINT)
        run = campaign.finish()
    output = run.stdout + run.stderr
    assert "Traceback" not in output, output
    assert not [p for p in findings.glob("*.json") if "PeerDied" in p.read_text()], output
    assert run.returncode == 3, output
    assert "peer failed: " in output and "exited with status 7" in output, output


def test_a_peer_keeps_its_temporary_files_in_a_folder_that_close_removes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A peer's ``TMPDIR`` is a folder of pctfuzz's, removed when the adapter closes: a
    runtime killed at close leaves nothing in the system's (R's ``Rtmp*`` did)."""
    import tempfile

    from pctfuzz._internal.cases import EncodeCase

    monkeypatch.syspath_prepend(str(SUPPORT))
    import forking_peer

    adapter = forking_peer.DyingPeer()
    try:
        assert adapter.encode(EncodeCase("a b", "component")) == "a%20b"
        peer = adapter._peer
        assert peer is not None
        environ = Path(f"/proc/{peer.proc.pid}/environ").read_bytes().split(b"\0")
        folder = Path(os.fsdecode(next(v for v in environ if v.startswith(b"TMPDIR=")))[7:])
        assert folder.parent == Path(tempfile.gettempdir()) and folder.is_dir()
        (folder / "Rtmp-left-by-a-runtime").mkdir()  # what a killed runtime leaves
    finally:
        adapter.close()
    assert not folder.exists()
