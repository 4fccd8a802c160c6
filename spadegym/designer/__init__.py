"""The designer: prompts, the repair loop, hints, ``generate``, and a trainer's rounds.

``generate(n, llm, ...)`` writes candidate environments with a designer model, validates and
repairs them, checks novelty against the memory and registers the good ones; see
``spadegym.designer.generate``. A trainer runs the same pipeline in batches
(``spadegym.designer.rounds``): it samples the replies itself, for their tokens. Both plan
``Slot``s (``slots``), make ``Candidate``s (``candidates``) and register through ``commit``.

``DesignTurn`` was called ``Turn`` until this release (``spadegym.play.Turn`` is a solver's
turn); the old name still imports, with a ``FutureWarning``.
"""

from __future__ import annotations

from typing import Any

from spadegym.designer.candidates import STATUSES, Candidate, DesignTurn, GenerationReport, Tokens
from spadegym.designer.generate import generate
from spadegym.designer.hints import HintResult, clean_hint, hint_problem, write_hint
from spadegym.designer.prompts import (
    Example,
    contract_rules,
    design_messages,
    hint_messages,
    repair_messages,
)
from spadegym.designer.slots import Slot, plan_slot
from spadegym.util import compat

__all__ = [
    "STATUSES",
    "Candidate",
    "DesignTurn",
    "Example",
    "GenerationReport",
    "HintResult",
    "Slot",
    "Tokens",
    "clean_hint",
    "contract_rules",
    "design_messages",
    "generate",
    "hint_messages",
    "hint_problem",
    "plan_slot",
    "repair_messages",
    "write_hint",
]


def __getattr__(name: str) -> Any:
    return compat.renamed(__name__, name, {"Turn": ("DesignTurn", DesignTurn)})
