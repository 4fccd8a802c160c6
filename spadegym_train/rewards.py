"""Designer rewards from the solver's plain and hinted outcomes, and the penalties.

All four read the outcomes of one environment's plays, on the win-rate scale: one-player
outcomes as they are, two-player results in [-1, 1] mapped to (r + 1) / 2 first
(``spadegym.contract.as_win_rate``). ``regret`` and ``spade_blend`` follow SPADE,
``spice_variance`` SPICE (peak at a 50% pass rate), ``learnability`` Absolute Zero. "Solved"
is the contract's ``is_solved``; win rate is the mean outcome.

**Chance-adjusted rates** (``adjusted=True``, the trainer's default,
``TrainConfig.rewards.chance_adjusted``). A game that hides a ball under one of three cups with
nothing to observe gives every policy, a uniform guesser included, a win rate of 0.5 under the
two-try scheme: on raw rates it would earn 0.6 of the maximum ``spade_blend``, 0.667
``learnability`` and 0.96 ``spice_variance`` without teaching anything. Adjusted, every rate is
read against the environment's chance floor (the best cheap shortcut solver's mean outcome,
measured by validation): ``a = (win - floor) / (1 - floor)``, 0 at chance and 1 at always
solved (``spadegym.contract.chance_adjusted``; a floor of ``None``, for two-player games or an
unmeasured program, reads the rate as it is).

- ``regret`` and the regret term of ``spade_blend``: the difference of the adjusted hint and
  plain rates, which is the raw difference divided by ``1 - floor``: the share of the headroom
  above chance that the hint opens (so a game with a high floor and a useful hint scores more
  than on raw rates; the regret term's cap at 0.15 bounds it).
- the plateau of ``spade_blend``: on the adjusted plain rate, so a game at chance (a = 0) sits
  at the bottom of the ramp and earns 0.
- Sampling noise: a pure-luck game's measured rate is above its floor half the time, and
  regret's ``max(0, ...)`` pays noise too (the hint plays beat their plain twins half the
  time). So, on a game with a floor above 0, an adjusted rate or hint gain counts as chance
  (0) unless it clears ``CHANCE_MARGIN`` (2) standard errors (of the mean; of the paired
  differences hint play minus the plain play of the same seed): ``skill_rate``. A pure-luck
  game then has about a 2% chance of any reward per term; a skill game measured over a
  window (SPADE: 64 plain plays) loses only rates within about 0.15 of its floor.
- ``spice_variance`` and ``learnability`` read per-sample 0/1 results on raw rates. Adjusted,
  "accuracy" becomes ``p``, the ``skill_rate`` of the mean outcome clipped to [0, 1] (partial
  credit counts, since the floor is a mean outcome too): the probability of a result that chance
  does not explain. Its Bernoulli variance ``p (1 - p)`` stands in for SPICE's variance of the
  pass results, and ``1 - p`` for Absolute Zero's ``1 - acc``. Both give 0 at ``p = 0`` and ``p
  = 1``: a game no better than chance teaches nothing, so SPICE's Gaussian tail at zero variance
  (``exp(-0.25**2 / 0.02)`` = 0.044, which would pay a pure-luck game for existing) is not paid.

The floor is itself an estimate (validation's shortcut plays), so a game's adjusted rates are
only as good as it; a floor measured low lets chance show as skill.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence

from spadegym import contract
from spadegym.errors import ConfigError


def mean(values: Sequence[float]) -> float:
    """The mean, 0 for no values."""
    return sum(values) / len(values) if values else 0.0


def solve_rate(outcomes: Sequence[float]) -> float:
    """Share of outcomes that are wins (``spadegym.contract.is_solved``)."""
    return mean([1.0 if contract.is_solved(o) else 0.0 for o in outcomes])


CHANCE_MARGIN = 2.0
"""Standard errors by which an adjusted accuracy or hint gain must clear 0 to count as more
than chance (on games with a floor above 0)."""


def adjusted_rate(outcomes: Sequence[float], floor: float | None) -> float:
    """The chance-adjusted mean outcome, ``(win - floor) / (1 - floor)``."""
    return contract.chance_adjusted(mean(outcomes), floor)


def skill_rate(outcomes: Sequence[float], floor: float | None) -> float:
    """The adjusted rate, read as 0 (chance) unless it is clearly above chance.

    Clearly: by ``CHANCE_MARGIN`` standard errors of the mean, on games with a floor above 0
    (the module docstring).
    """
    rate = adjusted_rate(outcomes, floor)
    if floor is None or floor <= 0.0 or rate <= 0.0:
        return rate
    if len(outcomes) < 2:
        return 0.0
    error = statistics.stdev(outcomes) / math.sqrt(len(outcomes)) / max(1e-9, 1.0 - floor)
    return rate if rate > CHANCE_MARGIN * error else 0.0


def regret_of_plays(
    plain: Sequence[float],
    hint: Sequence[float],
    *,
    floor: float | None = None,
    adjusted: bool = False,
) -> float:
    """``max(0, rate(hint) - rate(plain))``; 0 without hint plays (no hint could be written).

    ``plain`` should be the plain plays matched to the hint plays (same iteration, same seeds:
    ``Plays.matched``). Adjusted, both rates are chance-adjusted (the module docstring).
    """
    if not plain or not hint:
        return 0.0
    if not adjusted:
        return contract.regret(mean(hint), mean(plain))
    gain = contract.regret(adjusted_rate(hint, floor), adjusted_rate(plain, floor))
    if floor is None or floor <= 0.0 or gain <= 0.0:
        return gain
    return gain if gain > CHANCE_MARGIN * _gain_error(plain, hint, floor) else 0.0


def _gain_error(plain: Sequence[float], hint: Sequence[float], floor: float) -> float:
    """Standard error of the adjusted hint gain.

    Of the paired differences when the plays are matched one to one, else of two means.
    """
    if len(plain) < 2 or len(hint) < 2:
        return math.inf
    if len(plain) == len(hint):
        error = statistics.stdev([h - p for h, p in zip(hint, plain, strict=True)])
        error /= math.sqrt(len(hint))
    else:
        error = math.sqrt(
            statistics.variance(hint) / len(hint) + statistics.variance(plain) / len(plain)
        )
    return error / max(1e-9, 1.0 - floor)


def plateau(win_rate: float, low: float = 0.4, high: float = 0.6, ramp: float = 0.25) -> float:
    """1 on ``[low, high]``, falling linearly to 0 over ``ramp`` on either side."""
    if win_rate < low:
        return max(0.0, 1.0 - (low - win_rate) / ramp)
    if win_rate > high:
        return max(0.0, 1.0 - (win_rate - high) / ramp)
    return 1.0


def spade_blend(
    plain: Sequence[float],
    hint: Sequence[float],
    *,
    floor: float | None = None,
    adjusted: bool = False,
    matched: Sequence[float] | None = None,
) -> float:
    """SPADE's 30B recipe: ``0.6 * plateau(win rate) + 0.4 * clip(regret / 0.15, 0, 1)``.

    The win rate is that of every plain play in ``plain``; regret compares ``hint`` with
    ``matched`` (the plain plays of the same iteration and seeds; ``None``: ``plain``).
    """
    rate = skill_rate(plain, floor) if adjusted else mean(plain)
    gain = regret_of_plays(
        plain if matched is None else matched, hint, floor=floor, adjusted=adjusted
    )
    return 0.6 * plateau(rate) + 0.4 * min(1.0, max(0.0, gain / 0.15))


def _accuracy(plain: Sequence[float], floor: float | None) -> float:
    """Adjusted accuracy: ``skill_rate`` clipped to [0, 1]."""
    return min(1.0, max(0.0, skill_rate(plain, floor)))


def spice_variance(
    plain: Sequence[float],
    hint: Sequence[float] = (),
    *,
    floor: float | None = None,
    adjusted: bool = False,
) -> float:
    """SPICE: ``exp(-(var - 0.25)^2 / 0.02)`` over the 0/1 results of the plain plays.

    Adjusted: ``var = p (1 - p)`` of the adjusted accuracy, and 0 at ``p`` = 0 or 1.
    """
    if not plain:
        return 0.0
    if adjusted:
        p = _accuracy(plain, floor)
        if p <= 0.0 or p >= 1.0:
            return 0.0
    else:
        p = solve_rate(plain)
    return math.exp(-((p * (1.0 - p) - 0.25) ** 2) / 0.02)


def learnability(
    plain: Sequence[float],
    hint: Sequence[float] = (),
    *,
    floor: float | None = None,
    adjusted: bool = False,
) -> float:
    """Absolute Zero: ``1 - acc`` when ``0 < acc < 1``, else 0 (acc: the plain solve rate).

    Adjusted: ``acc`` is the adjusted accuracy (the module docstring).
    """
    acc = _accuracy(plain, floor) if adjusted and plain else solve_rate(plain)
    return 1.0 - acc if 0.0 < acc < 1.0 else 0.0


DESIGNER_REWARDS: dict[str, Callable[..., float]] = {
    "regret": regret_of_plays,
    "spade_blend": spade_blend,
    "spice_variance": spice_variance,
    "learnability": learnability,
}
"""Reward name -> function of (plain outcomes, hint outcomes, floor=, adjusted=)."""


def designer_reward(
    name: str,
    plain: Sequence[float],
    hint: Sequence[float],
    *,
    matched: Sequence[float] | None = None,
    floor: float | None = None,
    adjusted: bool = True,
    valid: bool = True,
    failed: bool = False,
    invalid_reward: float = 0.0,
    timeout_penalty: float = -0.5,
) -> float:
    """The reward of one designed environment.

    Args:
        name: a key of ``DESIGNER_REWARDS``.
        plain: outcomes of every plain play of the window.
        hint: outcomes of the hint plays whose hint survived the checks.
        matched: the plain plays of the same iteration and seeds as ``hint``, which regret
            compares them with (``None``: ``plain``).
        floor: the environment's chance floor (``None``: not measured, or two players).
        adjusted: read rates against the floor (the module docstring); off, the papers'
            formulas on raw rates.
        valid: whether the program passed validation (and was new).
        failed: whether a step failed or timed out while it was played.
        invalid_reward: the reward of an invalid or duplicate program (SPADE: 0).
        timeout_penalty: the reward of an environment that failed in play.
    """
    if name not in DESIGNER_REWARDS:
        raise ConfigError(
            f"rewards.designer_reward={name!r} is not one of {', '.join(DESIGNER_REWARDS)}."
        )
    if not valid:
        return invalid_reward
    if failed:
        return timeout_penalty
    if name == "spade_blend":
        return spade_blend(plain, hint, floor=floor, adjusted=adjusted, matched=matched)
    if name == "regret":
        return regret_of_plays(
            plain if matched is None else matched, hint, floor=floor, adjusted=adjusted
        )
    return DESIGNER_REWARDS[name](plain, hint, floor=floor, adjusted=adjusted)
