"""Committing a validated candidate: the duplicate checks and the registration, in one place.

Both ways of designing end here: ``generate``, one candidate per thread, and a trainer's
round (``spadegym.designer.rounds``), a batch at once. ``commit`` refuses a program the
registry already holds (unless it is this very slot's, from a killed run), and registers the
rest with ``Registry.admit``, which judges novelty against the memory and writes the registry
and the memory in one step. It writes the verdict on the candidate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from spadegym.designer.candidates import Candidate
from spadegym.validation import ValidationReport

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike
    from spadegym.registry.interface import RegistryLike
    from spadegym.sandbox import Worker

__all__ = ["commit", "extracted", "failure", "report_floor", "source_of"]


def commit(
    cand: Candidate,
    report: ValidationReport,
    provenance: dict[str, Any],
    registry: RegistryLike,
    memory: MemoryLike | None,
    registered: set[str],
    *,
    own: Callable[[str], bool] = lambda env_id: False,
    sandbox: Worker | None = None,
    skill: str | None = None,
) -> None:
    """Register a candidate's passing program, or judge it a duplicate.

    Sets ``cand.status`` (``"accepted"`` or ``"duplicate"``), ``env_id``, ``reason``,
    ``novelty`` and, when accepted, ``floor``.

    Args:
        cand: the candidate; ``report`` is its last turn's passing report.
        report: the passing ``ValidationReport`` (its program is what gets registered).
        provenance: where it came from, for the manifest.
        registry: where it goes.
        memory: the novelty judge, or ``None`` (then only exact copies are refused).
        registered: the ids this run registered so far; the new one is added.
        own: whether an id already holding the program is this slot's own (registered by a
            run killed before it logged its verdict), which counts instead of being a copy.
        sandbox: a worker with the program loaded, for the novelty check's cross-play
            (``None``: a fresh one); killed by its owner, not here.
        skill: the skill the memory records (``None``: the program's own tag).
    """
    from spadegym.registry import DuplicateEnvironmentError

    program = report.program
    assert program is not None, "a passing report holds its program"
    existing = registry.id_of(program)
    if existing is not None and not own(existing):
        where = "earlier in this run" if existing in registered else "already"
        cand.status = "duplicate"
        cand.reason = f"exact copy of {existing}, registered {where}"
        return
    try:
        admitted = registry.admit(
            program,
            report=report,
            provenance=provenance,
            memory=memory,
            sandbox=sandbox,
            skill=skill,
        )
    except DuplicateEnvironmentError as exc:
        cand.novelty = _novelty(exc.novelty)
        cand.status = "duplicate"
        cand.reason = getattr(exc.novelty, "reason", None) or str(exc)
        return
    cand.novelty = _novelty(admitted.novelty)
    registered.add(admitted.env_id)
    cand.status, cand.env_id = "accepted", admitted.env_id
    cand.floor = report_floor(report)


def report_floor(report: Any) -> float | None:
    """The chance floor a validation report measured (``None``: not measured, two players)."""
    properties = getattr(report, "properties", None)
    value = getattr(properties, "floor", None)
    if (getattr(properties, "num_players", None) or 1) != 1 or value is None:
        return None
    return float(value)


def source_of(registry: RegistryLike, env_id: str) -> str | None:
    """The program of a registered environment, if the registry has it."""
    try:
        return registry.get(env_id).source()
    except Exception:  # an id the registry does not hold, or a root gone since
        return None


def extracted(reply: str) -> str | None:
    """The program in a designer's reply, or ``None``."""
    from spadegym.extract import extract_program

    return extract_program(reply).code


def failure(report: ValidationReport | None) -> str:
    """Why a report failed, in one line: its first failed check (and how many more)."""
    if report is None:
        return "not validated"
    failures = report.failures
    if not failures:
        return "checks not run: " + ", ".join(report.not_run)
    first = failures[0]
    more = f" (+{len(failures) - 1} more)" if len(failures) > 1 else ""
    return f"{first.name}: {first.message}{more}"


def _novelty(verdict: Any) -> dict[str, Any] | None:
    """The memory's verdict as the report keeps it."""
    if verdict is None:
        return None
    return {
        "novel": verdict.novel,
        "nearest_id": verdict.nearest_id,
        "similarity": round(float(verdict.similarity), 4),
        "reason": verdict.reason,
    }
