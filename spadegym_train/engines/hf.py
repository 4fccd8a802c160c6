"""``HFEngine``: transformers ``generate`` on the training model itself, batched, left padded."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch

from spadegym.llm.tokens import left_pad
from spadegym_train.engines.base import BASE_ROLE, Completion, trim_response

if TYPE_CHECKING:
    from spadegym_train.config import TrainConfig


class LogprobRecorder:
    """A logits processor that records the log-probability of each sampled token.

    It runs last, after the temperature and top-p warpers, so it sees the distribution that
    is actually sampled from. At step ``t`` it knows the token drawn at step ``t - 1`` (the
    last column of ``input_ids``); the final token's log-prob is read by ``finish``. Only one
    ``(batch, vocabulary)`` row of log-probs is held at a time, never the whole history.
    """

    def __init__(self) -> None:
        self.previous: torch.Tensor | None = None
        self.columns: list[torch.Tensor] = []

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.Tensor:
        """Record the previous token's log-prob and keep this step's distribution."""
        if self.previous is not None:
            self.columns.append(self.previous.gather(-1, input_ids[:, -1:]).squeeze(-1))
        self.previous = torch.log_softmax(scores.float(), dim=-1)
        return scores

    def finish(self, sequences: torch.Tensor) -> torch.Tensor:
        """Log-probs of the generated tokens, shape ``(batch, new tokens)``."""
        if self.previous is not None:
            self.columns.append(self.previous.gather(-1, sequences[:, -1:]).squeeze(-1))
        self.previous = None
        columns, self.columns = self.columns, []
        if not columns:
            return torch.zeros((sequences.shape[0], 0))
        return torch.stack(columns, dim=1).cpu()


class HFEngine:
    """Samples with the policy's own model, so it always sees the latest adapter weights.

    Prompts are sorted by length before batching (less padding), and answers are returned in
    the order of the prompts. Sampling draws from torch's global generator, which the loop
    seeds and checkpoints, so a resumed run samples the same replies. The temperature and
    top-p warpers are passed as logits processors, followed by a ``LogprobRecorder``, so each
    completion carries the log-probs it was sampled with.
    """

    def __init__(self, config: TrainConfig, policy: Any):
        self.config = config
        self.policy = policy
        tokenizer = policy.tokenizer
        self.pad_id = tokenizer.pad_token_id
        stops = {tokenizer.eos_token_id}
        for token in ("<|im_end|>", "<|endoftext|>"):
            token_id = tokenizer.convert_tokens_to_ids(token)
            if isinstance(token_id, int) and token_id != tokenizer.unk_token_id:
                stops.add(token_id)
        self.stop_ids = {s for s in stops if s is not None}

    def _processors(self, temperature: float) -> tuple[Any, LogprobRecorder]:
        from transformers import LogitsProcessorList, TemperatureLogitsWarper, TopPLogitsWarper

        recorder = LogprobRecorder()
        processors: list[Any] = []
        if temperature != 1.0:
            processors.append(TemperatureLogitsWarper(temperature))
        if self.config.generation.top_p < 1.0:
            processors.append(TopPLogitsWarper(self.config.generation.top_p))
        return LogitsProcessorList([*processors, recorder]), recorder

    @torch.no_grad()
    def generate(
        self,
        prompts: Sequence[list[int]],
        role: str,
        max_new_tokens: int,
        temperature: float | None = None,
    ) -> list[Completion]:
        """Sample one reply per prompt with the adapter of ``role`` (``"base"``: none).

        ``temperature``: this call's (``None``: the run's ``temperature``).
        """
        policy = self.policy
        temperature = self.config.generation.temperature if temperature is None else temperature
        base = role == BASE_ROLE
        if not base:
            policy.use(role)
        policy.model.eval()
        order = sorted(range(len(prompts)), key=lambda k: len(prompts[k]))
        results: list[Completion | None] = [None] * len(prompts)
        size = self.config.generation.batch_size
        for start in range(0, len(order), size):
            chunk = order[start : start + size]
            ids, mask = left_pad([prompts[k] for k in chunk], self.pad_id)
            width = ids.shape[1]
            processors, recorder = self._processors(temperature)
            with policy.reference() if base else contextlib.nullcontext():
                output = policy.model.generate(
                    input_ids=ids.to(policy.device),
                    attention_mask=mask.to(policy.device),
                    do_sample=True,
                    temperature=1.0,  # the warpers are in ``processors``, before the recorder
                    top_p=1.0,
                    top_k=0,
                    logits_processor=processors,
                    max_new_tokens=max_new_tokens,
                    pad_token_id=self.pad_id,
                    eos_token_id=sorted(self.stop_ids),
                    use_cache=True,
                )
            logprobs = recorder.finish(output)
            for row, k in enumerate(chunk):
                response = trim_response(output[row, width:].tolist(), self.stop_ids, self.pad_id)
                text = policy.tokenizer.decode(response, skip_special_tokens=True)
                values = logprobs[row, : len(response)].tolist()
                results[k] = Completion(list(prompts[k]), response, text, values)
        return results  # type: ignore[return-value]

    def sync(self, step: int) -> None:
        """Nothing to do: generation runs on the training model."""

    def close(self) -> None:
        """Nothing to release."""
