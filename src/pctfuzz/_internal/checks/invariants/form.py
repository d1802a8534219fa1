"""The application/x-www-form-urlencoded invariants (WHATWG URL 5.1 parser, 5.2
serializer): the serializer's domain and output, the round trip, and the parser's
totality and re-parse; :func:`check_form` and :func:`check_form_parse` are the
aggregates the ``form`` and ``form_parse`` targets run.
"""

from __future__ import annotations

import functools
from itertools import chain

from pctfuzz._internal import encoding as _encoding
from pctfuzz._internal.cases import FormCase, FormParseCase
from pctfuzz._internal.checks.invariants.expect import (
    FORM_PARSE,
    FORM_ROUND_TRIP,
    FORM_SERIALIZER,
    INPUT_DOMAIN,
    _is_scalar,
)
from pctfuzz._internal.errors import NotScalarValueError, PctfuzzError, UnknownEncodingError
from pctfuzz._internal.oracles.codec import REFERENCE, Codec
from pctfuzz._internal.sets import FORM
from pctfuzz._internal.text import first_difference
from pctfuzz._internal.violations import Violation

_FORM = FORM.name

# --- form -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _output_encoding(label: str) -> _encoding.Encoding | None:
    """The encoding of a label, None when it is unknown: every input asks, about one of
    a few labels."""
    try:
        return _encoding.lookup(label)
    except UnknownEncodingError:
        return None


def expected_form_error(case: FormCase) -> type[PctfuzzError] | None:
    """The error the serializer documents for ``case`` (None: in the domain). The label
    is resolved when the first name is encoded, so no pairs means no error."""
    if not case.pairs:
        return None
    if _output_encoding(case.encoding) is None:
        return UnknownEncodingError
    # One search of all names and values (a surrogate in a str is always lone).
    if _is_scalar("".join(chain.from_iterable(case.pairs))):
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
    fields = _encoded_fields(case, codec)
    want = "&".join(map("=".join, zip(fields[0::2], fields[1::2], strict=True)))
    if out != want:
        raise Violation(
            FORM_SERIALIZER,
            case,
            expected=want,
            actual=out,
            position=first_difference(want, out),
            detail="serialization is not name=value pairs joined by '&', each percent-encoded "
            "with the form set and spaceAsPlus (WHATWG URL 5.2)",
        )


def _encoded_fields(case: FormCase, codec: Codec) -> list[str]:
    """Each name and value of an in-domain ``case``, in order, percent-encoded after
    encoding by ``codec.encode`` with the form set and spaceAsPlus (WHATWG URL 5.2).

    For the reference's encoder, one call on all of them joined by a separator: a C0
    control absent from them, after U+005C for ISO-2022-JP (each then writes its own
    "%HH", or "%5C%HH", and the encoder is back in its starting state after it: the
    argument of ``pctfuzz._internal.form._ISO_2022_JP_CONTROLS``), split on its output. That
    also checks ``pctfuzz._internal.form``'s one-call serializer against other code: one
    separator and a split here, two stand-ins and a replace there, the str path of
    ``percent_encode`` for UTF-8 here, its bytes path there. Any other encoder is
    called once per field: nothing is known of it.
    """
    fields = list(chain.from_iterable(case.pairs))
    if fields and codec.encode is REFERENCE.encode:
        encoding = _output_encoding(case.encoding)
        iso_2022_jp = encoding is not None and encoding.name == "ISO-2022-JP"
        text = "".join(fields)
        # The last control absent from the fields: US, unless the fields hold one.
        control = "\x1f" if "\x1f" not in text else max(_SEPARATORS.difference(text), default="")
        if control:
            separator, split = ("\\" + control, f"%5C%{ord(control):02X}") if iso_2022_jp \
                else (control, f"%{ord(control):02X}")
            joined = codec.encode(separator.join(fields), _FORM, encoding=case.encoding,
                                  space_as_plus=True)
            pieces = joined.split(split)
            if len(pieces) == len(fields):  # (always, unless the encoder is broken)
                return pieces
    return [codec.encode(field, _FORM, encoding=case.encoding, space_as_plus=True)
            for field in fields]


#: Separators of ``_encoded_fields``: the C0 controls but SO, SI and ESC (errors in
#: ISO-2022-JP, and ESC is in its escape sequences).
_SEPARATORS = frozenset(map(chr, range(0x20))) - {"\x0e", "\x0f", "\x1b"}


def check_form_serializer(case: FormCase, codec: Codec = REFERENCE) -> None:
    """The serializer's output is ``&``-joined ``name=value``, each percent-encoded after
    encoding with the form set and spaceAsPlus true, by the same codec (WHATWG URL 5.2)."""
    out = _form_encode(case, codec)
    if out is not None:
        _form_serializer(case, codec, out)


def _form_round_trip(case: FormCase, codec: Codec, out: str) -> None:
    encoding = _output_encoding(case.encoding)  # (None only with no pairs: nothing to parse)
    if encoding is None or not encoding.is_utf8:
        return  # the parser decodes UTF-8 only: other encodings do not come back
    back = codec.form_decode(out)
    if back != list(case.pairs):
        raise Violation(
            FORM_ROUND_TRIP,
            case,
            expected=list(case.pairs),
            actual=back,
            position=first_difference(list(case.pairs), back),
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
    if _str_pairs(pairs):
        return pairs
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


def _str_pairs(pairs: list[tuple[str, str]]) -> bool:
    """Every item is a tuple of two scalar value strings, tested by C calls on all of
    them (True), or maybe not: the loop of ``_parse`` then looks at each one."""
    return (
        set(map(type, pairs)) <= {tuple}
        and set(map(len, pairs)) <= {2}
        and set(map(type, chain.from_iterable(pairs))) <= {str}
        and _is_scalar("".join(chain.from_iterable(pairs)))
    )


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
            position=first_difference(pairs, again),
            detail="parse(serialize(parse(t))) != parse(t)",
        )


def _form_parse_rotating(case: FormParseCase, codec: Codec, turn: int) -> None:
    """:func:`check_form_parse` with the re-serialization and second parse on odd
    turns only; the first parse and its pairs' types on every turn."""
    pairs = _parse(case, codec, case.text)
    if turn % 2:
        _reparse(case, codec, pairs)
