"""httpx as an implementation under test (see ``pctfuzz._internal.oracles``).

httpx's public query API is ``httpx.QueryParams``: ``str(QueryParams(pairs))``
serializes (it calls ``urllib.parse.urlencode``, httpx/_urls.py), ``QueryParams(text)``
parses (``urllib.parse.parse_qs(keep_blank_values=True)``). Its percent-encoder
(``httpx._urlparse.quote``) is private, so encode is asked through the public API too,
once per component ``httpx.URL`` builds (httpx/_urlparse.py quotes each with a safe set
its comments take from the URL Standard 1.3; each label declares that standard set):

- **encode** (label ``query-value``): a query value, ``str(QueryParams([("", v)]))``
  without its leading ``=``; UTF-8 str, space as ``+``;
- **encode** (label ``path``, set ``path``): ``URL("http://h/").copy_with(path="/" +
  v).raw_path`` without its leading ``/``;
- **encode** (label ``query``, set ``special-query``, an http URL's): the query of
  ``URL("http://h/?" + v)`` (a ``#`` would start the fragment: Unsupported);
- **encode** (label ``fragment``, set ``fragment``): ``URL("http://h/").copy_with(
  fragment=v)``, the text after its ``#``;
- **encode** (label ``userinfo``, set ``userinfo``): ``URL("http://h/").copy_with(
  username=v).userinfo``;
- **form_serialize**: ``str(QueryParams(pairs))``;
- **form_parse**: ``QueryParams(text).multi_items()``;
- **decode**: Unsupported (httpx has no public percent-decoder).
"""

from __future__ import annotations

from typing import Any

from pctfuzz._internal.accept.entry import REPLACE
from pctfuzz._internal.accept.reconcilers import Reconciler, divergence, pairs_order
from pctfuzz._internal.cases import Case, EncodeCase, FormParseCase
from pctfuzz._internal.operations import ENCODE, FORM_PARSE
from pctfuzz._internal.oracles._querystring import (
    CITE_URLLIB,
    query_params_functions,
    urlencode_entry,
)
from pctfuzz._internal.oracles.base import Unsupported, library_call
from pctfuzz._internal.oracles.function import FunctionAdapter
from pctfuzz._internal.sets import get_set

__all__ = ["HttpxAdapter"]

#: pctfuzz probe out/p.py:httpx_query (str(QueryParams([("", v)]))[1:]), httpx 0.28.1:
#: exact set rfc3986-unreserved, space +, existing %HH encoded, non-ASCII utf-8.
QUERY_VALUE_SPEC = "rfc3986-unreserved"
#: label -> the URL Standard's set httpx/_urlparse.py names for the component (probe:
#: path is path-^, query is query, i.e. special-query-', the others exact).
COMPONENT_SETS = {"path": "path", "query": "special-query", "fragment": "fragment",
                  "userinfo": "userinfo"}
_CITE_URLPARSE = ("httpx/_urlparse.py urlparse: 'If a component includes any ASCII control "
                  "characters including \\t, \\r, \\n, then treat it as invalid'")


def _url() -> Any:
    import httpx

    return httpx.URL("http://h/")


def _path(value: str) -> str:
    raw: bytes = _url().copy_with(path="/" + value).raw_path
    return raw.decode("ascii")[1:]


def _query(value: str) -> str:
    import httpx

    if "#" in value:
        raise Unsupported("a '#' in the URL's text starts its fragment")
    raw: bytes = httpx.URL("http://h/?" + value).raw_path
    return raw.decode("ascii").partition("?")[2]


def _fragment(value: str) -> str:
    return str(_url().copy_with(fragment=value)).partition("#")[2]


def _userinfo(value: str) -> str:
    raw: bytes = _url().copy_with(username=value).userinfo
    return raw.decode("ascii")


#: label -> the call each component function makes, for a library-only reproduction.
_CALLS = {
    "path": 'httpx.URL("http://h/").copy_with(path="/" + value).raw_path.decode("ascii")[1:]',
    "query": 'httpx.URL("http://h/?" + value).raw_path.decode("ascii").partition("?")[2]',
    "fragment": 'str(httpx.URL("http://h/").copy_with(fragment=value)).partition("#")[2]',
    "userinfo": 'httpx.URL("http://h/").copy_with(username=value).userinfo.decode("ascii")',
}


def _component(*labels: str) -> Any:
    wanted = {get_set(COMPONENT_SETS[label]).members for label in labels}
    return lambda case: isinstance(case, EncodeCase) and get_set(case.set_name).members in wanted


def _text(case: Case) -> str:
    """An encode case's str value ("" for any other case)."""
    return case.value if isinstance(case, EncodeCase) and isinstance(case.value, str) else ""


def _has_control(case: Case) -> bool:
    return any(ord(c) < 0x20 or c == "\x7f" for c in _text(case))


def _refused(case: Case, expected: Any, actual: Any) -> Any:
    return (actual, actual) if type(actual.error).__name__ == "InvalidURL" else None


