"""WHATWG Encoding Standard encoders for the URL Standard's "percent-encode after encoding".

The URL Standard (section 1.3, "percent-encode after encoding") encodes its input with
the Encoding Standard's *encode or fail* hook in a loop: bytes the encoder produces are
percent-encoded, and each code point the encoder cannot encode is written as
``%26%23<decimal>%3B`` before the loop resumes *with the same encoder instance*.
:func:`encode_runs` is that loop's encoder side; :func:`lookup` is the Encoding
Standard's "get an encoding" followed by "get an output encoding".

How the encoders are built
--------------------------
Python has a codec for every legacy encoding, but none is the WHATWG encoder exactly.
Each :class:`Encoding` names the codec this module starts from (``Encoding.codec``):

* EUC-KR: index EUC-KR read from Python's ``cp949`` decoder, which matches it at every
  pointer (index EUC-KR *is* code page 949; cp949's encoder agrees too).
* gb18030: Python's ``gb18030`` encoder plus the corrections in :data:`DIFFERENCES`
  (the GB18030-2005 swap of U+1E3F/U+E7C7, the GB18030-2022 mappings, U+E5E5).
* Single-byte encodings: the codec's 128 upper mappings, corrected (mostly C1 controls
  that Windows code pages leave undefined but the WHATWG indexes map).
* GBK and Big5: a table of the corrected ``gb18030`` / ``big5hkscs`` encoder, keeping
  only what the WHATWG encoder may produce (two bytes; Big5 lead byte 0xA1 or above).
* Shift_JIS, EUC-JP, ISO-2022-JP: index jis0208 rebuilt from Python's ``cp932``
  *decoder*, which matches it at every one of its 11,280 pointers (the EUDC range
  8836-10715 aside, which the index leaves out), then the Encoding Standard's
  algorithms. ``cp932``'s own encoder is not used: it maps ``¢ £ ¬ ‖ 〜`` best-fit,
  encodes EUDC and U+F8F0-U+F8F3, and prefers the NEC-selected IBM rows (lead bytes
  0xED/0xEE) that "index Shift_JIS pointer" skips. Python's ``shift_jis`` and
  ``euc_jp`` codecs are further off (no NEC row 13 or IBM extensions; ``euc_jp``
  encodes through JIS X 0212, which the WHATWG EUC-JP encoder never does).
* x-user-defined and UTF-8 need no codec (``codec`` is None).

Except for gb18030 (Python's own encoder) and UTF-8, every encoder is a code point ->
bytes dict, built on first use (up to about 50 ms). :func:`encode_runs` is the
transcription of the Encoding Standard's loop (chunks and errors, in order);
:func:`encode_ncr` and :func:`encode_inband` give the same bytes in a few C calls
(``codecs.charmap_encode``, ``str.translate``, one regex split), the second as a str
with the errors left in place, which is what ``percent_encode`` starts from.

Verification
------------
Each encoder was compared with a direct implementation of the Encoding Standard's
encoder algorithms over the WHATWG index data (as shipped in the npm packages
``text-encoding`` 0.7.0 and ``@kayahr/text-encoding`` 2.2.0, which agree with each
other except for the GB18030-2022 update of index gb18030, taken from the newer one):
the stateless encoders one scalar value at a time over all 1,112,064 of them, and
ISO-2022-JP on all of them as one string plus 20,000 random strings mixing the code
points that change its state. No differences remain. That check needs the index files,
so it is not part of the test suite; the tests assert the published vectors (WPT
``url/resources/percent-encoding.json``), every :data:`DIFFERENCES` entry, and
round-trip properties.

Unverified: index revisions published after those snapshots (each index file carries an
Identifier and a Date to track that).

Modules: ``labels`` (names, labels, ``lookup``), ``differences`` (``DIFFERENCES``),
``tables`` (the encoder tables), ``encoders`` (``encode_pieces``, ``encode_runs``, ``encode_ncr``,
``encode_inband``). Import from this package.
"""

from pctfuzz._internal.encoding.differences import DIFFERENCES, CodecDifference
from pctfuzz._internal.encoding.encoders import (
    INBAND_ERRORS,
    encode_inband,
    encode_inband_unchecked,
    encode_ncr,
    encode_pieces,
    encode_runs,
    inband_code_point,
    inband_ncr_bytes,
    inband_ncrs,
)
from pctfuzz._internal.encoding.labels import ENCODING_NAMES, LABELS, Encoding, lookup

__all__ = [
    "DIFFERENCES",
    "ENCODING_NAMES",
    "INBAND_ERRORS",
    "LABELS",
    "CodecDifference",
    "Encoding",
    "encode_inband",
    "encode_inband_unchecked",
    "encode_ncr",
    "encode_pieces",
    "encode_runs",
    "inband_code_point",
    "inband_ncr_bytes",
    "inband_ncrs",
    "lookup",
]
