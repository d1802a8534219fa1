"""An adapter whose ``modules_under_test`` names a module it never calls (issue 21,
part 6): a campaign must say that this code under test is not reached. Importable as
``unreached_impls:NeverCallsJsonDecoder`` when ``tests/support`` is on the path."""

from __future__ import annotations

from pctfuzz._internal.oracles.urllib_parse import UrllibAdapter


class NeverCallsJsonDecoder(UrllibAdapter):
    """urllib.parse, declaring ``json.decoder`` (pure Python, imported by pctfuzz, never
    called by urllib) as code under test too."""

    modules_under_test = ("urllib.parse", "json.decoder")
