"""The validation battery: every check, in order, on one program in one worker.

Order: extract -> size -> syntax -> policy -> structure -> load (in the sandbox) -> api
(contract values, Gymnasium's ``check_env``) -> solvable -> procedural -> ends -> determinism
-> not_trivial -> shortcuts (cheap solvers that do not play the game; the chance floor) -> robust
(hypothesis) -> values -> isolation -> reset -> privileged -> hint ->
budget -> novelty (when a memory is given). The gates up to ``api`` stop at the first failure
(nothing after them can run); the behavioural checks after it all run, so the designer hears
every problem at once. Later checks reuse what earlier ones played: ``values`` reads every
transcript, and ``isolation``, ``reset`` and ``privileged`` replay them in one batch.

Every ``reset`` and ``step`` is timed as it runs, and the first one past the step budget stops
the battery (``budget`` fails, the checks left are not run), as does the total budget.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from spadegym import contract
from spadegym.errors import ProgramError, SandboxError
from spadegym.extract import extract_program
from spadegym.sandbox import fresh_worker
from spadegym.sandbox.pool import Worker
from spadegym.util import compat
from spadegym.validation import checks, floor, gates, random_play, state, static, value_checks
from spadegym.validation.budget import Clock, OutOfTime, check_budget
from spadegym.validation.config import ValidationConfig
from spadegym.validation.context import Context
from spadegym.validation.verdict import (
    CheckResult,
    NearestMatch,
    ProgramProperties,
    ValidationReport,
)

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike

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
    "ends",
    "determinism",
    "not_trivial",
    "shortcuts",
    "robust",
    "values",
    "isolation",
    "reset",
    "privileged",
    "hint",
    "budget",
    "novelty",
)

Lease = Callable[[], AbstractContextManager[Worker]]
"""Gives the worker a validation runs in, for the ``with`` block of the sandboxed checks."""


def _robust(ctx: Context) -> str | None:
    from spadegym.validation.fuzz import fuzz  # hypothesis is heavy: imported when needed

    return fuzz(ctx)


BEHAVIOUR: tuple[tuple[str, Callable[[Context], str | None]], ...] = (
    ("solvable", checks.check_solvable),
    ("procedural", checks.check_procedural),
    ("ends", random_play.check_game_ends),
    ("determinism", checks.check_determinism),
    ("not_trivial", checks.check_not_trivial),
    ("shortcuts", floor.check_shortcuts),
    ("robust", _robust),
    ("values", value_checks.check_values),
    ("isolation", state.check_isolation),
    ("reset", state.check_reset),
    ("privileged", state.check_privileged),
    ("hint", checks.check_hint),
    ("budget", check_budget),
)
"""The checks after the gates, in order; each sees what the earlier ones learned."""

NEEDS: dict[str, tuple[str, ...]] = {
    "procedural": ("solvable",),
    "shortcuts": ("solvable", "determinism", "not_trivial"),
    "values": ("robust",),
    "hint": ("solvable",),
}
"""Checks that judge with what an earlier check established: after that one failed they would
only repeat its cause in other words (a failing ``solution()`` is no evidence that seeds are
alike), so they are not run and the designer hears the first cause."""


class _Run:
    """One validation in progress: its report, the facts learned, and the parsed program."""

    def __init__(self, report: ValidationReport):
        self.report = report
        self.facts: dict[str, Any] = {}
        self.tree: Any = None
        self.cls: Any = None

    def record(self, name: str, problem: str | None, started: float, note: str = "") -> bool:
        """Append the check's result (``note`` is the message when it passed)."""
        seconds = round(time.perf_counter() - started, 4)
        message = note if problem is None else problem
        self.report.checks.append(CheckResult(name, problem is None, message, seconds))
        return problem is None


