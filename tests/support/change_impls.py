"""Two path encoders on either side of whatwg/url#846 (``^`` joined the path
percent-encode set, 2025): for the matrix's change columns (tests/unit/test_matrix_changes.py)."""

from __future__ import annotations

from pctfuzz._internal.oracles import function_adapter
from pctfuzz._internal.reference import percent_encode

#: A path encoder with the set as it is now: ``a^b`` is ``a%5Eb``.
CARET_ENCODED = function_adapter("caret-encoded", encode=lambda v: percent_encode(v, "path"),
                                 sets={"pathname": "path"})
#: A path encoder written before the change (as rust-url until servo/rust-url#1140):
#: ``a^b`` stays ``a^b``.
CARET_RAW = function_adapter("caret-raw", encode=lambda v: percent_encode(v, "path-^"),
                             sets={"pathname": "path"})
