"""``python -m tui``: the same as ``supervisor-tui``."""

from .app import main

main()
