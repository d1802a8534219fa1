"""``pctfuzz probe``: set inference on real and emulated encoders
(``pctfuzz._internal.checks.probe``).

Targets named by import path (``test_probe:requote_like``) resolve because pytest puts
``tests/`` on ``sys.path``.
"""

from __future__ import annotations

import json
import re
import unicodedata
import urllib.parse
from collections.abc import Callable

import pytest

from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.checks.probe import load_encoder, probe
from pctfuzz._internal.cli import main
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.exits import ExitCode
from pctfuzz._internal.oracles import Adapter
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import SETS, get_set
from pctfuzz._internal.setspec import canonical_spec

# --- encoders under probe ------------------------------------------------------------------

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def requote_like(uri: str) -> str:
    """requests.utils.requote_uri (2.32) rewritten here, so requests is not a dependency:
    decode escapes of unreserved characters, then quote leaving reserved chars and "%";
    on an escape that is not hex, quote everything but reserved chars instead."""
    parts = uri.split("%")
    try:
        for i in range(1, len(parts)):
            h = parts[i][0:2]
            if len(h) == 2 and h.isalnum():
                c = chr(int(h, 16))  # ValueError: "%zz" ("InvalidURL" in requests)
                parts[i] = c + parts[i][2:] if c in _UNRESERVED else f"%{parts[i]}"
            else:
                parts[i] = f"%{parts[i]}"
    except ValueError:
        return urllib.parse.quote(uri, safe="!#$&'()*+,/:;=?@[]~")
    return urllib.parse.quote("".join(parts), safe="!#$%&'()*+,/:;=?@[]~")


def lower_hex(text: str) -> str:
    """quote(safe="") with its escapes in lowercase hex."""
    return re.sub("%[0-9A-F]{2}", lambda m: m[0].lower(), urllib.parse.quote(text, safe=""))


class RequoteAdapter(Adapter):
    """An adapter that declares its set under a label and answers only that set."""

    name = "requote-like"
    sets = {"requote": "encodeURI-%25[]"}  # noqa: RUF012 - a class-level declaration

    def encode(self, case: EncodeCase) -> str:
        assert get_set(case.set_name) == get_set("encodeURI-%25[]"), case.set_name
        assert isinstance(case.value, str)
        return requote_like(case.value)


class EncodesWithoutSets(Adapter):
    """An encoder that declares no sets: ``--set`` says which to ask it."""

    name = "no-sets"

    def encode(self, case: EncodeCase) -> str:
        return urllib.parse.quote(str(case.value), safe="")


NOT_A_FUNCTION = 42


# --- what the probe infers ------------------------------------------------------------------


def test_urllib_quote() -> None:
    report = probe(urllib.parse.quote, "urllib.parse:quote")
    assert report.exact is None  # default safe="/": no registered set leaves only / raw
    assert (report.nearest, report.distance) == ("rfc3986-unreserved", 1)
    assert report.spec == "rfc3986-unreserved-/" == canonical_spec("urllib-safe:/")
    assert report.urllib_safe == "urllib-safe:/"
    assert (report.left_raw, report.also_encoded) == ("/", "")
    assert (report.existing_escapes, report.invalid_escapes) == ("encoded", "encoded")
    assert (report.hex_case, report.space, report.plus) == ("upper", "%20", "encoded")
    assert report.normalization == "none"
    assert report.surrogates == "raises UnicodeEncodeError"
    assert report.non_ascii == "utf-8"
    assert report.irregular == {} and report.context == {}


def test_urllib_quote_plus_is_exact_with_space_as_plus() -> None:
    report = probe(urllib.parse.quote_plus)
    assert report.exact == report.nearest == report.spec == "rfc3986-unreserved"
    assert report.space == "+"


def test_requote_uri_like() -> None:
    report = probe(requote_like)
    # "%" alone is left raw, so the set leaves it raw too; encodeURI-[] is the issue's
    # approximation, and the difference on "%" is what existing_escapes describes.
    assert (report.exact, report.nearest, report.spec) == (None, "encodeURI", "encodeURI-%25[]")
    assert get_set(report.spec).members == get_set("encodeURI-[]").members - {0x25}
    assert report.existing_escapes == (
        "mixed ('%41': decoded, '%2F': kept, '%2f': kept, '%C3%A9': kept)"
    )
    assert report.invalid_escapes == "mixed ('%zz': encoded, '%4': kept)"
    assert report.outputs["invalid_escapes"]["%zz"] == "%25zz"
    assert report.space == "%20" and report.plus == "raw"
    assert report.hex_case == "upper"  # "%2f" kept as given is not the encoder's own case


