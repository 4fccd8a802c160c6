"""``validate``: is this text a good environment program? Cheap checks first, failures in words.

Order: extract -> size -> syntax -> policy -> structure -> load (in the sandbox) -> api
(contract values, Gymnasium's ``check_env``) -> solvable -> procedural -> determinism ->
not_trivial -> robust (hypothesis) -> budget -> hint -> novelty (when a memory is given).
The gates up to ``api`` stop at the first failure (nothing after them can run); the
behavioural checks after it all run, so the designer hears every problem at once.

Each program is validated in a fresh worker process of its own: a program that broke out of
the policy could otherwise tamper with the verdict on the next one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from spadegym import compat, contract
from spadegym.errors import ConfigError, ProgramError, SandboxError
from spadegym.extract import extract_program
from spadegym.sandbox import SandboxConfig, WorkerSupply, fresh_worker
from spadegym.sandbox.pool import Worker
from spadegym.validation import checks, static
from spadegym.validation.report import CheckResult, ValidationReport

__all__ = [
    "CheckResult",
    "ValidationConfig",
    "ValidationReport",
    "Validator",
    "validate",
    "validate_many",
]

CHECK_ORDER = (
    "extract",
    "size",
    "syntax",
    "policy",
    "structure",
    "load",
    "api",
    "solvable",
    "procedural",
    "determinism",
    "not_trivial",
    "robust",
    "budget",
    "hint",
    "novelty",
)


def _validation_sandbox() -> SandboxConfig:
    return SandboxConfig(call_timeout=2.0, load_timeout=5.0, kill_grace=1.0)


@dataclass(frozen=True)
class ValidationConfig:
    """How hard validation looks. The defaults take well under a second for a typical program."""

    seeds: int = 5
    """Seeds on which ``solution()`` must win (0..seeds-1); also the procedural sample."""

    difficulties: tuple[int, ...] = ()
    """Difficulties (``options={"difficulty": d}``) on which the seed-0 solution must also win."""

    determinism_seeds: int = 3
    """Seeds replayed to check determinism."""

    determinism_runs: int = 2
    """Fresh instances per determinism seed; all must agree."""

    trivial_seeds: int = 3
    """Seeds on which trivial replies and another seed's solution are tried."""

    fuzz_examples: int = 50
    """Random action sequences the robustness check plays."""

    fuzz_seed: int = 0
    """Seed of the fuzzer, so a verdict is reproducible."""

    step_budget: float = 0.5
    """Seconds the slowest ``reset``/``step`` may take (round trip included)."""

    memory_budget_mb: int = 256
    """Peak resident memory of the worker, in MiB."""

    check_env: bool = True
    """Run Gymnasium's ``check_env`` on the ``ProgramEnv`` wrapper."""

    sandbox: SandboxConfig = field(default_factory=_validation_sandbox)
    """The sandbox for the program (isolation, limits, deadlines)."""

    def __post_init__(self) -> None:
        if self.seeds < 2:
            raise ConfigError(f"seeds={self.seeds}: at least 2 are needed to tell seeds apart.")
        if self.determinism_runs < 2:
            raise ConfigError(
                f"determinism_runs={self.determinism_runs}: at least 2 runs are needed to compare."
            )
        if any(not 1 <= d <= 5 for d in self.difficulties):
            raise ConfigError(f"difficulties={self.difficulties}: difficulties are 1..5.")
        if self.fuzz_examples < 0 or self.trivial_seeds < 1 or self.determinism_seeds < 1:
            raise ConfigError(
                "fuzz_examples must be >= 0, trivial_seeds and determinism_seeds >= 1."
            )


class _Run:
    """One validation in progress: records checks and their times on the report."""

    def __init__(self, report: ValidationReport):
        self.report = report

    def record(self, name: str, problem: str | None, started: float, note: str = "") -> bool:
        passed = problem is None
        self.report.checks.append(
            CheckResult(
                name, passed, note if passed else problem, round(time.perf_counter() - started, 4)
            )
        )
        return passed


