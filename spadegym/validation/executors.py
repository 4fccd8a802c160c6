"""Where validations run: a local pool (the default) or a Ray cluster, behind one small interface.

``Validator``/``validate_many`` fan their programs out over an executor, and ``generate``
passes its ``executor=`` here for its candidates' validations (the model calls stay in the
driver). An executor maps any function, but what it is given is validation work: stepping
many environments at once is ``spadegym.vector``'s job, whose Ray batch shares ``init_ray``.

``Executor.map(fn, items)`` runs ``fn(item)`` for every item and returns the results in order.
A result that could not be produced comes back as a ``TaskLost`` value, never silently
dropped: a task whose Ray actor died is retried on a fresh actor up to ``max_retries`` times,
then reported lost with the reason. Backpressure: each actor holds one task at a time and the
rest wait on the driver, so a fast producer cannot flood the cluster. ``map`` may be called
from several threads at once (``generate``'s candidate threads do): they share the actors, and
a caller waits on the driver while every actor is busy.

The sandbox lives inside each executor process: a Ray actor starts its own sandbox workers on
its node, so isolation holds on every machine exactly as it does locally.
"""

from __future__ import annotations

import abc
import concurrent.futures
import os
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spadegym.errors import ConfigError, SpadegymError

__all__ = ["Executor", "LocalExecutor", "RayExecutor", "TaskLost", "get_executor", "init_ray"]

Progress = Callable[[int, Any], None]


@dataclass(frozen=True)
class TaskLost:
    """A task whose result could not be produced.

    Attributes:
        index: the task's position in the mapped items.
        reason: what happened (the actor died, the task raised, ...).
        attempts: how many times it was tried.
    """

    index: int
    reason: str
    attempts: int = 1


