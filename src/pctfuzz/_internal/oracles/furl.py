"""furl as an implementation under test (see ``pctfuzz._internal.oracles``).

furl builds a URL's query (``furl.Query``), path, fragment and userinfo, each quoted
with ``urllib.parse.quote`` and its own safe characters (furl/furl.py). Each is asked
with the set ``pctfuzz probe`` finds (furl 2.1.4), one label per set:

- **encode** (label ``query-value``, ``rfc3986-unreserved``): a query value,
  ``str(Query().set([("a", v)]))`` without its leading ``a=``; space ``+``;
- **encode** (label ``userinfo``, ``rfc3986-unreserved``, space ``%20``): the username
  of ``furl("http://h/").set(username=v)``, ``quote(v, safe="")`` (the password is
  quoted by the same call); the query value's set, so the cases with space as ``%20``
  go here and those with ``+`` to the query value;
- **encode** (label ``path-segment``, ``rfc3986-pchar``): ``set(path=[v])``, a list of
  segments, each quoted with ``Path.SAFE_SEGMENT_CHARS`` (an existing ``%HH`` is data);
- **encode** (label ``path``, ``rfc3986-pchar-/``): ``set(path="/" + v)``, a path
  string: split at ``/``, and a segment that is already "valid encoded" (only pchar
  and valid ``%HH``) is unquoted before it is quoted again, so ``%41`` becomes ``A``
  and ``%2F`` stays (an accepted entry, ``requoted("decode-utf8")`` per segment);
- **encode** (label ``fragment``, ``rfc3986-query``): ``set(fragment=v)``, a path as
  above whose ``%3F`` is written back as ``?`` (``Fragment.__str__``); a value with
  ``=`` is read as the fragment's query (a form), so it is ``Unsupported``;
- **form_serialize**: ``str(Query().set(pairs))``;
- **form_parse**: ``Query(text).params.allitems()``. furl gives ``None`` as the value of
  a name without ``=`` (so that ``str()`` writes it back without one); the reference's
  answer for that name is the empty string, which is what ``None`` stands for here;
- **decode**: Unsupported (furl has no public percent-decoder).

A query string given whole (``set(query=text)``) is parsed into pairs and serialized
again: the form questions above, not an encoder.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from pctfuzz._internal.accept.entry import REPLACE
from pctfuzz._internal.accept.model import Model, render
from pctfuzz._internal.accept.reconcilers import Reconciler, divergence, empty_pairs
from pctfuzz._internal.cases import Case, EncodeCase, FormParseCase
from pctfuzz._internal.operations import ENCODE, FORM_PARSE
from pctfuzz._internal.oracles._querystring import CITE_URLLIB, urlencode_entry
from pctfuzz._internal.oracles.base import Unsupported, library_call
from pctfuzz._internal.oracles.function import FunctionAdapter
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.spec import PERCENT_ENCODED_BYTE

__all__ = ["FurlAdapter"]

#: pctfuzz probe out/p.py:furl_query (str(Query().set([("a", v)]))[2:]), furl 2.1.4:
#: exact set rfc3986-unreserved, space +, existing %HH encoded, non-ASCII utf-8.
QUERY_VALUE_SPEC = "rfc3986-unreserved"
#: label -> the set ``pctfuzz probe pctfuzz._internal.oracles.furl:FurlAdapter --set
#: LABEL`` finds (furl 2.1.4; each exact).
COMPONENT_SETS = {"userinfo": "rfc3986-unreserved", "path-segment": "rfc3986-pchar",
                  "path": "rfc3986-pchar-/", "fragment": "rfc3986-query"}
#: furl/furl.py is_valid_encoded_path_segment, as furl writes it (``\w`` and ``\d``
#: are Unicode here, as there).
_VALID_SEGMENT = re.compile(r"^([\w" + re.escape("-.~:@!$&'()*+,;=")
                            + r"]|(\%[a-fA-F\d][a-fA-F\d]))*$")
_CITE_SEGMENTS = ("furl/furl.py Path._segments_from_path: a segment that is not "
                  "is_valid_encoded_path_segment is quote()d first, then every segment is "
                  "unquote()d; _path_from_segments quote()s each with SAFE_SEGMENT_CHARS "
                  "(':@-._~!$&\'()*+,;=') and joins them with '/'")


def _furl() -> Any:
    import furl

    return furl.furl("http://h/")


def _path(value: str) -> str:
    return str(_furl().set(path="/" + value).path)[1:]


def _path_segment(value: str) -> str:
    return str(_furl().set(path=[value]).path)[1:]


def _fragment(value: str) -> str:
    if "=" in value:
        raise Unsupported("furl reads a fragment with '=' as a query (pairs, space '+')")
    return str(_furl().set(fragment=value).fragment)


def _userinfo(value: str) -> str:
    netloc: str = _furl().set(username=value).netloc
    return netloc.rpartition("@")[0]


#: label -> the call each component function makes, for a library-only reproduction.
_CALLS = {
    "userinfo": 'furl.furl("http://h/").set(username=value).netloc.rpartition("@")[0]',
    "path-segment": 'str(furl.furl("http://h/").set(path=[value]).path)[1:]',
    "path": 'str(furl.furl("http://h/").set(path="/" + value).path)[1:]',
    "fragment": 'str(furl.furl("http://h/").set(fragment=value).fragment)',
}


def _in_set(*names: str) -> Any:
    wanted = {get_set(name).members for name in names}
    return lambda case: isinstance(case, EncodeCase) and get_set(case.set_name).members in wanted


def _requoted_segments(case: Case, expected: Outcome, actual: Outcome) -> Any:
    """Each '/'-separated segment as furl writes it: a valid-encoded one requoted
    (``requoted("decode-utf8")`` with the pchar set), any other encoded with it; a
    fragment's ``%3F`` written back as ``?``."""
    if expected.raised or not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return None
    fragment = get_set(case.set_name).members == get_set("rfc3986-query").members
    pchar = get_set("rfc3986-pchar").name
    out = []
    for segment in case.value.split("/"):
        model = Model(requote="decode-utf8") if _VALID_SEGMENT.match(segment) else Model()
        out.append(render(model, ENCODE.name, dataclasses.replace(case, value=segment,
                                                                set_name=pchar)))
    text = "/".join(out)
    return Outcome(text.replace("%3F", "?") if fragment else text), actual


