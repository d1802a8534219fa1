"""The implementation-under-test interface (``pctfuzz._internal.oracles``): the registry,
``get_impl`` for names and import paths, and what each built-in adapter answers or
declines (``Unsupported``)."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.differential import check_encode
from pctfuzz._internal.errors import PctfuzzError, UnknownEncodingError, UsageError
from pctfuzz._internal.form import form_urldecode, form_urlencode
from pctfuzz._internal.oracles import (
    METHODS,
    Adapter,
    Impl,
    Unsupported,
    get_impl,
    impl_description,
    impl_name,
    impl_names,
    registry_names,
)
from pctfuzz._internal.oracles.peer import PeerUnavailable
from pctfuzz._internal.oracles.urllib_parse import python_codec, unquoted_bytes
from pctfuzz._internal.reference import percent_decode, percent_encode
from pctfuzz._internal.sets import FORM, SETS

BUILTINS = impl_names()


# --- the registry and get_impl ----------------------------------------------------------------
def test_registry_names_and_default() -> None:
    assert BUILTINS[0] == "urllib"
    assert set(BUILTINS) >= {"urllib", "urllib-unquote", "yarl", "yarl-c", "yarl-requote", "ada",
                             "node", "node-querystring", "whatwg-url"}
    assert get_impl().name == "urllib"
    assert get_impl(None).name == "urllib"
    for name in BUILTINS:
        assert impl_description(name)


@pytest.mark.parametrize("name", BUILTINS)
def test_every_builtin_is_an_impl(name: str) -> None:
    try:
        impl = get_impl(name)
    except PeerUnavailable as exc:  # a peer whose runtime or build is missing here
        pytest.skip(f"{exc} (make peers)")
    assert isinstance(impl, Impl)
    assert impl.name == name
    assert impl_name(impl) == name
    assert registry_names(impl)[0] == name
    assert repr(impl).startswith("<")
    for module in getattr(impl, "modules_under_test", ()):
        importlib.import_module(module)


def test_variants_share_their_parents_entries() -> None:
    assert registry_names(get_impl("yarl-c")) == ("yarl-c", "yarl")
    assert registry_names(get_impl("yarl-requote")) == ("yarl-requote", "yarl")
    assert registry_names(get_impl("urllib-unquote")) == ("urllib-unquote", "urllib")
    assert registry_names(get_impl("urllib")) == ("urllib",)


def test_names_are_case_insensitive() -> None:
    assert get_impl("URLLIB").name == "urllib"


def test_unknown_name_lists_the_builtins() -> None:
    with pytest.raises(PctfuzzError, match=r"unknown implementation 'nope'.*urllib.*ada"):
        get_impl("nope")


def test_adapter_object_is_returned_checked() -> None:
    impl = get_impl("urllib")
    assert get_impl(impl) is impl

    class Half:
        name = "half"

        def encode(self, case: EncodeCase) -> str:
            return ""

    with pytest.raises(PctfuzzError, match="lacks decode, form_serialize, form_parse"):
        get_impl(Half())  # type: ignore[arg-type]


PLUGIN = '''
from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.oracles import Adapter, Unsupported
from pctfuzz._internal.sets import get_set
from urllib.parse import quote


class MyAdapter(Adapter):
    name = "mypkg"

    def encode(self, case: EncodeCase) -> str:
        if isinstance(case.value, bytes) or case.encoding.lower() != "utf-8":
            raise Unsupported("my_quote takes UTF-8 text only")
        return quote(case.value, safe=get_set(case.set_name).printable_safe)


class Nameless:
    def encode(self, case): return "x"
    def decode(self, case): return b"x"
    def form_serialize(self, case): return "x"
    def form_parse(self, case): return []


class NoForms:
    def encode(self, case): return "x"
    def decode(self, case): return b"x"


class Broken:
    def __init__(self):
        raise RuntimeError("no config")


def make():
    return MyAdapter()


INSTANCE = MyAdapter()


class Holder:
    Inner = MyAdapter
'''


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    package = tmp_path / "pctfuzz_plugin_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "urls.py").write_text(textwrap.dedent(PLUGIN))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "pctfuzz_plugin_pkg.urls"
    for module in [m for m in sys.modules if m.startswith("pctfuzz_plugin_pkg")]:
        del sys.modules[module]


@pytest.mark.parametrize("attr", ["MyAdapter", "make", "INSTANCE", "Holder.Inner"])
def test_import_path_class_factory_or_object(plugin: str, attr: str) -> None:
    impl = get_impl(f"{plugin}:{attr}")
    assert impl.name == "mypkg"
    # The docstring's minimal adapter works with the differential check.
    assert check_encode(EncodeCase("a b~", "component"), impl) == ()
    assert check_encode(EncodeCase(b"x", "component"), impl) is None  # Unsupported
    with pytest.raises(Unsupported):
        impl.decode(DecodeCase("%41"))


def test_import_path_object_without_a_name_is_named_after_the_path(plugin: str) -> None:
    assert get_impl(f"{plugin}:Nameless").name == f"{plugin}:Nameless"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("pctfuzz_no_such_module:X", "cannot import 'pctfuzz_no_such_module'"),
        ("{plugin}:Missing", "has no attribute 'Missing'"),
        ("{plugin}:NoForms", "lacks form_serialize, form_parse"),
        ("{plugin}:Broken", "calling Broken without arguments failed: RuntimeError"),
        ("{plugin}:", "expected a built-in name"),
        (":X", "expected a built-in name"),
    ],
)
def test_import_path_errors_are_clear(plugin: str, path: str, message: str) -> None:
    with pytest.raises(PctfuzzError, match=message.replace("(", r"\(")):
        get_impl(path.format(plugin=plugin))


def test_a_user_module_that_raises_as_it_imports_is_a_usage_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mistake in the user's module (here a wrong keyword argument, as a user's first
    adapter had) is theirs to fix: one line, exit 2, not an internal error."""
    (tmp_path / "pctfuzz_raises_on_import.py").write_text(
        "from pctfuzz.oracles import function_adapter\n"
        "adapter = function_adapter(encode=str, set='component')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UsageError, match="importing 'pctfuzz_raises_on_import' raised "
                                         "TypeError: .*unexpected keyword argument 'set'"):
        get_impl("pctfuzz_raises_on_import:adapter")


