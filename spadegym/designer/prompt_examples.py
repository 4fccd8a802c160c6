"""What a design prompt shows from the memory: examples with their code, a negative, neighbours.

One choice for every designer, ``spadegym generate`` and ``spadegym_train`` alike (SPADE's):
two examples drawn at random from the ten best environments of the slot's skill (by hint
regret) whose win rate lies in [0.15, 0.85] (of any skill while that skill has none), shown
with their code; one negative, an
environment that was too easy (win rate above 0.9) or too hard (below 0.1), of any skill, by
title; and the stored environments nearest the grounding document, which the new one must not
copy. The draw uses the caller's generator, so a seeded run shows the same examples again, and
``DesignContext.shown`` names them for the logs.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from spadegym.designer.prompts import Example

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike

__all__ = ["EXAMPLE_CODE_CHARS", "DesignContext", "draw_context"]

EXAMPLE_CODE_CHARS = 2000
"""Characters of each example program shown in the design prompt (SPADE shows 2,000)."""

EASY_ABOVE, HARD_BELOW = 0.9, 0.1
"""Win rates beyond which an environment is a negative example (SPADE's cut-offs)."""


@dataclass(frozen=True)
class DesignContext:
    """The memory's part of one design prompt."""

    examples: list[Example] = field(default_factory=list)
    negative: Example | None = None
    nearby: list[Example] = field(default_factory=list)

    @property
    def shown(self) -> dict[str, Any]:
        """The ids shown, for logs: examples, the negative (and why), the neighbours."""
        return {
            "examples": [e.env_id for e in self.examples],
            "negative": self.negative.env_id if self.negative else None,
            "negative_why": self.negative.why if self.negative else None,
            "nearby": [e.env_id for e in self.nearby],
        }


def draw_context(
    memory: MemoryLike | None,
    skill: str,
    document: str,
    rng: random.Random,
    source_of: Callable[[str], str | None],
    *,
    examples: int = 2,
    pool: int = 10,
    band: tuple[float, float] = (0.15, 0.85),
    nearby: int = 3,
) -> DesignContext:
    """Draw the memory's examples for one design prompt.

    Args:
        memory: an ``EnvironmentMemory`` (``None`` or empty: no context).
        skill: the slot's skill; the examples share it.
        document: the grounding document, for the neighbours.
        rng: the generator of the draw (seeded by the caller).
        source_of: an environment's program by id (from the registry), or ``None``.
        examples: how many examples to show with their code.
        pool: the best environments (by regret) the examples are drawn from.
        band: the win-rate band of the examples.
        nearby: how many neighbours of the document to name.
    """
    if memory is None or len(memory) == 0:
        return DesignContext()
    # The same skill, as SPADE; any skill while the slot's skill has none in the band yet.
    best = memory.frontier(k=pool, band=band, skill=skill) or memory.frontier(k=pool, band=band)
    chosen = rng.sample(best, min(examples, len(best)))
    shown = [_example(s, source_of(s.env_id)) for s in chosen]
    candidates = [(s, "too easy") for s in memory.too_easy(k=1, threshold=EASY_ABOVE)]
    candidates += [(s, "too hard") for s in memory.too_hard(k=1, threshold=HARD_BELOW)]
    negative = None
    if candidates:
        stats, why = rng.choice(candidates)
        negative = _example(stats, None, why)
    neighbours = [Example(n.env_id, n.title, n.skill) for n in memory.near(document, k=nearby)]
    return DesignContext(shown, negative, neighbours)


def _example(stats: Any, source: str | None, why: str = "") -> Example:
    return Example(
        stats.env_id,
        stats.title,
        stats.skill,
        stats.win_rate,
        stats.regret,
        source[:EXAMPLE_CODE_CHARS] if source else None,
        why,
    )
