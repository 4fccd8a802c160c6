"""Environment instances over workers: ``EnvHandle`` for one, ``SandboxPool`` for many at once.

A handle survives its worker's restarts: ``reset`` loads the program again in the new process,
while a ``step`` on a lost instance reports it as lost. A pool spreads instances over several
workers and steps a batch concurrently: every worker receives its share in one frame before
any answer is read, so the workers compute in parallel.
"""

from __future__ import annotations

import concurrent.futures
import functools
import hashlib
import os
from collections.abc import Callable, Sequence
from typing import TypeVar

from spadegym.errors import ProgramError, SandboxError
from spadegym.sandbox.client import (
    InProcessWorker,
    ProgramInfo,
    SandboxWorker,
    StepResult,
    reset_result,
)
from spadegym.sandbox.config import SandboxConfig

Worker = SandboxWorker | InProcessWorker


def make_worker(config: SandboxConfig | None = None) -> Worker:
    """A worker for ``config.isolation``: a process, or the host itself for ``"none"``."""
    config = config or SandboxConfig()
    return InProcessWorker(config) if config.isolation == "none" else SandboxWorker(config)


class EnvHandle:
    """One environment instance in a worker, re-created on ``reset`` if its worker restarted."""

    def __init__(self, worker: Worker, source: str, filename: str = "<program>"):
        self.worker = worker
        self.source = source
        self.filename = filename
        self.info: ProgramInfo = self._create()

    def _create(self) -> ProgramInfo:
        info = self.worker.load_cached(self.source, self.filename)
        self.instance = self.worker.new(info.program)
        self.generation = self.worker.generation
        return info

    @property
    def lost(self) -> bool:
        """Whether the worker restarted since this instance was created."""
        return self.generation != self.worker.generation

    def _live(self) -> int:
        if self.lost:
            raise ProgramError(
                "the environment was lost when its worker restarted; call reset().", "lost"
            )
        return self.instance

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        """Reset the instance (re-creating it first if its worker restarted)."""
        if self.lost:
            self._create()
        return self.worker.reset(self.instance, seed, options)

    def step(self, action: str) -> StepResult:
        """Step the instance with one action."""
        return self.worker.step(self._live(), action)

    def solution(self) -> list[str]:
        """The program's ``solution()`` for the current instance."""
        return self.worker.solution(self._live())

    def hint(self) -> str:
        """The program's ``hint()`` for the current instance."""
        return self.worker.hint(self._live())

    def close(self) -> None:
        """Release the instance in its worker."""
        if not self.lost:
            self.worker.close_instance(self.instance)
        self.generation = -1


T = TypeVar("T")

AFFINITY_SLACK = 2
"""Instances above the least busy worker that a worker may hold and still get another instance
of a program it has loaded: a load costs a compile (milliseconds), a busier worker a little
step latency."""

_MAX_REMEMBERED = 4096
"""Programs whose workers a pool remembers."""


def as_value(call: Callable[[], T]) -> T | ProgramError:
    """``call()``, or the ``ProgramError`` it raised (a ``SandboxError`` becomes one).

    Batched operations report each item's failure in its place; a ``SandboxError`` comes back
    as a ``ProgramError`` of kind ``"sandbox"``.
    """
    try:
        return call()
    except ProgramError as exc:
        return exc
    except SandboxError as exc:
        return ProgramError(str(exc), "sandbox")


def per_worker(workers: Sequence[object], run: Callable[[list[int]], None]) -> None:
    """``run(positions)`` once for each distinct worker, with the positions of its items.

    The workers' calls run side by side on threads (each call waits on its own worker).

    Args:
        workers: the worker of each item.
        run: does one worker's items, in order.
    """
    groups: dict[int, list[int]] = {}
    for position, worker in enumerate(workers):
        groups.setdefault(id(worker), []).append(position)
    if len(groups) <= 1:
        for positions in groups.values():
            run(positions)
        return
    with concurrent.futures.ThreadPoolExecutor(len(groups)) as threads:
        list(threads.map(run, groups.values()))


