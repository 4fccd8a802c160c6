"""The hinter: a separate call, never trained, that reads a program and writes its hints.

Regret (what a hint is worth to the solver) is the designer's reward, so the designer must not
control the hint it is measured with: a program's own ``hint()`` could hand over the answer
and the leak check would have to catch every spelling of it. SPADE therefore has the model
read the game's source in a separate call and write the hint; here that call also sees the
instance's first observation, and by default it is the frozen base model (the run's model with
its LoRA adapters disabled, so training never shapes it), or any ``spadegym.llm`` backend
(``hint_llm``). Each hint is checked as a program's ``hint()`` is (length, sentences, no talk
of the code) and against the instance's own solution (no leak); a rejected hint means no hint
play for that instance. The counts feed the ``designer/hint*`` metrics.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spadegym.designer.hints import clean_hint, hint_problem
from spadegym.designer.prompts import hint_messages
from spadegym.llm.base import ChatLLM, LLMError, Message
from spadegym.play import HintRequest
from spadegym_train.engines.base import BASE_ROLE, encode_chat

Writer = Callable[[Sequence[list[Message]]], list[str]]
"""Answers hint requests (chat messages) with one reply each."""


@dataclass
class HintCounts:
    """What became of the hints asked for since the last ``take``."""

    asked: int = 0
    kept: int = 0
    leaks: int = 0
    rejected: int = 0

    def take(self) -> dict[str, float]:
        """The counts as ``designer/`` metrics, and reset them."""
        metrics = {
            "designer/hints_asked": float(self.asked),
            "designer/hints_kept": float(self.kept),
            "designer/hint_leaks": float(self.leaks),
            "designer/hints_rejected": float(self.rejected),
        }
        self.asked = self.kept = self.leaks = self.rejected = 0
        return metrics


class Hinter:
    """Writes one checked hint per instance (``None`` where no hint passes the checks).

    Args:
        write: the model call (``model_writer`` or ``llm_writer``).
    """

    def __init__(self, write: Writer):
        self.write = write
        self.counts = HintCounts()

    def __call__(self, requests: Sequence[HintRequest]) -> list[str | None]:
        """Hints for the requests, in order (the ``spadegym.play`` hinter interface)."""
        if not requests:
            return []
        replies = self.write([hint_messages(r.source, r.first_observation) for r in requests])
        hints: list[str | None] = []
        for request, reply in zip(requests, replies, strict=True):
            hint = clean_hint(reply)
            solutions = [request.solution] if request.solution else []
            problem = hint_problem(hint, solutions)
            self.counts.asked += 1
            if problem is None:
                self.counts.kept += 1
                hints.append(hint)
                continue
            self.counts.rejected += 1
            if hint_problem(hint, []) is None:  # fine on its own: it failed on the solution
                self.counts.leaks += 1
            hints.append(None)
        return hints


def model_writer(engine: Any, tokenizer: Any, config: Any) -> Writer:
    """The frozen base model (adapters disabled) through the run's generation engine."""

    def write(requests: Sequence[list[Message]]) -> list[str]:
        prompts = [
            encode_chat(tokenizer, messages, config.max_prompt_tokens, config.chat_template_kwargs)
            for messages in requests
        ]
        replies = engine.generate(prompts, BASE_ROLE, config.hint_max_new_tokens)
        return [reply.text for reply in replies]

    return write


def llm_writer(llm: ChatLLM, concurrency: int = 8) -> Writer:
    """A ``spadegym.llm`` backend (``hint_llm``); a failed call gives an empty (rejected) hint."""

    def ask(messages: list[Message]) -> str:
        try:
            return llm.complete(messages, 1)[0]
        except LLMError:
            return ""

    def write(requests: Sequence[list[Message]]) -> list[str]:
        with concurrent.futures.ThreadPoolExecutor(max(1, concurrency)) as threads:
            return list(threads.map(ask, requests))

    return write


def make_hinter(config: Any, engine: Any, tokenizer: Any) -> Hinter | None:
    """The run's hinter (``None`` when hints come from the programs)."""
    if config.hint_source != "hinter":
        return None
    if config.hint_llm:
        from spadegym.llm import llm_from_spec

        return Hinter(llm_writer(llm_from_spec(config.hint_llm)))
    return Hinter(model_writer(engine, tokenizer, config))
