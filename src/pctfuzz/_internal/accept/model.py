"""The implementation as a model: what declared differences compose into.

A ready-made reconciler that states a *kind* of difference (a set, a text rewrite, a
structure, an input transform) carries a ``Model``: one field of what the
implementation does differently. The entries of one check that apply to a case merge
into ONE model (``Model.merge``), which then answers the case as the implementation
would (``render``); the order the entries are listed in never matters:

1. input transforms: characters removed or trimmed, the input cut at a delimiter,
   Unicode normalization, existing ``%hh`` uppercased, lone surrogates dropped, bytes
   read as latin-1;
2. the effective set, by set arithmetic: (the case's set | ``encoded``) - ``raw``
   (WHATWG URL 1.3, percent-encode after encoding, with that set);
3. text rewrites of what that set gives: a space as ``+`` or ``%20``, an existing
   ``%HH`` requoted, lowercase hex digits;
4. structure of the result: pairs dropped, kept, sorted (by code points or by the
   names' bytes) or grouped (URL 5.1/5.2), ``;`` as a separator, decoded twice, a
   ``+`` kept (not read as a space).

So ``left_raw("~")`` + ``encoded("*")`` is one set, ``space_as("%20")`` never touches
a ``+`` that ``left_raw("+")`` keeps, and ``pairs_order("sorted")`` orders the pairs
that set serializes.
"""

from __future__ import annotations

import codecs
import functools
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from pctfuzz._internal.accept.decoders import (
    ESCAPE_BYTES,
    decode_again,
    decode_keeping,
    decode_utf8_again,
    decoded_until_stable,
    latin1_chars_escaped,
    predecode,
    raw_meaning,
    u_escapes_as_utf8,
    unsigned,
    utf8_decoded,
)
from pctfuzz._internal.accept.html_refs import html_unescape
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.errors import NotModelled
from pctfuzz._internal.form import form_urldecode, form_urldecode_bytes
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE
from pctfuzz._internal.reference import (
    encode_bytes_lowercase,
    percent_decode,
    percent_encode,
    to_scalar_value_string,
)
from pctfuzz._internal.sets import FORM, PercentEncodeSet, get_set
from pctfuzz._internal.spec import (
    HEX_DIGIT,
    PERCENT_ENCODED_BYTE,
    is_double_dot_segment,
    is_single_dot_segment,
)
from pctfuzz._internal.text import (
    LONE_SURROGATE,
    has_lone_surrogate,
    merge_surrogates,
    strip_lone_surrogates,
    surrogates_to_fffd,
)

__all__ = ["GROUPED_INVARIANT", "REQUOTE_MODES", "Model", "NotModelled", "python_codec_name",
           "read_input", "render", "reorder"]


#: How an encoder writes a valid ``%HH`` of its input (``requoted``, ``pctfuzz.accept``),
#: narrowest first: copied; copied with uppercase hex; an unreserved character's
#: decoded, others copied; RFC 3986 6.2.2's normalization (6.2.2.2: an unreserved
#: character's decoded, 6.2.2.1: others uppercased); decoded when the set leaves the
#: character raw, others uppercased (yarl); each run decoded as UTF-8 then encoded
#: (``quote(unquote(s))``: furl's paths).
REQUOTE_MODES = ("keep", "upper", "decode-unreserved", "normalize", "decode-safe",
                 "decode-utf8")


