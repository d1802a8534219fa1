"""pctfuzz: a reference URL percent-encoder, its invariants, and the drivers that fuzz them.

The public API re-exported here is the reference encoder (WHATWG URL Standard 1.3 and
5, RFC 3986 2, ECMA-262 encodeURI/encodeURIComponent) and the error classes.
"""

from pctfuzz._internal.errors import (
    CaseFormatError,
    InputTypeError,
    NotScalarValueError,
    PctfuzzError,
    UnknownEncodingError,
    UnknownSetError,
)
from pctfuzz._internal.form import form_urldecode, form_urlencode
from pctfuzz._internal.reference import percent_decode, percent_decode_text, percent_encode
from pctfuzz._internal.sets import SETS, PercentEncodeSet, get_set

__version__ = "0.1.0"

__all__ = [
    "SETS",
    "CaseFormatError",
    "InputTypeError",
    "NotScalarValueError",
    "PctfuzzError",
    "PercentEncodeSet",
    "UnknownEncodingError",
    "UnknownSetError",
    "__version__",
    "form_urldecode",
    "form_urlencode",
    "get_set",
    "percent_decode",
    "percent_decode_text",
    "percent_encode",
]
