"""The old import paths (docs/api.md, "Old import paths"): what users' adapters and the
tests ``pctfuzz export`` wrote imported before the modules moved under the internal
package still import, each name with a ``DeprecationWarning`` that names its new place
and the release that removes it, and gives the very same object."""

from __future__ import annotations

import importlib
import warnings

import pytest

import pctfuzz
import pctfuzz.accept
import pctfuzz.oracles
from pctfuzz._internal import cases, sets, targets
from pctfuzz._internal.deprecation import REMOVED_IN
from pctfuzz._internal.oracles import process

#: old module -> (its new home, where its names' warnings send the user)
OLD = {
    "pctfuzz.cases": (cases, {"EncodeCase": "pctfuzz.oracles", "FormParseCase": "pctfuzz.oracles",
                              "case_from_json": "pctfuzz export"}),
    "pctfuzz.sets": (sets, {"get_set": "pctfuzz", "SETS": "pctfuzz", "COMPONENT": "get_set"}),
    "pctfuzz.targets": (targets, {"get_target": "pctfuzz export",
                                  "resolve_subject": "pctfuzz export"}),
    "pctfuzz.oracles.process": (process, {"ProcessAdapter": "pctfuzz.oracles"}),
}


@pytest.mark.parametrize("old", OLD)
def test_each_old_name_warns_and_is_the_same_object(old: str) -> None:
    home, advice = OLD[old]
    module = importlib.import_module(old)
    assert module.__all__ and set(module.__all__) <= set(home.__all__)
    for name in module.__all__:
        with pytest.warns(DeprecationWarning) as caught:
            value = getattr(module, name)
        assert value is getattr(home, name), name
        message = str(caught[0].message)
        assert message.startswith(f"{old}.{name} is deprecated and will be removed in "
                                  f"pctfuzz {REMOVED_IN}: "), message
        assert "_internal" not in message
        if name in advice:
            assert advice[name] in message, message


def test_from_import_warns_at_the_users_line() -> None:
    source = "from pctfuzz.cases import EncodeCase\nfrom pctfuzz.sets import get_set\n"
    scope: dict[str, object] = {}
    with pytest.warns(DeprecationWarning) as caught:
        exec(compile(source, "users_adapter.py", "exec"), scope)
    assert scope["EncodeCase"] is pctfuzz.oracles.EncodeCase
    assert scope["get_set"] is pctfuzz.get_set
    assert [(w.filename, w.lineno) for w in caught] == [("users_adapter.py", 1),
                                                        ("users_adapter.py", 2)]


def test_the_accept_helpers_pctfuzz_oracles_used_to_export() -> None:
    for name in ("divergence", "left_raw", "space_as", "both_refuse"):
        with pytest.warns(DeprecationWarning, match=rf"pctfuzz\.oracles\.{name} .* "
                                                    r"import it from pctfuzz\.accept"):
            assert getattr(pctfuzz.oracles, name) is getattr(pctfuzz.accept, name)
    with pytest.warns(DeprecationWarning, match="no longer public API"):
        assert pctfuzz.oracles.IMPLS  # type: ignore[attr-defined]
    assert "divergence" not in pctfuzz.oracles.__all__  # not part of the public line


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    import pctfuzz.cases

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no attribute 'nope'"):
            pctfuzz.cases.nope  # type: ignore[attr-defined]  # noqa: B018
        with pytest.raises(AttributeError):
            pctfuzz.oracles.nope  # type: ignore[attr-defined]  # noqa: B018


def test_a_test_file_that_an_older_pctfuzz_export_wrote_still_runs() -> None:
    """The body ``pctfuzz export`` wrote before the move (0.1 development)."""
    source = (
        "from pctfuzz.cases import case_from_json\n"
        "from pctfuzz.targets import get_target, resolve_subject\n"
        "target = get_target('diff_encode')\n"
        "case = case_from_json({'type': 'encode', 'value': {'text': 'a b'}, "
        "'set': 'component', 'encoding': 'UTF-8', 'space_as_plus': False})\n"
        "impl = resolve_subject(target, 'urllib')\n"
        "target.check(case, impl)\n"
    )
    with pytest.warns(DeprecationWarning, match="pctfuzz export"):
        exec(compile(source, "test_exported.py", "exec"), {})
