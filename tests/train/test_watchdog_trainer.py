"""The trainer and the sandbox's watchdog: a program that changes as it is played is dropped.

The tiny preset's pieces without a model: the run's ``specs``, ``record`` and
``designer_samples`` around ``play_episodes`` on a watched pool, with a solver that always
replies the same.
"""

from __future__ import annotations

from sample_programs import make_program

from spadegym.designer import Candidate, Tokens
from spadegym.play import Reply, play_episodes
from spadegym.sandbox import SandboxPool
from spadegym.sandbox.watchdog import WatchdogConfig
from spadegym_train import checkpoint as ckpt
from spadegym_train.design import Plays
from spadegym_train.library import PoolEnv
from spadegym_train.loop import Run

FLIPS = make_program(
    """
    if ProbeEnv.count > 20:
        return "You win.", 1.0, True, False, {}
    return "Wrong.", 0.0, False, False, {}
    """,
    reset_body='ProbeEnv.count += 1\nreturn "Say the word.", {}',
    extra="count = 0",
)
STEADY = make_program('return "Wrong.", 0.0, False, False, {}')


class Nope:
    """A solver that always replies "nope"."""

    def respond(self, requests):
        return [Reply("nope") for _ in requests]


def test_a_quarantined_program_is_dropped_and_counted_as_its_designers_failure(tiny):
    config = tiny()
    run = Run.__new__(Run)  # the loop's bookkeeping, without a model or a designer
    run.config, run.memory, run.hinter, run.spade = config, None, None, True
    run.state = ckpt.RunState()
    run.state.candidates = [
        Candidate(0, "flips", "puzzle", 3, "doc", "corpus", status="accepted", env_id="Flips-v0"),
        Candidate(1, "steady", "puzzle", 3, "doc", "corpus", status="accepted", env_id="Steady-v0"),
    ]
    for candidate in run.state.candidates:
        candidate.tokens = Tokens([1, 2], [3, 4])
    run.state.plays = [Plays(), Plays()]
    run.state.pool = [
        PoolEnv("Flips-v0", FLIPS, "flips", 1, 5, candidate=0),
        PoolEnv("Steady-v0", STEADY, "steady", 1, 5, candidate=1),
    ]
    quarantined = []
    with SandboxPool(1, watchdog=WatchdogConfig(probe_every=5)) as pool:
        for it in range(12):
            episodes = play_episodes(run.specs(run.state.pool, it, 4, False), pool, Nope())
            quarantined.append(run.record(episodes, it)["validate/quarantined"])
    assert 1.0 in quarantined and sum(quarantined) == 1.0  # once, then no longer played
    assert [env.key for env in run.state.pool] == ["Steady-v0"]
    flips, steady = run.state.plays
    assert flips.failed and not steady.failed
    _, metrics = run.designer_samples(trajectories=8)
    assert metrics["designer/candidates"] == 2  # the dropped one is still scored
    assert metrics["designer/reward_mean/flips"] == config.rewards.timeout_penalty
    assert metrics["designer/failed_envs"] == 1.0
