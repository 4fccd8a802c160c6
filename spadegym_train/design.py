"""The designer's half of an iteration: slots, attempts, validation, the new pool.

A regeneration has ``docs_per_regen * candidates_per_doc`` designer slots. The first attempt
samples ``candidates_per_doc`` replies to each of ``docs_per_regen`` design prompts; a slot
whose program is invalid or repeats a stored one is written again from a fresh document, up to
``design_attempts`` attempts in all, before it stays empty (SPADE). Every attempt is a designer
sample: it is trained at the window's end on its reward (``invalid_reward`` when it failed).

Prompts are the designer's own (``spadegym.designer.prompts.design_messages``, with
``spadegym.designer.context.draw_context``'s examples: two of the best environments of the
skill with their code, a negative, the document's neighbours), exactly those of
``spadegym generate``. Candidates are validated by a ``Validator``; accepted ones are
registered in the run's registry and stored in its memory. Recorded replies (the scripted
designer) join the first attempt as extra slots of their own, never retried; they enter the
pool as environments but are never trained on (the model did not write them).
"""

from __future__ import annotations

import contextlib
import glob
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym import contract
from spadegym.designer.context import draw_context
from spadegym.designer.prompts import design_messages
from spadegym.errors import ConfigError, ProgramError
from spadegym.extract import extract_program
from spadegym.validation import CheckResult, ValidationReport, Validator
from spadegym_train.design_prompts import short_design_messages
from spadegym_train.engines.base import encode_chat
from spadegym_train.library import PoolEnv, register

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike
    from spadegym_train.config import TrainConfig


@dataclass
class Candidate:
    """One designer reply and what became of it.

    Attributes:
        skill: the skill its prompt asked for (designer advantages are centred per skill).
        prompt_ids: the prompt's tokens.
        response_ids: the reply's tokens (none for a recorded reply: never trained on).
        text: the reply.
        slot: the designer slot it fills (attempts of one slot share it).
        attempt: 1 for the first attempt, 2 and 3 for retries.
        difficulty: the difficulty its prompt asked for.
        shown: the memory examples its prompt showed (``DesignContext.shown``).
        scripted: whether it is a recorded reply.
        valid: whether it passed validation and was new.
        feedback: the first failure, for logs.
        env_key: its id in the run's registry once accepted.
        old_logprobs: the learner's log-probs at generation time (designer samples train at
            the window's end).
        engine_logprobs: the generation engine's log-probs of the reply.
        plain: win rates of its plain plays in the window (two-player results mapped).
        hint: win rates of its hint plays whose hint survived the checks.
        matched: win rates of the plain plays of the same iterations and seeds as ``hint``, in
            the same order (regret compares these two, so a solver that improves over the
            window does not lower it).
        failed: whether it failed in play (step error, timeout, or quarantine by the
            sandbox's watchdog).
        floor: its chance floor from validation (``None``: not measured, or two players).
    """

    skill: str
    prompt_ids: list[int]
    response_ids: list[int]
    text: str
    slot: int = 0
    attempt: int = 1
    difficulty: int = 3
    shown: dict[str, Any] = field(default_factory=dict)
    scripted: bool = False
    valid: bool = False
    feedback: str = ""
    env_key: str | None = None
    old_logprobs: list[float] | None = None
    engine_logprobs: list[float] | None = None
    plain: list[float] = field(default_factory=list)
    hint: list[float] = field(default_factory=list)
    matched: list[float] = field(default_factory=list)
    failed: bool = False
    floor: float | None = None


@dataclass(frozen=True)
class Slot:
    """A designer slot to (re)write: its index and skill."""

    index: int
    skill: str


def pick_skills(skills: list[str], count: int, regeneration: int) -> list[str]:
    """``count`` skills, rotating through ``skills`` one block per regeneration (as SPADE)."""
    start = regeneration * count
    return [skills[(start + k) % len(skills)] for k in range(count)]