def validate(
    text: str,
    config: ValidationConfig | None = None,
    *,
    memory: Any = None,
    worker: Worker | None = None,
) -> ValidationReport:
    """Validate a program, or a raw LLM reply holding one.

    Args:
        text: the program, or a model's whole reply (see CONTRACT.md section 8).
        config: how hard to look; defaults to ``ValidationConfig()``.
        memory: an ``EnvironmentMemory``; when given, a ``novelty`` check runs last.
        worker: run in this worker instead of a fresh one (tests; trusted programs).

    Returns:
        A ``ValidationReport``; ``report.ok`` is True when every check passed.
    """
    config = config or ValidationConfig()
    lease = (
        (lambda: contextlib.nullcontext(worker))
        if worker is not None
        else (lambda: fresh_worker(config.sandbox))
    )
    return _validate(text, config, memory, lease)


Lease = Callable[[], AbstractContextManager[Worker]]
"""Gives the worker a validation runs in, for the ``with`` block of the sandboxed checks."""


def _validate(text: str, config: ValidationConfig, memory: Any, lease: Lease) -> ValidationReport:
    report = ValidationReport()
    started_all = time.perf_counter()
    run = _Run(report)
    try:
        code = _static(text, run)
        if code is not None:  # a worker only for programs that got past the static checks
            _sandboxed(code, config, memory, lease, run)
    finally:
        done = {c.name for c in report.checks}
        report.not_run = [
            n for n in CHECK_ORDER if n not in done and not (n == "novelty" and memory is None)
        ]
        report.ok = (
            bool(report.checks) and all(c.passed for c in report.checks) and not report.not_run
        )
        report.seconds = round(time.perf_counter() - started_all, 4)
    return report


def _static(text: str, run: _Run) -> str | None:
    """The checks that only read the text; the program if they all pass."""
    with compat.AST_LOCK:  # one lock for the whole stage: fewer hand-offs between threads
        return _static_checks(text, run)


def _static_checks(text: str, run: _Run) -> str | None:
    report = run.report
    t = time.perf_counter()
    if not isinstance(text, str):
        run.record("extract", f"Expected program text (str), got {type(text).__name__}.", t)
        return None
    extraction = extract_program(text)
    if not run.record(
        "extract",
        None if extraction.code else extraction.message,
        t,
        f"program found ({extraction.source})",
    ):
        return None
    code = report.program = extraction.code

    t = time.perf_counter()
    if not run.record("size", static.check_size(code), t):
        return None
    t = time.perf_counter()
    tree, problem = static.check_syntax(code)
    if not run.record("syntax", problem, t):
        return None
    t = time.perf_counter()
    from spadegym.policy import check_source

    errors = check_source(code)
    if not run.record("policy", "; ".join(errors) if errors else None, t):
        return None
    t = time.perf_counter()
    cls_node, problems = static.check_structure(tree)
    if not run.record("structure", " ".join(problems) if problems else None, t):
        return None
    report.class_name = cls_node.name
    title, description = static.docstring_parts(cls_node)
    report.properties.update(title=title, description=description)

    return code


def _sandboxed(code: str, config: ValidationConfig, memory: Any, lease: Lease, run: _Run) -> None:
    report = run.report
    try:
        with lease() as worker:
            _dynamic(code, config, memory, worker, run)
    except SandboxError as exc:
        name = next(n for n in CHECK_ORDER if n not in {c.name for c in report.checks})
        run.record(name, f"The sandbox failed while checking: {exc}", time.perf_counter())


def _load(code: str, worker: Worker, report: ValidationReport) -> tuple[Any, str | None]:
    try:
        info = worker.load_cached(code)
    except ProgramError as exc:
        return None, str(exc)
    problems = []
    if not info.has_reset or not info.has_step:
        problems.append(
            f"{info.class_name} needs reset(self, seed=None, options=None) and "
            "step(self, action) methods."
        )
    if info.max_turns is None or not contract.MIN_TURNS <= info.max_turns <= contract.MAX_TURNS:
        problems.append(
            f"{info.class_name}.max_turns must be an int class attribute in "
            f"{contract.MIN_TURNS}..{contract.MAX_TURNS}."
        )
    if info.num_players not in (None, 1, 2):
        problems.append(f"num_players must be 1 or 2, not {info.num_players!r}.")
    if info.tool_env and (not info.has_check or not isinstance(info.tools, list) or not info.tools):
        problems.append("A ToolEnv needs a non-empty tools list and a check(self, answer) method.")
    return info, " ".join(problems) if problems else None


