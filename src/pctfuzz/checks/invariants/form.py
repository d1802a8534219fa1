"""The application/x-www-form-urlencoded invariants (WHATWG URL 5.1 parser, 5.2
serializer): the serializer's domain and output, the round trip, and the parser's
totality and re-parse; :func:`check_form` and :func:`check_form_parse` are the
aggregates the ``form`` and ``form_parse`` targets run.
"""

from __future__ import annotations

from pctfuzz import encoding as _encoding
from pctfuzz.cases import FormCase, FormParseCase
from pctfuzz.checks.invariants.expect import (
    FORM_PARSE,
    FORM_ROUND_TRIP,
    FORM_SERIALIZER,
    INPUT_DOMAIN,
    _first_difference,
    _is_scalar,
)
from pctfuzz.errors import NotScalarValueError, PctfuzzError, UnknownEncodingError
from pctfuzz.oracles.codec import REFERENCE, Codec
from pctfuzz.sets import FORM
from pctfuzz.violations import Violation

# --- form -------------------------------------------------------------------------------


def expected_form_error(case: FormCase) -> type[PctfuzzError] | None:
    """The error the serializer documents for ``case`` (None: in the domain). The label
    is resolved when the first name is encoded, so no pairs means no error."""
    if not case.pairs:
        return None
    try:
        _encoding.lookup(case.encoding)
    except UnknownEncodingError:
        return UnknownEncodingError
    if all(_is_scalar(name) and _is_scalar(value) for name, value in case.pairs):
        return None
    return NotScalarValueError


def _form_encode(case: FormCase, codec: Codec) -> str | None:
    """The codec's serialization, or None after checking an out-of-domain case."""
    wanted = expected_form_error(case)
    try:
        out = codec.form_encode(case.pairs, encoding=case.encoding)
    except (PctfuzzError, ValueError, LookupError) as exc:
        if wanted is not None and isinstance(exc, wanted):
            return None
        raise Violation(
            INPUT_DOMAIN,
            case,
            expected=wanted.__name__ if wanted else "a serialization",
            actual=f"{type(exc).__name__}: {exc}",
            detail="form serializer raised the wrong error"
            if wanted
            else "form serializer rejected in-domain pairs",
        ) from exc
    if wanted is not None:
        raise Violation(
            INPUT_DOMAIN,
            case,
            expected=wanted.__name__,
            actual=out,
            detail="form serializer accepted pairs outside the domain (lone surrogates "
            "or an unknown label)",
        )
    return out


def _form_serializer(case: FormCase, codec: Codec, out: str) -> None:
    want = "&".join(
        codec.encode(name, FORM.name, encoding=case.encoding, space_as_plus=True)
        + "="
        + codec.encode(value, FORM.name, encoding=case.encoding, space_as_plus=True)
        for name, value in case.pairs
    )
    if out != want:
        raise Violation(
            FORM_SERIALIZER,
            case,
            expected=want,
            actual=out,
            position=_first_difference(want, out),
            detail="serialization is not name=value pairs joined by '&', each percent-encoded "
            "with the form set and spaceAsPlus (WHATWG URL 5.2)",
        )


def check_form_serializer(case: FormCase, codec: Codec = REFERENCE) -> None:
    """The serializer's output is ``&``-joined ``name=value``, each percent-encoded after
    encoding with the form set and spaceAsPlus true, by the same codec (WHATWG URL 5.2)."""
    out = _form_encode(case, codec)
    if out is not None:
        _form_serializer(case, codec, out)


def _form_round_trip(case: FormCase, codec: Codec, out: str) -> None:
    try:
        utf8 = _encoding.lookup(case.encoding).is_utf8
    except UnknownEncodingError:  # only reachable with no pairs: nothing to parse back
        utf8 = False
    if not utf8:
        return  # the parser decodes UTF-8 only: other encodings do not come back
    back = codec.form_decode(out)
    if back != list(case.pairs):
        raise Violation(
            FORM_ROUND_TRIP,
            case,
            expected=list(case.pairs),
            actual=back,
            position=_first_difference(list(case.pairs), back),
            detail=f"parse(serialize(pairs)) != pairs (serialized {out!r})",
        )


def check_form_round_trip(case: FormCase, codec: Codec = REFERENCE) -> None:
    """``form_urldecode(form_urlencode(pairs)) == pairs`` for scalar-value strings and a
    UTF-8 output encoding (WHATWG URL 5.1, 5.2)."""
    out = _form_encode(case, codec)
    if out is not None:
        _form_round_trip(case, codec, out)


def check_form(case: FormCase, codec: Codec = REFERENCE) -> None:
    """Every form-serializer invariant on one case (the check the form target runs)."""
    out = _form_encode(case, codec)
    if out is not None:
        _form_serializer(case, codec, out)
        _form_round_trip(case, codec, out)


def _form_rotating(case: FormCase, codec: Codec, turn: int) -> None:
    """:func:`check_form` with the serializer check (two encodes per pair) on even
    turns and the round trip (one parse) on odd ones; the domain on every turn."""
    out = _form_encode(case, codec)
    if out is not None:
        if turn % 2:
            _form_round_trip(case, codec, out)
        else:
            _form_serializer(case, codec, out)


def _parse(case: FormParseCase, codec: Codec, text: str | bytes) -> list[tuple[str, str]]:
    try:
        pairs = codec.form_decode(text)
    except Exception as exc:
        raise Violation(
            FORM_PARSE,
            case,
            expected="a list of pairs",
            actual=f"{type(exc).__name__}: {exc}",
            detail=f"the parser must accept any input; it raised on {text!r}",
        ) from exc
    if not isinstance(pairs, list):
        raise Violation(FORM_PARSE, case, expected="a list", actual=pairs, detail="not a list")
    for index, pair in enumerate(pairs):
        if not (
            isinstance(pair, tuple)
            and len(pair) == 2
            and all(isinstance(item, str) and _is_scalar(item) for item in pair)
        ):
            raise Violation(
                FORM_PARSE,
                case,
                expected="(str, str) of scalar value strings",
                actual=pair,
                position=index,
                detail="a parsed pair is not two scalar value strings (UTF-8 decode "
                "without BOM replaces errors with U+FFFD)",
            )
    return pairs


def check_form_parse(case: FormParseCase, codec: Codec = REFERENCE) -> None:
    """The parser never raises and returns a list of (str, str) scalar-value pairs, and
    re-parsing its re-serialization gives the same pairs (WHATWG URL 5.1, 5.2)."""
    _reparse(case, codec, _parse(case, codec, case.text))


def _reparse(case: FormParseCase, codec: Codec, pairs: list[tuple[str, str]]) -> None:
    again = _parse(case, codec, codec.form_encode(pairs, encoding="utf-8"))
    if again != pairs:
        raise Violation(
            FORM_PARSE,
            case,
            expected=pairs,
            actual=again,
            position=_first_difference(pairs, again),
            detail="parse(serialize(parse(t))) != parse(t)",
        )


def _form_parse_rotating(case: FormParseCase, codec: Codec, turn: int) -> None:
    """:func:`check_form_parse` with the re-serialization and second parse on odd
    turns only; the first parse and its pairs' types on every turn."""
    pairs = _parse(case, codec, case.text)
    if turn % 2:
        _reparse(case, codec, pairs)
