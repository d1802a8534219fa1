"""Adapters built from plain functions, for one-function libraries (``function_adapter``).

::

    # mypkg/fuzzing.py
    from pctfuzz.oracles import function_adapter
    from requests.utils import requote_uri
    requote = function_adapter("requote", encode=requote_uri, sets={"requote": "encodeURI-%25[]"},
                               distribution="requests")
    # pctfuzz fuzz diff_encode --impl mypkg.fuzzing:requote

Each callable answers one of the four questions (``pctfuzz._internal.oracles``) for the cases it
can express; the others are ``Unsupported``:

- ``encode(str) -> str`` implements one set (``sets``: label -> set spec or
  ``PercentEncodeSet``, ``pctfuzz._internal.setspec``) or a mapping label -> callable for several.
  It gets the cases whose set has the same bytes as one of them, with a str value in
  UTF-8, whose space handling matches ``space_as_plus`` (what the function writes for a
  space; cases without a space always match);
- ``decode(str) -> bytes | str`` gets str values; a str answer is compared as its UTF-8
  bytes (lone surrogates as ``surrogatepass``, so they show);
- ``form_serialize(list of (name, value)) -> str`` gets UTF-8 cases;
- ``form_parse(str) -> iterable of (name, value)`` gets str text.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType, ModuleType

from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.encoding import lookup
from pctfuzz._internal.errors import UsageError
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE, FORM_SERIALIZE, Operation
from pctfuzz._internal.oracles.base import Adapter, Unsupported, library_call
from pctfuzz._internal.sets import PercentEncodeSet, get_set

__all__ = ["FunctionAdapter", "function_adapter"]

EncodeFn = Callable[[str], str]
DecodeFn = Callable[[str], "bytes | str"]
FormSerializeFn = Callable[[list[tuple[str, str]]], str]
FormParseFn = Callable[[str], Iterable[tuple[str, str]]]


def _utf8(label: str) -> bool:
    return lookup(label).is_utf8


def _importable(fn: Callable[..., object] | None) -> tuple[str, str] | None:
    """(module, qualified name) under which ``fn`` is imported again, or None (a
    lambda, a closure, a bound method: nothing a reproduction can import)."""
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname \
            or module.startswith("pctfuzz.") or module == "__main__":
        return None
    try:
        found: object = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return (module, qualname) if found is fn else None


def libraries_of(module_name: str) -> set[str]:
    """The top-level packages outside the standard library whose modules, functions or
    classes the module ``module_name`` holds: the library a thin wrapper calls (``def
    dec(s): return lib.decode(s)``). Without them the code under test was the wrapper
    alone: libFuzzer's coverage saw none of the library's branches, and every statement
    of the library that raised was located at the wrapper's one call (hold-out 12: two
    real crashes were one finding with a third)."""
    module = sys.modules.get(module_name)
    if module is None:
        return set()
    found = set()
    for value in list(vars(module).values()):
        name = value.__name__ if isinstance(value, ModuleType) else getattr(
            value, "__module__", None)
        top = name.partition(".")[0] if isinstance(name, str) else ""
        if top and not top.startswith("_") and top not in sys.stdlib_module_names \
                and top not in ("pctfuzz", module_name.partition(".")[0]):
            found.add(top)
    return found


def standard_modules_called(fn: Callable[..., object]) -> set[str]:
    """The standard library modules whose functions or classes ``fn``'s own code names
    (``urllib.parse`` for ``def dec(s): return unquote(s, errors="strict")`` and for
    ``urllib.parse.unquote(s)``): a wrapper of the standard library, whose module is
    then code under test as a library's is (``libraries_of``). Only what the function
    itself names, so a module its wrapper module imports for other functions is not
    instrumented."""
    code, scope = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
    if code is None or not isinstance(scope, dict):
        return set()
    names: set[str] = set()
    codes = [code]
    while codes:  # (and the lambdas and comprehensions inside it)
        each = codes.pop()
        names.update(each.co_names)
        codes += [c for c in each.co_consts if hasattr(c, "co_names")]
    reached = [scope[name] for name in names if name in scope]
    for _ in range(2):  # urllib -> urllib.parse -> unquote
        reached += [getattr(value, name, None) for value in reached
                    if isinstance(value, ModuleType) for name in names]
    found = set()
    for value in reached:
        module = getattr(value, "__module__", None) if callable(value) else None
        top = module.partition(".")[0] if isinstance(module, str) else ""
        if top in sys.stdlib_module_names and not top.startswith("_") and top != "builtins":
            found.add(str(module))
    return found


def _code_under_test(callables: Iterable[Callable[..., object] | None]) -> tuple[str, ...]:
    """The modules of ``callables``, then the libraries they call (whose version a
    finding records when the functions' own modules are in no distribution: a
    wrapper's) and the standard library modules they name, for coverage and for where
    a crash rose: not builtins, not this package."""
    fns = [fn for fn in callables if fn is not None]
    modules = {m for fn in fns if isinstance(m := getattr(fn, "__module__", None), str)}
    libraries = sorted(({lib for m in modules for lib in libraries_of(m)}
                        | {m for fn in fns for m in standard_modules_called(fn)}) - modules)
    return tuple(m for m in (*sorted(modules), *libraries)
                 if m not in sys.builtin_module_names and m != "builtins"
                 and not m.startswith("pctfuzz."))


class FunctionAdapter(Adapter):
    """An ``Adapter`` whose answers come from plain callables (module docstring)."""

    #: The installed distribution whose version findings record (``impl_version``).
    distribution: str | None = None

    def __init__(
        self,
        name: str,
        encoders: Mapping[str, tuple[PercentEncodeSet, EncodeFn]],
        decode: DecodeFn | None,
        form_serialize: FormSerializeFn | None,
        form_parse: FormParseFn | None,
        sets: Mapping[str, str | PercentEncodeSet],
        space_as_plus: bool,
        spaces: Mapping[str, bool] | None = None,
        distribution: str | None = None,
    ) -> None:
        """``space_as_plus``: what the encoders write for a space; ``spaces`` overrides
        it per label (a library whose query encoder writes '+' and path encoder %20);
        ``distribution``: whose version findings record (``oracles.base.impl_version``)."""
        self.name = name
        if distribution is not None:  # else a subclass's own (HttpxAdapter), if any
            self.distribution = distribution
        self.registry_names = (name,)
        #: label -> spec or set, as declared (what ``--set`` labels and campaigns read).
        self.sets = MappingProxyType(dict(sets))
        self.space_as_plus = space_as_plus
        # What it answers, so campaigns draw cases it can answer (formats.AnswerDomain)
        self.encodings = ("UTF-8",)
        self.value_types = ("str",)
        self._plus = {label: (spaces or {}).get(label, space_as_plus) for label in encoders}
        self.spaces = tuple(sorted(set(self._plus.values()))) or (space_as_plus,)
        self._encoders = encoders
        self._decode = decode
        self._form_serialize = form_serialize
        self._form_parse = form_parse
        #: ``label_of``'s answers by set name and spaceAsPlus
        self._labels: dict[tuple[str, bool], str] = {}
        by_operation: dict[Operation, list[Callable[..., object] | None]] = {
            ENCODE: [fn for _, fn in encoders.values()], DECODE: [decode],
            FORM_SERIALIZE: [form_serialize], FORM_PARSE: [form_parse]}
        #: Each operation's code under test: a campaign on the encoder neither
        #: instruments the form parser's module nor warns that it never reached it.
        self._modules = {op: _code_under_test(fns) for op, fns in by_operation.items()}
        self.modules_under_test = _code_under_test(
            [fn for fns in by_operation.values() for fn in fns])

    def modules_of(self, operation: Operation) -> tuple[str, ...]:
        """The modules of the functions that answer ``operation`` (``modules_under_test``
        is all of them)."""
        return self._modules.get(operation, ())

    def encode(self, case: EncodeCase) -> str:
        if not self._encoders:
            raise Unsupported(f"{self.name} does not percent-encode")
        label = self.label_of(case)
        fn = self._encoders[label][1] if label else None
        if fn is None:
            raise Unsupported(f"{self.name} encodes only the sets {', '.join(self._encoders)}")
        if isinstance(case.value, bytes):
            raise Unsupported(f"{self.name} encodes str, not bytes")
        if not _utf8(case.encoding):
            raise Unsupported(f"{self.name} encodes in UTF-8 only")
        plus = self._plus[label]
        if case.space_as_plus != plus and " " in case.value:
            space = "+" if plus else "%20"
            raise Unsupported(f"{self.name} writes space as {space} ({label})")
        return fn(case.value)

    def label_of(self, case: Case) -> str:
        """The label of the encoder an encode case goes to ("" for none): the first
        with the case's set, one that writes a space as the case does first (furl's
        query value and userinfo share a set: '+' and '%20')."""
        if not isinstance(case, EncodeCase):
            return ""
        key = (case.set_name, case.space_as_plus)
        label = self._labels.get(key)
        if label is None:  # (once per set: the harness asks on every input)
            members = get_set(case.set_name).members
            labels = [label for label, (pes, _) in self._encoders.items()
                      if pes.members == members]
            same_space = [label for label in labels if self._plus[label] == case.space_as_plus]
            label = self._labels[key] = (same_space or labels or [""])[0]
        return label

    def reproduction(self, check: str, case: Case) -> str | None:
        """The function the case goes to, imported from its module and called as the
        adapter calls it (answers converted as the methods convert them)."""
        fn: Callable[..., object] | None
        argument: object
        if isinstance(case, EncodeCase):
            label = self.label_of(case)
            fn = self._encoders[label][1] if label else None
            template, argument = "{f}(value)", case.value
        elif isinstance(case, DecodeCase):
            fn, argument = self._decode, case.value
            template = ('(lambda out: out.encode("utf-8", "surrogatepass") '
                        'if isinstance(out, str) else out)({f}(value))')
        elif isinstance(case, FormCase):
            fn, template, argument = self._form_serialize, "{f}(value)", list(case.pairs)
        else:
            fn, argument = self._form_parse, case.text
            template = "[(n, v) for n, v in {f}(value)]"
        where = _importable(fn)
        if where is None:
            return None
        module, qualname = where
        return library_call((module,), template.format(f=f"{module}.{qualname}"),
                            value=argument)

    def decode(self, case: DecodeCase) -> bytes:
        if self._decode is None:
            raise Unsupported(f"{self.name} does not percent-decode")
        if isinstance(case.value, bytes):
            raise Unsupported(f"{self.name} decodes str, not bytes")
        out = self._decode(case.value)
        return out.encode("utf-8", "surrogatepass") if isinstance(out, str) else out

    def form_serialize(self, case: FormCase) -> str:
        if self._form_serialize is None:
            raise Unsupported(f"{self.name} does not serialize forms")
        if not _utf8(case.encoding):
            raise Unsupported(f"{self.name} serializes forms in UTF-8 only")
        return self._form_serialize(list(case.pairs))

    def form_parse(self, case: FormParseCase) -> list[tuple[str, str]]:
        if self._form_parse is None:
            raise Unsupported(f"{self.name} does not parse forms")
        if isinstance(case.text, bytes):
            raise Unsupported(f"{self.name} parses str, not bytes")
        return [(name, value) for name, value in self._form_parse(case.text)]


def function_adapter(
    name: str,
    encode: EncodeFn | Mapping[str, EncodeFn] | None = None,
    decode: DecodeFn | None = None,
    form_serialize: FormSerializeFn | None = None,
    form_parse: FormParseFn | None = None,
    *,
    sets: Mapping[str, str | PercentEncodeSet] | None = None,
    space_as_plus: bool = False,
    spaces: Mapping[str, bool] | None = None,
    distribution: str | None = None,
) -> FunctionAdapter:
    """An adapter from plain callables (module docstring). ``spaces`` (label ->
    space_as_plus) overrides ``space_as_plus`` for some labels: a library whose query
    encoder writes '+' and whose path encoder writes %20. ``distribution``: the
    installed distribution whose version findings record (default: the one that holds
    the functions' module, when one does). ``PctfuzzError`` when
    ``encode`` and ``sets`` do not pair up, or ``spaces`` names a label of no set;
    ``UnknownSetError`` for a bad spec."""
    declared = dict(sets or {})
    resolved = {label: get_set(spec) for label, spec in declared.items()}
    if encode is None:
        encoders: dict[str, tuple[PercentEncodeSet, EncodeFn]] = {}
    elif callable(encode):
        if len(resolved) != 1:
            raise UsageError(
                f"function_adapter {name!r}: one encode function needs exactly one set in "
                f"sets={{label: spec}}, got {len(resolved)}"
            )
        ((label, pes),) = resolved.items()
        encoders = {label: (pes, encode)}
    else:
        if set(encode) != set(resolved):
            raise UsageError(
                f"function_adapter {name!r}: encode and sets must have the same labels"
            )
        encoders = {label: (resolved[label], fn) for label, fn in encode.items()}
    unknown = sorted(set(spaces or {}) - set(encoders))
    if unknown:
        raise UsageError(f"function_adapter {name!r}: spaces names {', '.join(unknown)}, "
                         "which no encode function has")
    return FunctionAdapter(
        name, encoders, decode, form_serialize, form_parse, declared, space_as_plus, spaces,
        distribution,
    )
