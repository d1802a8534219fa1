"""``python -m pctfuzz``: the ``pctfuzz`` command (see ``pctfuzz._internal.cli``)."""

from pctfuzz._internal.cli.main import run

run()
