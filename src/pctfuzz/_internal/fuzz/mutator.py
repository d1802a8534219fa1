"""The grammar-aware mutator: libFuzzer's custom mutator and crossover for each target.

A byte-level mutation rarely builds what some bugs need: a double escape of one
delimiter, one exact three-byte UTF-8 sequence, a thousand fields, a value whose
length crosses a block size, a legacy encoding with characters it maps beside ones it
does not. Structure-aware fuzzing mutates at the level of the input's grammar instead
("Structure-Aware Fuzzing with libFuzzer", google/fuzzing docs). Here the grammar is
the target's byte format (``formats``): a header (set, encoding, spaceAsPlus, str or
bytes), then a payload, which decode and form-parse read as ``&``-separated pairs and
the form serializer as length-prefixed names and values. The tokens come from
``grammar``, the one home they share with the dictionary and the Hypothesis strategies.

``GrammarMutator.mutate`` stacks one to three grammar mutations; ``libfuzzer_mutator``
interleaves it with libFuzzer's own byte mutations (``atheris.Mutate``, which also
inserts the ``-dict`` tokens), one grammar mutation in four, so nothing libFuzzer finds
alone is lost, and the mutator's own cost (a Python call) stays small.
Every output is at most ``max_size`` bytes and decodes to a case (every byte string
does: ``formats``). The randomness comes from one generator seeded with the first seed
libFuzzer passes, so a run is as reproducible from libFuzzer's ``-seed`` as libFuzzer's
own mutations are.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import Callable
from typing import Any

from pctfuzz._internal import grammar
from pctfuzz._internal.formats import form_fields, form_fields_to_bytes
from pctfuzz._internal.operations import ENCODE, FORM_SERIALIZE, Operation
from pctfuzz._internal.spec import HEX_PAIR

__all__ = ["GrammarMutator", "libfuzzer_mutator"]

_Rng = random.Random

#: ``%HH`` in a payload (to unescape one).
_TRIPLET = re.compile(("%" + HEX_PAIR).encode())


def _raw(token: str) -> bytes:
    return token.encode("utf-8", "surrogatepass")


#: The token pools, as payload bytes (text payloads are UTF-8 with lone surrogates).
_TOKENS = tuple(_raw(t) for t in grammar.tokens(surrogates=True))
_ESCAPES = tuple(_raw(t) for t in (*grammar.ESCAPES, *grammar.DOUBLE_ESCAPES,
                                   *grammar.UTF8_FORMS, *grammar.UNRESERVED_ESCAPES,
                                   *grammar.BROKEN_ESCAPES))
_PAIRS = tuple(_raw(t) for t in (*grammar.PAIRS, *grammar.NUMBER_PAIRS))
_DELIMITER_BYTES = frozenset(grammar.DELIMITERS.encode())
_SEPARATORS = (b"&", b"&", b"=", b";", b"+", b"%26", b"%3D")


def _insert(rng: _Rng, payload: bytes, token: bytes) -> bytes:
    at = rng.randint(0, len(payload))
    return payload[:at] + token + payload[at:]


def _char_at(payload: bytes, at: int) -> tuple[int, int]:
    """The UTF-8 sequence around byte ``at``: (start, end); one byte if it is none."""
    start = at
    while start > 0 and at - start < 3 and 0x80 <= payload[start] < 0xC0:
        start -= 1
    lead = payload[start]
    width = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    end = min(len(payload), start + width)
    if any(not 0x80 <= b < 0xC0 for b in payload[start + 1 : end]):
        return at, at + 1
    return start, end


def _escaped(raw: bytes, rng: _Rng) -> bytes:
    """``raw`` as ``%HH`` triplets: upper or lower case, now and then escaped twice."""
    twice = rng.random() < 0.2
    form = "%25{:02X}" if twice else "%{:02x}" if rng.random() < 0.25 else "%{:02X}"
    return "".join(form.format(b) for b in raw).encode()


# --- mutations of a payload (a value, a text, one form field) -----------------------------
def insert_token(rng: _Rng, payload: bytes) -> bytes:
    """A grammar token (delimiter, escape, UTF-8 form, pair, URL word, character)."""
    pool = _ESCAPES if rng.random() < 0.4 else _TOKENS
    return _insert(rng, payload, rng.choice(pool))


def replace_span(rng: _Rng, payload: bytes) -> bytes:
    """A span of the payload replaced by a token."""
    if not payload:
        return rng.choice(_TOKENS)
    at = rng.randrange(len(payload))
    end = min(len(payload), at + rng.randint(1, 4))
    return payload[:at] + rng.choice(_TOKENS) + payload[end:]


def escape_one(rng: _Rng, payload: bytes) -> bytes:
    """One character of the payload escaped (a delimiter by preference), once or twice."""
    if not payload:
        return _escaped(rng.choice(grammar.DELIMITERS).encode(), rng)
    at = rng.randrange(len(payload))
    for _ in range(8):  # a few looks for a delimiter, not a scan of a long payload
        if payload[at] in _DELIMITER_BYTES:
            break
        at = rng.randrange(len(payload))
    start, end = _char_at(payload, at)
    return payload[:start] + _escaped(payload[start:end], rng) + payload[end:]


def unescape_one(rng: _Rng, payload: bytes) -> bytes:
    """One ``%HH`` of the payload written as its byte (a ``%25HH`` becomes ``%HH``)."""
    found = list(_TRIPLET.finditer(payload))
    if not found:
        return escape_one(rng, payload)
    match = rng.choice(found)
    return payload[: match.start()] + bytes([int(match[0][1:], 16)]) + payload[match.end():]


def escape_code_point(rng: _Rng, payload: bytes) -> bytes:
    """A code point's UTF-8 bytes as escapes: a special one, or any of 1-4 bytes."""
    if rng.random() < 0.5:
        char = rng.choice(grammar.SPECIAL_CHARS)
    else:
        low, high = rng.choice(((0x80, 0x7FF), (0x800, 0xFFFF), (0x10000, 0x10FFFF)))
        char = chr(rng.randint(low, high))
    return _insert(rng, payload, _escaped(_raw(char), rng))


