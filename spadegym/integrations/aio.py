"""Concurrent episodes over one sandbox pool, from asyncio: ``AsyncPool`` and ``Session``.

A server holds many sessions and each awaits its own resets and steps. ``AsyncPool`` queues
what they ask for and hands the pool everything that is waiting as one batch (one
``step_batch``, one ``reset_batch``, one ``open_many``, one ``release_many``) on a worker
thread, so the sandbox workers compute side by side as they do for ``EnvBatch``, and requests
that arrive meanwhile form the next batch. The pool is only ever touched by that one thread,
under a lock (the pool itself is not thread-safe), so sessions on other threads may release
their instances at any time.

``Session`` is one program's episodes on an ``AsyncPool``: the async face of ``ProgramEnv``
with ``on_error="terminate"`` (the same turn limit, outcome and error info).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from spadegym.contract import episode_outcome
from spadegym.errors import ProgramError, SpadegymError
from spadegym.integrations.programs import Program, with_hint

__all__ = ["AsyncPool", "Session"]


@dataclass
class _Request:
    kind: str
    args: tuple
    future: asyncio.Future | None = None
    result: Any = None
    error: BaseException | None = None


@dataclass
class _Counters:
    batches: int = 0
    requests: int = 0
    opened: int = 0
    released: int = 0
    live: set[Any] = field(default_factory=set)


class AsyncPool:
    """Batches concurrent requests of many sessions into the pool's batch operations.

    Args:
        pool: the ``SandboxPool`` (closed by ``close`` when ``own`` is true).
        own: whether this object owns the pool.
    """

    def __init__(self, pool: Any, *, own: bool = False):
        self.pool = pool
        self._own = own
        self._lock = threading.Lock()  # every use of the pool holds it
        self._pending: list[_Request] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._runner: asyncio.Task | None = None
        self._closed = False
        self.counters = _Counters()

    @property
    def live(self) -> int:
        """Instances opened through this object and not yet released."""
        return len(self.counters.live)

    async def _submit(self, kind: str, *args: Any) -> Any:
        if self._closed:
            raise SpadegymError("the sandbox pool is closed; no more episodes can be played.")
        loop = asyncio.get_running_loop()
        if self._loop is None or self._runner is None or self._runner.done():
            self._loop, self._wake = loop, asyncio.Event()
            self._runner = loop.create_task(self._run())
        elif loop is not self._loop:
            raise SpadegymError("an AsyncPool serves one event loop; make one per loop.")
        future = loop.create_future()
        self._pending.append(_Request(kind, args, future))
        self._wake_runner()
        return await future

    async def _run(self) -> None:
        while True:
            wake = self._wake
            assert wake is not None  # made, with the loop, before this runner started
            await wake.wait()
            wake.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
            try:
                await asyncio.to_thread(self._execute, batch)
            except BaseException as exc:  # the batch failed as a whole; every caller hears it
                for request in batch:
                    request.error = request.error or exc
                if isinstance(exc, asyncio.CancelledError):
                    raise
            for request in batch:
                if request.future is not None and not request.future.done():
                    if request.error is not None:
                        request.future.set_exception(request.error)
                    else:
                        request.future.set_result(request.result)

    def _execute(self, batch: list[_Request]) -> None:
        """Run one batch on the pool: releases, opens, resets, steps, then single calls."""
        with self._lock:
            self.counters.batches += 1
            self.counters.requests += len(batch)
            groups: dict[str, list[_Request]] = {}
            for request in batch:
                groups.setdefault(request.kind, []).append(request)
            if "release" in groups:
                self._release_now([r.args[0] for r in groups["release"]])
            if "open" in groups:
                opened = self.pool.open_many([r.args for r in groups["open"]])
                for request, handle in zip(groups["open"], opened, strict=True):
                    self._settle(request, handle)
                    if not isinstance(handle, ProgramError):
                        self.counters.opened += 1
                        self.counters.live.add(handle)
            if "reset" in groups:
                answers = self.pool.reset_batch([r.args for r in groups["reset"]])
                for request, answer in zip(groups["reset"], answers, strict=True):
                    self._settle(request, answer)
            if "step" in groups:
                answers = self.pool.step_batch([r.args for r in groups["step"]])
                for request, answer in zip(groups["step"], answers, strict=True):
                    self._settle(request, answer)
            for request in groups.get("call", []):
                try:
                    request.result = request.args[0]()
                except Exception as exc:  # a ProgramError or SandboxError of that one call
                    request.error = exc

    @staticmethod
    def _settle(request: _Request, answer: Any) -> None:
        if isinstance(answer, ProgramError):
            request.error = answer
        else:
            request.result = answer

    def _release_now(self, handles: list[Any]) -> None:
        handles = [h for h in handles if h in self.counters.live]
        if handles:
            self.pool.release_many(handles)
            for handle in handles:
                self.counters.live.discard(handle)
            self.counters.released += len(handles)

    async def open(self, source: str, label: str) -> Any:
        """A new instance of ``source`` (an ``EnvHandle``); raises ``ProgramError``."""
        return await self._submit("open", source, label)

    async def reset(self, handle: Any, seed: int | None, options: dict | None) -> tuple:
        """``(observation, info)`` of a reset; raises ``ProgramError``."""
        return await self._submit("reset", handle, seed, options)

    async def step(self, handle: Any, action: str) -> Any:
        """The ``StepResult`` of one action; raises ``ProgramError``."""
        return await self._submit("step", handle, action)

    async def call(self, function: Callable[[], Any]) -> Any:
        """``function()`` (e.g. ``handle.hint``) on the pool's thread, between batches."""
        return await self._submit("call", function)

    def release(self, handle: Any) -> None:
        """Release an instance; safe from any thread, returns at once."""
        loop = self._loop
        if loop is not None and not loop.is_closed() and not self._closed:
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            request = _Request("release", (handle,))
            if running is loop:
                self._pending.append(request)
                self._wake_runner()
            else:
                loop.call_soon_threadsafe(self._enqueue, request)
            return
        with self._lock:
            self._release_now([handle])

    def _enqueue(self, request: _Request) -> None:
        if self._closed:
            with self._lock:
                self._release_now([request.args[0]])
            return
        self._pending.append(request)
        self._wake_runner()

    def _wake_runner(self) -> None:
        assert self._wake is not None  # made with the loop: only that loop's callers get here
        self._wake.set()

    async def aclose(self) -> None:
        """Finish the waiting requests, release every instance, stop the runner (and pool)."""
        while self._pending and self._runner is not None and not self._runner.done():
            await asyncio.sleep(0.01)
        self._closed = True
        if self._runner is not None:
            self._runner.cancel()
            try:
                await self._runner
            except (asyncio.CancelledError, Exception):
                pass
        await asyncio.to_thread(self._close_pool)

    def _close_pool(self) -> None:
        with self._lock:
            if self._own:
                self.pool.close()
            self.counters.live.clear()


