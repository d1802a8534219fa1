"""The summary's new findings: one behaviour a rule names in several functions is said
to be one (a finding is one function's: ``cli.fuzz._behaviours_in_several_functions``)."""

from __future__ import annotations

import io
from pathlib import Path

from pctfuzz._internal.cases import EncodeCase, FormCase
from pctfuzz._internal.cli.fuzz import _describe_new_findings
from pctfuzz._internal.store import FindingStore
from pctfuzz._internal.store.records import new_finding

SURROGATE = {"rule": "lone_surrogates", "params": {"mode": "surrogatepass"},
             "text": "encodes a lone surrogate as its surrogatepass bytes (ED A0 80)"}
NEWLINE = {"rule": "written_as", "params": {"chars": "LF", "text": "%0D%0A"},
           "text": "writes '\\n' as '%0D%0A'"}


def _record(store: FindingStore, target: str, case: EncodeCase | FormCase,
            behaviour: dict[str, object], impl: str = "tcl-http") -> str:
    check = {"diff_encode": "encode", "diff_form": "form"}[target]
    params = ",".join(f"{k}={v}" for k, v in behaviour["params"].items())  # type: ignore[attr-defined]
    finding = new_finding(target, "divergence", case=case, check=check, impl=impl,
                          signature=f"{target}|divergence|{check}|rule={behaviour['rule']}"
                                    f"({params})|impl={impl}",
                          behaviour=behaviour)
    kept, _ = store.record(finding)
    return kept.id


def test_one_behaviour_in_two_functions_is_said_once(tmp_path: Path) -> None:
    store = FindingStore(tmp_path)
    encode = _record(store, "diff_encode", EncodeCase("\ud800", "rfc3986-unreserved"), SURROGATE)
    form = _record(store, "diff_form", FormCase((("", "\ud800"),)), SURROGATE)
    alone = _record(store, "diff_encode", EncodeCase("\r\n", "rfc3986-unreserved"), NEWLINE)
    out = io.StringIO()
    _describe_new_findings([encode, form, alone], tmp_path, out)
    lines = [line for line in out.getvalue().splitlines() if "one behaviour in" in line]
    assert lines == [f"  one behaviour in 2 functions: {SURROGATE['text']}: "
                     f"{encode} (diff_encode), {form} (diff_form)"], out.getvalue()


def test_two_findings_of_one_function_are_no_behaviour_in_several(tmp_path: Path) -> None:
    store = FindingStore(tmp_path)
    one = _record(store, "diff_encode", EncodeCase("\ud800", "rfc3986-unreserved"), SURROGATE)
    other = _record(store, "diff_encode", EncodeCase("\ud800", "component"), SURROGATE,
                    impl="tcl-http")
    out = io.StringIO()
    _describe_new_findings([one, other], tmp_path, out)
    assert "one behaviour in" not in out.getvalue()
