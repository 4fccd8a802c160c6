"""Hints for programs that have no ``hint()``: written by the designer model, checked, kept.

SPADE has the same model read a game's source and write a hint in a separate call; regret
(the hint's help) is the designer's reward, so a hint that gives the answer away would teach
the designer to write games that only the hint can solve. The hint is therefore checked as a
program's own ``hint()`` is (length, sentences, the answer however it is written: see
``spadegym.validation.leak``) before it is kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from spadegym import contract
from spadegym.designer.prompts import hint_messages
from spadegym.errors import ProgramError, SandboxError
from spadegym.llm.base import Completes
from spadegym.sandbox import SandboxConfig, make_worker
from spadegym.validation.leak import hint_leak

__all__ = ["HintResult", "clean_hint", "hint_problem", "instance_solutions", "write_hint"]

_THINK = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|\Z)", re.DOTALL | re.IGNORECASE)
_PREFIX = re.compile(
    r"^\s*(?:\*\*)?(?:hint|here is (?:a|the) hint)(?:\s*\*\*)?\s*[:\-](?:\s*\*\*)?\s*",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?](\s|$)")
_CODE_WORDS = re.compile(r"\bself\.|\bsolution\(\)|\breset\(|\bseed\b|```")


@dataclass(frozen=True)
class HintResult:
    """What came of asking for a hint.

    Attributes:
        hint: the hint kept, or ``None``.
        replies: every reply the model gave (all are logged).
        problem: why the last reply was not kept (``""`` when one was).
    """

    hint: str | None
    replies: tuple[str, ...]
    problem: str = ""


def clean_hint(reply: str) -> str:
    """The hint in a reply: reasoning, fences, quotes and a "Hint:" label removed."""
    text = _THINK.sub("", reply)
    text = text.replace("```", " ").strip()
    text = _PREFIX.sub("", text)
    text = " ".join(text.split())
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    return text


def hint_problem(hint: str, solutions: list[list[str]]) -> str | None:
    """Why ``hint`` cannot be kept, or ``None``: the rules a program's ``hint()`` obeys.

    Args:
        hint: the cleaned hint.
        solutions: the ``solution()`` of a few instances (empty for two-player games).
    """
    if not hint:
        return "the hint is empty"
    if len(hint) >= contract.MAX_HINT_CHARS:
        return f"the hint is {len(hint)} characters; the limit is {contract.MAX_HINT_CHARS}"
    if len(_SENTENCE_END.findall(hint)) > 3:
        return "the hint has more than 3 sentences"
    if _CODE_WORDS.search(hint):
        return "the hint talks about the code, not the game"
    for solution in solutions:
        leak = hint_leak(hint, solution)
        if leak:
            return f"the hint contains {leak}"
    return None


def instance_solutions(
    program: str, seeds: int = 3, sandbox: SandboxConfig | None = None
) -> list[list[str]]:
    """``solution()`` of seeds ``0..seeds-1``, computed in a sandbox worker.

    Two-player programs, and programs whose ``solution()`` fails, give an empty list.
    """
    worker = make_worker(sandbox or SandboxConfig(call_timeout=2.0, load_timeout=5.0))
    try:
        info = worker.load(program)
        if not info.has_solution:
            return []
        out = []
        for seed in range(seeds):
            instance = worker.new(info.program)
            try:
                worker.reset(instance, seed, None)
                out.append(list(worker.solution(instance)))
            finally:
                worker.close_instance(instance)
        return out
    except (ProgramError, SandboxError):
        return []
    finally:
        worker.close()


def write_hint(
    llm: Completes,
    program: str,
    solutions: list[list[str]],
    *,
    attempts: int = 2,
    on_reply: Callable[[str], None] | None = None,
) -> HintResult:
    """Ask ``llm`` for a hint to ``program`` and keep the first one that passes the checks.

    Args:
        llm: the designer model.
        program: the validated program (without ``hint()``).
        solutions: instance solutions, for the leak check (``instance_solutions``).
        attempts: requests at most.
        on_reply: called with each reply as it arrives (``generate`` logs it there).

    Raises:
        LLMError: the backend failed (the caller records it and goes on without a hint).
    """
    messages = hint_messages(program)
    replies: list[str] = []
    problem = "no attempt was made"
    for _ in range(max(1, attempts)):
        reply = llm.complete(messages, 1)[0]
        replies.append(reply)
        if on_reply is not None:
            on_reply(reply)
        hint = clean_hint(reply)
        problem = hint_problem(hint, solutions) or ""
        if not problem:
            return HintResult(hint, tuple(replies))
    return HintResult(None, tuple(replies), problem)
