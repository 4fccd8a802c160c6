"""Environment instances over workers: ``EnvHandle`` for one, ``SandboxPool`` for many at once.

A handle survives its worker's restarts: ``reset`` loads the program again in the new process,
while a ``step`` on a lost instance reports it as lost. A pool spreads instances over several
workers and steps a batch concurrently: every worker receives its share in one frame before
any answer is read, so the workers compute in parallel.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from spadegym.errors import ProgramError
from spadegym.sandbox.client import InProcessWorker, ProgramInfo, SandboxWorker, StepResult
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
            raise ProgramError("the environment was lost when its worker restarted; call reset().",
                               "lost")
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


class SandboxPool:
    """A fixed set of workers sharing many environment instances."""

    def __init__(self, size: int | None = None, config: SandboxConfig | None = None):
        self.config = config or SandboxConfig()
        size = size or os.cpu_count() or 1
        self.workers: list[Worker] = [make_worker(self.config) for _ in range(size)]
        self._load = [0] * size

    @classmethod
    def from_workers(cls, workers: Sequence[Worker]) -> SandboxPool:
        """A pool over workers that already exist (they stay owned by the caller)."""
        pool = cls.__new__(cls)
        pool.config = workers[0].config
        pool.workers = list(workers)
        pool._load = [0] * len(pool.workers)
        return pool

    def start(self) -> None:
        """Start every worker process now, instead of at its first use.

        Raises:
            SandboxError: a worker could not be started.
        """
        for worker in self.workers:
            if isinstance(worker, SandboxWorker):
                worker.start()

    def open(self, source: str, filename: str = "<program>") -> EnvHandle:
        """Create an instance of ``source`` on the least busy worker."""
        index = min(range(len(self.workers)), key=self._load.__getitem__)
        handle = EnvHandle(self.workers[index], source, filename)
        self._load[index] += 1
        return handle

    def release(self, handle: EnvHandle) -> None:
        """Close an instance opened by this pool."""
        handle.close()
        for index, worker in enumerate(self.workers):
            if worker is handle.worker:
                self._load[index] = max(0, self._load[index] - 1)

    def step_batch(self, batch: Sequence[tuple[EnvHandle, str]]) -> list[StepResult | ProgramError]:
        """Step many instances at once; each result is a ``StepResult`` or a ``ProgramError``."""
        results: list[StepResult | ProgramError | None] = [None] * len(batch)
        groups: dict[int, list[int]] = {}
        for position, (handle, _) in enumerate(batch):
            if handle.lost:
                results[position] = ProgramError(
                    "the environment was lost when its worker restarted; call reset().", "lost")
            else:
                groups.setdefault(id(handle.worker), []).append(position)
        sent = []
        for positions in groups.values():
            worker = batch[positions[0]][0].worker
            requests = [{"op": "step", "i": batch[p][0].instance, "a": batch[p][1]}
                        for p in positions]
            if isinstance(worker, SandboxWorker):
                failed = worker.send(requests)
                sent.append((worker, positions, requests, failed))
            else:
                sent.append((worker, positions, requests, None))
        for worker, positions, requests, failed in sent:
            if failed is not None:
                answers = failed
            elif isinstance(worker, SandboxWorker):
                answers = worker.receive(requests, self.config.call_timeout)
            else:
                answers = worker._exchange(requests, self.config.call_timeout)
            for position, answer in zip(positions, worker.step_results(answers)):
                results[position] = answer
        return results  # type: ignore[return-value]

    def close(self) -> None:
        """Stop every worker."""
        for worker in self.workers:
            worker.close()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
