"""Your accepted differences: declare what your library does differently, exactly.

An entry is a ``KnownDivergence``, the type of the built-in registry
(``pctfuzz divergences`` lists it), so the differential check reconciles it with the same
machinery. Declare entries in either place:

- the adapter's ``divergences`` attribute, a sequence of entries built with
  ``divergence(...)``; they apply to that adapter (an entry's ``impl`` defaults to the
  adapter's name; another of its ``registry_names`` may be given);
- ``--accept FILE`` (``fuzz``, ``replay``, ``divergences``): a TOML file (entries name a
  ready-made reconciler, with parameters), a ``.py`` file or a dotted module name whose
  ``divergences`` attribute is such a sequence (``[tool.pctfuzz] accept`` names it
  for every command).

Every entry has an ``id``, a ``citation``, a ``why`` and a pinned ``example`` that must
still diverge: ``pctfuzz divergences --impl MOD:CLASS --check`` runs each example and
exits 1 if one no longer diverges or is not accepted.

Ready-made reconcilers (each accepts its exact difference and nothing more):

=============================  ========================  ====================================
``left_raw(CHARS)``            encode, form              CHARS written as themselves where
                                                         the reference writes ``%HH``
``encoded(CHARS)``             encode, form              CHARS also written as ``%HH``
``left_raw(CHARS, PART)``      form                      the same in the form's ``names``,
``encoded(CHARS, PART)``                                 its ``values``, or the values of
                                                         empty names only
                                                         (``empty-name-values``)
``space_as("%20" | "+")``      encode, form              what the implementation writes
                                                         for a space
``lowercase_hex()``            encode, form              ``%hh`` in lowercase
``both_refuse(TYPES)``         any                       the reference refuses and the
                                                         implementation raises one of TYPES
``requoted(MODE)``             encode                    an existing valid ``%HH`` of the
                                                         input is an escape, not data
                                                         (``scope="segments"``: per '/'
                                                         segment, furl's path)
``pairs_order(MODE)``          form, form-parse          pairs ``grouped`` or ``sorted``
                                                         by name (multi-dicts), or
                                                         ``grouped-bytes`` (form-parse),
                                                         ``sorted-bytes`` (a parser's,
                                                         by the names' bytes: Go)
``empty_pairs(MODE)``          form, form-parse          pairs with an empty value
                                                         ``dropped``; empty sequences
                                                         ``kept`` as ("", "") (form-parse),
                                                         ``kept-but-last`` (Ruby) or
                                                         ``kept-but-trailing`` (Perl)
``needs_equals(SCOPE)``        form-parse                a text without ``=`` has no
                                                         pairs (Perl's query_form;
                                                         ``scope`` left out: ``text``);
                                                         ``sequence``: each sequence
                                                         without ``=`` dropped
``names_mangled(STYLE)``       form-parse                names made ``php`` variables
                                                         (parse_str: '.' and ' ' as '_')
``plus_as_space()``            decode                    ``+`` decoded as a space (after
                                                         ``replacement``, if both)
``signed_escapes()``           decode                    ``%+H`` the byte 0H, ``%-0`` NUL
                                                         (Java's URLDecoder)
``latin1_fallback()``          decode, form-parse        invalid UTF-8 decoded as latin-1
                                                         (``scope="always"``: every escape;
                                                         ``"answer"``: every byte, raw too)
``latin1_bytes()``             decode, form-parse        raw bytes read as latin-1 text
``truncated(N)``               any                       the answer stops after N
``prefixed(TEXT)``             encode, decode, form      TEXT written before the answer
``suffixed(TEXT)``             encode, decode, form      TEXT written after the answer
``removed(CHARS)``             any                       CHARS removed from the input
``trimmed(CHARS)``             any                       CHARS stripped from its ends
``cut_at(CHARS)``              any                       the input up to its first of
                                                         CHARS (``#``, ``?``, NUL, a
                                                         ``:`` ending a user name...)
``normalized(FORM)``           encode, form              NFC/NFKC/NFD/NFKD first
``normalized_escaped(FORM)``   encode                    the escaped text normalized, then
                                                         non-ASCII encoded (Java's URI)
``decoded_twice()``            decode, form-parse        percent-decoded twice
``semicolon_separates()``      form-parse                ``;`` separates pairs too
``plus_kept()``                form-parse                ``+`` read as itself, not a space
``replacement(MODE)``          decode, form-parse        text: U+FFFD ``per-byte`` or
                                                         ``per-sequence`` of invalid UTF-8,
                                                         it ``percent-encoded``,
                                                         ``dropped``, the input
                                                         ``undecoded`` (decode), or
                                                         ``low-byte`` (Node's fallback;
                                                         ``low-byte-shared-scan``:
                                                         querystring.parse)
``ncr_unescaped()``            encode                    ``&#N;`` for an unencodable code
                                                         point, percent-encoded by the set
``python_codec()``             encode, form              Python's codec of a legacy
                                                         encoding (xmlcharrefreplace)
``escapes_uppercased()``       encode, form              each ``%hh`` of the input
                                                         uppercased first, also where
                                                         its ``%`` is data
``kept_encoded(CHARS)``        decode, form-parse        escapes of CHARS not decoded
                                                         (``hex="upper"``: written in
                                                         uppercase)
``lone_surrogates(MODE)``      any (``surrogatepass``,   a lone surrogate ``dropped``,
                               ``replaced``,             its ``surrogatepass`` bytes,
                               ``merged``: encode,       U+FFFD, ``merged`` with the
                               form; ``question-mark``:  next code unit (Node's escape),
                               decode, form-parse)       or read as ``?``
``unmappable_replaced()``      encode, form              ``?`` for an unencodable
                                                         character or a lone surrogate
                                                         (Java's String.getBytes)
``whole_characters()``         encode, form              every byte of a character
                                                         encoded when one is (Java's
                                                         URLEncoder: Shift_JIS ``%84%41``)
``refuses(INPUT)``             any                       raises for an input with
                                                         ``lone-surrogate``,
                                                         ``invalid-utf8``,
                                                         ``invalid-percent``,
                                                         ``control-char`` or
                                                         ``non-ascii``
=============================  ========================  ====================================

Entries compose as one model, whatever order they are listed in
``left_raw("~")`` and ``encoded("*")`` make one
effective set, ``space_as`` and ``lowercase_hex`` rewrite what that set gives,
``pairs_order`` and ``empty_pairs`` shape the result; refusals and models written
as code run first, rewrites of the answer (``truncated``, ``prefixed``) last. Each
reconciler is also a *rule* a finding can be named by:
such a finding's ``behaviour`` gives the reconciler and its parameters, ready to
be accepted.

``requoted`` modes: ``keep`` (the escape is copied), ``upper`` (copied with uppercase
hex), ``decode-unreserved`` (an escape of ALPHA DIGIT ``-._~`` is written as the
character, others copied: requests' ``unquote_unreserved``), ``normalize`` (RFC 3986
6.2.2's percent-encoding normalization: an escape of ALPHA DIGIT ``-._~`` written as the
character, others with uppercase hex), ``decode-safe`` (written
as the character when the set leaves it raw, else uppercased: yarl's requoting),
``decode-utf8`` (each run of escapes decoded as UTF-8, U+FFFD for an invalid
sequence, then encoded with the set: ``quote(unquote(s), safe)``, furl's paths).

A TOML file::

    [[divergence]]
    id = "mylib-unquotes-unreserved"
    check = "encode"
    reconciler = "requoted"
    mode = "decode-unreserved"
    citation = "mylib docs: quote() normalizes escapes of unreserved characters"
    why = "RFC 3986 6.2.2.2: %41 and A are equivalent"
    example = { value = "%41", set = "encodeURI-%25[]" }

Parameters: ``chars`` (left_raw, encoded, removed, trimmed, cut_at,
kept_encoded), ``space`` (space_as),
``types`` (both_refuse), ``mode`` (requoted, pairs_order, empty_pairs, replacement,
lone_surrogates),
``n`` (truncated), ``text`` (prefixed, suffixed), ``form`` (normalized,
normalized_escaped), ``input`` (refuses), ``style`` (names_mangled); optional: ``part``
(left_raw, encoded: ``names``, ``values`` or ``empty-name-values``, form only;
decoded_twice, plus_kept, kept_encoded: ``names`` or ``values``, form-parse only),
``hex`` (kept_encoded: ``upper``), ``plus`` (decoded_twice: ``space``, form-parse only).
Examples: encode ``{value, set,
encoding, space_as_plus}``, decode ``{value}``, form ``{pairs = [[name, value], ...],
encoding}``, form-parse ``{text}``. Optional keys: ``impl``, ``summary``.
"""

