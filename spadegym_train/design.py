"""The designer's half of an iteration: prompts, candidates, validation, hints, the new pool.

Prompts are ``spadegym.designer.prompts.design_messages`` (the prompts of ``spadegym
generate``), with memory context: two frontier environments, one too easy or too hard, and
the stored environments nearest the grounding document. Candidates are validated by
``spadegym.validate`` with the run's memory as the novelty check, and accepted ones are
registered in the run's registry and stored in its memory. Recorded replies (the scripted
designer) join the model's candidates as if the model had written them.
"""

from __future__ import annotations

import glob
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spadegym import contract
from spadegym.designer.prompts import Example, design_messages, hint_messages
from spadegym.errors import ConfigError
from spadegym.extract import extract_program
from spadegym.validation import CheckResult, ValidationConfig, ValidationReport, Validator
from spadegym_train.engines.base import encode_chat
from spadegym_train.library import register


@dataclass
class Candidate:
    """One designer reply and what became of it.

    Attributes:
        skill: the skill its prompt asked for (designer advantages are centred per skill).
        prompt_ids: the prompt's tokens.
        response_ids: the reply's tokens (a recorded reply is cut to the designer's budget).
        text: the reply.
        scripted: whether it is a recorded reply.
        valid: whether it passed validation and was new.
        feedback: the first failure, for logs.
        env_key: its id in the run's registry once accepted.
        old_logprobs: log-probs at generation time (designer samples train at the window's end).
        plain: outcomes of its plain plays in the window.
        hint: outcomes of its hint plays.
        failed: whether it failed in play (step error or timeout).
    """

    skill: str
    prompt_ids: list[int]
    response_ids: list[int]
    text: str
    scripted: bool = False
    valid: bool = False
    feedback: str = ""
    env_key: str | None = None
    old_logprobs: list[float] | None = None
    plain: list[float] = field(default_factory=list)
    hint: list[float] = field(default_factory=list)
    failed: bool = False


@dataclass
class PoolEnv:
    """An environment in the current pool.

    Attributes:
        key: its id (registry folder name).
        source: the program.
        skill: its skill tag.
        num_players: 1 or 2.
        max_turns: the program's limit.
        has_hint: whether the program defines ``hint()``.
        hint: a model-written hint when it does not (``None``: no hint plays, regret 0).
        candidate: index of the designer candidate that wrote it (spade mode).
    """

    key: str
    source: str
    skill: str
    num_players: int
    max_turns: int
    has_hint: bool = False
    hint: str | None = None
    candidate: int | None = None


def pick_skills(skills: list[str], count: int, regeneration: int) -> list[str]:
    """``count`` skills, rotating through ``skills`` one block per regeneration (as SPADE)."""
    start = regeneration * count
    return [skills[(start + k) % len(skills)] for k in range(count)]


def memory_context(
    memory: Any, skill: str, document: str
) -> tuple[list[Example], Example | None, list[Example]]:
    """Frontier examples, one negative, and nearby titles for a design prompt."""
    if memory is None or len(memory) == 0:
        return [], None, []
    examples = [
        Example(s.env_id, s.title, s.skill, s.win_rate, s.regret)
        for s in memory.frontier(k=2, skill=skill)
    ]
    negative = None
    for stats, why in (
        (memory.too_easy(k=1, skill=skill), "too easy"),
        (memory.too_hard(k=1, skill=skill), "too hard"),
    ):
        if stats and negative is None:
            s = stats[0]
            negative = Example(s.env_id, s.title, s.skill, s.win_rate, s.regret, why=why)
    nearby = [Example(n.env_id, n.title, n.skill) for n in memory.near(document, k=3)]
    return examples, negative, nearby


def recorded_replies(pattern: str | None) -> list[str]:
    """The recorded designer replies a glob names, sorted by path.

    Raises:
        ConfigError: the glob names no file.
    """
    if not pattern:
        return []
    paths = sorted(glob.glob(pattern))
    if not paths:
        raise ConfigError(
            f"scripted_designer={pattern!r} names no file (relative globs are "
            "read from the current folder); give a glob of recorded replies, "
            "or scripted_designer=null to run without."
        )
    return [Path(p).read_text(encoding="utf-8") for p in paths]


