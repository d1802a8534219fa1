"""pctfuzz's checks inside your own test suite: ready-made Hypothesis tests and
strategies, run by your pytest under your Hypothesis profile.

A test file of three lines checks your adapter against the reference, with the same
differential checks the fuzzer runs::

    # tests/test_urls_vs_whatwg.py
    from pctfuzz.testing import differential_tests
    from mypkg.urls import MyAdapter
    globals().update(differential_tests(MyAdapter))

``differential_tests`` returns ``{"test_pctfuzz_encode": f, "test_pctfuzz_decode": f,
...}``: one Hypothesis test per question. A case the adapter does not answer
(``Unsupported``) passes; a difference outside the registry fails with the
``Divergence`` (what went in, what the reference says, what came out), and Hypothesis
shrinks it and keeps it in *your* example database. Encode cases are drawn from the
adapter's answer domain, as a campaign draws them (``formats.AnswerDomain``: its declared
``sets``, ``encodings``, ``value_types`` and ``spaces``; ``[tool.pctfuzz] sets`` over
the adapter's), so the examples go to cases the adapter answers. The project
(``[tool.pctfuzz]`` of the current folder's project) is resolved
once, when the tests are made: its accept file and sets apply, and ``impl`` defaults to
its implementation. ``invariant_tests(codec)`` does the same with
the invariants for a ``Codec`` (``pctfuzz.oracles.Codec``). The strategies are
re-exported for tests of your own. ``check_case`` runs one recorded case through its
target's check, as the tests ``pctfuzz export`` writes do.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from pctfuzz._internal.cases import EncodeCase, case_from_json
from pctfuzz._internal.checks.strategies import (
    binary_values,
    decode_cases,
    encode_cases,
    encoding_labels,
    form_cases,
    form_parse_cases,
    text_values,
)
from pctfuzz._internal.formats import AnswerDomain
from pctfuzz._internal.operations import OPERATIONS
from pctfuzz._internal.oracles.base import impl_name
from pctfuzz._internal.oracles.codec import Codec
from pctfuzz._internal.project import Project
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.targets import TARGETS, Target, get_target, resolve_subject

__all__ = [
    "check_case",
    "decode_cases",
    "differential_tests",
    "edge_examples",
    "encode_cases",
    "encode_cases_for",
    "encode_cases_in",
    "form_cases",
    "form_parse_cases",
    "invariant_tests",
]

#: question -> its differential target (the check and the strategy of its cases)
_QUESTIONS: dict[str, Target] = {op.ident: TARGETS[op.differential_target]
                                  for op in OPERATIONS}


def encode_cases_for(set_specs: Iterable[str]) -> st.SearchStrategy[EncodeCase]:
    """``EncodeCase`` for the given sets (names or set specs, `pctfuzz sets --spec`) only,
    in any encoding, str or bytes."""
    specs = list(set_specs)
    for spec in specs:
        get_set(spec)  # an unknown set is an error now, not inside every example
    return st.builds(EncodeCase, st.one_of(text_values(), binary_values()),
                     st.sampled_from(specs), encoding_labels(), st.booleans())


def encode_cases_in(domain: AnswerDomain) -> st.SearchStrategy[EncodeCase]:
    """``EncodeCase`` inside an adapter's answer domain (``AnswerDomain.of(adapter)``):
    its sets, its encodings (any label when it declares none), its value types and its
    spaceAsPlus values, the cases a campaign asks it."""
    for spec in domain.sets:
        get_set(spec)
    values = [text_values() if kind == "str" else binary_values()
              for kind in domain.value_types]
    encodings = (st.sampled_from(domain.encodings) if domain.encodings
                 else encoding_labels())
    return st.builds(EncodeCase, st.one_of(values), st.sampled_from(domain.sets), encodings,
                     st.sampled_from(domain.spaces))


def edge_examples(domain: AnswerDomain) -> list[EncodeCase]:
    """One ``EncodeCase`` per ASCII character (or byte, for an adapter of bytes only)
    and declared set, in the domain's first encoding and spaceAsPlus value: run as
    explicit examples before the drawn ones, so a set that differs from the declared
    one by a single character fails under every seed, not only when the draw hits it
    (URL Standard 1.3: every percent-encode set is defined over ASCII)."""
    encoding = domain.encodings[0] if domain.encodings else "utf-8"
    space = domain.spaces[0]
    values: list[str | bytes] = ([chr(c) for c in range(0x80)] if "str" in domain.value_types
                                 else [bytes([c]) for c in range(0x80)])
    return [EncodeCase(value, spec, encoding, space)
            for spec in domain.sets for value in values]


def differential_tests(impl: Any = None, *, questions: Iterable[str] = tuple(_QUESTIONS),
                       project: Project | None = None) -> dict[str, Callable[[], None]]:
    """One Hypothesis test per question (``encode``, ``decode``, ``form``,
    ``form_parse``) comparing ``impl`` (an adapter or adapter class, a built-in name
    such as ``"urllib"``; default: the project's ``[tool.pctfuzz] impl``) with the
    reference outside the divergence registry. ``project``: default, the project of
    the current folder (``Project.load``)."""
    project = project or Project.load()
    project.activate()  # its accept file and declared sets, as a campaign has them
    if impl is None:
        built: Any = project.implementation()
    else:
        built = impl() if inspect.isclass(impl) else impl
    adapter = resolve_subject(_QUESTIONS["encode"], built)
    tests: dict[str, Callable[[], None]] = {}
    for question in questions:
        target = _QUESTIONS[question]
        cases = target.strategy()
        examples: list[Any] = []
        if question == "encode":
            domain = AnswerDomain.of(adapter)
            cases, examples = encode_cases_in(domain), edge_examples(domain)
        tests[f"test_pctfuzz_{question}"] = _test(target.checker, adapter, cases, question,
                                                  examples)
    return tests


def _test(check: Callable[[Any, Any], Any], impl: Any, cases: st.SearchStrategy[Any],
          question: str, examples: Sequence[Any] = ()) -> Callable[[], None]:
    def test(case: Any) -> None:
        check(case, impl)  # raises Divergence on a difference no registry entry accepts

    for case in reversed(examples):  # decorators apply inside out: keep their order
        test = example(case)(test)
    test = given(cases)(test)

    test.__name__ = test.__qualname__ = f"test_pctfuzz_{question}"
    test.__doc__ = f"pctfuzz: {question} of {impl_name(impl)} against the reference"
    return test


def invariant_tests(codec: Codec) -> dict[str, Callable[[], None]]:
    """One Hypothesis test per invariant group for ``codec`` (a ``Codec``: your own
    encode/decode functions with the reference's meaning), from the invariant targets'
    checks and strategies. An adapter is refused at once (``resolve_subject``)."""
    tests: dict[str, Callable[[], None]] = {}
    for name, target in TARGETS.items():
        if not target.differential:
            subject = resolve_subject(target, codec)
            test = _test(target.checker, subject, target.strategy(), f"invariants_{name}")
            tests[test.__name__] = test
    return tests


def check_case(target: str, case: Any = None, *, raw_input: bytes | None = None,
               impl: str | None = None) -> None:
    """Run one recorded case through ``target``'s check, as a campaign's replay does:
    raises the ``Violation`` the finding recorded while it reproduces, returns when
    it no longer does. ``case``: a finding's ``case`` (its JSON form); ``raw_input``:
    the fuzzer's bytes instead, for a finding without a case. ``impl``: the
    implementation a differential target compares (default ``urllib``), or the wrong
    codec an invariant finding was made with (default the reference)."""
    bound = get_target(target)
    if case is not None:
        parsed = case_from_json(case)
    elif raw_input is not None:
        parsed = bound.from_bytes(raw_input)
    else:
        raise ValueError("check_case needs a case or a raw input")
    bound.check(parsed, resolve_subject(bound, impl))