_REQUOTED_SEGMENTS = Reconciler(
    "requoted_segments", frozenset({ENCODE.name}), _requoted_segments,
    "an existing %HH is data: its % is encoded as %25",
    "a segment of only pchar and valid %HH is unquoted and quoted again", REPLACE)


def _query() -> Any:
    import furl

    return furl.Query


class FurlAdapter(FunctionAdapter):
    """furl: Query, and the path, fragment and userinfo of a furl (module docstring)."""

    distribution = "furl"
    divergences = (
        urlencode_entry(
            "furl", "furl/furl.py Query.encode(dont_quote='') -> create_quote_fn: "
            "urllib.parse.quote(s, safe='') then %20 -> +; after an empty name, "
            '"Unquote \'=\' to allow queries like \'?===\'"; ' + CITE_URLLIB,
            raw_equals=True,
        ),
        divergence(
            id="furl-query-empty-kept", check=FORM_PARSE.name, reconcile=empty_pairs("kept"),
            citation="furl/furl.py Query._extract_items_from_querystr: every '&'-separated "
                     "item becomes a param, so that str(Query(text)) gives text back",
            why="the URL Standard 5.1 skips empty sequences; furl keeps each as an empty "
                "name with an empty value",
            example=FormParseCase("a=1&&b=2"),
        ),
        divergence(
            id="furl-path-requoted", check=ENCODE.name, reconcile=_REQUOTED_SEGMENTS,
            applies=lambda case: _in_set("rfc3986-pchar-/", "rfc3986-query")(case)
            and PERCENT_ENCODED_BYTE.search(str(getattr(case, "value", ""))) is not None,
            summary="a path or fragment string's valid-encoded segments are requoted: "
                    "%41 -> A, %2f -> %2F (a '/' inside a segment), %E9 -> U+FFFD",
            citation=_CITE_SEGMENTS + "; furl's README (Path): 'Path segments in segments "
                     "are percent-decoded and all interaction with segments should take place "
                     "with percent-decoded strings'",
            why="a path string is taken as already encoded where it can be: furl keeps "
                "its segments decoded and quotes them again on output",
            example=EncodeCase("%41%2f b/%41", "rfc3986-pchar-/"),
        ),
    )

    def __init__(self) -> None:
        query = _query()

        def query_value(value: str) -> str:
            return str(query().set([("a", value)]))[2:]

        def serialize(pairs: list[tuple[str, str]]) -> str:
            return str(query().set(pairs))

        def parse(text: str) -> list[tuple[str, str]]:
            return [(k, "" if v is None else v) for k, v in query(text).params.allitems()]

        components = {"userinfo": _userinfo, "path-segment": _path_segment, "path": _path,
                      "fragment": _fragment}
        encoders = {"query-value": (get_set(QUERY_VALUE_SPEC), query_value)}
        encoders.update({label: (get_set(COMPONENT_SETS[label]), fn)
                         for label, fn in components.items()})
        super().__init__(
            "furl", encoders, None, serialize, parse,
            {"query-value": QUERY_VALUE_SPEC, **COMPONENT_SETS}, True,
            spaces=dict.fromkeys(components, False),
        )
        self.modules_under_test = ("furl.furl",)

    def reproduction(self, check: str, case: Case) -> str | None:
        """A component's call (``_CALLS``) with the value; else FunctionAdapter's."""
        label = self.label_of(case)
        if label in _CALLS and isinstance(case, EncodeCase):
            return library_call(("furl",), _CALLS[label], value=case.value)
        return super().reproduction(check, case)
