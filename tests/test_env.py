"""ProgramEnv: the Gymnasium face of a program."""

from __future__ import annotations

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from sample_programs import make_program

from spadegym import ProgramEnv, SpadegymError
from spadegym.env import PrintableText
from spadegym.errors import ProgramError


@pytest.fixture
def env(lock_pick):
    e = ProgramEnv(lock_pick)
    yield e
    e.close()


def test_spaces_accept_real_text():
    space = PrintableText(max_length=50)
    assert space.contains("Héllo, wörld! \\boxed{42}\n→ 東京")
    assert not space.contains("bell\x07")
    assert not space.contains("x" * 51)
    assert space.contains(space.sample())


def test_episode_truncates_at_max_turns_with_outcome(env):
    env.reset(seed=1)
    for turn in range(1, env.max_turns + 1):
        obs, reward, terminated, truncated, info = env.step("\\boxed{abc}")
        assert not terminated
        assert truncated == (turn == env.max_turns)
    assert info["episode_outcome"] == 0.0 and info["episode_turns"] == env.max_turns
    with pytest.raises(SpadegymError, match="call reset"):
        env.step("x")


def test_solution_wins_and_outcome_is_reported(env):
    env.reset(seed=5)
    (answer,) = env.solution()
    _, reward, terminated, _, info = env.step(answer)
    assert reward == 1.0 and terminated and info["episode_outcome"] == 1.0
    assert env.hint() and env.title == "Pick a combination lock by listening to the clicks."


def test_seeding_is_deterministic(lock_pick):
    a, b = ProgramEnv(lock_pick), ProgramEnv(lock_pick)
    try:
        a.reset(seed=3)
        b.reset(seed=3)
        assert a.solution() == b.solution()
        a.reset()
        b.reset()
        assert a.solution() == b.solution()  # unseeded resets follow the first seed
    finally:
        a.close()
        b.close()


def test_gymnasium_check_env_passes(env):
    check_env(env, skip_render_check=True)


def test_on_error_terminate_ends_the_episode():
    env = ProgramEnv(
        make_program("return int(action), 0.0, False, False, {}"), on_error="terminate"
    )
    try:
        env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.step("nope")
        assert terminated and reward == 0.0 and info["error"]["kind"] == "exception"
        assert obs.startswith("The environment failed")
    finally:
        env.close()


def test_on_error_raise_is_the_default():
    env = ProgramEnv(make_program("return int(action), 0.0, False, False, {}"))
    try:
        env.reset(seed=0)
        with pytest.raises(ProgramError):
            env.step("nope")
    finally:
        env.close()


def test_bad_arguments_are_explained(lock_pick):
    with pytest.raises(SpadegymError, match="exactly one of source"):
        ProgramEnv()
    with pytest.raises(SpadegymError, match="on_error"):
        ProgramEnv(lock_pick, on_error="ignore")
    with pytest.raises(SpadegymError, match="max_turns"):
        ProgramEnv(lock_pick, max_turns=0, isolation="none")


def test_in_process_isolation(lock_pick):
    env = ProgramEnv(lock_pick, isolation="none")
    env.reset(seed=2)
    assert env.step(env.solution()[0])[1] == 1.0
    env.close()


def test_render_ansi(lock_pick):
    env = ProgramEnv(lock_pick, render_mode="ansi", isolation="none")
    obs, _ = env.reset(seed=0)
    assert env.render() == obs
    env.close()


def test_is_a_gymnasium_env(env):
    assert isinstance(env, gymnasium.Env)


def test_a_failing_reset_honours_on_error_terminate():
    program = make_program("return 'x', 0.0, False, False, {}", reset_body="raise KeyError('b')")
    env = ProgramEnv(program, on_error="terminate")
    try:
        obs, info = env.reset(seed=0)
        assert obs.startswith("The environment failed to reset: reset() raised KeyError")
        assert info["error"]["kind"] == "exception"
        assert env.hint() is None and env.solution() is None  # nothing to ask a failed instance
        obs, reward, terminated, truncated, info = env.step("a")
        assert terminated and reward == 0.0 and info["error"]["kind"] == "exception"
        assert info["episode_outcome"] == 0.0 and info["episode_turns"] == 1
    finally:
        env.close()
    raising = ProgramEnv(program)
    try:
        with pytest.raises(ProgramError, match="KeyError"):
            raising.reset(seed=0)
    finally:
        raising.close()


def test_an_over_long_action_ends_the_episode_under_terminate(lock_pick):
    env = ProgramEnv(lock_pick, on_error="terminate")
    try:
        env.reset(seed=0)
        _, reward, terminated, _, info = env.step("x" * 1_000_000)
        assert terminated and reward == 0.0 and info["error"]["kind"] == "action"
        assert "at most 65536 characters" in info["error"]["message"]
    finally:
        env.close()
