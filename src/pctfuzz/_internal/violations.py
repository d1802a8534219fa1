"""What a failed check raises: ``Violation`` (an invariant broke) and ``Divergence``
(the implementation under test disagreed with the reference outside the registry).

Both carry structured evidence so a driver can store a finding without parsing
messages: ``check`` names the invariant (part of a finding's signature), and
``expected``/``actual``/``position`` say what differed and where. They are defined with
every other exception in ``pctfuzz._internal.errors``; the checks import them from here,
the vocabulary of a check's result.
"""

from __future__ import annotations

from pctfuzz._internal.errors import Divergence, Violation

__all__ = ["Divergence", "Violation"]
