from __future__ import annotations

import pytest

from spadegym_train.advantages import (
    RoleBaselines,
    designer_advantages,
    solver_advantages,
    zscore,
)


def test_solver_advantages_are_z_scores_per_environment():
    rewards = [1.0, 0.0, 1.0, 0.0, 0.5, 0.5]
    keys = ["a", "a", "a", "a", "b", "b"]
    out = solver_advantages(rewards, keys)
    # Group a: mean 0.5, population std 0.5 -> +-1; group b: all equal -> 0.
    assert out[:4] == pytest.approx([1.0, -1.0, 1.0, -1.0], abs=1e-5)
    assert out[4:] == [0.0, 0.0]


def test_zscore_of_one_reward_is_zero():
    assert zscore([0.7]) == [0.0]


def test_designer_advantages_are_centred_per_skill_without_scaling():
    rewards = [1.0, -1.0, 0.2, 0.4, 0.6]
    skills = ["x", "x", "y", "y", "y"]
    assert designer_advantages(rewards, skills) == pytest.approx([1.0, -1.0, -0.2, 0.0, 0.2])


def test_rae_reads_the_baseline_before_updating_it():
    baselines = RoleBaselines(0.95)
    # First game: baselines are 0, so the advantage is the whole reward (not R - 0.05 R).
    assert baselines.advantages("nim", [1.0, -1.0]) == pytest.approx([1.0, -1.0])
    assert baselines.values == pytest.approx({"nim#0": 0.05, "nim#1": -0.05})
    # Second game: read 0.05 / -0.05, then update.
    assert baselines.advantages("nim", [1.0, -1.0]) == pytest.approx([0.95, -0.95])
    assert baselines.values["nim#0"] == pytest.approx(0.95 * 0.05 + 0.05)


def test_rae_keeps_games_apart_and_round_trips():
    baselines = RoleBaselines(0.9)
    baselines.advantages("a", [1.0, -1.0])
    assert baselines.advantages("b", [-1.0, 1.0]) == pytest.approx([-1.0, 1.0])
    copy = RoleBaselines()
    copy.load_state_dict(baselines.state_dict())
    assert copy.values == baselines.values and copy.decay == 0.9


def test_designer_scale_follows_spade():
    from spadegym_train.advantages import designer_scale

    # 96 solver trajectories / 12 programs * 4 iterations a window = 32, under the cap of 50
    assert designer_scale(96, 12, 4, 50.0) == pytest.approx(32.0)
    assert designer_scale(960, 12, 4, 50.0) == 50.0
    assert designer_scale(0, 12, 4, 50.0) == 1.0 and designer_scale(10, 0, 4, 50.0) == 1.0
    assert designer_advantages([1.0, 0.0], ["a", "a"], scale=4.0) == [2.0, -2.0]
