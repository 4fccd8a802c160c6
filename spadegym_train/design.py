"""The trainer's side of a design round: the sampled replies, the window's plays, the pool.

A regeneration has ``design.docs_per_regen * design.candidates_per_doc`` designer slots. The
first attempt samples ``candidates_per_doc`` replies to each of ``docs_per_regen`` design
prompts; a slot whose program is invalid or repeats a stored one is written again from a fresh
document, up to ``design.attempts`` attempts in all, before it stays empty (SPADE). Every
attempt is a designer sample: it is trained at the window's end on its reward
(``rewards.invalid_reward`` when it failed).

The pipeline is the library's (``spadegym.designer.rounds``, with ``spadegym.designer.slots``
for the plan): the prompts are exactly those of ``spadegym generate``, the candidates are
``spadegym.designer.Candidate``s, and validation and commit are its steps. This module holds
what only a trainer has: the engine that samples the replies (their tokens are the designer's
samples), the recorded replies a run reads (the scripted designer: they join the first
attempt as extra slots, enter the pool, and are never trained on), each candidate's plays over
the window (``Plays``, for its reward), the ``validate/`` metrics and the pool entries.
"""

from __future__ import annotations

import glob
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadegym.designer.candidates import Candidate, Tokens
from spadegym.designer.commit import report_floor
from spadegym.designer.rounds import (
    Validated,
    prompt_round,
    round_candidates,
    scripted_candidates,
)
from spadegym.designer.slots import round_requests
from spadegym.errors import ConfigError
from spadegym.llm.tokens import encode_chat
from spadegym.validation import ValidationReport
from spadegym_train.library import PoolEnv

if TYPE_CHECKING:
    from spadegym.corpus import Corpus
    from spadegym.memory.interface import MemoryLike
    from spadegym.registry.interface import RegistryLike
    from spadegym_train.config import TrainConfig


@dataclass
class Plays:
    """What a candidate's program did in play over the window: its designer reward's input.

    Attributes:
        plain: win rates of its plain plays (two-player results mapped).
        hint: win rates of its hint plays whose hint survived the checks.
        matched: win rates of the plain plays of the same iterations and seeds as ``hint``, in
            the same order (regret compares these two, so a solver that improves over the
            window does not lower it).
        failed: whether it failed in play (step error, timeout, or quarantine by the
            sandbox's watchdog).
    """

    plain: list[float] = field(default_factory=list)
    hint: list[float] = field(default_factory=list)
    matched: list[float] = field(default_factory=list)
    failed: bool = False


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


def first_requests(config: TrainConfig, regeneration: int) -> list[tuple[int, str]]:
    """The model's slots of a regeneration's first attempt (``round_requests``)."""
    return round_requests(
        config.design.skills,
        config.design.skills_per_regen,
        config.design.docs_per_regen,
        config.design.candidates_per_doc,
        regeneration,
    )


def write_candidates(
    config: TrainConfig,
    engine: Any,
    tokenizer: Any,
    corpus: Corpus,
    memory: MemoryLike | None,
    registry: RegistryLike,
    rng: random.Random,
    requests: Sequence[tuple[int, str]],
    attempt: int,
    recorded: Sequence[str] = (),
    regeneration: int = 0,
) -> list[Candidate]:
    """Write one attempt of ``requests``: the round's prompts, then the engine's replies.

    The first attempt gives each of ``docs_per_regen`` prompts ``candidates_per_doc`` slots
    (consecutive slot indices); a retry gives each slot a prompt of its own on a fresh
    document. Recorded replies are appended as extra slots (first attempt only), taken in
    turn: ``scripted_per_regen`` of them per regeneration.
    """
    prompts = prompt_round(
        requests,
        config.design.candidates_per_doc if attempt == 1 else 1,
        corpus,
        rng,
        config.design.difficulty,
        memory=memory,
        registry=registry,
        short=config.design.prompt == "short",
        examples=config.design.examples,
        pool=config.design.example_pool,
        band=(config.design.example_band[0], config.design.example_band[1]),
    )
    if not prompts:
        return []
    encoded = [
        encode_chat(
            tokenizer,
            p.messages,
            config.generation.max_prompt_tokens,
            config.model.chat_template_kwargs,
        )
        for p in prompts
    ]
    per_slot = [ids for prompt, ids in zip(prompts, encoded, strict=True) for _ in prompt.slots]
    replies = engine.generate(per_slot, "designer", config.generation.designer_max_new_tokens)
    tokens = [Tokens(r.prompt_ids, r.response_ids, engine_logprobs=r.logprobs) for r in replies]
    texts = [r.text for r in replies]
    candidates = round_candidates(prompts, texts, tokens, attempt, corpus.name)
    if recorded and attempt == 1:
        candidates += scripted_candidates(
            prompts,
            recorded,
            config.design.scripted_per_regen,
            regeneration,
            len(requests),
            corpus.name,
        )
    return candidates


def round_metrics(candidates: Sequence[Candidate], validated: Validated) -> dict[str, float]:
    """``validate/`` metrics of committed candidates: counts, time, and why the others failed.

    A failure counts under its first failed check's name (``not run`` when none ran), a
    duplicate under ``novelty``.
    """
    failures: dict[str, int] = {}
    for cand in candidates:
        if cand.accepted:
            continue
        report = cand.report
        if cand.status == "duplicate" or report is None:
            name = "novelty"
        else:
            name = report.failures[0].name if report.failures else "not run"
        failures[name] = failures.get(name, 0) + 1
    accepted = sum(c.accepted for c in candidates)
    metrics = {
        "validate/candidates": float(len(candidates)),
        "validate/accepted": float(accepted),
        "validate/accept_rate": accepted / max(1, len(candidates)),
        "validate/seconds": validated.seconds,
    }
    for name, count in sorted(failures.items()):
        metrics[f"validate/fail_{name}"] = float(count)
    return metrics


def pool_entry(candidate: Candidate, report: ValidationReport, index: int) -> PoolEnv:
    """The pool's view of an accepted candidate (``index``: its place in the window).

    Its key is the registry folder's name (``Name-vN``), as for the library's environments;
    the memory knows it by its registry id (``candidate.env_id``).
    """
    properties = report.properties
    return PoolEnv(
        (candidate.env_id or "").rsplit("/", 1)[-1],
        report.program or "",
        candidate.skill,
        properties.num_players or 1,
        properties.max_turns or 1,
        has_hint=properties.hint is not None,
        candidate=index,
        floor=report_floor(report),
    )