def _remove_dot_segments(path: str) -> str:
    """httpx/_urlparse.py ``normalize_path``, its reading of RFC 3986 5.2.4: the path
    split at '/', each '.' dropped, each '..' drops the segment before it (not the
    first, empty one), joined again; no '/' is added after a last '.' or '..' (RFC 3986
    keeps one: '/a/b/..' is '/a/' there, '/a' here)."""
    components = path.split("/")
    if "." not in components and ".." not in components:
        return path
    output: list[str] = []
    for component in components:
        if component == "..":
            if output and output != [""]:
                output.pop()
        elif component != ".":
            output.append(component)
    return "/".join(output)


def _dot_segments(case: Case, expected: Any, actual: Any) -> Any:
    if expected.raised or not isinstance(expected.value, str):
        return None
    return type(expected)(_remove_dot_segments("/" + expected.value)[1:]), actual


_REFUSED = Reconciler("refuses", frozenset({ENCODE.name}), _refused, "percent-encodes it",
                      "raises httpx.InvalidURL", REPLACE)
_DOTS = Reconciler("dot_segments", frozenset({ENCODE.name}), _dot_segments,
                   "keeps '.' and '..' segments", "removes them (RFC 3986 5.2.4)", REPLACE)


def _query_params() -> Any:
    import httpx

    return httpx.QueryParams


class HttpxAdapter(FunctionAdapter):
    """httpx.QueryParams: a query value, serializing and parsing (module docstring)."""

    distribution = "httpx"
    divergences = (
        urlencode_entry(
            "httpx", "httpx/_urls.py: QueryParams stores a dict name -> list of values and "
            "__str__ is urlencode(self.multi_items()); " + CITE_URLLIB, grouped=True,
        ),
        divergence(
            id="httpx-queryparams-grouped", check=FORM_PARSE.name,
            reconcile=pairs_order("grouped"),
            citation="httpx/_urls.py QueryParams.__init__: parse_qs(value, "
                     "keep_blank_values=True) into a dict of lists",
            why="QueryParams is a multi-dict: the values of one name are kept together, "
                "in the order the name first appears",
            example=FormParseCase("a=1&b=2&a=3"),
        ),
        divergence(
            id="httpx-url-control", check=ENCODE.name, reconcile=_REFUSED,
            applies=lambda case: _component("path", "query", "fragment")(case)
            and _has_control(case),
            summary="URL refuses a path, query or fragment with an ASCII control character",
            citation=_CITE_URLPARSE + "; WHATWG URL Standard 1.3 (C0 control set)",
            why="a deliberate refusal: httpx validates each component it is given",
            example=EncodeCase("a\tb", "path"),
        ),
        divergence(
            id="httpx-url-path-delimiter", check=ENCODE.name, reconcile=_REFUSED,
            applies=lambda case: _component("path")(case)
            and ("?" in _text(case) or "#" in _text(case)),
            summary="copy_with(path=...) refuses a path with '?' or '#'",
            citation="httpx/_urlparse.py urlparse: 'Ensure that keyword arguments match as a "
            "valid regex' (COMPONENT_REGEX path '[^?#]*'), InvalidURL(\"Invalid URL "
            "component 'path'\")",
            why="the path argument is a path, not a URL: a '?' or '#' would start another "
            "component, so httpx refuses it rather than encode it",
            example=EncodeCase("a?b", "path"),
        ),
        divergence(
            id="httpx-url-path-dot-segments", check=ENCODE.name, reconcile=_DOTS,
            applies=lambda case: _component("path")(case) and "." in _text(case),
            summary="URL removes '.' and '..' path segments",
            citation="httpx/_urlparse.py normalize_path: 'Drop \".\" and \"..\" segments "
            "from a URL path' (RFC 3986 5.2.4)",
            why="a URL with a scheme or authority has its path normalized, as RFC 3986 "
            "5.2.4 says",
            example=EncodeCase("a/../b", "path"),
        ),
    )

    def __init__(self) -> None:
        qp = _query_params()

        query_value, serialize, parse = query_params_functions(qp)

        components = {"path": _path, "query": _query, "fragment": _fragment,
                      "userinfo": _userinfo}
        encoders = {"query-value": (get_set(QUERY_VALUE_SPEC), query_value)}
        encoders.update({label: (get_set(COMPONENT_SETS[label]), fn)
                         for label, fn in components.items()})
        super().__init__(
            "httpx", encoders, None, serialize, parse,
            {"query-value": QUERY_VALUE_SPEC, **COMPONENT_SETS}, True,
            spaces=dict.fromkeys(components, False),
        )
        self.modules_under_test = ("httpx._urls", "httpx._urlparse")

    def reproduction(self, check: str, case: Case) -> str | None:
        """A component's call (``_CALLS``) with the value; else FunctionAdapter's."""
        if isinstance(case, EncodeCase) and isinstance(case.value, str):
            members = get_set(case.set_name).members
            for label, call in _CALLS.items():
                if get_set(COMPONENT_SETS[label]).members == members:
                    return library_call(("httpx",), call, value=case.value)
        return super().reproduction(check, case)
