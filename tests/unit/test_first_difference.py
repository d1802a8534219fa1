"""``text.first_difference``, where two answers part: one home for the checks'
violation positions and a finding's class. Held to its definition, the first index
where the two differ (or the shorter length), whatever the sequences' types."""

from hypothesis import given
from hypothesis import strategies as st

from pctfuzz._internal.text import first_difference


def _by_definition(a, b):
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)))


@given(st.text("ab%"), st.text("ab%"))
def test_text(a, b):
    assert first_difference(a, b) == _by_definition(a, b)


@given(st.binary(max_size=40), st.binary(max_size=40))
def test_bytes(a, b):
    assert first_difference(a, b) == _by_definition(a, b)


pairs = st.lists(st.tuples(st.sampled_from("ab"), st.sampled_from("xy")), max_size=8)


@given(pairs, pairs)
def test_lists_and_mixed_types(a, b):
    # a list against a tuple: slices of the two never compare equal, so it walks them
    assert first_difference(a, b) == _by_definition(a, b)
    assert first_difference(a, tuple(b)) == _by_definition(a, tuple(b))


def test_examples():
    assert first_difference("%7E", "%7e") == 2
    assert first_difference("abc", "abc") == 3
    assert first_difference("ab", "abc") == 2
    assert first_difference(b"", b"x") == 0
