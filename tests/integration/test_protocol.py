"""The process line protocol (``pctfuzz._internal.oracles.process``, docs/protocol.md) and the
built-in Node.js peers: the handshake, every question against the reference outside the
registry, and every way a peer can fail (dies, hangs, garbage, wrong version, no node)
ending in a clear error or finding, never a hang."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks import strategies
from pctfuzz._internal.checks.differential import (
    check_decode,
    check_encode,
    check_form,
    check_form_parse,
)
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.oracles import Unsupported, get_impl
from pctfuzz._internal.oracles.process import (
    PeerDied,
    PeerProtocolError,
    PeerTimeout,
    PeerUnavailable,
    ProcessAdapter,
    RemoteError,
    remote_error_type,
)
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.violations import Divergence

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="not available: node not found on PATH")
PEERS = ["node", "node-querystring", "whatwg-url"]
ROOT = Path(__file__).resolve().parents[2]
PEER_JS = ROOT / "src" / "pctfuzz" / "peers" / "node"


# --- the handshake ---------------------------------------------------------------------------
@needs_node
@pytest.mark.parametrize("name", PEERS)
def test_handshake_names_peer_versions_and_questions(name: str) -> None:
    impl = get_impl(name)
    assert isinstance(impl, ProcessAdapter)
    info = impl.peer_info
    assert (info["protocol"], info["version"]) == ("pctfuzz-peer", 1)
    assert info["peer"] == "pctfuzz-node-peer"
    node_version = subprocess.run([NODE or "node", "--version"], capture_output=True,
                                  text=True, check=True).stdout.strip()
    assert info["runtime"] == f"node {node_version}"
    own = info["implementations"][name]
    assert own["questions"] == ["encode", "decode", "form_serialize", "form_parse"]
    if name == "whatwg-url":
        lock = json.loads((PEER_JS / "package.json").read_text())
        assert impl.version == lock["dependencies"]["whatwg-url"]
    else:
        assert impl.version == node_version


@needs_node
def test_missing_npm_package_is_not_available(tmp_path: Path) -> None:
    """The peer reports whatwg-url unavailable when it cannot require it; the built-ins
    of the same peer still work."""
    script = tmp_path / "peer.js"
    shutil.copy(PEER_JS / "peer.js", script)  # no node_modules beside this copy
    env = {k: v for k, v in os.environ.items() if k != "NODE_PATH"}
    with pytest.raises(PeerUnavailable, match=r"not available: the whatwg-url npm package"):
        _Adapter([NODE or "node", str(script)], "whatwg-url", env=env)
    built_in = _Adapter([NODE or "node", str(script)], "node", env=env)
    assert built_in.encode(EncodeCase("a b", "component")) == "a%20b"


@needs_node
def test_node_modules_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PCTFUZZ_NODE_MODULES: an install whose package folder has no node_modules (a
    wheel) finds whatwg-url in the folder it names."""
    from pctfuzz._internal.oracles.node import _node_env

    script = tmp_path / "peer.js"
    shutil.copy(PEER_JS / "peer.js", script)
    monkeypatch.setenv("PCTFUZZ_NODE_MODULES", str(PEER_JS / "node_modules"))
    monkeypatch.delenv("NODE_PATH", raising=False)
    extra = _node_env()
    assert extra == {"NODE_PATH": str(PEER_JS / "node_modules")}
    adapter = _Adapter([NODE or "node", str(script)], "whatwg-url", env={**os.environ, **extra})
    assert adapter.encode(EncodeCase("a b", "fragment")) == "a%20b"
    adapter.close()


# --- each question, against the reference ------------------------------------------------------
def _sets_of(name: str) -> list[str]:
    impl = get_impl(name)
    assert isinstance(impl, ProcessAdapter)
    return sorted(impl.peer_info["implementations"][name]["sets"])


