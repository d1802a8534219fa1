"""The encode, decode and sets commands of the ``pctfuzz`` CLI.

Run in-process through ``pctfuzz._internal.cli.main`` (fast), and once through
``python -m pctfuzz._internal.cli`` in a subprocess (the real entry point, exit codes, stdin).
"""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pctfuzz._internal.cli import main
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.sets import SETS


def run(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    stdin: bytes | None = None,
) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


#: ``cli(*argv, stdin=None) -> (exit code, stdout, stderr)``
Runner = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Runner:
    def runner(*argv: str, stdin: bytes | None = None) -> tuple[int, str, str]:
        return run(list(argv), capsys, monkeypatch, stdin)

    return runner


# --- encode --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["encode", "a b/c"], "a%20b%2Fc"),  # default set: component
        (["encode", "--set", "path", "a b/c?"], "a%20b/c%3F"),
        (["encode", "--set", "form", "--plus", "a b~"], "a+b%7E"),
        (["encode", "--set", "form", "a b"], "a%20b"),
        (["encode", "--set", "query-value", "a b+"], "a+b%2B"),  # recipe default plus
        (["encode", "--set", "rfc3986-unreserved", "caf\u00e9"], "caf%C3%A9"),
        (["encode", "--bytes", "\u00e9"], "%C3%A9"),
        # A raw byte in argv arrives as a surrogateescape code point (U+DC80-U+DCFF).
        (["encode", "--bytes", "a\udcff"], "a%FF"),
        (["encode", ""], ""),
        (["encode", "--", "-x"], "-x"),
    ],
)
def test_encode(cli: Runner, argv: list[str], expected: str) -> None:
    assert cli(*argv) == (ExitCode.OK, expected + "\n", "")


def test_encode_legacy_encoding(cli: Runner) -> None:
    assert cli("encode", "--encoding", "shift_jis", "--set", "special-query", " \u203d") == (
        ExitCode.OK,
        "%20%26%238253%3B\n",
        "",
    )
    code, out, _ = cli(
        "encode", "--encoding", "Shift_JIS", "--set", "form", "--plus", "1+1 \u2261 2%20\u203d"
    )
    assert (code, out) == (ExitCode.OK, "1%2B1+%81%DF+2%2520%26%238253%3B\n")


@pytest.mark.parametrize(
    ("stdin", "argv", "expected"),
    [
        (b"a b\n", [], "a%20b"),  # one trailing newline dropped
        (b"a b\r\n", [], "a%20b"),
        (b"a\n\n", [], "a%0A"),  # only one
        (b"a b", [], "a%20b"),
        (b"", [], ""),
        (b"caf\xc3\xa9\n", ["--set", "fragment"], "caf%C3%A9"),
        (b"\xff\x00 ", ["--bytes"], "%FF%00%20"),
    ],
)
def test_encode_stdin(cli: Runner, stdin: bytes, argv: list[str], expected: str) -> None:
    assert cli("encode", *argv, stdin=stdin) == (ExitCode.OK, expected + "\n", "")


# --- decode --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["decode", "caf%C3%A9"], "caf\u00e9"),
        (["decode", "a+b%20c"], "a+b c"),
        (["decode", "--plus", "a+b%20c%2B"], "a b c+"),
        (["decode", "%"], "%"),
        (["decode", "%4%zz%4a"], "%4%zzJ"),
        (["decode", "%FF"], "\ufffd"),  # text output: UTF-8 decode with replacement
    ],
)
def test_decode(cli: Runner, argv: list[str], expected: str) -> None:
    assert cli(*argv) == (ExitCode.OK, expected + "\n", "")


def test_decode_stdin(cli: Runner) -> None:
    assert cli("decode", stdin=b"%41+%42\n") == (ExitCode.OK, "A+B\n", "")
    assert cli("decode", "--plus", stdin=b"%41+%42") == (ExitCode.OK, "A B\n", "")
    # Not UTF-8 on input is fine for decode: it works on bytes.
    assert cli("decode", stdin=b"\xff%41") == (ExitCode.OK, "\ufffdA\n", "")


def test_decode_bytes(
    capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["decode", "--bytes", "%FF%00+a"]) == ExitCode.OK
    assert capsysbinary.readouterr().out == b"\xff\x00+a"  # raw, no newline added
    assert main(["decode", "--bytes", "--plus", "%FF+a"]) == ExitCode.OK
    assert capsysbinary.readouterr().out == b"\xff a"


# --- sets ----------------------------------------------------------------------------------


def test_sets_lists_every_set(cli: Runner) -> None:
    code, out, err = cli("sets")
    assert (code, err) == (ExitCode.OK, "")
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(SETS)
    form_line = lines[list(SETS).index("application/x-www-form-urlencoded")]
    assert "(alias: " in form_line and "form" in form_line


def test_sets_verbose(cli: Runner) -> None:
    code, out, _ = cli("sets", "--verbose")
    assert code == ExitCode.OK
    for pes in SETS.values():
        assert f"source: {pes.source}" in out
        assert f"printable ASCII left as is: {pes.printable_safe!r}" in out


