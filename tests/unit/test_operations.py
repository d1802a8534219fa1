"""The four operations, one record each (``pctfuzz._internal.operations``): every other list of
them derives from it, and the strings stored in records do not change."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

from pctfuzz._internal.cases import CASE_TYPES
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.operations import FORM_PARSE, FORM_SERIALIZE, OPERATIONS, get_operation

PCTFUZZ = Path(__file__).resolve().parents[2] / "src" / "pctfuzz"


def test_the_stored_spellings_are_the_case_types() -> None:
    # Records, corpora and signatures hold these strings: they must never change.
    assert [op.name for op in OPERATIONS] == ["encode", "decode", "form", "form-parse"]
    assert [op.ident for op in OPERATIONS] == ["encode", "decode", "form", "form_parse"]
    assert all(CASE_TYPES[op.name] is op.case_type for op in OPERATIONS)
    assert FORM_PARSE.targets == ("form_parse", "diff_form_parse")
    assert FORM_SERIALIZE.method == "form_serialize"


def test_every_list_of_operations_derives_from_the_record() -> None:
    from pctfuzz._internal.checks.profile import _METHOD
    from pctfuzz._internal.fuzz.matrix import CHECK_OF
    from pctfuzz._internal.identity.signatures import QUESTION
    from pctfuzz._internal.oracles.base import METHODS
    from pctfuzz._internal.outcome import CHECKS
    from pctfuzz._internal.reports.matrix import OPERATIONS as COLUMNS
    from pctfuzz._internal.reports.upstream import SECTIONS
    from pctfuzz._internal.targets import TARGETS

    names = [op.name for op in OPERATIONS]
    assert list(CHECKS) == list(COLUMNS) == list(SECTIONS) == names
    assert METHODS == ("encode", "decode", "form_serialize", "form_parse")
    assert dict(zip(names, METHODS, strict=True)) == _METHOD
    assert list(CHECK_OF.values()) == names
    assert list(QUESTION) == [op.ident for op in OPERATIONS]
    assert list(TARGETS) == [*(op.ident for op in OPERATIONS),
                             *(op.differential_target for op in OPERATIONS)]


@pytest.mark.parametrize("spelling", ["form-parse", "form_parse", "diff_form_parse"])
def test_each_spelling_finds_the_operation(spelling: str) -> None:
    assert get_operation(spelling) is FORM_PARSE


def test_an_unknown_operation_is_one_line() -> None:
    with pytest.raises(PctfuzzError, match=r"^unknown operation 'formparse'; known: "
                                           r"encode, decode, form, form-parse$"):
        get_operation("formparse")


# --- No operation name is written as a string outside the operations module (issue 35) ----

#: Where the names are written: the record (``operations.py``) and the case types whose
#: ``type`` it reads (``cases.py``, the record format).
_DEFINED_IN = frozenset({"_internal/operations.py", "_internal/cases.py"})

#: (module, its line's text around the string): why that string is not an operation's name.
_ALLOWED: dict[tuple[str, str], str] = {
    ("_internal/checks/invariants/expect.py", 'FORM_PARSE = "form-parse"'):
        "an invariant's name, part of a finding's signature: spelled as the operation, "
        "but another name, which never changes",
    ("_internal/named_sets.py", '"form": FORM.name'):
        "an alias of a percent-encode set",
    ("_internal/cli/init.py", 'f.role == "encode"'):
        "a role: function_adapter's keyword, the adapter method (Operation.method)",
    ("_internal/cli/init.py", 'f.role != "encode"'):
        "a role: function_adapter's keyword, the adapter method (Operation.method)",
    ("_internal/cli/init.py", 'fn.role == "encode"'):
        "a role: function_adapter's keyword, the adapter method (Operation.method)",
}


#: module -> function name -> its positional parameters' names (``self``, ``cls`` left
#: out), one tuple per definition; under "" those of every module.
Params = dict[str, dict[str, set[tuple[str, ...]]]]


def _params(trees: dict[str, ast.Module]) -> Params:
    found: Params = defaultdict(lambda: defaultdict(set))
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names = tuple(a.arg for a in (*node.args.posonlyargs, *node.args.args))
                names = names[1:] if names[:1] in (("self",), ("cls",)) else names
                found[module][node.name].add(names)
                found[""][node.name].add(names)
    return found


def _takes_check(call: ast.Call, index: int, module: str, params: Params) -> bool:
    """Whether the ``index``-th positional argument of ``call`` is a parameter named
    ``check``: in the module's own functions of that name, else in every function of
    that name in the package."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else None
    defined = (params[module].get(name) or params[""].get(name)) if name else None
    return bool(defined) and all(len(names) > index and names[index] == "check"
                                 for names in defined or ())