def _encode_cases(name: str) -> st.SearchStrategy[EncodeCase]:
    return st.builds(
        EncodeCase,
        st.one_of(strategies.text_values(), strategies.binary_values()),
        st.sampled_from(_sets_of(name)),
        strategies.encoding_labels(),
        st.booleans(),
    )


CHECKS: dict[str, tuple[Callable[..., Any], Callable[[str], st.SearchStrategy[Any]]]] = {
    "encode": (check_encode, _encode_cases),
    "decode": (check_decode, lambda name: strategies.decode_cases()),
    "form": (check_form, lambda name: strategies.form_cases(surrogates=True)),
    "form-parse": (check_form_parse, lambda name: strategies.form_parse_cases()),
}


@needs_node
@pytest.mark.parametrize("check_name", list(CHECKS))
@pytest.mark.parametrize("name", PEERS)
def test_agrees_outside_the_registry(name: str, check_name: str) -> None:
    """Only the sets the peer declares, so every encode case is a real round trip."""
    check, strategy = CHECKS[check_name]
    impl = get_impl(name)

    @settings(max_examples=150)
    @given(strategy(name))
    def run(case: Any) -> None:
        check(case, impl)

    run()


@needs_node
def test_node_answers() -> None:
    node = get_impl("node")
    value = "a b/é?#&=+~!*'()\x00\x7f\U0001f600"
    assert node.encode(EncodeCase(value, "component")) == percent_encode(value, "component")
    component = percent_encode(value, "component")
    assert node.encode(EncodeCase(value, "encodeURIComponent")) == component
    assert node.encode(EncodeCase(value, "encodeURI")) == percent_encode(value, "encodeURI")
    form = "application/x-www-form-urlencoded"
    assert node.encode(EncodeCase(value, form, "utf-8", True)) == percent_encode(
        value, form, space_as_plus=True
    )
    assert node.decode(DecodeCase("%41%C3%A9%F0%9F%98%80")) == "Aé😀".encode()
    assert node.form_serialize(FormCase((("a b", "é&="),))) == "a+b=%C3%A9%26%3D"
    assert node.form_parse(FormParseCase("?a=b+c&&%41")) == [("?a", "b c"), ("A", "")]


@needs_node
def test_querystring_and_whatwg_url_answer() -> None:
    qs, whatwg = get_impl("node-querystring"), get_impl("whatwg-url")
    assert qs.encode(EncodeCase("a b~!", "component")) == "a%20b~!"
    assert qs.decode(DecodeCase("a%20b%zz")) == b"a b%zz"
    assert qs.form_serialize(FormCase((("a", "1"), ("a", "2"), ("b", "")))) == "a=1&a=2&b="
    assert qs.form_parse(FormParseCase("a=1&b=x+y")) == [("a", "1"), ("b", "x y")]
    for set_name in ("fragment", "query", "special-query", "path", "userinfo"):
        text = "a b\"#<>`'?^{}:;=@[\\]|$%&+,"
        assert whatwg.encode(EncodeCase(text, set_name)) == percent_encode(text, set_name)
    assert whatwg.decode(DecodeCase(b"%41%FF%")) == percent_decode(b"%41%FF%")
    assert whatwg.decode(DecodeCase("\ud800%41")) == b"\xef\xbf\xbdA"