def _dynamic(code: str, config: ValidationConfig, memory: Any, worker: Worker, run: _Run) -> None:
    report = run.report
    t = time.perf_counter()
    info, problem = _load(code, worker, report)
    if not run.record("load", problem, t):
        return
    max_turns = info.max_turns
    kind = "two_player" if info.num_players == 2 else "tool" if info.tool_env else "puzzle"
    report.properties.update(
        skill=info.skill, max_turns=max_turns, num_players=info.num_players or 1, kind=kind
    )

    t = time.perf_counter()
    if not run.record("api", _check_api(code, info, worker, config, report), t):
        return
    ctx = checks.Context(
        worker=worker, info=info, max_turns=max_turns, config=config, properties=report.properties
    )
    generation = worker.generation

    def guarded(name: str, check: Callable[[], str | None]) -> None:
        nonlocal generation
        t = time.perf_counter()
        if worker.generation != generation:  # a hard kill restarted the worker: load again
            ctx.info = worker.load_cached(code)
            generation = worker.generation
        try:
            problem = check()
        except ProgramError as exc:
            problem = f"The program failed: {exc}"
        run.record(name, problem, t)

    guarded("solvable", lambda: checks.check_solvable(ctx))
    guarded("procedural", lambda: checks.check_procedural(ctx))
    guarded("determinism", lambda: checks.check_determinism(ctx))
    guarded("not_trivial", lambda: checks.check_not_trivial(ctx))
    from spadegym.validation.fuzz import fuzz  # hypothesis is heavy: imported when needed

    moves = sorted({a for e in ctx.solved for a in (e.solution or [])})[:20]
    guarded(
        "robust",
        lambda: fuzz(worker, ctx.info, moves, config.fuzz_examples, config.fuzz_seed, max_turns),
    )
    guarded("budget", lambda: _check_budget(worker, ctx, config))
    guarded("hint", lambda: checks.check_hint(ctx))
    if memory is not None and all(c.passed for c in report.checks):
        _judge_novelty(report, memory, worker)


def _check_api(
    code: str, info: Any, worker: Worker, config: ValidationConfig, report: ValidationReport
) -> str | None:
    """reset/step return contract values; Gymnasium's checker accepts the wrapper."""
    from spadegym.validation.episodes import Episode, play

    episode = Episode(seed=0, actions=["\\boxed{1}"])
    play(worker, info, [episode], 1)
    if episode.error is not None:
        return f"Seed 0: {episode.error_during} failed: {episode.error}"
    report.properties["first_observation"] = episode.first_observation
    if info.num_players == 2 and episode.first_info.get("player") not in (0, 1):
        return (
            "A two-player game must name the player to act in info['player'] (0 or 1) "
            "after reset() and after every step."
        )
    if not config.check_env:
        return None
    from gymnasium.utils.env_checker import check_env

    from spadegym.env import ProgramEnv
    from spadegym.sandbox import SandboxPool

    pool = SandboxPool.from_workers([worker])
    env = ProgramEnv(code, pool=pool)
    try:
        with compat.quiet_gymnasium():
            check_env(env, skip_render_check=True)
    except ProgramError as exc:
        return f"Gymnasium's check_env failed: {exc}"
    except Exception as exc:  # check_env asserts; its message names the rule
        return f"Gymnasium's check_env failed: {type(exc).__name__}: {exc}"
    finally:
        env.close()
    return None


