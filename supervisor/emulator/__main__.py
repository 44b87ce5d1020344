"""``python -m supervisor.emulator``: see the package docstring."""

import sys

from supervisor.emulator.server import main

if __name__ == "__main__":
    sys.exit(main())