@needs_node
@pytest.mark.parametrize(
    ("name", "case", "reason"),
    [
        ("node", EncodeCase(b"a", "component"), "takes a string"),
        ("node", EncodeCase("a", "component", "Shift_JIS"), "UTF-8"),
        ("node", EncodeCase("a", "component", "utf-8", True), "never write space"),
        ("node", EncodeCase("a", "path"), "does not percent-encode with the path set"),
        ("node", FormParseCase(b"a=b"), "takes a string"),
        ("node-querystring", FormCase((("a", "1"), ("b", "2"), ("a", "3"))), "order is lost"),
        ("node-querystring", FormParseCase("a=1&b=2&a=3"), "order"),
        ("node-querystring", FormParseCase("b=1&0=2"), "array-index"),
        ("whatwg-url", EncodeCase("a\tb", "fragment"), "tab and newline"),
        ("whatwg-url", EncodeCase("a/../b", "path"), r"'\.' and '\.\.'"),
        # Two lone surrogates in a row are one astral character in UTF-16.
        ("node", EncodeCase("\ud83d\ude00", "component"), "one character in UTF-16"),
        ("node", FormCase((("\ud83d\ude00", ""),)), "one character in UTF-16"),
    ],
)
def test_unsupported_cases(name: str, case: Any, reason: str) -> None:
    impl = get_impl(name)
    method = {
        EncodeCase: impl.encode,
        DecodeCase: impl.decode,
        FormCase: impl.form_serialize,
        FormParseCase: impl.form_parse,
    }[type(case)]
    with pytest.raises(Unsupported, match=reason):
        method(case)


@needs_node
def test_remote_exceptions_keep_their_type() -> None:
    node = get_impl("node")
    with pytest.raises(RemoteError, match="URI malformed") as info:
        node.decode(DecodeCase("%"))
    assert type(info.value) is remote_error_type("URIError")
    assert type(info.value).__name__ == "URIError"
    assert remote_error_type("URIError") is not remote_error_type("TypeError")
    assert remote_error_type("not an identifier!") is RemoteError
    # Accepted only through its registry entry, and a lone surrogate comes back intact.
    assert check_decode(DecodeCase("%"), node) == ("node-decodeuricomponent-malformed",)
    assert node.form_parse(FormParseCase("\ud800")) == [("\ufffd", "")]
    assert get_impl("node-querystring").form_parse(FormParseCase("\ud800")) == [("\ud800", "")]


# --- peers that fail ----------------------------------------------------------------------------
class _Adapter(ProcessAdapter):
    name = "fake"

    def __init__(self, command: list[str], peer_impl: str = "fake", *,
                 env: dict[str, str] | None = None, timeout: float = 5.0) -> None:
        self.env = env
        super().__init__(command, peer_impl, name=peer_impl, timeout=timeout)

    def _environment(self) -> dict[str, str] | None:
        return self.env


# A Python peer speaking the protocol, whose behaviour on request N is chosen by argv.
FAKE = textwrap.dedent(
    """
    import json, os, sys, time
    mode, when = sys.argv[1], int(sys.argv[2])
    hello = json.loads(sys.stdin.readline())
    version = 2 if mode == "version" else hello["version"]
    impls = {"fake": {"version": "0", "questions": ["encode"]}}
    print(json.dumps({"protocol": "pctfuzz-peer", "version": version, "peer": "fake",
                      "runtime": "python", "implementations": impls}), flush=True)
    for n, line in enumerate(sys.stdin, 1):
        request = json.loads(line)
        if mode == "chatty":
            sys.stderr.write("x" * (1 << 18) + f"\\nlast line {n}\\n"); sys.stderr.flush()
        if mode == "always-extra":  # every answer followed by a stray line
            print(json.dumps({"id": request["id"], "ok": request["value"].upper()}))
            print("debug: done", flush=True); continue
        if mode == "late-extra":  # every answer, then a stray line once it was read
            print(json.dumps({"id": request["id"], "ok": request["value"].upper()}),
                  flush=True)
            time.sleep(0.2); print("debug: done", flush=True); time.sleep(0.2); continue
        flag = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flag")
        if mode == "debug-on-flag" and os.path.exists(flag):  # a stray line first
            print("debug: encoding", flush=True)
        if mode in ("die", "chatty") and request["value"] == "boom":  # this input kills it
            sys.stderr.write("fake peer: giving up\\n"); sys.stderr.flush()
            os._exit(3)
        if n == when:
            if mode == "extra":  # the answer, then one stray line on stdout
                print(json.dumps({"id": request["id"], "ok": request["value"].upper()}))
                print(json.dumps({"id": request["id"], "ok": "stale"}), flush=True); continue
            if mode == "next-id":  # the answer and a stray line for the next id, at once
                print(json.dumps({"id": request["id"], "ok": request["value"].upper()}))
                print(json.dumps({"id": request["id"] + 1, "ok": "stale"}), flush=True)
                continue
            if mode == "next-id-late":  # the answer, then (apart) a line for the next id
                print(json.dumps({"id": request["id"], "ok": request["value"].upper()}),
                      flush=True)
                print(json.dumps({"id": request["id"] + 1, "ok": "stale"}), flush=True)
                continue
            if mode == "debug":  # a stray line, then the answer
                print("debug: encoding", flush=True)
            if mode in ("die", "chatty"):
                sys.stderr.write("fake peer: giving up\\n"); sys.stderr.flush()
                os._exit(3)
            if mode == "hang":
                time.sleep(3600)
            hung = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hung-once")
            if mode == "hang-once" and not os.path.exists(hung):  # the first peer only
                open(hung, "w").close()
                time.sleep(3600)
            if mode == "garbage":
                print("this is not json", flush=True); continue
            if mode == "wrong-id":
                print(json.dumps({"id": request["id"] + 1, "ok": "x"}), flush=True); continue
            if mode == "shape":
                print(json.dumps({"id": request["id"], "ok": 1, "error": 2}), flush=True)
                continue
        print(json.dumps({"id": request["id"], "ok": request["value"].upper()}), flush=True)
    """
)


