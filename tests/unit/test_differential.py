"""Differential checks (``pctfuzz._internal.checks.differential``): outside the divergence
registry, every
implementation agrees with the reference -- over every set, the decoder, the form
serializer and the form parser; and a disagreement is reported as a ``Divergence``
carrying what a finding needs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks import strategies
from pctfuzz._internal.checks.differential import (
    check_decode,
    check_encode,
    check_form,
    check_form_parse,
    resolve_impl,
)
from pctfuzz._internal.checks.profile import run_impl
from pctfuzz._internal.errors import PctfuzzError, UnknownEncodingError
from pctfuzz._internal.oracles import Adapter, Unsupported, get_impl, impl_names
from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter
from pctfuzz._internal.sets import SETS
from pctfuzz._internal.violations import Divergence

#: urllib, urllib-unquote, yarl, yarl-c, yarl-requote, ada and the peers; the library
#: adapters of issue 16 are tested on their own domains in tests/integration/test_libs*.py
IMPLS = [n for n in impl_names() if n in {"urllib", "urllib-unquote", "yarl", "yarl-c",
                                          "yarl-requote", "ada", "node", "node-querystring",
                                          "whatwg-url"}]

CHECKS: dict[str, tuple[Callable[..., Any], Callable[[], st.SearchStrategy[Any]]]] = {
    "encode": (check_encode, strategies.encode_cases),
    "decode": (check_decode, strategies.decode_cases),
    "form": (check_form, lambda: strategies.form_cases(surrogates=True)),
    "form-parse": (check_form_parse, strategies.form_parse_cases),
}


# --- Hypothesis: the implementations agree outside the registry ------------------------------
@pytest.mark.parametrize("check_name", list(CHECKS))
@pytest.mark.parametrize("impl_name", IMPLS)
def test_agrees_outside_the_registry(impl_name: str, check_name: str) -> None:
    """A Divergence here is a finding: the implementation and the reference differ in a
    way no registry entry explains (see ``pctfuzz divergences``)."""
    check, strategy = CHECKS[check_name]
    impl = get_impl(impl_name)

    @given(strategy())
    def run(case: Any) -> None:
        check(case, impl)

    run()


def _supports_set(impl: Any, set_name: str) -> bool:
    for plus in (False, True):
        try:
            impl.encode(EncodeCase("a", set_name, "utf-8", plus))
        except Unsupported:
            continue
        return True
    return False


def _expressible(impl_name: str) -> list[str]:
    # One adapter for all the sets: a Node.js peer is a process (collection in each
    # pytest worker once started 45 of them, about 10 s)
    impl = get_impl(impl_name)
    try:
        return [s for s in SETS if _supports_set(impl, s)]
    finally:
        getattr(impl, "close", lambda: None)()


#: Every (implementation, set) pair the implementation can express; the others are
#: Unsupported by design (e.g. ada only has the sets its URL setters use).
EXPRESSIBLE = [(i, s) for i in IMPLS for s in _expressible(i)]


#: Sets each implementation cannot express (pinned, so a lost capability is noticed):
#: yarl's quoter always leaves some sub-delims unencoded (e.g. ' and $,+&=; with
#: qs=False), which these sets encode; ada has only its URL setters' sets.
NOT_EXPRESSIBLE = {
    "urllib": set(),
    "urllib-unquote": set(),
    "yarl": {"application/x-www-form-urlencoded", "component", "encodeURIComponent",
             "rfc3986-unreserved", "special-query"},
    "ada": {"c0-control", "component", "data-uri", "encodeURI", "encodeURIComponent",
            "query-value", "rfc3986-pchar", "rfc3986-query", "rfc3986-unreserved"},
    # Node.js peers (tests/integration/test_protocol.py): the sets their functions are defined with.
    "node": set(SETS) - {"application/x-www-form-urlencoded", "component", "encodeURI",
                         "encodeURIComponent"},
    "node-querystring": set(SETS) - {"component", "encodeURIComponent"},
    "whatwg-url": {"c0-control", "component", "data-uri", "encodeURI", "encodeURIComponent",
                   "query-value", "rfc3986-pchar", "rfc3986-query", "rfc3986-unreserved"},
}


def test_expressible_sets() -> None:
    for name in IMPLS:
        missing = set(SETS) - {s for i, s in EXPRESSIBLE if i == name}
        assert missing == NOT_EXPRESSIBLE[name.replace("-c", "").replace("-requote", "")], name


@pytest.mark.parametrize(("impl_name", "set_name"), EXPRESSIBLE)
def test_every_set_agrees(impl_name: str, set_name: str) -> None:
    """Each set on its own, so none is left to chance: str (lone surrogates included)
    and bytes, any encoding label, with and without spaceAsPlus."""
    impl = get_impl(impl_name)

    @settings(max_examples=40)
    @given(
        st.builds(
            EncodeCase,
            st.one_of(strategies.text_values(), strategies.binary_values()),
            st.just(set_name),
            strategies.encoding_labels(),
            st.booleans(),
        )
    )
    def run(case: EncodeCase) -> None:
        check_encode(case, impl)

    run()


@pytest.mark.parametrize("impl_name", IMPLS)
def test_every_implementation_answers_something(impl_name: str) -> None:
    """The differential tests are not vacuous: each implementation answers (agrees on)
    at least one plain case of every check it implements."""
    impl = get_impl(impl_name)
    answered = {
        "encode": check_encode(EncodeCase("a b/é", "fragment"), impl),
        "decode": check_decode(DecodeCase("a%20b%C3%A9"), impl),
        "form": check_form(FormCase((("a", "é"),)), impl),
        "form-parse": check_form_parse(FormParseCase("a+b=%C3%A9&c"), impl),
    }
    supported = {name for name, result in answered.items() if result is not None}
    assert all(answered[name] == () for name in supported)
    expected = {"encode", "form", "form-parse"} if impl_name == "ada" else set(CHECKS)
    # Node has no fragment-set API (its encode: tests/integration/test_protocol.py).
    if impl_name.startswith("node"):
        expected.discard("encode")
    assert supported >= expected


# --- what a check returns and raises ---------------------------------------------------------
class Buggy(Adapter):
    name = "buggy"

    def encode(self, case: EncodeCase) -> str:
        return "%7e"

    def decode(self, case: DecodeCase) -> bytes:
        raise RuntimeError("crashed")

    def form_serialize(self, case: FormCase) -> str:
        if case.pairs:
            raise Unsupported("only empty forms")
        return ""

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        return [("a", "b")]


def test_results_agree_unsupported_accepted() -> None:
    assert check_encode(EncodeCase("a b", "component")) == ()  # default impl: urllib
    assert check_encode(EncodeCase("a b", "component"), "urllib") == ()
    assert check_form(FormCase((("a", "b"),)), Buggy()) is None
    assert check_form(FormCase(()), Buggy()) == ()
    assert check_encode(EncodeCase("~", "form"), "urllib") == ("urllib-quote-tilde",)


def test_value_divergence_carries_evidence() -> None:
    with pytest.raises(Divergence) as info:
        check_encode(EncodeCase("~", "component"), Buggy())
    exc = info.value
    assert (exc.check, exc.impl, exc.expected, exc.actual) == ("encode", "buggy", "~", "%7e")
    assert exc.impl_error is None
    assert exc.position == 0
    assert exc.case == EncodeCase("~", "component")
    assert exc.evidence()["impl"] == "buggy"

    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase("a=c"), Buggy())
    assert info.value.position == 0 and info.value.expected == [("a", "c")]


def test_impl_exception_is_a_crash_finding() -> None:
    from pctfuzz._internal.identity import classify

    with pytest.raises(Divergence) as info:
        check_decode(DecodeCase("%41"), Buggy())
    exc = info.value
    assert isinstance(exc.impl_error, RuntimeError)
    assert exc.actual is None and exc.expected == b"A"
    assert "buggy raised RuntimeError: crashed" in str(exc)
    kind, check, located = classify(exc)
    assert (kind, check, located) == ("crash", "decode", exc.impl_error)


def test_reference_refusal_is_compared_too() -> None:
    # The reference refuses a lone surrogate; an implementation that answers anyway
    # diverges unless the registry says so.
    with pytest.raises(Divergence) as info:
        check_encode(EncodeCase("\ud800", "component"), Buggy())
    exc = info.value
    assert exc.actual == "%7e"
    # held to the USVString's answer (U+FFFD), by the non-scalar policy; the detail
    # says the reference refuses
    assert exc.expected == "%EF%BF%BD"
    assert "reference raises NotScalarValueError" in exc.detail


def test_error_vs_error_needs_an_entry_unless_both_refuse_a_non_scalar() -> None:
    class Refuses(UrllibAdapter):
        name = "refuses"
        registry_names = ("refuses",)  # none of urllib's entries

    class RefusesWithTypeError(Refuses):
        def encode(self, case: EncodeCase) -> str:
            if isinstance(case.value, str) and not case.value.isascii():
                raise TypeError("not text")
            return super().encode(case)

    # Both refuse a lone surrogate, with UnicodeEncodeError (a ValueError): agreement,
    # with no registry entry (issue 10: "both refuse = agreement").
    assert check_encode(EncodeCase("\ud800", "component"), Refuses()) == ()
    assert check_form(FormCase((("\udc80", ""),)), Refuses()) == ()
    # A TypeError is not a refusal of a non-scalar string: it needs an entry.
    with pytest.raises(Divergence) as info:
        check_encode(EncodeCase("\ud800", "component"), RefusesWithTypeError())
    assert isinstance(info.value.impl_error, TypeError)


def test_surrogate_only_differences_are_not_findings() -> None:
    """Issue 10: an adapter raising UnicodeEncodeError, and one declaring
    ``scalar_values = "replace"`` that maps lone surrogates to U+FFFD (WebIDL
    USVString, as JavaScript does), give no finding on lone-surrogate cases."""

    class Usv(UrllibAdapter):
        name = "usv"
        registry_names = ("usv",)
        scalar_values = "replace"

        def encode(self, case: EncodeCase) -> str:
            if isinstance(case.value, str):
                fixed = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c
                                for c in case.value)
                case = EncodeCase(fixed, case.set_name, case.encoding, case.space_as_plus)
            return super().encode(case)

    class Strict(Usv):
        scalar_values = "strict"

    for value in ("\ud800", "a\udfffb", "\ud83d"):
        assert check_encode(EncodeCase(value, "path"), Usv()) == ()
        # Issue 21, the non-scalar policy: without the declaration, answering as for
        # the USVString conversion is agreement too (it was a finding before).
        assert check_encode(EncodeCase(value, "path"), Strict()) == ()

    class Drops(UrllibAdapter):
        name = "drops"
        registry_names = ("drops",)

        def encode(self, case: EncodeCase) -> str:
            value = "".join(c for c in str(case.value) if not 0xD800 <= ord(c) <= 0xDFFF)
            return super().encode(EncodeCase(value, case.set_name))

    # Any other answer where the reference refuses is still a finding (named by the
    # rule that explains it since issue 21: before, unit=lone-surrogate;...).
    with pytest.raises(Divergence) as info:
        check_encode(EncodeCase("\ud800", "path"), Drops())
    assert info.value.difference == "rule=lone_surrogates(mode=dropped)"

    class Wrong(Usv):
        scalar_values = "utf-16"

    with pytest.raises(PctfuzzError, match="scalar_values"):
        check_encode(EncodeCase("a", "path"), Wrong())


def test_answer_of_the_wrong_shape_is_reported_not_crashed_on() -> None:
    class Shapeless(UrllibAdapter):
        name = "shapeless"
        registry_names = ("shapeless", "urllib")

        def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
            return None  # type: ignore[return-value]

    with pytest.raises(Divergence):
        check_form_parse(FormParseCase("\ud800"), Shapeless())


def test_usage_errors_propagate() -> None:
    with pytest.raises(UnknownEncodingError):
        check_encode(EncodeCase("a", "component", "no-such-label"), "urllib")


def test_resolve_and_run() -> None:
    impl = resolve_impl("yarl")
    assert resolve_impl("yarl") is impl  # names are cached
    assert resolve_impl(impl) is impl
    assert resolve_impl(None).name == "urllib"
    assert run_impl("decode", DecodeCase(b"a"), impl) is None  # Unsupported
    outcome = run_impl("decode", DecodeCase("%41"), impl)
    assert outcome is not None and outcome.value == b"A"