def test_adapter_base_declines_everything() -> None:
    adapter = Adapter()
    for method, case in zip(
        METHODS,
        (EncodeCase("a"), DecodeCase("a"), FormCase(()), FormParseCase("a")),
        strict=True,
    ):
        with pytest.raises(Unsupported) as info:
            getattr(adapter, method)(case)
        assert info.value.reason


# --- urllib --------------------------------------------------------------------------------
def test_python_codec_mapping() -> None:
    assert python_codec("utf-8") == ("utf-8", "strict")
    assert python_codec("utf-16le") == ("utf-8", "strict")  # output encoding: UTF-8
    assert python_codec("latin1") == ("windows-1252", "xmlcharrefreplace")
    assert python_codec("sjis") == ("Shift_JIS", "xmlcharrefreplace")
    assert python_codec("windows-874") == ("cp874", "xmlcharrefreplace")  # no codec by name
    with pytest.raises(Unsupported, match="x-user-defined"):
        python_codec("x-user-defined")
    with pytest.raises(UnknownEncodingError):
        python_codec("no-such-label")


@pytest.mark.parametrize("set_name", list(SETS))
@pytest.mark.parametrize("name", ["urllib", "urllib-unquote"])
def test_urllib_sets_map_onto_safe(name: str, set_name: str) -> None:
    """Every printable ASCII character and a few others, str and bytes, with and
    without spaceAsPlus: only ~ in the form set differs."""
    impl = get_impl(name)
    text = "".join(map(chr, range(0x20, 0x7F))) + "\x00\x1f\x7fé€\U0001f600"
    for plus in (False, True):
        for value in (text, text.encode()):
            got = impl.encode(EncodeCase(value, set_name, "utf-8", plus))
            want = percent_encode(value, set_name, space_as_plus=plus)
            if set_name == FORM.name:
                want = want.replace("%7E", "~")
            assert got == want


