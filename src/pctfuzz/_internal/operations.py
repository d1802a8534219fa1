"""The four operations pctfuzz tests, one record each: encode, decode, form, form-parse.

An ``Operation`` is the one home of what names an operation: its ``name`` (the
spelling users and records see, ``"form-parse"``: a finding's ``check``, a case's
``type``, an accept file's ``check``), its ``ident`` (the spelling of identifiers,
``"form_parse"``: the target names ``form_parse`` and ``diff_form_parse``), its case
type, the adapter method that answers it (``oracles.base.Impl``) and the case field a
caller passes. The stored strings come from the case types (``cases.py``, the record
format), so records, corpora and signatures do not change.

The checks and strategies that work on an operation live in layers above this one
(``checks/``); ``targets.py`` attaches them, building both targets of each operation
from this record.
"""

from __future__ import annotations

from dataclasses import dataclass

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.errors import PctfuzzError

__all__ = [
    "DECODE",
    "ENCODE",
    "FORM_PARSE",
    "FORM_SERIALIZE",
    "OPERATIONS",
    "Operation",
    "get_operation",
]


@dataclass(frozen=True)
class Operation:
    """One operation: what names it and what answers it."""

    case_type: type[EncodeCase] | type[DecodeCase] | type[FormCase] | type[FormParseCase]
    #: The adapter method answering it (``oracles.base.Impl``).
    method: str
    #: The case field a caller passes (a report's call line).
    argument: str
    #: The algorithm it is held against.
    section: str
    #: What its targets fuzz, one line.
    description: str

    @property
    def name(self) -> str:
        """The users' and the records' spelling (``"form-parse"``)."""
        return self.case_type.type

    @property
    def ident(self) -> str:
        """The identifiers' spelling (``"form_parse"``), the invariant target's name."""
        return self.name.replace("-", "_")

    @property
    def differential_target(self) -> str:
        """The name of its differential target (``diff_form_parse``)."""
        return f"diff_{self.ident}"

    @property
    def targets(self) -> tuple[str, str]:
        """Its two target names: invariant, differential."""
        return self.ident, self.differential_target


ENCODE = Operation(EncodeCase, "encode", "value",
                   "URL Standard 1.3 (Percent-encoded bytes): percent-encode after encoding",
                   "percent_encode over every set, encoding and spaceAsPlus")
DECODE = Operation(DecodeCase, "decode", "value",
                   "URL Standard 1.3 (Percent-encoded bytes): percent-decode",
                   "percent_decode of arbitrary str/bytes")
FORM_SERIALIZE = Operation(FormCase, "form_serialize", "pairs",
                 "URL Standard 5.2 (application/x-www-form-urlencoded serializing)",
                 "application/x-www-form-urlencoded serializer (and parse back)")
FORM_PARSE = Operation(FormParseCase, "form_parse", "text",
                       "URL Standard 5.1 (application/x-www-form-urlencoded parsing)",
                       "application/x-www-form-urlencoded parser on arbitrary input")

#: Every operation, in the order commands and reports list them.
OPERATIONS: tuple[Operation, ...] = (ENCODE, DECODE, FORM_SERIALIZE, FORM_PARSE)

_BY_SPELLING = {spelling: op for op in OPERATIONS
                for spelling in (op.name, op.ident, op.differential_target)}


def get_operation(name: str) -> Operation:
    """The operation of a name, an identifier or a target name (``form-parse``,
    ``form_parse``, ``diff_form_parse``); ``PctfuzzError`` listing them otherwise."""
    try:
        return _BY_SPELLING[name]
    except KeyError:
        raise PctfuzzError(f"unknown operation {name!r}; known: "
                           f"{', '.join(op.name for op in OPERATIONS)}") from None
