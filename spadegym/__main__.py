"""``python -m spadegym``: the command line, without relying on the console script's path."""

import sys

from spadegym.cli import main

sys.exit(main())
