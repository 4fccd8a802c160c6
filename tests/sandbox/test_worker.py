"""The worker end to end: programs load, run, fail as data, and never take the host down.

Each test gets a fresh worker: a worker process serves one program.
"""

from __future__ import annotations

import math
import time

import pytest
from sample_programs import make_program

from spadegym.errors import ProgramError
from spadegym.sandbox import EnvHandle, SandboxConfig, SandboxWorker, make_worker


@pytest.fixture
def worker():
    w = SandboxWorker(SandboxConfig(call_timeout=1.0, kill_grace=1.0))
    yield w
    w.close()


def open_env(worker, source: str) -> EnvHandle:
    handle = EnvHandle(worker, source)
    handle.reset(0)
    return handle


def test_lock_pick_plays_through_the_pipe(worker, lock_pick):
    handle = EnvHandle(worker, lock_pick)
    obs, info = handle.reset(7)
    assert "3-digit lock" in obs and info == {}
    assert handle.info.class_name == "LockPickEnv" and handle.info.max_turns == 8
    (answer,) = handle.solution()
    wrong = handle.step("\\boxed{abc}")
    assert wrong.reward == 0.0 and not wrong.terminated
    win = handle.step(answer)
    assert (win.observation, win.reward, win.terminated) == ("Click. The lock opens.", 1.0, True)
    assert handle.hint().startswith("Change one digit")


def test_policy_refusal_is_reported_as_data(worker):
    with pytest.raises(ProgramError) as caught:
        worker.load("import os\nclass XEnv:\n    'x'\n    max_turns = 1\n")
    assert caught.value.kind == "policy" and "os" in str(caught.value)


def test_exception_in_step_names_the_line(worker):
    handle = open_env(worker, make_program("return int(action), 0.0, False, False, {}"))
    with pytest.raises(ProgramError) as caught:
        handle.step("not a number")
    assert caught.value.kind == "exception"
    assert "ValueError" in str(caught.value) and "line" in str(caught.value)
    handle.reset(0)  # a reset recovers the instance


@pytest.mark.parametrize(
    "step_body, fragment",
    [
        ("return 5, 0.0, False, False, {}", "observation of type int"),
        ("return 'x', float('nan'), False, False, {}", "reward nan"),
        ("return 'x', 2.0, False, False, {}", "reward 2.0"),
        ("return 'x', True, False, False, {}", "reward of type bool"),
        ("return 'x', 0.0, 1, False, {}", "terminated of type int"),
        ("return 'x', 0.0, False, False, {'k': {1, 2}}", "holds a set"),
        ("return 'x', 0.0, False, False, {1: 'a'}", "key of type int"),
        ("return 'x', 0.0, False, False, {'big': 'y' * 20000}", "the limit is 16384"),
        ("return 'x' * 9000, 0.0, False, False, {}", "9000 characters"),
        ("return 'x', 0.0, False", "5-tuple"),
    ],
)
def test_contract_violations_are_caught(worker, step_body, fragment):
    handle = open_env(worker, make_program(step_body))
    with pytest.raises(ProgramError) as caught:
        handle.step("a")
    assert caught.value.kind == "contract"
    assert fragment in str(caught.value)


def test_infinite_loop_hits_the_soft_deadline(worker):
    handle = open_env(worker, make_program("while True:\n    pass"))
    started = time.monotonic()
    with pytest.raises(ProgramError) as caught:
        handle.step("a")
    assert caught.value.kind == "timeout" and time.monotonic() - started < 5
    generation = worker.generation
    assert worker.step is not None and worker.generation == generation  # no restart needed


def test_loop_that_swallows_the_deadline_still_ends(worker):
    body = "while True:\n    try:\n        while True:\n            pass\n    except:\n        pass"
    handle = open_env(worker, make_program(body))
    started = time.monotonic()
    with pytest.raises(ProgramError) as caught:
        handle.step("a")
    assert caught.value.kind == "timeout" and time.monotonic() - started < 5


def test_uninterruptible_c_loop_is_killed_and_the_worker_restarts(worker):
    # sum() over a range runs in C without checking for signals: only a hard kill ends it.
    step = "total = sum(range(10 ** 12))\nreturn 'x', 0.0, False, False, {}"
    handle = open_env(worker, make_program(step))
    generation = worker.generation
    started = time.monotonic()
    with pytest.raises(ProgramError) as caught:
        handle.step("a")
    assert caught.value.kind == "timeout" and "killed" in str(caught.value)
    assert time.monotonic() - started < 6
    assert not worker.alive
    with pytest.raises(ProgramError) as lost:
        handle.step("a")
    assert lost.value.kind == "lost"
    handle.reset(1)  # the handle loads its program again in the fresh worker
    assert worker.generation == generation + 1
    assert worker.ping() == "pong"


def test_memory_bomb_is_contained(worker):
    bomb = "x = 'y' * (4 * 1024 ** 3)\nreturn 'x', 0.0, False, False, {}"
    handle = open_env(worker, make_program(bomb))
    with pytest.raises(ProgramError) as caught:
        handle.step("a")
    assert "memory" in str(caught.value).lower() or caught.value.kind == "crash"


def test_deep_recursion_is_contained(worker):
    extra = "def down(self, n):\n    return self.down(n + 1)"
    handle = open_env(worker, make_program("return self.down(0)", extra=extra))
    with pytest.raises(ProgramError) as caught:
        handle.step("a")
    assert "recursed too deeply" in str(caught.value)


def test_module_code_that_never_ends_times_out_at_load():
    worker = SandboxWorker(SandboxConfig(load_timeout=1.0))
    try:
        with pytest.raises(ProgramError) as caught:
            worker.load("while True:\n    pass\nclass XEnv:\n    'x'\n    max_turns = 1\n")
        assert caught.value.kind == "timeout"
    finally:
        worker.close()


def test_step_many_reports_each_failure_in_place(worker):
    program = make_program(
        "if action == 'b':\n    return 'x', math.inf, False, False, {}\n"
        "return 'ok', 0.0, False, False, {}",
        header="import math",
    )
    good, bad = EnvHandle(worker, program), EnvHandle(worker, program)
    good.reset(0)
    bad.reset(0)
    results = worker.step_many([(good.instance, "a"), (bad.instance, "b"), (good.instance, "c")])
    assert results[0].observation == "ok" and results[2].observation == "ok"
    assert isinstance(results[1], ProgramError) and "reward inf" in str(results[1])


def test_in_process_mode_runs_the_same_program(lock_pick):
    worker = make_worker(SandboxConfig(isolation="none"))
    handle = EnvHandle(worker, lock_pick)
    handle.reset(3)
    assert handle.step(handle.solution()[0]).reward == 1.0
    with pytest.raises(ProgramError):
        worker.load("import os\nclass XEnv:\n    'x'\n    max_turns = 1\n")


def test_results_are_plain_floats(worker):
    handle = open_env(worker, make_program("return 'ok', 1, True, False, {}"))
    result = handle.step("a")
    assert type(result.reward) is float and math.isclose(result.reward, 1.0)