def write_candidates(
    config: Any,
    engine: Any,
    tokenizer: Any,
    corpus: Any,
    memory: Any,
    rng: random.Random,
    regeneration: int,
    recorded: list[str],
) -> list[Candidate]:
    """Build the design prompts and sample ``candidates_per_doc`` replies for each.

    Recorded replies (``scripted_per_regen`` of them, in turn) are attached to the prompts in
    order, as extra candidates of those prompts' skills.
    """
    skills = pick_skills(config.skills, config.skills_per_regen, regeneration)
    prompts: list[tuple[str, list[int]]] = []
    for k in range(config.docs_per_regen):
        skill = skills[k % len(skills)]
        document = corpus.sample(rng).text
        difficulty = rng.randint(contract.MIN_DIFFICULTY, contract.MAX_DIFFICULTY)
        examples, negative, nearby = memory_context(memory, skill, document)
        messages = design_messages(
            skill, difficulty, document, examples=examples, negative=negative, nearby=nearby
        )
        prompts.append(
            (
                skill,
                encode_chat(
                    tokenizer, messages, config.max_prompt_tokens, config.chat_template_kwargs
                ),
            )
        )
    candidates: list[Candidate] = []
    if config.candidates_per_doc > 0 and prompts:
        flat = [ids for _, ids in prompts for _ in range(config.candidates_per_doc)]
        replies = engine.generate(flat, "designer", config.designer_max_new_tokens)
        for k, reply in enumerate(replies):
            skill = prompts[k // config.candidates_per_doc][0]
            candidates.append(Candidate(skill, reply.prompt_ids, reply.response_ids, reply.text))
    if recorded and prompts:
        for j in range(config.scripted_per_regen):
            text = recorded[(regeneration * config.scripted_per_regen + j) % len(recorded)]
            skill, ids = prompts[j % len(prompts)]
            tokens = tokenizer(text, add_special_tokens=False)["input_ids"]
            tokens = (tokens + [tokenizer.eos_token_id])[: config.designer_max_new_tokens]
            candidates.append(Candidate(skill, ids, tokens, text, scripted=True))
    return candidates


def find_copies(candidates: list[Candidate], memory: Any) -> dict[int, str]:
    """Candidates whose program the memory already holds (same normalised code): index -> id.

    They are refused before they cost a validation; near copies are judged after validation,
    with the first observation. Reads the memory, so it runs on the loop's thread.
    """
    copies: dict[int, str] = {}
    if memory is not None:
        for index, candidate in enumerate(candidates):
            code = extract_program(candidate.text).code
            copy = memory.find_copy(code) if code is not None else None
            if copy is not None:
                copies[index] = copy
    return copies


def validation_config(config: Any) -> ValidationConfig:
    """How hard the run's validation looks."""
    return ValidationConfig(fuzz_examples=config.fuzz_examples)


def validate_candidates(
    validator: Validator, candidates: list[Candidate], copies: dict[int, str]
) -> list[Any]:
    """A validation report per candidate (the copies get a failed ``novelty`` check).

    Touches neither the memory nor the registry, so it may run on a background thread.
    """
    to_validate = [k for k in range(len(candidates)) if k not in copies]
    validated = validator.validate_many([candidates[k].text for k in to_validate])
    reports: list[Any] = [None] * len(candidates)
    for k, report in zip(to_validate, validated, strict=True):
        reports[k] = report
    for k, copy in copies.items():
        reports[k] = ValidationReport(
            ok=False,
            checks=[CheckResult("novelty", False, f"exact copy of {copy} (same normalised code)")],
        )
    return reports


def commit(
    config: Any,
    candidates: list[Candidate],
    reports: list[Any],
    memory: Any,
    registry_root: Path,
    iteration: int,
) -> tuple[list[tuple[Candidate, Any]], dict[str, float]]:
    """Judge novelty and register the valid, new candidates, in order (on the loop's thread).

    Returns:
        ``(candidate, report)`` for each accepted candidate, and ``validate/`` metrics.
    """
    accepted = []
    failures: dict[str, int] = {}
    for index, (candidate, report) in enumerate(zip(candidates, reports, strict=True)):
        if report.ok and memory is not None:
            # Checked after each add, so the second of two copies in one batch is caught too.
            novelty = memory.check_novelty(
                report.program, first_observation=report.properties.get("first_observation")
            )
            if not novelty.novel:
                report.ok = False
                candidate.feedback = f"novelty: {novelty.reason}"
        if not report.ok:
            first = report.failures[0] if report.failures else None
            candidate.feedback = candidate.feedback or (
                f"{first.name}: {first.message}" if first else "not run"
            )
            name = candidate.feedback.split(":", 1)[0]
            failures[name] = failures.get(name, 0) + 1
            continue
        provenance = {
            "iteration": iteration,
            "skill": candidate.skill,
            "scripted": candidate.scripted,
            "candidate": index,
        }
        candidate.env_key = register(registry_root, report.program, report, provenance)
        candidate.valid = True
        if memory is not None:
            memory.add(
                candidate.env_key,
                report.program,
                first_observation=report.properties.get("first_observation"),
                skill=candidate.skill,
            )
        accepted.append((candidate, report))
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


def write_hints(config: Any, engine: Any, tokenizer: Any, pool: list[PoolEnv]) -> int:
    """Ask the model for a hint for each pool environment without ``hint()``.

    A hint that breaks the rules of a program's own ``hint()`` (length, sentences, the
    solution verbatim) is dropped; its environment then has no hint plays and regret 0.

    Returns:
        How many hints were kept.
    """
    from spadegym.designer.hints import clean_hint, hint_problem, instance_solutions

    todo = [env for env in pool if not env.has_hint]
    if not todo:
        return 0
    prompts = [
        encode_chat(
            tokenizer,
            hint_messages(env.source),
            config.max_prompt_tokens,
            config.chat_template_kwargs,
        )
        for env in todo
    ]
    replies = engine.generate(prompts, "hint", config.hint_max_new_tokens)
    kept = 0
    for env, reply in zip(todo, replies, strict=True):
        hint = clean_hint(reply.text)
        solutions = instance_solutions(env.source) if hint else []
        if hint and hint_problem(hint, solutions) is None:
            env.hint = hint
            kept += 1
    return kept
