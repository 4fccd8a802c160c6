"""Executors: the local pool, and Ray (a local cluster started by the test, marked slow)."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from spadegym.errors import SpadegymError
from spadegym.validation import ValidationConfig, validate_many
from spadegym.validation.executors import LocalExecutor, TaskLost, get_executor

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = [p.read_text() for p in sorted((ROOT / "examples" / "good").glob("*.py"))[:3]]
FAST = ValidationConfig(fuzz_examples=10, check_env=False)


def square(x: int) -> int:
    if x < 0:
        raise ValueError("negative")
    return x * x


def die_once(item: tuple[str, int]) -> int:
    """Kill the process running it the first time (a marker file remembers)."""
    marker, value = item
    if not os.path.exists(marker):
        Path(marker).write_text("died")
        os._exit(1)
    return value


def always_die(item: int) -> int:
    os._exit(1)


def pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_local_executor_keeps_order_and_reports_failures():
    results = LocalExecutor(2).map(square, [3, -1, 4])
    assert results[0] == 9 and results[2] == 16
    assert isinstance(results[1], TaskLost) and "negative" in results[1].reason


def test_get_executor_spellings():
    assert get_executor(None).name == "local"
    with pytest.raises(SpadegymError, match="unknown"):
        get_executor("dask")


@pytest.fixture(scope="module")
def ray_executor():
    pytest.importorskip("ray")
    from ray import cloudpickle

    from spadegym.validation.executors import RayExecutor

    # Ray's workers cannot import this test module: send its functions by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    executor = RayExecutor(
        num_actors=2, max_retries=2, init_kwargs={"num_cpus": 2, "include_dashboard": False}
    )
    yield executor
    executor.close()
    import ray

    ray.shutdown()


@pytest.mark.slow
def test_ray_results_equal_local(ray_executor):
    local = validate_many(PROGRAMS + ["not a program"], FAST)
    remote = validate_many(PROGRAMS + ["not a program"], FAST, executor=ray_executor)
    assert [r.ok for r in remote] == [r.ok for r in local] == [True, True, True, False]
    assert [[c.name for c in r.checks] for r in remote] == [
        [c.name for c in r.checks] for r in local
    ]
    assert [r.properties.title for r in remote] == [r.properties.title for r in local]


@pytest.mark.slow
def test_ray_actor_killed_mid_task_is_retried(ray_executor, tmp_path):
    items = [(str(tmp_path / f"marker{k}"), k) for k in range(4)]
    assert ray_executor.map(die_once, items) == [0, 1, 2, 3]


@pytest.mark.slow
def test_ray_work_lost_after_retries_is_reported(ray_executor):
    (result,) = ray_executor.map(always_die, [1])
    assert isinstance(result, TaskLost) and result.attempts == 3
    assert "actor died" in result.reason
    assert ray_executor.map(square, [5]) == [25]  # the driver and the pool live on


@pytest.mark.slow
def test_ray_callers_on_several_threads_share_the_actors(ray_executor):
    """generate's candidate threads each map one item: they must spread over the actors."""
    results: dict[int, list] = {}

    def call(k: int) -> None:
        results[k] = ray_executor.map(pid_after, [0.5])

    threads = [threading.Thread(target=call, args=(k,)) for k in range(4)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    pids = {r[0] for r in results.values()}
    assert len(results) == 4 and all(isinstance(p, int) for p in pids)
    assert len(pids) == 2  # both actors served, one task each at a time
    assert elapsed >= 1.0  # four tasks of 0.5 s on two actors: two waves, never four at once