@pytest.fixture
def fake(tmp_path: Path) -> Callable[..., _Adapter]:
    script = tmp_path / "fake_peer.py"
    script.write_text(FAKE)

    def make(mode: str, when: int = 2, timeout: float = 5.0) -> _Adapter:
        return _Adapter([sys.executable, str(script), mode, str(when)], timeout=timeout)

    return make


def _encode(adapter: ProcessAdapter, text: str = "a") -> str:
    return adapter.encode(EncodeCase(text, "component"))


def test_fake_peer_answers(fake: Callable[..., _Adapter]) -> None:
    adapter = fake("none", 0)
    assert [_encode(adapter, t) for t in ("a", "b\ud800")] == ["A", "B\ud800"]
    adapter.close()


def test_peer_that_dies_is_a_clear_error_and_restarts(fake: Callable[..., _Adapter]) -> None:
    """An input that kills the peer, and a fresh one too, is blamed: ``PeerDied``."""
    adapter = fake("die", 0)
    assert _encode(adapter) == "A"
    with pytest.raises(PeerDied, match=r"exited with status 3: fake peer: giving up "
                       r"\(again on a fresh peer; first: peer exited with status 3"):
        _encode(adapter, "boom")
    # The next request starts a fresh peer.
    assert _encode(adapter) == "A"
    adapter.close()


def test_a_peer_death_is_not_blamed_on_an_innocent_input(
        fake: Callable[..., _Adapter]) -> None:
    """Issue 33, item 18: a peer that dies on its second request whatever it is, or is
    killed between two requests, is the peer's failure (``peer_failures``, one
    ``PEER FAILED`` line): the input is answered by a fresh peer, never a finding."""
    adapter = fake("die", 2)
    assert _encode(adapter, "a") == "A"
    assert _encode(adapter, "b") == "B"
    assert len(adapter.peer_failures) == 1
    assert "exited with status 3: fake peer: giving up" in adapter.peer_failures[0]
    peer = adapter._peer
    assert peer is not None
    os.kill(peer.proc.pid, signal.SIGKILL)
    peer.proc.wait()
    assert _encode(adapter, "c") == "C"
    assert "killed by signal 9" in adapter.peer_failures[1]
    adapter.close()


