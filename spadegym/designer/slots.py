"""Which candidates to write: slots, their skills, difficulties and attempts.

A slot is one candidate to write: its index, skill, kind, difficulty and grounding document.
``generate`` plans each slot from the run's seed and the slot's index alone (``plan_slot``), so
a run resumes. A trainer's round plans slots in blocks instead (``round_requests``): SPADE
rotates skills one block per round, and a slot whose attempt failed is written again
(``retry_requests``) from a fresh document, up to a number of attempts; the document and the
difficulty are drawn when the round's prompts are built (``spadegym.designer.rounds``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from spadegym import contract
from spadegym.corpus import Corpus, Document
from spadegym.designer.candidates import Candidate

__all__ = [
    "Slot",
    "pick_difficulty",
    "plan_slot",
    "retry_requests",
    "rotate_skills",
    "round_requests",
]


@dataclass(frozen=True)
class Slot:
    """The plan for one candidate: what to ask for, grounded in which document."""

    index: int
    skill: str
    kind: str
    difficulty: int
    document: Document


def plan_slot(
    index: int,
    seed: int,
    corpus: Corpus,
    skills: Sequence[str],
    kinds: Sequence[str],
    difficulties: Sequence[int],
) -> Slot:
    """The plan of slot ``index``: a function of the seed and the index alone.

    Skills rotate with the index (every skill gets its share, as in SPADE); the kind, the
    difficulty and the document are drawn from a generator seeded by ``(seed, index)``.
    """
    rng = random.Random(f"spadegym.generate:{seed}:{index}")
    return Slot(
        index,
        skills[index % len(skills)],
        rng.choice(list(kinds)),
        rng.choice(list(difficulties)),
        corpus.sample(rng),
    )


def rotate_skills(skills: Sequence[str], count: int, block: int) -> list[str]:
    """``count`` skills, rotating through ``skills`` one block per round (as SPADE)."""
    start = block * count
    return [skills[(start + k) % len(skills)] for k in range(count)]


def round_requests(
    skills: Sequence[str], skills_per_round: int, prompts: int, per_prompt: int, block: int
) -> list[tuple[int, str]]:
    """``(slot index, skill)`` of a round's first attempt: prompt ``k``'s samples share its skill.

    Args:
        skills: the skills to rotate through.
        skills_per_round: how many of them one round asks for.
        prompts: design prompts (documents) in the round.
        per_prompt: replies sampled from each prompt (consecutive slot indices).
        block: the round's number, which picks its skills.
    """
    chosen = rotate_skills(skills, skills_per_round, block)
    return [
        (k * per_prompt + j, chosen[k % len(chosen)])
        for k in range(prompts)
        for j in range(per_prompt)
    ]


def retry_requests(candidates: Sequence[Candidate], attempts: int) -> list[tuple[int, str]]:
    """``(slot index, skill)`` of the slots to write again.

    Those whose latest attempt failed and that have attempts left; recorded replies are never
    retried.
    """
    latest: dict[int, Candidate] = {}
    for candidate in candidates:
        latest[candidate.index] = candidate
    return [
        (c.index, c.skill)
        for c in latest.values()
        if not c.accepted and not c.scripted and c.attempt < attempts
    ]


def pick_difficulty(choice: int | list[int] | str, rng: random.Random, index: int) -> int:
    """The difficulty a design prompt asks for.

    Args:
        choice: one difficulty, a list taken in turn by slot index, or ``"random"`` (drawn
            from ``rng``).
        rng: the round's generator.
        index: the slot's index.
    """
    if choice == "random":
        return rng.randint(contract.MIN_DIFFICULTY, contract.MAX_DIFFICULTY)
    if isinstance(choice, list):
        return choice[index % len(choice)]
    return int(choice)