def test_lowercase_hex() -> None:
    report = probe(lower_hex)
    assert report.exact == "rfc3986-unreserved" and report.hex_case == "lower"
    assert report.outputs["non_ascii"]["\u00e9"] == "%c3%a9"


@pytest.mark.parametrize("name", list(SETS))
def test_the_reference_implements_each_registered_set(name: str) -> None:
    report = probe(lambda s: percent_encode(s, name))
    first_equal = next(n for n, s in SETS.items() if s.members == SETS[name].members)
    assert report.exact == first_equal and report.spec == canonical_spec(name)
    space = "+" if SETS[name].space_as_plus else "%20" if 0x20 in SETS[name] else "raw"
    assert report.space == space
    assert report.surrogates == "raises NotScalarValueError"


@pytest.mark.parametrize("spec", ["encodeURI-[]+~", "path+%25-%20", "form-!", "urllib-safe:/:@"])
def test_the_spec_reported_rebuilds_the_set(spec: str) -> None:
    report = probe(lambda s: percent_encode(s, spec))
    assert report.exact is None
    assert report.spec == canonical_spec(spec)
    assert get_set(report.spec).members == get_set(spec).members


@pytest.mark.parametrize(
    ("form", "word"), [("NFC", "NFC"), ("NFD", "NFD"), ("NFKC", "NFKC"), ("NFKD", "NFKD")]
)
def test_normalization(form: str, word: str) -> None:
    def fn(s: str) -> str:
        return urllib.parse.quote(unicodedata.normalize(form, s), safe="")  # type: ignore[arg-type]

    assert probe(fn).normalization == word


@pytest.mark.parametrize(
    ("errors", "word"),
    [
        ("surrogatepass", "surrogatepass"),
        ("ignore", "dropped"),
        ("replace", "replaced with ?"),
    ],
)
def test_surrogates_by_error_handler(errors: str, word: str) -> None:
    report = probe(lambda s: urllib.parse.quote(s, safe="", errors=errors))
    assert report.surrogates == word


def test_surrogates_as_u_fffd_and_surrogateescape() -> None:
    replaced = probe(lambda s: percent_encode(s, "component", surrogates="replace"))
    assert replaced.surrogates == "U+FFFD"
    escaped = probe(lambda s: urllib.parse.quote(s, safe="", errors="surrogateescape"))
    assert escaped.surrogates == (
        "mixed ('\\ud800': raises UnicodeEncodeError, 'a\\udc80b': surrogateescape)"
    )


def test_non_ascii_encodings() -> None:
    latin = probe(lambda s: urllib.parse.quote(s, safe="", encoding="latin-1"))
    assert latin.non_ascii == (
        "mixed ('\\xe9': latin-1, '\\x80': latin-1, '\\u20ac': raises UnicodeEncodeError, "
        "'\\U0001f600': raises UnicodeEncodeError)"
    )
    iri = probe(lambda s: "".join(c if ord(c) > 0x7F else urllib.parse.quote(c) for c in s))
    assert iri.non_ascii == "raw"


@pytest.mark.parametrize(
    ("safe", "spec"), [("", "rfc3986-unreserved"), ("/", "rfc3986-unreserved-/")]
)
@pytest.mark.parametrize("refused", ["\x00", "/", "a"])
def test_a_byte_refused_everywhere_is_taken_from_the_nearest_set(
    safe: str, spec: str, refused: str
) -> None:
    def refuses(s: str) -> str:
        if refused in s:
            raise ValueError("no")
        return urllib.parse.quote(s, safe=safe)

    report = probe(refuses)
    assert report.irregular == {refused: "raises ValueError: no"} and report.context == {}
    expected = "rfc3986-unreserved" if refused == "/" else spec  # "/" unknown: as the nearest
    assert (report.exact, report.nearest, report.spec) == (None, "rfc3986-unreserved", expected)


