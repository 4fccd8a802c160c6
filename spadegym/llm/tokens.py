"""Chat messages as prompt tokens, and prompts as a left-padded batch: one home for both.

The library's local chat backend (``TransformersChat``) and the trainer (its engines, designer,
hinter and episodes) give a model the same kind of input: a conversation rendered with the
tokenizer's chat template and a generation prompt, then many such prompts in one ``generate``
call, padded on the left so every row's last token is its own. Both rules are written here
once. torch is imported only when a batch is built, never at ``import spadegym``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["encode_chat", "left_pad"]


def encode_chat(
    tokenizer: Any,
    messages: Sequence[Mapping[str, str]],
    max_tokens: int | None = None,
    template_kwargs: Mapping[str, Any] | None = None,
) -> list[int]:
    """Chat messages -> prompt token ids ending with the generation prompt.

    A tokenizer with a chat template renders the messages with it (``template_kwargs`` go to
    the template: ``{"enable_thinking": False}`` for Qwen3) and the text is tokenized without
    adding special tokens, which the template wrote itself. A tokenizer without one (a base
    model) gets a plain transcript it can continue, ``role: content`` per message and
    ``assistant: `` last, tokenized with its usual special tokens.

    Args:
        tokenizer: a Hugging Face tokenizer.
        messages: ``{"role": ..., "content": ...}`` dicts, in order.
        max_tokens: keep the last this many tokens (``None``: all). The end of a prompt holds
            the request and the generation prompt, so an over-long prompt loses its beginning.
        template_kwargs: extra arguments of ``apply_chat_template``.

    Returns:
        The token ids.

    Raises:
        ValueError: ``max_tokens`` is below 1.
    """
    if max_tokens is not None and max_tokens < 1:
        raise ValueError(f"max_tokens={max_tokens}: a prompt needs max_tokens >= 1 (or None).")
    if getattr(tokenizer, "chat_template", None):
        text = tokenizer.apply_chat_template(
            list(messages), tokenize=False, add_generation_prompt=True, **(template_kwargs or {})
        )
        ids = list(tokenizer(text, add_special_tokens=False)["input_ids"])
    else:
        text = "".join(f"{m['role']}: {m['content']}\n\n" for m in messages) + "assistant: "
        ids = list(tokenizer(text)["input_ids"])
    return ids if max_tokens is None else ids[-max_tokens:]


def left_pad(prompts: Sequence[Sequence[int]], pad_id: int) -> tuple[Any, Any]:
    """Prompts of different lengths as one batch, padded on the left, on the CPU.

    Args:
        prompts: token ids, one list per row (at least one row, none empty).
        pad_id: the id that fills the left of the shorter rows.

    Returns:
        ``(input_ids, attention_mask)``: two ``torch.long`` tensors of shape ``(rows, width)``
        where ``width`` is the longest prompt; the mask is 1 on prompt tokens, 0 on padding.
        A row's generated tokens start at column ``width``.

    Raises:
        ValueError: no prompts, or an empty one.
    """
    import torch

    if not prompts or not all(len(p) for p in prompts):
        raise ValueError("left_pad needs at least one prompt, and no empty prompt.")
    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(prompts), width), dtype=torch.long)
    for row, prompt in enumerate(prompts):
        ids[row, width - len(prompt) :] = torch.tensor(prompt, dtype=torch.long)
        mask[row, width - len(prompt) :] = 1
    return ids, mask
