"""The curriculum sampler: deterministic, raises on mastery, lowers on failure, by priority."""

from __future__ import annotations

import random

import pytest

from spadegym.errors import ConfigError
from spadegym_train.config import CurriculumConfig
from spadegym_train.curriculum import Curriculum, check_settings, curriculum_pool
from spadegym_train.library import PoolEnv

ENVS = ["Easy-v0", "Hard-v0", "Mid-v0"]


def _curriculum(floor=0.5, **settings):
    values = {"window": 8, "min_plays": 4, "explore": 0.0}
    values.update(settings)
    return Curriculum(ENVS, CurriculumConfig(**values), lambda key, level: floor)


def test_the_same_generator_draws_the_same_pools():
    a, b = _curriculum(), _curriculum()
    for c in (a, b):
        c.record("Mid-v0", 1, [1.0, 0.0, 0.5, 0.0])
        c.record("Easy-v0", 1, [1.0, 1.0, 1.0, 0.0])
    draws = [c.sample(12, random.Random(7)) for c in (a, b)]
    assert draws[0] == draws[1]
    assert sum(count for _, _, count in draws[0]) == 12


def test_mastery_raises_the_difficulty_and_the_new_level_is_judged_afresh():
    curriculum = _curriculum(floor=0.5, mastery=0.6)
    curriculum.record("Easy-v0", 1, [1.0, 1.0, 1.0, 0.5])  # 0.875: adjusted 0.75
    assert curriculum.update() == {"Easy-v0": 1}
    assert curriculum.difficulty["Easy-v0"] == 2
    assert curriculum.win_rate("Easy-v0") == 0.0  # no plays at difficulty 2 yet
    assert curriculum.update() == {}  # min_plays fresh plays before the next move
    assert curriculum.metrics()["curriculum/Easy-v0/difficulty"] == 2.0


def test_a_raw_rate_at_the_floor_is_not_mastery():
    # 0.75 raw would pass a raw threshold of 0.6; against a floor of 0.5 it reads 0.5.
    curriculum = _curriculum(floor=0.5, mastery=0.6)
    curriculum.record("Mid-v0", 1, [1.0, 0.5, 1.0, 0.5])
    assert curriculum.update() == {}
    assert curriculum.adjusted("Mid-v0") == pytest.approx(0.5)


def test_failure_lowers_the_difficulty_but_never_below_one():
    curriculum = _curriculum(floor=0.5, start=3)
    curriculum.record("Hard-v0", 3, [0.0, 0.5, 0.0, 0.5])  # 0.25: below its floor
    assert curriculum.update() == {"Hard-v0": -1}
    assert curriculum.difficulty["Hard-v0"] == 2
    low = _curriculum(floor=0.5)
    low.record("Hard-v0", 1, [0.0] * 4)
    assert low.update() == {} and low.difficulty["Hard-v0"] == 1


def test_too_few_plays_never_move_a_difficulty():
    curriculum = _curriculum(floor=0.0)
    curriculum.record("Easy-v0", 1, [1.0, 1.0, 1.0])  # min_plays is 4
    assert curriculum.update() == {}


def test_the_top_difficulty_is_kept():
    curriculum = _curriculum(floor=0.0, start=2, top=2)
    curriculum.record("Easy-v0", 2, [1.0] * 4)
    assert curriculum.update() == {}


def test_priority_follows_the_signal():
    curriculum = _curriculum(signal="learnability")
    curriculum.record("Easy-v0", 1, [1.0] * 8)  # always solved: nothing left to learn
    curriculum.record("Hard-v0", 1, [0.0] * 8)  # never solved: nothing to learn from yet
    curriculum.record("Mid-v0", 1, [1.0, 0.0] * 4)  # half solved: learnability 0.5
    chances = curriculum.probabilities()
    assert chances == {"Easy-v0": 0.0, "Hard-v0": 0.0, "Mid-v0": 1.0}
    pool = curriculum.sample(10, random.Random(0))
    assert pool == [("Mid-v0", 1, 10)]