def test_a_byte_refused_alone_is_decided_in_context() -> None:
    # As ada's path setter: "." alone is a dot segment, "a.b" is not.
    def dots(s: str) -> str:
        if s == ".":
            raise ValueError("dot segment")
        return urllib.parse.quote(s, safe="")

    report = probe(dots)
    assert report.irregular == {".": "raises ValueError: dot segment"}
    assert report.context == {}
    assert (report.exact, report.spec) == (None, "rfc3986-unreserved")
    encodes_dot = probe(lambda s: "?" if s == "." else urllib.parse.quote(s).replace(".", "%2E"))
    assert encodes_dot.irregular == {".": "?"}
    assert encodes_dot.spec == "rfc3986-unreserved+.-/"  # "a.b" -> "a%2Eb": encoded


def test_context_mismatch_voids_exact() -> None:
    # Leaves ";" raw when alone, encodes it inside other text; refuses "a/b".
    def fn(s: str) -> str:
        if s == "a/b":
            raise ValueError("no")
        return urllib.parse.quote(s, safe=";" if len(s) == 1 else "")

    report = probe(fn)
    assert report.context == {"a;b": "a%3Bb", "a/b": "raises ValueError: no"}
    assert report.exact is None and report.spec == "rfc3986-unreserved-;"


def test_an_encoder_that_answers_nothing_is_an_error() -> None:
    def broken(s: str) -> str:
        raise RuntimeError("boom")

    with pytest.raises(PctfuzzError, match="answered no ASCII character: raises RuntimeError"):
        probe(broken, "m:broken")
    with pytest.raises(PctfuzzError, match="returned bytes, not str"):
        probe(lambda s: s.encode())


# --- loading targets -------------------------------------------------------------------------


def test_load_a_function_and_an_adapter() -> None:
    fn, set_name = load_encoder("test_probe:lower_hex")
    assert fn is lower_hex and set_name is None
    fn, set_name = load_encoder("test_probe:RequoteAdapter", "requote")  # a declared label
    assert set_name == "encodeURI-%25[]" and fn("a b[%41]") == "a%20b[A]"
    fn, set_name = load_encoder("pctfuzz._internal.oracles.urllib_parse:UrllibAdapter",
                                "encodeuri-][")
    assert set_name == "encodeuri-][" and fn("[ ]") == "[%20]"


@pytest.mark.parametrize(
    ("target", "set_name", "needle"),
    [
        ("no_such_module_xyz:f", None, "cannot import 'no_such_module_xyz': ModuleNotFoundError"),
        ("urllib.parse:nope", None, "has no attribute 'nope'"),
        ("urllib.parse", None, "expected module:function or module:Class"),
        ("test_probe:NOT_A_FUNCTION", None, "is int, not a function"),
        ("test_probe:lower_hex", "component", "--set applies to adapters"),
        ("test_probe:RequoteAdapter", None, "give --set NAME"),
        ("test_probe:RequoteAdapter", "component+", "character 10"),
    ],
)
def test_bad_targets(target: str, set_name: str | None, needle: str) -> None:
    with pytest.raises(PctfuzzError, match=re.escape(needle)):
        load_encoder(target, set_name)


# --- the command -----------------------------------------------------------------------------

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_probe_json(cli: Run) -> None:
    code, out, err = cli("probe", "urllib.parse:quote", "--json")
    assert (code, err) == (ExitCode.OK, "")
    data = json.loads(out)
    assert (data["exact"], data["nearest"], data["spec"]) == (
        None, "rfc3986-unreserved", "rfc3986-unreserved-/"
    )
    for key in ("existing_escapes", "hex_case", "space", "normalization", "surrogates",
                "non_ascii"):
        assert isinstance(data[key], str)


def test_probe_text_for_an_adapter(cli: Run) -> None:
    code, out, _ = cli("probe", "test_probe:RequoteAdapter", "--set", "requote")
    assert code == ExitCode.OK
    lines = out.splitlines()
    assert lines[0] == "target: test_probe:RequoteAdapter (encode with set encodeURI-%25[])"
    assert "nearest set: encodeURI (3 bytes differ)" in lines
    # "%" left raw: the warning beside the spec (a requoting function means it)
    assert "spec: encodeURI-%25[]    (check the warnings below before you declare it)" \
        in lines
    assert "existing %HH: mixed ('%41': decoded, '%2F': kept, '%2f': kept, '%C3%A9': kept)" in lines


