"""``pctfuzz corpus merge`` (libFuzzer -merge=1) and how ``--jobs`` spreads processes."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pctfuzz._internal.cli import main
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.fuzz.campaign import TargetStats, merge_stats, plan_workers
from pctfuzz._internal.fuzz.merge import exchange_dirs, harness_launcher, merge_target
from pctfuzz._internal.fuzz.seeds import seed_cases
from pctfuzz._internal.scratch import OWNER_FILE, remove_abandoned
from pctfuzz._internal.store import Corpus
from pctfuzz._internal.targets import TARGETS

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "harness"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The decode target's spec-vector seeds only (not the committed corpus, which
    grows with every campaign and would leave nothing for a merge to add)."""
    root = tmp_path / "corpus"
    store = Corpus(root)
    target = TARGETS["decode"]
    for case in seed_cases("decode"):
        store.add("decode", target.to_bytes(case))
    return root


def test_merge_keeps_a_smaller_corpus_with_the_same_coverage(corpus: Path) -> None:
    before = _files(corpus / "decode")
    first = merge_target("decode", corpus, harness=HARNESS)
    after = _files(corpus / "decode")
    assert first.files_before == len(before) and first.files_after == len(after)
    assert 0 < len(after) < len(before) and first.edges > 0
    assert all(hashlib.sha1(data).hexdigest() == name for name, data in after.items())
    assert all(before.get(name) == data for name, data in after.items())
    # Same coverage: merging the merged corpus keeps all of it and reaches the same edges.
    second = merge_target("decode", corpus, harness=HARNESS)
    assert (second.edges, second.features) == (first.edges, first.features)
    assert second.files_after <= len(after)
    assert set(_files(corpus / "decode")) <= set(after)
    assert [p.name for p in corpus.iterdir()] == ["decode"]  # no leftovers


def test_packaged_harness_merges_like_the_scripts(corpus: Path) -> None:
    """No harness folder (an installed wheel): the merge runs the packaged harness
    (python -m pctfuzz._internal.harness), the same program as harness/fuzz_decode.py."""
    packaged = merge_target("decode", corpus)
    assert 0 < packaged.files_after < packaged.files_before and packaged.edges > 0
    scripted = merge_target("decode", corpus, harness=HARNESS)
    assert (scripted.edges, scripted.features) == (packaged.edges, packaged.features)
    assert [p.name for p in corpus.iterdir()] == ["decode"]  # no leftovers


def test_merge_adds_inputs_that_add_coverage(corpus: Path, tmp_path: Path) -> None:
    first = merge_target("decode", corpus, harness=HARNESS)
    extra = tmp_path / "extra"
    extra.mkdir()
    inputs = [b"\x00" + b"%41" * 100, b"\x01\xff\xfe%", b"\x00%%%%%%",
              b"\x01" + "\ud800".encode("utf-8", "surrogatepass") + b"%41"]
    for data in inputs:
        (extra / hashlib.sha1(data).hexdigest()).write_bytes(data)
    result = merge_target("decode", corpus, harness=HARNESS, inputs=[extra])
    assert result.edges > first.edges and result.features > first.features
    merged = _files(corpus / "decode")
    assert result.files_after == len(merged) > first.files_after
    assert set(merged) & {p.name for p in extra.iterdir()}
    assert _files(extra) == {hashlib.sha1(d).hexdigest(): d for d in inputs}  # untouched


