"""``python -m spadegym.cli``."""

import sys

from spadegym.cli import main

sys.exit(main())
