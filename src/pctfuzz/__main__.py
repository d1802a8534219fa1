"""``python -m pctfuzz``: the ``pctfuzz`` command (see ``pctfuzz.cli``)."""

import sys

from .cli import main

sys.exit(main())
