"""The rules of a form's pairs, which WHATWG URL 5.1 (the parser) and 5.2 (the
serializer) keep as the list gives them: their order, and the pairs that are empty or
have an empty name.
"""

from __future__ import annotations

from typing import Any

from pctfuzz._internal.accept.model import Model
from pctfuzz._internal.accept.reconcilers.base import Reconciler, _declared, rule
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.operations import FORM_PARSE, FORM_SERIALIZE

__all__ = ["empty_pairs", "pairs_order"]


_ORDER_MODES = ("grouped", "sorted", "grouped-bytes", "sorted-bytes", "last-per-name",
                "first-per-name", "sorted-last-per-name", "sorted-first-per-name",
                "sorted-pairs", "sorted-written")


@rule((FORM_SERIALIZE, FORM_PARSE), "changes-data")
def pairs_order(mode: str) -> Reconciler:
    """Pairs ``grouped`` by name (in order of first appearance, as a multi-dict keeps
    them), ``sorted`` by name (its code points) or ``sorted-bytes`` (a parser's: by the
    name's bytes before UTF-8 decoding, so ``%80`` before ``%C3%A9``; Go's map keys),
    values in input order (WHATWG URL 5.1/5.2 keep the list's order); ``grouped-bytes``
    (form-parse): grouped by the name's bytes before their UTF-8 decode (two names
    that are not UTF-8 stay apart: tornado); ``last-per-name``: one pair per name, its
    last value where the name first came, as a mapping keeps them (``dict(pairs)``, a
    serializer given a dict, a parser answering one), ``first-per-name`` its first
    value (a serializer's repeated name was three findings, one per shape of what a
    repeat hid); ``sorted-last-per-name``, ``sorted-first-per-name``: that mapping
    sorted by name (a parser that sorts the pairs, then keeps one per name: each
    behaviour beside it was refuted by the reordered pairs of its variants);
    ``sorted-pairs``: by name, then by value (``sorted(pairs)``; minio's query builder
    sorts its names and each name's values); ``sorted-written`` (form-serialize): by
    the text each pair is written as, ``name=value`` encoded (a canonical query string,
    AWS Signature Version 4's)."""
    if mode not in _ORDER_MODES:
        raise UsageError(f"pairs_order: mode must be one of {', '.join(_ORDER_MODES)}")
    checks = {FORM_PARSE.name} if mode == "grouped-bytes" \
        else {FORM_SERIALIZE.name} if mode == "sorted-written" \
        else {FORM_SERIALIZE.name, FORM_PARSE.name}
    said = {"sorted-bytes": "pairs sorted by the names' bytes",
            "last-per-name": "one pair per name, its last value, where the name first came",
            "first-per-name": "one pair per name, its first value",
            "sorted-last-per-name": "one pair per name, its last value, sorted by name",
            "sorted-first-per-name": "one pair per name, its first value, sorted by name",
            "sorted-pairs": "pairs sorted by name, then by value",
            "sorted-written": "pairs sorted by the text they are written as"}
    return _declared("pairs_order", checks, Model(order=mode),
                     "keeps the pairs in list order", said.get(mode, f"pairs {mode} by name"))


_EMPTY_MODES = ("dropped", "kept", "kept-but-last", "kept-but-trailing", "names-dropped")


def _empty_impact(params: dict[str, Any]) -> str:
    """loses-data when `dropped` or `names-dropped`, else changes-data"""
    return "loses-data" if params.get("mode") in ("dropped", "names-dropped") else "changes-data"


@rule((FORM_SERIALIZE, FORM_PARSE), _empty_impact)
def empty_pairs(mode: str) -> Reconciler:
    """``dropped``: pairs whose value is empty are left out (``parse_qsl`` without
    ``keep_blank_values``); ``kept``: an empty sequence between ``&`` is a pair
    ("", "") (the WHATWG parser skips it, 5.1 step 3.1); ``kept-but-last``: so is each
    but the last, after a final ``&`` (which ends a pair as a line end ends a line:
    Ruby's ``decode_www_form``, ``each_line("&")``); ``kept-but-trailing``: each but
    those at the end (Perl's ``split`` drops trailing empty fields: URI's
    ``query_form``); ``names-dropped``: pairs whose name is empty, once decoded and
    trimmed, are left out (``if name:`` before a mapping is filled), a mode that
    composes with any other."""
    if mode not in _EMPTY_MODES:
        raise UsageError(f"empty_pairs: mode must be one of {', '.join(_EMPTY_MODES)}")
    if mode == "names-dropped":
        return _declared("empty_pairs", {FORM_SERIALIZE.name, FORM_PARSE.name},
                         Model(empty_names=True), "keeps pairs with an empty name",
                         "pairs with an empty name dropped")
    checks = {FORM_SERIALIZE.name, FORM_PARSE.name} if mode == "dropped" else {FORM_PARSE.name}
    return _declared("empty_pairs", checks, Model(empty=mode),
                     "keeps pairs with an empty value; skips empty sequences",
                     f"empty pairs {mode}")
