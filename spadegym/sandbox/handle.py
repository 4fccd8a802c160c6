"""One environment instance in a worker (``EnvHandle``), and helpers for batched operations.

A handle opened by a pool answers to it through ``HandleOwner``, four public methods: the
pool's quarantine refuses the handle's calls, a hard timeout is reported as a strike, and the
pool's watchdog sees the handle's resets and call times. The pool, in turn, uses the handle's
public methods only (``guarded``, ``recreate``, ``mark_closed``), so neither reaches into the
other.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from spadegym.errors import ProgramError, SandboxError
from spadegym.sandbox.client import InProcessWorker, ProgramInfo, SandboxWorker, StepResult, Worker
from spadegym.sandbox.config import SandboxConfig

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


class HandleOwner(Protocol):
    """What a handle asks of the pool that opened it (``SandboxPool`` is one)."""

    def check_quarantine(self, digest: str, label: str) -> None:
        """Raise the quarantine's ``ProgramError`` if the program ``digest`` is quarantined."""
        ...

    def strike(self, digest: str, label: str) -> None:
        """Record a hard timeout of the program ``digest`` (its worker was killed)."""
        ...

    def watch_resets(self, handles: Sequence[EnvHandle]) -> None:
        """Count a reset of each handle; probe the programs that are due a probe."""
        ...

    def watch_call(self, handle: EnvHandle, op: str, seconds: float) -> None:
        """Take one call's wall time (``op``: ``"reset"`` or ``"step"``)."""
        ...


class EnvHandle:
    """One environment instance in a worker, re-created on ``reset`` if its worker restarted.

    Args:
        worker: the worker that holds (or will hold) the instance.
        source: the program text.
        filename: how tracebacks and messages name the program.
        pool: the pool that opened this handle, if any (``HandleOwner``): its quarantine
            applies, hard timeouts are reported to it, and its watchdog times
            ``reset``/``step``.
    """

    def __init__(
        self,
        worker: Worker,
        source: str,
        filename: str = "<program>",
        pool: HandleOwner | None = None,
    ):
        self.worker = worker
        self.source = source
        self.filename = filename
        self.digest = program_digest(source)
        self.pool = pool
        self.instance = -1
        self.generation = -1
        self.info: ProgramInfo = self.recreate()

    def _create(self) -> ProgramInfo:
        info = self.worker.load_cached(self.source, self.filename)
        self.instance = self.worker.new(info.program)
        self.generation = self.worker.generation
        return info

    def recreate(self) -> ProgramInfo:
        """Create the instance in its worker (again, after a restart), guarded by the pool.

        Raises:
            ProgramError: the program does not load, its constructor fails, or it is
                quarantined.
        """
        return self.guarded(self._create)

    def mark_closed(self) -> None:
        """Forget the instance (its worker closed it): later calls fail as lost."""
        self.generation = -1

    def guarded(self, call: Callable[[], T]) -> T:
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

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Reset the instance (re-creating it first if its worker restarted)."""

        def reset() -> tuple[str, dict[str, Any]]:
            if self.lost:
                self._create()
            return self.worker.reset(self.instance, seed, options)

        if self.pool is not None:
            self.pool.watch_resets([self])
        started = time.perf_counter()
        try:
            return self.guarded(reset)
        finally:
            self._watched("reset", started)

    def step(self, action: str) -> StepResult:
        """Step the instance with one action."""
        started = time.perf_counter()
        try:
            return self.guarded(lambda: self.worker.step(self._live(), action))
        finally:
            self._watched("step", started)

    def _watched(self, op: str, started: float) -> None:
        """Give the pool one call's time (a call alone is timed exactly)."""
        if self.pool is not None:
            self.pool.watch_call(self, op, time.perf_counter() - started)

    def solution(self) -> list[str]:
        """The program's ``solution()`` for the current instance."""
        return self.guarded(lambda: self.worker.solution(self._live()))

    def hint(self) -> str:
        """The program's ``hint()`` for the current instance."""
        return self.guarded(lambda: self.worker.hint(self._live()))

    def close(self) -> None:
        """Release the instance in its worker."""
        if not self.lost:
            self.worker.close_instance(self.instance)
        self.mark_closed()


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
