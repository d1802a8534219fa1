"""Differences of size alone (``checks.locate._size_class``,
``identity.size_difference``): a bug that shows on any input past a size is one
finding, whatever characters the input holds where it shows; a bug of a character on a
long input is not mistaken for one of size."""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

import pytest

from pctfuzz._internal.cases import DecodeCase, FormParseCase
from pctfuzz._internal.checks.differential import check_decode, check_form_parse
from pctfuzz._internal.form import form_urldecode
from pctfuzz._internal.violations import Divergence
from pctfuzz.oracles import function_adapter


def _parse(text: str) -> list[tuple[str, str]]:
    return form_urldecode(text.encode("utf-8", "surrogatepass"))


first_twenty = function_adapter("first-twenty", form_parse=lambda t: _parse(t)[:20])
tilde_dropped = function_adapter(
    "tilde-dropped", form_parse=lambda t: [(n, v.replace("~", "")) for n, v in _parse(t)])
one_per_name = function_adapter(
    "one-per-name", form_parse=lambda t: list(dict(_parse(t)).items()))


def _blocks(text: str) -> bytes:
    """Percent-decodes in blocks of 32 characters: an escape across a block's end is
    left as it is."""
    return b"".join(unquote_to_bytes(text[i:i + 32]) for i in range(0, len(text), 32))


in_blocks = function_adapter("blocks", decode=_blocks)


def _form_parse_class(adapter: object, text: str) -> str:
    with pytest.raises(Divergence) as info:
        check_form_parse(FormParseCase(text), adapter)  # type: ignore[arg-type]
    return info.value.difference


def test_a_field_limit_is_one_class_whatever_the_fields_hold() -> None:
    texts = ["&".join(f"k{i}=v" for i in range(25)),
             "&".join(["a%20b=%C3%A9"] * 21 + ["~x=1"]),
             "&".join(["+"] * 30)]
    classes = {_form_parse_class(first_twenty, text) for text in texts}
    assert classes == {"size=count;diff=missing-pair"}
    assert check_form_parse(FormParseCase("&".join(["a=b"] * 20)), first_twenty) == ()


def test_a_character_bug_on_a_long_input_is_not_one_of_size() -> None:
    text = "&".join(f"k{i}=v" for i in range(30)) + "&z=a~b"
    assert not _form_parse_class(tilde_dropped, text).startswith("size=")


def test_one_pair_per_name_is_not_a_field_limit() -> None:
    text = "&".join(f"k{i}=v" for i in range(20)) + "&k3=w"
    assert not _form_parse_class(one_per_name, text).startswith("size=")


def test_a_decoder_in_blocks_is_one_class_whichever_escape_straddles() -> None:
    classes = set()
    for value in ("a" * 31 + "%41", "a" * 30 + "%C3%A9", "b" * 62 + "%7e" + "c" * 5):
        with pytest.raises(Divergence) as info:
            check_decode(DecodeCase(value), in_blocks)
        classes.add(info.value.difference)
    assert len(classes) == 1 and classes.pop().startswith("size=length;"), classes


def _utf8_in_chunks(part: str) -> str:
    """UTF-8-decodes the percent-decoded bytes in chunks of 40 bytes, each on its own:
    a character across a chunk's end is U+FFFD (issue 31's parser of 64-byte chunks)."""
    data = unquote_to_bytes(part.replace("+", " "))
    return "".join(data[i:i + 40].decode("utf-8", "replace") for i in range(0, len(data), 40))


in_chunks = function_adapter("chunks", form_parse=lambda text: [
    (_utf8_in_chunks(n), _utf8_in_chunks(v)) for s in text.split("&") if s
    for n, _, v in [s.partition("=")]])


def test_a_parser_decoding_in_chunks_is_one_class_whichever_character_straddles() -> None:
    # A case of three-byte characters is longer in bytes than in characters: the plain
    # two-byte text is as long as its bytes (each was a class of the character and the
    # way it differed: four findings of one behaviour in a 60 s campaign).
    texts = ["a" * 39 + "\u00e9" + "b", "\u0800" * 16, "x=" + "a" * 38 + "\u20ac" + "y",
             "a" * 37 + "\U0001f600"]
    classes = {_form_parse_class(in_chunks, text) for text in texts}
    assert len(classes) == 1 and classes.pop().startswith("size=length;"), classes
    assert check_form_parse(FormParseCase("\u00e9" * 8), in_chunks) == ()


semicolons = function_adapter(
    "semicolons", form_serialize=lambda pairs: ";".join(f"{n}={v}" for n, v in pairs))


def test_a_bug_two_pairs_show_is_not_one_of_size() -> None:
    """A serializer that writes ';' between pairs differs on any two pairs: a long form
    is no bug of size."""
    from pctfuzz._internal.cases import FormCase
    from pctfuzz._internal.checks.differential import check_form

    with pytest.raises(Divergence) as info:
        check_form(FormCase(tuple((f"k{i}", "v") for i in range(20))), semicolons)  # type: ignore[arg-type]
    assert not info.value.difference.startswith("size="), info.value.difference


def _casefold_sorted(text: str) -> list[tuple[str, str]]:
    """Sorts the pairs by name, case ignored: an order no ``pairs_order`` mode names."""
    return sorted(_parse(text), key=lambda pair: pair[0].casefold())


casefold_sorted = function_adapter("casefold-sorted", form_parse=_casefold_sorted)


def test_an_order_of_names_is_not_a_bug_of_size() -> None:
    """The plain input of a size class has names that sort in their order (``a09``
    before ``a10``): a parser sorting its pairs read ``a10`` before ``a2`` in the plain
    input and was a bug of size (hold-out 15's parser of a sorted mapping)."""
    text = "&".join(f"B{i}=v&a{i}=w" for i in range(8))
    assert not _form_parse_class(casefold_sorted, text).startswith("size=")
