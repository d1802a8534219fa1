"""``pctfuzz.testing`` in the user's words (issue 34 item 5): a failing test reads like
a finding (behaviour, impact, input, expected, actual, a line that replays it), not
like pctfuzz's exception types; a question the adapter never answers is skipped with
its reason, not passed."""

from __future__ import annotations

import re
import unittest
from pathlib import Path
from urllib.parse import quote, unquote_to_bytes

import pytest

from pctfuzz._internal.project import Project
from pctfuzz.oracles import function_adapter
from pctfuzz.testing import differential_tests


def lower_hex(text: str) -> str:
    return re.sub("%[0-9A-F]{2}", lambda m: m[0].lower(), quote(text, safe=""))


LOWER = function_adapter("lower", encode=lower_hex, sets={"u": "rfc3986-unreserved"})


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project.load(tmp_path)  # no [tool.pctfuzz]: nothing but the adapter's own


def test_a_failure_reads_like_a_finding(project: Project) -> None:
    test = differential_tests(LOWER, questions=["encode"], project=project)
    with pytest.raises(AssertionError) as caught:
        test["test_pctfuzz_encode"]()
    assert type(caught.value) is AssertionError  # no pctfuzz type in the user's report
    text = str(caught.value)
    assert "_internal" not in text and "Divergence" not in text
    head, *lines = text.splitlines()
    assert re.fullmatch(r"lower differs from the reference on encode\(.*\)", head), head
    fields = {k: v.strip() for k, v in (line.strip().split(": ", 1) for line in lines)}
    assert "lowercase" in fields["behaviour"]
    assert fields["input"].startswith("encode(") and fields["impact"]
    expected, actual = fields["expected"], fields["actual"]
    assert expected.endswith(" (the reference)") and expected.lower().startswith(actual)
    # The replay line runs as it is, and fails as the test did
    assert fields["replay"].startswith("from pctfuzz.testing import check_case; check_case(")
    assert "impl='test_testing_failures:LOWER')" in fields["replay"]
    with pytest.raises(AssertionError):
        exec(fields["replay"], {})


def test_a_question_the_adapter_never_answers_is_skipped(project: Project) -> None:
    tests = differential_tests(LOWER, project=project)
    for question, reason in (("decode", "does not percent-decode"),
                             ("form", "does not serialize forms"),
                             ("form_parse", "does not parse forms")):
        with pytest.raises(unittest.SkipTest,
                           match=f"^lower does not answer {question}: lower {reason}$"):
            tests[f"test_pctfuzz_{question}"]()


def test_a_question_answered_for_some_cases_is_run(project: Project) -> None:
    """An adapter that answers str but not bytes is asked, not skipped: the test runs
    (a skip would raise) and passes, as the function is the standard's decoder."""
    decoder = function_adapter("bytes-of", decode=unquote_to_bytes)
    tests = differential_tests(decoder, questions=["decode"], project=project)
    tests["test_pctfuzz_decode"]()