def test_an_adapter_without_set_is_probed_with_each_set_it_declares(cli: Run) -> None:
    code, out, _ = cli("probe", "test_probe:RequoteAdapter")
    assert code == ExitCode.OK
    assert out.startswith("target: test_probe:RequoteAdapter (encode with set encodeURI-%25[])\n")
    code, out, err = cli("probe", "test_probe:EncodesWithoutSets")
    assert code == ExitCode.USAGE and "give --set NAME" in err


def test_probe_text_exact(cli: Run) -> None:
    code, out, _ = cli("probe", "urllib.parse:quote_plus")
    assert code == ExitCode.OK and "exact set: rfc3986-unreserved\n" in out and "space: +\n" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["probe", "no_such_module_xyz:f"],
        ["probe", "test_probe:EncodesWithoutSets"],  # no set to ask its encoder with
        ["probe", "test_probe:RequoteAdapter", "--set", "nope"],
        ["probe", "test_probe:RequoteAdapter", "--operation", "decode"],  # answers none
        ["probe", "test_probe:lower_hex", "--operation", "decode", "--set", "component"],
    ],
)
def test_probe_unusable_target_exits_2_in_one_line(cli: Run, argv: list[str]) -> None:
    code, out, err = cli(*argv)
    assert (code, out) == (ExitCode.USAGE, "")
    assert err.startswith("pctfuzz probe: error: ") and err.count("\n") == 1


def refuses_nul(text: str) -> str:
    if "\x00" in text:
        raise ValueError("NUL")
    return urllib.parse.quote(text, safe="")


def test_probe_text_irregular(cli: Run) -> None:
    code, out, _ = cli("probe", "test_probe:refuses_nul")
    assert code == ExitCode.OK
    assert "exact set: none (the bytes match rfc3986-unreserved, but some answers below" in out
    assert "irregular: '\\x00' -> 'raises ValueError: NUL'\n" in out


# --- delimiters (issue 22.7) ----------------------------------------------------------------


def _leaves_raw(set_name: str, chars: str) -> Callable[[str], str]:
    """The reference's encoder of ``set_name``, but ``chars`` left raw."""
    def encode(text: str) -> str:
        out = percent_encode(text, set_name)
        for c in chars:
            out = out.replace(f"%{ord(c):02X}", c)
        return out
    return encode


@pytest.mark.parametrize(("set_name", "char", "role"), [
    ("query", "#", "ends the query"),
    ("component", "#", "ends the query or path"),  # the "component-#"
    ("path", "?", "ends the path and starts the query"),
    ("application/x-www-form-urlencoded", "&", "splits the value"),
    ("application/x-www-form-urlencoded", "=", "ends a name"),
    ("component", "%", "starts a percent-encoded byte"),
])
def test_a_raw_delimiter_is_a_warning_beside_the_spec(set_name: str, char: str,
                                                      role: str) -> None:
    report = probe(_leaves_raw(set_name, char), "enc")
    assert report.delimiters, report
    assert any(f"{char!r} is left raw where {set_name} encodes it" in w and role in w
               for w in report.delimiters), report.delimiters
    from pctfuzz._internal.cli.probe import render

    shown = render(report)
    spec_line = next(line for line in shown.splitlines() if line.startswith("spec:"))
    assert "check the warnings below before you declare it" in spec_line
    assert "--set" not in spec_line and f"WARNING: {char!r} is left raw" in shown


def test_no_warning_for_an_exact_set_or_a_harmless_difference() -> None:
    assert probe(lambda t: percent_encode(t, "query"), "q").delimiters == []
    from pctfuzz._internal.cli.probe import render

    # "^" left raw by a path encoder ends nothing
    report = probe(_leaves_raw("path", "^"), "p")
    assert report.nearest == "path" and report.delimiters == []
    assert "(use as --set NAME=path-^)" in render(report)
