"""What validation says about a program: data, JSON-ready, phrased for the designer model."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CheckResult:
    """The verdict of one check.

    Attributes:
        name: the check's stable name (``"syntax"``, ``"solvable"``, ...).
        passed: whether the program passed it.
        message: one or two sentences; on failure, what is wrong and how to fix it.
        seconds: wall time the check took.
    """

    name: str
    passed: bool
    message: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class NearestMatch:
    """How the program compares with the memory's environments (set by the novelty check).

    Attributes:
        nearest_id: the most similar environment in the memory, if any.
        similarity: its cosine similarity to this program.
    """

    nearest_id: str | None = None
    similarity: float | None = None


@dataclass(frozen=True)
class ProgramProperties:
    """Facts validation learned about a program on the way; ``None`` where it did not get there.

    Attributes:
        title: the first line of the class docstring.
        description: the rest of the docstring.
        skill: the program's ``skill`` tag.
        max_turns: the program's ``max_turns``.
        num_players: 1 or 2.
        kind: ``"puzzle"``, ``"tool"`` or ``"two_player"`` (``contract.KINDS``).
        first_observation: the observation after ``reset(seed=0)``.
        multi_turn: whether the game needs several replies that react to the observations.
        solution_turns: the length of ``solution()`` on seeds 0, 1, ...
        hint: the program's ``hint()`` on seed 0 (privileged: never stored in a manifest).
        step_ms_median: median wall time of the ``reset``/``step`` calls the battery made.
        step_ms_max: the slowest of them.
        peak_memory_mb: the worker's peak resident memory.
        novelty: the comparison with the memory (only when a memory judged it).
        floor: the chance floor: the best mean outcome of the shortcut solvers (cheap policies
            that do not play the game), measured on fresh seeds; win rates are read against
            it (``spadegym.contract.chance_adjusted``). ``None`` for two-player games.
        floor_shortcut: the shortcut that set the floor.
    """

    title: str | None = None
    description: str | None = None
    skill: str | None = None
    max_turns: int | None = None
    num_players: int | None = None
    kind: str | None = None
    first_observation: str | None = None
    multi_turn: bool | None = None
    solution_turns: tuple[int, ...] | None = None
    hint: str | None = None
    step_ms_median: float | None = None
    step_ms_max: float | None = None
    peak_memory_mb: float | None = None
    novelty: NearestMatch | None = None
    floor: float | None = None
    floor_shortcut: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The facts that are known, as a JSON-ready dict (unknown ones are left out)."""
        return {
            f.name: _plain(getattr(self, f.name))
            for f in dataclasses.fields(self)
            if getattr(self, f.name) is not None
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> ProgramProperties:
        """Rebuild from ``to_dict`` (or the dict of older reports); unknown keys are ignored."""
        data = dict(data or {})
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        if isinstance(values.get("solution_turns"), list | tuple):
            values["solution_turns"] = tuple(values["solution_turns"])
        novelty = values.get("novelty")
        if isinstance(novelty, Mapping):
            values["novelty"] = NearestMatch(novelty.get("nearest_id"), novelty.get("similarity"))
        return cls(**values)


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, tuple):
        return list(value)
    return value


@dataclass
class ValidationReport:
    """Every check that ran on one program, in order, and what was learned about it.

    Attributes:
        ok: True when every check passed.
        checks: the checks that ran, cheap to expensive.
        not_run: checks skipped because an earlier gate failed.
        program: the extracted program text (None if none was found).
        class_name: the environment class, once loaded.
        properties: facts found on the way (``ProgramProperties``).
        seconds: total wall time.
    """

    ok: bool = False
    checks: list[CheckResult] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)
    program: str | None = None
    class_name: str | None = None
    properties: ProgramProperties = field(default_factory=ProgramProperties)
    seconds: float = 0.0

    @property
    def failures(self) -> list[CheckResult]:
        """The checks that failed."""
        return [check for check in self.checks if not check.passed]

    def check(self, name: str) -> CheckResult | None:
        """The result of the check called ``name``, if it ran."""
        return next((c for c in self.checks if c.name == name), None)

    def feedback(self) -> str:
        """The failing checks' messages as a list, ready to go back to the designer model."""
        if self.ok:
            return "All checks passed."
        return "\n".join(f"- {c.name}: {c.message}" for c in self.failures)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (the program text is left out; it is usually known)."""
        return {
            "ok": self.ok,
            "checks": [dataclasses.asdict(c) for c in self.checks],
            "not_run": list(self.not_run),
            "class_name": self.class_name,
            "properties": self.properties.to_dict(),
            "seconds": self.seconds,
        }

    def to_json(self) -> str:
        """``to_dict`` as JSON."""
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ValidationReport:
        """Rebuild a report saved with ``to_dict``."""
        checks = [CheckResult(**c) for c in data.get("checks", [])]
        return cls(
            ok=bool(data.get("ok")),
            checks=checks,
            not_run=list(data.get("not_run", [])),
            program=data.get("program"),
            class_name=data.get("class_name"),
            properties=ProgramProperties.from_dict(data.get("properties")),
            seconds=float(data.get("seconds", 0.0)),
        )