def test_urllib_functions_serve_their_cases() -> None:
    urllib, unq = get_impl("urllib"), get_impl("urllib-unquote")
    assert urllib.encode(EncodeCase("a b/", "path", "utf-8", True)) == "a+b/"
    assert urllib.encode(EncodeCase(b"\xff ", "component")) == "%FF%20"
    assert urllib.encode(EncodeCase("é", "special-query", "windows-1252")) == "%E9"
    assert urllib.decode(DecodeCase("%41%zz%")) == b"A%zz%"
    assert unq.decode(DecodeCase("%41%FF%C3")) == b"A\xff\xc3"
    assert unq.decode(DecodeCase(b"%41%FF")) == b"A\xff"
    pairs = (("a b", "é&="), ("", "*-._"))
    # The default adapter picks the quoter by the number of pairs (odd: quote_plus).
    assert urllib.form_serialize(FormCase(pairs[:1])) == form_urlencode(pairs[:1])
    assert urllib.form_serialize(FormCase(pairs)) == form_urlencode(pairs).replace("+", "%20")
    assert unq.form_serialize(FormCase(pairs)) == form_urlencode(pairs).replace("+", "%20")
    for text in ("a=b&&c=%41+d;e", "=&=", "%zz=%FF+"):
        assert urllib.form_parse(FormParseCase(text)) == form_urldecode(text)
        assert unq.form_parse(FormParseCase(text)) == form_urldecode(text)
    assert urllib.form_parse(FormParseCase(b"a=%41+")) == [("a", "A ")]
    with pytest.raises(Unsupported):
        unq.form_parse(FormParseCase(b"a=b"))
    with pytest.raises(Unsupported):
        urllib.encode(EncodeCase("a", "component", "x-user-defined"))


def test_unquoted_bytes_keeps_what_unquote_returned() -> None:
    assert unquoted_bytes("a\udcff") == b"a\xff"
    assert unquoted_bytes("\ud800\udcff") == b"\xed\xa0\x80\xff"


# --- yarl ----------------------------------------------------------------------------------
YARL = ["yarl", "yarl-c", "yarl-requote"]


@pytest.mark.parametrize("name", YARL)
def test_yarl_declines_what_its_quoter_cannot_express(name: str) -> None:
    impl = get_impl(name)
    with pytest.raises(Unsupported, match="takes str"):
        impl.encode(EncodeCase(b"a", "path"))
    with pytest.raises(Unsupported, match="UTF-8"):
        impl.encode(EncodeCase("a", "path", "Shift_JIS"))
    with pytest.raises(Unsupported, match="always leaves"):
        impl.encode(EncodeCase("a", "component"))  # component encodes $ and ,
    with pytest.raises(Unsupported, match=r"qs=False"):
        impl.encode(EncodeCase("a", "userinfo"))  # ; = are query delimiters
    with pytest.raises(Unsupported):
        impl.decode(DecodeCase(b"%41"))
    with pytest.raises(Unsupported):
        impl.form_parse(FormParseCase(b"a=b"))
    with pytest.raises(Unsupported):
        impl.form_serialize(FormCase((("a", "b"),), "GBK"))


