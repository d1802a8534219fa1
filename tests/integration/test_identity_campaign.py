"""Issue 10 end to end: real campaigns where every distinct bug is its own finding,
and where a lost finding or a target that never ran is never a green exit."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from campaigns import finding_saved, harness_said, pctfuzz_env, run_until

from pctfuzz._internal.exits import ExitCode

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = Path(__file__).resolve().parents[1] / "support"
PLANTED = "broken_impls:PlantedBugsUrllib"

pytestmark = pytest.mark.slow


def pctfuzz(*args: str, bugs: str = "") -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path, PCTFUZZ_TEST_BUGS=bugs)
    return subprocess.run([sys.executable, "-m", "pctfuzz", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def _corpus(tmp: Path) -> Path:
    corpus = tmp / "corpus"
    shutil.copytree(ROOT / "corpus" / "diff_encode", corpus / "diff_encode")
    return corpus


def _classes(findings: Path) -> dict[str, str]:
    """class part of the signature -> record file, for the divergence findings."""
    out = {}
    for path in findings.glob("divergence-*.json"):
        record = json.loads(path.read_text())
        out[record["signature"].split("|")[3]] = str(path)
    return out


def test_three_planted_bugs_are_three_findings_and_a_fourth_is_new(tmp_path: Path) -> None:
    corpus, findings = _corpus(tmp_path), tmp_path / "findings"
    common = ("diff_encode", "--jobs", "1", "--impl", PLANTED,
              "--corpus", str(corpus), "--findings", str(findings))
    # Until three findings are saved (an event), then SIGINT: never a time budget.
    run = run_until(common, finding_saved(findings, 3), cwd=ROOT,
                    env=dict(pctfuzz_env(SUPPORT), PCTFUZZ_TEST_BUGS="hex,tilde,plus"))
    assert run.returncode == ExitCode.FOUND, run.stdout + run.stderr
    classes = _classes(findings)
    # Issue 21: each bug is named by the catalogue rule that explains it.
    assert set(classes) == {"rule=lowercase_hex()", "rule=encoded(chars=~)",
                            "rule=space_as(space=+)"}, classes
    hex_case = [p for c, p in classes.items() if c == "rule=lowercase_hex()"]
    others = [p for c, p in classes.items() if c != "rule=lowercase_hex()"]

    # Fix one bug: its finding no longer reproduces, the other two still do.
    fixed = pctfuzz("replay", "--impl", PLANTED, *hex_case, bugs="tilde,plus")
    assert fixed.returncode == 0 and "no longer reproduces" in fixed.stdout, fixed.stdout
    still = pctfuzz("replay", "--impl", PLANTED, *others, bugs="tilde,plus")
    assert still.returncode == ExitCode.FOUND
    assert still.stdout.count(": reproduces") == len(others), still.stdout

    # A fourth bug, added later, on the same findings folder: a new finding, exit 1.
    again = run_until(common, finding_saved(findings, 4), cwd=ROOT,
                      env=dict(pctfuzz_env(SUPPORT), PCTFUZZ_TEST_BUGS="tilde,plus,lt"))
    assert again.returncode == ExitCode.FOUND, again.stdout + again.stderr
    new = set(_classes(findings)) - set(classes)
    assert any("rule=left_raw(chars=<)" in c for c in new), new
    assert len(new) == 1, new


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs of this test's own (root only; skipped where mount is refused)."""
    mount = tmp_path / f"tmpfs-{uuid.uuid4().hex[:8]}"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _incomplete_run(tmp_path: Path, findings: Path) -> None:
    corpus = _corpus(tmp_path)
    out = tmp_path / "results.json"
    junit = tmp_path / "results.xml"
    # Until the harness said it lost the finding (an event, in its -v log under
    # TMPDIR), then SIGINT: the budget is a safety cap; the lost finding still makes
    # the stopped run incomplete.
    (tmpdir := tmp_path / "tmp").mkdir()
    path = os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path, PCTFUZZ_TEST_BUGS="tilde", TMPDIR=str(tmpdir))
    run = run_until(["diff_encode", "--jobs", "1", "-v", "--impl", PLANTED,
                     "--corpus", str(corpus), "--findings", str(findings),
                     "--json", str(out), "--junit", str(junit)],
                    harness_said(tmpdir, r"^pctfuzz: LOST FINDING "), cwd=ROOT, env=env)
    assert run.returncode == ExitCode.INCOMPLETE, run.stdout + run.stderr
    assert "INCOMPLETE: diff_encode: lost FINDING" in run.stdout, run.stdout
    document = json.loads(out.read_text())
    assert document["exit_code"] == ExitCode.INCOMPLETE
    assert any(e["message"].startswith("INCOMPLETE") for e in document["errors"])
    assert document["targets"][0]["problems"]
    assert 'type="incomplete"' in junit.read_text()