def test_exploration_and_unplayed_pairs_keep_every_environment_in_reach():
    curriculum = _curriculum(explore=0.3)
    curriculum.record("Easy-v0", 1, [1.0] * 8)
    chances = curriculum.probabilities()
    assert chances["Easy-v0"] == pytest.approx(0.1)  # its share of the even part only
    assert chances["Hard-v0"] == chances["Mid-v0"] == pytest.approx(0.45)  # never played


def test_variance_prefers_a_half_solved_environment():
    curriculum = _curriculum(signal="spice_variance")
    curriculum.record("Easy-v0", 1, [1.0] * 7 + [0.0])
    curriculum.record("Hard-v0", 1, [0.0] * 8)
    curriculum.record("Mid-v0", 1, [1.0, 0.0] * 4)
    chances = curriculum.probabilities()
    assert chances["Mid-v0"] > chances["Easy-v0"] > chances["Hard-v0"]


def test_the_state_round_trips():
    curriculum = _curriculum(floor=0.25, mastery=0.6)
    curriculum.record("Easy-v0", 1, [1.0] * 4)
    curriculum.update()
    curriculum.record("Mid-v0", 1, [0.5, 1.0], hint=[1.0])
    again = _curriculum(floor=0.9)
    again.load_state_dict(curriculum.state_dict())
    assert again.difficulty == curriculum.difficulty
    assert again.probabilities() == curriculum.probabilities()
    assert again.floor("Easy-v0", 1) == 0.25  # remembered, not measured again


def test_the_pool_spreads_equal_compute_by_priority():
    curriculum = _curriculum(start=2)
    library = [PoolEnv(key, "source", "skill", 1, 2) for key in ENVS]
    pool = curriculum_pool(curriculum, library, slots=3, plays=8, rng=random.Random(1))
    assert sum(env.plays for env in pool) == 24
    assert all(env.difficulty == 2 for env in pool)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"signal": "fun"}, "curriculum.signal='fun' is not one of"),
        ({"min_plays": 9, "window": 8}, "curriculum.min_plays=9 must lie in"),
        ({"mastery": 0.0, "failure": 0.0}, "must be below curriculum.mastery"),
        ({"start": 4, "top": 3}, "1 <= start <= top <= 5"),
        ({"explore": 2.0}, "curriculum.explore=2.0 must lie in"),
        ({"backoff": 0.5}, "curriculum.backoff=0.5 must be at least 1"),
    ],
)
def test_bad_settings_are_named(settings, message):
    with pytest.raises(ConfigError, match=message):
        check_settings(CurriculumConfig(**settings))


def test_no_environment_is_an_error():
    with pytest.raises(ConfigError, match="at least one environment"):
        Curriculum([], CurriculumConfig(), lambda key, level: None)


def _oscillate(curriculum, updates: int) -> list[int]:
    """A solver that always wins difficulty 1 and never wins 2: the difficulty after each update."""
    levels = []
    for _ in range(updates):
        level = curriculum.difficulty["Easy-v0"]
        curriculum.record("Easy-v0", level, [1.0 if level == 1 else 0.0] * 4)
        curriculum.update()
        levels.append(curriculum.difficulty["Easy-v0"])
    return levels


def test_a_level_fallen_from_is_retried_after_more_plays_each_time():
    levels = _oscillate(_curriculum(floor=0.5, backoff=2.0, top=2), updates=16)
    # up after 4 plays, down after 4; then up after 8 plays at 1, down; then after 16 ...
    assert levels == [2, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1]
    assert sum(level == 2 for level in levels) == 3  # without backoff: every other update


def test_without_backoff_the_difficulty_alternates():
    levels = _oscillate(_curriculum(floor=0.5, backoff=1.0, top=2), updates=8)
    assert levels == [2, 1] * 4


def test_falls_round_trip_and_are_logged():
    curriculum = _curriculum(floor=0.5, backoff=2.0, top=2)
    _oscillate(curriculum, updates=2)
    assert curriculum.metrics()["curriculum/Easy-v0/plays_to_rise"] == 8.0
    again = _curriculum(floor=0.5, backoff=2.0, top=2)
    again.load_state_dict(curriculum.state_dict())
    assert again.plays_to_rise("Easy-v0") == 8