@dataclass(frozen=True)
class Model:
    """What the implementation does differently; every field's default is "as the
    reference" (module docstring for the order they apply in)."""

    raw: frozenset[int] = frozenset()
    encoded: frozenset[int] = frozenset()
    #: ASCII characters the encoder writes as a text of their own, by code point
    #: (``written_as``: ``&`` as ``&amp;``, ``+`` as ``%252B``), sorted.
    written: tuple[tuple[int, str], ...] = ()
    space: str | None = None
    lowercase_hex: bool = False
    requote: str | None = None
    #: ``requote`` applies to each '/'-separated segment that is valid encoded only
    #: (``requoted``'s ``scope="segments"``: furl's path).
    requote_segments: bool = False
    #: Bytes whose escape ``requote`` keeps as it is (uppercased), the text split there:
    #: ``requoted``'s ``kept`` (pip's link cleaning keeps ``%2F`` and ``%40``).
    requote_kept: frozenset[int] = frozenset()
    #: What ``requote="decode-utf8"`` decodes, by what it means (``requoted``'s
    #: ``decoded``): "invalid" (a run that is not UTF-8, as U+FFFD), each delimiter
    #: that comes out raw, "harmless" (any other character); "all", or None, for all.
    requote_decoded: frozenset[str] | None = None
    order: str | None = None
    empty: str | None = None
    semicolon: bool = False
    twice: bool = False
    #: The parser reads ``+`` as itself, not as a space (``unquote`` for ``unquote_plus``).
    plus_kept: bool = False
    #: ``twice`` and ``plus_kept`` in a form parser's names only, or its values only
    #: (``decoded_twice``/``plus_kept`` with ``part``): a parser that decodes its names
    #: and its values with two functions.
    twice_names: bool = False
    twice_values: bool = False
    #: The second decoding reads ``+`` as a space too (``decoded_twice``'s
    #: ``plus="space"``): a form decoder run on what was decoded already,
    #: ``unquote_plus`` after ``unquote`` or twice, so ``%2B`` becomes a space.
    twice_plus: bool = False
    #: A decoder decodes its answer again until nothing changes (``decoded_repeatedly``):
    #: ``%252541`` is ``A``, and escapes made of decoded characters are decoded too.
    until_stable: bool = False
    #: A form parser percent-decodes the escapes of these bytes in the whole text before
    #: it splits (``decoded_before_split``); ``%`` stands for every escape that is of no
    #: other delimiter (``decoders.predecode``).
    predecoded: frozenset[int] = frozenset()
    plus_kept_names: bool = False
    plus_kept_values: bool = False
    remove: str = ""
    trim: str = ""
    #: Stripped from the start of each input text only (``trimmed``'s ``part="start"``:
    #: Python's ``urlsplit``).
    trim_start: str = ""
    #: Stripped from the end of each input text only (``trimmed``'s ``part="end"``:
    #: ``rstrip``, a parser that drops what trails its query).
    trim_end: str = ""
    #: An encoder's input is a path whose dot segments are resolved first
    #: (``dot_segments``): "raw" (``.`` and ``..``), "escaped" (``%2e`` a dot too),
    #: each with " past-root" when a ``..`` drops the empty first segment too.
    dots: str = ""
    #: A form parser's decoded names, and its decoded values, each stripped of these
    #: (``trimmed`` with ``part``: ``str.strip()`` on each name, value or both).
    trim_names: str = ""
    trim_values: str = ""
    #: Each input text ends before its first character of these (``cut_at``).
    cut: str = ""
    normalize: str | None = None
    #: Every newline of a text (CR LF, a CR alone, an LF alone) written CR LF first, as
    #: HTML's form submission normalizes them (``newlines_normalized``).
    crlf: bool = False
    #: The set changes of names only and of values only, for a form serializer
    #: (``left_raw``/``encoded`` with ``part``): added to ``raw``/``encoded`` there.
    raw_names: frozenset[int] = frozenset()
    raw_values: frozenset[int] = frozenset()
    encoded_names: frozenset[int] = frozenset()
    encoded_values: frozenset[int] = frozenset()
    #: ... of the values of pairs whose name is empty only (furl).
    raw_empty_name_values: frozenset[int] = frozenset()
    encoded_empty_name_values: frozenset[int] = frozenset()
    #: How a form serializer writes a space in its names only, or its values only
    #: (``other_set`` with ``part``: the values written with another standard's set),
    #: in place of ``space`` there.
    space_names: str | None = None
    space_values: str | None = None
    #: Where each character above U+007F (a lone surrogate too) is written as itself,
    #: not as its bytes' escapes (``left_raw``'s ``non_ascii``): ``all``, or a form's
    #: ``names`` or ``values``.
    raw_non_ascii: frozenset[str] = frozenset()
    #: What becomes of a lone surrogate of a str input (``lone_surrogates``):
    #: ``dropped`` first, encoded as its ``surrogatepass`` bytes, ``replaced`` by U+FFFD,
    #: ``merged`` with the next code unit (``text.merge_surrogates``), or read as
    #: ``question-mark`` (decode, form-parse).
    surrogates: str | None = None
    #: A bytes input is read as latin-1 text first (``latin1_bytes``).
    bytes_latin1: bool = False
    #: Bytes whose escape ``%HH`` a decoder keeps as it is (``kept_encoded``): a form
    #: parser in its names and values, or in its names only, its values only (``part``).
    kept: frozenset[int] = frozenset()
    kept_names: frozenset[int] = frozenset()
    kept_values: frozenset[int] = frozenset()
    #: The kept escapes are written with uppercase hex digits (``kept_encoded``'s
    #: ``hex="upper"``: mdurl's decode), not as given.
    kept_upper: bool = False
    #: How invalid UTF-8 of a decoded answer is written (``replacement``): a Python
    #: error handler's name (``REPLACEMENT_ERRORS``), or ``latin1``: a decoded answer,
    #: name or value that is not UTF-8 read as latin-1 whole (``latin1_fallback``); the
    #: reference keeps the bytes (decode) or writes U+FFFD per maximal subpart
    #: (form-parse).
    replacement: str | None = None
    #: A decoder reads ``+`` as a space before percent-decoding (``plus_as_space``).
    plus_as_space: bool = False
    #: A decoder reads an escape's two characters as a signed hex number
    #: (``signed_escapes``): ``%+H`` is the byte 0H, ``%-0`` the byte 00.
    signed_escapes: bool = False
    #: A decoder reads ``%uXXXX`` as the UTF-16 code unit XXXX (``percent_u``).
    percent_u: bool = False
    #: A decoder writes each character up to U+00FF as its one byte (``latin1_chars``).
    latin1_chars: bool = False
    #: Each valid ``%hh`` of the input text is uppercased first (``escapes_uppercased``).
    upper_escapes: bool = False
    #: Text encoded with Python's codec of a legacy encoding, errors="xmlcharrefreplace"
    #: (urllib), instead of the WHATWG encoder; the set applies to its bytes.
    python_codec: bool = False
    #: A character the encoding cannot encode, or a lone surrogate, is the byte ``?``
    #: (Python's codec of the encoding's name, errors="replace": ``unmappable_replaced``).
    unmappable: bool = False
    #: Every byte of a character is percent-encoded when one of them is, also an ASCII
    #: byte inside a Shift_JIS character (``whole_characters``: Java's URLEncoder).
    whole_characters: bool = False
    #: A form-parse text without "=" is no form: no pairs (``needs_equals``: "text"),
    #: or each sequence without "=" is dropped ("sequence").
    needs_equals: str = ""
    #: A pair whose name is empty, once decoded and trimmed, is left out
    #: (``empty_pairs("names-dropped")``: ``if name:`` before a mapping is filled).
    empty_names: bool = False
    #: A form parser reads a sequence without "=" (an empty one too) as a value without a
    #: name, answered with the name '' but kept apart from the name '' when grouped: the
    #: null key of .NET's ``NameValueCollection`` (``HttpUtility.ParseQueryString``).
    bare_values: bool = False
    #: One "?" at the start of a form-parse text is dropped first (URL 6.2's
    #: ``URLSearchParams`` constructor does so; .NET's ``ParseQueryString`` too).
    query_mark: bool = False
    #: A form parser reads the HTML character references of the whole text before it
    #: splits it (``html_unescaped``: ``&amp;`` separates pairs), as the ``html5`` or the
    #: ``mono`` decoder reads them (``accept.html_refs``).
    html: str | None = None

    def merge(self, other: Model) -> Model:
        """Both models at once; ``NotModelled`` when they contradict each other."""
        changes: dict[str, Any] = {
            "raw": self.raw | other.raw, "encoded": self.encoded | other.encoded,
            "lowercase_hex": self.lowercase_hex or other.lowercase_hex,
            "semicolon": self.semicolon or other.semicolon, "twice": self.twice or other.twice,
            "twice_plus": self.twice_plus or other.twice_plus,
            "until_stable": self.until_stable or other.until_stable,
            "predecoded": self.predecoded | other.predecoded,
            "plus_kept": self.plus_kept or other.plus_kept,
            **{name: getattr(self, name) or getattr(other, name) for name in _DECODE_PARTS},
            "requote_segments": self.requote_segments or other.requote_segments,
            "requote_kept": self.requote_kept | other.requote_kept,
            "requote_decoded": other.requote_decoded if self.requote_decoded is None
            else self.requote_decoded if other.requote_decoded is None
            else self.requote_decoded | other.requote_decoded,
            "python_codec": self.python_codec or other.python_codec,
            "unmappable": self.unmappable or other.unmappable,
            "whole_characters": self.whole_characters or other.whole_characters,
            "upper_escapes": self.upper_escapes or other.upper_escapes,
            "kept": self.kept | other.kept,
            "kept_names": self.kept_names | other.kept_names,
            "kept_values": self.kept_values | other.kept_values,
            "kept_upper": self.kept_upper or other.kept_upper,
            "bytes_latin1": self.bytes_latin1 or other.bytes_latin1,
            **{name: getattr(self, name) | getattr(other, name) for name in _PARTS},
            "needs_equals": self.needs_equals or other.needs_equals,
            "empty_names": self.empty_names or other.empty_names,
            "bare_values": self.bare_values or other.bare_values,
            "query_mark": self.query_mark or other.query_mark,
            "raw_non_ascii": self.raw_non_ascii | other.raw_non_ascii,
            "plus_as_space": self.plus_as_space or other.plus_as_space,
            "signed_escapes": self.signed_escapes or other.signed_escapes,
            "percent_u": self.percent_u or other.percent_u,
            "latin1_chars": self.latin1_chars or other.latin1_chars,
            "remove": "".join(sorted(set(self.remove + other.remove))),
            "trim": "".join(sorted(set(self.trim + other.trim))),
            "trim_start": "".join(sorted(set(self.trim_start + other.trim_start))),
            "trim_end": "".join(sorted(set(self.trim_end + other.trim_end))),
            "dots": _merged_dots(self.dots, other.dots),
            "trim_names": "".join(sorted(set(self.trim_names + other.trim_names))),
            "trim_values": "".join(sorted(set(self.trim_values + other.trim_values))),
            "cut": "".join(sorted(set(self.cut + other.cut))),
            "crlf": self.crlf or other.crlf,
        }
        written = dict(self.written)
        for code, text in other.written:
            if written.setdefault(code, text) != text:
                raise NotModelled(f"{chr(code)!r} written as {written[code]!r} and {text!r}")
        changes["written"] = tuple(sorted(written.items()))
        for raw, encoded in _OPPOSED:
            both = changes[raw] & changes[encoded]
            if both:
                # One says the character is left raw, the other that it is encoded, in
                # one scope: one of them does not hold here. (A rule found beside an
                # entry in force must not undo it: '%%\uff14a' beside the known fallback
                # encoded('%') was named left_raw('%'), where the fallback is not taken.)
                raise NotModelled(f"{raw} and {encoded}: {''.join(map(chr, sorted(both)))!r}")
        for name in _SINGLE:
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine is not None and theirs is not None and mine != theirs:
                raise NotModelled(f"{name}: {mine!r} and {theirs!r}")
            changes[name] = mine if mine is not None else theirs
        return replace(self, **changes)

    def __hash__(self) -> int:
        # Computed once per model object (its fields never change): a model keys the
        # caches of ``_effective`` on every input a known finding is tried on, and the
        # generated hash walked its fifty fields each time.
        cached = self.__dict__.get("_hash_")
        if cached is None:
            cached = hash(tuple(getattr(self, f.name) for f in fields(self)))
            object.__setattr__(self, "_hash_", cached)
        return cached  # type: ignore[no-any-return]

    def is_identity(self) -> bool:
        return self._facts()[0]

    def _facts(self) -> tuple[bool, bool, bool]:
        """(identity, only structure, only lowercase hex): what depends on the model
        alone, computed once per model object (a campaign renders the same few models
        on every input that diverges: ``checks.known``)."""
        facts = self.__dict__.get("_facts_")
        if facts is None:
            facts = (all(getattr(self, f.name) == f.default for f in fields(self)),
                     _structural(self), self == Model(lowercase_hex=True))
            object.__setattr__(self, "_facts_", facts)
        return facts  # type: ignore[no-any-return]


