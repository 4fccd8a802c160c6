"""The trainer's side of playing: the model engine as a ``spadegym.play`` solver, and its pool.

Episodes are played by ``spadegym.play.play_episodes`` (the module ``spadegym eval`` plays
with too: one system prompt per kind, one hint format, one turn loop). Here the solver is the
run's generation engine: each round's conversations become prompt tokens, the engine samples
them in one batch with the solver's adapter, and each reply keeps its tokens and the engine's
log-probs for the update. The instances live in a local ``SandboxPool`` or, with ``executor:
ray``, on Ray actors (``spadegym.vector.ray.RaySandboxPool``, same interface).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from spadegym.llm.base import Message
from spadegym.llm.tokens import encode_chat
from spadegym.play import Reply
from spadegym.sandbox import SandboxConfig, SandboxPool
from spadegym_train.engines.base import GenerationEngine

if TYPE_CHECKING:
    from spadegym.vector.ray import RaySandboxPool
    from spadegym_train.config import TrainConfig


class EngineSolver:
    """The run's model as the solver: replies carry their ``Completion`` in ``Reply.data``.

    Args:
        engine: samples the replies (the solver's adapter).
        tokenizer: renders the conversations with the chat template.
        max_prompt_tokens: prompt budget (the beginning is cut first).
        max_new_tokens: reply budget per turn.
        template_kwargs: extra ``apply_chat_template`` arguments.
        temperature: the sampling temperature (``None``: the engine's run temperature).
    """

    def __init__(
        self,
        engine: GenerationEngine,
        tokenizer: Any,
        *,
        max_prompt_tokens: int,
        max_new_tokens: int,
        template_kwargs: dict[str, Any] | None = None,
        temperature: float | None = None,
    ):
        self.engine = engine
        self.tokenizer = tokenizer
        self.max_prompt_tokens = max_prompt_tokens
        self.max_new_tokens = max_new_tokens
        self.template_kwargs = template_kwargs
        self.temperature = temperature

    def respond(self, requests: Sequence[list[Message]]) -> list[Reply]:
        """One reply per conversation, sampled in one batch."""
        prompts = [
            encode_chat(self.tokenizer, messages, self.max_prompt_tokens, self.template_kwargs)
            for messages in requests
        ]
        completions = self.engine.generate(prompts, "solver", self.max_new_tokens, self.temperature)
        return [Reply(c.text, c) for c in completions]


def engine_solver(
    config: TrainConfig, engine: GenerationEngine, tokenizer: Any, *, evaluation: bool = False
) -> EngineSolver:
    """The solver of a run (``TrainConfig``'s prompt and reply budgets).

    ``evaluation``: the evaluation plays' solver, sampling at ``generation.eval_temperature``.
    """
    return EngineSolver(
        engine,
        tokenizer,
        max_prompt_tokens=config.generation.max_prompt_tokens,
        max_new_tokens=config.generation.solver_max_new_tokens,
        template_kwargs=config.model.chat_template_kwargs,
        temperature=config.generation.eval_temperature if evaluation else None,
    )


def open_episode_pool(
    executor: str, sandbox_workers: int, sandbox: SandboxConfig | None = None
) -> SandboxPool | RaySandboxPool:
    """The pool that hosts the episodes' instances.

    Args:
        executor: ``"local"``, ``"ray"`` or ``"ray:<address>"`` (``TrainConfig.play.executor``).
        sandbox_workers: worker processes of the local pool, or of each Ray actor.
        sandbox: the workers' sandbox (``TrainConfig.sandbox``; ``None``: the default one).
    """
    if executor == "local":
        # A worker serves one program: spares started ahead spare each new pool the wait.
        pool = SandboxPool(sandbox_workers, sandbox, spares=2)
        pool.start()
        return pool
    from spadegym.vector.ray import RaySandboxPool

    address = executor[4:] if executor.startswith("ray:") else None
    return RaySandboxPool(workers_per_actor=sandbox_workers, config=sandbox, address=address)
