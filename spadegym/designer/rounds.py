"""A design round: a batch of slots prompted together, validated together, committed in order.

This is ``generate``'s pipeline as a trainer runs it (SPADE's designer side): the trainer
samples the replies itself (it needs their tokens for the update), and a slot that failed is
written again from a fresh document in the next attempt instead of repaired. The steps:

1. ``prompt_round``: for each group of slots sharing a prompt, draw a document and a
   difficulty, the memory's examples (``draw_context``, programs read through the registry)
   and build the design prompt (``design_messages``, or ``short_design_messages``).
2. The trainer samples replies; ``round_candidates`` makes them ``Candidate``s, and
   ``scripted_candidates`` adds recorded replies as extra slots of their own (never retried).
3. ``find_copies`` refuses replies whose program the memory holds, before validation;
   ``validate_round`` validates the rest in one batch and keeps, per valid program, the
   sandbox worker that computed its behavioural signature. It writes nothing, so it may run
   on a background thread.
4. ``commit_round``, on the caller's thread: each valid candidate goes through ``commit``
   (the registry's duplicate check and ``Registry.admit``), judged in its kept worker.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from spadegym.corpus import Corpus
from spadegym.designer.candidates import Candidate, DesignTurn, Tokens
from spadegym.designer.commit import commit, extracted, failure, source_of
from spadegym.designer.prompt_examples import draw_context
from spadegym.designer.prompts import design_messages
from spadegym.designer.short_prompt import short_design_messages
from spadegym.designer.slots import Slot, pick_difficulty
from spadegym.errors import ProgramError
from spadegym.llm.base import Message
from spadegym.validation import ValidationReport, Validator

if TYPE_CHECKING:
    from spadegym.memory.interface import MemoryLike
    from spadegym.registry.interface import RegistryLike
    from spadegym.sandbox.pool import Worker

__all__ = [
    "Prompt",
    "Validated",
    "commit_round",
    "find_copies",
    "prompt_round",
    "round_candidates",
    "scripted_candidates",
    "validate_round",
]


@dataclass(frozen=True)
class Prompt:
    """One design prompt of a round and the slots that share it.

    Attributes:
        slots: the slots it is sampled for (one document and difficulty for all).
        messages: the request.
        shown: the memory examples it shows (``DesignContext.shown``).
    """

    slots: list[Slot]
    messages: list[Message]
    shown: dict[str, Any] = field(default_factory=dict)


def prompt_round(
    requests: Sequence[tuple[int, str]],
    share: int,
    corpus: Corpus,
    rng: random.Random,
    difficulty: int | list[int] | str,
    *,
    memory: MemoryLike | None,
    registry: RegistryLike,
    short: bool = False,
    examples: int = 2,
    pool: int = 10,
    band: tuple[float, float] = (0.15, 0.85),
) -> list[Prompt]:
    """The design prompts of one attempt of a round.

    Args:
        requests: ``(slot index, skill)`` to write (``round_requests``, ``retry_requests``).
        share: consecutive requests sharing one prompt (replies sampled per prompt); a
            group's skill is its first request's.
        corpus: the grounding documents, one drawn per prompt from ``rng``.
        rng: the round's generator (documents, difficulties, examples, in that order).
        difficulty: ``pick_difficulty``'s choice.
        memory: the examples' source (``None``: no examples).
        registry: where the examples' programs are read.
        short: send ``short_design_messages`` (no examples) instead of the full prompt.
        examples: examples shown with their code.
        pool: the best environments the examples are drawn from.
        band: the examples' win-rate band.
    """
    prompts = []
    for k in range(0, len(requests), share):
        group = requests[k : k + share]
        skill = group[0][1]
        document = corpus.sample(rng)
        level = pick_difficulty(difficulty, rng, group[0][0])
        # A round asks for puzzles: the kind ``design_messages`` asks for unless told.
        slots = [Slot(index, skill, "puzzle", level, document) for index, _ in group]
        if short:
            prompts.append(Prompt(slots, short_design_messages(skill, document.text)))
            continue
        context = draw_context(
            memory,
            skill,
            document.text,
            rng,
            lambda env_id: source_of(registry, env_id),
            examples=examples,
            pool=pool,
            band=band,
        )
        messages = design_messages(
            skill,
            level,
            document.text,
            examples=context.examples,
            negative=context.negative,
            nearby=context.nearby,
        )
        prompts.append(Prompt(slots, messages, context.shown))
    return prompts


def _candidate(
    slot: Slot,
    prompt: Prompt,
    reply: str,
    corpus: str,
    attempt: int,
    tokens: Tokens | None,
    scripted: bool = False,
) -> Candidate:
    turn = DesignTurn("design", f"c{slot.index:04d}-a{attempt}", prompt.messages, reply)
    return Candidate(
        slot.index,
        slot.skill,
        slot.kind,
        slot.difficulty,
        slot.document.id,
        corpus,
        turns=[turn],
        attempt=attempt,
        scripted=scripted,
        shown=prompt.shown,
        tokens=tokens,
    )


def round_candidates(
    prompts: Sequence[Prompt],
    replies: Sequence[str],
    tokens: Sequence[Tokens | None],
    attempt: int,
    corpus: str,
) -> list[Candidate]:
    """The candidates of one attempt: a reply (and its tokens) per slot, in prompt order."""
    slots = [(slot, prompt) for prompt in prompts for slot in prompt.slots]
    return [
        _candidate(slot, prompt, reply, corpus, attempt, sampled)
        for (slot, prompt), reply, sampled in zip(slots, replies, tokens, strict=True)
    ]


def scripted_candidates(
    prompts: Sequence[Prompt],
    recorded: Sequence[str],
    count: int,
    block: int,
    first: int,
    corpus: str,
) -> list[Candidate]:
    """``count`` recorded replies as extra slots (``first``, ``first + 1``, ...) of a round.

    Taken in turn, ``count`` per round (``block``: the round's number); each borrows the
    skill, difficulty and document of the round's slots in turn. They have no tokens: the
    model never sampled them, so they are never trained on.
    """
    slots = [(slot, prompt) for prompt in prompts for slot in prompt.slots]
    if not recorded or not slots:
        return []
    found = []
    for j in range(count):
        text = recorded[(block * count + j) % len(recorded)]
        slot, prompt = slots[j % len(slots)]
        own = Slot(first + j, slot.skill, slot.kind, slot.difficulty, slot.document)
        found.append(_candidate(own, prompt, text, corpus, 1, None, scripted=True))
    return found


def find_copies(candidates: Sequence[Candidate], memory: MemoryLike | None) -> dict[int, str]:
    """Candidates whose program the memory already holds (same normalised code): index -> id.

    They are refused before they cost a validation; near copies are judged at commit. Reads
    the memory, so it runs on the caller's thread.
    """
    copies: dict[int, str] = {}
    if memory is not None:
        for index, candidate in enumerate(candidates):
            code = extracted(candidate.reply)
            try:
                copy = memory.find_copy(code) if code is not None else None
            except ProgramError:  # does not parse: validation refuses it, with the reason
                copy = None
            if copy is not None:
                copies[index] = copy
    return copies


@dataclass
class Validated:
    """The reports of a round's candidates, and the sandboxes kept for their novelty check.

    Attributes:
        reports: one ``ValidationReport`` per candidate (``None`` for the copies).
        copies: candidate index -> the stored id its program copies (``find_copies``).
        sandboxes: candidate index -> a worker that has the valid program loaded and its
            behavioural signature computed, kept for ``commit_round`` (which kills it).
    """

    reports: list[ValidationReport | None]
    copies: dict[int, str] = field(default_factory=dict)
    sandboxes: dict[int, Worker] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        """Time validating, every report together."""
        return sum(r.seconds for r in self.reports if r is not None)

    def discard(self) -> None:
        """Kill the sandboxes no commit took."""
        for worker in self.sandboxes.values():
            worker.kill()
        self.sandboxes.clear()


def validate_round(
    validator: Validator,
    candidates: Sequence[Candidate],
    copies: dict[int, str],
    memory: MemoryLike | None = None,
) -> Validated:
    """Validate the candidates that are not copies, in one batch.

    With a memory that compares behaviour, each valid program is loaded in a worker of its
    own, which computes its behavioural signature and is kept for ``commit_round``, so that
    judging its novelty there only replays its neighbours' play. Writes neither the memory,
    the registry nor the candidates, so it may run on a background thread.
    """
    to_validate = [k for k in range(len(candidates)) if k not in copies]
    validated = validator.validate_many([candidates[k].reply for k in to_validate])
    result = Validated([None] * len(candidates), dict(copies))
    for k, report in zip(to_validate, validated, strict=True):
        result.reports[k] = report
        program = report.program if report.ok else None
        if memory is not None and program is not None and memory.dedup.behaviour:
            worker = validator.supply.take()
            memory.signature_of(program, worker)  # kept by the memory for add
            result.sandboxes[k] = worker
    return result


def commit_round(
    candidates: Sequence[Candidate],
    validated: Validated,
    registry: RegistryLike,
    memory: MemoryLike | None,
    registered: set[str],
    provenance: dict[str, Any],
) -> list[tuple[Candidate, ValidationReport]]:
    """Write each candidate's verdict and register the valid, new ones, in order.

    Each valid candidate is judged in its kept sandbox worker (else a fresh one), and judged
    after the ones before it, so the second of two copies in one round is caught too. Every
    sandbox is killed before this returns.

    Args:
        candidates: the round's candidates, as validated.
        validated: ``validate_round``'s answer for them.
        registry: where accepted programs go.
        memory: the novelty judge (``None``: exact copies only).
        registered: ids this run registered so far (grows).
        provenance: recorded with each, beside its skill, slot, attempt and ``scripted``.

    Returns:
        ``(candidate, report)`` for each accepted candidate, in order.
    """
    accepted = []
    try:
        for k, (cand, report) in enumerate(zip(candidates, validated.reports, strict=True)):
            if k in validated.copies:
                cand.status = "duplicate"
                cand.reason = f"exact copy of {validated.copies[k]} (same normalised code)"
                continue
            assert report is not None, "every candidate but the copies has a report"
            turn = cand.turns[-1]
            turn.report, turn.program = report, report.program
            if not report.ok:
                cand.status, cand.reason = "rejected", failure(report)
                continue
            sandbox = validated.sandboxes.pop(k, None)
            try:
                commit(
                    cand,
                    report,
                    {
                        **provenance,
                        "skill": cand.skill,
                        "scripted": cand.scripted,
                        "candidate": cand.index,
                        "attempt": cand.attempt,
                    },
                    registry,
                    memory,
                    registered,
                    sandbox=sandbox,
                    skill=cand.skill,
                )
            finally:
                if sandbox is not None:
                    sandbox.kill()
            if cand.accepted:
                accepted.append((cand, report))
    finally:
        validated.discard()
    return accepted
