from __future__ import annotations

import math
from pathlib import Path

import pytest

from spadegym.errors import ConfigError
from spadegym.validation.shortcuts import BOXED_TEMPLATE
from spadegym_train.rewards import (
    DESIGNER_REWARDS,
    designer_reward,
    learnability,
    plateau,
    regret_of_plays,
    spade_blend,
    spice_variance,
)

WINS_3_OF_10 = [1.0] * 3 + [0.0] * 7
WINS_4_OF_10 = [1.0] * 4 + [0.0] * 6


def test_regret_is_floored_at_zero_and_zero_without_hint_plays():
    assert regret_of_plays(WINS_3_OF_10, WINS_4_OF_10) == pytest.approx(0.1)
    assert regret_of_plays(WINS_4_OF_10, WINS_3_OF_10) == 0.0
    assert regret_of_plays(WINS_3_OF_10, []) == 0.0


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


# -- chance-adjusted rewards (issue 23) ---------------------------------------------------------

THREE_CUPS = Path(__file__).resolve().parent / "data" / "programs" / "three_cups.py"
GUESSER = [1.0, 0.5, 0.0] * 8
"""A uniform guesser on three cups with two tries, in exact proportions: a third right first
(1), a third right second (0.5), a third never: mean 0.5, what every policy scores."""


def test_a_pure_luck_game_earns_nothing_from_any_adjusted_reward():
    for name in DESIGNER_REWARDS:
        reward = designer_reward(name, GUESSER, GUESSER, matched=GUESSER, floor=0.5)
        assert reward == 0.0, name
    # On raw rates it earns most of them (the figures).
    raw = {
        n: designer_reward(n, GUESSER, GUESSER, floor=0.5, adjusted=False) for n in DESIGNER_REWARDS
    }
    assert raw["spade_blend"] == pytest.approx(0.6)
    assert raw["learnability"] == pytest.approx(2 / 3)
    assert raw["spice_variance"] == pytest.approx(0.962, abs=1e-3)
    assert raw["regret"] == 0.0


def test_the_three_cups_program_played_by_a_guesser_earns_nothing():
    from spadegym.play import EpisodeSpec, play_episodes
    from spadegym.sandbox import SandboxPool
    from spadegym.validation.shortcuts import ShortcutSolver, by_name

    source = THREE_CUPS.read_text(encoding="utf-8")
    # Plain and "hint" plays on the same 96 seeds, by guessers of different generators: a hint
    # cannot help where nothing is observable, so the two differ by chance alone. (The margin
    # of two standard errors leaves a pure-luck game about a 2% chance of a reward per term:
    # this sample's plain mean sits 1.3 standard errors above the floor; seeds 0..47 alone
    # sit at 2.04 and would pay 0.19 of spade_blend.)
    specs = [EpisodeSpec("cups", source, seed, None, 2) for seed in range(96)]
    shortcut = by_name("a random listed option", BOXED_TEMPLATE)
    pool = SandboxPool(1)
    pool.start()
    try:
        plain, hint = (
            [e.win_rate for e in play_episodes(specs, pool, ShortcutSolver(shortcut, seed=s))]
            for s in (0, 1)
        )
    finally:
        pool.close()
    assert 0.4 < sum(plain + hint) / 192 < 0.6
    for name in DESIGNER_REWARDS:
        assert designer_reward(name, plain, hint, matched=plain, floor=0.5) == 0.0, name
        assert designer_reward(name, plain, hint, floor=0.5, adjusted=False) > 0.0 or (
            name == "regret"
        )


def test_a_skill_game_keeps_its_reward_when_adjusted():
    # Four options (a guesser's floor 0.25); the solver wins 11 of 20, 16 of 20 with a hint.
    plain = [1.0] * 11 + [0.0] * 9
    hint = [1.0] * 16 + [0.0] * 4
    for name in DESIGNER_REWARDS:
        assert designer_reward(name, plain, hint, matched=plain, floor=0.25) > 0.2, name
    assert designer_reward("regret", plain, hint, floor=0.25) == pytest.approx(0.25 / 0.75)


def test_regret_compares_the_hint_plays_with_their_own_plain_plays():
    # The solver improved over the window: the whole window's plain rate is 0.5, but at the
    # regeneration iteration, on the hint plays' seeds, it was 0.25 (hint: 0.5).
    window = [0.0, 1.0, 0.0, 0.0] + [1.0, 1.0, 1.0, 0.0]
    matched = window[:4]
    hint = [1.0, 1.0, 0.0, 0.0]
    assert designer_reward("regret", window, hint, adjusted=False) == 0.0
    assert designer_reward("regret", window, hint, matched=matched, adjusted=False) == 0.25


def test_no_floor_reads_rates_as_they_are():
    assert designer_reward("regret", WINS_3_OF_10, WINS_4_OF_10) == pytest.approx(0.1)
    assert designer_reward("spade_blend", WINS_3_OF_10, WINS_4_OF_10) == pytest.approx(
        0.36 + 0.8 / 3
    )
