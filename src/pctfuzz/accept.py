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

Ready-made reconcilers: each function below accepts its exact difference and
nothing more; its docstring says which (``help(pctfuzz.accept.requoted)``), and
docs/adapters.md tables them all with the checks they apply to and the impact of a
finding they name. A TOML entry gives a reconciler by its name, its parameter and
optional keys by their names in its signature.

Entries compose as one model, whatever order they are listed in
``left_raw("~")`` and ``encoded("*")`` make one
effective set, ``space_as`` and ``lowercase_hex`` rewrite what that set gives,
``pairs_order`` and ``empty_pairs`` shape the result; refusals and models written
as code run first, rewrites of the answer (``truncated``, ``prefixed``) last. Each
reconciler is also a *rule* a finding can be named by:
such a finding's ``behaviour`` gives the reconciler and its parameters, ready to
be accepted.

A TOML file::

    [[divergence]]
    id = "mylib-unquotes-unreserved"
    check = "encode"
    reconciler = "requoted"
    mode = "decode-unreserved"
    citation = "mylib docs: quote() normalizes escapes of unreserved characters"
    why = "RFC 3986 6.2.2.2: %41 and A are equivalent"
    example = { value = "%41", set = "encodeURI-%25[]" }

Examples: encode ``{value, set,
encoding, space_as_plus}``, decode ``{value}``, form ``{pairs = [[name, value], ...],
encoding}``, form-parse ``{text}``. Optional keys: ``impl``, ``summary``.
"""

from __future__ import annotations

from pctfuzz._internal.accept import (
    KnownDivergence,
    Reconciler,
    divergence,
)

# rules-import: make docs writes it from the rule catalogue
from pctfuzz._internal.accept.reconcilers import (
    answered,
    both_refuse,
    cut_at,
    decoded_before_split,
    decoded_repeatedly,
    decoded_twice,
    dot_segments,
    empty_pairs,
    encoded,
    escapes_uppercased,
    html_unescaped,
    kept_encoded,
    latin1_bytes,
    latin1_chars,
    latin1_fallback,
    left_raw,
    lone_surrogates,
    lowercase_hex,
    names_mangled,
    ncr_unescaped,
    needs_equals,
    newlines_normalized,
    normalized,
    normalized_escaped,
    nul_terminated,
    other_set,
    pairs_order,
    percent_u,
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
    taken_as_encoded,
    trimmed,
    truncated,
    unmappable_replaced,
    whole_characters,
    written_as,
)

# /rules-import

__all__ = [
    "KnownDivergence",
    "Reconciler",
    "divergence",
]
# rules-all: make docs writes it from the rule catalogue
__all__ += [
    "answered",
    "both_refuse",
    "cut_at",
    "decoded_before_split",
    "decoded_repeatedly",
    "decoded_twice",
    "dot_segments",
    "empty_pairs",
    "encoded",
    "escapes_uppercased",
    "html_unescaped",
    "kept_encoded",
    "latin1_bytes",
    "latin1_chars",
    "latin1_fallback",
    "left_raw",
    "lone_surrogates",
    "lowercase_hex",
    "names_mangled",
    "ncr_unescaped",
    "needs_equals",
    "newlines_normalized",
    "normalized",
    "normalized_escaped",
    "nul_terminated",
    "other_set",
    "pairs_order",
    "percent_u",
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
    "taken_as_encoded",
    "trimmed",
    "truncated",
    "unmappable_replaced",
    "whole_characters",
    "written_as",
]
# /rules-all
