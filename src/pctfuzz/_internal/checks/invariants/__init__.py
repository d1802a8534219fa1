"""The invariants of percent-encoding, as plain functions that raise ``Violation``.

Every check takes the subject under test as a :class:`~pctfuzz._internal.oracles.codec.Codec`
(default :data:`REFERENCE`), so a deliberately wrong codec (``pctfuzz._internal.oracles.faults``)
is checked by the same code. Each driver (Hypothesis, atheris, replay) calls one
aggregate per case type -- :func:`check_encode`, :func:`check_decode`,
:func:`check_form`, :func:`check_form_parse` -- and :data:`INVARIANTS` lists every
single invariant for the docs and the fault tests. The atheris driver alone may call
the rotating variants of :data:`ROTATING` instead: the cheap invariants on every input
and one costly one per execution, so an execution costs about two codec calls; what
they find is re-checked with the aggregate before it is recorded.

Where each lives:

- ``expect``: the invariant names (part of findings' signatures), the input domain
  (``input-domain``) and the spec side of an encode case;
- ``encode``: the other encode invariants and the encode aggregate;
- ``monotonicity``: the subset-order invariant;
- ``decode``: decode robustness;
- ``form``: the form serializer and parser invariants;
- here: the rotations and the registry of invariants.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from pctfuzz._internal.checks.invariants.decode import (
    _decode_rotating,
    check_decode,
    check_decode_robustness,
    model_percent_decode,
)
from pctfuzz._internal.checks.invariants.encode import (
    _encode_rotating,
    check_concatenation,
    check_determinism,
    check_encode,
    check_length_bound,
    check_output_alphabet,
    check_round_trip,
    check_unreserved_idempotence,
    round_trip_holds,
)
from pctfuzz._internal.checks.invariants.expect import (
    CONCATENATION,
    DECODE_ROBUSTNESS,
    DETERMINISM,
    FORM_PARSE,
    FORM_ROUND_TRIP,
    FORM_SERIALIZER,
    INPUT_DOMAIN,
    LENGTH_BOUND,
    MONOTONICITY,
    OUTPUT_ALPHABET,
    ROUND_TRIP,
    UNRESERVED_IDEMPOTENCE,
    check_input_domain,
    encoder_bytes,
    expected_encode_error,
)
from pctfuzz._internal.checks.invariants.form import (
    _form_parse_rotating,
    _form_rotating,
    check_form,
    check_form_parse,
    check_form_round_trip,
    check_form_serializer,
    expected_form_error,
)
from pctfuzz._internal.checks.invariants.monotonicity import check_monotonicity, set_neighbours

# What a codec and the reference are live in the subjects layer; re-exported because
# ``invariants.Codec`` and ``invariants.REFERENCE`` are what checks are written against.
from pctfuzz._internal.oracles.codec import (
    REFERENCE,
    Codec,
    DecodeFunc,
    EncodeFunc,
    FormDecodeFunc,
    FormEncodeFunc,
    form_parser,
    form_serializer,
)

__all__ = [
    "CONCATENATION",
    "DECODE_ROBUSTNESS",
    "DETERMINISM",
    "FORM_PARSE",
    "FORM_ROUND_TRIP",
    "FORM_SERIALIZER",
    "INPUT_DOMAIN",
    "INVARIANTS",
    "LENGTH_BOUND",
    "MONOTONICITY",
    "OUTPUT_ALPHABET",
    "REFERENCE",
    "ROTATING",
    "ROUND_TRIP",
    "UNRESERVED_IDEMPOTENCE",
    "Codec",
    "DecodeFunc",
    "EncodeFunc",
    "FormDecodeFunc",
    "FormEncodeFunc",
    "Invariant",
    "Rotation",
    "check_concatenation",
    "check_decode",
    "check_decode_robustness",
    "check_determinism",
    "check_encode",
    "check_form",
    "check_form_parse",
    "check_form_round_trip",
    "check_form_serializer",
    "check_input_domain",
    "check_length_bound",
    "check_monotonicity",
    "check_output_alphabet",
    "check_round_trip",
    "check_unreserved_idempotence",
    "encoder_bytes",
    "expected_encode_error",
    "expected_form_error",
    "form_parser",
    "form_serializer",
    "model_percent_decode",
    "round_trip_holds",
    "set_neighbours",
]


class Rotation(NamedTuple):
    """A harness-only variant of an aggregate check: ``check(case, codec, turn)`` runs
    part of the aggregate, and ``turns`` consecutive turns run all of it."""

    turns: int
    check: Callable[[Any, Codec, int], None]


#: aggregate check -> its rotation. For the atheris driver only: replay,
#: minimization and the Hypothesis tests run the aggregate on every input.
ROTATING: Mapping[Callable[..., None], Rotation] = MappingProxyType(
    {
        check_encode: Rotation(5, _encode_rotating),
        check_decode: Rotation(1, _decode_rotating),
        check_form: Rotation(2, _form_rotating),
        check_form_parse: Rotation(2, _form_parse_rotating),
    }
)


# --- the registry ---------------------------------------------------------------------


class Invariant(NamedTuple):
    """One invariant: a one-line description (for the docs) and its check."""

    description: str
    check: Callable[..., None]


#: name -> (description, check(case, codec=REFERENCE)). The names appear in findings.
INVARIANTS: Mapping[str, Invariant] = MappingProxyType(
    {
        INPUT_DOMAIN: Invariant(
            "lone surrogates, unknown sets and labels raise the documented error; "
            "nothing else raises",
            check_input_domain,
        ),
        OUTPUT_ALPHABET: Invariant(
            "output is ASCII; %HH is uppercase and of a byte in the set; other chars are "
            "outside the set; with spaceAsPlus space is always +",
            check_output_alphabet,
        ),
        ROUND_TRIP: Invariant(
            "decode(encode(x)) == bytes(x) exactly when % is in the set or x has no %HH "
            "(and, with spaceAsPlus, + is in the set or x has no +)",
            check_round_trip,
        ),
        LENGTH_BOUND: Invariant(
            "n <= len(output) <= 3n for the encoder's n bytes, plus the NCRs' length",
            check_length_bound,
        ),
        DETERMINISM: Invariant("the same call twice gives the same output", check_determinism),
        UNRESERVED_IDEMPOTENCE: Invariant(
            "unreserved characters (but ~ in the form set) are never encoded and %HH of one "
            "decodes to it; "
            "encode(decode(encode(x))) == encode(x) where the round trip holds",
            check_unreserved_idempotence,
        ),
        MONOTONICITY: Invariant(
            "for P ⊆ Q, every byte P encodes Q encodes (and Q's output is no shorter)",
            check_monotonicity,
        ),
        CONCATENATION: Invariant(
            "encode(a + b) == encode(a) + encode(b) for UTF-8 and bytes",
            check_concatenation,
        ),
        DECODE_ROBUSTNESS: Invariant(
            "any str/bytes decodes without error, exactly as the spec's loop: "
            "a % without two hex digits is kept",
            check_decode_robustness,
        ),
        FORM_SERIALIZER: Invariant(
            "form serialization is name=value&... with the form set and spaceAsPlus",
            check_form_serializer,
        ),
        FORM_ROUND_TRIP: Invariant(
            "parse(serialize(pairs)) == pairs for scalar-value strings in UTF-8",
            check_form_round_trip,
        ),
        FORM_PARSE: Invariant(
            "the form parser never raises, returns scalar-value str pairs, and "
            "parse(serialize(parse(t))) == parse(t)",
            check_form_parse,
        ),
    }
)
