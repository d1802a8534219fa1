"""``python -m pctfuzz``: the ``pctfuzz`` command (see ``pctfuzz.cli``)."""

import sys

from pctfuzz.cli.main import main

sys.exit(main())