@pytest.mark.parametrize("name", YARL)
def test_yarl_answers(name: str) -> None:
    impl = get_impl(name)
    value = "a b?#é"
    for set_name, plus in (("path", False), ("userinfo", True), ("query-value", True)):
        want = percent_encode(value, set_name, space_as_plus=plus)
        assert impl.encode(EncodeCase(value, set_name, "utf-8", plus)) == want
    assert impl.decode(DecodeCase("%41%C3%A9%FF")) == "Aé\ufffd".encode()
    assert impl.form_serialize(FormCase((("a b", "&="),))) == "a+b=%26%3D"
    assert impl.form_parse(FormParseCase("a+b=%41&&c")) == [("a b", "A"), ("c", "")]


def test_yarl_variants_use_their_quoting_module() -> None:
    import yarl._quoting_c
    import yarl._quoting_py

    assert isinstance(get_impl("yarl")._quoter_cls(), yarl._quoting_py._Quoter)  # type: ignore[attr-defined]
    assert isinstance(get_impl("yarl-c")._quoter_cls(), yarl._quoting_c._Quoter)  # type: ignore[attr-defined]
    requote = get_impl("yarl-requote")
    assert requote.encode(EncodeCase("%41%2f%zz", "rfc3986-pchar")) == "A%2F%25zz"
    assert requote.encode(EncodeCase("%41%2f%zz", "path")) == "A/%25zz"
    assert get_impl("yarl").encode(EncodeCase("%41%2f%zz", "path")) == "%41%2f%zz"


# --- ada -----------------------------------------------------------------------------------
def test_ada_answers_through_whatwg_apis() -> None:
    ada = get_impl("ada")
    value = "a b\"#<>`'?^{}/:;=@[\\]|$%&+,!()~*é\x00\x7f"
    for set_name in ("fragment", "query", "special-query", "userinfo"):
        assert ada.encode(EncodeCase(value, set_name)) == percent_encode(value, set_name)
    assert ada.encode(EncodeCase("a/b ^`?", "path")) == percent_encode("a/b ^`?", "path")
    assert ada.encode(EncodeCase(value, FORM.name, "utf-8", True)) == percent_encode(
        value, FORM.name, space_as_plus=True
    )
    pairs = (("a b", value), ("", ""))
    assert ada.form_serialize(FormCase(pairs)) == form_urlencode(pairs)
    for text in ("?a=b", "??", "a=b&&=c+d%41", ""):
        assert ada.form_parse(FormParseCase(text)) == form_urldecode(text)


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        (EncodeCase("a\tb", "fragment"), "tab and newline"),
        (EncodeCase("a/../b", "path"), r"'\.' and '\.\.'"),
        (EncodeCase("a/%2E", "path"), r"'\.' and '\.\.'"),
        (EncodeCase("a", "component"), "no ada API"),
        (EncodeCase("a", FORM.name), "always writes space"),
        (EncodeCase("a", "query", "utf-8", True), "never write space"),
        (EncodeCase(b"a", "query"), "takes str"),
        (EncodeCase("a", "query", "GBK"), "UTF-8"),
        (DecodeCase("%41"), "no percent-decoder"),
        (FormCase((), "Big5"), "UTF-8"),
        (FormParseCase(b"a"), "takes str"),
    ],
)
def test_ada_declines(case: Any, reason: str) -> None:
    ada = get_impl("ada")
    methods: dict[type, Callable[[Any], Any]] = {
        EncodeCase: ada.encode,
        DecodeCase: ada.decode,
        FormCase: ada.form_serialize,
        FormParseCase: ada.form_parse,
    }
    method = methods[type(case)]
    with pytest.raises(Unsupported, match=reason):
        method(case)


def test_missing_optional_package_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ada_url", None)  # makes "import ada_url" fail
    with pytest.raises(PctfuzzError, match=r"impls"):
        get_impl("ada")


def test_reference_helpers_agree_with_adapters_on_plain_input() -> None:
    for name in BUILTINS:
        try:
            impl = get_impl(name)
        except PeerUnavailable:  # a peer whose runtime or build is missing here
            continue
        try:
            got = impl.decode(DecodeCase("a%41"))
        except Unsupported:
            continue
        assert got == percent_decode("a%41")
