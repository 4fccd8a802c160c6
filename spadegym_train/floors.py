"""Chance floors of training environments: what the best cheap shortcut scores on them.

A win rate means little until it is read against what a solver earns without skill: a
multiple-choice game with a second try gives a random listed option about half its score.
The floor of an environment at a difficulty is measured here by playing every shortcut of
``spadegym.validation.shortcuts.shortcut_family`` (no model: each reply reads only the
observation) through the same ``spadegym.play`` loop the model plays.

The best of some thirty shortcuts on the same seeds is an optimistic estimate (the maximum of
noisy means), so ``measure_floors`` chooses the best shortcut on one set of seeds
(``choose_seeds``) and scores it on another (``score_seeds``, the held-out seeds a benchmark
evaluates the model on): the floor it returns is then an unbiased mean of one fixed policy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spadegym.play import EpisodeSpec, play_episodes
from spadegym.validation.shortcuts import BOXED_TEMPLATE, ShortcutSolver, shortcut_family

if TYPE_CHECKING:
    from spadegym.sandbox.pool import SandboxPool
    from spadegym.vector.ray import RaySandboxPool

SHORTCUT_TURNS = 4
"""Turns a shortcut plays at most (``shortcut_family``'s ``max_turns``)."""


@dataclass(frozen=True)
class Floor:
    """The chance floor of one environment at one difficulty.

    Attributes:
        env_key: the environment's id.
        difficulty: the ``reset`` difficulty (``None``: the program's default).
        shortcut: the name of the shortcut chosen (best mean on the choosing seeds).
        chosen_mean: its mean outcome on the choosing seeds (optimistic: it was the best).
        outcomes: its outcomes on the scoring seeds, in seed order.
    """

    env_key: str
    difficulty: int | None
    shortcut: str
    chosen_mean: float
    outcomes: tuple[float, ...]

    @property
    def mean(self) -> float:
        """The floor: the chosen shortcut's mean outcome on the scoring seeds."""
        return sum(self.outcomes) / len(self.outcomes) if self.outcomes else 0.0


def shortcut_outcomes(
    envs: Sequence[tuple[str, str]],
    seeds: Sequence[int],
    pool: SandboxPool | RaySandboxPool,
    *,
    difficulty: int | None = None,
    max_turns: int | None = None,
) -> dict[str, dict[str, list[float]]]:
    """Every shortcut's outcomes on every environment, on the given seeds.

    Args:
        envs: ``(env_key, source)`` pairs.
        seeds: reset seeds, the same for every shortcut.
        pool: the sandbox pool that hosts the instances.
        difficulty: the ``reset`` difficulty, or ``None`` for the program's default.
        max_turns: a turn limit for the episodes (the program's own limit holds too).

    Returns:
        Environment id -> shortcut name -> outcomes in seed order.
    """
    options = {"difficulty": difficulty} if difficulty is not None else None
    found: dict[str, dict[str, list[float]]] = {key: {} for key, _ in envs}
    for shortcut in shortcut_family(BOXED_TEMPLATE, SHORTCUT_TURNS):
        specs = [
            EpisodeSpec(key, source, seed, options, max_turns)
            for key, source in envs
            for seed in seeds
        ]
        episodes = play_episodes(specs, pool, ShortcutSolver(shortcut, BOXED_TEMPLATE))
        for episode in episodes:
            found[episode.spec.env_key].setdefault(shortcut.name, []).append(episode.win_rate)
    return found


def measure_floors(
    envs: Sequence[tuple[str, str]],
    choose_seeds: Sequence[int],
    score_seeds: Sequence[int],
    pool: SandboxPool | RaySandboxPool,
    *,
    difficulty: int | None = None,
    max_turns: int | None = None,
) -> dict[str, Floor]:
    """Each environment's floor: the best shortcut on ``choose_seeds``, scored on ``score_seeds``.

    Passing the same seeds twice gives the (optimistic) best mean on them.

    Args:
        envs: ``(env_key, source)`` pairs.
        choose_seeds: seeds on which the best shortcut is chosen.
        score_seeds: seeds on which the chosen one is scored (a benchmark's held-out seeds).
        pool: the sandbox pool that hosts the instances.
        difficulty: the ``reset`` difficulty, or ``None`` for the program's default.
        max_turns: a turn limit for the episodes.

    Raises:
        ValueError: no seeds to choose on or to score on.
    """
    if not choose_seeds or not score_seeds:
        raise ValueError(
            "measure_floors needs at least one seed to choose the shortcut on and one to "
            "score it on; pass non-empty choose_seeds and score_seeds."
        )
    chosen = shortcut_outcomes(envs, choose_seeds, pool, difficulty=difficulty, max_turns=max_turns)
    same = list(choose_seeds) == list(score_seeds)
    floors = {}
    for key, source in envs:
        means = {name: sum(v) / len(v) for name, v in chosen[key].items()}
        best = max(means, key=lambda name: (means[name], name))
        if same:
            outcomes = chosen[key][best]
        else:
            outcomes = _score_one(key, source, best, score_seeds, pool, difficulty, max_turns)
        floors[key] = Floor(key, difficulty, best, means[best], tuple(outcomes))
    return floors


def _score_one(
    key: str,
    source: str,
    name: str,
    seeds: Sequence[int],
    pool: SandboxPool | RaySandboxPool,
    difficulty: int | None,
    max_turns: int | None,
) -> list[float]:
    shortcut = {s.name: s for s in shortcut_family(BOXED_TEMPLATE, SHORTCUT_TURNS)}[name]
    options = {"difficulty": difficulty} if difficulty is not None else None
    specs = [EpisodeSpec(key, source, seed, options, max_turns) for seed in seeds]
    episodes = play_episodes(specs, pool, ShortcutSolver(shortcut, BOXED_TEMPLATE))
    return [e.win_rate for e in episodes]


def floor_measurer(
    envs: Sequence[Any],
    pool: SandboxPool | RaySandboxPool,
    seeds: Callable[[str], Sequence[int]],
    max_turns: int | None = None,
) -> Callable[[str, int], float | None]:
    """``(env_key, difficulty) -> floor`` for a curriculum, measured on demand.

    The best shortcut is chosen and scored on the same seeds (cheap, and optimistic: a
    curriculum that reads its win rates against it judges mastery conservatively).

    Args:
        envs: pool entries (``spadegym_train.library.PoolEnv``) of the environments.
        pool: the sandbox pool that hosts the instances.
        seeds: an environment's floor seeds (seeds its training plays do not use).
        max_turns: a turn limit for the episodes.

    Returns:
        The measuring function; ``None`` for a two-player game (no single-seat floor).
    """
    by_key = {env.key: env for env in envs}

    def measure(env_key: str, difficulty: int) -> float | None:
        env = by_key[env_key]
        if env.num_players != 1:
            return None
        chosen = list(seeds(env_key))
        found = measure_floors(
            [(env.key, env.source)],
            chosen,
            chosen,
            pool,
            difficulty=difficulty,
            max_turns=max_turns,
        )
        return found[env_key].mean

    return measure
