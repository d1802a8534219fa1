"""What makes two failures the same bug: difference classes and finding signatures.

A finding's signature is one line (format version ``SIGNATURE_VERSION``)::

    <target>|<kind>|<check>|<class>[|impl=<implementation under test>[|accepted=none]]

``accepted=none`` marks a finding made under ``--no-accepted`` (every accepted
difference ignored, the run's ``settings.RunSettings.accepted``): its own record, apart from
the normal campaign's (docs/fuzzing.md).

``kind`` is ``violation``, ``divergence``, ``crash``, ``timeout`` or ``oom``; ``check``
the invariant or differential question (``-`` when none ran to completion). The
*class* says what differs, coarse enough that one bug is one finding and fine enough
that two bugs are two:

- **a differential divergence a catalogue rule explains**: ``rule=NAME(KEY=VALUE,...)``,
  the simplest ready-made reconciler that explains it (``pctfuzz._internal.accept.rules``), e.g.
  ``rule=truncated(n=100)``; the classes below name the rest.
- **encode** (differential, and invariants on an ``EncodeCase``)
  ``unit=<unit>;diff=<shape>[;enc=<legacy encoding>]``. The reference's output is split per input
  unit (a character of a str, a byte of bytes); ``unit`` is the class of the first
  unit whose output the implementation does not reproduce, located on the window of
  the input that shows the difference (``checks.locate``): ``0xHH`` for an ASCII
  character (its byte value), ``pct-triplet`` for a ``%`` that starts ``%HH`` in the
  input, ``non-ascii``, ``lone-surrogate``, or ``end`` when the output goes on after
  the input is used up. ``shape``: ``left-raw`` (the set encodes it, the
  implementation does not), ``encoded`` (the reverse), ``hex-case``,
  ``space-as-plus`` / ``space-as-%20``, ``other-bytes`` (different ``%HH`` bytes, as
  a different character encoding gives), ``missing-output`` (also, in a legacy
  encoding, the reference's output with a part left out), ``extra-output``,
  ``changed``. ``hex-case`` leaves the unit out (``unit=*``): lowercase hex is one
  bug whichever byte shows it. The set is *not* part of the class: an implementation
  that encodes ``~`` does so in every set that leaves it raw, and fifteen findings of
  one bug would bury the others (the finding's case names the set it was seen in).
  A non-ASCII unit of a str encoded with a legacy encoding adds ``enc=``: each
  encoder is its own code path (ASCII is the same in all of them).
- **decode** ``seg=<segment>;diff=<shape>``: the input is split into the segments
  percent-decode treats alike -- ``pct-upper``/``pct-lower``/``pct-digits`` (a valid
  ``%HH`` by the case of its hex letters; ``pct-0xHH`` for the escape of a delimiter
  or a dot, in either case: ``classes.ESCAPED_APART``), ``pct-short`` (``%`` and one hex
  digit) or ``pct-nonhex`` (``%`` and no hex digit) for a ``%`` that starts no escape --
  ``pct-invalid`` for both where the other kind gives the same class
  (``checks.generalize``) --, ``plus``, ``alnum`` (a raw ASCII letter or digit), ``non-ascii``,
  ``lone-surrogate`` -- and any other raw ASCII character by its unit,
  ``unit=0xHH`` (it widens as an encoder's unit does; a delimiter never does) -- and
  the first segment whose bytes the implementation does not reproduce is named, with
  the shape ``not-decoded``, ``plus-as-space``, ``missing-output``, ``extra-output``
  or ``changed``. An escape's segment is ``pct-any`` when every kind of escape there
  (a letter's in each hex case, a digit's, the space's, each delimiter's, the dot's)
  gives the same class (``checks.generalize``).
- **form** (serializer) ``field=name|value|any|pair|separator;unit=<unit>;diff=<shape>``:
  located as encode's, on the shortest cut of the pairs that differs (each pair's
  name grown one character at a time beside a plain letter, then its value; first
  empty only where the input's name or value is): ``unit`` is the
  cut's last character (classes as encode), ``empty-pair`` when the empty pair
  differs, ``repeated-name`` when the pair differs only because its name repeats an
  earlier one (renamed, it agrees); ``field=any`` when the character gives the same
  class in the other field; ``field=separator;unit=0x26`` when another separator is
  written. ``shape`` as encode's, on the text between the common prefix and suffix,
  or ``missing-pair``/``extra-pair`` when a ``&``-separated pair is dropped or added.
- **form-parse** ``field=name|value|separator;unit=<unit>[;written=<way>];diff=<shape>``:
  located on the shortest prefix of the input whose parses differ; ``unit`` is the
  character its last unit decodes to (``0xHH`` for ASCII, a ``+`` as ``0x20``,
  ``non-ascii``, ``lone-surrogate``; ``pct-invalid`` for a ``%`` without two hex
  digits) and, for an ASCII character that can be written more than one way
  (``classes.writings``), how it was (``raw``, ``escaped``, ``plus``): no ``written``
  when the parser answers every way alike (``checks.generalize``), in the field of the
  last sequence it ends in -- or, when that field's texts
  part at an earlier unit (no ``%``: a ``%`` parts by what follows it), that unit's
  (the last one only set the code path off); ``shape`` is
  ``missing-pair``/``extra-pair``, else, between the first differing field's common start
  and end, ``missing-output`` (nothing answered there), ``extra-output`` (nothing wanted),
  ``not-decoded`` (the escapes of what is wanted answered as written) or ``changed``;
  ``field=name;unit=any;diff=merged`` when the last pair's name is read as an earlier
  pair's, and that pair alone agrees (``classes.MERGED_NAMES``);
  ``field=pair;unit=earlier-pair;diff=<pairs shape>`` when the last pair alone agrees
  and beside the earlier ones does not (two names sharing a mapping's slot:
  ``classes.BESIDE_EARLIER``); ``unit=pct-any`` when the last unit is an escape and
  every kind of escape there gives the same class (``checks.generalize``). When no
  prefix shows the difference:
  ``field=name|value;seg=<segment>;diff=changed`` for a pair that differs (segments and units as
  decode, plus ``equals`` for a ``=`` inside a value), or
  ``field=pairs;diff=missing-pair|extra-pair`` when one list is the other's prefix.
- **a unit that does not matter** (decode, form-parse): when any unit in place of the
  located one gives the difference there (``checks.generalize``), the class names
  what comes before it: ``unit=any;after=<context>;diff=any`` (``last_unit``:
  ``invalid-utf8``, or the character before it; never at a field's start), in place
  of the unit.
- **units there only to be lost** (decode): when any unit in place of the window's
  first units is lost the same way (``missing-output`` at the first unit), the class
  names the unit after them: ``unit=any;before=<unit>;diff=missing-output``
  (``leading_units``). A parameter that a later ``;filename`` wipes out was one finding
  per class of its first character, and one per whitespace before the ``;``.
- **the implementation answers where the reference refuses** (a lone surrogate):
  ``unit=lone-surrogate;diff=value-for-non-scalar``.
- **crash** (either side raised unexpectedly): ``raised=<exception type>@<where>``,
  ``where`` the innermost frame of the code under test as ``module:qualname+site``
  (``site``: a hash of the text of the ``raise`` or ``assert`` statement that
  raised, not its line number, so two refusals of one function are two findings;
  none for an error the interpreter raised at another statement, as one wrong
  assumption fails at each statement that relies on it), or ``pctfuzz`` when the
  exception rose in pctfuzz's own code; a
  refusal a catalogue rule explains (``rule=refuses(input=invalid-utf8)``) is named
  by the rule, whichever code path raised.
- **a refusal after a known cut** (crash): ``raised=any;after(<class>)`` when the input
  with its end written as a plain letter is answered as a known finding that loses
  the end of its input says (``RAISED_AFTER``, ``checks.differential``): what the cut
  lets through, whichever statement refused it.
- **timeout / oom**: ``-`` (libFuzzer stopped the process; there is no exception).

Invariant violations carry the invariant as ``check`` and the class of the
difference between the codec under test and the reference on the same case (``-``
when their outputs agree, e.g. a determinism failure or a bug of the reference
itself); when a catalogue rule explains that difference, the class is the rule and
the check the operation (``encode|violation|encode|rule=trimmed(chars=...)``): one
behaviour of a codec breaks several invariants, and is one finding. No pctfuzz
module path or function name ever enters a signature, so
moving pctfuzz's code never re-identifies a finding; the raw input, messages and
line numbers never do either. Minimization keeps the whole signature, so it keeps
the class; the minimal input is then named afresh (``fuzz.recorder``), where an ASCII
unit widens (``checks.generalize``): to its group (``unit=alnum``), a narrower one
(``unit=upper``) or the set of its group's members that behave alike
(``unit=set(0x09-0x0D,0x1C-0x1F)``).
"""