def test_read_only_findings_folder_is_an_incomplete_run(tmp_path: Path, tmpfs: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    _incomplete_run(tmp_path, tmpfs)


def test_full_findings_disk_is_an_incomplete_run(tmp_path: Path, tmpfs: Path) -> None:
    with open(tmpfs / "filler", "wb") as handle, contextlib.suppress(OSError):
        handle.write(b"\0" * (128 << 10))  # ENOSPC: the disk is full, as wanted
    _incomplete_run(tmp_path, tmpfs)


def _corpus_on(mount: Path) -> Path:
    """Three seed inputs of ``decode`` on the small tmpfs (4 KiB a file there)."""
    (corpus := mount / "corpus" / "decode").mkdir(parents=True)
    for path in sorted((ROOT / "corpus" / "decode").iterdir())[:3]:
        shutil.copy(path, corpus / path.name)
    return corpus.parent


def test_a_read_only_corpus_is_refused_at_the_start(tmp_path: Path, tmpfs: Path) -> None:
    """Issue 33, item 19: a corpus root on a read-only mount is one line and exit 2
    before any harness starts (it was a warning per input and exit 3 at the end)."""
    corpus = _corpus_on(tmpfs)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    run = subprocess.run(
        [sys.executable, "-m", "pctfuzz", "fuzz", "decode", "--jobs", "1", "--max-time", "600",
         "--corpus", str(corpus), "--findings", str(tmp_path / "findings")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == ExitCode.USAGE, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert "cannot write here" in run.stderr, run.stderr
    assert not (tmp_path / "findings").exists() or not list((tmp_path / "findings").iterdir())


def test_corpus_disk_full_the_run_goes_on(tmp_path: Path, tmpfs: Path) -> None:
    """Issue 14: a corpus folder that cannot take the private copy or new inputs: the
    campaign fuzzes from a copy in the temporary folder, says so, and ends with its
    summary and --json; nothing is left behind in the corpus root. Issue 23, item 13:
    the new inputs it could not keep are lost, so the run is incomplete (exit 3), as
    for a lost finding (it used to exit 0 with a warning only). (A read-only corpus is
    refused at the start: ``test_a_read_only_corpus_is_refused_at_the_start``.)

    Event-driven: the campaign is stopped (SIGINT) once libFuzzer has written new
    inputs to its private copy (which the test's own TMPDIR holds), not after a time."""
    corpus = _corpus_on(tmpfs)
    with open(tmpfs / "filler", "wb") as handle, contextlib.suppress(OSError):
        handle.write(b"\0" * (128 << 10))
    out = tmp_path / "results.json"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    campaign = subprocess.Popen(
        [sys.executable, "-m", "pctfuzz", "fuzz", "decode", "--jobs", "1", "--max-time", "600",
         "--corpus", str(corpus), "--findings", str(tmp_path / "findings"), "--json", str(out)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def new_inputs() -> bool:
            return any(len(os.listdir(d)) > 3 for d in scratch.glob(".libfuzzer-decode-*"))

        for _ in range(3000):  # a safety cap (300 s), not a time budget
            if new_inputs() or campaign.poll() is not None:
                break
            time.sleep(0.1)
        assert new_inputs(), "libFuzzer wrote no new input"
        campaign.send_signal(signal.SIGINT)
        stdout, stderr = campaign.communicate(timeout=600)
    finally:
        if campaign.poll() is None:
            campaign.kill()
            campaign.wait()
    assert campaign.returncode == ExitCode.INCOMPLETE, stdout + stderr
    assert "cannot take a private copy" in stderr
    assert "new corpus input(s)" in stdout, stdout
    assert json.loads(out.read_text())["exit_code"] == ExitCode.INCOMPLETE
    assert sorted(p.name for p in corpus.iterdir()) == ["decode"]