def test_cli_corpus_merge(corpus: Path, capsys: pytest.CaptureFixture[str],
                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(corpus.parent)  # relative paths, harness found beside the sources
    assert main(["corpus", "merge", "decode", "--corpus", "corpus"]) == ExitCode.OK
    assert capsys.readouterr().out.startswith("decode: ")
    # all targets: those without a folder are skipped
    assert main(["corpus", "merge", "--corpus", str(corpus)]) == ExitCode.OK
    assert capsys.readouterr().out.count("\n") == 1
    for argv in (["corpus", "merge", "nope", "--corpus", str(corpus)],
                 ["corpus", "merge", "--corpus", str(corpus / "missing")],
                 ["corpus", "merge", "decode", "--corpus", str(corpus), "--input",
                  str(corpus / "missing")],
                 ["corpus", "merge", "decode", "--corpus", str(corpus), "--harness",
                  str(corpus)]):
        assert main(argv) == ExitCode.USAGE
        assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_failed_merge_leaves_the_corpus_alone(corpus: Path, tmp_path: Path) -> None:
    harness = tmp_path / "harness"
    harness.mkdir()
    (harness / "fuzz_decode.py").write_text("import sys\nsys.exit(3)\n")
    before = _files(corpus / "decode")
    with pytest.raises(PctfuzzError, match="merge failed"):
        merge_target("decode", corpus, harness=harness)
    assert _files(corpus / "decode") == before
    assert [p.name for p in corpus.iterdir()] == ["decode"]


def test_exchange_dirs_swaps_atomically(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "1").write_text("a")
    (b / "2").write_text("b")
    if not exchange_dirs(a, b):
        pytest.skip("renameat2(RENAME_EXCHANGE) not available here")
    assert [p.name for p in a.iterdir()] == ["2"] and [p.name for p in b.iterdir()] == ["1"]


def test_launcher_is_its_own_argv0(tmp_path: Path) -> None:
    script = tmp_path / "show.py"
    script.write_text("import sys\nprint(sys.argv[0], __name__, __file__)\n")
    launcher = harness_launcher(script, tmp_path)
    out = subprocess.run([str(launcher)], capture_output=True, text=True, check=True).stdout
    assert out.split() == [str(launcher), "__main__", str(script.resolve())]
    with pytest.raises(PctfuzzError):
        harness_launcher(script, tmp_path, python=sys.executable + " -S")


# ------------------------------------------------------------------------- --jobs N


def test_plan_workers() -> None:
    assert plan_workers(["a"], 1) == [1]
    assert plan_workers(["a"], 4) == [4]
    assert plan_workers(["a", "b", "c"], 2) == [1, 1, 1]
    assert plan_workers(["a", "b", "c"], 7) == [3, 2, 2]


def test_merge_stats_sums_processes() -> None:
    one = TargetStats("t", seconds=5, execs=100, exec_per_s=20, initial_cov=10, cov=30, ft=50,
                      corpus_units=7, new_findings=["a"], known_findings=["b"], restarts=1,
                      errors=["boom"])
    two = TargetStats("t", seconds=6, execs=300, exec_per_s=50, initial_cov=9, cov=25, ft=60,
                      corpus_units=8, new_findings=["b"], known_findings=["a", "c"])
    merged = merge_stats("t", [one, two])
    assert (merged.execs, merged.exec_per_s, merged.seconds) == (400, 70, 6)
    assert (merged.initial_cov, merged.cov, merged.ft, merged.corpus_units) == (9, 30, 60, 8)
    assert merged.new_findings == ["a", "b"] and merged.known_findings == ["c"]
    assert merged.workers == 2 and merged.restarts == 1
    assert merged.errors == ["[process 1] boom"]


def test_merge_keeps_hidden_files_and_refuses_links(corpus: Path, tmp_path: Path) -> None:
    (corpus / "decode" / ".gitkeep").write_text("")
    merge_target("decode", corpus, harness=HARNESS)
    assert (corpus / "decode" / ".gitkeep").is_file()
    before = _files(corpus / "decode")
    (corpus / "decode" / "link").symlink_to(tmp_path)
    with pytest.raises(PctfuzzError, match="symlink or sub-folder"):
        merge_target("decode", corpus, harness=HARNESS)
    assert {p.name for p in (corpus / "decode").iterdir()} == {*before, "link"}


def test_inputs_added_during_a_merge_are_carried_over(tmp_path: Path) -> None:
    """What a running campaign writes to the old folder while the merge runs is kept;
    a file still being written (bytes not matching its sha1 name) is not."""
    from pctfuzz._internal.fuzz.merge import _carry_over

    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    measured = {"a" * 40: 1}
    (old / ("a" * 40)).write_bytes(b"x")
    late = b"found meanwhile"
    (old / hashlib.sha1(late).hexdigest()).write_bytes(late)
    (old / ("b" * 40)).write_bytes(b"half-writ")
    (old / "crash-seed").write_bytes(b"any name")
    assert _carry_over(old, new, measured) == 2
    assert _files(new) == {hashlib.sha1(late).hexdigest(): late, "crash-seed": b"any name"}


def test_each_process_gets_its_own_seed() -> None:
    from pctfuzz._internal.fuzz.schedule import seeded as _seeded

    assert _seeded(["-seed=7", "-x=1"], 3) == [["-x=1", "-seed=7"], ["-x=1", "-seed=8"],
                                                ["-x=1", "-seed=9"]]
    seeds = [args[-1] for args in _seeded([], 2)]
    assert len(set(seeds)) == 2 and all(s.startswith("-seed=") for s in seeds)


# ------------------------------------------- issue 14: concurrent merges and leftovers


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _owned(parent: Path, name: str, owner: int | None) -> Path:
    folder = parent / name
    folder.mkdir()
    (folder / "data").write_bytes(b"x")
    if owner is not None:
        (folder / OWNER_FILE).write_text(f"{owner}\n")
    return folder


def test_only_abandoned_folders_pctfuzz_made_are_removed(tmp_path: Path) -> None:
    """Removed: named ``<prefix><pid>-*``, holding an owner file with that pid, whose
    process is gone. Kept: no owner file (another program's), a live owner, an owner
    file naming another pid, a symlink, a name without a pid."""
    dead, live = _dead_pid(), os.getppid()
    gone = _owned(tmp_path, f".merge-decode-{dead}-abc", dead)
    kept = [_owned(tmp_path, f".merge-decode-{dead}-other", None),
            _owned(tmp_path, f".merge-decode-{live}-live", live),
            _owned(tmp_path, f".merge-decode-{dead}-lies", live),
            _owned(tmp_path, ".merge-decode-nopid", dead)]
    (tmp_path / f".merge-decode-{dead}-link").symlink_to(gone)
    kept.append(tmp_path / f".merge-decode-{dead}-link")
    assert remove_abandoned(tmp_path, ".merge-decode-") == [gone]
    assert not gone.exists() and all(os.path.lexists(p) for p in kept)


def test_start_up_removes_only_artifact_folders_pctfuzz_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pctfuzz._internal.fuzz.staging import artifacts_dir as _artifacts_dir
    from pctfuzz._internal.fuzz.staging import recover as _recover

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = _dead_pid()
    theirs = _owned(tmp_path, f"pctfuzz-artifacts-{dead}-theirs", None)
    ours = _owned(tmp_path, f"pctfuzz-artifacts-{dead}-ours", dead)
    with _artifacts_dir() as running:
        assert (Path(running) / OWNER_FILE).read_text() == f"{os.getpid()}\n"
        _recover(Corpus(tmp_path / "corpus"), [])
        assert Path(running).is_dir()  # our own, alive
    assert not Path(running).exists() and not ours.exists() and theirs.is_dir()


def test_merge_removes_leftovers_of_killed_merges(
        corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
    dead = _dead_pid()
    staging = _owned(corpus, f".merge-decode-{dead}-x", dead)
    work = _owned(tmpdir, f"pctfuzz-merge-{dead}-y", dead)
    foreign = _owned(tmpdir, "pctfuzz-merge-someone-else", None)
    merge_target("decode", corpus, harness=HARNESS)
    assert not staging.exists() and not work.exists() and foreign.is_dir()
    assert [p.name for p in corpus.iterdir()] == ["decode"]
    assert [p.name for p in tmpdir.iterdir()] == [foreign.name]  # nothing of its own left


def test_a_merge_waits_for_another_within_a_bound(corpus: Path) -> None:
    """A merge of a corpus whose merge lock is held fails in one line after
    ``lock_timeout``, leaving the corpus as it was; two merges at once both finish."""
    import fcntl

    before = _files(corpus / "decode")
    fd = os.open(corpus, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(PctfuzzError, match=r"another merge of .* is running; gave up"):
            merge_target("decode", corpus, harness=HARNESS, lock_timeout=0.5)
    finally:
        os.close(fd)
    assert _files(corpus / "decode") == before
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: merge_target("decode", corpus, harness=HARNESS,
                                                       max_seconds=120), range(2)))
    assert all(r.files_after > 0 for r in results)
    assert [p.name for p in corpus.iterdir()] == ["decode"]


def test_adds_and_deletes_during_a_merge(corpus: Path) -> None:
    """While a merge runs, one thread adds inputs through ``Corpus.add`` and another
    deletes seed files: every add succeeds and its file is in the corpus right after
    ``add`` returns and after the merge; deleted files stay deleted; the merge ends."""
    store = Corpus(corpus)
    folder = corpus / "decode"
    victims = sorted(folder.iterdir())[:5]
    stop = threading.Event()
    added: list[Path] = []
    missing: list[Path] = []
    errors: list[BaseException] = []

    def add_loop() -> None:
        # An input added before the merge took its snapshot is one the merge measures
        # (and may drop, as it drops any input that adds no coverage): add from the
        # moment its scratch folder exists, which is after the snapshot.
        deadline = time.monotonic() + 60
        while not any(corpus.glob(".merge-decode-*")) and time.monotonic() < deadline:
            time.sleep(0.001)
        n = 0
        while not stop.is_set():
            n += 1
            try:
                path = store.add("decode", b"\x01added %d" % n)
            except BaseException as exc:  # a failed add is what this test looks for
                errors.append(exc)
                continue
            if path is not None:
                added.append(path)
                if not path.exists():
                    missing.append(path)

    def delete_loop() -> None:
        for path in victims:
            path.unlink()
            time.sleep(0.05)

    with ThreadPoolExecutor(3) as pool:
        adder = pool.submit(add_loop)
        deleter = pool.submit(delete_loop)
        merge = pool.submit(merge_target, "decode", corpus, harness=HARNESS, max_seconds=120)
        result = merge.result(timeout=600)
        deleter.result()
        stop.set()
        adder.result()
    assert not errors and not missing and len(added) > 10
    present = set(_files(folder))
    assert {p.name for p in added} <= present
    assert not {p.name for p in victims} & present
    assert result.carried_over > 0


def test_merge_keeps_every_finding_input(corpus: Path, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Inputs of findings stay in the corpus even when they add no coverage; the input
    of a timeout finding is not put in (it would stop every campaign on start)."""
    from pctfuzz._internal.store import FindingStore, new_finding, new_stop_finding

    first = merge_target("decode", corpus, harness=HARNESS)
    kept_names = set(_files(corpus / "decode"))
    duplicate = b"\x01" + b"a" * 7  # coverage the merged corpus already has
    findings = FindingStore(tmp_path / "findings")
    findings.record(new_finding("decode", "violation", None, check="decode-robustness",
                                case=TARGETS["decode"].from_bytes(duplicate),
                                raw_input=duplicate))
    hang = b"\x01%%%%hang"
    findings.record(new_stop_finding(target=TARGETS["decode"], kind="timeout", raw_input=hang))
    monkeypatch.chdir(ROOT)
    assert main(["corpus", "merge", "decode", "--corpus", str(corpus), "--findings",
                 str(findings.root)]) == ExitCode.OK
    after = set(_files(corpus / "decode"))
    assert hashlib.sha1(duplicate).hexdigest() in after
    assert hashlib.sha1(hang).hexdigest() not in after
    assert after <= kept_names | {hashlib.sha1(duplicate).hexdigest()}
    assert first.files_after > 0


def test_merge_copes_with_names_libfuzzer_cannot_take(corpus: Path) -> None:
    """A corpus file named with a newline (which would break libFuzzer's control
    file) or with spaces is merged like any other: libFuzzer sees sha1 names only."""
    folder = corpus / "decode"
    odd = {"line\nbreak": b"\x01%41%42\n", "with spaces\tand tab": b"\x00%%%zz"}
    for name, data in odd.items():
        (folder / name).write_bytes(data)
    result = merge_target("decode", corpus, harness=HARNESS)
    merged = _files(folder)
    assert result.files_after == len(merged) > 0
    assert not set(odd) & set(merged)  # renamed to their sha1, if they add coverage
    assert all(hashlib.sha1(data).hexdigest() == name for name, data in merged.items())


def test_merge_keeps_a_corpus_file_it_cannot_merge(corpus: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23, item 12: a corpus file over the size limit was reported "skipped" and
    then deleted with the old folder. It is not merged, and it stays as it is."""
    big = corpus / "decode" / "big-input"
    big.write_bytes(b"%41" * (1 << 19))  # 1.5 MiB: over the corpus size limit
    assert main(["corpus", "merge", "decode", "--corpus", str(corpus),
                 "--findings", str(corpus.parent / "no-findings")]) == ExitCode.OK
    assert big.read_bytes() == b"%41" * (1 << 19)
    err = capsys.readouterr().err
    assert "not merged, kept as it is" in err and "big-input" in err, err


@pytest.mark.parametrize("command", [["corpus", "seed", "decode"],
                                     ["corpus", "merge", "decode", "--findings", "-none-"]])
def test_any_corpus_command_removes_what_killed_runs_left(
        command: list[str], corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23, item 15: the private copy of a SIGKILLed campaign (of any target) and
    the folder of a killed merge are removed at the next start of any command on that
    corpus, not only of a campaign of that target, and the command says so; the copy's
    new input is kept in the corpus."""
    dead = _dead_pid()
    data = b"\x00new input of a killed campaign"
    name = hashlib.sha1(data).hexdigest()
    left = corpus / f".libfuzzer-form-{dead}-abc123"
    left.mkdir()
    (left / name).write_bytes(data)
    merging = _owned(corpus, f".merge-decode-{dead}-x", dead)
    command = [str(corpus.parent / "no-findings") if w == "-none-" else w for w in command]
    assert main([*command, "--corpus", str(corpus)]) == ExitCode.OK
    assert not left.exists() and not merging.exists()
    assert (corpus / "form" / name).read_bytes() == data
    err = capsys.readouterr().err
    assert "removed 2 folder(s) that killed runs left" in err, err


@pytest.mark.parametrize(("value", "code"), [("0", ExitCode.OK), ("-1", ExitCode.USAGE),
                                             ("lots", ExitCode.USAGE)])
def test_rss_limit_zero_means_no_limit_and_negative_is_refused(
        value: str, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    from pctfuzz._internal.cli.main import build_parser

    try:
        args = build_parser().parse_args(["fuzz", "decode", "--rss-limit-mb", value])
        result = ExitCode.OK if args.rss_limit_mb == int(value) else -1
    except SystemExit as exc:
        result = int(exc.code or 0)
    assert result == code
    if code == ExitCode.USAGE:
        assert "--rss-limit-mb" in capsys.readouterr().err