class Session:
    """Episodes of one program on an ``AsyncPool`` (see the module)."""

    def __init__(self, apool: AsyncPool, program: Program):
        self.apool = apool
        self.program = program
        self.handle: Any = None
        self.info: Any = None
        self.turn = 0
        self.done = True
        self.outcome: Any = None

    @property
    def num_players(self) -> int:
        """1, or 2 for a game."""
        return (self.info.num_players or 1) if self.info is not None else 1

    async def reset(
        self, seed: int, options: dict | None = None, hint: bool = False
    ) -> tuple[str, dict]:
        """Start an episode; with ``hint`` the program's hint follows the first observation.

        Raises:
            ProgramError: the program failed to reset.
        """
        if self.handle is None:
            self.handle = await self.apool.open(self.program.source, self.program.env_id)
            self.info = self.handle.info
        observation, info = await self.apool.reset(self.handle, seed, options)
        if hint:
            text = await self.apool.call(self.handle.hint) if self.info.has_hint else None
            observation = with_hint(observation, text)
        self.turn, self.done, self.outcome = 0, False, None
        return observation, info

    async def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        """Play one reply; a failing program ends the episode with ``info["error"]``."""
        if self.done or self.handle is None:
            raise SpadegymError("the episode is over; reset before stepping.")
        try:
            result = await self.apool.step(self.handle, action)
            observation, reward = result.observation, result.reward
            terminated, truncated, info = result.terminated, result.truncated, result.info
        except ProgramError as exc:
            observation, reward, terminated, truncated = (
                f"The environment failed: {exc}",
                0.0,
                True,
                False,
            )
            info = {"error": {"kind": exc.kind, "message": str(exc)}}
        self.turn += 1
        if not terminated and self.turn >= self.program.max_turns:
            truncated = True
        if terminated or truncated:
            self.done = True
            self.outcome = episode_outcome(reward, terminated, info, self.num_players)
            info = {**info, "episode_outcome": self.outcome, "episode_turns": self.turn}
        return observation, reward, terminated, truncated, info

    def close(self) -> None:
        """Release the instance (safe from any thread)."""
        handle, self.handle = self.handle, None
        self.done = True
        if handle is not None:
            self.apool.release(handle)
