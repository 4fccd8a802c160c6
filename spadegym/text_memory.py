"""Moved to ``spadegym.vector.text_memory``: this old name warns, and goes in the next release.

``docs/registry.md`` named ``spadegym.text_memory`` before the module joined the
``spadegym.vector`` package, so code written against it keeps running for one release, with a
``FutureWarning`` that names the new path.
"""

from __future__ import annotations

import warnings

from spadegym.vector.text_memory import SharedTexts, register

__all__ = ["SharedTexts", "register"]

warnings.warn(
    "spadegym.text_memory moved to spadegym.vector.text_memory: import SharedTexts and register "
    "from there (the old name goes in the next release).",
    FutureWarning,
    stacklevel=2,
)
