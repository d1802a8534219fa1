"""Built-in entries for PHP (adapters ``php-urlencode``, ``php-http-query``;
``pctfuzz._internal.oracles.php``), each cited to the PHP manual or php-src."""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.entry import KnownDivergence
from pctfuzz._internal.accept.reconcilers import encoded
from pctfuzz._internal.cases import Case, DecodeCase, FormCase, FormParseCase
from pctfuzz._internal.checks.registry.common import WHATWG_FORM, WHATWG_FORM_PARSE, Pair, add_entry
from pctfuzz._internal.checks.registry.langs_common import plus_as_space
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_decode

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_entry(
    id="php-urldecode-plus",
    impl="php-urlencode",
    check="decode",
    summary="urldecode decodes '+' as a space",
    applies=lambda case: isinstance(case, DecodeCase),
    reconcile=plus_as_space,
    reference="keeps '+'",
    implementation="'+' is a space",
    citation="PHP manual, urldecode: 'Plus symbols ('+') are decoded to a space character'",
    why="urldecode decodes form data; rawurldecode is the percent-decode",
    example=DecodeCase("+"),
)
_entry(
    id="php-http-build-query-star",
    impl="php-http-query",
    check="form",
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


def _parse_str_model(text: str | bytes) -> list[tuple[str, str]]:
    """php-src main/php_variables.c: php_default_treat_data and php_register_variable_ex
    (names without '[')."""
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    data = data.split(b"\0", 1)[0]  # parse_str tokenizes a C string: it ends at NUL
    found: dict[bytes, bytes] = {}  # a PHP array: a repeated name keeps its first place
    for sequence in data.split(b"&"):
        if not sequence:
            continue  # php_strtok_r skips empty tokens
        name, _, value = sequence.partition(b"=")
        name = percent_decode(name.replace(b"+", b" ")).lstrip(b" ")  # leading spaces skipped
        name = name.split(b"\0", 1)[0]  # a C string
        if not name:
            continue
        name = name.replace(b" ", b"_").replace(b".", b"_")
        found[name] = percent_decode(value.replace(b"+", b" "))
    return [(n.decode("utf-8", "replace"), v.decode("utf-8", "replace"))
            for n, v in found.items()]


def _parse_str(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if not isinstance(case, FormParseCase) or expected.raised:
        return None
    return Outcome(_parse_str_model(case.text)), actual


_entry(
    id="php-parse-str-variables",
    impl="php-http-query",
    check="form-parse",
    summary="parse_str makes PHP variables: ' ' and '.' in names become '_', leading spaces "
    "and empty names are dropped, a name ends at NUL, a repeated name keeps the last value; "
    "the text ends at its first NUL byte",
    applies=lambda case: isinstance(case, FormParseCase),
    reconcile=_parse_str,
    reference="every sequence as a (name, value) pair",
    implementation="an array of variables, as $_GET is built",
    citation="PHP manual, Variables From External Sources: 'Dots and spaces in variable "
    "names are converted to underscores'; php-src main/php_variables.c "
    "php_default_treat_data (php_strtok_r over the text as a C string) and "
    f"php_register_variable_ex; {WHATWG_FORM_PARSE}",
    why="parse_str fills an array the way PHP fills $_GET; the names are PHP's",
    example=FormParseCase("a.b=1&a.b=2"),
)
