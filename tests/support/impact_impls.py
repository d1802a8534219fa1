"""Adapters with one harmful and one harmless difference, and a recorded finding of
one, for the impact and accept-file tests
(``tests/unit/test_generalize.py``)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote, quote_plus

from pctfuzz import form_urldecode, percent_decode
from pctfuzz._internal.cases import EncodeCase
from pctfuzz._internal.fuzz.recorder import record_case
from pctfuzz._internal.targets import get_target
from pctfuzz.oracles import function_adapter


def _plus_raw(text: str) -> str:
    """A query-value builder that leaves '+' raw (a form parser reads it back as a
    space: the bug) and '~' raw (urllib's harmless unreserved '~')."""
    return quote_plus(text, safe="+")


def _doubled(text: str) -> str:
    """Every ASCII letter or digit written twice (``written_as`` with ``{c}{c}``)."""
    return "".join(c * 2 if c.isascii() and c.isalnum() else quote(c, safe="!'()*~")
                   for c in text)


def _caret_controls(text: str) -> str:
    """Every C0 control written as "^" (one ``written_as`` of them all)."""
    return "".join("^" if ord(c) < 0x20 else quote(c, safe="!'()*~") for c in text)


plus_raw = function_adapter("impact-plus-raw", encode=_plus_raw, sets={"q": "form"},
                            space_as_plus=True)
doubled = function_adapter("impact-doubled", encode=_doubled, sets={"c": "component"})
caret_controls = function_adapter("impact-caret", encode=_caret_controls,
                                  sets={"c": "component"})


def _plus_escape_as_space(value: str | bytes) -> bytes:
    """A decoder that reads the escape of '+' (either hex case) as a space."""
    data = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
    return percent_decode(re.sub(rb"%2[bB]", b" ", data))


plus_escape_as_space = function_adapter("impact-plus-escape", decode=_plus_escape_as_space)


def _names_lowercased(text: str | bytes) -> list[tuple[str, str]]:
    """A form parser that lowercases names (str.lower())."""
    return [(name.lower(), value) for name, value in form_urldecode(text)]


names_lowercased = function_adapter("impact-names-lowercased", form_parse=_names_lowercased)


def record_plus_raw(store: Path, value: str) -> str:
    """The finding of ``plus_raw`` leaving ``value`` raw, recorded in ``store`` as a
    campaign records it; its id."""
    ids = record_case(get_target("diff_encode"), plus_raw, "impact_impls:plus_raw", store,
                      EncodeCase(value, "form", "UTF-8", True))
    # ('~' raw beside '*' encoded is urllib's other set: ``other_set``'s raw)
    (ident,) = {i for s, i in ids.items()
                if re.search(f"(chars|raw)={re.escape(value)}[,)]", s)}
    return ident