@pytest.mark.parametrize("mode", ["always-extra", "late-extra"])
def test_a_peer_writing_extra_lines_blames_no_input(fake: Callable[..., _Adapter], mode: str,
                                                    capfd: pytest.CaptureFixture[str]) -> None:
    """Issue 33, item 18: lines outside a request are the peer's failure: an answer is
    taken only for the request in flight, never compared otherwise, no input blamed.
    ``late-extra``: the stray line comes after the answer was read, so it is read as
    the next request's answer (CI, PYTHONUNBUFFERED=1: the two lines were two writes);
    a fresh peer answers that request, so the first one's line was its failure."""
    adapter = fake(mode, 0)
    for text in "abcdef":
        with contextlib.suppress(Unsupported):
            assert _encode(adapter, text) == text.upper()
    assert adapter.peer_failures
    said = [line for line in capfd.readouterr().err.splitlines() if "PEER FAILED" in line]
    assert said and all(line.startswith("pctfuzz: PEER FAILED fake: ") for line in said)
    adapter.close()


def test_a_peer_gone_wrong_for_every_input_blames_none(fake: Callable[..., _Adapter],
                                                       tmp_path: Path) -> None:
    """Issue 33, item 18: a peer that starts writing a stray line before every answer
    fails this input on a fresh peer too, but also a question it answered before (or
    writes two lines for one request): the peer's failure (``Unsupported``,
    ``peer_failures``), not a finding on the input."""
    adapter = fake("debug-on-flag", 0)
    assert _encode(adapter, "a") == "A"
    (tmp_path / "flag").write_text("")
    with pytest.raises(Unsupported, match=r"answers out of protocol|lines nobody asked for"):
        _encode(adapter, "b")
    assert check_encode(EncodeCase("c", "component"), adapter) is None  # not compared
    assert adapter.peer_failures
    adapter.close()


def test_peer_that_hangs_is_killed(fake: Callable[..., _Adapter]) -> None:
    """A peer that hangs on an input, and a fresh one on it too, is killed each time
    and blamed: ``PeerTimeout`` (issue 33: after one retry)."""
    adapter = fake("hang", 1, timeout=0.5)
    peer = adapter._peer
    assert peer is not None
    with pytest.raises(PeerTimeout, match=r"did not answer within 0.5 s; killed it "
                       r"\(again on a fresh peer; first: peer did not answer within 0.5 s"):
        _encode(adapter)
    assert peer.proc.poll() is not None  # killed, not left behind
    assert adapter.peer_failures == []  # the input's failure, not the peer's
    adapter.close()


def test_a_peer_that_times_out_once_is_restarted_and_asked_again(
        fake: Callable[..., _Adapter], capfd: pytest.CaptureFixture[str]) -> None:
    """Issue 33: one timeout (a loaded machine) is not blamed on the input: the peer is
    killed, a fresh one is asked the same request and answers; the timeout is the
    peer's failure (``peer_failures``, one ``PEER FAILED`` line: a campaign ends
    incomplete), never a ``PeerTimeout`` finding. Only the first peer hangs, on its
    second request (the event: a flag file it creates), whatever the clock says."""
    adapter = fake("hang-once", 2)
    first = adapter._peer
    assert _encode(adapter, "a") == "A"
    assert _encode(adapter, "b") == "B"
    assert first is not None and first.proc.poll() is not None  # killed
    assert adapter._peer is not first
    (failure,) = adapter.peer_failures
    assert "did not answer within 5 s" in failure and "a fresh peer answered" in failure
    assert "PEER FAILED fake: peer did not answer" in capfd.readouterr().err
    assert _encode(adapter, "c") == "C"
    adapter.close()


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("garbage", r"answer is not JSON: b'this is not json'.*again after a restart"),
        ("wrong-id", r"answer to request \d+ has another id.*again after a restart"),
        ("shape", r"answer to request \d+ has the wrong shape"),
    ],
)
def test_garbage_answers_are_protocol_errors(
    fake: Callable[..., _Adapter], mode: str, message: str
) -> None:
    adapter = fake(mode, 1)
    with pytest.raises(PeerProtocolError, match=message):
        _encode(adapter)
    adapter.close()


