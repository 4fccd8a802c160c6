from __future__ import annotations

import math

import pytest

from spadegym.errors import ConfigError
from spadegym_train.rewards import (
    designer_reward,
    learnability,
    plateau,
    regret,
    spade_blend,
    spice_variance,
)

WINS_3_OF_10 = [1.0] * 3 + [0.0] * 7
WINS_4_OF_10 = [1.0] * 4 + [0.0] * 6


def test_regret_is_floored_at_zero_and_zero_without_hint_plays():
    assert regret(WINS_3_OF_10, WINS_4_OF_10) == pytest.approx(0.1)
    assert regret(WINS_4_OF_10, WINS_3_OF_10) == 0.0
    assert regret(WINS_3_OF_10, []) == 0.0


def test_plateau_is_flat_in_the_band_and_ramps_over_a_quarter():
    assert plateau(0.4) == plateau(0.5) == plateau(0.6) == 1.0
    assert plateau(0.3) == pytest.approx(0.6)
    assert plateau(0.8) == pytest.approx(0.2)
    assert plateau(0.1) == 0.0 and plateau(0.95) == 0.0


def test_spade_blend_at_win_rate_03_and_regret_01():
    # 0.6 * plateau(0.3) + 0.4 * (0.1 / 0.15) = 0.6 * 0.6 + 0.4 * 2/3
    assert spade_blend(WINS_3_OF_10, WINS_4_OF_10) == pytest.approx(0.36 + 0.8 / 3)


def test_spade_blend_caps_the_regret_term():
    assert spade_blend([0.5] * 4, [1.0] * 4) == pytest.approx(0.6 + 0.4)


def test_spice_variance_peaks_at_half():
    assert spice_variance([1.0, 0.0, 1.0, 0.0]) == pytest.approx(1.0)
    assert spice_variance(WINS_3_OF_10) == pytest.approx(math.exp(-((0.21 - 0.25) ** 2) / 0.02))
    assert spice_variance([1.0] * 5) == pytest.approx(math.exp(-(0.25**2) / 0.02))


def test_spice_variance_counts_only_full_wins():
    assert spice_variance([0.5, 0.5]) == spice_variance([0.0, 0.0])


def test_learnability():
    assert learnability(WINS_3_OF_10) == pytest.approx(0.7)
    assert learnability([0.0] * 4) == 0.0
    assert learnability([1.0] * 4) == 0.0


def test_penalties_override_the_reward():
    assert designer_reward("regret", [], [], valid=False, invalid_reward=-1.0) == -1.0
    assert designer_reward("regret", [], [], valid=False) == 0.0  # SPADE's default
    assert designer_reward("spade_blend", WINS_3_OF_10, WINS_4_OF_10, failed=True) == -0.5
    assert designer_reward("learnability", WINS_3_OF_10, []) == pytest.approx(0.7)


def test_unknown_reward_is_refused_with_the_choices():
    with pytest.raises(ConfigError, match="regret, spade_blend"):
        designer_reward("variance", [], [])
