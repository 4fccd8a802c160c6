"""The engine interface: what the loop asks of an engine, and what a sampled reply holds.

Chat messages become prompt tokens in ``spadegym.llm.tokens.encode_chat``, which the library's
chat backend uses too.

Roles: ``"designer"`` and ``"solver"`` sample with their LoRA adapter; ``"base"`` samples with
the adapters disabled (the frozen base model, which writes the hints).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

BASE_ROLE = "base"
"""The role that samples from the frozen base model (adapters disabled): the hinter."""


@dataclass
class Completion:
    """One sampled reply.

    Attributes:
        prompt_ids: the prompt's token ids, as the model saw them.
        response_ids: the reply's token ids, the end-of-turn token included when it was written.
        text: the reply decoded without special tokens.
        logprobs: the engine's log-probability of each response token under the distribution it
            sampled from (temperature and top-p applied), or ``None`` when it gives none. The
            learner's own log-probabilities differ slightly (kernels, precision, batching);
            truncated importance sampling corrects for it.
    """

    prompt_ids: list[int]
    response_ids: list[int]
    text: str
    logprobs: list[float] | None = None


class GenerationEngine(Protocol):
    """What the loop needs from an engine."""

    def generate(
        self,
        prompts: Sequence[list[int]],
        role: str,
        max_new_tokens: int,
        temperature: float | None = None,
    ) -> list[Completion]:
        """Sample one reply per prompt with the adapter of ``role`` (``"base"``: none).

        ``temperature``: this call's sampling temperature (``None``: the run's); the hinter
        samples at ``generation.hint_temperature``.
        """
        ...

    def sync(self, step: int) -> None:
        """Pick up the adapter weights after an optimizer step."""
        ...

    def close(self) -> None:
        """Release the engine's resources."""
        ...


def trim_response(ids: Sequence[int], stop_ids: set[int], pad_id: int | None) -> list[int]:
    """A generated continuation up to and including the first stop token, without padding."""
    out: list[int] = []
    for token in ids:
        if token in stop_ids:
            out.append(int(token))
            break
        if pad_id is not None and token == pad_id:
            break
        out.append(int(token))
    return out
