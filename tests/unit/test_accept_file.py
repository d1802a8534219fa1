"""``--accept`` files: read safely and checked when they load (issue 23, items 5-7, 10).

A FIFO or a symlink to ``/dev/zero`` is refused without being read; so is a file over
the size limit. Deeply nested TOML, ``chars = 5``, ``types = 5``, an example of the
wrong types and a ``.py`` file that raises ``SystemExit`` are one line and exit 2.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pctfuzz._internal.accept import load_accept_file
from pctfuzz._internal.accept.files import MAX_ACCEPT_BYTES
from pctfuzz._internal.cli import main
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.exits import ExitCode

GOOD = '''
[[divergence]]
id = "toml-brackets"
check = "encode"
reconciler = "left_raw"
chars = "[]"
citation = "RFC 3986 3.2.2"
why = "IPv6 literals"
example = { value = "[", set = "encodeURI" }
'''


def _refused(path: Path, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["divergences", "--accept", str(path)]) == ExitCode.USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_a_fifo_is_refused_not_waited_on(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "x.toml"
    os.mkfifo(fifo)  # no writer: reading it would block forever
    _refused(fifo, "is not a regular file", capsys)


def test_a_symlink_to_dev_zero_is_refused(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "zero.toml"
    link.symlink_to("/dev/zero")
    _refused(link, "is not a regular file", capsys)
    module = tmp_path / "zero.py"
    module.symlink_to("/dev/zero")
    _refused(module, "is not a regular file", capsys)


def test_a_huge_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.toml"
    big.write_bytes(GOOD.encode() + b"#" * MAX_ACCEPT_BYTES)
    _refused(big, "over the", capsys)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
        ("a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n", "nested too deeply"),
        (GOOD.replace('chars = "[]"', "chars = 5"), "left_raw: bad 'chars'"),
        (GOOD.replace('reconciler = "left_raw"\nchars = "[]"',
                      'reconciler = "both_refuse"\ntypes = 5'), "both_refuse: bad 'types'"),
        (GOOD.replace('reconciler = "left_raw"\nchars = "[]"',
                      'reconciler = "truncated"\nn = "100"'), "truncated: bad 'n'"),
        (GOOD.replace('reconciler = "left_raw"\nchars = "[]"',
                      'reconciler = "truncated"\nn = true'), "truncated: bad 'n'"),
        (GOOD.replace('value = "["', "value = 5"),
         "bad example for encode: value must be str, not int"),
        (GOOD.replace('set = "encodeURI"', "set = 5"),
         "bad example for encode: set must be str, not int"),
        (GOOD.replace('set = "encodeURI"', 'set = "encodeURI", encoding = "klingon"'),
         "bad example: "),
        (GOOD.replace('set = "encodeURI"', 'set = "no-such-set"'), "bad example: "),
        (GOOD.replace('set = "encodeURI"', 'set = "encodeURI", space_as_plus = "yes"'),
         "bad example for encode: space_as_plus must be bool"),
    ],
)
def test_bad_files_are_one_line_and_exit_2(tmp_path: Path, text: str, message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "accept.toml"
    bad.write_text(text)
    _refused(bad, message, capsys)
    with pytest.raises(UsageError):
        load_accept_file(str(bad))


@pytest.mark.parametrize("code", ["1", "0", "'bye'"])
def test_a_python_file_that_exits_is_one_line_and_exit_2(
        tmp_path: Path, code: str, capsys: pytest.CaptureFixture[str]) -> None:
    module = tmp_path / "leaves_accept.py"
    module.write_text(f"import sys\nsys.exit({code})\n")
    _refused(module, "raised SystemExit", capsys)


def test_a_good_file_still_loads(tmp_path: Path) -> None:
    good = tmp_path / "accept.toml"
    good.write_text(GOOD)
    (entry,) = load_accept_file(str(good))
    assert entry.id == "toml-brackets"


EXITING = '''
import sys
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter

class ExitsInInit(UrllibAdapter):
    name = "exits-in-init"

    def __init__(self):
        raise SystemExit(1)
'''


@pytest.mark.parametrize("argv", [["probe", "builtins:exit"],
                                  ["divergences", "--impl", "exiting_impl:ExitsInInit"]])
def test_user_code_raising_systemexit_is_not_pctfuzz_exit_code(
        argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23, item 10: SystemExit(1) of user code used to read as "new finding"."""
    (tmp_path / "exiting_impl.py").write_text(EXITING)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(argv) == ExitCode.USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "raised SystemExit" in err[0], err
