"""Built-in entries for PHP (adapters ``php-urlencode``, ``php-http-query``;
``pctfuzz._internal.oracles.php``), each cited to the PHP manual or php-src."""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import MODEL, KnownDivergence
from pctfuzz._internal.accept.reconcilers import encoded, names_mangled, plus_as_space
from pctfuzz._internal.cases import DecodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.registry.common import WHATWG_FORM, WHATWG_FORM_PARSE, add_entry
from pctfuzz._internal.operations import DECODE, FORM_PARSE, FORM_SERIALIZE

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_PLUS = plus_as_space()
_entry(
    id="php-urldecode-plus",
    impl="php-urlencode",
    check=DECODE.name,
    summary="urldecode decodes '+' as a space",
    applies=lambda case: isinstance(case, DecodeCase),
    reconcile=_PLUS.reconcile,
    model=_PLUS.model,
    phase=MODEL,
    reference="keeps '+'",
    implementation="'+' is a space",
    citation="PHP manual, urldecode: 'Plus symbols ('+') are decoded to a space character'",
    why="urldecode decodes form data; rawurldecode is the percent-decode",
    example=DecodeCase("+"),
)
_entry(
    id="php-http-build-query-star",
    impl="php-http-query",
    check=FORM_SERIALIZE.name,
    summary="http_build_query encodes '*' (urlencode's set)",
    applies=lambda case: isinstance(case, FormCase),
    reconcile=encoded("*").reconcile,
    reference="'*' raw (the form set)",
    implementation="'*' as %2A",
    citation=f"PHP manual, http_build_query (encoding_type PHP_QUERY_RFC1738: as urlencode) "
    f"and urlencode ('all non-alphanumeric characters except -_. are replaced'); {WHATWG_FORM}",
    why="both forms decode to the same pairs",
    example=FormCase((("a", "*"),)),
)


_PARSE_STR = names_mangled("php")
_entry(
    id="php-parse-str-variables",
    impl="php-http-query",
    check=FORM_PARSE.name,
    summary="parse_str makes PHP variables: ' ' and '.' in names become '_', leading spaces "
    "and empty names are dropped, a name ends at NUL, a repeated name keeps the last value; "
    "the text ends at its first NUL byte",
    applies=lambda case: isinstance(case, FormParseCase),
    reconcile=_PARSE_STR.reconcile,
    reference="every sequence as a (name, value) pair",
    implementation="an array of variables, as $_GET is built",
    citation="PHP manual, Variables From External Sources: 'Dots and spaces in variable "
    "names are converted to underscores'; php-src main/php_variables.c "
    "php_default_treat_data (php_strtok_r over the text as a C string) and "
    f"php_register_variable_ex; {WHATWG_FORM_PARSE}",
    why="parse_str fills an array the way PHP fills $_GET; the names are PHP's",
    example=FormParseCase("a.b=1&a.b=2"),
)
