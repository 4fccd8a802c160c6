"""``exchange_then`` and ``SandboxPool.step_then_reset``: resets sent as each worker answers."""

from __future__ import annotations

import pytest
from sample_programs import make_program

from spadegym.errors import ProgramError
from spadegym.sandbox import SandboxConfig, SandboxPool, protocol
from spadegym.sandbox.pipeline import exchange_then
from spadegym.vector import EnvBatch

# Ends its episode on the second step; each reset says which seed it got.
SHORT = make_program(
    "self.turns += 1\nreturn f't{self.turns}', 1.0, self.turns >= 2, False, {}",
    reset_body="self.turns = 0\nreturn f'seed {seed}', {}",
)
OTHER = SHORT.replace("A probe.", "Another probe.")


def test_follow_ups_go_to_the_worker_that_answered():
    with SandboxPool(size=2) as pool:
        handles = [pool.open(program) for program in (SHORT, OTHER, SHORT, OTHER)]
        for seed, handle in enumerate(handles):
            handle.reset(seed)
        items = [(h.worker, protocol.step_request(h.instance, "x")) for h in handles]
        seen = []

        def then(position, answer):
            seen.append(position)
            if position % 2 == 0:
                return None
            return protocol.reset_request(handles[position].instance, 100 + position, None)

        answers, follow = exchange_then(items, then)
        assert sorted(seen) == [0, 1, 2, 3]
        assert [a["ok"] for a in answers] == [True] * 4
        assert sorted(follow) == [1, 3]
        assert [follow[p]["v"][0] for p in (1, 3)] == ["seed 101", "seed 103"]
        # the pipes hold nothing more: the next exchange reads its own answers
        assert [r.observation for r in pool.step_batch([(h, "x") for h in handles])] == [
            "t2",
            "t1",
            "t2",
            "t1",
        ]


def test_the_worker_that_answers_first_is_read_first():
    slow = make_program("total = sum(range(3 * 10 ** 6))\nreturn 'slow', 0.0, False, False, {}")
    with SandboxPool(size=2) as pool:
        handles = [pool.open(slow), pool.open(SHORT)]
        for handle in handles:
            handle.reset(0)
        seen = []
        items = [(h.worker, protocol.step_request(h.instance, "x")) for h in handles]
        answers, _ = exchange_then(items, lambda position, answer: seen.append(position))
        assert seen == [1, 0]  # the quick program's answer was handled first
        assert [a["ok"] for a in answers] == [True, True]


def test_an_exception_in_then_drains_every_pipe_before_it_is_raised():
    with SandboxPool(size=2) as pool:
        handles = [pool.open(program) for program in (SHORT, OTHER, SHORT, OTHER)]
        for seed, handle in enumerate(handles):
            handle.reset(seed)
        items = [(h.worker, protocol.step_request(h.instance, "x")) for h in handles]

        def then(position, answer):
            raise RuntimeError("a bug in the caller")

        with pytest.raises(RuntimeError, match="a bug in the caller"):
            exchange_then(items, then)
        results = pool.step_batch([(h, "x") for h in handles])
        assert [r.observation for r in results] == ["t2"] * 4  # in step, not out of step


def test_a_quarantined_programs_resets_are_left_to_the_caller():
    with SandboxPool(size=2) as pool:
        handles = [pool.open(program) for program in (SHORT, OTHER)]
        for handle in handles:
            handle.reset(0)
        pool.step_batch([(h, "x") for h in handles])
        pool.strike(handles[1].digest, "other")  # quarantined from now on
        results, resets = pool.step_then_reset(
            [(h, "x") for h in handles], lambda position, result: (7, None)
        )
        assert results[0].terminated and isinstance(results[1], ProgramError)
        assert resets == {0: ("seed 7", {})}


@pytest.mark.parametrize("isolation", ["process", "none"])
def test_pipelined_autoreset_plays_exactly_as_a_reset_after_the_step(lock_pick, isolation):
    """EnvBatch over a SandboxPool (pipelined) against the same pool seen through a wrapper
    that only offers step_batch and reset_batch (a second exchange for the resets)."""

    class Plain:
        def __init__(self, pool):
            self.pool = pool

        def __getattr__(self, name):
            if name == "step_then_reset":
                raise AttributeError(name)
            return getattr(self.pool, name)

    programs = [lock_pick, SHORT, OTHER] * 3
    replies = ["\\boxed{123}", "x", "\\boxed{9}"]
    runs = []
    for wrap in (lambda pool: pool, Plain):
        with SandboxPool(size=2, config=SandboxConfig(isolation=isolation)) as pool:
            with EnvBatch(programs, pool=wrap(pool), seed=3) as batch:
                trace = [batch.reset(seed=3)]
                for t in range(12):
                    trace.append(batch.step([replies[(k + t) % 3] for k in range(len(batch))]))
                runs.append(trace)
    assert runs[0] == runs[1]
    finals = [info for step in runs[0][1:] for info in step[4] if "final_info" in info]
    assert len(finals) > 12  # episodes did end and were reset within the step