def validate(
    text: str,
    config: ValidationConfig | None = None,
    *,
    memory: MemoryLike | None = None,
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
    return run_battery(text, config, memory, lease)


def run_battery(
    text: str, config: ValidationConfig, memory: MemoryLike | None, lease: Lease
) -> ValidationReport:
    """The whole battery on ``text``, in a worker from ``lease`` (taken only if needed)."""
    report = ValidationReport()
    started = time.perf_counter()
    run = _Run(report)
    try:
        code = _static(text, run)
        if code is not None:  # a worker only for programs that got past the static checks
            _sandboxed(code, config, lease, run, started)
    finally:
        report.properties = ProgramProperties(**run.facts)
        done = {c.name for c in report.checks}
        passed = bool(report.checks) and all(c.passed for c in report.checks)
        if memory is not None and passed and done.issuperset(CHECK_ORDER[:-1]):
            judge_novelty(report, memory)
            done.add("novelty")
        report.not_run = [
            n for n in CHECK_ORDER if n not in done and not (n == "novelty" and memory is None)
        ]
        report.ok = (
            bool(report.checks) and all(c.passed for c in report.checks) and not report.not_run
        )
        report.seconds = round(time.perf_counter() - started, 4)
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
    if (
        not run.record(
            "extract",
            None if extraction.code else extraction.message,
            t,
            f"program found ({extraction.source})",
        )
        or not extraction.code
    ):
        return None
    code = report.program = extraction.code

    t = time.perf_counter()
    if not run.record("size", static.check_size(code), t):
        return None
    t = time.perf_counter()
    tree, problem = static.check_syntax(code)
    if not run.record("syntax", problem, t) or tree is None:
        return None
    t = time.perf_counter()
    from spadegym.policy import check_source

    errors = check_source(code)
    if not run.record("policy", "; ".join(errors) if errors else None, t):
        return None
    t = time.perf_counter()
    cls_node, problems = static.check_structure(tree)
    if not run.record("structure", " ".join(problems) if problems else None, t) or cls_node is None:
        return None
    report.class_name = cls_node.name
    run.tree, run.cls = tree, cls_node
    run.facts["title"], run.facts["description"] = static.docstring_parts(cls_node)
    return code


def _sandboxed(
    code: str, config: ValidationConfig, lease: Lease, run: _Run, started: float
) -> None:
    report = run.report
    try:
        with lease() as worker:
            _dynamic(code, config, worker, run, started)
    except SandboxError as exc:
        name = next(n for n in CHECK_ORDER if n not in {c.name for c in report.checks})
        run.record(name, f"The sandbox failed while checking: {exc}", time.perf_counter())


def _dynamic(
    code: str, config: ValidationConfig, worker: Worker, run: _Run, started: float
) -> None:
    t = time.perf_counter()
    info, problem = gates.check_load(code, worker, run.tree, run.cls)
    if not run.record("load", problem, t) or info is None or info.max_turns is None:
        return  # (a loaded program has its max_turns: the load gate checks it)
    kind = contract.environment_kind(info.num_players, info.tool_env)
    run.facts.update(
        skill=info.skill, max_turns=info.max_turns, num_players=info.num_players or 1, kind=kind
    )
    clock = Clock(worker, config.step_budget, config.total_budget, started)
    ctx = Context(
        worker=worker,
        info=info,
        max_turns=info.max_turns,
        config=config,
        clock=clock,
        code=code,
        facts=run.facts,
    )
    try:
        t = time.perf_counter()
        if not run.record("api", gates.check_api(ctx, code), t):
            return
        generation = worker.generation
        failed: set[str] = set()
        for name, check in BEHAVIOUR:
            if failed.intersection(NEEDS.get(name, ())):
                continue  # listed as not run: its cause is already reported
            t = time.perf_counter()
            clock.check_total()
            try:
                if worker.generation != generation:  # a hard kill restarted it: load again
                    ctx.info = worker.load_cached(code)
                    generation = worker.generation
                problem = check(ctx)
            except ProgramError as exc:
                problem = f"The program failed: {exc}"
            if not run.record(name, problem, t):
                failed.add(name)
    except OutOfTime as exc:
        run.record("budget", str(exc), t)
    finally:
        ctx.close_kept()
        clock.close()


def judge_novelty(report: ValidationReport, memory: MemoryLike) -> None:
    """Append the ``novelty`` check to a passing report.

    It runs after the validation's worker is gone, so it judges by meaning and code (the
    memory's static signals); ``Registry.add`` judges again with cross-play, in a sandbox,
    before anything is stored.
    """
    started = time.perf_counter()
    assert report.program is not None  # the novelty check follows a passed validation
    novelty = memory.check_novelty(
        report.program,
        first_observation=report.properties.first_observation,
        start_sandbox=False,  # static here; the registry's add plays cross-play in a sandbox
    )
    report.properties = dataclasses.replace(
        report.properties, novelty=NearestMatch(novelty.nearest_id, novelty.similarity)
    )
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
