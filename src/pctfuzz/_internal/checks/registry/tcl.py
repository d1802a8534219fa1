"""Built-in entries for Tcl's http package (adapter ``tcl-http``;
``pctfuzz._internal.oracles.tcl``), each cited to http 2.9.8's source (``http.tcl``,
shipped with Tcl 8.6.13) and the HTML form encoding it follows.

A line feed is written ``%0D%0A`` (a line break of a form is CR LF); a CR LF already in
the value gains a second CR (``%0D%0D%0A``), which no entry accepts: a real bug
(docs/in-the-wild.md), as is a lone surrogate written as its three surrogate bytes.
"""

from __future__ import annotations

import functools
import re

from pctfuzz._internal.accept.entry import MODEL, REWRITE, KnownDivergence
from pctfuzz._internal.accept.reconcilers import encoded, left_raw, space_as
from pctfuzz._internal.cases import Case, EncodeCase, FormCase
from pctfuzz._internal.checks.registry.common import WHATWG_FORM, WHATWG_PCT, Pair, add_entry
from pctfuzz._internal.operations import ENCODE, FORM_SERIALIZE
from pctfuzz._internal.outcome import Outcome

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_SET = "rfc3986-unreserved"
_MAP = ("Tcl http 2.9.8 http.tcl, http::init: every byte but RFC 3986's unreserved "
        "characters as %HH, then 'These are handled specially: set map(\\n) %0D%0A'; "
        "http::mapReply (quoteString) and http::formatQuery use that map")
_HTML4 = "HTML 4.01 17.13.4.1 ('Line breaks are represented as \"CR LF\" pairs (i.e., %0D%0A)')"
#: A line feed the reference writes as %0A with no CR before it.
_LONE_LF = re.compile("(?<!%0D)%0A")


def _has_lf(case: Case) -> bool:
    if isinstance(case, EncodeCase):
        return isinstance(case.value, str) and "\n" in case.value
    return isinstance(case, FormCase) and any("\n" in n or "\n" in v for n, v in case.pairs)


def _lf_as_crlf(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    """A line feed with no CR before it written %0D%0A: the reference's text with each
    such %0A so (a CR LF of the input stays %0D%0A: Tcl's %0D%0D%0A still differs)."""
    if expected.raised or not isinstance(expected.value, str):
        return None
    return Outcome(_LONE_LF.sub("%0D%0A", expected.value)), actual


for _check, _example in ((ENCODE.name, EncodeCase("a\nb", _SET)),
                         (FORM_SERIALIZE.name, FormCase((("a\nb", ""),)))):
    _entry(
        id=f"tcl-http-lf-as-crlf{'' if _check == ENCODE.name else '-form'}",
        impl="tcl-http",
        check=_check,
        summary="quoteString and formatQuery write a line feed as %0D%0A",
        applies=_has_lf,
        reconcile=_lf_as_crlf,
        phase=REWRITE,
        reference="%0A",
        implementation="%0D%0A (a form's line break is CR LF)",
        citation=f"{_MAP}; {_HTML4}; {WHATWG_PCT if _check == ENCODE.name else WHATWG_FORM}",
        why="the http package encodes HTML form data, whose line breaks are CR LF; the "
        "HTML Standard's form submission normalizes them so too",
        example=_example,
    )

_FORMAT = (f"{_MAP}; Tcl http(n) manual, ::http::formatQuery: 'does x-url-encoding of query "
           f"data ... generates one string that has the proper & and = separators'; "
           f"{WHATWG_FORM}")
for _id, _rule, _what, _example in (
    ("space", space_as("%20"), ("a space as '+'", "a space as %20 (its map has no '+')"),
     FormCase((("a b", ""),))),
    ("tilde", left_raw("~"), ("'~' as %7E", "'~' raw (RFC 3986 unreserved)"),
     FormCase((("~", ""),))),
    ("star", encoded("*"), ("'*' raw", "'*' as %2A (not RFC 3986 unreserved)"),
     FormCase((("*", ""),))),
):
    _entry(
        id=f"tcl-http-formatquery-{_id}",
        impl="tcl-http",
        check=FORM_SERIALIZE.name,
        summary=f"formatQuery escapes with quoteString's map: {_what[1]}",
        applies=lambda case: isinstance(case, FormCase),
        reconcile=_rule.reconcile,
        model=_rule.model,
        phase=MODEL,
        reference=f"the form set: {_what[0]}",
        implementation=f"RFC 3986's unreserved set: {_what[1]}",
        citation=_FORMAT,
        why="both forms decode to the same pairs",
        example=_example,
    )
