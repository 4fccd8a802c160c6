"""Every call the battery makes to the worker, timed: the per-call budget and the total cap.

The battery sends calls in batches (one frame, many requests). The worker answers each request
with its own frame as soon as it is done, so the time between two answers is the time of one
call: reading them one at a time times every ``reset`` and ``step`` without giving up batching.
The first call past ``step_budget`` stops the battery (a program that spins 1.5 s on every
other reply would otherwise cost minutes of validation), and so does the end of
``total_budget``; either way the worker is killed, so nothing keeps running.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from spadegym.errors import ProgramError
from spadegym.sandbox import protocol
from spadegym.sandbox.answers import Answer, Request
from spadegym.sandbox.client import SandboxWorker
from spadegym.sandbox.pool import Worker

if TYPE_CHECKING:
    from spadegym.validation.context import Context

TIMED_OPS = frozenset({"reset", "step"})
"""The calls the step budget applies to (``solution``/``hint`` have the worker's deadline)."""


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_NO_TIMING = contextlib.nullcontext()

_LOST = ProgramError(
    "not run: another call in the same batch broke the worker, which was restarted; "
    "reset this environment.",
    "lost",
)


class OutOfTime(Exception):
    """The battery must stop: one call ran past the step budget, or the whole past its cap."""


class Clock:
    """Times a validation's calls and stops it when they run past the budgets.

    A call is over the step budget when it took longer than the budget and, where the worker's
    CPU time can be read (``/proc``), also used more than the budget of CPU: the programs have
    no clock to wait on, so a slow call computes, and a call that only waited for a busy machine
    is not held against the program.

    Args:
        worker: the worker the battery uses.
        step_budget: seconds one ``reset``/``step`` may take.
        total_budget: seconds the whole validation may take.
        started: ``time.perf_counter()`` when the validation began.
    """

    def __init__(self, worker: Worker, step_budget: float, total_budget: float, started: float):
        self.worker = worker
        self.step_budget = step_budget
        self.total_budget = total_budget
        self.deadline = started + total_budget
        self.seconds: list[float] = []
        self._stat: tuple[int, int] | None = None  # (pid, open /proc/<pid>/stat)

    def check_total(self) -> None:
        """Raise ``OutOfTime`` if the validation has used up its total budget."""
        if time.perf_counter() > self.deadline:
            self._stop(
                f"The validation ran past its total budget of {self.total_budget:g} s; the "
                "battery plays a few hundred short episodes, so reset() and step() must take "
                "milliseconds. Precompute less or search smarter."
            )

    def record(self, seconds: float, what: str, cpu: float | None = None) -> None:
        """Count one timed call; ``OutOfTime`` if it ran past the step budget.

        Args:
            seconds: its wall time.
            what: the call, for the message.
            cpu: at least how much CPU time it used, when known.
        """
        self.seconds.append(seconds)
        self._check(seconds, what, cpu)

    def _check(self, seconds: float, what: str, cpu: float | None) -> None:
        if seconds > self.step_budget and (cpu is None or cpu > self.step_budget):
            computing = f" ({cpu:.2f} s of it computing)" if cpu is not None else ""
            self._stop(
                f"{what} took {seconds:.2f} s{computing}; reset() and step() must finish within "
                f"{self.step_budget:g} s, every call. Precompute less or search smarter."
            )

    @contextlib.contextmanager
    def timed(self, what: str) -> Iterator[None]:
        """Time one call made some other way (Gymnasium's checker) against the step budget."""
        cpu = self.cpu_seconds()
        started = time.perf_counter()
        try:
            yield
        except ProgramError as exc:
            self._timeout(exc, what, self.worker.config.call_timeout)
            raise
        seconds = time.perf_counter() - started
        used = None
        if cpu is not None and seconds > self.step_budget:
            after = self.cpu_seconds()
            used = None if after is None else after - cpu
        self.record(seconds, what, used)

    def cpu_seconds(self) -> float | None:
        """CPU seconds the program's process has used so far, or None where that is unknown."""
        if not isinstance(self.worker, SandboxWorker):  # in-process: the calls run here
            return time.thread_time()
        pid = self.worker.pid  # the worker's process, while it runs
        if pid is None:
            return None
        if self._stat is None or self._stat[0] != pid:  # first use, or a new process
            self.close()
            try:
                self._stat = (pid, os.open(f"/proc/{pid}/stat", os.O_RDONLY))
            except OSError:
                return None
        try:
            data = os.pread(self._stat[1], 1024, 0)  # one system call: it runs once a batch
        except OSError:
            return None
        fields = data[data.rfind(b")") + 2 :].split()  # after "pid (name) "
        return (int(fields[11]) + int(fields[12])) / _TICKS  # utime + stime

    def close(self) -> None:
        """Let go of the worker's ``/proc`` file."""
        if self._stat is not None:
            os.close(self._stat[1])
            self._stat = None

    def facts(self) -> dict[str, float]:
        """Median and slowest timed call, in milliseconds (empty when none was timed)."""
        if not self.seconds:
            return {}
        return {
            "step_ms_median": round(1000 * statistics.median(self.seconds), 3),
            "step_ms_max": round(1000 * max(self.seconds), 3),
        }

    def exchange(self, requests: Sequence[Request]) -> list[Answer]:
        """Send ``requests`` in one batch and time each answer as it arrives.

        Raises:
            OutOfTime: a timed call ran past the step budget, or the total budget ran out
                (the worker is killed first, so the rest of the batch does not run).
        """
        if not requests:
            return []
        self.check_total()
        worker = self.worker
        if not isinstance(worker, SandboxWorker):  # in-process: the calls run here, one by one
            responses = []
            for request in requests:
                timed = request.get("op") in TIMED_OPS
                with self.timed(_describe(request)) if timed else _NO_TIMING:
                    responses.append(worker.exchange([request])[0])
                if timed:
                    self._timeout(responses[-1], _describe(request), _deadline(worker, request))
            return responses
        sample = self.cpu_seconds()
        failed = worker.send(requests)
        if failed is not None:
            return list(failed)
        responses = []
        seconds, budget, quarter = self.seconds, self.step_budget, self.step_budget / 4
        first = last = sampled = time.perf_counter()
        for k, request in enumerate(requests):
            # Each answer waits its request's deadline; the total cap is checked between calls.
            response = worker.receive([request])[0]
            now = time.perf_counter()
            responses.append(response)
            cpu = None
            # Fast batches are not sampled; a slow one is, at every answer from a quarter of
            # the budget on, so a slow call's CPU time is known to within a few calls' time.
            if now - first > quarter and sample is not None:
                current = self.cpu_seconds()
                if current is not None:
                    cpu = current - sample - (last - sampled)  # less what the calls between took
                    sample, sampled = current, now
            if request["op"] in TIMED_OPS:
                took = now - last
                seconds.append(took)
                if took > budget or not protocol.answer_ok(response):
                    self._timeout(response, _describe(request), _deadline(worker, request))
                    self._check(took, _describe(request), cpu)
            last = now
            if isinstance(response, ProgramError) and not getattr(worker, "alive", True):
                self.check_total()  # the deadline that killed it may have been the total one
                return responses + [_LOST] * (len(requests) - k - 1)
        return responses

    def _timeout(self, response: dict[str, Any] | ProgramError, what: str, timeout: float) -> None:
        """Stop at a call the worker had to interrupt: it is over any budget, loaded or not."""
        kind: str | None
        if isinstance(response, ProgramError):
            kind = response.kind
        else:
            error = protocol.answer_error(response)
            kind = error[0] if error is not None else None
        if kind == "timeout":
            self._stop(
                f"{what} ran past the {timeout:g} s deadline and was interrupted; "
                f"reset() and step() must finish within {self.step_budget:g} s, every call. "
                "Look for a loop that never ends, or search smarter."
            )

    def _stop(self, message: str) -> None:
        kill = getattr(self.worker, "kill", None)
        if kill is not None and getattr(self.worker, "alive", False):
            kill()  # the rest of its batch must not run
        raise OutOfTime(message)


def _deadline(worker: Worker, request: dict[str, Any]) -> float:
    return worker.config.deadline(request.get("op", ""))


def _describe(request: dict[str, Any]) -> str:
    if request.get("op") == "reset":
        return f"reset(seed={request.get('seed')!r})"
    action = request.get("a")
    shown = action if isinstance(action, str) and len(action) <= 60 else f"{str(action)[:60]}..."
    return f"step() with the action {shown!r}"


def check_budget(ctx: Context) -> str | None:
    """Timing facts, and peak memory within budget (it runs last: ``hint()`` is included).

    Every ``reset``/``step`` was already held to the step budget as it ran (the clock stops
    the battery at the first that is over), so what is left to judge here is memory.
    """
    if ctx.clock is not None:
        ctx.facts.update(ctx.clock.facts())
    peak_memory = getattr(ctx.worker, "peak_memory_mb", None)
    peak = peak_memory() if peak_memory is not None else None
    if peak is None:
        return None
    ctx.facts["peak_memory_mb"] = round(peak, 1)
    budget = ctx.config.memory_budget_mb
    if peak > budget:
        return (
            f"The worker's memory peaked at {peak:.0f} MiB; the budget is {budget} MiB "
            "(reset, step, solution and hint included). Keep less state."
        )
    return None
