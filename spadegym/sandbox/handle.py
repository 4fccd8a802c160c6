"""One environment instance in a worker (``EnvHandle``), and helpers for batched operations."""

from __future__ import annotations

import concurrent.futures
import hashlib
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from spadegym.errors import ProgramError, SandboxError
from spadegym.sandbox.client import InProcessWorker, ProgramInfo, SandboxWorker, StepResult, Worker
from spadegym.sandbox.config import SandboxConfig

if TYPE_CHECKING:
    from spadegym.sandbox.pool import SandboxPool

T = TypeVar("T")


def make_worker(config: SandboxConfig | None = None) -> Worker:
    """A worker for ``config.isolation``: a process, or the host itself for ``"none"``."""
    config = config or SandboxConfig()
    return InProcessWorker(config) if config.isolation == "none" else SandboxWorker(config)


def program_digest(source: str) -> str:
    """The sha256 of a program's text: what a pool keys its workers by."""
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def lost_error() -> ProgramError:
    """The failure of a call on an instance whose worker restarted."""
    return ProgramError("the environment was lost when its worker restarted; call reset().", "lost")


class EnvHandle:
    """One environment instance in a worker, re-created on ``reset`` if its worker restarted.

    Args:
        worker: the worker that holds (or will hold) the instance.
        source: the program text.
        filename: how tracebacks and messages name the program.
        pool: the pool that opened this handle, if any: its quarantine applies, hard
            timeouts are reported to it, and its watchdog times ``reset``/``step``.
    """

    def __init__(
        self,
        worker: Worker,
        source: str,
        filename: str = "<program>",
        pool: SandboxPool | None = None,
    ):
        self.worker = worker
        self.source = source
        self.filename = filename
        self.digest = program_digest(source)
        self.pool = pool
        self.instance = -1
        self.generation = -1
        self.info: ProgramInfo = self._guarded(self._create)

    def _create(self) -> ProgramInfo:
        info = self.worker.load_cached(self.source, self.filename)
        self.instance = self.worker.new(info.program)
        self.generation = self.worker.generation
        return info

    def _guarded(self, call: Callable[[], T]) -> T:
        """``call()``, refused if the pool quarantined the program; hard timeouts reported."""
        if self.pool is None:
            return call()
        self.pool.check_quarantine(self.digest, self.filename)
        before = self.worker.hard_timeouts
        try:
            return call()
        finally:
            if self.worker.hard_timeouts != before:
                self.pool.strike(self.digest, self.filename)

    @property
    def lost(self) -> bool:
        """Whether the worker restarted since this instance was created."""
        return self.generation != self.worker.generation

    def _live(self) -> int:
        if self.lost:
            raise lost_error()
        return self.instance

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[str, dict]:
        """Reset the instance (re-creating it first if its worker restarted)."""

        def reset() -> tuple[str, dict]:
            if self.lost:
                self._create()
            return self.worker.reset(self.instance, seed, options)

        watchdog = self.pool.watchdog if self.pool is not None else None
        if watchdog is not None and (due := watchdog.count_resets([self])):
            self.pool._probe(due)
        started = time.perf_counter()
        try:
            return self._guarded(reset)
        finally:
            self._watched("reset", started)

    def step(self, action: str) -> StepResult:
        """Step the instance with one action."""
        started = time.perf_counter()
        try:
            return self._guarded(lambda: self.worker.step(self._live(), action))
        finally:
            self._watched("step", started)

    def _watched(self, op: str, started: float) -> None:
        """Give the pool's watchdog one call's time (a call alone is timed exactly)."""
        watchdog = self.pool.watchdog if self.pool is not None else None
        if watchdog is not None and (seconds := time.perf_counter() - started) > watchdog.fastest:
            if suspects := watchdog.observe([(self, {"op": op})], seconds):
                self.pool._probe(suspects)

    def solution(self) -> list[str]:
        """The program's ``solution()`` for the current instance."""
        return self._guarded(lambda: self.worker.solution(self._live()))

    def hint(self) -> str:
        """The program's ``hint()`` for the current instance."""
        return self._guarded(lambda: self.worker.hint(self._live()))

    def close(self) -> None:
        """Release the instance in its worker."""
        if not self.lost:
            self.worker.close_instance(self.instance)
        self.generation = -1


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


def per_worker(workers: Sequence[Any], run: Callable[[list[int]], None]) -> None:
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
