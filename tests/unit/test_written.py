"""Characters written as a text of their own (``written_as``) and a fixed answer in
place of the input's (``answered``): rules with an exact answer, so each is one finding
and what they do not say is another (``pctfuzz._internal.accept.reconcilers``).

The encoders are hold-out 11's kinds, rebuilt: a Markdown renderer's link encoder
(HTML character references read first, ``&`` written ``&amp;``, a ``javascript:`` or
``data:`` link answered ``#harmful-link``) and a form encoder whose ``+`` is escaped
twice."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from pctfuzz._internal.accept.model import Model, render
from pctfuzz._internal.accept.reconcilers import answered, written_as, written_templates
from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase
from pctfuzz._internal.checks.differential import check_encode
from pctfuzz._internal.errors import NotModelled, UsageError
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.targets import get_target
from pctfuzz._internal.violations import Divergence
from pctfuzz.oracles import function_adapter

_HARMFUL = re.compile("(?i)(javascript|vbscript|data):")


def _link(text: str) -> str:
    """A link destination as a Markdown renderer writes it into HTML."""
    text = html.unescape(text)
    if _HARMFUL.match(text):
        return "#harmful-link"
    return html.escape(quote(text, safe="/#:()*?=%@+,&;!$'~"), quote=False)


def _plus_twice(text: str) -> str:
    """A form encoder that writes '+' as %2B, then escapes every '%' (so %252B)."""
    return text.replace("+", "%2B").replace(" ", "+").replace("%", "%25") \
        .replace("&", "%26").replace("=", "%3D").replace("#", "%23").replace("?", "%3F")


LINK = function_adapter("test-link", encode=_link, sets={"uri": "encodeURI"})
PLUS_TWICE = function_adapter("test-plus-twice", encode=_plus_twice,
                              sets={"form": "application/x-www-form-urlencoded"},
                              space_as_plus=True)


def _found(adapter: object, value: str, set_name: str, plus: bool = False) -> Divergence:
    with pytest.raises(Divergence) as info:
        check_encode(EncodeCase(value, set_name, space_as_plus=plus), adapter)  # type: ignore[arg-type]
    return info.value


@pytest.mark.parametrize("value", ["&", "a&b", "x=1&y=2"])
def test_a_character_written_as_a_text_is_one_rule(value: str) -> None:
    found = _found(LINK, value, "encodeURI")
    assert found.difference == "rule=written_as(chars=&,text=&amp;)"
    assert found.behaviour is not None and found.behaviour["params"] == {"chars": "&",
                                                                         "text": "&amp;"}


@pytest.mark.parametrize("value", ["a&lt;b", "&gt", "&copy=1"])
def test_what_the_rule_does_not_say_is_another_finding(value: str) -> None:
    """A character reference read as its character (a real bug: '&lt;' is data) parts
    from the reference at the same '&' that is written '&amp;' (harmless): once that
    finding is made (a campaign meets a bare '&' first), the rule does not give the
    answer, so the input is never its hit (hold-out 11: it was, in every run)."""
    bound = get_target("diff_encode").bind(LINK)
    with pytest.raises(Divergence) as first:
        bound.check(EncodeCase("&", "encodeURI"))
    assert bound.known.add("encode", first.value.behaviour, first.value.case)
    with pytest.raises(Divergence) as info:
        bound.check(EncodeCase(value, "encodeURI"))
    assert info.value.difference != first.value.difference
    assert info.value.difference.startswith("unit=0x26;")  # (the '&' read otherwise)


@pytest.mark.parametrize("value", ["javascript:alert(1)", "DATA:x", "vbscript:", "data:,a&lt;"])
def test_a_fixed_answer_is_one_finding_whatever_set_it_off(value: str) -> None:
    """Each prefix the sanitizer replaces, in any case: one finding named by what it
    answers (was one per prefix, named after its first letter)."""
    assert _found(LINK, value, "encodeURI").difference == "rule=answered(text=#harmful-link)"


def _percent_swallowed(text: str) -> bytes:
    """A decoder that reads '+' as a space and drops a '%' that starts no escape with
    the two characters after it."""
    from urllib.parse import unquote_to_bytes

    return unquote_to_bytes(re.sub("%(?![0-9A-Fa-f]{2}).{0,2}", "", text.replace("+", " "),
                                   flags=re.DOTALL))


def test_an_answer_that_follows_the_input_is_no_fixed_answer() -> None:
    """'+%' is answered ' ', as is '+%+%' (its '%' swallows '+%'): no fixed answer,
    which stands for the input whatever follows it ('+%xyz' is ' yz')."""
    from pctfuzz._internal.checks.differential import check_decode

    swallowed = function_adapter("test-percent-swallowed", decode=_percent_swallowed)
    with pytest.raises(Divergence) as info:
        check_decode(DecodeCase("+%"), swallowed)
    assert not info.value.difference.startswith("rule=answered(")


@pytest.mark.parametrize("value", ["a+b", "+", "x+ y"])
def test_a_plus_escaped_twice_is_written_as_its_escape_escaped(value: str) -> None:
    found = _found(PLUS_TWICE, value, "application/x-www-form-urlencoded", plus=True)
    assert found.difference == "rule=written_as(chars=+,text=%252B)"


def test_the_model_writes_the_characters_and_encodes_the_rest() -> None:
    both = written_as("&", text="&amp;").model.merge(written_as("<>", text="&#{dec};").model)
    case = EncodeCase("a&b<c é>", "component")
    assert render(both, "encode", case) == "a&amp;b&#60;c%20%C3%A9&#62;"
    form = FormCase((("a&", "<"),))
    assert render(both, "form", form) == "a&amp;=&#60;"
    with pytest.raises(NotModelled):  # one character, two texts
        both.merge(written_as("&", text="%26").model)
    assert Model(written=((0x26, ""),)) == written_as("&").model  # dropped


def test_templates_name_the_character_in_its_text() -> None:
    assert written_templates(0x2B, "%252B") == ["%25{HH}"]
    assert written_templates(0x3C, "&#60;") == ["&#{dec};"]
    assert written_templates(0x33, "33") == ["{HH}", "{hh}", "{c}{c}"]  # (rules pick the shared)
    assert written_templates(0x26, "&amp;") == ["{c}amp;"]


def test_a_fixed_answer_explains_that_answer_only() -> None:
    reconcile = answered("#blocked").reconcile
    case = EncodeCase("javascript:x", "component")
    assert reconcile(case, Outcome("javascript:x"), Outcome("#blocked")) is not None
    assert reconcile(case, Outcome("javascript:x"), Outcome("#blockedx")) is None
    assert reconcile(DecodeCase(b"x"), Outcome(b"x"), Outcome(b"#blocked")) is not None
    with pytest.raises(UsageError):
        answered("")


def _html_escaped(text: str) -> str:
    """An encoder whose answer is HTML-escaped whole (quote=True): '<', '>', '"' and
    "'" each as an entity of its own, '&' as '&amp;'."""
    return html.escape(quote(text, safe="/#:()*?=%@+,&;!$'~\"<>"), quote=True)


HTML_ESCAPED = function_adapter("test-html-escaped", encode=_html_escaped,
                                sets={"uri": "encodeURI"})


@pytest.mark.parametrize("value", ["<", "a>", "'", "x\"y", "<'>"])
def test_characters_written_each_as_their_own_text_are_one_rule(value: str) -> None:
    """One rule for the harmless characters, each with its own text (was a finding
    per character: seven for one behaviour on hold-out 13); the '&' apart, a
    delimiter."""
    bound = get_target("diff_encode").bind(HTML_ESCAPED)
    with pytest.raises(Divergence) as info:
        bound.check(EncodeCase(value, "encodeURI"))
    assert info.value.difference == \
        "rule=written_as(chars=\"'<>,text=&quot;+&#x27;+&lt;+&gt;)"
    assert bound.known.add("encode", info.value.behaviour, info.value.case)
    with pytest.raises(Divergence) as amp:
        bound.check(EncodeCase("a&b", "encodeURI"))
    assert amp.value.difference == "rule=written_as(chars=&,text=&amp;)"


def test_a_list_of_texts_is_one_per_character() -> None:
    rule = written_as("<\"", text=["&quot;", "&lt;"])  # (in code point order: '"', '<')
    assert render(rule.model, "encode", EncodeCase("<a\"", "component")) == "&lt;a&quot;"
    with pytest.raises(UsageError):
        written_as("<\"", text=["&lt;"])


def _cut_at_decoded_nul(text: str) -> str:
    """A decoder answering a C string: urllib's decoding, cut at its first NUL."""
    from urllib.parse import unquote

    return unquote(text).split("\x00", 1)[0]


