"""``pctfuzz coverage`` measures what the corpus runs: an invariant target's inputs run
against the reference (``targets.resolve_subject``), so they cover the reference's
code, and an input that fails is named on its own line, never hidden."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

#: An adapter that crashes on every "~": a corpus input holding one fails its check.
_CRASHY = '''
from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter


class CrashesOnTilde(UrllibAdapter):
    name = "crashes-on-tilde"

    def encode(self, case: EncodeCase) -> str:
        if "~" in str(case.value):
            raise ZeroDivisionError("planted crash")
        return super().encode(case)
'''


def _coverage(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "pctfuzz", "coverage", *args,
                           "--html", str(tmp / "html")], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def _statements(stdout: str, module: str) -> tuple[int, int]:
    found = re.search(rf"^  {re.escape(module)}: (\d+) of (\d+) statements run$", stdout, re.M)
    assert found, stdout
    return int(found[1]), int(found[2])


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus" / "encode", folder / "encode")
    (folder / "diff_encode").mkdir()
    (folder / "diff_encode" / "tilde").write_bytes(b"\x06\x00a~b")  # component, UTF-8
    (folder / "diff_encode" / "plain").write_bytes(b"\x06\x00a b")
    (tmp_path / "crashy.py").write_text(_CRASHY)
    return folder


def test_an_invariant_corpus_covers_the_reference(tmp_path: Path, corpus: Path) -> None:
    # --impl names an adapter: the invariant target still runs against the reference
    # (an adapter would fail on its first call and cover nothing but import-time code).
    run = _coverage(tmp_path, "encode", "--impl", "crashy:CrashesOnTilde")
    assert run.returncode == 0, run.stdout + run.stderr
    inputs = len(list((corpus / "encode").iterdir()))
    assert f"replayed {inputs} corpus inputs of 1 target(s); 0 fail " in run.stdout, run.stdout
    assert "FAILS:" not in run.stdout
    covered, total = _statements(run.stdout, "pctfuzz._internal.reference")
    assert covered >= 150 and covered / total > 0.7, (covered, total)  # 177 of 209 measured
    covered, total = _statements(run.stdout, "pctfuzz._internal.encoding")
    assert covered >= 250, (covered, total)  # every legacy encoder ran: 272 of 281
    assert (tmp_path / "html" / "index.html").is_file()


def test_a_failing_corpus_input_is_named_not_hidden(tmp_path: Path, corpus: Path) -> None:
    run = _coverage(tmp_path, "encode", "diff_encode", "--impl", "crashy:CrashesOnTilde")
    assert run.returncode == 0, run.stdout + run.stderr
    fails = [line for line in run.stdout.splitlines() if line.startswith("FAILS:")]
    assert len(fails) == 1, run.stdout
    # the project's corpus (here the current folder's corpus/), named in full
    assert fails[0].startswith(f"FAILS: {tmp_path / 'corpus' / 'diff_encode' / 'tilde'}: "
                               "Divergence")
    assert "ZeroDivisionError: planted crash" in fails[0]
    assert " 1 fail " in run.stdout
    assert "code under test (urllib.parse): " in run.stdout  # the adapter's declared code
    covered, _total = _statements(run.stdout, "pctfuzz._internal.reference")
    assert covered >= 150


def test_coverage_removes_leftovers_of_killed_runs(tmp_path: Path, corpus: Path) -> None:
    """``coverage`` starts as the corpus commands do (``fuzz.staging.recover``): a
    private copy and a merge folder that killed runs left in the corpus are removed,
    the copy's new input kept in the corpus, and it says so in one line."""
    import hashlib

    from pctfuzz._internal.scratch import OWNER_FILE

    dead = subprocess.Popen(["true"])
    dead.wait()
    data = b"\x06\x00left~over"
    staging = corpus / f".libfuzzer-encode-{dead.pid}-x"
    staging.mkdir()
    (staging / hashlib.sha1(data).hexdigest()).write_bytes(data)
    merge = corpus / f".merge-encode-{dead.pid}-y"
    merge.mkdir()
    (merge / OWNER_FILE).write_text(f"{dead.pid}\n")
    run = _coverage(tmp_path, "encode")
    assert run.returncode == 0, run.stdout + run.stderr
    assert not staging.exists() and not merge.exists()
    assert (corpus / "encode" / hashlib.sha1(data).hexdigest()).read_bytes() == data
    assert "removed 2 folder(s) that killed runs left in" in run.stderr, run.stderr
