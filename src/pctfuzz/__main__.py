"""``python -m pctfuzz``: the ``pctfuzz`` command (see ``pctfuzz._internal.cli``)."""

import sys

from pctfuzz._internal.cli.main import main

sys.exit(main())
