"""GRPO groups of replies to one instance (``play.plays_per_seed``), the evaluation temperature."""

from __future__ import annotations

import pytest

from spadegym.errors import ConfigError
from spadegym_train.advantages import solver_advantages
from spadegym_train.config import TrainConfig
from spadegym_train.library import PoolEnv
from spadegym_train.loop import Run
from spadegym_train.solver import engine_solver


def bare_run(config: TrainConfig) -> Run:
    """The loop's bookkeeping without a model."""
    run = Run.__new__(Run)
    run.config = config
    return run


POOL = [PoolEnv("A-v0", "", "s", 1, 2), PoolEnv("B-v0", "", "s", 1, 2)]


def test_training_plays_share_seeds_in_runs_of_plays_per_seed(tiny):
    run = bare_run(tiny({"play.plays_per_seed": 3}))
    specs = run.specs(POOL, 5, 7, False)
    for key in ("A-v0", "B-v0"):
        seeds = [s.seed for s in specs if s.env_key == key]
        assert len(seeds) == 7
        assert seeds[0] == seeds[1] == seeds[2] != seeds[3]
        assert seeds[3] == seeds[4] == seeds[5] != seeds[6]
        assert len(set(seeds)) == 3


def test_evaluation_plays_always_have_seeds_of_their_own(tiny):
    run = bare_run(tiny({"play.plays_per_seed": 4}))
    seeds = [s.seed for s in run.specs(POOL, -1, 8, False, evaluation=True)]
    assert len(set(seeds)) == len(seeds) == 16


def test_one_play_per_seed_keeps_the_seeds_of_before(tiny):
    shared = [s.seed for s in bare_run(tiny({"play.plays_per_seed": 1})).specs(POOL, 2, 4, False)]
    assert len(set(shared)) == 8


def test_advantages_compare_replies_to_the_same_instance():
    # Seed 1 was easy (both right), seed 2 hard (one right): only seed 2 carries a signal.
    rewards = [1.0, 1.0, 1.0, 0.0]
    groups = [("A", 1), ("A", 1), ("A", 2), ("A", 2)]
    assert solver_advantages(rewards, groups) == pytest.approx([0, 0, 1, -1], abs=1e-5)
    # Grouped by environment alone, the easy seed's right answers would be pushed up too.
    assert solver_advantages(rewards, ["A"] * 4)[0] > 0


class RecordingEngine:
    """An engine that records the temperature of each call."""

    def __init__(self):
        self.temperatures = []

    def generate(self, prompts, role, max_new_tokens, temperature=None):
        from spadegym_train.engines.base import Completion

        self.temperatures.append(temperature)
        return [Completion(prompt_ids=p, response_ids=[1], text="ok") for p in prompts]


class Tokens:
    """A tokenizer stand-in: every conversation is the same two tokens."""

    def apply_chat_template(self, messages, **kwargs):
        return "rendered"

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": [1, 2]}


def test_evaluation_samples_at_eval_temperature_and_training_at_the_runs(tiny):
    config = tiny({"generation.eval_temperature": 0.1})
    engine = RecordingEngine()
    request = [[{"role": "user", "content": "hi"}]]
    engine_solver(config, engine, Tokens()).respond(request)
    engine_solver(config, engine, Tokens(), evaluation=True).respond(request)
    assert engine.temperatures == [None, 0.1]  # None: the engine's run temperature


def test_eval_temperature_defaults_to_the_runs():
    assert TrainConfig().generation.eval_temperature is None


@pytest.mark.parametrize("value", [0.0, -1.0])
def test_eval_temperature_must_be_positive(value):
    with pytest.raises(ConfigError, match="generation.eval_temperature=.* must be positive"):
        TrainConfig().replace({"generation.eval_temperature": value})


def test_plays_per_seed_must_be_at_least_one():
    with pytest.raises(ConfigError, match="play.plays_per_seed=0 must be at least 1"):
        TrainConfig().replace({"play.plays_per_seed": 0})


def test_the_flat_names_of_the_new_settings_still_read(tiny):
    with pytest.warns(FutureWarning, match="generation.eval_temperature"):
        config = tiny(eval_temperature=0.2, plays_per_seed=2)
    assert config.generation.eval_temperature == 0.2 and config.play.plays_per_seed == 2
