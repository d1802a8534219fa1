"""The grammar's tokens (``pctfuzz._internal.grammar``): what each table claims about
its tokens holds, and the packaged dictionaries are its rendering (one home)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote_to_bytes

import pytest

from pctfuzz._internal import grammar
from pctfuzz._internal.encoding import encode_runs, lookup
from pctfuzz._internal.targets import TARGETS

DICTS = Path(__file__).resolve().parents[2] / "src" / "pctfuzz" / "data" / "dicts"


def _dictionary_tokens(text: str) -> list[bytes]:
    """libFuzzer's reading of a dictionary: one quoted token per line, ``\\xHH``,
    ``\\\\`` and ``\\"`` escapes (FuzzerUtil.cpp ``ParseOneDictionaryEntry``)."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r'(?:\w+=)?"(.*)"', line)
        assert match, line
        body, token, i = match[1], bytearray(), 0
        while i < len(body):
            if body[i] == "\\" and body[i + 1] == "x":
                token.append(int(body[i + 2 : i + 4], 16))
                i += 4
            elif body[i] == "\\":
                token.append(ord(body[i + 1]))
                i += 2
            else:
                token.append(ord(body[i]))
                i += 1
        out.append(bytes(token))
    return out


@pytest.mark.parametrize("target", list(TARGETS))
def test_packaged_dictionary_is_the_grammars_rendering(target: str) -> None:
    assert (DICTS / f"{target}.dict").read_text() == grammar.dictionary(target), (
        "the dictionaries are rendered from pctfuzz._internal.grammar: run `make dicts`")


def test_dictionary_holds_every_token_as_utf8_once() -> None:
    tokens = _dictionary_tokens(grammar.dictionary("diff_decode"))
    assert len(tokens) == len(set(tokens))
    for token in grammar.tokens(surrogates=True):
        assert token.encode("utf-8", "surrogatepass") in tokens, token
    assert len(tokens) > 186  # richer than ada-url's URL dictionary (186 lines)


def test_double_escapes_are_delimiters_decoded_twice() -> None:
    for char, token in zip(grammar.DELIMITERS, grammar.DOUBLE_ESCAPES, strict=True):
        once = unquote_to_bytes(token)
        assert once != char.encode()  # a decoder that decodes once sees no delimiter
        assert unquote_to_bytes(once) == char.encode()


def test_escapes_cover_each_delimiter_in_both_cases() -> None:
    for char in grammar.DELIMITERS:
        assert grammar.escape(char) in grammar.ESCAPES
        assert grammar.escape(char, lower=True) in grammar.ESCAPES
    assert grammar.escape("\u00e9") == "%C3%A9"
    assert grammar.escape("\ud800") == "%ED%A0%80"  # WTF-8 of a lone surrogate


def test_utf8_forms_are_not_utf8() -> None:
    """Each form is a UTF-8 sequence a strict decoder refuses, or one of the listed
    characters that are valid but special (BOM, noncharacters, look-alikes...)."""
    invalid = [t for t in grammar.UTF8_FORMS
               if not _decodes(unquote_to_bytes(t))]
    for overlong in ("%C0%AF", "%E0%80%AF", "%F0%80%80%AF", "%ED%A0%80", "%F4%90%80%80",
                     "%E2%82", "%FF"):
        assert overlong in invalid
    assert unquote_to_bytes("%EF%BB%BF").decode() == "\ufeff"


def _decodes(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_broken_escapes_include_non_ascii_digits_that_int_reads() -> None:
    """A lenient decoder that reads the hex with ``int(x, 16)`` takes Unicode decimal
    digits: the grammar holds such escapes."""
    readable = [t for t in grammar.BROKEN_ESCAPES
                if len(t) == 3 and not t[1:].isascii() and _int16(t[1:]) is not None]
    assert readable


def _int16(text: str) -> int | None:
    try:
        return int(text, 16)
    except ValueError:
        return None


@pytest.mark.parametrize("encoding", ["Shift_JIS", "ISO-2022-JP", "windows-1252", "KOI8-R",
                                      "gb18030", "x-user-defined"])
def test_legacy_chars_split_by_the_encoder(encoding: str) -> None:
    mapped, unmapped = grammar.legacy_chars(encoding)
    assert sorted(mapped + unmapped) == sorted(grammar.LEGACY_CANDIDATES)
    enc = lookup(encoding)
    for char in mapped:
        assert all(isinstance(run, bytes) for run in encode_runs(enc, char)), char
    for char in unmapped:
        assert any(isinstance(run, int) for run in encode_runs(enc, char)), char


def test_legacy_chars_facts() -> None:
    """Encoding Standard facts: Shift_JIS maps U+00A5 (to 0x5C) and kanji, not the
    euro sign; windows-1252 maps the euro sign (0x80), not kanji."""
    sjis_mapped, sjis_unmapped = grammar.legacy_chars("Shift_JIS")
    assert "\xa5" in sjis_mapped and "\u65e5" in sjis_mapped and "\u20ac" in sjis_unmapped
    w_mapped, w_unmapped = grammar.legacy_chars("windows-1252")
    assert "\u20ac" in w_mapped and "\u65e5" in w_unmapped


def test_sizes_straddle_each_block() -> None:
    for block in (64, 128, 256, 1024, 4096):
        assert {block - 1, block, block + 1} <= set(grammar.BLOCK_LENGTHS)
    assert {999, 1000, 1001} <= set(grammar.FIELD_COUNTS)


def test_the_strategies_earlier_tokens_are_all_in_the_grammar() -> None:
    """What ``checks.strategies`` drew before the grammar held its tokens: none lost
    (valid escapes of letters, which a normalizer decodes, among them)."""
    earlier = ["%", "%%", "%25", "%2", "%4", "%41", "%4a", "%4A", "%7e", "%7E", "%20",
               "%2B", "%2b", "%zz", "%G1", "%1G", "%C3%A9", "%c3%a9", "%C3", "%FF", "%00",
               "%ED%A0%80", "%EF%BB%BF", "+", "&", "=", "&=", "=&", "a=b", "&&", "%26%23",
               "&#8253;"]
    assert [t for t in earlier if t not in grammar.tokens()] == []
