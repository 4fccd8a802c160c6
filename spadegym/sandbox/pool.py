"""``SandboxPool``: many environment instances over worker processes, one program per worker.

A worker process serves one program (its instances may be many), so no program can tamper
with another's classes or read its state. The pool keeps, per program, the workers it was
given: a new instance goes to the program's least busy worker unless that one holds more than
its fair share of the pool's instances (``ceil(instances / size)``), when the program gets
another worker (at most ``size``). A heterogeneous batch therefore runs one worker per program,
a batch of one program ``size`` workers. Workers left without instances stay loaded for a while
(``keep_idle``), and a pool steps a batch concurrently: every worker receives its share in one
frame before any answer is read, and the resets a step calls for go out as each worker answers
(``step_then_reset``).

A program whose call reaches the hard deadline (its worker had to be killed) is quarantined
(``quarantine_after``): its later calls in this pool fail at once with a ``ProgramError`` of
kind ``"timeout"``, so one program stuck in C code cannot make every batch step wait for the
kill. The runtime watchdog (``watchdog``) quarantines a program whose calls slow down past its
budget, or whose probe replay changes, as it runs (kind ``"quarantined"``).
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spadegym.errors import ProgramError
from spadegym.sandbox import protocol
from spadegym.sandbox.client import (
    Answer,
    ProgramInfo,
    SandboxWorker,
    StepResult,
    Worker,
    answer_or_error,
    exchange_many,
)
from spadegym.sandbox.config import SandboxConfig
from spadegym.sandbox.handle import (
    EnvHandle,
    as_value,
    lost_error,
    make_worker,
    per_worker,
    program_digest,
)
from spadegym.sandbox.pipeline import exchange_then
from spadegym.sandbox.supply import WorkerSupply
from spadegym.sandbox.watchdog import Watchdog, WatchdogConfig

ResetArgs = tuple[int | None, dict[str, Any] | None]
"""A reset's ``(seed, options)``."""

__all__ = ["EnvHandle", "SandboxPool", "Worker", "as_value", "make_worker", "per_worker"]


@dataclass(eq=False)
class _Member:
    """A worker of the pool and the one program it serves (None while it is spare)."""

    worker: Worker
    digest: str | None = None
    load: int = 0
    used: int = 0
    owned: bool = True