from __future__ import annotations

from pctfuzz._internal.accept import (
    KnownDivergence,
    Reconciler,
    both_refuse,
    cut_at,
    decoded_twice,
    divergence,
    empty_pairs,
    encoded,
    escapes_uppercased,
    kept_encoded,
    latin1_bytes,
    latin1_fallback,
    left_raw,
    lone_surrogates,
    lowercase_hex,
    names_mangled,
    ncr_unescaped,
    needs_equals,
    normalized,
    normalized_escaped,
    pairs_order,
    plus_as_space,
    plus_kept,
    prefixed,
    python_codec,
    refuses,
    removed,
    replacement,
    requoted,
    semicolon_separates,
    signed_escapes,
    space_as,
    suffixed,
    trimmed,
    truncated,
    unmappable_replaced,
    whole_characters,
)

__all__ = [
    "KnownDivergence",
    "Reconciler",
    "both_refuse",
    "cut_at",
    "decoded_twice",
    "divergence",
    "empty_pairs",
    "encoded",
    "escapes_uppercased",
    "kept_encoded",
    "latin1_bytes",
    "latin1_fallback",
    "left_raw",
    "lone_surrogates",
    "lowercase_hex",
    "names_mangled",
    "ncr_unescaped",
    "needs_equals",
    "normalized",
    "normalized_escaped",
    "pairs_order",
    "plus_as_space",
    "plus_kept",
    "prefixed",
    "python_codec",
    "refuses",
    "removed",
    "replacement",
    "requoted",
    "semicolon_separates",
    "signed_escapes",
    "space_as",
    "suffixed",
    "trimmed",
    "truncated",
    "unmappable_replaced",
    "whole_characters",
]
