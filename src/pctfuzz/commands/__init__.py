"""Subcommands beyond encode/decode/sets; each module has ``add_command(subparsers)``."""