#: The decoding flags of one part of a form parser's pairs (names or values).
_DECODE_PARTS = ("twice_names", "twice_values", "plus_kept_names", "plus_kept_values")

#: The set fields of one part of a form (names or values).
_PARTS = ("raw_names", "raw_values", "encoded_names", "encoded_values",
          "raw_empty_name_values", "encoded_empty_name_values")

#: Set fields of one scope that say the opposite of each other.
_OPPOSED = (("raw", "encoded"), ("raw_names", "encoded_names"), ("raw_values", "encoded_values"),
            ("raw_empty_name_values", "encoded_empty_name_values"))

#: Fields that are neither set arithmetic nor flags: two entries giving different
#: values for one of them contradict each other.
_SINGLE = ("space", "requote", "order", "empty", "normalize", "surrogates", "replacement",
           "space_names", "space_values", "html")


def reorder(pairs: Iterable[tuple[Any, Any]], mode: str,
            keys: Sequence[bytes] | None = None, values: Sequence[Any] | None = None,
            written: Sequence[str] | None = None) -> list[tuple[Any, Any]]:
    """Pairs ``sorted`` by name (stable), ``sorted-bytes`` by the name's bytes
    (``keys``: each pair's name as bytes before UTF-8 decoding, else its UTF-8),
    ``grouped`` by name in order of first appearance, as a multi-dict keeps them, or
    one per name as a mapping keeps them: ``last-per-name`` the last value where the
    name first came (``dict(pairs)``), ``first-per-name`` the first; ``sorted-`` before
    either: that mapping sorted by name (``dict(sorted(pairs))``, a mapping whose keys
    are kept sorted). ``sorted-pairs``: by name, then value (``sorted(pairs)``; a
    mapping of lists with each list sorted); ``values``: each pair's value where the
    pair is not (name, value). ``sorted-written``: a serializer's, by the text each
    pair is written as (``written``: ``name=value`` encoded; AWS's canonical query
    sorts so)."""
    listed = list(pairs)
    if mode == "sorted-pairs":
        of = list(values) if values is not None else [rest for _, rest in listed]
        order = sorted(range(len(listed)), key=lambda i: (listed[i][0], of[i]))
        return [listed[i] for i in order]
    if mode == "sorted-written":
        if written is None:
            raise NotModelled("pairs sorted as they are written: a serializer's order")
        return [listed[i] for i in sorted(range(len(listed)), key=list(written).__getitem__)]
    if mode.startswith("sorted-") and mode.endswith("-per-name"):
        return reorder(reorder(listed, mode.removeprefix("sorted-")), "sorted")
    if mode in ("last-per-name", "first-per-name"):
        kept: dict[Any, Any] = {}
        for name, rest in listed:
            if mode == "last-per-name" or name not in kept:
                kept[name] = rest  # (a key updated keeps its place)
        return list(kept.items())
    if mode == "sorted":
        return sorted(listed, key=lambda p: p[0])
    if mode == "sorted-bytes":
        return _sorted_by_bytes(listed, keys)
    if mode == GROUPED_INVARIANT:
        return _grouped_invariant(listed)
    first: dict[Any, int] = {}
    for name, _ in listed:
        first.setdefault(name, len(first))
    return sorted(listed, key=lambda p: first[p[0]])


#: ``order``: grouped as .NET's ``NameValueCollection`` groups its keys
#: (``_invariant_key``), each pair answered with its group's first name; a name None (a
#: ``bare_values`` value) is a group of its own.
GROUPED_INVARIANT = "grouped-invariant"