CUT_NUL = function_adapter("cut-nul", decode=_cut_at_decoded_nul)


#: A campaign's input (a tuning decoder's): invalid UTF-8, decoded NULs.
_LONG = ('C�%2%25�59�%%7%39C�%%u004125a=�540%%%EF%'
         'BF%BDE459�a=�540%%%EF%BF%BDE459�%255B$2%'
         '7C�%%u0%255B$2%7C�%%u004125�%80%8E25�%21'
         '��%2%u%00')


@pytest.mark.parametrize("value", ["%EF%BDa%00b", "%C3%00x", _LONG])
def test_an_answer_made_of_the_input_is_no_fixed_answer(value: str, tmp_path: Path) -> None:
    """The input up to a decoded NUL, its invalid UTF-8 replaced (a finding made before),
    is a text of the input's own characters: it was ``answered(text=...)``, one finding
    per input, none minimized (each shorter input answers another text)."""
    from pctfuzz._internal.fuzz.recorder import Recorder, record_case

    target = get_target("diff_decode")
    record_case(target, CUT_NUL, "test_written:CUT_NUL", tmp_path,
                DecodeCase("%aa"))
    bound = target.bind(CUT_NUL)
    Recorder(target, CUT_NUL, "test_written:CUT_NUL", tmp_path, None, bound=bound)
    with pytest.raises(Divergence) as info:
        bound.check(DecodeCase(value))
    assert not info.value.difference.startswith("rule=answered"), info.value.difference
