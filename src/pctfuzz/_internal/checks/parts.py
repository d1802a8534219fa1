"""A form case as its independent parts: each ``&``-separated sequence of a form
parser's text, each pair of a serializer's list (WHATWG URL 5.1, 5.2).

A form is made of pairs that its parser or serializer handles one by one: where the
implementation's answer to the case is its answers to the parts put together, the
case's difference is theirs. The differential check asks so before it names an input
(``checks.differential``): when each part that differs alone is a known finding's hit,
the input is those findings together, never a new one. A parser that keeps a lone
surrogate and reads an NKo digit as ``1`` made a new class of each input holding both
(four in one 60 s campaign of the tuning hold-out), since two findings no rule names
have no answer to compose.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from pctfuzz._internal.cases import Case, FormCase, FormParseCase
from pctfuzz._internal.outcome import Outcome

__all__ = ["joined", "parts"]


def parts(case: Case) -> list[Case] | None:
    """The case's parts, each a case of its own (a parser's empty sequences too: a
    parser may answer them); None for a case of one part or another shape."""
    if isinstance(case, FormParseCase):
        text = case.text
        pieces: Sequence[Any] = text.split(b"&") if isinstance(text, bytes) else text.split("&")
        if len(pieces) < 2:
            return None
        return [dataclasses.replace(case, text=piece) for piece in pieces]
    if isinstance(case, FormCase) and len(case.pairs) > 1:
        return [dataclasses.replace(case, pairs=(pair,)) for pair in case.pairs]
    return None


def joined(case: Case, answers: Sequence[Outcome]) -> Any:
    """The parts' answers put together as the case's would be (None when one of them
    is no answer to put together: a refusal, another type)."""
    if any(answer.raised for answer in answers):
        return None
    values = [answer.value for answer in answers]
    if isinstance(case, FormParseCase) and all(isinstance(v, list) for v in values):
        return [pair for value in values for pair in value]
    if isinstance(case, FormCase) and all(isinstance(v, str) for v in values):
        return "&".join(values)
    return None