class SandboxPool:
    """Worker processes hosting many environment instances, one program per worker.

    Implements ``spadegym.sandbox.Pool``.

    Args:
        size: how many workers a program may get, and the parallelism the fair share is
            computed for (default: one per core). A batch of more programs than ``size``
            still gets one worker per program.
        config: the sandbox settings of every worker.
        keep_idle: workers without instances kept alive (loaded with their program) for
            reuse; the least recently used beyond this are stopped (default ``max(8,
            2 * size)``).
        quarantine_after: hard timeouts after which a program is quarantined (0: never).
        spares: started workers kept waiting for programs the pool has not seen yet
            (``WorkerSupply``), so a new program does not wait for a process to start; 0
            starts each on demand.
        watchdog: how the runtime watchdog watches each program's call times and replays its
            probe (``spadegym.sandbox.watchdog``); None turns it off.
    """

    def __init__(
        self,
        size: int | None = None,
        config: SandboxConfig | None = None,
        *,
        keep_idle: int | None = None,
        quarantine_after: int = 1,
        spares: int = 0,
        watchdog: WatchdogConfig | None = WatchdogConfig(),  # noqa: B008 (frozen)
    ):
        self.config = config or SandboxConfig()
        self._supply = WorkerSupply(self.config, spares) if spares > 0 else None
        self.size = max(1, size or os.cpu_count() or 1)
        self.keep_idle = keep_idle if keep_idle is not None else max(8, 2 * self.size)
        self.quarantine_after = quarantine_after
        self._members: list[_Member] = []
        self._tick = 0
        self._strikes: dict[str, int] = {}
        self._quarantine: dict[str, ProgramError] = {}
        self.watchdog = Watchdog(watchdog) if watchdog is not None else None
        self._lock = threading.RLock()

    @classmethod
    def from_workers(cls, workers: Sequence[Worker]) -> SandboxPool:
        """A pool over workers that already exist (they stay owned by the caller).

        A worker that has loaded one program serves that program; the pool starts workers of
        its own for any other. Such a pool has no watchdog: the workers' owner watches them
        (validation times every call itself).
        """
        pool = cls(len(workers), workers[0].config, watchdog=None)
        for worker in workers:
            loaded = list(worker.programs)
            pool._members.append(
                _Member(worker, loaded[0] if len(loaded) == 1 else None, owned=False)
            )
        return pool

    @property
    def workers(self) -> list[Worker]:
        """Every worker of the pool (spare, busy or idle)."""
        return [member.worker for member in self._members]

    def load_of(self, worker: Worker) -> int:
        """Instances the pool counts on ``worker``."""
        return next((m.load for m in self._members if m.worker is worker), 0)

    def start(self) -> None:
        """Start ``size`` workers now (spare until a program needs one), side by side.

        Raises:
            SandboxError: a worker could not be started.
        """
        with self._lock:
            while len(self._members) < self.size:
                self._members.append(_Member(make_worker(self.config)))
            waiting = [m.worker for m in self._members if isinstance(m.worker, SandboxWorker)]
        errors = []

        def start(positions: list[int]) -> None:
            try:
                waiting[positions[0]].start()
            except Exception as exc:  # raised below, once every start has ended
                errors.append(exc)

        per_worker(waiting, start)
        if errors:
            raise errors[0]

    # -- choosing workers ---------------------------------------------------------------------

    def _member_for(self, digest: str, count: bool = True) -> _Member:
        """The worker for a new instance of the program ``digest`` (see the module)."""
        with self._lock:
            mine = [m for m in self._members if m.digest == digest]
            total = sum(m.load for m in self._members) + 1
            share = -(-total // self.size)
            best = min(mine, key=lambda m: (m.load, -m.used)) if mine else None
            if best is not None and (best.load < share or len(mine) >= self.size or not count):
                member = best
            else:
                free = next((m for m in self._members if m.digest is None), None)
                if free is None:
                    worker = self._supply.take() if self._supply else make_worker(self.config)
                    free = _Member(worker)
                    self._members.append(free)
                member = free
                member.digest = digest
            if count:
                member.load += 1
            self._tick += 1
            member.used = self._tick
            return member

    def _member_of(self, worker: Worker) -> _Member | None:
        return next((m for m in self._members if m.worker is worker), None)

    def _forget(self, handle: EnvHandle) -> None:
        """Count one instance fewer on ``handle``'s worker; stop idle workers past the cap."""
        with self._lock:
            member = self._member_of(handle.worker)
            if member is not None:
                member.load = max(0, member.load - 1)
            self._trim()

    def _trim(self) -> None:
        idle = [m for m in self._members if m.load == 0 and m.digest is not None and m.owned]
        for member in sorted(idle, key=lambda m: m.used)[: max(0, len(idle) - self.keep_idle)]:
            self._members.remove(member)
            member.worker.kill()

    def _failed_open(self, member: _Member) -> None:
        """Uncount an instance that could not be created; stop a worker left empty.

        Its program may have run module code there before failing.
        """
        with self._lock:
            member.load = max(0, member.load - 1)
            if member.load == 0 and member.owned and member in self._members:
                self._members.remove(member)
                member.worker.kill()

    # -- quarantine ---------------------------------------------------------------------------

    def quarantined(self, digest: str) -> bool:
        """Whether the program with this sha256 is quarantined in this pool."""
        return digest in self._quarantine

    def check_quarantine(self, digest: str, label: str) -> None:
        """Raise the quarantine's ``ProgramError`` for a quarantined program."""
        refusal = self._quarantine.get(digest)
        if refusal is not None:
            raise ProgramError(str(refusal), refusal.kind)

    def quarantine(self, digest: str, error: ProgramError) -> None:
        """Quarantine a program: its later calls in this pool raise ``error`` at once."""
        self._quarantine.setdefault(digest, error)

    def strike(self, digest: str, label: str) -> None:
        """Record a hard timeout of the program ``digest``."""
        self._strikes[digest] = self._strikes.get(digest, 0) + 1
        if 0 < self.quarantine_after <= self._strikes[digest]:
            self.quarantine(
                digest,
                ProgramError(
                    f"{label} is quarantined: one of its calls ran past the hard deadline and "
                    "its worker had to be killed, so this pool runs it no more (a stuck program "
                    "would make every batch wait for the kill). Fix the program's slow path.",
                    "timeout",
                ),
            )

    # -- the watchdog (``HandleOwner``: what a handle reports) --------------------------------

    def probe(self, handles: Sequence[EnvHandle]) -> None:
        """The watchdog's probes of ``handles``' programs (one per worker, side by side).

        A program whose probe breaches is quarantined; nothing happens without a watchdog.
        """
        watchdog = self.watchdog
        if watchdog is None:
            return
        handles = [h for h in handles if not self.quarantined(h.digest)]

        def probe(positions: list[int]) -> None:
            for position in positions:
                handle = handles[position]
                breach = as_value(
                    functools.partial(handle.guarded, functools.partial(watchdog.probe, handle))
                )
                if breach is not None and breach.kind == "quarantined":
                    self.quarantine(handle.digest, breach)

        per_worker([h.worker for h in handles], probe)

    def watch_resets(self, handles: Sequence[EnvHandle]) -> None:
        """Count a reset of each handle; probe the programs due a probe.

        A breach quarantines the program, which refuses its next calls.
        """
        if self.watchdog is not None and (due := self.watchdog.count_resets(handles)):
            self.probe(due)

    def watch_call(self, handle: EnvHandle, op: str, seconds: float) -> None:
        """Take the wall time of one ``reset`` or ``step`` of ``handle``, made alone."""
        watchdog = self.watchdog
        if watchdog is not None and seconds > watchdog.fastest:
            if suspects := watchdog.observe([(handle, {"op": op})], seconds):
                self.probe(suspects)

    def _exchange(
        self,
        items: Sequence[tuple[EnvHandle, dict[str, Any]]],
        then: Callable[[int, Answer], dict[str, Any] | None] | None = None,
    ) -> tuple[list[Answer], dict[int, Answer]]:
        """``exchange_many`` (``exchange_then`` with ``then``), recording hard timeouts."""
        handles = {id(h.worker): h for h, _ in items}  # a worker serves one program
        before = {key: h.worker.hard_timeouts for key, h in handles.items()}
        pairs = [(h.worker, request) for h, request in items]
        started = time.perf_counter()
        answers, follow = exchange_then(pairs, then) if then else (exchange_many(pairs), {})
        seconds = time.perf_counter() - started
        for key, handle in handles.items():
            if handle.worker.hard_timeouts != before[key]:
                self.strike(handle.digest, handle.filename)
        if self.watchdog is not None and (suspects := self.watchdog.observe(items, seconds)):
            self.probe(suspects)  # the suspects' probes judge them
        return answers, follow

    # -- the Pool interface -------------------------------------------------------------------

    def describe(self, source: str, filename: str = "<program>") -> ProgramInfo:
        """Load ``source`` on a worker of its own and return its class facts.

        Raises:
            ProgramError: the program does not load.
        """
        digest = program_digest(source)
        self.check_quarantine(digest, filename)
        member = self._member_for(digest, count=False)
        try:
            return member.worker.load_cached(source, filename)
        except BaseException:
            member.load += 1
            self._failed_open(member)
            raise

    def open(self, source: str, filename: str = "<program>") -> EnvHandle:
        """Create an instance of ``source`` on a worker serving that program (see the module).

        Raises:
            ProgramError: the program does not load, or is quarantined.
        """
        self.check_quarantine(program_digest(source), filename)
        member = self._member_for(program_digest(source))
        try:
            return EnvHandle(member.worker, source, filename, pool=self)
        except BaseException:
            self._failed_open(member)
            raise

    def open_many(self, items: Sequence[tuple[str, str]]) -> list[EnvHandle | ProgramError]:
        """``open`` for many ``(source, filename)`` pairs, the workers loading in parallel.

        Returns:
            A handle, or the ``ProgramError`` that creating it raised (a sandbox failure comes
            back as one of kind ``"sandbox"``), per item in order.
        """
        results: list[EnvHandle | ProgramError | None] = [None] * len(items)
        chosen: dict[int, _Member] = {}  # position -> its worker, for the programs not refused
        for position, (source, filename) in enumerate(items):
            refused = as_value(
                functools.partial(self.check_quarantine, program_digest(source), filename)
            )
            if isinstance(refused, ProgramError):
                results[position] = refused
            else:
                chosen[position] = self._member_for(program_digest(source))
        ready = list(chosen)

        def create(positions: list[int]) -> None:
            for index in positions:
                position = ready[index]
                source, filename = items[position]
                member = chosen[position]
                handle = as_value(
                    functools.partial(EnvHandle, member.worker, source, filename, self)
                )
                results[position] = handle
                if isinstance(handle, ProgramError):
                    self._failed_open(member)

        # A worker's loads are compiles in that process: the workers compile side by side.
        per_worker([chosen[p].worker for p in ready], create)
        return results  # type: ignore[return-value]

    def release(self, handle: EnvHandle) -> None:
        """Close an instance opened by this pool."""
        self.release_many([handle])

    def release_many(self, handles: Sequence[EnvHandle]) -> None:
        """Close instances opened by this pool, each worker's in one exchange."""
        live = [h for h in handles if not h.lost]
        self._exchange([(h, protocol.close_request(h.instance)) for h in live])
        for handle in handles:
            handle.mark_closed()
            self._forget(handle)

    def reset_batch(
        self, batch: Sequence[tuple[EnvHandle, int | None, dict[str, Any] | None]]
    ) -> list[tuple[str, dict[str, Any]] | ProgramError]:
        """Reset many instances at once, each worker's in one exchange.

        Args:
            batch: ``(handle, seed, options)`` items; a lost handle is re-created first.

        Returns:
            ``(observation, info)`` or the ``ProgramError``, per item in order.
        """
        results: list[tuple[str, dict[str, Any]] | ProgramError | None] = [None] * len(batch)
        self.watch_resets([h for h, _, _ in batch])  # first: a breach refuses these resets
        ready = []
        for position, (handle, _, _) in enumerate(batch):
            refused = as_value(
                functools.partial(self.check_quarantine, handle.digest, handle.filename)
            )
            if not isinstance(refused, ProgramError) and handle.lost:
                recreated = as_value(handle.recreate)
                refused = recreated if isinstance(recreated, ProgramError) else None
            if isinstance(refused, ProgramError):
                results[position] = refused
            else:
                ready.append(position)
        requests = [protocol.reset_request(batch[p][0].instance, *batch[p][1:]) for p in ready]
        answers, _ = self._exchange([(batch[p][0], r) for p, r in zip(ready, requests)])
        for position, request, answer in zip(ready, requests, answers, strict=True):
            results[position] = answer_or_error(request, answer)
        return results  # type: ignore[return-value]

    def step_batch(self, batch: Sequence[tuple[EnvHandle, str]]) -> list[StepResult | ProgramError]:
        """Step many instances at once; each result is a ``StepResult`` or a ``ProgramError``."""
        return self.step_then_reset(batch, None)[0]

    def step_then_reset(
        self,
        batch: Sequence[tuple[EnvHandle, str]],
        reset_if: Callable[[int, StepResult | ProgramError], ResetArgs | None] | None,
    ) -> tuple[
        list[StepResult | ProgramError], dict[int, tuple[str, dict[str, Any]] | ProgramError]
    ]:
        """Step many instances, and reset those ``reset_if`` picks as each worker answers.

        A worker's resets run while the others still step (``spadegym.sandbox.pipeline``).

        Args:
            batch: ``(handle, action)`` items.
            reset_if: ``(position, result) -> (seed, options)`` to reset that instance, or
                None; called once per item, as its worker's answers arrive.

        Returns:
            The step results (``StepResult`` or ``ProgramError``) in order, and the resets'
            ``(observation, info)`` or ``ProgramError`` by position. A reset that could not be
            sent with the step (its worker restarted, or its program was quarantined, in this
            batch) is missing: reset it with ``reset_batch``, which re-creates lost instances.
        """
        results: list[StepResult | ProgramError | None] = [None] * len(batch)
        live, requests = [], []
        quarantine = self._quarantine
        for position, (handle, action) in enumerate(batch):
            try:
                if quarantine and handle.digest in quarantine:
                    self.check_quarantine(handle.digest, handle.filename)
                if handle.generation != handle.worker.generation:
                    raise lost_error()
                requests.append(protocol.step_request(handle.instance, action))
            except ProgramError as exc:
                results[position] = exc
                continue
            live.append(position)
        resets: dict[int, dict[str, Any]] = {}

        def then(index: int, answer: Answer) -> dict[str, Any] | None:
            position = live[index]
            result: StepResult | ProgramError = answer_or_error(requests[index], answer)
            results[position] = result
            args = reset_if(position, result) if reset_if else None
            handle = batch[position][0]
            if args is None or handle.lost or self.quarantined(handle.digest):
                return None
            resets[index] = protocol.reset_request(handle.instance, *args)
            return resets[index]

        _, follow = self._exchange([(batch[p][0], r) for p, r in zip(live, requests)], then)
        reset = {live[i]: answer_or_error(resets[i], answer) for i, answer in follow.items()}
        if reset:  # autoresets count as episodes too; a breach refuses the next batch's calls
            self.watch_resets([batch[p][0] for p in reset])
        return results, reset  # type: ignore[return-value]

    def close(self) -> None:
        """Stop every worker the pool started (workers given to ``from_workers`` stay)."""
        with self._lock:
            members, self._members = self._members, []
        if self._supply is not None:
            self._supply.close()
        for member in members:
            if member.owned:
                member.worker.close()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
