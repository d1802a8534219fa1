"""Issue 14, "Hostile records, full disks and concurrent merges": the tool's own errors
end in one line and exit 4; a record's content is data that never chooses code; every
output file is written without following a planted link; odd arguments are one-line
usage errors. Each test says what it proves."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pctfuzz._internal import cli
from pctfuzz._internal.cases import DecodeCase, EncodeCase
from pctfuzz._internal.cli import codec as codec_commands
from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.reports import findings_table, write_output
from pctfuzz._internal.store import (
    FindingFormatError,
    FindingStore,
    finding_id,
    load_finding,
    new_finding,
)
from pctfuzz._internal.text import one_line

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = Path(__file__).resolve().parents[1] / "support"

#: Imported, this module writes its marker file: nothing a record names may import it.
EVIL_MODULE = '''
import os
open(os.environ["EVIL_MARKER"], "w").close()

class Anything:
    name = "evil"
    def encode(self, case): return ""
    def decode(self, case): return b""
    def form_serialize(self, case): return ""
    def form_parse(self, case): return []
'''


def pctfuzz(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None,
            stdin: Any = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pctfuzz", *args], cwd=cwd,
                          env=env or dict(os.environ), capture_output=True, text=True,
                          timeout=600, check=False, stdin=stdin)


def write_record(folder: Path, target: str, case: Any, /, *, impl: str | None = "urllib",
                 label: str = "", **changes: Any) -> Path:
    """A divergence-style record of ``case`` under ``target`` written as raw JSON, with
    ``changes`` applied after the fact (the store would refuse to write most of them);
    ``label`` gives it its own signature, id and file name."""
    finding = new_finding(target, "divergence", None, case=case, check=target.removeprefix(
        "diff_"), impl=impl, expected="'a'", actual="'b'", now="2026-01-01T00:00:00.000Z")
    data = finding.to_json()
    if label:
        data["signature"] = f"{finding.signature}|label={label}"
        data["id"] = finding_id(data["signature"])
    data.update(changes)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{data['kind']}-{data['target']}-{data['id']}.json"
    # json writes an infinite float as Infinity; a planted 1e999 is what it decodes from
    path.write_text(json.dumps(data).replace("Infinity", "1e999"))
    return path


@pytest.fixture
def evil(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A folder holding ``evil_mod.py`` and an environment putting it on PYTHONPATH
    (as plugins are); yields (marker path, env). The marker must never appear."""
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "evil_mod.py").write_text(EVIL_MODULE)
    marker = tmp_path / "imported.marker"
    path = os.pathsep.join([str(plugins), str(SUPPORT), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path, EVIL_MARKER=str(marker))
    yield marker, env


# --------------------------------------------------------------- 1. internal errors


def test_internal_error_is_one_line_and_exit_4(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A bug in pctfuzz (any exception that is not a PctfuzzError) ends in one line
    naming the command, the exception type and message, and exit 4: never 1 ("a
    finding"), never a traceback; PCTFUZZ_DEBUG=1 adds the traceback."""
    def broken(args: Any) -> int:
        raise KeyError("boom\n\x1b[31mforged line")

    monkeypatch.setattr(codec_commands, "_cmd_sets", broken)
    monkeypatch.delenv("PCTFUZZ_DEBUG", raising=False)
    assert main(["sets"]) == ExitCode.INTERNAL == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err
    assert err.startswith("pctfuzz sets: internal error: KeyError: ")
    assert err.endswith(" (please report; rerun with PCTFUZZ_DEBUG=1 for the traceback)\n")
    assert "Traceback" not in err

    monkeypatch.setenv("PCTFUZZ_DEBUG", "1")
    assert main(["sets"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "internal error: KeyError" in err


def test_exit_codes_are_described_once() -> None:
    """docs/guide.md's table describes them; the cli package points at it and at
    ``ExitCode``, and ``--help``'s epilog is rendered from the enum (test_docs holds the
    table to the enum)."""
    from pctfuzz._internal.exits import epilog

    guide = (ROOT / "docs" / "guide.md").read_text()
    for row in ("| 3 | run incomplete", "| 4 | internal error"):
        assert row in guide
    assert "ExitCode" in (cli.__doc__ or "") and "docs/guide.md" in (cli.__doc__ or "")
    assert cli.build_parser().epilog == epilog()
    assert "3 run incomplete" in epilog() and "4 internal error" in epilog()


@pytest.mark.parametrize("argv", [["decode", "--bytes"], ["sets", "-v"], ["--help"]])
def test_reader_that_goes_away_ends_quietly(tmp_path: Path, argv: list[str]) -> None:
    """``pctfuzz ... | head -1``: the reader closes the pipe after one line; pctfuzz
    ends with exit 0 and says nothing (no BrokenPipeError, no "Exception ignored")."""
    big = tmp_path / "big"
    big.write_bytes(b"a%41\n" * 400_000)  # 2 MB out: far more than a pipe holds
    with big.open("rb") as stdin:
        producer = subprocess.Popen([sys.executable, "-m", "pctfuzz", *argv], cwd=ROOT,
                                    stdin=stdin, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE)
        head = subprocess.run(["head", "-1"], stdin=producer.stdout, capture_output=True,
                              check=False, timeout=600)
        assert producer.stdout is not None and producer.stderr is not None
        producer.stdout.close()
        err = producer.stderr.read()
        code = producer.wait(timeout=600)
    assert head.stdout.count(b"\n") == 1
    assert err == b"" and code == ExitCode.OK, err


# ------------------------------------------------- 2. code named by a record never runs


def test_replay_never_imports_what_a_record_names(
        tmp_path: Path, evil: tuple[Path, dict[str, str]]) -> None:
    """Records naming ``evil_mod:Anything`` (importable: on PYTHONPATH and in the
    current folder), ``os:abort`` and a test adapter: each one line, the built-in
    record beside them still runs, and evil_mod is never imported."""
    marker, env = evil
    findings = tmp_path / "findings"
    case = EncodeCase("a b", "component")
    named = [write_record(findings, "diff_encode", case, impl=impl, label=impl)
             for impl in ("evil_mod:Anything", "os:abort", "broken_impls:TildeEncodingUrllib")]
    builtin = write_record(findings, "diff_encode", case, impl="urllib", label="ok")
    run = pctfuzz("replay", str(findings), cwd=tmp_path / "plugins", env=env)
    assert not marker.exists()
    errors = run.stderr.splitlines()
    assert len(errors) == 3, run.stderr
    for path, impl in zip(named, ("evil_mod:Anything", "os:abort", "broken_impls:"
                                  "TildeEncodingUrllib"), strict=True):
        assert f"{path}: error: names implementation {impl!r}, which is not built in; pass " \
               "--impl to replay it against your own" in errors
    assert f"{builtin}: no longer reproduces" in run.stdout
    assert run.returncode == ExitCode.USAGE and "Traceback" not in run.stderr


def test_impl_on_the_command_line_replaces_the_records(
        tmp_path: Path, evil: tuple[Path, dict[str, str]]) -> None:
    """The user's ``--impl`` is what runs, whatever the record names."""
    marker, env = evil
    path = write_record(tmp_path / "findings", "diff_encode", EncodeCase("a~", "component"),
                        impl="evil_mod:Anything")
    run = pctfuzz("replay", str(path), "--impl", "broken_impls:TildeEncodingUrllib", env=env)
    # It fails (the record's own signature was written by hand, so "fails differently"
    # is as good as "reproduces" here): the adapter named on the command line ran.
    assert run.returncode == 1, run.stderr
    assert f"{path}: reproduces" in run.stdout or f"{path}: fails differently" in run.stdout
    assert not marker.exists()


def test_export_never_imports_or_exports_what_a_record_names(
        tmp_path: Path, evil: tuple[Path, dict[str, str]]) -> None:
    marker, env = evil
    for impl in ("evil_mod:Anything", "os:abort"):
        path = write_record(tmp_path / "findings", "diff_encode", EncodeCase("a", "path"),
                            impl=impl, label=impl)
        out = tmp_path / "test_out.py"
        run = pctfuzz("export", str(path), "-o", str(out), cwd=tmp_path / "plugins", env=env)
        assert run.returncode == ExitCode.USAGE, run.stdout + run.stderr
        assert run.stderr.count("\n") == 1 and "which is not built in; pass --impl" in run.stderr
        assert not out.exists()
    assert not marker.exists()


# --------------------------------------------- 3. values reach generated code as literals

PAYLOAD = "__import__('os').system('touch {marker}')"


def _hostile_values(marker: Path) -> list[str]:
    code = PAYLOAD.format(marker=marker)
    return [f'"""\n{code}\n"""', f"'''; {code} #", f"\n{code}\n", f'")\n{code}\n("',
            "\\", "\x1b[2J\u202e", code]


def test_export_holds_record_values_as_literals_only(tmp_path: Path) -> None:
    """Records whose case values, expected/actual, evidence and traceback hold newlines,
    quotes, triple quotes and Python source, and whose ``evidence.check`` holds Python
    source on one line: the exported file compiles, every name it uses is one export
    itself writes, and running it never runs the payload."""
    marker = tmp_path / "ran.marker"
    findings = tmp_path / "findings"
    for n, value in enumerate(_hostile_values(marker)):
        for target, case in (("diff_encode", EncodeCase(value, "component")),
                             ("diff_decode", DecodeCase(value))):
            write_record(findings, target, case, label=f"{n}", expected=value, actual=value,
                         traceback=value, evidence={"check": PAYLOAD.format(marker=marker),
                                                    "x": value})
    out = tmp_path / "test_exported.py"
    run = pctfuzz("export", str(findings), "-o", str(out))
    assert run.returncode == ExitCode.OK, run.stderr
    source = out.read_text()
    tree = ast.parse(source)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert names <= {"value", "expected", "actual", "urllib", "annotations", "target",
                     "case", "impl", "get_target", "case_from_json", "resolve_subject", "n", "v",
                     "text", "pairs"}, names
    calls = {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert not any("system" in c or "import" in c or "eval" in c for c in calls), calls
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(out)],
                   cwd=tmp_path, capture_output=True, timeout=600, check=False)
    assert not marker.exists()


@pytest.mark.parametrize(("changes", "fragment"), [
    ({"first_seen": "2026-01-01\n00:00:00+00:00"}, "ISO 8601 UTC"),
    ({"last_seen": "2026-01-01T00:00:00.000Z\n"}, "ISO 8601 UTC"),
    ({"impl": "urllib\x1b[31m"}, "field 'impl' must be one printable line"),
    ({"impl": "urllib\u202e"}, "field 'impl' must be one printable line"),
    ({"impl": ""}, "field 'impl' must be 1..300 characters"),
    ({"evidence": {"check": "encode\nimport os"}}, "field 'evidence.check' must be one"),
    ({"evidence": {"check": 7}}, "field 'evidence.check' must be str"),
    ({"versions": {"python": "3\n11"}}, "versions['python'] must be one printable line"),
    ({"versions": {"py\x00": "3"}}, "must be one printable line"),
    ({"evidence": {"x": 1e999}}, "non-finite number"),
    ({"evidence": {"deep": [[[[{"x": -1e999}]]]]}}, "non-finite number"),
    ({"case": DecodeCase("%41").to_json()}, "does not belong to target diff_encode"),
])
def test_loader_rejects_values_outside_the_record_schema(
        tmp_path: Path, changes: dict[str, Any], fragment: str) -> None:
    path = write_record(tmp_path, "diff_encode", EncodeCase("a", "path"), **changes)
    with pytest.raises(FindingFormatError) as caught:
        load_finding(path)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_mismatched_case_is_malformed_not_reproduces(tmp_path: Path) -> None:
    """A decode case under diff_encode used to be replayed and reported ``reproduces``."""
    path = write_record(tmp_path / "findings", "diff_encode", EncodeCase("a", "path"),
                        case=DecodeCase("%zz").to_json())
    run = pctfuzz("replay", str(path))
    assert run.returncode == ExitCode.USAGE and "reproduces" not in run.stdout
    assert "does not belong to target diff_encode" in run.stderr


# --------------------------------------------------------------- 5. one printable line


@pytest.mark.parametrize(("text", "expected"), [
    ("plain text, é ✓", "plain text, é ✓"),
    ("a\nb\r\tc", "a\\nb\\r\\tc"),
    ("\x1b[31mred", "\\x1b[31mred"),
    ("abc\u202edef\u2066", "abc\\u202edef\\u2066"),
    ("line\u2028sep\x85", "line\\u2028sep\\x85"),
    ("lone \ud800", "lone \\ud800"),
    ("back\\slash\n", "back\\\\slash\\n"),
])
def test_one_line_escapes_what_a_terminal_would_act_on(text: str, expected: str) -> None:
    assert one_line(text) == expected
    assert one_line(text).isprintable()
    assert one_line("x" * 50, 10) == "xxxxxxx..."


def test_report_table_cells_are_one_printable_line() -> None:
    hostile = "\x1b]0;pwned\x07\nforged row\u202e"
    entry = {"id": hostile, "target": hostile, "kind": hostile, "status": hostile, "hits": 1,
             "impl": hostile, "version": hostile, "case": hostile, "expected": hostile,
             "actual": hostile, "first_seen": hostile, "signature": hostile,
             "reproduce": hostile, "note": hostile}
    lines = findings_table([entry, entry]).splitlines()
    # header, rule, then per finding its row, signature, impact, reproduce and note lines
    assert len(lines) == 2 + 2 * 5 and all(line.isprintable() for line in lines)


def test_replay_verdict_evidence_is_one_line(tmp_path: Path) -> None:
    """The evidence of a verdict quotes the case: an ESC in it is escaped."""
    path = write_record(tmp_path / "findings", "diff_encode",
                        EncodeCase("~\x1b[2J\n", "component"))
    run = pctfuzz("replay", str(path), "--impl", "broken_impls:TildeEncodingUrllib",
                  env=dict(os.environ, PYTHONPATH=str(SUPPORT)))
    assert run.returncode == 1 and run.stdout.count("\n") == 1, run.stdout
    assert "\x1b" not in run.stdout


# ------------------------------------------------ 6. output files never follow a link


def test_output_is_never_written_through_a_planted_temp_link(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A symlink waits at the temporary name the writer draws first: creation fails on
    it (O_EXCL), another name is drawn, the file outside is untouched."""
    outside = tmp_path / "outside"
    outside.write_text("precious")
    dest = tmp_path / "out.json"
    (tmp_path / ".out.json.planted.tmp").symlink_to(outside)
    names = iter(["planted", "fresh"])
    monkeypatch.setattr(tempfile, "_get_candidate_names", lambda: names)
    write_output(str(dest), "{}\n")
    assert dest.read_text() == "{}\n" and not dest.is_symlink()
    assert outside.read_text() == "precious"
    assert (tmp_path / ".out.json.planted.tmp").is_symlink()  # left alone
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".out.json.planted.tmp", "out.json", "outside"]


def test_output_replaces_a_link_at_the_destination_without_following_it(
        tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_text("precious")
    dest = tmp_path / "results.sarif"
    dest.symlink_to(outside)
    write_output(str(dest), "new\n")
    assert not dest.is_symlink() and dest.read_text() == "new\n"
    assert outside.read_text() == "precious"


@pytest.mark.parametrize("option", ["--json", "--html"])
def test_report_outputs_go_through_the_atomic_writer(tmp_path: Path, option: str) -> None:
    """``report --json/--html`` (like fuzz/replay --json/--sarif/--junit and export -o)
    write through ``write_output``: the old predictable temp name is never used."""
    findings = tmp_path / "findings"
    write_record(findings, "diff_encode", EncodeCase("a", "path"))
    dest = tmp_path / "report.out"
    outside = tmp_path / "outside"
    outside.write_text("precious")
    first = int(subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True,
                               check=True).stdout)
    for pid in range(first, first + 100):  # wherever the child's pid lands
        (tmp_path / f".report.out.{pid}.tmp").symlink_to(outside)
    run = pctfuzz("report", "--findings", str(findings), option, str(dest))
    assert run.returncode == ExitCode.OK, run.stderr
    assert outside.read_text() == "precious" and dest.stat().st_size > 0


# ------------------------------------------------------------------ 7. argument limits


@pytest.mark.parametrize("argv", [
    *(["fuzz", "decode", "--max-time", v] for v in ("nan", "inf", "1e309", "0", "-1", "x")),
    *(["fuzz", "decode", "--timeout", v] for v in ("0", "-1", "nan", "inf", "1e300")),
    *(["replay", "findings", "--timeout", v] for v in ("0", "-1", "nan", "inf", "1e300")),
    *(["corpus", "merge", "--timeout", v] for v in ("0", "nan")),
    ["fuzz", "decode", "--jobs", str(4 * (os.cpu_count() or 1) + 1)],
    ["fuzz", "decode", "--jobs", "0"],
    ["fuzz", "decode", "--jobs", "1.5"],
])
def test_odd_limits_are_one_line_usage_errors(argv: list[str],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        cli.build_parser().parse_args(argv)  # parsing only: never starts any work
    assert caught.value.code == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pctfuzz ") and ": error: " in err


def test_jobs_bound_is_documented() -> None:
    from pctfuzz._internal.cli.args import max_jobs

    assert max_jobs() == 4 * (os.cpu_count() or 1)
    help_text = cli.build_parser()._subparsers._group_actions[0].choices[  # type: ignore[union-attr]
        "fuzz"].format_help()
    assert "4 per core" in " ".join(help_text.split())


@pytest.mark.parametrize("content", [
    b'{"format": "pctfuzz-results", "schema_version": 1, "targets": [], "x": NaN}',
    b'{"format": "pctfuzz-results", "schema_version": 1, "targets": [], "x": 1e999}',
    b'{"format": "pctfuzz-results", "schema_version": 1, "targets": [], "x": '
    + b"[" * 100_000 + b"]" * 100_000 + b"}",
])
def test_report_campaign_with_nan_or_deep_nesting_is_one_line(
        tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    campaign = tmp_path / "campaign.json"
    campaign.write_bytes(content)
    (tmp_path / "findings").mkdir()
    assert main(["report", "--findings", str(tmp_path / "findings"), "--campaign",
                 str(campaign)]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "campaign file is not JSON" in err


@pytest.mark.parametrize("option", [("fuzz", "decode", "--corpus"), ("fuzz", "decode",
                                    "--findings"), ("report", "--findings"),
                                    ("corpus", "seed", "--corpus")])
def test_symlink_loop_as_a_folder_is_one_line(tmp_path: Path, option: tuple[str, ...]) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    run = pctfuzz(*option, str(loop))
    assert run.returncode == ExitCode.USAGE, run.stderr
    assert run.stderr.count("\n") == 1 and "Symlink loop" in run.stderr


# --------------------------------------------------- 4. the harness survives a record


def test_recorder_survives_a_record_it_cannot_rewrite(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """A planted record of the signature the harness is about to hit, with ``1e999`` in
    its evidence: the store treats it as unreadable (moved aside, one warning line) and
    the harness records its own finding; nothing is raised into libFuzzer."""
    from broken_impls import TildeEncodingUrllib

    from pctfuzz._internal.fuzz.recorder import Recorder
    from pctfuzz._internal.targets import TARGETS

    findings = tmp_path / "findings"
    recorder = Recorder(TARGETS["diff_encode"], TildeEncodingUrllib(), "tilde", findings, None)
    data = b"\x06\x00a~"
    try:
        recorder.target.run_bytes(data, recorder.impl)
    except Exception as exc:
        failure = exc
    signature = recorder.signature(failure, data)
    finding = new_finding("diff_encode", "divergence", None, case=EncodeCase("~", "path"),
                          impl="tilde", check="encode")
    planted = finding.to_json()
    planted.update(signature=signature, id=finding_id(signature), evidence={"x": 1e999})
    findings.mkdir()
    path = findings / f"divergence-diff_encode-{planted['id']}.json"
    path.write_text(json.dumps(planted).replace("Infinity", "1e999"))
    recorder.record(data, failure)  # must not raise
    err = capsys.readouterr().err
    assert "non-finite number" in err and "moved to" in err
    (stored,) = FindingStore(findings).iter_findings([])
    assert stored.id == planted["id"] and stored.hits == 1


def test_a_plain_corpus_is_read_in_place_and_any_other_is_copied_filtered(
        tmp_path: Path) -> None:
    """Issue 33, item 17: copying a corpus of 50,000 files took most of a 20 s budget,
    so a folder of regular files within the size limit is read in place (libFuzzer
    writes only into its first, private, folder); one symlink, FIFO or sub-folder in
    it, and libFuzzer gets the filtered copy instead, never the folder."""
    import shutil

    from pctfuzz._internal.fuzz.staging import stage_for_reading
    from pctfuzz._internal.store import Corpus

    store = Corpus(tmp_path / "corpus")
    store.add("decode", b"\x01a%41")
    folder = store.dir("decode")
    private, inputs = stage_for_reading(store, "decode")
    assert inputs == (folder,) and list(private.iterdir()) == []
    assert private.parent == store.root and private.name.startswith(".libfuzzer-decode-")
    shutil.rmtree(private)
    for odd in ("symlink", "fifo", "folder"):
        entry = folder / odd
        if odd == "symlink":
            entry.symlink_to("/etc/passwd")
        elif odd == "fifo":
            os.mkfifo(entry)
        else:
            entry.mkdir()
        private, inputs = stage_for_reading(store, "decode")
        assert inputs == (), odd
        assert sorted(p.name for p in private.iterdir()) == [Corpus.name_for(b"\x01a%41")]
        shutil.rmtree(private)
        entry.rmdir() if odd == "folder" else entry.unlink()


def test_campaign_says_which_corpus_entries_it_skips(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A 200 MB file and a sub-folder in ``corpus/<target>/`` are not given to libFuzzer:
    one warning line each, naming the entry and why (once per process)."""
    import shutil

    from pctfuzz._internal.fuzz.staging import stage
    from pctfuzz._internal.store import Corpus

    store = Corpus(tmp_path / "corpus")
    store.add("decode", b"\x01a%41")
    folder = store.dir("decode")
    huge = folder / ("0" * 40)
    with huge.open("wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # sparse
    (folder / "sub").mkdir()
    (folder / "sub" / "inner").write_bytes(b"\x01x")
    for _ in range(2):
        staging = stage(store, "decode")
        assert sorted(p.name for p in staging.iterdir()) == [Corpus.name_for(b"\x01a%41")]
        shutil.rmtree(staging)
    warnings = capsys.readouterr().err.splitlines()
    assert len(warnings) == 2, warnings
    assert all(w.startswith("pctfuzz: WARNING: [decode] corpus entry skipped: ") for w in warnings)
    assert any(f"{huge}: is 209715200 bytes, over the 1048576-byte limit" in w for w in warnings)
    assert any(f"{folder / 'sub'}: is a directory" in w for w in warnings)


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs (needs root and permission to mount), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    run = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {run.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_output_on_a_full_disk_is_one_line_and_leaves_nothing(
        tiny_disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A report that does not fit: one line naming the file and "No space left on
    device", exit 2, the previous file intact, no temporary file left behind."""
    dest = tiny_disk / "report.json"
    dest.write_text("previous\n")
    with pytest.raises(Exception) as caught:
        write_output(str(dest), "x" * (1 << 20))
    assert "No space left on device" in str(caught.value) and "\n" not in str(caught.value)
    assert dest.read_text() == "previous\n"
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["report.json"]
    findings = tiny_disk.parent / "findings"
    write_record(findings, "diff_encode", EncodeCase("a" * 100_000, "path"))
    assert main(["report", "--findings", str(findings), "--html", str(dest)]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot be written: No space left on device" in err
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["report.json"]