#: The controls and format characters that Mono 6.8.0.105's invariant collation ignores
#: (measured: StringComparer.InvariantCultureIgnoreCase.Equals("a" + c + "b", "ab") over
#: every BMP control and format character; U+0001 and U+200B, say, are not ignored).
_IGNORED = re.compile("[\x00\u06dd\u180e\u200c-\u200f\u202a-\u202e\u206a-\u206f"
                      "\ufeff\ufff9-\ufffb]")


def _invariant_key(name: str) -> str:
    """A name as .NET's StringComparer.InvariantCultureIgnoreCase compares it (the
    default comparer of a ``NameValueCollection``), approximately: canonically
    decomposed, the ``_IGNORED`` characters removed, case folded ('\u00df' is 'ss').
    Mono's collation table ignores more (7,175 BMP code points, letters it does not know
    among them: a real bug, docs/in-the-wild.md) and keeps some canonical singletons
    apart (U+212A KELVIN SIGN from 'K'); names it groups otherwise stay findings."""
    return _IGNORED.sub("", unicodedata.normalize("NFD", name)).casefold()


def _grouped_invariant(pairs: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    groups: dict[Any, tuple[Any, list[Any]]] = {}
    for name, rest in pairs:
        # (the empty name is a key of its own: Mono groups '\x00' with '\x00\x00' and
        # 'a' with 'a\x00', never '' with '\x00', measured)
        key = None if name is None else (name == "", _invariant_key(name))
        groups.setdefault(key, (name, []))[1].append(rest)
    return [(name, rest) for name, values in groups.values() for rest in values]


def _sorted_by_bytes(pairs: list[tuple[Any, Any]],
                     keys: Sequence[bytes] | None) -> list[tuple[Any, Any]]:
    """Stably sorted by each name's bytes: ``keys`` when given (a parser's decoded
    bytes, where invalid UTF-8 still differs: 80 before C3 A9, though U+FFFD sorts
    after U+00E9), else the name's UTF-8 (a serializer's: the same order as its code
    points). Go sorts a map's string keys, which are bytes."""
    if keys is None:
        keys = [n if isinstance(n, bytes) else n.encode("utf-8", "surrogatepass")
                for n, _ in pairs]
    order = sorted(range(len(pairs)), key=keys.__getitem__)
    return [pairs[i] for i in order]


# --- 1. input transforms -------------------------------------------------------------------
def _text(model: Model, text: Any) -> Any:
    if isinstance(text, bytes) and model.bytes_latin1:
        text = text.decode("latin-1")
    if isinstance(text, bytes):
        if model.normalize or model.crlf or model.dots:
            raise NotModelled("normalization of bytes")
        chars = model.remove.encode("ascii", "ignore")  # (U+0085 is no byte 85)
        if chars:
            text = bytes(b for b in text if b not in chars)
        if model.trim:
            text = text.strip(model.trim.encode("ascii", "ignore"))
        if model.trim_start:
            text = text.lstrip(model.trim_start.encode("ascii", "ignore"))
        if model.trim_end:
            text = text.rstrip(model.trim_end.encode("ascii", "ignore"))
        text = _cut(text, model.cut.encode("latin-1")) if model.cut else text
        return _upper_escapes(text) if model.upper_escapes else text
    if model.surrogates == "dropped":
        text = strip_lone_surrogates(text)
    elif model.surrogates == "replaced":
        text = surrogates_to_fffd(text)
    elif model.surrogates == "merged" and has_lone_surrogate(text):
        text = merge_surrogates(text)
    elif model.surrogates == "question-mark":
        text = LONE_SURROGATE.sub("?", text)
    if model.remove:
        text = "".join(c for c in text if c not in model.remove)
    if model.trim:
        text = text.strip(model.trim)
    if model.trim_start:
        text = text.lstrip(model.trim_start)
    if model.trim_end:
        text = text.rstrip(model.trim_end)
    if model.cut:
        text = _cut(text, model.cut)
    if model.dots:
        text = resolved_dots(text, escaped=model.dots.startswith("escaped"),
                             past_root=model.dots.endswith("past-root"))
    if model.normalize:
        text = unicodedata.normalize(model.normalize, text)  # type: ignore[arg-type]
    if model.crlf:
        text = _NEWLINE.sub("\r\n", text)
    return _upper_escapes(text) if model.upper_escapes else text


def _merged_dots(one: str, other: str) -> str:
    """Two ``dots`` modes as one: escaped where either is (it resolves what "raw" does),
    past the root where either is ("" where both are)."""
    if not one or not other:
        return one or other
    both = (one, other)
    return ("escaped" if any(m.startswith("escaped") for m in both) else "raw") \
        + (" past-root" if any(m.endswith("past-root") for m in both) else "")


def resolved_dots(path: str, *, escaped: bool, past_root: bool = False) -> str:
    """``path`` with its dot segments resolved, RFC 3986 5.2.4's remove_dot_segments on
    its '/'-separated segments: a ``.`` dropped, a ``..`` dropping the segment before it
    (never the empty first one of an absolute path), either of them last leaving the
    path ending in '/'. ``escaped``: ``%2e`` in either case is a dot there too (URL
    Standard 4.4, the single-dot and double-dot URL path segments). ``past_root``: the
    empty first segment is one like the others (the path resolved below a root of the
    implementation's own, and answered without it: ``/../b`` as ``b``)."""
    segments = path.split("/")
    kept: list[str] = []
    for index, segment in enumerate(segments):
        double = is_double_dot_segment(segment) if escaped else segment == ".."
        if not double and not (is_single_dot_segment(segment) if escaped else segment == "."):
            kept.append(segment)
            continue
        if double and kept and (past_root or kept != [""]):
            kept.pop()
        if index == len(segments) - 1:
            kept.append("")
    return "/".join(kept)


#: A newline as HTML's "normalize newlines" reads it: CR LF, a lone CR, a lone LF.
_NEWLINE = re.compile("\r\n|\r|\n")


def _upper_escapes(text: Any) -> Any:
    """Every valid ``%hh`` of ``text`` with uppercase hex digits (urllib3's
    ``_encode_invalid_chars`` "normalizes existing percent-encoded bytes" before it
    decides whether its ``%`` are escapes or data)."""
    pattern = ESCAPE_BYTES if isinstance(text, bytes) else PERCENT_ENCODED_BYTE
    return pattern.sub(lambda m: m.group().upper(), text)


def _cut(text: Any, chars: Any) -> Any:
    """``text`` up to its first character of ``chars`` (after removing and trimming,
    as a URL parser splits only once it has done both, WHATWG URL 4.4)."""
    ends = [i for i in (text.find(chars[k:k + 1]) for k in range(len(chars))) if i >= 0]
    return text[:min(ends)] if ends else text


#: ``surrogates`` modes that change the input text (``surrogatepass`` is the encoder's).
_INPUT_SURROGATES = ("dropped", "replaced", "merged", "question-mark")


def read_input(model: Model, case: Case) -> Case:
    """The input the model says the implementation reads (its input transforms: step
    1 of the module docstring); ``case`` itself when it has none."""
    return _input(model, case)


def _input(model: Model, case: Case) -> Case:
    if not (model.remove or model.trim or model.trim_start or model.trim_end or model.cut
            or model.dots or model.normalize
            or model.upper_escapes or model.crlf
            or model.surrogates in _INPUT_SURROGATES or model.bytes_latin1):
        return case
    if isinstance(case, EncodeCase):
        return replace(case, value=_text(model, case.value))
    if isinstance(case, DecodeCase):
        return replace(case, value=_text(model, case.value))
    if isinstance(case, FormCase):
        return replace(case, pairs=tuple((_text(model, n), _text(model, v))
                                         for n, v in case.pairs))
    assert isinstance(case, FormParseCase)
    return replace(case, text=_text(model, case.text))


# --- 2-3. the effective set and text rewrites ----------------------------------------------
_VALID_TRIPLET = PERCENT_ENCODED_BYTE
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


@functools.lru_cache(maxsize=512)
def _effective(model: Model, base: PercentEncodeSet, plus: bool,
               part: str = "") -> tuple[PercentEncodeSet, bool]:
    """The set the model encodes with (for ``part``, ``names`` or ``values`` of a form:
    with that part's own changes too) and whether a space is written ``+``."""
    members = (base.members | model.encoded) - model.raw
    space = model.space
    raw = model.raw
    for each in part.split():  # "values empty-name-values": both parts' changes
        field = each.replace("-", "_")
        members = (members | getattr(model, f"encoded_{field}")) - getattr(model, f"raw_{field}")
        space = getattr(model, f"space_{field}", None) or space
        raw = raw | getattr(model, f"raw_{field}")
    if 0x20 in raw:  # a space left raw (``left_raw(" ")``) is written as itself
        members, plus = members - {0x20}, False
    elif space == "+":
        plus = plus or 0x20 in members
    elif space == "%20":
        members, plus = members | {0x20} if plus else members, False
    if members == base.members:
        return base, plus
    return PercentEncodeSet(f"{base.name} (adjusted)", members, base.source,
                            base.space_as_plus), plus


def _escape(triplet: str, mode: str, pes: PercentEncodeSet,
            decoded: frozenset[str] | None = None) -> str:
    """How ``requoted(mode)`` writes one valid escape; ``decoded``: what ``decode-safe``
    decodes, by what it means (``decoded_meaning``), None or "all" for all."""
    byte = int(triplet[1:], 16)
    if mode == "keep":
        return triplet
    if mode in ("decode-unreserved", "normalize") and byte in _UNRESERVED:
        return chr(byte)
    if mode == "decode-unreserved":
        return triplet
    if mode == "decode-safe" and byte not in pes and (
            decoded is None or "all" in decoded or raw_meaning(chr(byte)) in decoded):
        return chr(byte)
    return triplet.upper()


def _codec(model: Model, encoding: str) -> tuple[str | None, str]:
    """Python's codec and error handler the model encodes text with, if not the WHATWG
    encoder: ``python_codec`` (NCRs), ``unmappable`` ('?', UTF-8 too)."""
    if model.unmappable:
        codec = "utf-8" if lookup(encoding).is_utf8 else python_codec_name(encoding)
        if codec is None:
            raise NotModelled(f"no Python codec for {encoding}")
        return codec, "replace"
    return (python_codec_name(encoding) if model.python_codec else None), "xmlcharrefreplace"


#: A run of characters above U+007F (``Model.raw_non_ascii``), as ``re.split`` keeps it.
_NON_ASCII_RUN = re.compile("([^\x00-\x7f]+)")


def _encode(model: Model, value: str | bytes, pes: PercentEncodeSet, encoding: str,
            plus: bool, non_ascii_raw: bool = False) -> str:
    """``value`` encoded as the model says, with the set ``pes``; ``non_ascii_raw``:
    each character above U+007F written as itself (``Model.raw_non_ascii``)."""
    codec, errors = _codec(model, encoding)

    def encode(part: str | bytes, plus: bool) -> str:
        if model.surrogates == "surrogatepass" and isinstance(part, str) \
                and has_lone_surrogate(part):
            if not lookup(encoding).is_utf8:
                raise NotModelled("surrogatepass bytes in a legacy encoding")
            part = part.encode("utf-8", "surrogatepass")
        if codec is not None and isinstance(part, str):
            return percent_encode(part.encode(codec, errors), pes, space_as_plus=plus)
        # A lone surrogate left is U+FFFD, as the non-scalar policy holds the answer to
        # (checks.differential): the model answers the USVString.
        return percent_encode(part, pes, encoding=encoding, space_as_plus=plus,
                              surrogates="replace")

    def run(part: str | bytes, plus: bool = plus) -> str:
        if non_ascii_raw and isinstance(part, str) and not part.isascii():
            # (each run of them as itself, what is between as the set says)
            return "".join(piece if index % 2 else run(piece, plus)
                           for index, piece in enumerate(_NON_ASCII_RUN.split(part)))
        if model.written:  # (each character written so splits the text it is in)
            return _written(model.written, part, lambda piece: run_plain(piece, plus))
        return run_plain(part, plus)

    def run_plain(part: str | bytes, plus: bool) -> str:
        if model.whole_characters and isinstance(part, str):
            out = "".join(_whole(encode(char, plus)) for char in part)
        else:
            out = encode(part, plus)
        return _lower_hex(out) if model.lowercase_hex else out

    if model.lowercase_hex and 0x25 not in pes.members and not model.requote \
            and _has_upper_escape(value):
        if not isinstance(value, str):
            raise NotModelled("an escape of the input with uppercase hex digits, kept raw")
        # The set keeps the input's "%4A": lowercase hex is the escapes the encoder
        # writes, so the input's are kept as they are (an encoder that lowercases those
        # too changes the input: another finding). Refused before, such inputs were named
        # requoted(keep) beside the lowercase finding ('\n%aA' in the c0-control set).
        model = replace(model, requote="keep")
    if not model.requote or not isinstance(value, str):
        return run(value)
    if model.requote_kept:  # (each part requoted on its own, the kept escapes between)
        within = replace(model, requote_kept=frozenset())
        kept = re.compile("|".join(f"%{code:02X}" for code in sorted(model.requote_kept)),
                          re.IGNORECASE)
        parts = kept.split(value)
        escapes = [m.group().upper() for m in kept.finditer(value)]
        return "".join(_encode(within, part, pes, encoding, plus, non_ascii_raw) + (
            escapes[i] if i < len(escapes) else "") for i, part in enumerate(parts))
    if model.requote_segments:
        within = replace(model, requote_segments=False)
        slash = PercentEncodeSet(f"{pes.name} and '/'", pes.members | {0x2F}, pes.source,
                                 pes.space_as_plus)
        return "/".join(_encode(within, segment, slash, encoding, plus, non_ascii_raw)
                        if _valid_encoded(segment, pes) else run(segment)
                        for segment in value.split("/"))
    if model.requote == "decode-utf8":
        return decode_utf8_again(value, run, model.requote_decoded)
    out: list[str] = []
    pos = 0
    for match in _VALID_TRIPLET.finditer(value):
        out += [run(value[pos:match.start()]), _escape(match.group(), model.requote, pes,
                                                            model.requote_decoded)]
        pos = match.end()
    out.append(run(value[pos:]))
    return "".join(out)


def _written(written: tuple[tuple[int, str], ...], part: str | bytes,
             encode: Callable[[str | bytes], str]) -> str:
    """``part`` encoded with each character of ``written`` as its text, the text
    between them encoded as ``encode`` does (``written_as``)."""
    texts = dict(written)
    out: list[str] = []
    start = 0
    codes = list(part) if isinstance(part, bytes) else list(map(ord, part))
    for index, code in enumerate(codes):
        text = texts.get(code)
        if text is not None:
            out += [encode(part[start:index]), text]
            start = index + 1
    out.append(encode(part[start:]))
    return "".join(out)


_HEX_OF_TRIPLET = re.compile("%([0-9A-F]{2})")
_UPPER_ESCAPE = re.compile(f"%(?:[A-F]{HEX_DIGIT}|{HEX_DIGIT}[A-F])")


def _has_upper_escape(value: str | bytes) -> bool:
    """``value`` holds a valid escape with an uppercase hex digit (``%4A``, ``%Ab``)."""
    text = value if isinstance(value, str) else value.decode("latin-1")
    return "%" in text and _UPPER_ESCAPE.search(text) is not None


def _lowercase_encoding(case: EncodeCase, text: str) -> str:
    """``text``, the reference's encoding of ``case``, with every ``%HH`` in lowercase
    hex digits. A campaign renders it on every input an encoder writing lowercase shows
    (``checks.known``): UTF-8 text and bytes are encoded again with lowercase tables, in
    the reference's time (rewriting each triplet of a long output cost three times as
    much); a legacy encoding, or text the policy compares as U+FFFD, is rewritten."""
    value = case.value
    if isinstance(value, str) and (case.encoding == "utf-8" or lookup(case.encoding).is_utf8):
        try:
            value = value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: ``text`` has it as U+FFFD
            return _lower_hex(text)
    if isinstance(value, bytes):
        return encode_bytes_lowercase(value, case.set_name, case.space_as_plus)
    return _lower_hex(text)


def _lower_hex(text: str) -> str:
    """Every ``%HH`` of ``text`` with lowercase hex digits (a split, not a callback per
    match)."""
    parts = _HEX_OF_TRIPLET.split(text)
    parts[1::2] = ["%" + digits.lower() for digits in parts[1::2]]
    return "".join(parts)


def _whole(piece: str) -> str:
    """One character as encoded, every byte as ``%XY`` when one of them is (``%84A``,
    Shift_JIS 'Б', as ``%84%41``)."""
    if "%" not in piece or piece.startswith("%26%23") or not _RAW_BESIDE_ESCAPE.search(piece):
        return piece  # (an unencodable character's &#N; is not its bytes)
    return "".join(f"%{byte:02X}" for byte in percent_decode(piece))


#: A character written as an escape and a raw byte (the raw byte is not '+', a space).
_RAW_BESIDE_ESCAPE = re.compile(f"(?:{PERCENT_ENCODED_BYTE.pattern})+[^%+]|[^%+](?=%)")


def _valid_encoded(segment: str, pes: PercentEncodeSet) -> bool:
    """Only letters, digits, '_', the set's raw ASCII characters and valid escapes
    (furl's ``is_valid_encoded_path_segment``, whose letters and digits are Unicode)."""
    return all(c.isalnum() or c == "_" or (c.isascii() and ord(c) not in pes.members
                                           and c != "%")
               for c in PERCENT_ENCODED_BYTE.sub("", segment))


def python_codec_name(label: str) -> str | None:
    """The Python codec a user would pass for a legacy encoding (its standard name if
    Python knows it, else the codec ``pctfuzz._internal.encoding`` builds on); None for UTF-8 or
    when Python has none."""
    found = lookup(label)
    if found.is_utf8:
        return None
    for candidate in (found.name, found.codec):
        if candidate is not None:
            try:
                codecs.lookup(candidate)
            except LookupError:
                continue
            return candidate
    return None


def _parse(model: Model, text: str | bytes) -> list[tuple[str, str]]:
    def has_equals(part: str | bytes) -> bool:
        return b"=" in part if isinstance(part, bytes) else "=" in part

    if model.query_mark and text[:1] in ("?", b"?"):
        text = text[1:]
    if model.html:
        if not isinstance(text, str):
            raise NotModelled("HTML references of bytes")
        text = html_unescape(text, model.html)
    if not text:  # (no sequence, not even an empty one: every parser answers none)
        return []
    if model.predecoded:
        text = predecode(text, model.predecoded)
    if model.needs_equals == "text" and not has_equals(text):
        return []
    separators = "&;" if model.semicolon else "&"
    if isinstance(text, bytes):
        sequences: list[Any] = re.split(f"[{separators}]".encode(), text)
    else:
        sequences = re.split(f"[{separators}]", text)
    # A name None is a ``bare_values`` value's (answered '', grouped apart from it).
    pairs: list[tuple[str | None, str]] = []
    keys: list[bytes] = []  # each pair's name as decoded bytes, for ``sorted-bytes``
    kept_names, kept_values = model.kept | model.kept_names, model.kept | model.kept_values
    if (kept_names or kept_values) and model.kept_upper:
        raise NotModelled("a form parser's kept escapes in uppercase")
    if model.twice_plus and model.order == "sorted-bytes":
        raise NotModelled("names decoded twice, '+' as a space, sorted by their bytes")
    for index, sequence in enumerate(sequences):
        if sequence and (kept_names or kept_values):  # (before a '+' is written %2B)
            sequence = _escapes_kept(sequence, kept_names, kept_values)
        if sequence and (model.plus_kept or model.plus_kept_names
                         or model.plus_kept_values):  # '+' as its own escape
            sequence = _plus_kept(sequence, model.plus_kept or model.plus_kept_names,
                                  model.plus_kept or model.plus_kept_values)
        if sequence and model.needs_equals == "sequence" and not has_equals(sequence):
            continue
        if sequence and model.bare_values and not has_equals(sequence):
            pairs.append((None, _part_with(model, sequence)))
            keys.append(b"")
        elif sequence:
            pairs += [_pair_with(model, sequence)] if _decodes_own_way(model) \
                else form_urldecode(sequence)
            keys.append(_name_bytes(sequence, model.twice or model.twice_names)
                        if model.order == "sorted-bytes" else b"")
        elif model.empty == "kept" or (model.empty == "kept-but-last"
                                       and index < len(sequences) - 1) or (
                model.empty == "kept-but-trailing" and any(sequences[index + 1:])):
            pairs.append((None if model.bare_values else "", ""))
            keys.append(b"")
    names_twice, values_twice = model.twice or model.twice_names, \
        model.twice or model.twice_values
    if names_twice or values_twice:
        pairs = [(decode_again(n, model.twice_plus) if names_twice and n is not None else n,
                  decode_again(v, model.twice_plus) if values_twice else v)
                 for n, v in pairs]
    if model.empty == "dropped":  # (as parsed: a value trimmed empty after is kept)
        keys = [k for k, p in zip(keys, pairs, strict=True) if p[1]]
        pairs = [p for p in pairs if p[1]]
    if model.trim_names or model.trim_values:  # (str.strip("") strips nothing)
        pairs = [(n if n is None else n.strip(model.trim_names), v.strip(model.trim_values))
                 for n, v in pairs]
    if model.empty_names:  # (as trimmed: a name of spaces stripped is empty)
        keys = [k for k, p in zip(keys, pairs, strict=True) if p[0]]
        pairs = [p for p in pairs if p[0]]
    if model.order != GROUPED_INVARIANT:  # (the null name is '' to every other order)
        pairs = [("" if name is None else name, value) for name, value in pairs]
    if model.order:
        pairs = reorder(pairs, model.order, keys)
    return [("" if name is None else name, value) for name, value in pairs]


def _escapes_kept(sequence: Any, names: frozenset[int], values: frozenset[int]) -> Any:
    """``sequence`` with each escape ``%HH`` of a byte of ``names`` in its name (before
    the first ``=``), and of ``values`` in its value, written ``%25HH``: decoded to
    itself, in the hex case it was given."""
    def keep(part: Any, kept: frozenset[int]) -> Any:
        if not kept:
            return part
        if isinstance(part, bytes):
            return ESCAPE_BYTES.sub(lambda m: b"%25" + m.group()[1:]
                                     if int(m.group()[1:], 16) in kept else m.group(), part)
        return PERCENT_ENCODED_BYTE.sub(lambda m: "%25" + m.group()[1:]
                                if int(m.group()[1:], 16) in kept else m.group(), part)

    name, sep, value = sequence.partition("=" if isinstance(sequence, str) else b"=")
    return keep(name, names) + sep + keep(value, values)


def _plus_kept(sequence: Any, names: bool, values: bool) -> Any:
    """``sequence`` with each ``+`` of its name (before the first ``=``), of its value,
    or both, written ``%2B``: decoded to itself."""
    equals, plus, escape = ("=", "+", "%2B") if isinstance(sequence, str) else \
        (b"=", b"+", b"%2B")
    name, sep, value = sequence.partition(equals)
    return (name.replace(plus, escape) if names else name) + sep + \
        (value.replace(plus, escape) if values else value)


def _name_bytes(sequence: str | bytes, twice: bool) -> bytes:
    """A sequence's name as the parser's bytes, before UTF-8 decoding (URL 5.1 step 3)."""
    if isinstance(sequence, str):
        data = percent_decode(sequence.partition("=")[0].replace("+", " "))
    else:
        data = percent_decode(sequence.partition(b"=")[0].replace(b"+", b" "))
    return percent_decode(data) if twice else data


def _decodes_own_way(model: Model) -> bool:
    """The model decodes a form's names and values otherwise than URL 5.1 (``_part_with``)."""
    return bool(model.replacement or model.percent_u or model.latin1_chars)


def _pair_with(model: Model, sequence: str | bytes) -> tuple[str, str]:
    """One sequence as WHATWG URL 5.1 parses it, its name and value each decoded as
    ``_part_with`` says."""
    if isinstance(sequence, str):
        name, _, value = sequence.partition("=")
        return _part_with(model, name), _part_with(model, value)
    name_bytes, _, value_bytes = sequence.partition(b"=")
    return _part_with(model, name_bytes), _part_with(model, value_bytes)


def _part_with(model: Model, part: str | bytes) -> str:
    """A name or value as URL 5.1 step 3.3-3.4 decodes it (``+`` a space, percent-decoded,
    UTF-8 decoded), but with the model's decoder: ``%uXXXX`` escapes (``percent_u``),
    code units below 256 as their byte (``latin1_chars``), invalid UTF-8 as its
    ``replacement`` mode writes it (one U+FFFD per maximal subpart without)."""
    if isinstance(part, str):
        text: str | bytes = part
        if model.percent_u:
            text = u_escapes_as_utf8(text, model.latin1_chars)
        if model.latin1_chars:
            text = latin1_chars_escaped(text)
        assert isinstance(text, str)
        part = to_scalar_value_string(text, "replace").encode("utf-8")
    return utf8_decoded(percent_decode(part.replace(b"+", b" ")),
                        model.replacement or "per-sequence")


def _grouped_by_bytes(model: Model, text: str | bytes,
                      pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``pairs`` (``_parse``'s) grouped by each name's percent-decoded bytes, before
    the UTF-8 decode: a dict keyed by bytes (tornado's ``parse_qs_bytes``) keeps
    ``%80`` and ``%A0`` apart, though both names decode to U+FFFD."""
    if model.twice or model.twice_names or model.twice_values or model.semicolon \
            or model.empty_names or model.empty in ("kept", "kept-but-last",
                                                         "kept-but-trailing"):
        raise NotModelled("grouped-bytes with another structure")
    data = text if isinstance(text, bytes) else \
        to_scalar_value_string(text, "replace").encode("utf-8")
    keys = [name for name, _ in form_urldecode_bytes(data)]
    if len(keys) != len(pairs):
        raise NotModelled("a sequence that is not one pair")
    keyed = [(key, pair) for key, pair in zip(keys, pairs, strict=True)
             if model.empty != "dropped" or pair[1]]
    return [pair for _, pair in reorder(keyed, "grouped")]


def _structural(model: Model) -> bool:
    """Only the structure of the result changes: the model can reshape the answer it
    is given (one that an entry written as code made) instead of answering afresh."""
    return model == Model(order=model.order, empty=model.empty, empty_names=model.empty_names) \
        and model.empty not in ("kept", "kept-but-last", "kept-but-trailing") \
        and model.order not in ("sorted-bytes", "grouped-bytes",  # the input's bytes
                                GROUPED_INVARIANT)  # (the bare values' null name)


def _kept_pairs(model: Model, items: list[Any], pair_of: Callable[[Any], Any]) -> list[Any]:
    """``items`` without those whose (name, value) pair (``pair_of``) the model leaves
    out: an empty value (``empty_pairs("dropped")``), an empty name
    (``empty_pairs("names-dropped")``). A parser's own order of the two, around its
    trims, is ``_parse``'s."""
    return [item for item in items
            if (model.empty != "dropped" or pair_of(item)[1])
            and (not model.empty_names or pair_of(item)[0])]


def _reshape(model: Model, check: str, case: Case, current: Any) -> Any:
    if check == FORM_PARSE.name and isinstance(current, list):
        pairs = list(current)
    elif check == FORM_SERIALIZE.name and isinstance(case, FormCase) and isinstance(current, str):
        # The serializer writes one "&"-separated segment per pair, in list order.
        segments = current.split("&") if case.pairs else []
        if len(segments) != len(case.pairs):
            raise NotModelled("the answer's segments are not the case's pairs")
        keyed = [(name, (value, seg)) for (name, value), seg
                 in zip(case.pairs, segments, strict=True)]
        keyed = _kept_pairs(model, keyed, lambda k: (k[0], k[1][0]))
        if model.order:
            keyed = reorder(keyed, model.order, values=[v for _, (v, _) in keyed],
                            written=[seg for _, (_, seg) in keyed])
        return "&".join(seg for _, (_, seg) in keyed)
    else:
        raise NotModelled(f"{check}: no answer to reshape")
    keys = _names_as_parsed(case, len(pairs)) if model.order == "grouped" else None
    keyed = _kept_pairs(model, list(zip(keys or [name for name, _ in pairs], pairs, strict=True)),
                        lambda k: k[1])
    if model.order:
        keyed = reorder(keyed, model.order, values=[pair[1] for _, pair in keyed])
    return [pair for _, pair in keyed]


def _names_as_parsed(case: Case, count: int) -> list[str] | None:
    """The names a parser that keeps lone surrogates groups by: a kept U+D800 is no
    U+FFFD (Django's QueryDict groups U+D800 apart from ``%FF``, then the non-scalar
    policy compares both as U+FFFD). Each lone surrogate stands for a private-use
    character of plane 15 while the reference parses; None when the text holds none."""
    text = getattr(case, "text", None)
    if not isinstance(text, str) or not has_lone_surrogate(text):
        return None
    marked = "".join(chr(0xF0000 + ord(c) - 0xD800) if 0xD800 <= ord(c) <= 0xDFFF else c
                     for c in text)
    names = [name for name, _ in form_urldecode(marked)]
    return names if len(names) == count else None


def render(model: Model, check: str, case: Case, current: Any = None) -> Any:
    """The model's answer to ``check`` on ``case`` (module docstring); ``NotModelled``
    when it has none. ``current`` is the answer so far (the reference's, or an entry's
    written as code): a model that only changes structure reshapes it."""
    identity, structural, lowercase_only = model._facts()
    if current is not None and identity:
        return current
    if current is not None and structural:
        return _reshape(model, check, case, current)
    if current is not None and check == ENCODE.name and lowercase_only \
            and isinstance(case, EncodeCase) and isinstance(current, str):
        # Only the reference's own ``%HH`` rewritten: no need to encode again. (A raw
        # ``%`` the set leaves raw would look like one: ``_encode`` refuses that.)
        raw_pct = "%" in case.value if isinstance(case.value, str) else b"%" in case.value
        if not (raw_pct and 0x25 not in get_set(case.set_name).members):
            return _lowercase_encoding(case, current)
    case = _input(model, case)
    if isinstance(case, EncodeCase) and check == ENCODE.name:
        pes, plus = _effective(model, get_set(case.set_name), case.space_as_plus)
        return _encode(model, case.value, pes, case.encoding, plus,
                       "all" in model.raw_non_ascii)
    if isinstance(case, FormCase) and check == FORM_SERIALIZE.name:
        pes, plus = _effective(model, FORM, True, "names")
        # A value's set: with the changes of values, and of values after an empty name.
        of_values = {named: _effective(model, FORM, True, "values" if named else
                                       "values empty-name-values") for named in (False, True)}
        pairs = _kept_pairs(model, list(case.pairs), lambda p: p)
        if model.order and model.order != "sorted-written":
            pairs = reorder(pairs, model.order)
        out = []
        raw_names = bool(model.raw_non_ascii & {"all", "names"})
        raw_values = bool(model.raw_non_ascii & {"all", "values"})
        for name, value in pairs:
            value_set, value_plus = of_values[bool(name)]
            out.append(_encode(model, name, pes, case.encoding, plus, raw_names) + "="
                       + _encode(model, value, value_set, case.encoding, value_plus,
                                 raw_values))
        if model.order == "sorted-written":  # (reorder's: by the text written)
            out.sort()
        return "&".join(out)
    if isinstance(case, DecodeCase) and check == DECODE.name:
        encoded: str | bytes = case.value
        if model.signed_escapes:  # (before '+' as a space: the '+' of %+1 is a sign)
            encoded = unsigned(encoded)
        if model.percent_u:  # (written as escapes: %u002B stays a '+', not a space)
            encoded = u_escapes_as_utf8(encoded, model.latin1_chars)
        if model.latin1_chars:
            encoded = latin1_chars_escaped(encoded)
        if model.plus_as_space:  # URL 5.1 step 3.3, before percent-decoding
            encoded = encoded.replace(b"+", b" ") if isinstance(encoded, bytes) else \
                encoded.replace("+", " ")
        data = decode_keeping(encoded, model.kept, model.kept_upper) if model.kept else \
            percent_decode(encoded)
        data = percent_decode(data) if model.twice else data
        if model.until_stable:
            data = decoded_until_stable(data)
        if model.replacement:  # the answer is text: written back as UTF-8
            return utf8_decoded(data, model.replacement).encode("utf-8", "surrogatepass")
        return data
    if isinstance(case, FormParseCase) and check == FORM_PARSE.name:
        if model.order == "grouped-bytes":  # keyed by the names' bytes, as parsed
            undropped = replace(model, order=None,
                                empty=None if model.empty == "dropped" else model.empty)
            return _grouped_by_bytes(model, case.text, _parse(undropped, case.text))
        return _parse(model, case.text)
    raise NotModelled(f"{check} on a {type(case).__name__}")