def _operation_sense(node: ast.Constant, parent: ast.AST, grandparent: ast.AST | None,
                     module: str, params: Params) -> bool:
    """Whether ``node``, "encode", "decode" or "form", stands where a check's name
    does: compared, a dict's key, a set's element, ``check=``, a ``check`` argument."""
    if isinstance(parent, ast.Compare) or (
            isinstance(parent, ast.Tuple | ast.List | ast.Set)
            and isinstance(grandparent, ast.Compare)):
        return True
    if isinstance(parent, ast.Dict) and any(key is node for key in parent.keys):
        return True
    if isinstance(parent, ast.Set):
        return True
    if isinstance(parent, ast.keyword) and parent.arg == "check":
        return True
    if isinstance(parent, ast.Call):
        index = next((i for i, arg in enumerate(parent.args) if arg is node), None)
        return index is not None and _takes_check(parent, index, module, params)
    return False


def operation_names_written(root: Path) -> list[str]:
    """``module:line: text`` of every string of ``root`` (a ``pctfuzz`` package) that
    names an operation outside the modules defining the names, the allowed ones left
    out: "form-parse" anywhere, "encode", "decode" and "form" where a check's name
    stands (``_operation_sense``)."""
    names = {op.name for op in OPERATIONS}
    trees = {path.relative_to(root).as_posix(): (path, ast.parse(path.read_text(), str(path)))
             for path in sorted(root.rglob("*.py")) if "peers" not in path.relative_to(root).parts}
    params = _params({module: tree for module, (_, tree) in trees.items()})
    found: list[tuple[str, int, int, str]] = []
    for module, (path, tree) in trees.items():
        if module in _DEFINED_IN:
            continue
        lines = path.read_text().splitlines()
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and node.value in names):
                continue
            parent = parents[node]
            if node.value != FORM_PARSE.name and not _operation_sense(
                    node, parent, parents.get(parent), module, params):
                continue
            line = lines[node.lineno - 1]
            if any(module == where and text in line for where, text in _ALLOWED):
                continue
            found.append((module, node.lineno, node.col_offset, line.strip()))
    return [f"{module}:{lineno}: {text}" for module, lineno, _, text in sorted(found)]


def test_no_operation_name_is_written_as_a_string() -> None:
    # A check's name is Operation.name (ENCODE.name, ..., FORM_PARSE.name); below the
    # record, where operations.py cannot be imported, the case type's (FormParseCase.type).
    found = operation_names_written(PCTFUZZ)
    assert found == [], f"{len(found)} operation names written as strings:\n" + "\n".join(found)


def test_the_allowed_strings_are_still_there() -> None:
    # An allowed site that went away leaves its entry behind: drop it.
    for (module, text), why in _ALLOWED.items():
        assert text in (PCTFUZZ / module).read_text(), (module, text, why)


def test_a_written_name_is_found(tmp_path: Path) -> None:
    root = tmp_path / "pctfuzz"
    root.mkdir()
    (root / "m.py").write_text(
        "def run(check, case): ...\n"
        "def ask(rule, check): ...\n"
        "def f(check, entries):\n"
        "    if check == 'decode' or check in ('encode', 'form'): ...\n"
        "    run('form', None), ask('encode', 'decode')\n"
        "    entries.add(id='x', check='encode')\n"
        "    return {'form-parse': 1}, {'decode'}, 'encode'.upper(), getattr(f, 'encode')\n")
    found = [line.split(": ")[0] for line in operation_names_written(root)]
    # Not 'encode'.upper(), getattr(f, 'encode'), nor ask's rule 'encode'.
    assert found == ["m.py:4", "m.py:4", "m.py:4", "m.py:5", "m.py:5", "m.py:6", "m.py:7",
                     "m.py:7"], found
