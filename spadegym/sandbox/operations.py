"""The operations on programs and instances, over any worker's ``exchange``; the in-process worker.

``_Operations`` turns each call (``load``, ``new``, ``reset``, ``step``, ...) into one request
built by ``protocol`` and reads its answer with ``answers.answer_value``; a worker class only
supplies ``exchange``. ``InProcessWorker`` answers in this process (``isolation="none"``).
"""

from __future__ import annotations

import abc
import hashlib
from collections.abc import Sequence
from typing import Any

from spadegym.errors import ProgramError
from spadegym.sandbox import protocol
from spadegym.sandbox.answers import (
    Answer,
    ProgramInfo,
    StepResult,
    answer_or_error,
    answer_value,
)
from spadegym.sandbox.config import SandboxConfig


class Operations(abc.ABC):
    """The operations on programs and instances, over ``exchange`` (one answer a request)."""

    config: SandboxConfig
    generation: int

    @abc.abstractmethod
    def exchange(self, requests: Sequence[dict]) -> list[Answer]:
        """Answer each request, in order; a lost answer is a ``ProgramError`` value.

        Each request waits at most its deadline (``config.deadline(op)``) plus
        ``config.kill_grace``; past that the worker is killed and restarted.
        """

    def _one(self, request: dict) -> Any:
        (answer,) = self.exchange([request])
        return answer_value(request, answer)

    def ping(self) -> str:
        """A round trip that runs no program code."""
        return self._one(protocol.ping_request())

    def load_cached(self, source: str, filename: str = "<program>") -> ProgramInfo:
        """``load``, once per program text and worker generation."""
        key = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
        cached = self.programs.get(key)
        if cached is None or cached[0] != self.generation:
            cached = self.programs[key] = (self.generation, self.load(source, filename))
        return cached[1]

    @property
    def programs(self) -> dict[str, tuple[int, ProgramInfo]]:
        """Programs loaded through ``load_cached``: sha256 -> (generation, info)."""
        return self.__dict__.setdefault("_programs", {})

    def load(self, source: str, filename: str = "<program>") -> ProgramInfo:
        """Compile and load a program; raises ``ProgramError`` (kind ``policy`` etc.)."""
        return self._one(protocol.load_request(source, filename))

    def new(self, program: int) -> int:
        """Create an instance of a loaded program's env class; returns its instance id."""
        return self._one(protocol.new_request(program))

    def reset(
        self, instance: int, seed: int | None = None, options: dict | None = None
    ) -> tuple[str, dict]:
        """Call the instance's ``reset``; returns ``(observation, info)``."""
        return self._one(protocol.reset_request(instance, seed, options))

    def step(self, instance: int, action: str) -> StepResult:
        """Call the instance's ``step`` with one action."""
        return self._one(protocol.step_request(instance, action))

    def step_many(self, items: Sequence[tuple[int, str]]) -> list[StepResult | ProgramError]:
        """Step several instances of this worker in one exchange; failures come back as values."""
        requests: list[dict | ProgramError] = []
        for iid, action in items:
            try:
                requests.append(protocol.step_request(iid, action))
            except ProgramError as exc:
                requests.append(exc)
        sent = [r for r in requests if isinstance(r, dict)]
        answers = iter(self.exchange(sent) if sent else [])
        return [
            r if isinstance(r, ProgramError) else answer_or_error(r, next(answers))
            for r in requests
        ]

    def solution(self, instance: int) -> list[str]:
        """Call the instance's ``solution``."""
        return self._one(protocol.solution_request(instance))

    def hint(self, instance: int) -> str:
        """Call the instance's ``hint``."""
        return self._one(protocol.hint_request(instance))

    def close_instance(self, instance: int) -> None:
        """Forget an instance (best effort: a dead worker has already forgotten it)."""
        try:
            self._one(protocol.close_request(instance))
        except ProgramError:
            pass


class InProcessWorker(Operations):
    """Runs programs in this process under the restricted policy only (``isolation="none"``).

    No security at all: a program that gets past the policy owns this process. For trusted
    programs. Soft deadlines work only when used from the main thread; there is no hard kill,
    no memory limit and no file or network isolation.
    """

    generation = 0
    layers: dict = {}
    hard_timeouts = 0

    def __init__(self, config: SandboxConfig | None = None):
        from spadegym.sandbox.runtime import Runtime

        self.config = config or SandboxConfig(isolation="none")
        self.runtime = Runtime(
            self.config.call_timeout, self.config.load_timeout, self.config.kill_grace
        )

    def exchange(self, requests: Sequence[dict]) -> list[Answer]:
        """Answer each request in this process."""
        # A JSON round trip keeps in-process results identical to what a worker would send.
        header = protocol.HEADER_BYTES
        return [
            protocol.read_answer(protocol.decode(protocol.encode(self.runtime.handle(r))[header:]))
            or ProgramError("the runtime sent a malformed answer.", "crash")
            for r in requests
        ]

    def close(self) -> None:
        """Drop every program and instance."""
        self.runtime.programs.clear()
        self.runtime.instances.clear()
        self.runtime.files.clear()

    def kill(self) -> None:
        """Same as ``close`` (there is no process)."""
        self.close()
