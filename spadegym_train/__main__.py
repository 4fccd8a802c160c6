"""``python -m spadegym_train``: the same as ``spadegym-train``."""

from __future__ import annotations

import sys

from spadegym_train.cli import main

if __name__ == "__main__":
    sys.exit(main())
