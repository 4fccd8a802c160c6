"""What validation says about a program: data, JSON-ready, phrased for the designer model."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
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


@dataclass
class ValidationReport:
    """Every check that ran on one program, in order, and what was learned about it.

    Attributes:
        ok: True when every check passed.
        checks: the checks that ran, cheap to expensive.
        not_run: checks skipped because an earlier gate failed.
        program: the extracted program text (None if none was found).
        class_name: the environment class, once loaded.
        properties: facts found on the way: ``title``, ``skill``, ``max_turns``,
            ``num_players``, ``kind``, ``multi_turn``, ``solution_turns``, ``hint``,
            ``first_observation``, step timings.
        seconds: total wall time.
    """

    ok: bool = False
    checks: list[CheckResult] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)
    program: str | None = None
    class_name: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)
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
        data = asdict(self)
        data.pop("program")
        return data

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
            properties=dict(data.get("properties", {})),
            seconds=float(data.get("seconds", 0.0)),
        )