def designer_difficulty(config: TrainConfig, rng: random.Random, slot: int) -> int:
    """The difficulty a design prompt asks for (``TrainConfig.design.difficulty``)."""
    choice = config.design.difficulty
    if choice == "random":
        return rng.randint(contract.MIN_DIFFICULTY, contract.MAX_DIFFICULTY)
    if isinstance(choice, list):
        return choice[slot % len(choice)]
    return int(choice)


def recorded_replies(pattern: str | list[str] | None) -> list[str]:
    """The recorded designer replies a glob (or a list of globs) names, sorted by path.

    Raises:
        ConfigError: a glob names no file.
    """
    if not pattern:
        return []
    paths: list[str] = []
    for one in [pattern] if isinstance(pattern, str) else pattern:
        found = sorted(glob.glob(one))
        if not found:
            raise ConfigError(
                f"design.scripted={one!r} names no file (relative globs are "
                "read from the current folder); give a glob of recorded replies, "
                "or design.scripted=null to run without."
            )
        paths += found
    return [Path(p).read_text(encoding="utf-8") for p in paths]


def first_slots(config: TrainConfig, regeneration: int) -> list[Slot]:
    """The model's slots of a regeneration: prompt ``k``'s samples share its skill."""
    skills = pick_skills(config.design.skills, config.design.skills_per_regen, regeneration)
    return [
        Slot(k * config.design.candidates_per_doc + j, skills[k % len(skills)])
        for k in range(config.design.docs_per_regen)
        for j in range(config.design.candidates_per_doc)
    ]


def _source_of(registry_root: Path, env_id: str) -> str | None:
    program = registry_root / env_id / "env.py"
    return program.read_text(encoding="utf-8") if program.is_file() else None


def write_candidates(
    config: TrainConfig,
    engine: Any,
    tokenizer: Any,
    corpus: Any,
    memory: MemoryLike | None,
    rng: random.Random,
    slots: list[Slot],
    attempt: int,
    registry_root: Path,
    recorded: list[str] = (),  # type: ignore[assignment]
    regeneration: int = 0,
) -> list[Candidate]:
    """Write one attempt of ``slots``: a design prompt per document, then sample replies.

    The first attempt gives each of ``docs_per_regen`` prompts ``candidates_per_doc`` slots
    (consecutive slot indices); a retry gives each slot a prompt of its own on a fresh
    document. Recorded replies are appended as extra slots (first attempt only), taken in
    turn: ``scripted_per_regen`` of them per regeneration.
    """
    share = config.design.candidates_per_doc if attempt == 1 else 1
    groups = [slots[k : k + share] for k in range(0, len(slots), share)]
    prompts = []
    for group in groups:
        skill = group[0].skill
        document = corpus.sample(rng).text
        difficulty = designer_difficulty(config, rng, group[0].index)
        if config.design.prompt == "short":
            ids = encode_chat(
                tokenizer,
                short_design_messages(skill, document),
                config.generation.max_prompt_tokens,
                config.model.chat_template_kwargs,
            )
            prompts += [(slot, ids, difficulty, {}) for slot in group]
            continue
        context = draw_context(
            memory,
            skill,
            document,
            rng,
            lambda env_id: _source_of(registry_root, env_id),
            examples=config.design.examples,
            pool=config.design.example_pool,
            band=(config.design.example_band[0], config.design.example_band[1]),
        )
        messages = design_messages(
            skill,
            difficulty,
            document,
            examples=context.examples,
            negative=context.negative,
            nearby=context.nearby,
        )
        ids = encode_chat(
            tokenizer,
            messages,
            config.generation.max_prompt_tokens,
            config.model.chat_template_kwargs,
        )
        prompts += [(slot, ids, difficulty, context.shown) for slot in group]
    candidates: list[Candidate] = []
    if prompts:
        replies = engine.generate(
            [ids for _, ids, _, _ in prompts], "designer", config.generation.designer_max_new_tokens
        )
        for (slot, _, difficulty, shown), reply in zip(prompts, replies, strict=True):
            candidates.append(
                Candidate(
                    slot.skill,
                    reply.prompt_ids,
                    reply.response_ids,
                    reply.text,
                    slot=slot.index,
                    attempt=attempt,
                    difficulty=difficulty,
                    shown=shown,
                    engine_logprobs=reply.logprobs,
                )
            )
    if recorded and attempt == 1 and prompts:
        extra = len(slots)
        for j in range(config.design.scripted_per_regen):
            text = recorded[(regeneration * config.design.scripted_per_regen + j) % len(recorded)]
            slot, ids, difficulty, shown = prompts[j % len(prompts)]
            # No tokens: the model never sampled this text, so it is never a designer sample.
            candidates.append(
                Candidate(
                    slot.skill,
                    ids,
                    [],
                    text,
                    slot=extra + j,
                    difficulty=difficulty,
                    shown=shown,
                    scripted=True,
                )
            )
    return candidates


