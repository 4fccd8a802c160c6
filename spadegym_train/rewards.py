"""Designer rewards from the solver's plain and hinted outcomes, and the penalties.

All four read the outcomes of one environment's plays, on the win-rate scale: one-player
outcomes as they are, two-player results in [-1, 1] mapped to (r + 1) / 2 first
(``spadegym.play.as_win_rate``). ``regret`` and ``spade_blend`` follow SPADE,
``spice_variance`` SPICE (peak at a 50% pass rate), ``learnability`` Absolute Zero. "Solved"
means an outcome of 1.0, the contract's win; win rate is the mean outcome.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from spadegym.errors import ConfigError

SOLVED = 1.0 - 1e-9
"""Outcomes at or above this count as solved (the contract's win is 1.0)."""


def mean(values: Sequence[float]) -> float:
    """The mean, 0 for no values."""
    return sum(values) / len(values) if values else 0.0


def solve_rate(outcomes: Sequence[float]) -> float:
    """Share of outcomes that are wins."""
    return mean([1.0 if o >= SOLVED else 0.0 for o in outcomes])


def regret(plain: Sequence[float], hint: Sequence[float]) -> float:
    """``max(0, mean(hint) - mean(plain))``; 0 without hint plays (no hint could be written)."""
    if not plain or not hint:
        return 0.0
    return max(0.0, mean(hint) - mean(plain))


def plateau(win_rate: float, low: float = 0.4, high: float = 0.6, ramp: float = 0.25) -> float:
    """1 on ``[low, high]``, falling linearly to 0 over ``ramp`` on either side."""
    if win_rate < low:
        return max(0.0, 1.0 - (low - win_rate) / ramp)
    if win_rate > high:
        return max(0.0, 1.0 - (win_rate - high) / ramp)
    return 1.0


def spade_blend(plain: Sequence[float], hint: Sequence[float]) -> float:
    """SPADE's 30B recipe: ``0.6 * plateau(win rate) + 0.4 * clip(regret / 0.15, 0, 1)``."""
    return 0.6 * plateau(mean(plain)) + 0.4 * min(1.0, max(0.0, regret(plain, hint) / 0.15))


def spice_variance(plain: Sequence[float], hint: Sequence[float] = ()) -> float:
    """SPICE: ``exp(-(var - 0.25)^2 / 0.02)`` over the 0/1 results of the plain plays."""
    if not plain:
        return 0.0
    p = solve_rate(plain)
    return math.exp(-((p * (1.0 - p) - 0.25) ** 2) / 0.02)


def learnability(plain: Sequence[float], hint: Sequence[float] = ()) -> float:
    """Absolute Zero: ``1 - acc`` when ``0 < acc < 1``, else 0 (acc: the plain solve rate)."""
    acc = solve_rate(plain)
    return 1.0 - acc if 0.0 < acc < 1.0 else 0.0


DESIGNER_REWARDS: dict[str, Callable[[Sequence[float], Sequence[float]], float]] = {
    "regret": regret,
    "spade_blend": spade_blend,
    "spice_variance": spice_variance,
    "learnability": learnability,
}
"""Reward name -> function of (plain outcomes, hint outcomes)."""


def designer_reward(
    name: str,
    plain: Sequence[float],
    hint: Sequence[float],
    *,
    valid: bool = True,
    failed: bool = False,
    invalid_reward: float = 0.0,
    timeout_penalty: float = -0.5,
) -> float:
    """The reward of one designed environment.

    Args:
        name: a key of ``DESIGNER_REWARDS``.
        plain: outcomes of the plays without the hint.
        hint: outcomes of the plays with it.
        valid: whether the program passed validation (and was new).
        failed: whether a step failed or timed out while it was played.
        invalid_reward: the reward of an invalid or duplicate program (SPADE: 0).
        timeout_penalty: the reward of an environment that failed in play.
    """
    if name not in DESIGNER_REWARDS:
        raise ConfigError(f"designer_reward={name!r} is not one of {', '.join(DESIGNER_REWARDS)}.")
    if not valid:
        return invalid_reward
    if failed:
        return timeout_penalty
    return DESIGNER_REWARDS[name](plain, hint)
