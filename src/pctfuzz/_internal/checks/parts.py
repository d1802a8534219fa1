"""A case as its independent parts: each ``&``-separated sequence of a form parser's
text, each pair of a serializer's list (WHATWG URL 5.1, 5.2), and runs of a decoder's
or an encoder's text (``PIECES`` of them at most, cut before a ``%`` that starts no
UTF-8 continuation byte, or between two characters: percent-decode and percent-encode
read a text unit by unit, WHATWG URL 1.3).

A form is made of pairs that its parser or serializer handles one by one: where the
implementation's answer to the case is its answers to the parts put together, the
case's difference is theirs. The differential check asks so before it names an input
(``checks.differential``): when each part that differs alone is a known finding's hit,
the input is those findings together, never a new one. A parser that keeps a lone
surrogate and reads an NKo digit as ``1`` made a new class of each input holding both
(four in one 60 s campaign of the tuning hold-out), since two findings no rule names
have no answer to compose; a decoder reading every escape as latin-1 and a sign in an
escape (``%aa%+a``) made a third class of both, as those two rules do not compose.
Each run is checked as any input is, so a long text's runs are cut into runs again.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from typing import Any

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.outcome import Outcome

__all__ = ["PIECES", "joined", "parts"]

#: How many runs a decoder's or an encoder's text is cut into at most.
PIECES = 4
#: An escape of a UTF-8 continuation byte (80-BF): a run never starts with one.
_CONTINUATION = frozenset("89abAB")


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
    if isinstance(case, DecodeCase | EncodeCase) and isinstance(case.value, str):
        runs = _runs(case.value, isinstance(case, DecodeCase))
        return None if runs is None else [dataclasses.replace(case, value=run) for run in runs]
    return None


def _runs(text: str, decoding: bool) -> list[str] | None:
    """``text`` cut into at most ``PIECES`` runs of about one length, each cut before a
    ``%`` that starts no continuation byte's escape (a decoder's) or between two
    characters that are no surrogate pair (an encoder's); None when it has no cut."""
    if decoding:
        cuts = [i for i in range(1, len(text)) if text[i] == "%"
                and text[i + 1:i + 2] not in _CONTINUATION]
    else:
        cuts = [i for i in range(1, len(text))
                if not ("\ud800" <= text[i - 1] <= "\udbff" and "\udc00" <= text[i] <= "\udfff")]
    if not cuts:
        return None
    step = len(cuts) / min(PIECES - 1, len(cuts))
    chosen = sorted({cuts[int(step * k)] for k in range(min(PIECES - 1, len(cuts)))})
    bounds = [0, *chosen, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


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
    if isinstance(case, DecodeCase | EncodeCase):
        for kind in (str, bytes):
            if all(isinstance(v, kind) for v in values):
                return kind().join(values)  # type: ignore[attr-defined]
    return None