def retry_slots(candidates: list[Candidate], attempts: int) -> list[Slot]:
    """Slots whose latest attempt failed and that have attempts left (recorded ones aside)."""
    latest: dict[int, Candidate] = {}
    for candidate in candidates:
        latest[candidate.slot] = candidate
    return [
        Slot(c.slot, c.skill)
        for c in latest.values()
        if not c.valid and not c.scripted and c.attempt < attempts
    ]


def find_copies(candidates: list[Candidate], memory: MemoryLike | None) -> dict[int, str]:
    """Candidates whose program the memory already holds (same normalised code): index -> id.

    They are refused before they cost a validation; near copies are judged after validation,
    with the first observation. Reads the memory, so it runs on the loop's thread.
    """
    copies: dict[int, str] = {}
    if memory is not None:
        for index, candidate in enumerate(candidates):
            code = extract_program(candidate.text).code
            try:
                copy = memory.find_copy(code) if code is not None else None
            except ProgramError:  # does not parse: validation refuses it, with the reason
                copy = None
            if copy is not None:
                copies[index] = copy
    return copies


@dataclass
class Validated:
    """The reports of a batch of candidates, and the sandboxes kept for their novelty check.

    Attributes:
        reports: one ``ValidationReport`` per candidate (copies get a failed ``novelty``).
        sandboxes: candidate index -> a worker that has the valid program loaded and its
            behavioural signature computed, kept for ``commit``'s cross-play (which kills it).
    """

    reports: list[Any]
    sandboxes: dict[int, Any] = field(default_factory=dict)

    def discard(self) -> None:
        """Kill the sandboxes no commit took."""
        for worker in self.sandboxes.values():
            worker.kill()
        self.sandboxes.clear()


def validate_candidates(
    validator: Validator,
    candidates: list[Candidate],
    copies: dict[int, str],
    memory: MemoryLike | None = None,
) -> Validated:
    """Validate the candidates (the copies get a failed ``novelty`` check).

    With a memory, each valid program is loaded in a worker of its own, which computes its
    behavioural signature and is kept for ``commit``, so that judging its novelty there only
    replays its neighbours' play. Writes neither the memory nor the registry, so it may run on
    a background thread.
    """
    to_validate = [k for k in range(len(candidates)) if k not in copies]
    validated = validator.validate_many([candidates[k].text for k in to_validate])
    result = Validated([None] * len(candidates))
    for k, report in zip(to_validate, validated, strict=True):
        result.reports[k] = report
        if memory is not None and report.ok and memory.dedup.behaviour:
            worker = validator.supply.take()
            memory.signature_of(report.program, worker)  # kept by the memory for add
            result.sandboxes[k] = worker
    for k, copy in copies.items():
        result.reports[k] = ValidationReport(
            ok=False,
            checks=[CheckResult("novelty", False, f"exact copy of {copy} (same normalised code)")],
        )
    return result


