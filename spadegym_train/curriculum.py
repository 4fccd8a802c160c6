"""A curriculum over the library: a sampler of (environment, difficulty) in the designer's place.

``mode=curriculum`` trains the solver on registry environments, as ``fixed`` mode does, but
chooses what to play from the solver's own recent plays, in the spirit of prioritised level
replay (Jiang et al., 2021) and ACCEL (Parker-Holder et al., 2022):

- every environment has an *active difficulty* (starting at ``curriculum.start``); the
  (environment, active difficulty) pairs are what the sampler draws from;
- each pair's priority is the signal the designer rewards use (``spadegym_train.rewards``:
  learnability, SPICE's variance, SPADE's regret or its blend), computed from the pair's
  recent plays; a pair never played gets the highest priority, and ``curriculum.explore`` of
  the probability is spread evenly so no environment is starved;
- a pair the solver has mastered (its recent chance-adjusted win rate at or above
  ``curriculum.mastery``) moves its environment one difficulty up; one the solver never beats
  past chance (at or below ``curriculum.failure``) moves it one down. Both need
  ``curriculum.min_plays`` plays at the pair since it became active, so a move is never judged
  on the plays of another difficulty;
- a difficulty an environment fell back from is tried again only after more plays at the level
  below: ``min_plays`` times ``curriculum.backoff`` per fall. Without it, a game mastered at one
  level and failed at the next alternates between them every ``min_plays`` plays, and the plays
  at the level it always loses carry no learning signal (every group's outcomes are equal).

Chance-adjusted means ``spadegym.contract.chance_adjusted`` with the pair's floor (the best
cheap shortcut's score, ``spadegym_train.floors``): a multiple-choice game that a random
option wins half the time is not mastered at a raw 0.7.

The sampler is deterministic given its generator; its state (active difficulties, recent
plays, falls, floors) round-trips through ``state_dict`` for checkpoints.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from spadegym.contract import chance_adjusted
from spadegym.errors import ConfigError
from spadegym_train.library import PoolEnv
from spadegym_train.rewards import DESIGNER_REWARDS, mean

if TYPE_CHECKING:
    from spadegym.play import Episode
    from spadegym_train.config import CurriculumConfig

MIN_DIFFICULTY = 1
MAX_DIFFICULTY = 5
UNPLAYED_PRIORITY = 1.0
"""The priority of a pair with no plays yet (every signal lies in [0, 1]): try it first."""


def check_settings(settings: CurriculumConfig) -> CurriculumConfig:
    """``settings`` if the sampler can run by them (``TrainConfig``'s ``curriculum`` group).

    Raises:
        ConfigError: naming the setting and the rule it breaks.
    """
    if settings.signal not in DESIGNER_REWARDS:
        raise ConfigError(
            f"curriculum.signal={settings.signal!r} is not one of {', '.join(DESIGNER_REWARDS)}."
        )
    if not 1 <= settings.min_plays <= settings.window:
        raise ConfigError(
            f"curriculum.min_plays={settings.min_plays} must lie in [1, curriculum.window="
            f"{settings.window}]: a move is judged on the window's plays."
        )
    if not settings.failure < settings.mastery:
        raise ConfigError(
            f"curriculum.failure={settings.failure} must be below curriculum.mastery="
            f"{settings.mastery}, or one result would both raise and lower the difficulty."
        )
    if not settings.backoff >= 1.0:
        raise ConfigError(
            f"curriculum.backoff={settings.backoff} must be at least 1 (1: no backoff): it "
            "multiplies the plays needed before a difficulty is retried."
        )
    if not 0.0 <= settings.explore <= 1.0:
        raise ConfigError(f"curriculum.explore={settings.explore} must lie in [0, 1].")
    if not MIN_DIFFICULTY <= settings.start <= settings.top <= MAX_DIFFICULTY:
        raise ConfigError(
            f"curriculum.start={settings.start} and curriculum.top={settings.top} must satisfy "
            f"{MIN_DIFFICULTY} <= start <= top <= {MAX_DIFFICULTY}."
        )
    return settings


FloorOf = Callable[[str, int], "float | None"]
"""``(env_key, difficulty) -> chance floor`` (``None``: not known; the raw rate is read)."""


def _pair(env_key: str, difficulty: int) -> str:
    return f"{env_key}|{difficulty}"


class Curriculum:
    """The sampler: which environments, at which difficulty, with how many plays.

    Args:
        env_keys: the environments (registry ids), in a fixed order.
        settings: the sampling and moving rules (``TrainConfig``'s ``curriculum`` group).
        floor_of: each pair's chance floor, asked once per pair when it first becomes active.
    """

    def __init__(self, env_keys: Sequence[str], settings: CurriculumConfig, floor_of: FloorOf):
        if not env_keys:
            raise ConfigError("mode=curriculum needs at least one environment; check pool.env_ids.")
        self.env_keys = list(dict.fromkeys(env_keys))
        self.settings = check_settings(settings)
        self.floor_of = floor_of
        self.difficulty = {key: settings.start for key in self.env_keys}
        self.plain: dict[str, list[float]] = {}
        self.hint: dict[str, list[float]] = {}
        self.fresh: dict[str, int] = {}  # plays since the pair became active
        self.falls: dict[str, int] = {}  # times the environment fell back from the pair
        self.floors: dict[str, float | None] = {}
        self.moves: dict[str, int] = {}  # this update's moves, for the metrics

    # -- reading the state ---------------------------------------------------------------------

    def floor(self, env_key: str, difficulty: int) -> float | None:
        """The pair's chance floor (measured once, then remembered)."""
        pair = _pair(env_key, difficulty)
        if pair not in self.floors:
            self.floors[pair] = self.floor_of(env_key, difficulty)
        return self.floors[pair]

    def win_rate(self, env_key: str, difficulty: int | None = None) -> float:
        """Mean outcome of the pair's recent plays (the active difficulty by default)."""
        level = self.difficulty[env_key] if difficulty is None else difficulty
        return mean(self.plain.get(_pair(env_key, level), []))

    def adjusted(self, env_key: str) -> float:
        """The active pair's recent win rate, read against its floor."""
        level = self.difficulty[env_key]
        return chance_adjusted(self.win_rate(env_key), self.floor(env_key, level))

    def plays_to_rise(self, env_key: str) -> int:
        """Plays at the active pair before the environment may move up (backoff after falls)."""
        above = _pair(env_key, self.difficulty[env_key] + 1)
        falls = self.falls.get(above, 0)
        return math.ceil(self.settings.min_plays * self.settings.backoff**falls)

    def priority(self, env_key: str) -> float:
        """The active pair's signal, from its recent plays; the highest when never played."""
        pair = _pair(env_key, self.difficulty[env_key])
        plain = self.plain.get(pair, [])
        if not plain:
            return UNPLAYED_PRIORITY
        return DESIGNER_REWARDS[self.settings.signal](plain, self.hint.get(pair, []))

    def probabilities(self) -> dict[str, float]:
        """Each environment's chance of filling one slot of the pool."""
        scores = {key: self.priority(key) for key in self.env_keys}
        total = sum(scores.values())
        even = 1.0 / len(self.env_keys)
        if total <= 0.0:
            return {key: even for key in self.env_keys}
        explore = self.settings.explore
        return {key: (1.0 - explore) * s / total + explore * even for key, s in scores.items()}

    # -- sampling and learning -----------------------------------------------------------------

    def sample(self, slots: int, rng: random.Random) -> list[tuple[str, int, int]]:
        """Draw ``slots`` slots by priority, with replacement.

        Returns:
            ``(env_key, difficulty, slots drawn)`` for each environment drawn at least once,
            in ``env_keys`` order.
        """
        chances = self.probabilities()
        drawn = rng.choices(self.env_keys, weights=[chances[k] for k in self.env_keys], k=slots)
        return [
            (key, self.difficulty[key], drawn.count(key)) for key in self.env_keys if key in drawn
        ]

    def record(
        self, env_key: str, difficulty: int, plain: Sequence[float], hint: Sequence[float] = ()
    ) -> None:
        """Add a pair's plays (win-rate scale); only the last ``window`` are kept."""
        pair = _pair(env_key, difficulty)
        window = self.settings.window
        self.plain[pair] = (self.plain.get(pair, []) + list(plain))[-window:]
        if hint:
            self.hint[pair] = (self.hint.get(pair, []) + list(hint))[-window:]
        self.fresh[pair] = self.fresh.get(pair, 0) + len(plain)

    def update(self) -> dict[str, int]:
        """Move the difficulty of every environment mastered or failed; returns the moves."""
        settings = self.settings
        self.moves = {}
        for key in self.env_keys:
            level = self.difficulty[key]
            pair = _pair(key, level)
            played = self.fresh.get(pair, 0)
            if played < settings.min_plays:
                continue
            score = self.adjusted(key)
            if score >= settings.mastery and level < settings.top:
                if played >= self.plays_to_rise(key):
                    self.move(key, level + 1)
            elif score <= settings.failure and level > MIN_DIFFICULTY:
                self.falls[pair] = self.falls.get(pair, 0) + 1
                self.move(key, level - 1)
        return dict(self.moves)

    def move(self, env_key: str, difficulty: int) -> None:
        """Make ``difficulty`` the environment's active one, judged afresh from now on."""
        step = difficulty - self.difficulty[env_key]
        self.difficulty[env_key] = difficulty
        pair = _pair(env_key, difficulty)
        self.plain.pop(pair, None)
        self.hint.pop(pair, None)
        self.fresh[pair] = 0
        self.moves[env_key] = step

    def metrics(self) -> dict[str, float]:
        """``curriculum/<env>/difficulty``, ``.../priority``, ``.../d<k>/win_rate`` and more."""
        found: dict[str, float] = {}
        chances = self.probabilities()
        for key in self.env_keys:
            level = self.difficulty[key]
            head = f"curriculum/{key}"
            found[f"{head}/difficulty"] = float(level)
            found[f"{head}/probability"] = chances[key]
            found[f"{head}/priority"] = self.priority(key)
            found[f"{head}/move"] = float(self.moves.get(key, 0))
            found[f"{head}/plays_to_rise"] = float(self.plays_to_rise(key))
            found[f"{head}/d{level}/win_rate"] = self.win_rate(key)
            found[f"{head}/d{level}/adjusted_win_rate"] = self.adjusted(key)
            floor = self.floor(key, level)
            if floor is not None:
                found[f"{head}/d{level}/floor"] = floor
        found["curriculum/mean_difficulty"] = mean([float(d) for d in self.difficulty.values()])
        return found

    # -- checkpoints ---------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """The state to save: active difficulties, recent plays, falls, floors."""
        return {
            "difficulty": dict(self.difficulty),
            "plain": {k: list(v) for k, v in self.plain.items()},
            "hint": {k: list(v) for k, v in self.hint.items()},
            "fresh": dict(self.fresh),
            "falls": dict(self.falls),
            "floors": dict(self.floors),
        }

    def load_state_dict(self, state: dict) -> None:
        """Restore ``state_dict`` (environments no longer in the run are dropped)."""
        for key, level in state.get("difficulty", {}).items():
            if key in self.difficulty:
                self.difficulty[key] = int(level)
        self.plain = {k: list(v) for k, v in state.get("plain", {}).items()}
        self.hint = {k: list(v) for k, v in state.get("hint", {}).items()}
        self.fresh = {k: int(v) for k, v in state.get("fresh", {}).items()}
        self.falls = {k: int(v) for k, v in state.get("falls", {}).items()}
        self.floors = dict(state.get("floors", {}))


def curriculum_pool(
    curriculum: Curriculum, library: Sequence[PoolEnv], slots: int, plays: int, rng: random.Random
) -> list[PoolEnv]:
    """This window's pool: ``slots`` slots of ``plays`` plays each, drawn by priority.

    At equal ``slots`` and ``plays`` it plays as many episodes as ``fixed`` mode's pool of
    ``slots`` environments, spread by the sampler instead of evenly.
    """
    by_key = {env.key: env for env in library}
    return [
        replace(by_key[key], difficulty=level, plays=count * plays)
        for key, level, count in curriculum.sample(slots, rng)
    ]


def record_plays(
    curriculum: Curriculum, pool: Sequence[PoolEnv], episodes: Sequence[Episode]
) -> None:
    """Give the curriculum the pool's plain and hinted outcomes (win-rate scale), then move."""
    for env in pool:
        if env.difficulty is None:
            continue
        mine = [e for e in episodes if e.spec.env_key == env.key and not e.dropped]
        plain = [e.win_rate for e in mine if not e.spec.hint_play and e.error is None]
        hint = [e.win_rate for e in mine if e.spec.hint_play and e.error is None]
        curriculum.record(env.key, env.difficulty, plain, hint)
    curriculum.update()
