"""Exit codes of the ``pctfuzz`` command: one home (``pctfuzz._internal.cli`` documents them)."""

EXIT_OK = 0
"""Success; fuzz/replay: nothing new / nothing reproduces."""
EXIT_FOUND = 1
"""fuzz: a new finding was saved; replay: an input reproduces or fails differently."""
EXIT_USAGE = 2
"""Usage error or unusable input (``UsageError``, or any ``PctfuzzError``)."""
EXIT_INCOMPLETE = 3
"""The run is incomplete: something was lost, unreadable, or never ran."""
EXIT_INTERNAL = 4
"""A bug in pctfuzz, reported as one line."""
EXIT_SIGHUP, EXIT_SIGINT, EXIT_SIGTERM = 129, 130, 143
"""Stopped by a signal (128 + its number, the shell's convention)."""