# --- errors and help -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "stdin", "command", "needle"),
    [
        (["encode", "--set", "nope", "x"], None, "encode", "'nope'"),
        (["encode", "--encoding", "klingon", "x"], None, "encode", "'klingon'"),
        (["encode"], b"\xffabc", "encode", "not valid UTF-8 at byte 0"),
        (["encode", "ab\udcff"], None, "encode", "not valid UTF-8 at byte 2"),
        (["encode", "a\ud800"], None, "encode", "not valid UTF-8: lone surrogate at index 1"),
    ],
)
def test_errors_exit_2_with_one_line(
    cli: Runner, argv: list[str], stdin: bytes | None, command: str, needle: str
) -> None:
    code, out, err = cli(*argv, stdin=stdin)
    assert code == ExitCode.USAGE
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n")
    assert err.startswith(f"pctfuzz {command}: error: ")
    assert needle in err


@pytest.mark.parametrize(
    "argv", [["encode", "--nope"], ["decode", "a", "b"], ["frobnicate"], [], ["sets", "x"]]
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pctfuzz") and ": error: " in err


@pytest.mark.parametrize("command", ["encode", "decode", "sets"])
def test_help_for_each_subcommand(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: pctfuzz {command}")


def test_top_level_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for command in ("encode", "decode", "sets"):
        assert command in out


# --- the real entry point ------------------------------------------------------------------


def test_module_entry_point_subprocess() -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "pctfuzz", "encode", "--set", "form", "--plus"],
        input=b"caf\xc3\xa9 au lait\n",
        capture_output=True,
        timeout=600,
        check=False,
    )
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, b"caf%C3%A9+au+lait\n", b"")
    bad = subprocess.run(
        [sys.executable, "-m", "pctfuzz", "encode", "--set", "nope", "x"],
        capture_output=True,
        timeout=600,
        check=False,
    )
    assert bad.returncode == ExitCode.USAGE and bad.stdout == b""
    assert bad.stderr.decode().count("\n") == 1 and b"'nope'" in bad.stderr
    raw = subprocess.run(
        [sys.executable, "-m", "pctfuzz", "encode", b"caf\xe9"],
        capture_output=True,
        timeout=600,
        check=False,
    )
    assert (raw.returncode, raw.stdout) == (ExitCode.USAGE, b"")
    assert raw.stderr.startswith(b"pctfuzz encode: error: input is not valid UTF-8 at byte 3")
    assert raw.stderr.count(b"\n") == 1


def test_fuzz_passes_options_after_double_dash_to_libfuzzer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``pctfuzz fuzz T -- -max_len=64``: what follows ``--`` reaches libFuzzer; other
    commands keep ``--`` as argparse's end of options."""
    import pctfuzz._internal.fuzz.campaign as campaign

    seen: dict[str, object] = {}

    def fake(targets: object, **kw: object) -> object:
        seen.update(kw, targets=targets)
        raise _Stop  # a SystemExit here would read as user code's (issue 23, item 10)

    monkeypatch.setattr(campaign, "run_campaign", fake)
    with pytest.raises(_Stop):
        main(["fuzz", "decode", "--max-time", "1", "--", "-max_len=64", "-use_value_profile=1"])
    assert seen["targets"] == ["decode"]
    assert seen["libfuzzer_args"] == ["-max_len=64", "-use_value_profile=1"]
    with pytest.raises(SystemExit) as info:  # not a libFuzzer option: a usage error
        main(["fuzz", "decode", "--", "max_len=64"])
    assert info.value.code == 2


class _Stop(BaseException):
    """Ends ``main`` from a stubbed campaign: neither pctfuzz's error nor user code's
    ``SystemExit`` (which ``main`` turns into exit 2)."""


def test_fuzz_set_option_narrows_diff_encode_to_those_sets(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import pctfuzz._internal.fuzz.campaign as campaign
    from pctfuzz._internal.targets import TARGETS

    handed: list[Any] = []

    def stop(*a: Any, **k: Any) -> None:
        handed.append(k["handoff"])
        raise _Stop()

    monkeypatch.setattr(campaign, "run_campaign", stop)
    with pytest.raises(_Stop):
        main(["fuzz", "diff_encode", "--set", "mine=encodeURI-[]", "--max-time", "1"])
    # handed to the harness, which binds its target with them
    bound = TARGETS["diff_encode"].bind("urllib", handed[0].run_settings)
    cases = {bound.case_from_bytes(bytes([i, 0]) + b"a").set_name for i in range(64)}
    assert cases == {"encodeURI-[]"}
    # ... and nothing of this process changed: a target bound without them is as before
    plain = TARGETS["diff_encode"].bind("urllib")
    assert len({plain.case_from_bytes(bytes([i, 0]) + b"a").set_name
                for i in range(64)}) > 1
    assert main(["fuzz", "--set", "mine=path+", "--max-time", "1"]) == 2  # a bad spec
    assert main(["fuzz", "--set", "nothing", "--max-time", "1"]) == 2


def test_targets_an_adapter_does_not_answer_are_said_on_one_line(tmp_path: Path) -> None:
    """An encoder alone skips three differential targets: one line names them, each
    with the adapter's reason (it was three lines)."""
    import io
    from urllib.parse import quote

    from pctfuzz._internal.cli.fuzz import _answered_targets
    from pctfuzz._internal.project import Project
    from pctfuzz.oracles import function_adapter

    adapter = function_adapter("enc-only", encode=lambda s: quote(s, safe=""),
                               sets={"c": "component"})
    out = io.StringIO()
    project = Project.load(tmp_path, impl="enc-only", read_only=True)
    kept = _answered_targets([], adapter, project, False, out)
    assert kept == ["diff_encode"]
    lines = [line for line in out.getvalue().splitlines() if "skipped" in line]
    assert len(lines) == 1
    assert all(name in lines[0] for name in ("diff_decode", "diff_form", "diff_form_parse"))