def _check_budget(worker: Worker, ctx: checks.Context, config: ValidationConfig) -> str | None:
    """The slowest single call, timed one by one over a played episode, and peak memory."""
    solved = ctx.solved[0] if ctx.solved else None
    actions = list(solved.solution or []) if solved else list(checks.PROBE_ACTIONS)
    instance = worker.new(ctx.info.program)
    timings = []
    try:
        started = time.perf_counter()
        worker.reset(instance, 0, None)
        timings.append(time.perf_counter() - started)
        for action in actions[: ctx.max_turns]:
            started = time.perf_counter()
            result = worker.step(instance, action)
            timings.append(time.perf_counter() - started)
            if result.terminated or result.truncated:
                break
    finally:
        worker.close_instance(instance)
    ctx.properties["step_ms_median"] = round(1000 * sorted(timings)[len(timings) // 2], 3)
    ctx.properties["step_ms_max"] = round(1000 * max(timings), 3)
    batched = max((s for e in ctx.solved for s in e.step_seconds), default=0.0)
    slowest = max(max(timings), batched)
    if slowest > config.step_budget:
        return (
            f"The slowest call took {slowest:.2f} s; reset() and step() must finish "
            f"within {config.step_budget:g} s. Precompute less or search smarter."
        )
    peak = worker.peak_memory_mb() if hasattr(worker, "peak_memory_mb") else None
    if peak is not None:
        ctx.properties["peak_memory_mb"] = round(peak, 1)
        if peak > config.memory_budget_mb:
            return (
                f"The worker's memory peaked at {peak:.0f} MiB; the budget is "
                f"{config.memory_budget_mb} MiB. Keep less state."
            )
    return None


def validate_many(
    texts: Iterable[str],
    config: ValidationConfig | None = None,
    *,
    workers: int = 2,
    memory: Any = None,
    executor: Any = None,
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
        executor: Any = None,
        ahead: int | None = None,
        warm: bool = True,
    ):
        from spadegym.executors import LocalExecutor, get_executor

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
                target=_warm_up,
                args=(self.config,),
                name="spadegym-validation-warm-up",
                daemon=True,
            )
            self._warming.start()

    def validate(self, text: str, *, memory: Any = None) -> ValidationReport:
        """``validate(text)`` in a worker from the supply, in this process."""
        return _validate(text, self.config, memory, self.supply.lease)

    def validate_many(
        self,
        texts: Iterable[str],
        *,
        memory: Any = None,
        progress: Callable[[int, ValidationReport], None] | None = None,
    ) -> list[ValidationReport]:
        """Validate several programs concurrently; see the module function ``validate_many``."""
        from spadegym.executors import LocalExecutor

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
                    _judge_novelty(report, memory)
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


def _warm_up(config: ValidationConfig) -> None:
    """The one-off work of a process's first validation, done ahead."""
    from gymnasium.utils import env_checker  # noqa: F401 (imported for its cost)

    from spadegym.env import ProgramEnv  # noqa: F401
    from spadegym.validation.fuzz import MAX_FUZZ_TURNS, draw_templates

    if config.fuzz_examples > 0:  # the usual length: programs rarely allow fewer turns
        draw_templates(config.fuzz_examples, config.fuzz_seed, MAX_FUZZ_TURNS)


def _as_report(result: Any) -> ValidationReport:
    from spadegym.executors import TaskLost

    if isinstance(result, TaskLost):
        return ValidationReport(
            ok=False,
            checks=[CheckResult("executor", False, f"The validation was lost: {result.reason}.")],
        )
    return result


def _judge_novelty(report: ValidationReport, memory: Any, worker: Worker | None = None) -> None:
    """Append the ``novelty`` check to a passing report.

    With the worker that validated the program, the memory also cross-plays it (stored
    solutions replayed in it); without one it judges by meaning and code only.
    """
    started = time.perf_counter()
    novelty = memory.check_novelty(
        report.program,
        first_observation=report.properties.get("first_observation"),
        sandbox=worker,
    )
    report.properties["novelty"] = {
        "nearest_id": novelty.nearest_id,
        "similarity": novelty.similarity,
    }
    passed = bool(novelty.novel)
    report.checks.append(
        CheckResult(
            "novelty",
            passed,
            "" if passed else novelty.reason,
            round(time.perf_counter() - started, 4),
        )
    )
    report.ok = passed


def replace_config(config: ValidationConfig, **changes: Any) -> ValidationConfig:
    """A copy of ``config`` with some fields changed."""
    return dataclasses.replace(config, **changes)
