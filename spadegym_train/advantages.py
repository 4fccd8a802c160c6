"""Advantages for the solver, the designer, and the seats of two-player games.

GRPO z-scores for the solver, per-skill centring for the designer, and SPIRAL's
role-conditioned baselines (RAE) for two-player games.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import cast

EPS = 1e-6
"""Added to the standard deviation so a group of equal rewards gives zeros, not NaNs."""


def zscore(rewards: Sequence[float]) -> list[float]:
    """``(r - mean) / (std + EPS)`` over one group (population std); zeros for one reward."""
    if len(rewards) < 2:
        return [0.0] * len(rewards)
    mu = sum(rewards) / len(rewards)
    std = math.sqrt(sum((r - mu) ** 2 for r in rewards) / len(rewards))
    return [(r - mu) / (std + EPS) for r in rewards]


def grouped(rewards: Sequence[float], groups: Sequence[Hashable], *, scale: bool) -> list[float]:
    """Per-group advantages: z-scores when ``scale``, else the group mean subtracted."""
    members: dict[Hashable, list[int]] = defaultdict(list)
    for index, group in enumerate(groups):
        members[group].append(index)
    out = [0.0] * len(rewards)
    for indices in members.values():
        values = [rewards[i] for i in indices]
        if scale:
            adjusted = zscore(values)
        else:
            mu = sum(values) / len(values)
            adjusted = [v - mu for v in values]
        for i, value in zip(indices, adjusted, strict=True):
            out[i] = value
    return out


def solver_advantages(rewards: Sequence[float], groups: Sequence[Hashable]) -> list[float]:
    """GRPO: each episode's outcome z-scored within its group.

    The loop's groups are environments, or (environment, seed) pairs when several plays share
    a seed (``TrainConfig.plays_per_seed``).
    """
    return grouped(rewards, groups, scale=True)


def designer_advantages(
    rewards: Sequence[float], skills: Sequence[str], scale: float = 1.0
) -> list[float]:
    """SPADE: rewards centred per skill, not divided by the std, then multiplied by ``scale``.

    SPADE's reason for no std: a small batch's std blows the rewards up.
    """
    return [scale * a for a in grouped(rewards, skills, scale=False)]


def designer_scale(
    solver_trajectories: int, designer_trajectories: int, regen_interval: int, cap: float
) -> float:
    """SPADE's designer scale: ``min(solver / designer trajectories * regen_interval, cap)``.

    The designer trains once a window on few programs while the solver trains every
    iteration on many episodes; the scale keeps the designer's share of a token-mean loss
    from vanishing. 1 when either count is zero.
    """
    if designer_trajectories <= 0 or solver_trajectories <= 0:
        return 1.0
    return min(solver_trajectories / designer_trajectories * regen_interval, cap)


class RoleBaselines:
    """SPIRAL's role-conditioned advantage estimation: one EMA baseline per (game, role).

    For each finished game and each player in seat order, the baseline is read *before* it is
    updated: ``A = R - b``, then ``b <- decay * b + (1 - decay) * R``. Baselines start at 0.
    """

    def __init__(self, decay: float = 0.95):
        self.decay = decay
        self.values: dict[str, float] = {}

    def advantages(self, game: str, outcomes: Sequence[float]) -> list[float]:
        """Advantages of one finished game's players (in seat order); updates the baselines."""
        out = []
        for role, reward in enumerate(outcomes):
            key = f"{game}#{role}"
            baseline = self.values.get(key, 0.0)
            out.append(reward - baseline)
            self.values[key] = self.decay * baseline + (1.0 - self.decay) * reward
        return out

    def state_dict(self) -> dict[str, object]:
        """The baselines, for checkpoints."""
        return {"decay": self.decay, "values": dict(self.values)}

    def load_state_dict(self, state: dict[str, object]) -> None:
        """Restore ``state_dict``."""
        self.decay = float(state["decay"])  # type: ignore[arg-type]
        values = cast("dict[object, float]", state["values"])
        self.values = {str(k): float(v) for k, v in values.items()}
