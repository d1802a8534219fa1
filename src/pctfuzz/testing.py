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
(``Unsupported``) is passed over, and a question it answers for no case is skipped, with
the adapter's reason; a difference outside the registry fails with an
``AssertionError`` that reads like a finding (behaviour, impact, input, expected,
actual, and a ``check_case`` line that replays it), and Hypothesis shrinks it and keeps
it in *your* example database. Encode cases are drawn from the
adapter's answer domain, as a campaign draws them (``formats.AnswerDomain``: its declared
``sets``, ``encodings``, ``value_types`` and ``spaces``; ``[tool.pctfuzz] sets`` over
the adapter's), so the examples go to cases the adapter answers. The project
(``[tool.pctfuzz]`` of the current folder's project) is resolved
once, when the tests are made: its accept file and sets apply, and ``impl`` defaults to
its implementation. ``invariant_tests(codec)`` does the same with
the invariants for a ``Codec`` (``pctfuzz.oracles.Codec``). The strategies are
re-exported for tests of your own. ``check_case`` runs one recorded case through its
target's check, as the tests ``pctfuzz export`` writes do; ``atheris_main`` fuzzes one
target under atheris, as the fuzzers ``pctfuzz oss-fuzz init`` writes do.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import unittest
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from pctfuzz._internal.cases import (
    DecodeCase,
    EncodeCase,
    FormCase,
    FormParseCase,
    case_from_json,
)
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
from pctfuzz._internal.fuzz.seeds import unanswered
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE, OPERATIONS
from pctfuzz._internal.oracles.base import impl_name
from pctfuzz._internal.oracles.codec import Codec
from pctfuzz._internal.project import Project
from pctfuzz._internal.reports.failure import failure_text
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.settings import DEFAULT_SETTINGS, RunSettings
from pctfuzz._internal.targets import TARGETS, Target, get_target, resolve_subject
from pctfuzz._internal.text import one_line
from pctfuzz._internal.violations import Violation

__all__ = [
    "atheris_main",
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
    project.activate()  # its root importable, its accept file checked
    settings = project.run_settings  # its accept file and sets, as a campaign has them
    if impl is None:
        built: Any = project.implementation()
        name: str | None = project.impl_name
    else:
        built = impl() if inspect.isclass(impl) else impl
        name = impl if isinstance(impl, str) else None
    adapter = resolve_subject(_QUESTIONS[ENCODE.ident], built)
    tests: dict[str, Callable[[], None]] = {}
    for question in questions:
        target = _QUESTIONS[question]
        cases = target.strategy()
        examples: list[Any] = []
        if question == ENCODE.ident:
            domain = AnswerDomain.of(adapter, project.sets)  # --set over its own
            cases, examples = encode_cases_in(domain), edge_examples(domain)
        reason = unanswered(target, adapter, [*examples, *_FIRST_CASES[question]])
        if reason is not None:  # passing would claim a check that never ran
            tests[f"test_pctfuzz_{question}"] = _skipped(question, adapter, reason)
            continue
        _warm_up(functools.partial(target.checker, settings=settings), adapter,
                 examples[:1] or _FIRST_CASES[question])
        tests[f"test_pctfuzz_{question}"] = _test(
            target, adapter, cases, question, examples,
            replay=name or functools.partial(_import_name, impl), settings=settings)
    return tests


def _import_name(impl: Any) -> str | None:
    """``module:Name`` under which ``check_case`` loads ``impl`` again (a class, or an
    object a module holds at its top level), for the replay line of a failure; None
    when there is none. Asked on a failure only: it looks through the loaded modules."""
    if inspect.isclass(impl):
        cls: type = impl
        module = sys.modules.get(cls.__module__)
        if module is not None and getattr(module, cls.__qualname__, None) is cls:
            return f"{cls.__module__}:{cls.__qualname__}"
        return None
    found = []
    for module_name, module in list(sys.modules.items()):
        if module_name == "__main__" or module_name.startswith(("pctfuzz.", "_")):
            continue
        for attribute, value in list(getattr(module, "__dict__", {}).items()):
            if value is impl and not attribute.startswith("_"):
                found.append(f"{module_name}:{attribute}")
    # The adapter's own module before a test module that imported it
    own = [n for n in found if not n.rpartition(".")[2].startswith(("test_", "conftest"))]
    return min(own or found, key=len, default=None)


#: question -> one plain case, for the warm-up.
_FIRST_CASES: dict[str, Sequence[Any]] = {
    ENCODE.ident: (EncodeCase("a", "component"),), DECODE.ident: (DecodeCase("a"),),
    FORM_SERIALIZE.ident: (FormCase((("a", "b"),)),), FORM_PARSE.ident: (FormParseCase("a=b"),),
}


def _warm_up(check: Callable[[Any, Any], Any], impl: Any, cases: Sequence[Any]) -> None:
    """Run the check once before Hypothesis times it: its first call imports the
    registry, the rule catalogue and the adapter's lazy modules, which on a loaded CI
    runner took longer than Hypothesis' default 200 ms deadline (a failure that is not
    the adapter's). Whatever the case answers is ignored here; the test asks it again."""
    for case in cases:
        # a difference or a refusal: the test itself asks the case again and reports it
        with contextlib.suppress(Exception):
            check(case, impl)


def _test(target: Target, impl: Any, cases: st.SearchStrategy[Any], question: str,
          examples: Sequence[Any] = (), *,
          replay: str | Callable[[], str | None] | None = None,
          settings: RunSettings = DEFAULT_SETTINGS) -> Callable[[], None]:
    """The Hypothesis test of ``target``'s check on ``impl``, with the project's
    ``settings``. A failed check is an ``AssertionError`` in the words of a finding
    (``reports.failure``); ``replay``: the adapter's name for its replay line, or a
    function that finds it."""
    check = functools.partial(target.checker, settings=settings)

    def test(case: Any) -> None:
        try:
            check(case, impl)
        except Violation as failure:
            name = replay() if callable(replay) else replay
            raise AssertionError(failure_text(failure, target.name, name)) from None

    for case in reversed(examples):  # decorators apply inside out: keep their order
        test = example(case)(test)
    test = given(cases)(test)

    test.__name__ = test.__qualname__ = f"test_pctfuzz_{question}"
    test.__doc__ = f"pctfuzz: {question} of {impl_name(impl)} against the reference"
    return test


def _skipped(question: str, impl: Any, reason: str) -> Callable[[], None]:
    """A test that skips: pytest's mark where pytest runs it (the report then names the
    test, not pytest's internals), unittest's exception for any other runner."""
    why = f"{impl_name(impl)} does not answer {question}" + (
        f": {one_line(reason, 200)}" if reason else "")

    def test() -> None:
        raise unittest.SkipTest(why)

    test.__name__ = test.__qualname__ = f"test_pctfuzz_{question}"
    test.__doc__ = f"pctfuzz: {question} of {impl_name(impl)}, which it does not answer"
    if "pytest" in sys.modules:  # never imported here: pytest is not a dependency
        test = sys.modules["pytest"].mark.skip(reason=why)(test)
    return test


def invariant_tests(codec: Codec) -> dict[str, Callable[[], None]]:
    """One Hypothesis test per invariant group for ``codec`` (a ``Codec``: your own
    encode/decode functions with the reference's meaning), from the invariant targets'
    checks and strategies. An adapter is refused at once (``resolve_subject``)."""
    tests: dict[str, Callable[[], None]] = {}
    for name, target in TARGETS.items():
        if not target.differential:
            subject = resolve_subject(target, codec)
            test = _test(target, subject, target.strategy(), f"invariants_{name}")
            tests[test.__name__] = test
    return tests


def check_case(target: str, case: Any = None, *, raw_input: bytes | None = None,
               impl: str | None = None) -> None:
    """Run one recorded case through ``target``'s check, as a campaign's replay does:
    raises the ``Violation`` the finding recorded while it reproduces, returns when
    it no longer does. ``case``: a finding's ``case`` (its JSON form); ``raw_input``:
    the fuzzer's bytes instead, for a finding without a case. ``impl``: the
    implementation a differential target compares (default ``urllib``), or the wrong
    codec an invariant finding was made with (default the reference). The project of
    the current folder (``Project.load``: its accept file and declared sets) is in force,
    as in the campaign that made the finding."""
    project = Project.load(read_only=True)
    project.activate()  # its root importable: the adapter is the project's
    bound = get_target(target)
    if case is not None:
        parsed = case_from_json(case)
    elif raw_input is not None:
        parsed = bound.from_bytes(raw_input)
    else:
        raise ValueError("check_case needs a case or a raw input")
    bound.bind(resolve_subject(bound, impl), project.run_settings).check(parsed)


def atheris_main(target: str, argv: Sequence[str] | None = None) -> None:
    """Fuzz ``target`` under atheris, with libFuzzer's flags from ``argv`` (default
    ``sys.argv``): what the fuzzers that ``pctfuzz oss-fuzz init`` writes call. The
    adapter, accept file and sets come from the environment (``PCTFUZZ_IMPL``,
    ``PCTFUZZ_ACCEPT``, ``PCTFUZZ_SETS``: docs/oss-fuzz.md); a failed check is a crash
    that libFuzzer reports. Never returns normally: libFuzzer ends the process."""
    from pctfuzz._internal.fuzz import driver

    driver.main(target, None if argv is None else list(argv))