class SandboxPool:
    """A fixed set of workers sharing many environment instances."""

    def __init__(self, size: int | None = None, config: SandboxConfig | None = None):
        self.config = config or SandboxConfig()
        size = size or os.cpu_count() or 1
        self.workers: list[Worker] = [make_worker(self.config) for _ in range(size)]
        self._load = [0] * size
        self._holders: dict[bytes, set[int]] = {}

    @classmethod
    def from_workers(cls, workers: Sequence[Worker]) -> SandboxPool:
        """A pool over workers that already exist (they stay owned by the caller)."""
        pool = cls.__new__(cls)
        pool.config = workers[0].config
        pool.workers = list(workers)
        pool._load = [0] * len(pool.workers)
        pool._holders = {}
        return pool

    def start(self) -> None:
        """Start every worker process now, instead of at its first use.

        Raises:
            SandboxError: a worker could not be started.
        """
        for worker in self.workers:
            if isinstance(worker, SandboxWorker):
                worker.start()

    def _choose(self, source: str) -> int:
        """The worker for a new instance of ``source`` (see ``open``); counts it as busier."""
        least = min(range(len(self.workers)), key=self._load.__getitem__)
        key = hashlib.sha256(source.encode("utf-8", "surrogatepass")).digest()
        holders = self._holders.get(key)
        index = least
        if holders:
            best = min(holders, key=self._load.__getitem__)
            if self._load[best] <= self._load[least] + AFFINITY_SLACK:
                index = best
        self._load[index] += 1
        if len(self._holders) >= _MAX_REMEMBERED:
            self._holders.clear()  # only a hint: a forgotten program is compiled once more
        self._holders.setdefault(key, set()).add(index)
        return index

    def open(self, source: str, filename: str = "<program>") -> EnvHandle:
        """Create an instance of ``source``, on a worker that has loaded it when one is free.

        A worker that has compiled the program gets the instance unless it holds more than
        ``AFFINITY_SLACK`` instances above the least busy worker, which gets it otherwise.
        """
        index = self._choose(source)
        try:
            return EnvHandle(self.workers[index], source, filename)
        except BaseException:
            self._load[index] -= 1
            raise

    def open_many(self, items: Sequence[tuple[str, str]]) -> list[EnvHandle | ProgramError]:
        """``open`` for many ``(source, filename)`` pairs, the workers loading in parallel.

        Returns:
            A handle, or the ``ProgramError`` that creating it raised (a sandbox failure comes
            back as one of kind ``"sandbox"``), per item in order.
        """
        chosen = [self._choose(source) for source, _ in items]
        results: list[EnvHandle | ProgramError | None] = [None] * len(items)

        def create(positions: list[int]) -> None:
            for position in positions:
                source, filename = items[position]
                worker = self.workers[chosen[position]]
                results[position] = as_value(functools.partial(EnvHandle, worker, source, filename))
                if isinstance(results[position], ProgramError):
                    self._load[chosen[position]] -= 1

        # A worker's loads are compiles in that process: the workers compile side by side.
        per_worker([self.workers[index] for index in chosen], create)
        return results  # type: ignore[return-value]

    def release(self, handle: EnvHandle) -> None:
        """Close an instance opened by this pool."""
        self.release_many([handle])

    def release_many(self, handles: Sequence[EnvHandle]) -> None:
        """Close instances opened by this pool, each worker's in one exchange."""
        live = [h for h in handles if not h.lost]
        self._exchange_batch([(h.worker, {"op": "close", "i": h.instance}) for h in live])
        for handle in handles:
            handle.generation = -1
            self._forget(handle)

    def _forget(self, handle: EnvHandle) -> None:
        """Count one instance fewer on ``handle``'s worker."""
        for index, worker in enumerate(self.workers):
            if worker is handle.worker:
                self._load[index] = max(0, self._load[index] - 1)

    def reset_batch(
        self, batch: Sequence[tuple[EnvHandle, int | None, dict | None]]
    ) -> list[tuple[str, dict] | ProgramError]:
        """Reset many instances at once, each worker's in one exchange.

        Args:
            batch: ``(handle, seed, options)`` items; a lost handle is re-created first.

        Returns:
            ``(observation, info)`` or the ``ProgramError``, per item in order.
        """
        results: list[tuple[str, dict] | ProgramError | None] = [None] * len(batch)
        ready = []
        for position, (handle, _, _) in enumerate(batch):
            created = as_value(handle._create) if handle.lost else None
            if isinstance(created, ProgramError):
                results[position] = created
            else:
                ready.append(position)
        answers = self._exchange_batch(
            [
                (
                    batch[p][0].worker,
                    {
                        "op": "reset",
                        "i": batch[p][0].instance,
                        "seed": batch[p][1],
                        "options": batch[p][2],
                    },
                )
                for p in ready
            ]
        )
        for position, answer in zip(ready, answers, strict=True):
            results[position] = reset_result(answer)
        return results  # type: ignore[return-value]

    def step_batch(self, batch: Sequence[tuple[EnvHandle, str]]) -> list[StepResult | ProgramError]:
        """Step many instances at once; each result is a ``StepResult`` or a ``ProgramError``."""
        results: list[StepResult | ProgramError | None] = [None] * len(batch)
        live = []
        for position, (handle, _) in enumerate(batch):
            if handle.lost:
                results[position] = ProgramError(
                    "the environment was lost when its worker restarted; call reset().", "lost"
                )
            else:
                live.append(position)
        answers = self._exchange_batch(
            [
                (batch[p][0].worker, {"op": "step", "i": batch[p][0].instance, "a": batch[p][1]})
                for p in live
            ]
        )
        for position, answer in zip(live, answers, strict=True):
            (results[position],) = batch[position][0].worker.step_results([answer])
        return results  # type: ignore[return-value]

    def _exchange_batch(self, items: Sequence[tuple[Worker, dict]]) -> list[dict | ProgramError]:
        """Send every request, each worker's in one message, then read the answers.

        All workers compute at once; the answers come back in the order of ``items``.
        """
        answers: list[dict | ProgramError | None] = [None] * len(items)
        groups: dict[int, list[int]] = {}
        for position, (worker, _) in enumerate(items):
            groups.setdefault(id(worker), []).append(position)
        sent = []
        for positions in groups.values():
            worker = items[positions[0]][0]
            requests = [items[p][1] for p in positions]
            failed = worker.send(requests) if isinstance(worker, SandboxWorker) else None
            sent.append((worker, positions, requests, failed))
        for worker, positions, requests, failed in sent:
            if failed is not None:
                replies = failed
            elif isinstance(worker, SandboxWorker):
                replies = worker.receive(requests, self.config.call_timeout)
            else:
                replies = worker._exchange(requests, self.config.call_timeout)
            for position, reply in zip(positions, replies, strict=True):
                answers[position] = reply
        return answers  # type: ignore[return-value]

    def close(self) -> None:
        """Stop every worker."""
        for worker in self.workers:
            worker.close()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
