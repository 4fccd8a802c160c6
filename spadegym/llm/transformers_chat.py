"""``TransformersChat``: a local Hugging Face causal LM as a chat backend.

For small models and tests; a serving engine behind ``OpenAIChat`` is far faster for real
runs. Generation holds a lock (one ``generate`` at a time on one model), so many threads may
share one backend safely. torch and transformers are imported when the backend is built,
never at ``import spadegym``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from spadegym.errors import ConfigError
from spadegym.llm.base import LLMError, Message, SyncChat, check_messages

__all__ = ["TransformersChat"]


class TransformersChat(SyncChat):
    """Sample completions from a local causal language model.

    Args:
        model: a model folder or hub name already on disk, or a loaded
            ``PreTrainedModel``.
        tokenizer: the tokenizer; loaded from ``model`` when it is a path.
        max_new_tokens: completion length limit.
        temperature: sampling temperature; 0 means greedy decoding (then every one of the
            ``n`` completions is the same).
        top_p: nucleus sampling.
        device: where to run (``"cpu"``, ``"cuda"``); ``None`` keeps the model where it is,
            or picks CUDA when available for a model loaded here.
        seed: seeds torch before each call, so a run can be repeated; ``None`` does not.
        name: recorded in provenance; defaults to ``hf:<path>``.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any = None,
        *,
        max_new_tokens: int = 2048,
        temperature: float = 0.6,
        top_p: float = 0.95,
        device: str | None = None,
        seed: int | None = None,
        name: str | None = None,
    ):
        try:
            import torch
            import transformers
        except ModuleNotFoundError as exc:
            raise ConfigError(
                "TransformersChat needs torch and transformers: pip install 'spadegym[train]'."
            ) from exc
        if max_new_tokens < 1 or temperature < 0:
            raise ConfigError(
                f"max_new_tokens={max_new_tokens}, temperature={temperature}: "
                "need max_new_tokens >= 1 and temperature >= 0."
            )
        self._torch = torch
        if isinstance(model, str):
            path = model
            if device is None:
                device = "cuda" if torch.cuda.is_available() else "cpu"
            try:
                tokenizer = tokenizer or transformers.AutoTokenizer.from_pretrained(path)
                model = transformers.AutoModelForCausalLM.from_pretrained(path)
            except OSError as exc:
                raise ConfigError(
                    f"cannot load a model from {path!r}: {exc}. Give a folder "
                    "holding config.json, the weights and the tokenizer."
                ) from exc
        else:
            path = getattr(getattr(model, "config", None), "name_or_path", "") or "model"
        if tokenizer is None:
            raise ConfigError(
                "a loaded model needs its tokenizer: TransformersChat(model, tokenizer)."
            )
        if device is not None:
            model = model.to(device)
        model.eval()
        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_p = top_p
        self.seed = seed
        self.name = name or f"hf:{path}"
        self._lock = threading.Lock()

    def complete(self, messages: Sequence[Message], n: int = 1) -> list[str]:
        """Return ``n`` sampled completions of the conversation."""
        sent = check_messages(messages, n)
        torch = self._torch
        prompt_ids = self._encode(sent)
        device = next(self.model.parameters()).device
        input_ids = torch.tensor([prompt_ids], dtype=torch.long, device=device)
        sampling: dict[str, Any] = {"do_sample": False}
        if self.temperature > 0:
            sampling = {"do_sample": True, "temperature": self.temperature, "top_p": self.top_p}
        pad = self.tokenizer.pad_token_id
        if pad is None:
            pad = self.tokenizer.eos_token_id
        with self._lock, torch.no_grad():
            if self.seed is not None:
                torch.manual_seed(self.seed)
            try:
                output = self.model.generate(
                    input_ids,
                    attention_mask=torch.ones_like(input_ids),
                    max_new_tokens=self.max_new_tokens,
                    num_return_sequences=n if self.temperature > 0 else 1,
                    pad_token_id=pad,
                    **sampling,
                )
            except (RuntimeError, ValueError) as exc:
                raise LLMError(f"{self.name}: generate() failed: {exc}") from exc
        new = output[:, input_ids.shape[1] :]
        texts = [self.tokenizer.decode(row, skip_special_tokens=True) for row in new]
        # Greedy decoding gives one answer; the n completions asked for are all that one.
        return texts if len(texts) == n else texts * n

    def _encode(self, messages: list[Message]) -> list[int]:
        if getattr(self.tokenizer, "chat_template", None):
            ids = self.tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=True
            )
            if isinstance(ids, dict) or hasattr(ids, "keys"):  # BatchEncoding in newer versions
                ids = ids["input_ids"]
            return list(ids)
        # A base model without a chat template: a plain transcript it can continue.
        text = "".join(f"{m['role']}: {m['content']}\n\n" for m in messages) + "assistant: "
        return list(self.tokenizer(text)["input_ids"])
