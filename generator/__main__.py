"""Entry point for `python3 -m generator`."""

import sys

from .cli import main

sys.exit(main())
