"""``HFEngine``: transformers ``generate`` on the training model itself, batched, left padded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from spadegym_train.engines.base import Completion, trim_response


class HFEngine:
    """Samples with the policy's own model, so it always sees the latest adapter weights.

    Prompts are sorted by length before batching (less padding), and answers are returned in
    the order of the prompts. Sampling draws from torch's global generator, which the loop
    seeds and checkpoints, so a resumed run samples the same replies.
    """

    def __init__(self, config: Any, policy: Any):
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

    @torch.no_grad()
    def generate(
        self, prompts: Sequence[list[int]], role: str, max_new_tokens: int
    ) -> list[Completion]:
        """Sample one reply per prompt with the adapter of ``role``."""
        policy = self.policy
        policy.use(role)
        policy.model.eval()
        order = sorted(range(len(prompts)), key=lambda k: len(prompts[k]))
        results: list[Completion | None] = [None] * len(prompts)
        size = self.config.generation_batch_size
        for start in range(0, len(order), size):
            chunk = order[start : start + size]
            width = max(len(prompts[k]) for k in chunk)
            ids = torch.full((len(chunk), width), self.pad_id, dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            for row, k in enumerate(chunk):
                prompt = prompts[k]
                ids[row, width - len(prompt) :] = torch.tensor(prompt, dtype=torch.long)
                mask[row, width - len(prompt) :] = 1
            output = policy.model.generate(
                input_ids=ids.to(policy.device),
                attention_mask=mask.to(policy.device),
                do_sample=True,
                temperature=self.config.temperature,
                top_p=self.config.top_p,
                top_k=0,
                max_new_tokens=max_new_tokens,
                pad_token_id=self.pad_id,
                eos_token_id=sorted(self.stop_ids),
                use_cache=True,
            )
            for row, k in enumerate(chunk):
                response = trim_response(output[row, width:].tolist(), self.stop_ids, self.pad_id)
                text = policy.tokenizer.decode(response, skip_special_tokens=True)
                results[k] = Completion(list(prompts[k]), response, text)
        return results  # type: ignore[return-value]

    def sync(self, step: int) -> None:
        """Nothing to do: generation runs on the training model."""

    def close(self) -> None:
        """Nothing to release."""
