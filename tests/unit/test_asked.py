"""``checks.asked``: the one caching policy of what the differential check asks an
implementation about itself -- per adapter object, bounded, ``None`` an answer."""

from pctfuzz._internal.checks.asked import LIMIT, UNASKED, Asked


class _Adapter:
    """Two of these are equal and hash alike: answers must still be kept apart."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Adapter)

    def __hash__(self) -> int:
        return 0


def test_an_answer_is_kept_per_adapter_object_and_question():
    asked: Asked[str | None] = Asked("mode")
    first, second = _Adapter(), _Adapter()
    assert asked.get(first, "q") is UNASKED
    assert asked.put(first, "q", None) is None
    assert asked.get(first, "q") is None  # asked, and the answer is "none"
    assert asked.get(second, "q") is UNASKED  # an equal adapter is not the same one
    assert asked.get(first, "other") is UNASKED
    asked.put(second, "q", "decode-utf8")
    assert (asked.get(first, "q"), asked.get(second, "q")) == (None, "decode-utf8")


def test_an_id_reused_by_another_object_finds_nothing():
    asked: Asked[str] = Asked("mode")
    gone = _Adapter()
    asked.put(gone, "q", "kept")
    # an id is only unique while its object lives: the kept object is compared too
    impostor = _Adapter()
    asked._answers[id(impostor), "q"] = asked._answers.pop((id(gone), "q"))
    assert asked.get(impostor, "q") is UNASKED


def test_a_table_is_bounded():
    asked: Asked[int] = Asked("mode")
    adapters = [_Adapter() for _ in range(LIMIT + 5)]
    for n, adapter in enumerate(adapters):
        asked.put(adapter, "q", n)
        assert len(asked) <= LIMIT
    assert asked.get(adapters[-1], "q") == LIMIT + 4
    asked.clear()
    assert len(asked) == 0 and asked.get(adapters[-1], "q") is UNASKED
