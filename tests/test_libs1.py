"""Built-in adapters for shipped URL libraries (issue 16): requests, werkzeug, urllib3,
rfc3986, w3lib. For each: agreement with the reference outside its accepted
differences on Hypothesis cases, its pinned examples still diverge and are accepted,
and ``pctfuzz probe`` on the library function finds the set the adapter declares."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import settings

from pctfuzz.accept import accepted_entries, check_entries
from pctfuzz.cli import EXIT_OK, main
from pctfuzz.oracles import get_impl
from pctfuzz.probe import load_encoder, probe
from pctfuzz.setspec import canonical_spec
from pctfuzz.testing import differential_tests

#: adapter name -> (library function as probed, label in the adapter's ``sets``)
PROBED: dict[str, list[tuple[str, str]]] = {
    "requests": [("requests.utils:requote_uri", "requote_uri")],
}
QUESTIONS = ("encode", "decode", "form", "form_parse")


def _impl(name: str) -> Any:
    pytest.importorskip(name.split("-")[0])
    return get_impl(name)


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("name", sorted(PROBED))
def test_agrees_outside_its_registry(name: str, question: str) -> None:
    (test,) = differential_tests(_impl(name), questions=[question]).values()
    settings(max_examples=100, deadline=None)(test)()


@pytest.mark.parametrize("name", sorted(PROBED))
def test_pinned_examples_diverge_and_are_accepted(name: str, capsys: Any) -> None:
    impl = _impl(name)
    results = check_entries(impl, accepted_entries(impl))
    assert results and all(r.ok for r in results), [r.line() for r in results]
    assert main(["divergences", "--impl", name, "--check"]) == EXIT_OK


@pytest.mark.parametrize(("name", "target", "label"),
                         [(n, t, lab) for n, items in sorted(PROBED.items())
                          for t, lab in items])
def test_probe_finds_the_declared_set(name: str, target: str, label: str) -> None:
    impl = _impl(name)
    fn, _ = load_encoder(target)
    assert canonical_spec(probe(fn, target).spec) == canonical_spec(impl.sets[label])