#: ``BLOCK_LENGTHS`` weighted by 1/sqrt(length): an execution costs about its length,
#: so a 4097-byte value is tried a sixteenth as often as a 17-byte one.
_LENGTH_WEIGHTS = tuple(itertools.accumulate(1 / math.sqrt(n) for n in grammar.BLOCK_LENGTHS))


def resize(rng: _Rng, payload: bytes) -> bytes:
    """The payload padded or cut to a length around a block size (``BLOCK_LENGTHS``),
    counted in bytes or, half the time, in characters."""
    length = rng.choices(grammar.BLOCK_LENGTHS, cum_weights=_LENGTH_WEIGHTS)[0]
    unit = payload if payload and rng.random() < 0.5 else rng.choice((b"a", *_TOKENS))
    if rng.random() < 0.5:
        text = payload.decode("utf-8", "surrogatepass") if _is_text(payload) else None
        if text is not None:
            unit_text = unit.decode("utf-8", "replace") or "a"
            text = (text + unit_text * (length // len(unit_text) + 1))[:length] \
                if len(text) < length else text[:length]
            return _raw(text)
    if len(payload) >= length:
        return payload[:length]
    return (payload + unit * ((length - len(payload)) // len(unit) + 1))[:length]


def delete_span(rng: _Rng, payload: bytes) -> bytes:
    """A span of the payload removed (the grammar's other mutations add)."""
    if not payload:
        return payload
    at = rng.randrange(len(payload))
    return payload[:at] + payload[at + rng.randint(1, 8) :]


def _is_text(payload: bytes) -> bool:
    try:
        payload.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return False
    return True


# --- mutations of the pairs of a payload (decode and form-parse text) ---------------------
def _split(payload: bytes) -> tuple[bytes, list[bytes]]:
    sep = b";" if b";" in payload and b"&" not in payload else b"&"
    return sep, payload.split(sep)


def pairs_edit(rng: _Rng, payload: bytes) -> bytes:
    """Insert, delete, duplicate, swap a pair; repeat a name; split or join at a
    separator (``&``, ``=``, ``;`` and their escapes)."""
    sep, pairs = _split(payload)
    kind = rng.randrange(7)
    i, j = rng.randrange(len(pairs)), rng.randrange(len(pairs))
    if kind == 0:
        pairs.insert(i, rng.choice(_PAIRS))
    elif kind == 1 and len(pairs) > 1:
        del pairs[i]
    elif kind == 2:
        pairs.insert(i, pairs[j])
    elif kind == 3:
        pairs[i], pairs[j] = pairs[j], pairs[i]
    elif kind == 4:  # the name of pair j given to pair i
        name = pairs[j].split(b"=", 1)[0]
        rest = pairs[i].split(b"=", 1)
        pairs[i] = name + (b"=" + rest[1] if len(rest) > 1 else b"")
    elif kind == 5:
        return _insert(rng, payload, rng.choice(_SEPARATORS))
    else:  # a separator removed
        spots = [m.start() for m in re.finditer(rb"[&=;]", payload)]
        if spots:
            at = rng.choice(spots)
            return payload[:at] + payload[at + 1 :]
    return sep.join(pairs)


_COUNT_WEIGHTS = tuple(itertools.accumulate(1 / math.sqrt(n) for n in grammar.FIELD_COUNTS))


def many_pairs(rng: _Rng, payload: bytes, max_size: int) -> bytes:
    """As many fields as a common limit (``FIELD_COUNTS``), up to ``max_size`` bytes:
    one pair repeated, or numbered names (``k1=v&k2=v``: a dict keeps them all)."""
    sep, pairs = _split(payload)
    count = rng.choices(grammar.FIELD_COUNTS, cum_weights=_COUNT_WEIGHTS)[0]
    if rng.random() < 0.5:
        unit = rng.choice(pairs)[:8] or b"a"  # short: many of them fit
        fields = [unit] * count
    else:
        fields = [b"k%d=v" % n for n in range(count)]
    out = sep.join(fields)
    if len(out) <= max_size:
        return out
    cut = out.rfind(sep, 0, max_size + 1)  # whole fields only
    return out[:cut] if cut > 0 else out[:max_size]


#: Inputs longer than this many bytes are mostly cut short (``keep_short``).
SHORT = 128

#: The share of grammar mutations that set a size (``GrammarMutator.sized``).
_SIZED = 0.05


class GrammarMutator:
    """Mutations at the level of one target's byte format (module docstring).

    ``case_from_bytes`` is the bound target's (the adapter's answer domain narrows what
    a header byte selects): the mutator asks it which encoding a header selects, to put
    that encoding's mapped and unmapped characters side by side."""

    def __init__(self, operation: Operation, case_from_bytes: Callable[[bytes], Any]):
        self.operation = operation
        self.case_from_bytes = case_from_bytes
        self.header = 2 if operation is ENCODE else 0 if operation is FORM_SERIALIZE else 1
        #: Seeded by the first hook call's seed: seeding costs more than a mutation.
        self._generator: _Rng | None = None

    def generator(self, seed: int) -> _Rng:
        """The mutator's one random generator, seeded with the first ``seed`` asked."""
        if self._generator is None:
            self._generator = random.Random(seed)
        return self._generator

    # -- the two libFuzzer hooks ----------------------------------------------------------
    def mutate(self, data: bytes, max_size: int, seed: int) -> bytes:
        """One to three grammar mutations of ``data``, at most ``max_size`` bytes; one
        time in twenty a size instead (``sized``). The rest keep the input short
        (``keep_short``)."""
        rng = self.generator(seed)
        if rng.random() < _SIZED:
            return self.sized(rng, data, max_size)[:max_size]
        data = self.keep_short(rng, data)
        for _ in range(rng.choice((1, 1, 2, 3))):
            data = self._one(rng, data)
        return self.keep_short(rng, data)[:max_size]

    def crossover(self, data1: bytes, data2: bytes, max_size: int, seed: int) -> bytes:
        """``data1``'s header and first pairs (or fields, or bytes), ``data2``'s last."""
        rng = self.generator(seed)
        if self.operation is FORM_SERIALIZE:
            fields1, fields2 = form_fields(data1), form_fields(data2)
            cut1 = 2 * rng.randint(0, len(fields1) // 2)
            cut2 = 2 * rng.randint(0, len(fields2) // 2)
            head = data1[:1] or b"\x00"
            out = _unfields(head, fields1[:cut1] + fields2[cut2:])
        else:
            head, body1 = data1[: self.header], data1[self.header :]
            body2 = data2[self.header :]
            if rng.random() < 0.5:
                # (split only here: libFuzzer calls a custom crossover for half of its
                # mutations, and splitting both inputs was a twentieth of a campaign)
                sep, pairs1 = _split(body1)
                _, pairs2 = _split(body2)
                body = sep.join(pairs1[: rng.randint(0, len(pairs1))]
                                + pairs2[rng.randint(0, len(pairs2)) :])
            else:
                body = body1[: rng.randint(0, len(body1))] + body2[rng.randint(0, len(body2)) :]
            out = head + body
        return self.keep_short(rng, out)[:max_size]

    def keep_short(self, rng: _Rng, data: bytes) -> bytes:
        """``data``, or a short piece of it when it is longer than ``SHORT`` bytes
        (fifteen times in sixteen): its header and a window of the payload that starts
        at a pair, or (form) its first fields, each cut to 32 bytes. An execution costs
        about its input's length, and libFuzzer's length control is off beside a custom
        mutator: without this the corpus drifts to long inputs and the campaign slows
        several times over. Long inputs come from ``sized``, on purpose."""
        if len(data) <= SHORT or rng.random() < 1 / 16:
            return data
        if self.operation is FORM_SERIALIZE:
            fields = form_fields(data)[: 2 * rng.randint(1, 3)]
            return _unfields(data[:1], [field[:32] for field in fields])[: 2 * SHORT]
        payload = data[self.header :]
        starts = [0, *(m.end() for m in itertools.islice(re.finditer(rb"[&;]", payload),
                                                         32))]
        start = rng.choice(starts)
        return data[: self.header] + payload[start : start + rng.choice((8, 32, SHORT))]

    def sized(self, rng: _Rng, data: bytes, max_size: int) -> bytes:
        """A length around a block size (``resize``), or many fields (``many_pairs``;
        the form serializer's fields are at most 255 bytes, so it gets fields or a
        field's length)."""
        if self.operation is FORM_SERIALIZE:
            head, fields = (data[:1] or b"\x00"), form_fields(data) or [b"", b""]
            if rng.random() < 0.5:
                pairs = b"&".join(a + b"=" + b for a, b in zip(fields[::2], fields[1::2],
                                                               strict=True))
                fields = _unsplit(many_pairs(rng, pairs, max_size))
            else:
                at = rng.randrange(len(fields))
                fields[at] = resize(rng, fields[at])[:255]
            return _unfields(head, fields)
        head = data[: self.header].ljust(self.header, b"\x00")
        payload = data[self.header :]
        if self.operation is not ENCODE and rng.random() < 0.5:
            return head + many_pairs(rng, payload, max_size - self.header)
        return head + resize(rng, payload)

    # -- one mutation -----------------------------------------------------------------------
    def _one(self, rng: _Rng, data: bytes) -> bytes:
        if self.operation is FORM_SERIALIZE:
            return self._form(rng, data)
        head = data[: self.header].ljust(self.header, b"\x00")
        payload = data[self.header :]
        roll = rng.random()
        if roll < 0.1:
            head, payload = self._header(rng, head, payload)
        elif roll < 0.2 and self.operation is ENCODE and head[1] >= 0x80:
            # more characters of the legacy encoding the input is in (its mode changes)
            payload = _insert(rng, payload, self._legacy_run(rng, head))
        elif roll < 0.3 and self.operation is not ENCODE:
            payload = pairs_edit(rng, payload)
        else:
            payload = self._payload(rng, payload)
        return head + payload

    def _payload(self, rng: _Rng, payload: bytes) -> bytes:
        mutation = rng.choice((insert_token, insert_token, replace_span, escape_one,
                               unescape_one, escape_code_point, escape_code_point,
                               delete_span))
        return mutation(rng, payload)

    def _header(self, rng: _Rng, head: bytes, payload: bytes) -> tuple[bytes, bytes]:
        """Another set, spaceAsPlus or value type (encode), text or bytes (decode,
        form-parse); or (encode) a legacy encoding with characters it maps beside
        characters it does not."""
        if self.operation is not ENCODE:
            return bytes([head[0] ^ 1]), payload
        flags, enc = head[0], head[1]
        kind = rng.randrange(4)
        if kind == 0:
            flags = (flags & 0xC0) | rng.randrange(0x40)
        elif kind == 1:
            flags ^= rng.choice((0x40, 0x80))
        elif rng.random() < 0.5:
            enc = 0  # UTF-8 (libFuzzer's bytes pick a legacy encoding half the time)
        else:
            enc = rng.randrange(0x80, 0x100)
            flags &= 0x7F  # text: a legacy encoding encodes characters
            payload = _insert(rng, payload, self._legacy_run(rng, bytes([flags, enc])))
        return bytes([flags, enc]), payload

    def _legacy_run(self, rng: _Rng, head: bytes) -> bytes:
        """Two to four characters of the encoding ``head`` selects: ones it maps (three
        in four) and ones it does not, run together or with ASCII between them (a
        stateful encoder such as ISO-2022-JP changes mode at each kind)."""
        mapped, unmapped = grammar.legacy_chars(self.case_from_bytes(head).encoding)
        pools = [pool for pool in (mapped, mapped, mapped, unmapped) if pool]
        pick = [rng.choice(rng.choice(pools)) for _ in range(rng.randint(2, 4))]
        ascii_run = rng.choice(("", "a", "a~", " "))
        return _raw(ascii_run.join(pick) if rng.random() < 0.5 else "".join(pick))

    def _form(self, rng: _Rng, data: bytes) -> bytes:
        """The form serializer's fields: pairs as pairs, one field as a payload, the
        encoding as a header (with characters it maps and does not into a field)."""
        head, fields = (data[:1] or b"\x00"), form_fields(data)
        roll = rng.random()
        if roll < 0.1:
            head = bytes([rng.randrange(0x80, 0x100) if rng.random() < 0.8 else 0])
            if fields:
                at = rng.randrange(len(fields))
                fields[at] = _insert(rng, fields[at], self._legacy_run(rng, head))
        elif roll < 0.35:
            pairs = b"&".join(a + b"=" + b for a, b in zip(fields[::2], fields[1::2],
                                                           strict=True))
            fields = _unsplit(pairs_edit(rng, pairs))
        elif fields:
            at = rng.randrange(len(fields))
            fields[at] = self._payload(rng, fields[at])
        else:
            fields = [self._payload(rng, b""), b""]
        return _unfields(head, fields)


def _unsplit(pairs: bytes) -> list[bytes]:
    """Names and values of ``&``-separated pairs (a pair without ``=`` is a name)."""
    return [part for pair in pairs.split(b"&") for part in (*pair.split(b"=", 1), b"")[:2]]


def _unfields(head: bytes, fields: list[bytes]) -> bytes:
    """The form format of ``fields`` (``formats.form_fields_to_bytes``); a field longer
    than 255 bytes is cut."""
    return form_fields_to_bytes(head[0], [field[:255] for field in fields])


def libfuzzer_mutator(mutator: GrammarMutator,
                      byte_mutate: Callable[[bytes, int], bytes]) -> Callable[[bytes, int, int],
                                                                              bytes]:
    """libFuzzer's ``custom_mutator`` hook: one call in four a grammar mutation, the
    others libFuzzer's own (``byte_mutate``: ``atheris.Mutate``). With a custom mutator
    libFuzzer offers every input ``-max_len`` bytes from the start (its ``-len_control``
    is off), so its own mutations are held near the input's size, as its length control
    would, and most mutants of a long input are short (``GrammarMutator.keep_short``):
    long inputs come from the grammar's sizes (blocks, field counts). One grammar
    mutation in four rather than one in two: measured side by side
    (``benchmarks/bench_grammar.py``), the same coverage at a higher exec/s."""

    def mutate(data: bytes, max_size: int, seed: int) -> bytes:
        if seed % 4:
            if len(data) > SHORT:
                data = mutator.keep_short(mutator.generator(seed), data)
            return byte_mutate(data, min(max_size, len(data) + len(data) // 2 + 16))
        return mutator.mutate(data, max_size, seed >> 2)

    return mutate
