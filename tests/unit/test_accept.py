"""Issue 12 item 2: accepted differences declared by a user (``pctfuzz._internal.accept``).

Each ready-made reconciler is tested both ways: an implementation that shows exactly
its difference is accepted, one that shows it plus anything else is reported."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pctfuzz._internal.accept import ACCEPT_ENV, load_accept_file
from pctfuzz._internal.accept.reconcilers import (
    Reconciler,
    both_refuse,
    divergence,
    empty_pairs,
    encoded,
    latin1_fallback,
    left_raw,
    lowercase_hex,
    pairs_order,
    requoted,
    space_as,
)
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.differential import (
    check_decode,
    check_encode,
    check_form,
    check_form_parse,
)
from pctfuzz._internal.cli import main
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.form import form_urldecode, form_urlencode
from pctfuzz._internal.oracles import Adapter
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.violations import Divergence

CHECK_FN: dict[str, Callable[..., Any]] = {
    "encode": check_encode, "decode": check_decode, "form": check_form,
    "form-parse": check_form_parse,
}
METHOD = {"encode": "encode", "decode": "decode", "form": "form_serialize",
          "form-parse": "form_parse"}


def _adapter(check: str, answer: Callable[[Any], Any], reconciler: Reconciler,
             example: Case) -> Adapter:
    """An adapter answering ``check`` with ``answer(case)``, declaring one entry."""
    entry = divergence(id="the-entry", check=check, reconcile=reconciler,
                       citation="test", why="test", example=example)
    adapter = type("TestAdapter", (Adapter,), {"name": "test", "divergences": (entry,)})()
    setattr(adapter, METHOD[check], answer)
    return adapter


def _enc(case: EncodeCase, spec: str | None = None, plus: bool | None = None) -> str:
    return percent_encode(case.value, get_set(spec or case.set_name), encoding=case.encoding,
                          space_as_plus=case.space_as_plus if plus is None else plus)


def _lower(text: str) -> str:
    return re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), text)


def _unreserved_unquoted(value: str) -> str:
    def one(match: re.Match[str]) -> str:
        char = chr(int(match.group()[1:], 16))
        return char if (char.isalnum() and char.isascii()) or char in "-._~" else match.group()
    return re.sub("%[0-9A-Fa-f]{2}", one, value)


def _grouped(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    order: dict[str, int] = {}
    for name, _ in pairs:
        order.setdefault(name, len(order))
    return sorted(pairs, key=lambda p: order[p[0]])


def _utf8_or(data: bytes, fallback: str) -> bytes:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode(fallback).encode("utf-8")
    return data


def _raise(exc: BaseException) -> Callable[[Any], Any]:
    def answer(case: Any) -> Any:
        raise exc
    return answer


# (reconciler, check, exact implementation, case it diverges on, wrong implementation,
#  case the wrong one is caught on)
CASES: list[tuple[str, Reconciler, str, Callable[[Any], Any], Case, Callable[[Any], Any], Case]] = [
    ("left_raw", left_raw("[]"), "encode",
     lambda c: _enc(c, "encodeURI-[]"), EncodeCase("a[b]", "encodeURI"),
     lambda c: _enc(c, "encodeURI-[]^"), EncodeCase("[^", "encodeURI")),
    ("left_raw form", left_raw("!"), "form",
     lambda c: form_urlencode(c.pairs).replace("%21", "!"), FormCase((("!", "a!"),)),
     lambda c: form_urlencode(c.pairs).replace("%21", "!").replace("%7E", "~"),
     FormCase((("!~", ""),))),
    ("encoded", encoded("~"), "encode",
     lambda c: _enc(c, "component+~"), EncodeCase("a~", "component"),
     lambda c: _enc(c, "component+~!"), EncodeCase("~!", "component")),
    ("space_as %20", space_as("%20"), "encode",
     lambda c: _enc(c, plus=False), EncodeCase("a b", "component", space_as_plus=True),
     lambda c: _enc(c, "component+~", plus=False),
     EncodeCase("a b~", "component", space_as_plus=True)),
    ("space_as +", space_as("+"), "encode",
     lambda c: _enc(c, plus=True), EncodeCase("a b", "component"),
     lambda c: _enc(c, "component-+", plus=True), EncodeCase("a+b c", "component")),
    ("lowercase_hex", lowercase_hex(), "encode",
     lambda c: _lower(_enc(c)), EncodeCase("a/é", "component"),
     lambda c: _lower(_enc(c)).replace("~", "%7e"), EncodeCase("é~", "component")),
    ("both_refuse", both_refuse("TypeError"), "encode",
     _raise(TypeError("no surrogates")), EncodeCase("\ud800", "component"),
     _raise(KeyError("no")), EncodeCase("\ud800", "component")),
    ("both_refuse answers", both_refuse(["TypeError"]), "encode",
     _raise(TypeError("no surrogates")), EncodeCase("\ud800", "component"),
     _raise(TypeError("refuses everything")), EncodeCase("a", "component")),
    ("requoted", requoted("decode-unreserved"), "encode",
     lambda c: _enc(EncodeCase(_unreserved_unquoted(c.value), c.set_name)),
     EncodeCase("%41%2f%zz", "encodeURI-%25"),
     lambda c: _enc(EncodeCase(percent_decode(c.value).decode(), c.set_name)),
     EncodeCase("%2f", "encodeURI-%25")),
    ("requoted upper", requoted("upper"), "encode",
     lambda c: re.sub("%25([0-9A-Fa-f]{2})", lambda m: "%" + m[1].upper(), _enc(c)),
     EncodeCase("%2f a", "component"),
     lambda c: re.sub("%25([0-9A-Fa-f]{2})", lambda m: "%" + m[1], _enc(c)),
     EncodeCase("%2f", "component")),
    # quote(unquote(s), safe) itself; the wrong one keeps an escape that is not UTF-8
    ("requoted decode-utf8", requoted("decode-utf8"), "encode",
     lambda c: urllib.parse.quote(urllib.parse.unquote(c.value), "/"),
     EncodeCase("%41%2f%e9%C3%A9/%zz ", "rfc3986-unreserved-/"),
     lambda c: urllib.parse.quote(urllib.parse.unquote(c.value, "latin-1"), "/", "latin-1"),
     EncodeCase("%e9", "rfc3986-unreserved-/")),
    ("pairs_order grouped", pairs_order("grouped"), "form-parse",
     lambda c: _grouped(form_urldecode(c.text)), FormParseCase("a=1&b=2&a=3"),
     lambda c: sorted(form_urldecode(c.text)), FormParseCase("b=1&a=2")),
    ("pairs_order form", pairs_order("sorted"), "form",
     lambda c: form_urlencode(sorted(c.pairs, key=lambda p: p[0])),
     FormCase((("b", "1"), ("a", "2"), ("b", "0"))),
     lambda c: form_urlencode(sorted(c.pairs)), FormCase((("b", "1"), ("a", "2"), ("b", "0")))),
    ("empty_pairs dropped", empty_pairs("dropped"), "form-parse",
     lambda c: [p for p in form_urldecode(c.text) if p[1]], FormParseCase("a=&b=1"),
     lambda c: [p for p in form_urldecode(c.text) if p[0] and p[1]], FormParseCase("=1&b=")),
    ("empty_pairs kept", empty_pairs("kept"), "form-parse",
     lambda c: [form_urldecode(s)[0] if s else ("", "") for s in c.text.split("&")],
     FormParseCase("a&&b"),
     lambda c: [form_urldecode(s)[0] if s else ("", "x") for s in c.text.split("&")],
     FormParseCase("a&&b")),
    ("latin1_fallback", latin1_fallback(), "decode",
     lambda c: _utf8_or(percent_decode(c.value), "latin-1"), DecodeCase("%E9t%C3%A9"),
     lambda c: _utf8_or(percent_decode(c.value), "cp1252"), DecodeCase("%80")),
    ("latin1_fallback form-parse", latin1_fallback(), "form-parse",
     lambda c: [(n, _utf8_or(v.encode("latin-1", "replace"), "latin-1").decode())
                for n, v in form_urldecode(c.text.replace("%E9", "%C3%A9"))],
     FormParseCase("a=%E9"),
     lambda c: [(n, "?") for n, v in form_urldecode(c.text)], FormParseCase("a=%E9")),
]


@pytest.mark.parametrize(("label", "reconciler", "check", "exact", "case", "wrong", "caught"),
                         CASES, ids=[c[0] for c in CASES])
def test_reconciler_accepts_its_difference_and_nothing_else(
        label: str, reconciler: Reconciler, check: str, exact: Callable[[Any], Any], case: Case,
        wrong: Callable[[Any], Any], caught: Case) -> None:
    run = CHECK_FN[check]
    # Without the entry, the exact implementation's answer is a finding...
    bare = type("Bare", (Adapter,), {"name": "bare"})()
    setattr(bare, METHOD[check], exact)
    with pytest.raises(Divergence):
        run(case, bare)
    # ... with it, accepted by this entry alone.
    assert run(case, _adapter(check, exact, reconciler, case)) == ("the-entry",)
    # The same difference plus another one is still reported.
    with pytest.raises(Divergence):
        run(caught, _adapter(check, wrong, reconciler, case))


def test_entries_compose_and_apply_only_to_their_adapter() -> None:
    """Two entries explain one case together; another adapter does not get them."""
    entries = (
        divergence(id="raw-brackets", check="encode", reconcile=left_raw("[]"),
                   citation="c", why="w", example=EncodeCase("[", "encodeURI")),
        divergence(id="lower", check="encode", reconcile=lowercase_hex(),
                   citation="c", why="w", example=EncodeCase("é", "encodeURI")),
    )
    answer = staticmethod(lambda c: _lower(_enc(c, "encodeURI-[]")))
    mine = type("Mine", (Adapter,), {"name": "mine", "divergences": entries,
                                     "encode": answer})()
    assert check_encode(EncodeCase("[é]", "encodeURI"), mine) == ("raw-brackets", "lower")
    other = type("Other", (Adapter,), {"name": "other", "encode": answer})()
    with pytest.raises(Divergence):
        check_encode(EncodeCase("[é]", "encodeURI"), other)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"check": "decode", "reconcile": left_raw("a")}, "left_raw explains encode, form"),
        ({"check": "nope", "reconcile": left_raw("a")}, "unknown check 'nope'"),
        ({"check": "encode", "reconcile": left_raw("a"), "why": " "}, "why must be"),
        ({"check": "encode", "reconcile": left_raw("a"), "example": DecodeCase("a")},
         "must be a EncodeCase"),
    ],
)
def test_bad_entries_are_refused_in_one_line(kwargs: dict[str, Any], message: str) -> None:
    fields: dict[str, Any] = {"id": "x", "citation": "c", "why": "w",
                              "example": EncodeCase("a", "component"), **kwargs}
    with pytest.raises(PctfuzzError, match=re.escape(message)):
        divergence(**fields)
    with pytest.raises(PctfuzzError, match="mode must be one of"):
        requoted("sometimes")


def test_divergences_lists_and_checks_a_user_adapter(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["divergences", "--impl", "accept_impls:BracketsRaw", "-v"]) == 0
    out = capsys.readouterr().out
    assert "brackets-left-raw  (brackets, encode)" in out and "RFC 3986 3.2.2" in out
    assert main(["divergences", "--impl", "accept_impls:BracketsRaw", "--check"]) == 0
    assert "brackets-left-raw (brackets, encode): ok" in capsys.readouterr().out


def test_check_reports_a_wrong_user_entry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["divergences", "--impl", "accept_impls:WrongEntry", "--check"]) == 1
    out = capsys.readouterr().out
    assert "wrong-paren (wrong, encode): FAILED: the example no longer diverges" in out
    assert "wrong-empty (wrong, form-parse): FAILED: the example no longer diverges" in out
    assert "brackets-left-raw" not in out  # the parent's entries are not the variant's
    assert "2 failed" in out


def test_check_with_no_pinned_examples_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """An adapter without entries, and no accept file: nothing was checked, which is
    said as such (exit 0), not as "every pinned example diverges and is accepted"."""
    monkeypatch.chdir(tmp_path)  # no [tool.pctfuzz] accept file in force
    assert main(["divergences", "--impl", "accept_impls:Plain", "--check"]) == 0
    assert capsys.readouterr().out == "no pinned examples to check\n"


def test_unknown_implementation_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["divergences", "--impl", "no_such_module_xyz:Adapter"]) == 2
    assert "cannot import" in capsys.readouterr().err
    assert main(["divergences", "--impl", "nosuch"]) == 2


TOML = '''
[[divergence]]
id = "toml-brackets"
check = "encode"
reconciler = "left_raw"
chars = "[]"
citation = "RFC 3986 3.2.2"
why = "IPv6 literals"
example = { value = "[", set = "encodeURI" }
'''


def test_accept_toml_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "accept.toml"
    good.write_text(TOML)
    (entry,) = load_accept_file(str(good))
    assert entry.id == "toml-brackets" and entry.impl == ""
    argv = ["divergences", "--impl", "accept_impls:WrongEntry", "--accept", str(good)]
    assert main([*argv]) == 0
    assert "toml-brackets  (wrong, encode)" in capsys.readouterr().out
    assert main([*argv, "--check"]) == 1  # WrongEntry's own entries still fail
    out = capsys.readouterr().out
    assert "toml-brackets (wrong, encode): ok" in out
    # The file's entries reach the differential check in the run's settings, handed
    # down (the command's Project.run_settings); none of this process is changed.
    from accept_impls import Plain

    from pctfuzz._internal.project import Project

    plain = Plain()
    settings = Project.load(tmp_path, accept=str(good)).run_settings
    assert settings.accept_file == str(good)
    assert check_encode(EncodeCase("[a]", "encodeURI"), plain,
                        settings=settings) == ("toml-brackets",)
    with pytest.raises(Divergence):
        check_encode(EncodeCase("[a]", "encodeURI"), plain)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[divergence]]\nid = 'x'\nreconciler = 'magic'\n", "reconciler 'magic' is not one of"),
        ("[[divergence]]\nid = 'x'\nreconciler = 'left_raw'\n", "left_raw needs 'chars'"),
        (TOML.replace('value = "["', 'valu = "["'), "bad example for encode"),
        ("not toml [", "accept.toml"),
        ("x = 1\n", "expected [[divergence]] tables"),  # an empty file holds no entries
    ],
)
def test_bad_accept_file_exits_2_in_one_line(tmp_path: Path, text: str, message: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "accept.toml"
    bad.write_text(text)
    assert main(["divergences", "--accept", str(bad)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_accept_python_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    module = tmp_path / "mine_accept.py"
    module.write_text(
        "from pctfuzz._internal.cases import EncodeCase\n"
        "from pctfuzz._internal.oracles import divergence, left_raw\n"
        "divergences = [divergence(id='py-brackets', check='encode', reconcile=left_raw('[]'),"
        " citation='c', why='w', example=EncodeCase('[', 'encodeURI'))]\n")
    argv = ["divergences", "--impl", "accept_impls:Plain", "--accept", str(module)]
    assert main([*argv, "--check"]) == 0
    assert "py-brackets (plain, encode): ok" in capsys.readouterr().out
    # Declared twice (the adapter's own entry explains the example first): redundant.
    argv[2] = "accept_impls:BracketsRaw"
    assert main([*argv, "--check"]) == 1
    assert "py-brackets (brackets, encode): FAILED: redundant" in capsys.readouterr().out


@pytest.mark.slow
def test_accept_reaches_the_campaign_children(tmp_path: Path) -> None:
    """``fuzz --accept`` hands the file to the libFuzzer children (PCTFUZZ_ACCEPT, the
    hand-off of ``protocol.HarnessSettings``): with it the brackets are accepted,
    without it they are a finding."""
    import json
    import os

    from campaigns import execs_at_least, finding_saved, run_until

    from pctfuzz._internal.exits import ExitCode

    tests = Path(__file__).resolve().parents[1] / "support"
    accept = tmp_path / "accept.toml"
    accept.write_text(TOML)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tests),
                                                       os.environ.get("PYTHONPATH", "")]))
    env.pop(ACCEPT_ENV, None)

    def fuzz(name: str, *extra: str) -> tuple[int, list[dict[str, Any]]]:
        # Until the event (a finding saved; or, with the entry accepted, 20,000
        # executions without one), then SIGINT: never a time budget.
        findings = tmp_path / name / "findings"
        saved, counted = finding_saved(findings), execs_at_least(20_000, "diff_encode")
        run = run_until(
            ["diff_encode", "--jobs", "1", "--impl", "accept_impls:Plain", "--corpus",
             str(tmp_path / name / "corpus"), "--findings", str(findings), *extra],
            lambda output: saved(output) or counted(output), cwd=tests.parent, env=env)
        assert run.returncode in (1, ExitCode.SIGINT), run.stdout + run.stderr
        return run.returncode, [json.loads(p.read_text()) for p in findings.glob("*.json")]

    code, records = fuzz("without")
    assert code == 1 and any("rule=left_raw(chars=[])" in r["signature"] for r in records), records
    code, records = fuzz("with", "--accept", str(accept))
    assert code == ExitCode.SIGINT and records == []
