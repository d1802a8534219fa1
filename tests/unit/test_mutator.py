"""The grammar-aware mutator (``fuzz.mutator``): every output fits libFuzzer's size,
decodes to a case, and the grammar's shapes are reached from a plain seed input:
double escapes, UTF-8 forms, ``%u`` escapes, thousands of fields, block lengths, a
repeated name, legacy encodings with characters they map beside ones they do not."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from urllib.parse import unquote_to_bytes

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pctfuzz._internal import grammar
from pctfuzz._internal.cases import EncodeCase, FormCase
from pctfuzz._internal.fuzz.mutator import SHORT, GrammarMutator, libfuzzer_mutator
from pctfuzz._internal.operations import OPERATIONS, get_operation
from pctfuzz._internal.targets import get_target

#: A plain first input of each operation's byte format (formats).
SEEDS = {"encode": b"\x00\x00a=b", "decode": b"\x01a=b", "form_parse": b"\x01a=b",
         "form": b"\x00\x01a\x01b"}


def _mutator(op_ident: str) -> GrammarMutator:
    op = get_operation(op_ident)
    return GrammarMutator(op, get_target(op.differential_target).bind("urllib").case_from_bytes)


def _walk(op_ident: str, steps: int, seed: int = 1, max_size: int = 8192) -> Iterator[bytes]:
    """Outputs of ``steps`` mutations, each of the seed input or of an earlier output
    (a corpus that keeps a fifth of what it sees), as libFuzzer would call the hook."""
    mutator, rng = _mutator(op_ident), random.Random(seed)
    corpus = [SEEDS[op_ident]]
    for _ in range(steps):
        out = mutator.mutate(rng.choice(corpus), max_size, rng.getrandbits(32))
        if rng.random() < 0.2:
            corpus.append(out)
        yield out


@pytest.mark.parametrize("op", [op.ident for op in OPERATIONS])
@given(data=st.binary(max_size=300), seed=st.integers(0, 2**32 - 1),
       max_size=st.integers(1, 600))
def test_every_output_fits_and_is_a_case(op: str, data: bytes, seed: int,
                                         max_size: int) -> None:
    mutator = _mutator(op)
    target = get_target(get_operation(op).differential_target)
    for out in (mutator.mutate(data, max_size, seed),
                mutator.crossover(data, SEEDS[op], max_size, seed)):
        assert len(out) <= max_size
        assert isinstance(target.from_bytes(out), target.case_type)


def test_same_seed_same_mutations() -> None:
    """One generator seeded by the first seed: a run repeats under libFuzzer's -seed."""
    first, second = _mutator("decode"), _mutator("decode")
    assert [first.mutate(b"\x01a=b", 4096, 7) for _ in range(50)] == \
        [second.mutate(b"\x01a=b", 4096, 7) for _ in range(50)]


def _payloads(op: str, steps: int) -> list[bytes]:
    return [out[1:] for out in _walk(op, steps)]


def test_decode_reaches_the_escape_grammar() -> None:
    outs = _payloads("decode", 4000)
    joined = b"\n".join(outs)
    for needle in (b"%252F", b"%2526", b"%C0%AF", b"%ED%A0%80", b"%u00", b"%EF%BB%BF"):
        assert needle in joined, needle
    # an escape with a non-ASCII digit after the percent sign
    assert any(b"%\xd9\xa4" in out or b"%\xef\xbc\x94" in out for out in outs)
    # three-byte UTF-8 sequences written as escapes, of many code points
    # (escape_code_point): a decoder wrong on one of them is in reach
    three = {unquote_to_bytes(m[0]).decode("utf-8")
             for out in outs for m in _THREE_BYTE_ESCAPE.finditer(out)
             if _decodes(unquote_to_bytes(m[0]))}
    assert len(three) >= 20


_THREE_BYTE_ESCAPE = re.compile(rb"%E[0-9A-F]%[89AB][0-9A-F]%[89AB][0-9A-F]", re.IGNORECASE)


def _decodes(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_pairs_reach_thousands_of_fields_and_block_lengths() -> None:
    outs = _payloads("form_parse", 6000)
    assert max(out.count(b"&") for out in outs) >= 999
    lengths = {len(out) for out in outs}
    assert lengths & {63, 64, 65} and lengths & {127, 128, 129} and lengths & {255, 256, 257}
    assert any(len(out) >= 1023 for out in outs)
    # a name repeated in one text: a=...&a=...
    assert any(len(names) > len(set(names)) for names in
               ([p.split(b"=")[0] for p in out.split(b"&") if b"=" in p] for out in outs))


def test_most_outputs_stay_short() -> None:
    """Long inputs come from the grammar's sizes, rarely: most outputs are short."""
    outs = list(_walk("decode", 3000))
    assert sum(len(out) <= 2 * SHORT for out in outs) > 0.8 * len(outs)


def test_encode_puts_mapped_and_unmapped_characters_of_a_legacy_encoding_together() -> None:
    target = get_target("diff_encode").bind("urllib")
    both = 0
    for out in _walk("encode", 4000):
        case = target.case_from_bytes(out)
        assert isinstance(case, EncodeCase)
        if case.encoding == "UTF-8" or not isinstance(case.value, str):
            continue
        mapped, unmapped = grammar.legacy_chars(case.encoding)
        if any(c in case.value for c in mapped) and any(c in case.value for c in unmapped):
            both += 1
    assert both >= 5


def test_form_serializer_fields_grammar() -> None:
    target = get_target("diff_form").bind("urllib")
    cases = [target.case_from_bytes(out) for out in _walk("form", 6000)]
    assert all(isinstance(case, FormCase) for case in cases)
    pairs = [case.pairs for case in cases if isinstance(case, FormCase)]
    assert max(len(p) for p in pairs) >= 999
    assert any(len({n for n, _ in p}) < len(p) for p in pairs)  # a repeated name
    assert any(case.encoding != "UTF-8" for case in cases if isinstance(case, FormCase))
    assert any("%25" in n + v for p in pairs for n, v in p)


def test_crossover_keeps_the_first_inputs_header() -> None:
    mutator = _mutator("encode")
    for seed in range(50):
        out = mutator.crossover(b"\x45\x83a=b&c=d", b"\x01\x00x=y&z", 4096, seed)
        assert out[:2] == b"\x45\x83"


def test_libfuzzer_hook_interleaves_byte_mutations() -> None:
    """Three calls in four go to libFuzzer's own mutation (here a marker), held near
    the input's size; the fourth to the grammar."""
    calls: list[int] = []

    def byte_mutate(data: bytes, size: int) -> bytes:
        calls.append(size)
        return b"\x01BYTES"

    hook = libfuzzer_mutator(_mutator("decode"), byte_mutate)
    outs = [hook(b"\x01a=b", 8192, seed) for seed in range(200)]
    assert outs.count(b"\x01BYTES") == 150  # the seeds that are not multiples of 4
    assert all(size <= 4 + 2 + 16 for size in calls)
