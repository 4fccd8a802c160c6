"""A design run's candidates, each from prompt to verdict turn by turn, and the run's report.

``generate`` returns a ``GenerationReport`` (every candidate, its turns, the counts and the
timings); a trainer's rounds (``spadegym.designer.rounds``) make the same ``Candidate``s.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from spadegym.llm.base import Message
from spadegym.validation import ValidationReport

__all__ = ["STATUSES", "Candidate", "DesignTurn", "GenerationReport", "Tokens"]

STATUSES = ("accepted", "rejected", "duplicate", "error", "interrupted")
"""How a candidate ended: registered; failed validation after its repairs; judged a copy of a
stored environment; the model could not be asked; the run stopped before it finished."""


@dataclass
class DesignTurn:
    """One designer turn: the request, the reply, and its validation.

    Attributes:
        purpose: ``"design"`` for the first turn, ``"repair"`` for the others.
        log_id: the reply's id in the run log (``c0007-t1``).
        messages: the request sent to the model.
        reply: the model's reply.
        program: the program extracted from it, or ``None``.
        report: its validation report.
        llm_seconds: time waiting for the model (0 when the reply came from the log).
        validate_seconds: time validating.
        from_log: the reply was read back from the log of an interrupted run.
    """

    purpose: str
    log_id: str
    messages: list[Message]
    reply: str
    program: str | None = None
    report: ValidationReport | None = None
    llm_seconds: float = 0.0
    validate_seconds: float = 0.0
    from_log: bool = False


@dataclass
class Tokens:
    """A reply as a trainer samples it: token ids and log-probs, for the policy update.

    Attributes:
        prompt_ids: the prompt's tokens.
        response_ids: the reply's tokens (none for a recorded reply: never trained on).
        old_logprobs: the learner's log-probs at generation time.
        engine_logprobs: the generation engine's log-probs of the reply.
    """

    prompt_ids: list[int]
    response_ids: list[int]
    old_logprobs: list[float] | None = None
    engine_logprobs: list[float] | None = None


@dataclass
class Candidate:
    """One slot of a design run (``generate``, or a trainer's round), from prompt to verdict.

    Attributes:
        index: its position in the run (0-based); the plan for a slot depends only on the
            run's seed and this index, which is what lets a run resume.
        skill: the skill asked for.
        kind: ``"puzzle"``, ``"tool"`` or ``"two_player"``.
        difficulty: 1..5.
        document_id: the grounding document's id.
        corpus: the corpus's name.
        turns: the design turn and its repair turns, in order.
        status: one of ``STATUSES``.
        env_id: the registered id, when accepted.
        reason: why it was not accepted (one line), or what happened on the way.
        novelty: the memory's verdict (``novel``, ``nearest_id``, ``similarity``, ``reason``).
        hint: the hint kept (the program's own or a written one), if any.
        hint_source: ``"program"``, ``"designer"`` or ``None``.
        hint_replies: the hint-writer's replies.
        seconds: wall time of the whole candidate.
        resumed: its verdict was read from the log of an earlier run.
        attempt: 1 for a slot's first attempt, 2 and on for a round's retries of the slot
            (``spadegym.designer.rounds``).
        scripted: a recorded reply, not the model's (a round's extra slots).
        shown: the memory examples its prompt showed (``DesignContext.shown``).
        tokens: the reply as the trainer sampled it, or ``None``.
        floor: its chance floor from validation, once accepted (``None``: not measured, or
            two players).
    """

    index: int
    skill: str
    kind: str
    difficulty: int
    document_id: str
    corpus: str
    turns: list[DesignTurn] = field(default_factory=list)
    status: str = "interrupted"
    env_id: str | None = None
    reason: str = ""
    novelty: dict[str, Any] | None = None
    hint: str | None = None
    hint_source: str | None = None
    hint_replies: list[str] = field(default_factory=list)
    seconds: float = 0.0
    resumed: bool = False
    attempt: int = 1
    scripted: bool = False
    shown: dict[str, Any] = field(default_factory=dict)
    tokens: Tokens | None = None
    floor: float | None = None

    @property
    def accepted(self) -> bool:
        """Whether it was registered."""
        return self.status == "accepted"

    @property
    def reply(self) -> str:
        """The last turn's reply ("" before the first)."""
        return self.turns[-1].reply if self.turns else ""

    @property
    def prompt(self) -> list[Message]:
        """The design turn's request."""
        return self.turns[0].messages if self.turns else []

    @property
    def report(self) -> ValidationReport | None:
        """The last turn's validation report."""
        return self.turns[-1].report if self.turns else None

    @property
    def program(self) -> str | None:
        """The last turn's program."""
        return self.turns[-1].program if self.turns else None

    @property
    def repairs(self) -> int:
        """Repair turns used."""
        return max(0, len(self.turns) - 1)

    def to_dict(self, *, full: bool = False) -> dict[str, Any]:
        """A JSON-ready summary; ``full`` adds prompts, replies and programs."""
        data: dict[str, Any] = {
            "index": self.index,
            "status": self.status,
            "env_id": self.env_id,
            "reason": self.reason,
            "skill": self.skill,
            "kind": self.kind,
            "difficulty": self.difficulty,
            "document_id": self.document_id,
            "corpus": self.corpus,
            "repairs": self.repairs,
            "novelty": self.novelty,
            "hint_source": self.hint_source,
            "seconds": round(self.seconds, 3),
            "resumed": self.resumed,
            "turns": [
                {
                    "log_id": t.log_id,
                    "purpose": t.purpose,
                    "ok": t.report.ok if t.report else None,
                    "failed": [c.name for c in t.report.failures] if t.report else [],
                    "llm_seconds": round(t.llm_seconds, 3),
                    "validate_seconds": round(t.validate_seconds, 3),
                    "from_log": t.from_log,
                }
                for t in self.turns
            ],
        }
        if full:
            data["hint"] = self.hint
            for summary, turn in zip(data["turns"], self.turns, strict=True):
                summary.update(
                    messages=turn.messages,
                    reply=turn.reply,
                    program=turn.program,
                    report=turn.report.to_dict() if turn.report else None,
                )
        return data


@dataclass
class GenerationReport:
    """The outcome of one ``generate`` run.

    Attributes:
        candidates: every candidate, in index order.
        model: the designer backend's name.
        log_path: the JSONL log holding every reply.
        seconds: wall time of the run.
        interrupted: the run was stopped (Ctrl-C) before every candidate finished.
        stopped: why the run stopped early on its own (the model could not be reached), if
            it did.
    """

    candidates: list[Candidate]
    model: str
    log_path: str
    seconds: float = 0.0
    interrupted: bool = False
    stopped: str | None = None

    @property
    def accepted(self) -> list[Candidate]:
        """The candidates that were registered."""
        return [c for c in self.candidates if c.status == "accepted"]

    @property
    def env_ids(self) -> list[str]:
        """The registered ids, in index order."""
        return [c.env_id for c in self.accepted if c.env_id]

    @property
    def counts(self) -> dict[str, int]:
        """Candidates per status (every status present, zeros included)."""
        seen = Counter(c.status for c in self.candidates)
        return {status: seen.get(status, 0) for status in STATUSES}

    @property
    def timings(self) -> dict[str, float]:
        """Seconds spent: the run, waiting for the model, validating; and per candidate."""
        turns = [t for c in self.candidates for t in c.turns]
        done = [c for c in self.candidates if not c.resumed and c.status != "interrupted"]
        return {
            "seconds": round(self.seconds, 3),
            "llm_seconds": round(sum(t.llm_seconds for t in turns), 3),
            "validate_seconds": round(sum(t.validate_seconds for t in turns), 3),
            "seconds_per_candidate": round(self.seconds / len(done), 3) if done else 0.0,
        }

    def to_dict(self, *, full: bool = False) -> dict[str, Any]:
        """A JSON-ready summary of the run; ``full`` adds every prompt and reply."""
        return {
            "model": self.model,
            "log_path": self.log_path,
            "counts": self.counts,
            "timings": self.timings,
            "interrupted": self.interrupted,
            "stopped": self.stopped,
            "env_ids": self.env_ids,
            "candidates": [c.to_dict(full=full) for c in self.candidates],
        }

    def table(self, width: int = 100) -> str:
        """A readable closing table: what was registered, and why the others were not.

        ``asked`` is the skill the designer was asked for, ``program`` the skill the program
        declares (``-`` when it declares none or there is no program); a reason too long for
        its line goes on, indented, on the next ones.
        """
        lines = [
            f"{'#':>4}  {'status':<11} {'asked skill':<23} {'program skill':<23} {'rep':>3}  "
            "id / reason"
        ]
        first = 4 + 2 + 12 + 24 + 24 + 3 + 2
        for c in self.candidates:
            what = (c.env_id if c.status == "accepted" else c.reason) or "-"
            own = (c.report.properties.skill if c.report is not None else None) or "-"
            head = (
                f"{c.index:>4}  {c.status:<11} {c.skill[:23]:<23} {str(own)[:23]:<23} "
                f"{c.repairs:>3}  "
            )
            # Paths stay intact.
            whole: dict[str, Any] = {"break_long_words": False, "break_on_hyphens": False}
            text = " ".join(what.split())
            wrapped = textwrap.wrap(text, width=max(20, width - first), **whole) or ["-"]
            lines.append(head + wrapped[0])
            lines += textwrap.wrap(
                " ".join(wrapped[1:]),
                width=width,
                initial_indent=" " * 6,
                subsequent_indent=" " * 6,
                **whole,
            )
        counts = ", ".join(f"{n} {s}" for s, n in self.counts.items() if n)
        lines.append(f"\n{counts or 'no candidates'} in {self.seconds:.1f} s; log: {self.log_path}")
        if self.stopped:
            lines.append(f"stopped early: {self.stopped}")
        return "\n".join(lines)
