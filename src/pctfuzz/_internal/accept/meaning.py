"""What a character or a difference means to the component it is in: the words a
finding's impact is said in (``accept.impact``), and the characters that decide it.

Each delimiter of a URL component or a form (``DELIMITERS``) is a finding of its own,
the controls one, the harmless characters one together (``accept.rules``); each rule of
the catalogue states its impact beside its maker (``accept.reconcilers``).
"""

from __future__ import annotations

__all__ = ["BLOCKING", "C0_SPACE", "CONTROLS", "DELIMITERS", "IMPACTS", "WHITESPACE"]

#: The characters that end or split a URL component or a form pair (URL Standard 4.4
#: and 5.1; RFC 3986 2.2): ``#`` ends a query, ``?`` a path, ``/`` a segment, ``&``
#: and ``;`` a pair, ``=`` a name, ``+`` reads back as a space, ``%`` starts an escape.
DELIMITERS = "#%&+/;=?"

#: The ASCII controls (C0 and DEL): raw in a URL, CR and LF split a header line (request
#: smuggling, header injection), so they are a group of their own too.
CONTROLS = "".join(map(chr, range(0x20))) + "\x7f"
#: The C0 controls and space (Infra Standard "C0 control or space"): what the URL parser
#: trims from both ends of its input (URL Standard 4.4, basic URL parser step 1).
C0_SPACE = "".join(map(chr, range(0x21)))
#: ASCII whitespace as Python's ``str.strip()`` and ``str.split()`` take it.
WHITESPACE = " \t\n\r\x0b\x0c"

#: What a finding can mean, worst first (``accept.impact``'s docstring says each).
IMPACTS = ("splits-field", "loses-data", "changes-data", "crash", "cosmetic")
#: Impacts that ``pctfuzz accept`` accepts only when told to (``--accept-impact``).
BLOCKING = frozenset({"splits-field", "loses-data"})
