"""Built-in entries for Ruby's standard library (adapters ``ruby-*``;
``pctfuzz._internal.oracles.ruby``), each cited to the Ruby 3.1 documentation or source."""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import MODEL, KnownDivergence
from pctfuzz._internal.accept.reconcilers import empty_pairs, plus_as_space
from pctfuzz._internal.cases import DecodeCase, FormParseCase
from pctfuzz._internal.checks.registry.common import WHATWG_FORM_PARSE, add_entry
from pctfuzz._internal.checks.registry.langs_common import (
    has_malformed_escape,
    raised,
)
from pctfuzz._internal.operations import DECODE, FORM_PARSE

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_PLUS = plus_as_space()
for _impl, _fn in (("ruby-www-form-component", "URI.decode_www_form_component"),
                   ("ruby-cgi", "CGI.unescape")):
    _entry(
        id=f"{_impl}-plus",
        impl=_impl,
        check=DECODE.name,
        summary=f"{_fn} decodes '+' as a space",
        applies=lambda case: isinstance(case, DecodeCase),
        reconcile=_PLUS.reconcile,
        model=_PLUS.model,
        phase=MODEL,
        reference="keeps '+'",
        implementation="'+' is a space",
        citation=f"Ruby 3.1 docs, {_fn}: decodes application/x-www-form-urlencoded "
        "(\"+\" to \" \")",
        why="a form decoder, as URL 5.1 decodes names and values",
        example=DecodeCase("+"),
    )
_entry(
    id="ruby-www-form-component-malformed",
    impl="ruby-www-form-component",
    check=DECODE.name,
    summary="URI.decode_www_form_component raises ArgumentError for a % without two hex digits",
    applies=has_malformed_escape,
    reconcile=raised("ArgumentError"),
    reference="keeps the % as it is",
    implementation="raises ArgumentError (invalid %-encoding)",
    citation="Ruby 3.1 lib/uri/common.rb decode_www_form_component: 'raise ArgumentError, "
    "\"invalid %-encoding (#{str})\" if /%(?!\\h\\h)/ =~ str'",
    why="a strict decoder by design",
    example=DecodeCase("%"),
)
_EACH_LINE = empty_pairs("kept-but-last")
_entry(
    id="ruby-decode-www-form-empty",
    impl="ruby-www-form",
    check=FORM_PARSE.name,
    summary="URI.decode_www_form keeps an empty sequence as the pair ('', ''), but the one "
    "after a final '&'",
    applies=lambda case: isinstance(case, FormParseCase),
    reconcile=_EACH_LINE.reconcile,
    model=_EACH_LINE.model,
    phase=MODEL,
    reference="skips empty sequences (URL 5.1 step 3.1)",
    implementation="an empty sequence is the pair ('', '')",
    citation=f"Ruby 3.1 lib/uri/common.rb decode_www_form (str.b.each_line(separator), "
    f"each line chomped); {WHATWG_FORM_PARSE}",
    why="a harmless extra empty pair",
    example=FormParseCase("&a"),
)
_entry(
    id="ruby-decode-www-form-ascii-only",
    impl="ruby-www-form",
    check=FORM_PARSE.name,
    summary="URI.decode_www_form raises ArgumentError for a text that is not ASCII",
    applies=lambda case: isinstance(case, FormParseCase) and not (
        case.text if isinstance(case.text, bytes) else case.text.encode("utf-8", "replace")
    ).isascii(),
    reconcile=raised("ArgumentError"),
    reference="parses it (UTF-8)",
    implementation="raises ArgumentError: the input must be ASCII only string",
    citation="Ruby 3.1 lib/uri/common.rb decode_www_form: 'raise ArgumentError, \"the input "
    "of #{self.name}.#{__method__} must be ASCII only string\" unless str.ascii_only?'",
    why="a documented refusal: a query on the wire is ASCII",
    example=FormParseCase("\u00e9"),
)