@pytest.mark.parametrize("mode", ["extra", "debug", "next-id", "next-id-late"])
def test_a_stray_stdout_line_never_shifts_the_answers(fake: Callable[..., _Adapter],
                                                      mode: str) -> None:
    """Issue 23, item 4: one extra line used to be read as the next request's answer
    (and every later one); now every answer is matched to its id, and a mismatch
    restarts the peer and retries the request, never compares. Issue 33, item 13: a
    stray line carrying the *next* request's id is not that request's answer either
    (only the request in flight is answered; a line for an id not yet asked, or one
    nobody asked for, is the peer's protocol error)."""
    adapter = fake(mode, 2)
    texts = [chr(ord("a") + n) for n in range(12)]
    assert [_encode(adapter, t) for t in texts] == [t.upper() for t in texts]
    adapter.close()


def test_peer_stderr_keeps_a_bounded_tail(fake: Callable[..., _Adapter]) -> None:
    """Issue 23, item 3: a peer writing 256 KiB of stderr per request is drained as
    it goes and only the tail is kept (no temp file grows), and a death still names
    the last line."""
    adapter = fake("chatty", 0)
    for _ in range(39):
        assert _encode(adapter) == "A"
    with pytest.raises(PeerDied, match=r"exited with status 3: fake peer: giving up "
                       r"\(again on a fresh peer; first: .*: fake peer: giving up\)$"):
        _encode(adapter, "boom")
    held = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            info = os.fstat(int(fd))
            if stat.S_ISREG(info.st_mode) and info.st_nlink == 0:
                held = max(held, info.st_size)  # a deleted temp file still open
    assert held < 1 << 20, f"an open deleted file of {held} bytes"
    adapter.close()


def test_wrong_version_or_no_protocol_is_unavailable(
    fake: Callable[..., _Adapter], tmp_path: Path
) -> None:
    with pytest.raises(PeerUnavailable, match=r"speaks 'pctfuzz-peer' version 2, not .* 1"):
        fake("version", 0)
    silent = tmp_path / "exits.py"
    silent.write_text("import sys; sys.stdin.readline(); print('hello'); sys.exit(0)\n")
    with pytest.raises(PeerUnavailable, match=r"handshake answer is not JSON"):
        _Adapter([sys.executable, str(silent)])
    with pytest.raises(PeerUnavailable, match=r"cannot start"):
        _Adapter([str(tmp_path / "no-such-peer")])


def test_peer_death_is_a_crash_finding(fake: Callable[..., _Adapter]) -> None:
    """Through the differential check, a dead peer is a Divergence whose impl_error is
    PeerDied: the fuzzer records it as kind crash, its own signature."""
    from pctfuzz._internal.identity import classify

    adapter = fake("die", 0)
    with pytest.raises(Divergence) as info:
        check_encode(EncodeCase("boom", "component"), adapter)
    assert isinstance(info.value.impl_error, PeerDied)
    kind, _check, located = classify(info.value)
    assert kind == "crash" and isinstance(located, PeerDied)
    adapter.close()


@needs_node
def test_killed_node_peer_is_a_clear_error() -> None:
    adapter = get_impl("node")
    assert isinstance(adapter, ProcessAdapter)
    fresh = type(adapter)()  # its own peer: the cached one is shared with other tests
    peer = fresh._peer
    assert peer is not None
    os.kill(peer.proc.pid, signal.SIGKILL)
    peer.proc.wait()
    # Killed between two requests: the peer's failure, the input answered by a fresh
    # peer (issue 33, item 18), never a finding on it.
    assert check_encode(EncodeCase("a", "component"), fresh) == ()
    assert "killed by signal 9" in fresh.peer_failures[0]
    assert check_encode(EncodeCase("a b", "component"), fresh) == ()  # restarted
    fresh.close()


