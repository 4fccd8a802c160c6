"""``validate``: is this text a good environment program? Cheap checks first, failures in words.

The battery (``battery``) runs the checks in ``CHECK_ORDER`` on one program in one fresh worker:
static gates (``static``), the sandboxed gates (``gates``), then behavioural checks that play
the program (``checks``, ``random_play``, ``fuzz``, ``value_checks``, ``state``, sharing a
``context``) under a time budget (``budget``); ``leak`` tells whether a hint gives the answer
away. ``Validator`` and ``validate_many`` (``validator``) validate many programs at once, on
threads or Ray actors (``executors``). What comes back is data (``verdict``): a
``ValidationReport`` of ``CheckResult``s and the ``ProgramProperties`` learned, phrased to be
fed back to the designer model.

``NearestMatch`` was called ``Novelty`` until this release; the old name still imports, with a
``FutureWarning`` (``spadegym.memory.Novelty`` is the memory's verdict).
"""

from __future__ import annotations

from typing import Any

from spadegym.util import compat
from spadegym.validation.battery import CHECK_ORDER, validate
from spadegym.validation.config import ValidationConfig
from spadegym.validation.validator import Validator, validate_many
from spadegym.validation.verdict import (
    CheckResult,
    NearestMatch,
    ProgramProperties,
    ValidationReport,
)

__all__ = [
    "CHECK_ORDER",
    "CheckResult",
    "NearestMatch",
    "ProgramProperties",
    "ValidationConfig",
    "ValidationReport",
    "Validator",
    "validate",
    "validate_many",
]


def __getattr__(name: str) -> Any:
    return compat.renamed(__name__, name, {"Novelty": ("NearestMatch", NearestMatch)})
