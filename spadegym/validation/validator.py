"""``Validator`` and ``validate_many``: many programs, each in a fresh worker started ahead.

Each program is validated in a fresh worker process of its own: a program that broke out of
the policy could otherwise tamper with the verdict on the next one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spadegym.sandbox import WorkerSupply
from spadegym.validation.battery import judge_novelty, run_battery, validate
from spadegym.validation.config import ValidationConfig
from spadegym.validation.executors import Executor, LocalExecutor, TaskLost, get_executor
from spadegym.validation.verdict import CheckResult, ValidationReport

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike


def validate_many(
    texts: Iterable[str],
    config: ValidationConfig | None = None,
    *,
    workers: int = 2,
    memory: MemoryLike | None = None,
    executor: Executor | str | None = None,
    progress: Callable[[int, ValidationReport], None] | None = None,
) -> list[ValidationReport]:
    """Validate several programs concurrently, each in its own fresh worker.

    For validation that recurs over a long run, keep a ``Validator`` instead: it starts the
    workers ahead of need and keeps its executor.

    Args:
        texts: programs or raw replies.
        config: shared configuration.
        workers: how many validations run at once (the local executor's threads, or Ray actors).
        memory: an ``EnvironmentMemory``; novelty is judged here, in this process, for the
            programs that pass everything else.
        executor: ``"local"`` (default), ``"ray"``, ``"ray:<address>"`` or an ``Executor``.
        progress: called with (index, report) as each finishes.

    Returns:
        The reports, in the order of ``texts``. Work an executor lost comes back as a failed
        report whose ``executor`` check says why.
    """
    with Validator(config, workers=workers, executor=executor, ahead=0, warm=False) as validator:
        return validator.validate_many(texts, memory=memory, progress=progress)


class Validator:
    """Validation for a long run: workers started ahead of need, and one executor kept.

    Every program still gets a fresh worker of its own, exactly as with ``validate``; the
    workers are only started before the programs arrive (``WorkerSupply``), so a validation
    does not wait the ~50 ms a worker takes to start. ``warm`` also does, on a background
    thread, the one-off work of a process's first validation (importing hypothesis and
    Gymnasium's checker, drawing the fuzzer's examples).

    Args:
        config: how hard to look; defaults to ``ValidationConfig()``.
        workers: how many validations run at once.
        executor: ``"local"`` (default), ``"ray"``, ``"ray:<address>"`` or an ``Executor``
            (one the caller made stays the caller's to close). With Ray the workers live in
            the actors, so none are started ahead here.
        ahead: started workers kept waiting; defaults to ``workers``. Each is an idle process
            of about 15 MiB.
        warm: do the first validation's one-off work now, in the background.

    Safe to use from several threads. Close it (or use it as a context manager) to stop the
    waiting workers.
    """

    def __init__(
        self,
        config: ValidationConfig | None = None,
        *,
        workers: int = 2,
        executor: Executor | str | None = None,
        ahead: int | None = None,
        warm: bool = True,
    ):
        self.config = config or ValidationConfig()
        self.executor = get_executor(executor, workers)
        self._owns_executor = self.executor is not executor
        local = isinstance(self.executor, LocalExecutor)
        self.supply = WorkerSupply(
            self.config.sandbox, (workers if ahead is None else ahead) if local else 0
        )
        self._warming: threading.Thread | None = None
        if warm and local:
            self._warming = threading.Thread(
                target=warm_up,
                args=(self.config,),
                name="spadegym-validation-warm-up",
                daemon=True,
            )
            self._warming.start()

    def validate(self, text: str, *, memory: MemoryLike | None = None) -> ValidationReport:
        """``validate(text)`` in a worker from the supply, in this process."""
        return run_battery(text, self.config, memory, self.supply.lease)

    def validate_many(
        self,
        texts: Iterable[str],
        *,
        memory: MemoryLike | None = None,
        progress: Callable[[int, ValidationReport], None] | None = None,
    ) -> list[ValidationReport]:
        """Validate several programs concurrently; see the module function ``validate_many``."""
        items = list(texts)
        task = (
            self.validate
            if isinstance(self.executor, LocalExecutor)
            else _RemoteValidation(self.config)
        )

        def finished(k: int, result: Any) -> None:
            if progress is not None:
                progress(k, _as_report(result))

        results = self.executor.map(task, items, progress=finished if memory is None else None)
        reports = [_as_report(r) for r in results]
        if memory is not None:
            for k, report in enumerate(reports):
                if report.ok and report.program is not None:
                    judge_novelty(report, memory)
                if progress is not None:
                    progress(k, report)
        return reports

    def close(self) -> None:
        """Kill the waiting workers and close the executor if this validator made it."""
        if self._warming is not None:
            self._warming.join()
        self.supply.close()
        if self._owns_executor:
            self.executor.close()

    def __enter__(self) -> Validator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class _RemoteValidation:
    """``validate`` with a config, as a picklable task for an executor in other processes."""

    config: ValidationConfig

    def __call__(self, text: str) -> ValidationReport:
        return validate(text, self.config)


def warm_up(config: ValidationConfig) -> None:
    """The one-off work of a process's first validation, done ahead."""
    from gymnasium.utils import env_checker  # noqa: F401 (imported for its cost)

    from spadegym.validation.fuzz import MAX_FUZZ_TURNS, draw_templates

    if config.fuzz_examples > 0:  # the usual length: programs rarely allow fewer turns
        draw_templates(config.fuzz_examples, config.fuzz_seed, MAX_FUZZ_TURNS)


def _as_report(result: ValidationReport | TaskLost) -> ValidationReport:
    if isinstance(result, TaskLost):
        return ValidationReport(
            ok=False,
            checks=[CheckResult("executor", False, f"The validation was lost: {result.reason}.")],
        )
    return result
