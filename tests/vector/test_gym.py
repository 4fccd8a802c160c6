"""Gymnasium's vector API over spadegym: the pooled make_vec, async with defaults, difficulty."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from sample_programs import COUNTER, LOCK_PICK

from spadegym.errors import SpadegymError
from spadegym.registry import Registry
from spadegym.vector.gym import SpadeVectorEnv

WRONG = "\\boxed{abc}"


@pytest.fixture
def lock_id(isolated_spadegym, tmp_path):
    return Registry(tmp_path / "root").add(LOCK_PICK)


def test_make_vec_defaults_to_the_pooled_batch(lock_id, monkeypatch):
    from spadegym.sandbox import SandboxPool

    envs = gymnasium.make_vec(lock_id, num_envs=3, num_workers=2)
    try:
        assert isinstance(envs.unwrapped, SpadeVectorEnv)
        assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
        obs, info = envs.reset(seed=5)
        assert obs == ("A 3-digit lock. Guess with \\boxed{ddd}.",) * 3
        assert envs.observation_space.contains(obs)
        batches = []
        real = SandboxPool.step_then_reset
        monkeypatch.setattr(
            SandboxPool,
            "step_then_reset",
            lambda self, b, then: batches.append(len(b)) or real(self, b, then),
        )
        obs, rewards, terminated, truncated, info = envs.step([WRONG] * 3)
        assert batches == [3]  # one batch for the whole vector
        assert rewards.dtype == np.float64 and terminated.dtype == truncated.dtype == np.bool_
        assert obs == ("Answer with three digits in \\boxed{}.",) * 3
        for _ in range(7):  # LockPick truncates at 8 turns: same-step autoreset
            obs, rewards, terminated, truncated, info = envs.step([WRONG] * 3)
        assert truncated.all() and not terminated.any()
        assert obs == ("A 3-digit lock. Guess with \\boxed{ddd}.",) * 3
        assert info["final_obs"][0] == "Answer with three digits in \\boxed{}."
        assert list(info["final_info"]["episode_turns"]) == [8, 8, 8]  # vector info, nested
        assert list(info["episode_outcome"]) == [0.0, 0.0, 0.0]
    finally:
        envs.close()


def test_reset_takes_seed_lists_and_a_reset_mask(lock_id):
    envs = gymnasium.make_vec(lock_id, num_envs=2)
    try:
        envs.reset(seed=[1, 2])
        envs.step([WRONG, WRONG])
        obs, info = envs.reset(options={"reset_mask": np.array([False, True])})
        assert obs[1] == "A 3-digit lock. Guess with \\boxed{ddd}."
        assert obs[0] == "Answer with three digits in \\boxed{}."
        with pytest.raises(SpadegymError, match="reset\\(\\) got 3 seeds for 2 environments"):
            envs.reset(seed=[1, 2, 3])
        with pytest.raises(SpadegymError, match="step\\(\\) got one str for 2 environments"):
            envs.step(WRONG)
    finally:
        envs.close()


def test_make_vec_refuses_what_the_pooled_vector_does_not_take(lock_id):
    with pytest.raises(SpadegymError, match="make_vec got render_mode, which spadegym's pooled"):
        gymnasium.make_vec(lock_id, num_envs=2, render_mode="ansi")
    with pytest.raises(SpadegymError, match="max_episode_steps=3: the pooled vector plays"):
        gymnasium.make_vec(lock_id, num_envs=2, max_episode_steps=3)


def test_async_mode_works_with_its_defaults(lock_id):
    envs = gymnasium.make_vec(lock_id, num_envs=2, vectorization_mode="async")
    try:
        obs, _ = envs.reset(seed=3)
        assert obs == ("A 3-digit lock. Guess with \\boxed{ddd}.",) * 2
        obs, rewards, *_ = envs.step(["\\boxed{}", "\\boxed{12}"])
        assert obs == ("Answer with three digits in \\boxed{}.",) * 2
        assert isinstance(obs, tuple)  # a snapshot, not the live shared memory
    finally:
        envs.close()


def shifts(observation: str) -> list[str]:
    import re

    return re.findall(r"[+-][0-9]+", observation)


def test_make_with_difficulty_sets_the_default_of_reset(isolated_spadegym, tmp_path):
    from pathlib import Path

    program = Path(__file__).resolve().parents[2] / "examples" / "single_turn" / "clock_shift.py"
    env_id = Registry(tmp_path / "root").add(program.read_text())
    easy = gymnasium.make(env_id, difficulty=1)
    hard = gymnasium.make(env_id, difficulty=5)
    try:
        easy_obs, _ = easy.reset(seed=0)
        hard_obs, _ = hard.reset(seed=0)
        assert len(shifts(easy_obs)) == 2 and len(shifts(hard_obs)) == 6  # 1 + difficulty
        overridden, _ = hard.reset(seed=0, options={"difficulty": 1})
        assert overridden == easy_obs
        # The privileged accessors sit on the unwrapped environment.
        assert easy.unwrapped.solution()[0].startswith("\\boxed{")
        assert "modulo" in easy.unwrapped.hint()
    finally:
        easy.close()
        hard.close()
    with pytest.raises(SpadegymError, match="difficulty=9: difficulties are ints in 1..5"):
        gymnasium.make(env_id, difficulty=9)
    vec = gymnasium.make_vec(env_id, num_envs=2, difficulty=5)
    try:
        obs, _ = vec.reset(seed=0)
        assert obs[0] == hard_obs
        obs, *_ = vec.step(["\\boxed{0}", "\\boxed{0}"])
        assert all(len(shifts(o)) == 6 for o in obs)  # autoreset keeps the difficulty
    finally:
        vec.close()


def test_autoreset_mode_is_a_keyword_and_disabled_leaves_resets_to_the_caller(lock_id):
    from gymnasium.vector import AutoresetMode

    envs = gymnasium.make_vec(lock_id, num_envs=2, autoreset_mode="disabled")
    try:
        assert envs.metadata["autoreset_mode"] == AutoresetMode.DISABLED
        envs.reset(seed=3)
        for _ in range(8):  # LockPick truncates at 8 turns
            obs, _, terminated, truncated, info = envs.step([WRONG] * 2)
        assert truncated.all() and "final_obs" not in info
        assert obs == ("Answer with three digits in \\boxed{}.",) * 2  # no new episode
        with pytest.raises(SpadegymError, match="has no episode running; call reset"):
            envs.step([WRONG] * 2)
        obs, _ = envs.reset(options={"reset_mask": np.array([True, True])})
        assert obs == ("A 3-digit lock. Guess with \\boxed{ddd}.",) * 2
    finally:
        envs.close()


def test_an_unknown_autoreset_mode_is_refused_naming_the_valid_ones(lock_id):
    with pytest.raises(
        SpadegymError,
        match="autoreset_mode='sometimes' is not a mode: write AutoresetMode.NEXT_STEP, "
        "AutoresetMode.SAME_STEP \\(the default\\) or AutoresetMode.DISABLED, or their names "
        "'next_step', 'same_step', 'disabled'.",
    ):
        gymnasium.make_vec(lock_id, num_envs=2, autoreset_mode="sometimes")


def test_next_step_returns_the_final_observation_then_resets_in_one_exchange(lock_id, monkeypatch):
    from gymnasium.vector import AutoresetMode

    from spadegym.sandbox import SandboxPool

    envs = gymnasium.make_vec(lock_id, num_envs=2, autoreset_mode=AutoresetMode.NEXT_STEP)
    try:
        assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        envs.reset(seed=3)
        for _ in range(8):  # LockPick truncates at 8 turns
            obs, rewards, terminated, truncated, info = envs.step([WRONG] * 2)
        assert truncated.all() and "final_obs" not in info
        assert obs == ("Answer with three digits in \\boxed{}.",) * 2  # the final observation
        assert list(info["episode_turns"]) == [8, 8]
        calls = []
        for name in ("step_then_reset", "reset_batch"):
            real = getattr(SandboxPool, name)
            monkeypatch.setattr(
                SandboxPool, name, lambda self, *a, n=name, f=real: calls.append(n) or f(self, *a)
            )
        obs, rewards, terminated, truncated, info = envs.step(["\\boxed{000}"] * 2)
        assert obs == ("A 3-digit lock. Guess with \\boxed{ddd}.",) * 2  # actions ignored
        assert not (rewards.any() or terminated.any() or truncated.any())
        assert calls == []  # the resets went out with the 8th step's exchange
        obs, *_ = envs.step([WRONG] * 2)
        assert obs == ("Answer with three digits in \\boxed{}.",) * 2 and calls == [
            "step_then_reset"
        ]
    finally:
        envs.close()


def test_sync_mode_autoresets_next_step_unless_told_same_step(lock_id):
    from gymnasium.vector import AutoresetMode

    plain = gymnasium.make_vec(lock_id, num_envs=1, vectorization_mode="sync")
    same = gymnasium.make_vec(
        lock_id,
        num_envs=1,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
    )
    try:
        assert plain.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        for envs in (plain, same):
            envs.reset(seed=0)
            for _ in range(8):
                obs, *_, info = envs.step([WRONG])
        assert plain.step([WRONG])[0] == ("A 3-digit lock. Guess with \\boxed{ddd}.",)
        assert obs == ("A 3-digit lock. Guess with \\boxed{ddd}.",)  # same's, at the 8th
    finally:
        plain.close()
        same.close()


def assert_same_info(ours, theirs, path="info"):
    """Vector infos equal key by key: nested dicts, and arrays of equal dtype and values."""
    assert isinstance(ours, type(theirs)), path
    if isinstance(theirs, dict):
        assert ours.keys() == theirs.keys(), path
        for key in theirs:
            assert_same_info(ours[key], theirs[key], f"{path}[{key!r}]")
    elif isinstance(theirs, np.ndarray):
        assert ours.dtype == theirs.dtype and ours.tolist() == theirs.tolist(), path
    else:
        assert ours == theirs, path


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_each_autoreset_mode_plays_as_gymnasiums_sync_vector_env(mode):
    from gymnasium.vector import AutoresetMode, SyncVectorEnv

    from spadegym.env import ProgramEnv

    mode = AutoresetMode[mode.upper()]
    n = 4
    ours = SpadeVectorEnv(COUNTER, n, num_workers=2, autoreset_mode=mode)
    theirs = SyncVectorEnv([lambda: ProgramEnv(COUNTER) for _ in range(n)], autoreset_mode=mode)
    ends, truncations, mid_resets = [], 0, []

    def both_reset(**kwargs):
        mine, reference = ours.reset(**kwargs), theirs.reset(**kwargs)
        assert mine[0] == reference[0]
        assert_same_info(mine[1], reference[1])

    try:
        assert ours.metadata["autoreset_mode"] is mode
        both_reset(seed=11)
        for t in range(40):
            actions = ["stop" if (3 * t + 5 * k) % 7 == 0 else "go" for k in range(n)]
            mine, reference = ours.step(actions), theirs.step(actions)
            assert mine[0] == reference[0], t
            for a, b in zip(mine[1:4], reference[1:4]):
                assert a.dtype == b.dtype and a.tolist() == b.tolist(), t
            info = dict(mine[4])
            if mode is AutoresetMode.SAME_STEP:  # the one key added: the outcome, on top
                assert "final_info" not in info or (
                    info.pop("episode_outcome").tolist()
                    == reference[4]["final_info"]["episode_outcome"].tolist()
                )
                info.pop("_episode_outcome", None)
            assert_same_info(info, reference[4], f"step {t}")
            done = mine[2] | mine[3]
            ends.append(done.copy())
            truncations += int(mine[3].sum())
            if mode is AutoresetMode.DISABLED and done.any():
                both_reset(options={"reset_mask": done})
            elif mode is AutoresetMode.NEXT_STEP and done.any() and not done.all():
                # Resets between an end and the next step: the ended instances' resets were
                # already drawn (and sent); an unseeded reset must play those same seeds.
                if len(mid_resets) == 0 and t >= 10:
                    mid_resets.append(t)
                    both_reset()
                elif len(mid_resets) == 1 and t >= 25:
                    mid_resets.append(t)
                    both_reset(options={"reset_mask": done | (np.arange(n) == n - 1)})
    finally:
        ours.close()
        theirs.close()
    ends = np.array(ends)
    assert ends.sum() > 20 and 0 < truncations < ends.sum()  # terminations and truncations
    assert len(mid_resets) == (2 if mode is AutoresetMode.NEXT_STEP else 0)
    assert any(row.any() and not row.all() for row in ends)  # instances end at different steps
