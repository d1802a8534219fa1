"""pctfuzz's internals: no stable API, may change in any release.

The public API is ``pctfuzz`` (the reference encoder), ``pctfuzz.oracles``
(adapters), ``pctfuzz.accept`` (accepted differences), ``pctfuzz.testing``
(Hypothesis strategies and generated tests) and the ``pctfuzz`` command;
``docs/api.md`` lists each public name. Everything under ``pctfuzz._internal``
is the machinery behind them (``docs/architecture.md``).
"""