class Executor(abc.ABC):
    """Runs a function over items, somewhere; results come back in order."""

    name = "executor"

    @abc.abstractmethod
    def map(
        self, fn: Callable[[Any], Any], items: Sequence[Any], *, progress: Progress | None = None
    ) -> list[Any]:
        """``[fn(item) for item in items]``, concurrently; failures become ``TaskLost``."""

    def close(self) -> None:  # noqa: B027 (optional: an executor may hold nothing)
        """Release the executor's resources."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalExecutor(Executor):
    """A thread pool on this machine (sandbox workers are processes, so threads suffice)."""

    name = "local"

    def __init__(self, workers: int | None = None):
        self.workers = max(1, workers or min(4, os.cpu_count() or 1))

    def map(
        self, fn: Callable[[Any], Any], items: Sequence[Any], *, progress: Progress | None = None
    ) -> list[Any]:
        """Run the tasks on the thread pool."""
        results: list[Any] = [None] * len(items)
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.workers) as pool:
            futures = {pool.submit(fn, item): k for k, item in enumerate(items)}
            for future in concurrent.futures.as_completed(futures):
                k = futures[future]
                try:
                    results[k] = future.result()
                except Exception as exc:  # a task's failure is its result, not the caller's
                    results[k] = TaskLost(k, f"{type(exc).__name__}: {exc}")
                if progress is not None:
                    progress(k, results[k])
        return results


class RayExecutor(Executor):
    """Actors on a Ray cluster, each running tasks in its own process with its own sandboxes.

    Args:
        address: the cluster (``None`` follows Ray's usual settings: ``RAY_ADDRESS``, or a new
            local cluster).
        num_actors: actors to start (default: the cluster's CPUs, at most 8).
        max_retries: attempts after the first when an actor dies mid-task.
        init_kwargs: passed to ``ray.init`` when this executor starts Ray.
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        num_actors: int | None = None,
        max_retries: int = 2,
        init_kwargs: dict[str, Any] | None = None,
    ):
        ray = init_ray(address, init_kwargs)
        self.ray = ray
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.num_actors = max(1, num_actors or min(8, cpus))
        self.max_retries = max_retries
        self._actor_class = ray.remote(num_cpus=0)(_TaskActor)
        self.actors = [self._actor_class.remote() for _ in range(self.num_actors)]
        self._lock = threading.Lock()
        self._free: queue.Queue[int] = queue.Queue()
        for slot in range(self.num_actors):
            self._free.put(slot)

    def map(
        self, fn: Callable[[Any], Any], items: Sequence[Any], *, progress: Progress | None = None
    ) -> list[Any]:
        """Run the tasks on the actors, retrying those whose actor died."""
        ray = self.ray
        results: list[Any] = [None] * len(items)
        attempts = [0] * len(items)
        pending = list(range(len(items)))[::-1]
        in_flight: dict[Any, tuple[int, int, Any]] = {}  # ref -> (item index, slot, actor)
        fn_ref = ray.put(fn) if items else None
        while pending or in_flight:
            # One task per actor, on free actors only: a dying actor then takes only its own
            # task with it, and other callers' tasks are never queued behind ours.
            while pending:
                slot = self._take(wait=not in_flight)
                if slot is None:
                    break
                k = pending.pop()
                attempts[k] += 1
                actor = self.actors[slot]
                in_flight[actor.run.remote(fn_ref, items[k])] = (k, slot, actor)
            # With work still waiting, look up now and then for actors other callers freed.
            done, _ = ray.wait(list(in_flight), num_returns=1, timeout=0.05 if pending else None)
            for ref in done:
                k, slot, actor = in_flight.pop(ref)
                try:
                    results[k] = ray.get(ref)
                except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as exc:
                    self._replace(slot, actor)
                    if attempts[k] <= self.max_retries:
                        pending.append(k)
                        continue
                    results[k] = TaskLost(
                        k,
                        f"its Ray actor died ({type(exc).__name__}) {attempts[k]} times",
                        attempts[k],
                    )
                except ray.exceptions.RayTaskError as exc:
                    results[k] = TaskLost(k, f"the task raised: {exc.cause!r}", attempts[k])
                finally:
                    self._free.put(slot)
                if progress is not None:
                    progress(k, results[k])
        return results

    def _take(self, wait: bool) -> int | None:
        """A free actor's slot; ``None`` when none is free and ``wait`` is False."""
        while True:
            try:
                # A timeout keeps a waiting main thread responsive to Ctrl-C.
                return self._free.get(timeout=0.2) if wait else self._free.get_nowait()
            except queue.Empty:
                if not wait:
                    return None

    def _replace(self, slot: int, dead: Any) -> None:
        """Start a fresh actor in place of ``dead``, unless another caller already did."""
        with self._lock:
            if self.actors[slot] is not dead:
                return
            try:
                self.ray.kill(dead)
            except Exception:  # already gone
                pass
            self.actors[slot] = self._actor_class.remote()

    def close(self) -> None:
        """Stop the actors (Ray itself stays up for the caller)."""
        for actor in self.actors:
            try:
                self.ray.kill(actor)
            except Exception:  # already gone
                pass
        self.actors = []


class _TaskActor:
    """A Ray actor: one process that runs tasks (and owns the sandbox workers they start)."""

    def run(self, fn: Callable[[Any], Any], item: Any) -> Any:
        return fn(item)

    def pid(self) -> int:
        return os.getpid()


def init_ray(address: str | None = None, init_kwargs: dict[str, Any] | None = None) -> Any:
    """Import Ray and connect to a cluster, unless this process already has.

    Args:
        address: the cluster; ``None`` follows Ray's usual settings (``RAY_ADDRESS``, else a
            new local cluster).
        init_kwargs: more ``ray.init`` arguments (``num_cpus``, ``runtime_env``, ...).

    Returns:
        The ``ray`` module.

    Raises:
        ConfigError: Ray is not installed.
    """
    try:
        import ray
    except ImportError as exc:
        raise ConfigError("the Ray executor needs ray: pip install 'spadegym[ray]'") from exc
    if not ray.is_initialized():
        ray.init(
            address=address, ignore_reinit_error=True, log_to_driver=False, **(init_kwargs or {})
        )
    return ray


def get_executor(spec: str | Executor | None = None, workers: int | None = None) -> Executor:
    """An executor from a spelling: ``"local"`` (default), ``"ray"`` or ``"ray:<address>"``."""
    if isinstance(spec, Executor):
        return spec
    if spec in (None, "local"):
        return LocalExecutor(workers)
    if spec == "ray":
        return RayExecutor(num_actors=workers)
    if isinstance(spec, str) and spec.startswith("ray:"):
        return RayExecutor(address=spec[4:], num_actors=workers)
    raise SpadegymError(f"executor {spec!r} is unknown; use 'local', 'ray' or 'ray:<address>'.")