def commit(
    candidates: list[Candidate],
    validated: Validated,
    memory: MemoryLike | None,
    registry_root: Path,
    iteration: int,
) -> tuple[list[tuple[Candidate, Any]], dict[str, float]]:
    """Judge novelty and register the valid, new candidates, in order (on the loop's thread).

    Each valid candidate is judged in a sandbox worker of its own (``validated.sandboxes``,
    else a fresh one), where the memory replays its neighbours' recorded solutions
    (cross-play). Every sandbox is killed before this returns.

    Returns:
        ``(candidate, report)`` for each accepted candidate, and ``validate/`` metrics.
    """
    accepted = []
    failures: dict[str, int] = {}
    reports = validated.reports
    try:
        for k, (candidate, report) in enumerate(zip(candidates, reports, strict=True)):
            if report.ok:
                with _sandbox(memory, validated.sandboxes.pop(k, None)) as sandbox:
                    accepted += _admit(candidate, report, memory, sandbox, registry_root, iteration)
            if not report.ok:
                first = report.failures[0] if report.failures else None
                candidate.feedback = candidate.feedback or (
                    f"{first.name}: {first.message}" if first else "not run"
                )
                name = candidate.feedback.split(":", 1)[0]
                failures[name] = failures.get(name, 0) + 1
    finally:
        validated.discard()
    total = max(1, len(candidates))
    metrics = {
        "validate/candidates": float(len(candidates)),
        "validate/accepted": float(len(accepted)),
        "validate/accept_rate": len(accepted) / total,
        "validate/seconds": sum(r.seconds for r in reports),
    }
    for name, count in sorted(failures.items()):
        metrics[f"validate/fail_{name}"] = float(count)
    return accepted, metrics


@contextlib.contextmanager
def _sandbox(memory: MemoryLike | None, kept: Any) -> Iterator[Any]:
    """The worker for one candidate's cross-play: the one kept, else a fresh one; killed after."""
    if memory is None:
        yield None
    elif kept is None:
        with memory.sandbox() as worker:
            yield worker
    else:
        try:
            yield kept
        finally:
            kept.kill()


def _admit(
    candidate: Candidate,
    report: Any,
    memory: MemoryLike | None,
    sandbox: Any,
    registry_root: Path,
    iteration: int,
) -> list[tuple[Candidate, Any]]:
    """Judge a valid candidate's novelty (with cross-play) and register it when new."""
    first = report.properties.first_observation
    novelty = None
    if memory is not None:
        # Judged after each add, so the second of two copies in one batch is caught too.
        novelty = memory.check_novelty(report.program, first_observation=first, sandbox=sandbox)
        if not novelty.novel:
            report.ok = False
            candidate.feedback = f"novelty: {novelty.reason}"
            return []
    provenance = {
        "iteration": iteration,
        "skill": candidate.skill,
        "scripted": candidate.scripted,
        "candidate": candidate.slot,
        "attempt": candidate.attempt,
    }
    candidate.env_key = register(registry_root, report.program, report, provenance)
    candidate.valid = True
    candidate.floor = report_floor(report)
    if memory is not None:
        memory.add(
            candidate.env_key,
            report.program,
            first_observation=first,
            skill=candidate.skill,
            sandbox=sandbox,
            embedding=novelty.embedding if novelty is not None else None,  # embedded once
        )
    return [(candidate, report)]


def report_floor(report: Any) -> float | None:
    """The chance floor a validation report measured (``None``: not measured, two players)."""
    properties = getattr(report, "properties", None)
    value = getattr(properties, "floor", None)
    if (getattr(properties, "num_players", None) or 1) != 1 or value is None:
        return None
    return float(value)


def pool_entry(candidate: Candidate, report: Any, index: int) -> PoolEnv:
    """The pool's view of an accepted candidate (``index``: its place in the window)."""
    properties = report.properties
    return PoolEnv(
        candidate.env_key or "",
        report.program,
        candidate.skill,
        properties.num_players or 1,
        properties.max_turns,
        has_hint=properties.hint is not None,
        candidate=index,
        floor=report_floor(report),
    )
