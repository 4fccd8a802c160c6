"""Design prompts sized to the model: the budget check, and a short prompt for a small model.

The full design prompt (``spadegym.designer.prompts.design_messages``, the one ``spadegym
generate`` sends) is about 2,200 tokens before its examples. A run whose
``generation.max_prompt_tokens`` is smaller keeps only the end of it, so the designer never
sees its skill, the contract or the examples; ``prompt_budget_problem`` says so at start.
``design.prompt="short"`` sends ``short_design_messages`` instead: a few hundred tokens that a
135M model can take in whole (``spadegym.designer.short_prompt``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from spadegym.designer.prompts import design_messages
from spadegym.designer.short_prompt import SHORT_EXAMPLE, short_design_messages
from spadegym.llm.tokens import encode_chat

if TYPE_CHECKING:
    from spadegym_train.config import TrainConfig

__all__ = ["SHORT_EXAMPLE", "prompt_budget_problem", "short_design_messages"]


def prompt_budget_problem(config: TrainConfig, tokenizer: Any, corpus: Any) -> str | None:
    """Why design prompts will not fit ``generation.max_prompt_tokens``, or ``None``.

    Measured on a prompt for the first skill and the corpus's first document, without memory
    examples (which only make it longer): an over-long prompt loses its beginning, where the
    skill, the contract and the examples are.
    """
    document = corpus.documents[0].text if getattr(corpus, "documents", None) else "x"
    skill = config.design.skills[0]
    if config.design.prompt == "short":
        messages = short_design_messages(skill, document)
    else:
        messages = design_messages(skill, 3, document)
    length = len(encode_chat(tokenizer, messages, None, config.model.chat_template_kwargs))
    budget = config.generation.max_prompt_tokens
    if length <= budget:
        return None
    return (
        f"design prompts take about {length} tokens (without examples) but "
        f"generation.max_prompt_tokens={budget} keeps only their last {budget}: the designer "
        "will not see what it is asked for. Raise generation.max_prompt_tokens, or set "
        "design.prompt=short for a small model."
    )