from __future__ import annotations

from pctfuzz._internal.identity.classes import (
    difference,
    difference_context,
    form_difference,
    form_parse_difference,
    form_shape,
    last_unit,
    leading_units,
    pairs_shape,
    size_difference,
    unit_difference,
)
from pctfuzz._internal.identity.signatures import (
    FINDING_KINDS,
    QUESTION,
    RAISED_AFTER,
    RESOURCE_STOPS,
    SIGNATURE_VERSION,
    TARGET_NAME,
    classify,
    codec_difference,
    crash_class,
    crash_location,
    finding_id,
    made_without_accepted,
    make_signature,
    other_resource_stop,
    refusal_site,
    resource_stop,
    signature_of,
    stop_signature,
    without_accepted_mode,
)

__all__ = [
    "FINDING_KINDS",
    "QUESTION",
    "RAISED_AFTER",
    "RESOURCE_STOPS",
    "SIGNATURE_VERSION",
    "TARGET_NAME",
    "classify",
    "codec_difference",
    "crash_class",
    "crash_location",
    "difference",
    "difference_context",
    "finding_id",
    "form_difference",
    "form_parse_difference",
    "form_shape",
    "last_unit",
    "leading_units",
    "made_without_accepted",
    "make_signature",
    "other_resource_stop",
    "pairs_shape",
    "refusal_site",
    "resource_stop",
    "signature_of",
    "size_difference",
    "stop_signature",
    "unit_difference",
    "without_accepted_mode",
]
