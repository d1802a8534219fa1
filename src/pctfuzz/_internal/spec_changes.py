"""The URL Standard's dated changes to its percent-encode sets: the one home of their
facts (the set, the characters the change added, the date its commit landed, the pull
request), which ``pctfuzz matrix`` asks each implementation about
(``fuzz.follows``) and the docs render (docs/peers.md, "The standard's changes").

The reference (``named_sets``) is the standard as it is now: each change's set holds
its characters. A library written before a change, or that never took it, encodes with
the set as it was; ``SetChange.old`` is that set. Dates are those of the commit in
whatwg/url's history (``git log`` of url.bs), not of the pull request's opening.

No dated change of the form rules (URL 5.1, 5.2) is listed: the
application/x-www-form-urlencoded percent-encode set was named in 2020 (whatwg/url#518)
without changing what the serializer writes.
"""

from __future__ import annotations

from dataclasses import dataclass

from pctfuzz._internal.sets import PercentEncodeSet, get_set
from pctfuzz._internal.spec import percent_encode_after_encoding

__all__ = ["CHANGES", "SetChange"]


@dataclass(frozen=True)
class SetChange:
    """One change of a percent-encode set (URL Standard 1.3): ``added`` joined the set
    ``set_name`` in the commit of ``merged`` (YYYY-MM-DD) from pull request ``pull``."""

    id: str
    set_name: str
    #: Every character the change added to the set; the first is the one asked about.
    added: str
    merged: str
    pull: str
    commit: str
    #: Implementations' issues that track the change (links), for the docs.
    tracking: tuple[str, ...] = ()

    @property
    def character(self) -> str:
        """The character the matrix asks about (``probe``)."""
        return self.added[0]

    @property
    def label(self) -> str:
        """A column's name: the set and the character (``path ^``)."""
        return f"{self.set_name} {self.character}"

    @property
    def new(self) -> PercentEncodeSet:
        """The set as the standard has it now (the reference's)."""
        return get_set(self.set_name)

    @property
    def old_spec(self) -> str:
        """A set spec (``pctfuzz._internal.setspec``) of the set before the change."""
        return self.set_name + "-" + "".join(f"%{ord(c):02X}" for c in self.added)

    @property
    def old(self) -> PercentEncodeSet:
        """The set before the change: the set now without the characters it added."""
        return get_set(self.old_spec)

    @property
    def probe(self) -> str:
        """The value an implementation encodes with the set: the character between two
        letters (a lone '^' took another path through ada than 'a^b': ada-url/ada#970)."""
        return f"a{self.character}b"

    def answer(self, *, old: bool = False) -> str:
        """What an encoder on the new (``old``: the old) side writes for ``probe``."""
        return percent_encode_after_encoding("UTF-8", self.probe, self.old if old else self.new)


#: The changes, oldest first.
CHANGES: tuple[SetChange, ...] = (
    SetChange(
        id="fragment-backtick",
        set_name="fragment",
        added="`\" <>",
        merged="2017-12-05",
        pull="https://github.com/whatwg/url/pull/347",
        commit="7a3c69f8a1583b33e730c3fea85141a618e7c697",
        tracking=("https://github.com/whatwg/url/issues/344",),
    ),
    SetChange(
        id="special-query-apostrophe",
        set_name="special-query",
        added="'",
        merged="2018-06-08",
        pull="https://github.com/whatwg/url/pull/395",
        commit="6ef17ebe1220a7e7c0cfff0785017502ee18808b",
        tracking=("https://github.com/whatwg/url/issues/348",),
    ),
    SetChange(
        id="path-caret",
        set_name="path",
        added="^",
        merged="2025-03-05",
        pull="https://github.com/whatwg/url/pull/846",
        commit="9bc33c39d4a6cd6a936ea7620b5a69f606ec0d4c",
        tracking=("https://github.com/whatwg/url/issues/607",
                  "https://bugs.webkit.org/show_bug.cgi?id=289083",
                  "https://github.com/nodejs/node/issues/57313",
                  "https://github.com/denoland/deno/issues/28386",
                  "https://github.com/servo/rust-url/issues/1140"),
    ),
)