@needs_node
@pytest.mark.slow
def test_killing_the_peer_mid_campaign_is_the_peers_failure(tmp_path: Path) -> None:
    """A real campaign: the Node peer of the libFuzzer process is killed while it runs;
    the campaign says the peer failed and ends incomplete, with no finding blaming the
    input that happened to be next (issue 33, item 18)."""
    from campaigns import CAP, Watched, execs_at_least, wait_until

    marker = uuid.uuid4().hex
    corpus, findings = tmp_path / "corpus", tmp_path / "findings"
    shutil.copytree(ROOT / "corpus", corpus)
    env = {**os.environ, "PCTFUZZ_TEST_MARK": marker}
    pctfuzz = Path(sys.executable).with_name("pctfuzz")
    # Events, never seconds (issue 23.16): the peer is killed once the harness fuzzes
    # through it (a status line with executions), and the campaign is stopped (SIGINT)
    # once the crash finding is saved; the budget is only a safety cap.
    command = [str(pctfuzz), "fuzz", "diff_encode", "--impl", "node", "--max-time", str(CAP),
               "--jobs", "1", "--corpus", str(corpus), "--findings", str(findings)]
    campaign = Watched(command, cwd=tmp_path, env=env)
    found: list[int] = []

    def peer_found() -> bool:
        pid = _find_peer(marker, campaign.proc.pid)
        if pid is not None:
            found.append(pid)
        return pid is not None

    try:
        campaign.wait_for(execs_at_least(1, "diff_encode"), "status line with executions")
        wait_until(peer_found, "node peer of the harness")
        os.kill(found[0], signal.SIGKILL)
        # The harness asks a fresh peer (a new pid) once it has seen the death.
        wait_until(lambda: (pid := _find_peer(marker, campaign.proc.pid)) is not None
                   and pid != found[0], "a fresh node peer")
    finally:
        if campaign.proc.poll() is None:
            campaign.proc.send_signal(signal.SIGINT)
        run = campaign.finish()
    output = run.stdout + run.stderr
    records = [json.loads(p.read_text()) for p in findings.glob("*.json")]
    assert not [r for r in records if "PeerDied" in r["signature"]], output
    assert run.returncode == 3, output  # incomplete: the peer failed
    assert "peer failed: " in output and "killed by signal 9" in output, output


def _find_peer(marker: str, campaign: int) -> int | None:
    """A node peer started by a harness of the campaign (not by the campaign's own
    process, which checks --impl before it starts the harnesses)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
            parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == campaign or b"peer.js" not in cmdline:
            continue
        if f"PCTFUZZ_TEST_MARK={marker}".encode() in environ:
            return int(entry.name)
    return None


# --- no node --------------------------------------------------------------------------------
def test_missing_node_is_not_available(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no node
    for name in PEERS:
        with pytest.raises(PctfuzzError, match=r"not available: node not found"):
            get_impl(name)
    assert get_impl("urllib").encode(EncodeCase("a b", "component")) == "a%20b"


def test_missing_node_on_the_command_line(tmp_path: Path) -> None:
    """One line, exit 2, no traceback; the rest of pctfuzz still runs."""
    pctfuzz = str(Path(sys.executable).with_name("pctfuzz"))
    env = {**os.environ, "PATH": str(tmp_path)}
    run = subprocess.run([pctfuzz, "fuzz", "diff_encode", "--impl", "node", "--max-time", "1",
                          "--corpus", str(tmp_path / "c"), "--findings", str(tmp_path / "f")],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "pctfuzz fuzz: error: node: not available: node not found on PATH (install Node.js)"
    ]
    ok = subprocess.run([pctfuzz, "encode", "a b"], env=env, capture_output=True, text=True,
                        timeout=600)
    assert (ok.returncode, ok.stdout) == (0, "a%20b\n")
