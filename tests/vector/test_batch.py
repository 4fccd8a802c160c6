"""EnvBatch (``spadegym.vector``): the autoreset modes, ProgramEnv's seed rule, subset steps."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from sample_programs import COUNTER

from spadegym.env import ProgramEnv
from spadegym.errors import SpadegymError
from spadegym.sandbox import SandboxConfig, SandboxPool
from spadegym.vector import EnvBatch


def test_seeds_follow_program_envs_rule():
    """A seeded reset plays its seed; later resets draw from np_random seeded with it."""
    env = ProgramEnv(COUNTER)
    try:
        expected = [env.reset(seed=6)[0], env.reset()[0], env.reset()[0]]
    finally:
        env.close()
    assert expected[0] == "seed 6: count to 5" and expected[1] != expected[2]
    with EnvBatch([COUNTER] * 2) as batch:
        assert batch.reset(seed=5)[0][1] == expected[0]  # instance k plays seed + k
        assert batch.step(["stop", "stop"])[0][1] == expected[1]  # a same-step autoreset
        assert batch.reset(indices=[1])[0] == [expected[2]]  # an unseeded reset
    first, second = (EnvBatch([COUNTER] * 2, seed=1) for _ in range(2))
    with first, second, EnvBatch([COUNTER] * 2, seed=2) as third:  # the batch's own seed
        assert first.reset()[0] == second.reset()[0] != third.reset()[0]


def test_step_plays_only_the_instances_named():
    with EnvBatch([COUNTER] * 3) as batch:
        batch.reset(seed=[3, 3, 3])  # target 2: "go" twice ends the episode
        obs, rewards, terminated, _, infos = batch.step(["go", "stop"], indices=[2, 0])
        assert obs[0] == "1 of 2" and terminated == [False, True] and rewards == [0.0, -1.0]
        assert infos[1]["final_observation"] == "stopped at 1"
        obs, *_, infos = batch.step(["go", "go", "go"])
        assert obs[1] == "1 of 2"  # instance 1 had not moved
        assert infos[2]["final_observation"] == "2 of 2" and obs[2].startswith("seed ")
        with pytest.raises(SpadegymError, match=r"indices=\[1, 1\]: name each instance at most"):
            batch.step(["go", "go"], indices=[1, 1])
        with pytest.raises(SpadegymError, match=r"indices=\[3\]: .* as ints in 0..2"):
            batch.reset(indices=[3])
        with pytest.raises(SpadegymError, match="step\\(\\) got 2 actions for 1 environments"):
            batch.step(["go", "go"], indices=[0])


def test_next_step_ignores_the_action_of_an_instance_owed_its_reset():
    with EnvBatch([COUNTER] * 2, autoreset=AutoresetMode.NEXT_STEP) as batch:
        batch.reset(seed=[3, 3])
        obs, rewards, terminated, truncated, infos = batch.step(["stop", "go"])
        assert obs == ["stopped at 1", "1 of 2"] and terminated == [True, False]
        assert infos[0]["episode_outcome"] == -1.0 and "final_observation" not in infos[0]
        obs, rewards, terminated, truncated, infos = batch.step(["stop", "go"])
        assert obs[0].startswith("seed ") and rewards == [0.0, 1.0]  # "stop" was ignored
        assert terminated == [False, True] and truncated == [False, False]
        assert infos[0] == {"target": int(obs[0].split()[-1])}  # the reset's info
        obs, *_ = batch.step(["go", "go"])
        assert obs[0] == "1 of " + obs[0].split()[-1] and obs[1].startswith("seed ")


@pytest.mark.parametrize("isolation", ["process", "none"])
def test_next_step_plays_the_same_over_a_pool_without_pipelining(isolation):
    """The pipelined reset against a pool that offers only step_batch and reset_batch."""

    class Plain:
        def __init__(self, pool):
            self.pool = pool

        def __getattr__(self, name):
            if name == "step_then_reset":
                raise AttributeError(name)
            return getattr(self.pool, name)

    runs = []
    for wrap in (lambda pool: pool, Plain):
        with SandboxPool(size=2, config=SandboxConfig(isolation=isolation)) as pool:
            with EnvBatch([COUNTER] * 4, pool=wrap(pool), autoreset="next_step") as batch:
                trace = [batch.reset(seed=4)]
                for t in range(15):
                    actions = ["stop" if (t + k) % 4 == 0 else "go" for k in range(4)]
                    trace.append(batch.step(actions))
                runs.append(trace)
    assert runs[0] == runs[1]
    assert sum(sum(step[2]) for step in runs[0][1:]) > 8  # episodes did end
    assert np.mean([o.startswith("seed ") for step in runs[0][1:] for o in step[0]]) > 0.1


@pytest.mark.parametrize("max_turns", ["None", "0", "True", "'3'"])
def test_a_program_without_a_valid_turn_limit_is_refused_by_name(max_turns):
    """EnvBatch and ProgramEnv read ``max_turns`` by the contract's one rule, before any step."""
    program = COUNTER.replace("max_turns = 5", f"max_turns = {max_turns}")
    assert program != COUNTER
    with pytest.raises(SpadegymError, match=r"max_turns=.*must set an int max_turns in 1\.\.100"):
        EnvBatch([program])
    with pytest.raises(SpadegymError, match=r"in 1\.\.100 \(or pass max_turns=\)"):
        ProgramEnv(program)
    ProgramEnv(program, max_turns=2).close()  # the override is the fix the message names
